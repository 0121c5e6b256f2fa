"""The procedural stream and the train-data command: seeded, reproducible, within the limits,
clear errors."""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ramseygadgets.cli import app
from ramseygadgets.training import ProblemStream, StreamConfig, StreamExhausted, TrainingDataError
from ramseygadgets.verification.verifier import verify

#: Unpublished problems of minimal size 6 (P5 and the fork against P4 and each other), quick.
SMALL = StreamConfig(seed=3, pool=("P4", "P5", "fork", "K3"), max_size=6)


def titles(stream: ProblemStream, n: int) -> list[str]:
    return [item.problem.title for item in itertools.islice(stream, n)]


def test_same_seed_same_stream_and_draws_do_not_depend_on_history() -> None:
    assert titles(ProblemStream(SMALL), 12) == titles(ProblemStream(SMALL), 12)
    warm = ProblemStream(SMALL)
    titles(warm, 20)
    cold = ProblemStream(SMALL)
    assert warm.draw(random.Random(99)).problem == cold.draw(random.Random(99)).problem


def test_every_draw_is_solved_minimal_within_the_limits() -> None:
    config = StreamConfig(seed=1, pool=SMALL.pool, min_size=5, max_size=6)
    for item in itertools.islice(ProblemStream(config), 15):
        assert 5 <= item.min_vertices <= 6 == config.max_size
        assert item.solution.graph.n == item.min_vertices
        assert verify(item.problem, item.solution).correct


def test_impossible_limits_exhaust_the_stream() -> None:
    stream = ProblemStream(StreamConfig(pool=("K4", "K1,4"), gadgets="determiners", max_size=4))
    with pytest.raises(StreamExhausted, match="widen the pool"):
        stream.next_problem()


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"min_size": 5, "max_size": 4}, "min-size <= max-size"),
        ({"max_size": 12}, "at most 10"),
        ({"solve_timeout": 0}, "finite number of seconds > 0"),
    ],
)
def test_bad_limits_are_refused(config: dict, message: str) -> None:
    with pytest.raises(TrainingDataError, match=message):
        StreamConfig(**config)


def test_train_data_errors_are_one_line(tmp_path: Path) -> None:
    runner = CliRunner()
    cases = [
        (["train-data", "--out", str(tmp_path / "a")], "nothing to write"),
        (
            ["train-data", "--out", str(tmp_path / "a"), "--from", str(tmp_path / "nope")],
            "does not exist",
        ),
        (
            ["train-data", "--out", str(tmp_path / "a"), "--stream", "1", "--pool", "XYZ"],
            "unknown pattern",
        ),
    ]
    (tmp_path / "file").write_text("x")
    cases.append((["train-data", "--out", str(tmp_path / "file" / "d"), "--stream", "1",
                   "--pool", "K1,4,K4", "--max-size", "5"], "is a file"))  # fmt: skip
    for args, message in cases:
        result = runner.invoke(app, args)
        assert result.exit_code == 2, result.output
        assert message in result.output and "Traceback" not in result.output


def test_train_data_replaces_its_own_output_but_nothing_else(tmp_path: Path) -> None:
    from datasets import load_from_disk

    out = tmp_path / "train"
    args = ["train-data", "--out", str(out), "--pool", "P4,P5", "--max-size", "6", "--json"]
    first = CliRunner().invoke(app, [*args, "--stream", "2"])
    assert first.exit_code == 0, first.output
    second = CliRunner().invoke(app, [*args, "--stream", "3"])
    assert second.exit_code == 0 and json.loads(second.output)["rows"] == 3
    assert len(load_from_disk(str(out))) == 3
    other = tmp_path / "precious"
    other.mkdir()
    (other / "notes.txt").write_text("keep")
    refused = CliRunner().invoke(app, ["train-data", "--out", str(other), "--stream", "1"])
    assert refused.exit_code == 2 and (other / "notes.txt").read_text() == "keep"


def test_an_equivalent_problem_drawn_later_is_named_as_drawn_and_solved() -> None:
    """The (P5, P4)-red-determiner and the (P4, P5)-blue-determiner are one problem (solved
    once); each draw names the problem drawn, with a solution the verifier accepts for it, so
    that a draw does not depend on which of the two came first."""
    from ramseygadgets.problems.problem import Problem

    stream = ProblemStream(SMALL)
    red = Problem.make("P5", "P4", "red-determiner")
    blue = Problem.make("P4", "P5", "blue-determiner")
    first, second = stream.solve(red), stream.solve(blue)
    assert first is not None and second is not None and len(stream.solved) == 1
    assert (first.problem, second.problem) == (red, blue)
    assert verify(blue, second.solution).correct and verify(red, first.solution).correct
    assert stream.solve(red) == first
