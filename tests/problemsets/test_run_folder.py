"""A ``generate`` run folder as trustworthy as an ``eval`` run (issue 16): records read back are
checked, the strongest result is kept, one folder holds one problem set, hostile files give one
line, the final write survives a second Ctrl-C."""

from __future__ import annotations

import json
import os
import signal
import tempfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ramseygadgets.cli import app
from ramseygadgets.core.gadgets import Candidate
from ramseygadgets.infra.executors import Executor
from ramseygadgets.problems.problem import Problem
from ramseygadgets.problemsets import (
    ProblemSetError,
    ProblemSetWriter,
    check_record,
    connected_graphs,
    plan_problem_set,
    read_results,
)
from ramseygadgets.scaleout import LocalExecutor
from ramseygadgets.scaleout.fanout import SolveTask, generate_problem_set, solve_task
from ramseygadgets.search.exhaustive import nauty_available
from ramseygadgets.verification.verifier import verify

runner = CliRunner()
RED = ["generate", "--F", "P3", "--H", "K3", "--gadgets", "red-determiner", "--jobs", "1"]


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _record(max_vertices: int = 6, gadget: str = "red-determiner") -> dict:
    problem = Problem.make("P3", "K3", gadget)
    task = SolveTask(json.dumps(problem.to_json()), max_vertices, 30.0)
    return solve_task(task)


def _errors(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith("error:")]


# -- 1. records read back are checked -----------------------------------------------------------
def test_a_forged_minimal_record_is_named_left_out_and_solved_again(tmp_path):
    real = _record()
    forged = {**real, "n": 3, "m": 2, "lower_bound": 3, "seconds": 0.0}
    forged["solution"] = {"edges": [[0, 1], [1, 2]], "e": [0, 1]}
    forged.pop("shipped")
    (tmp_path / "results.jsonl").write_text(json.dumps(forged) + "\n")
    result = runner.invoke(app, [*RED, "--max-vertices", "6", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert f"{tmp_path / 'results.jsonl'} line 1: the solution is not a" in result.output
    assert "solving 1" in result.output  # solved again
    (row,) = _lines(tmp_path / "problems.jsonl")
    problem = Problem.make("P3", "K3", "red-determiner")
    assert (row["min_vertices"], row["min_edges"]) == (5, 7)
    assert verify(problem, Candidate.from_json(row["solution"], problem.kind)).correct
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["minimal_sizes"] == {"5": 1}
    assert manifest["rejected_records"][0].startswith(f"{tmp_path / 'results.jsonl'} line 1")


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        (b'{"id": ["x"]}', "id must be a string"),  # was a TypeError
        (b'{"id": "zzz", "status": "found"}', "unusable problem record zzz"),  # blocked every run
        (b"[" * 200_000 + b"]" * 200_000, "JSON nested too deeply"),  # was a RecursionError
        (b'{"id": "p3_k3_red_\xff"}', "not UTF-8 text"),
        (
            b'{"id": "p3_k3_blue_determiner", "F": "P3", "H": "K3", "gadget": "blue-determiner",'
            b' "status": "none-up-to-limit", "n": 1e400, "m": null, "lower_bound": 4,'
            b' "max_vertices": 3, "seconds": 1e400, "solution": null}',
            "seconds must be a finite number",
        ),
        (
            b'{"id": "p3_k3_blue_determiner", "F": "P3", "H": "K3", "gadget": "blue-determiner",'
            b' "status": "found", "n": 1e400, "m": 7, "lower_bound": 5, "seconds": 1,'
            b' "solution": {"edges": [[0, 1]], "e": [0, 1]}}',
            "a found record needs whole numbers",
        ),
    ],
    ids=["id-list", "no-problem", "deep", "not-utf8", "inf-seconds", "inf-n"],
)
def test_a_hostile_record_is_named_by_file_and_line_before_solving(tmp_path, line, reason):
    args = ["generate", "--F", "P3", "--H", "K3", "--gadgets", "determiners", "--jobs", "1"]
    (tmp_path / "results.jsonl").write_bytes(json.dumps(_record()).encode() + b"\n" + line + b"\n")
    result = runner.invoke(app, [*args, "--max-vertices", "6", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output and not _errors(result.output)
    warning = f"{tmp_path / 'results.jsonl'} line 2: "
    assert warning in result.output and reason in result.output
    assert result.output.index(warning) < result.output.index("solving 1")  # at the start
    manifest_text = (tmp_path / "manifest.json").read_text()
    assert "Infinity" not in manifest_text
    assert json.loads(manifest_text)["status"] == {"found": 2}  # this run's work is written
    assert len(_lines(tmp_path / "problems.jsonl")) == 2


def test_check_record_accepts_the_solvers_records_and_rejects_broken_ones():
    real = _record()
    assert check_record(real) is None
    assert check_record({**real, "proven_minimal": "yes"}) is not None
    assert check_record({**real, "lower_bound": 6}) is not None  # above n
    assert check_record({**real, "m": 8}) is not None  # not the solution's size
    assert check_record({**real, "status": "solved"}) is not None
    assert "shipped" in check_record({**real, "shipped": {**real["shipped"], "m": 6}})


def test_check_record_checks_the_search_provenance():
    real = _record()
    assert real["engine"] == "cegar" and real["levels"]
    level = real["levels"][0]
    assert check_record({**real, "min_vertices": 3}) is None
    assert "engine" in check_record({**real, "engine": 7})
    assert "min_vertices" in check_record({**real, "min_vertices": 0})
    assert "min_vertices" in check_record({**real, "min_vertices": True})
    assert "levels" in check_record({**real, "levels": "none"})
    assert "outcome" in check_record({**real, "levels": [{**level, "outcome": "maybe"}]})
    assert "seconds" in check_record({**real, "levels": [{**level, "seconds": -1}]})
    assert "n must" in check_record({**real, "levels": [{**level, "n": 99}]})
    proven_empty = {**level, "n": real["n"], "outcome": "none"}
    assert "lower_bound" in check_record({**real, "levels": [proven_empty]})


# -- 2. the strongest result is kept ------------------------------------------------------------
def test_a_weaker_rerun_never_replaces_a_stronger_proof(tmp_path):
    base = ["generate", "--F", "P3", "--H", "K3", "--gadgets", "red-determiner", "--jobs", "1"]
    first = runner.invoke(app, [*base, "--max-vertices", "4", "--out", str(tmp_path)])
    assert first.exit_code == 1, first.output
    again = runner.invoke(
        app, [*base, "--max-vertices", "3", "--retry-unsolved", "--out", str(tmp_path)]
    )
    assert again.exit_code == 1, again.output
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["not_solved"][0]["lower_bound"] == 5  # none on ≤ 4 vertices: kept
    weaker = _record(max_vertices=3)
    assert weaker["lower_bound"] == 4
    with (tmp_path / "results.jsonl").open("a") as fh:
        fh.write(json.dumps(weaker) + "\n")
    assert read_results(tmp_path / "results.jsonl")["p3_k3_red_determiner"]["lower_bound"] == 5
    stronger = runner.invoke(
        app, [*base, "--max-vertices", "6", "--retry-unsolved", "--out", str(tmp_path)]
    )
    assert stronger.exit_code == 0, stronger.output
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["minimal_sizes"] == {"5": 1} and not manifest["not_solved"]


# -- 3. one folder, one problem set -------------------------------------------------------------
def test_another_problem_set_in_the_same_folder_is_refused_or_extended(tmp_path):
    first = runner.invoke(app, [*RED, "--max-vertices", "6", "--out", str(tmp_path)])
    assert first.exit_code == 0, first.output
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()}
    other = [*RED[:4], "K3,C4", *RED[5:], "--max-vertices", "6", "--out", str(tmp_path)]
    refused = runner.invoke(app, other)
    assert refused.exit_code == 2, refused.output
    (error,) = _errors(refused.output)
    assert "holds another problem set (1 problems" in error and "1 not in the folder" in error
    assert "--extend" in error
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()} == before
    extended = runner.invoke(app, [*other, "--extend"])
    assert extended.exit_code == 0, extended.output
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    rows = _lines(tmp_path / "problems.jsonl")
    assert manifest["planned"] == manifest["finished"] == len(rows) == 2
    assert [r["command"] for r in manifest["requests"]] == ["ramseygadgets generate"] * 2
    narrower = runner.invoke(app, [*RED, "--max-vertices", "6", "--out", str(tmp_path)])
    assert narrower.exit_code == 2 and "1 of the folder's not planned" in narrower.output


def test_a_folder_in_use_by_another_run_is_refused(tmp_path):
    with ProblemSetWriter(tmp_path):
        result = runner.invoke(app, [*RED, "--max-vertices", "6", "--out", str(tmp_path)])
    assert result.exit_code == 2
    assert f"in use by another generate run (pid {os.getpid()})" in result.output
    assert not (tmp_path / "results.jsonl").read_text()


# -- 5. hostile inputs give one line ------------------------------------------------------------
def test_deeply_nested_polynomial_pairs_file_is_one_error(tmp_path):
    pairs = tmp_path / "pairs.json"
    pairs.write_text("[" * 200_000 + "]" * 200_000)
    result = runner.invoke(
        app, [*RED, "--polynomial-pairs", str(pairs), "--out", str(tmp_path / "out")]
    )
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert len(_errors(result.output)) == 1 and "not valid JSON" in result.output


# -- 8. large enumerations are estimated first --------------------------------------------------
def test_an_enumeration_beyond_the_limit_is_refused_before_it_starts():
    result = runner.invoke(app, ["generate", "--F", "P3", "--H", "connected:9", "--dry-run"])
    assert result.exit_code == 2, result.output
    (error,) = _errors(result.output)
    assert "up to 1,566,480 problems" in error and "261,080 graphs, OEIS A001349" in error
    assert "--force" in error


@pytest.mark.skipif(not nauty_available(), reason="nauty (geng) is not installed")
def test_an_enumeration_reports_progress_against_the_known_count():
    heard: list[tuple[str, int, int]] = []
    graphs = connected_graphs(7, lambda label, done, total: heard.append((label, done, total)))
    assert len(graphs) == 853
    assert heard[0] == ("connected:7", 500, 853) and heard[-1] == ("connected:7", 853, 853)


# -- 9. a second Ctrl-C, a read-only folder -----------------------------------------------------
class _InterruptAfter(Executor):
    def __init__(self, count: int) -> None:
        self.count = count

    def run(self, fn, items, *, describe=str):
        for index, item in enumerate(items):
            if index == self.count:
                raise KeyboardInterrupt
            yield index, fn(item)


def test_a_second_ctrl_c_during_the_final_write_still_lets_it_finish(tmp_path, monkeypatch):
    plan = plan_problem_set(["P3"], ["K3"], gadgets="determiners")
    finish = ProblemSetWriter.finish

    def ctrl_c_then_finish(self, *args, **kwargs):
        os.kill(os.getpid(), signal.SIGINT)  # the second Ctrl-C, in the middle of the write
        return finish(self, *args, **kwargs)

    monkeypatch.setattr(ProblemSetWriter, "finish", ctrl_c_then_finish)
    with ProblemSetWriter(tmp_path) as writer:
        outcome = generate_problem_set(plan, writer, max_vertices=6, executor=_InterruptAfter(1))
    assert outcome.interrupted and len(outcome.ran) == 1
    assert len(_lines(tmp_path / "problems.jsonl")) == 1
    assert json.loads((tmp_path / "manifest.json").read_text())["finished"] == 1


@pytest.fixture
def read_only_dir():
    """A folder this process cannot write to (as root: run with the effective uid of nobody)."""
    folder = Path(tempfile.mkdtemp(prefix="ramseygadgets-ro-"))
    folder.chmod(0o555)
    root = os.geteuid() == 0
    if root:
        os.seteuid(65534)
    try:
        yield folder
    finally:
        if root:
            os.seteuid(0)
        folder.chmod(0o755)
        folder.rmdir()


def test_a_read_only_folder_is_refused_before_any_solving(read_only_dir, monkeypatch):
    solved: list[object] = []
    monkeypatch.setattr(LocalExecutor, "run", lambda self, fn, items, **kw: solved.append(items))
    result = runner.invoke(app, [*RED, "--out", str(read_only_dir)])
    assert result.exit_code == 2, result.output
    assert (
        f"cannot write to {read_only_dir}" in result.output
        or "cannot create the lock" in result.output
    )
    assert solved == []


def test_the_writer_refuses_a_read_only_folder_with_one_sentence(read_only_dir):
    with pytest.raises(ProblemSetError, match=str(read_only_dir)):
        ProblemSetWriter(read_only_dir)


# -- 10. unknown gadget types -------------------------------------------------------------------
def test_a_gadget_type_no_input_has_is_an_error(tmp_path):
    result = runner.invoke(
        app, ["generate", "--F", "P3", "--H", "K3", "--gadgets", "green-determiner", "--dry-run"]
    )
    assert result.exit_code == 2 and "no pair or spec of this request has a green-determiner" in (
        result.output
    )
    ok = runner.invoke(
        app,
        ["generate", "--spec", "P3 | P3 | P4", "--gadgets", "green-determiner", "--dry-run"],
    )
    assert ok.exit_code == 0 and "1 problems" in ok.output
    for name in ("purple-sender", "violet-determiner"):
        bad = runner.invoke(app, ["generate", "--F", "P3", "--H", "K3", "--gadgets", name])
        assert bad.exit_code == 2 and "unknown gadget" in bad.output


@pytest.mark.skipif(not nauty_available(), reason="nauty is not installed")
@pytest.mark.parametrize("gap", [0.0, 0.5])
def test_a_double_ctrl_c_exits_130_with_the_set_written(tmp_path, gap):
    """The console script, SIGINT twice ``gap`` seconds apart after the first record: exit 130
    (never death by SIGINT, -2) and problems.jsonl and the manifest written."""
    import subprocess
    import sys
    import time

    script = Path(sys.executable).with_name("ramseygadgets")
    args = ["generate", "--F", "K1,3", "--H", "K1,4,K3", "--gadgets", "red-determiner"]
    process = subprocess.Popen(
        [str(script), *args, "--jobs", "2", "--timeout", "120", "--out", str(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    results = tmp_path / "results.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (results.exists() and results.read_text()):
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    time.sleep(gap)
    process.send_signal(signal.SIGINT)
    output, _ = process.communicate(timeout=60)
    assert process.returncode == 130, output
    assert [r["id"] for r in _lines(tmp_path / "problems.jsonl")] == ["k13_k3_red_determiner"]
    assert json.loads((tmp_path / "manifest.json").read_text())["finished"] == 1
