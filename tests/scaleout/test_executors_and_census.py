"""Local worker processes and the sliced, checkpointed census: same counts however sliced, a
killed worker costs only its slice, and no slice is counted twice."""

from __future__ import annotations

import json

import pytest

from ramseygadgets.colorings.spec import ColoringSpec
from ramseygadgets.core.gadgets import GadgetKind
from ramseygadgets.problems.problem import Problem
from ramseygadgets.scaleout import LocalExecutor, ScaleoutError
from ramseygadgets.scaleout.census import CheckpointError, run_census
from ramseygadgets.search.exhaustive import nauty_available

from . import helpers  # noqa: E402  (module-level tasks importable by forked workers)

needs_nauty = pytest.mark.skipif(
    not nauty_available(), reason="nauty (geng, listg) is not installed"
)


def problems() -> list:
    spec = ColoringSpec.parse("P3 | P3 | P4")
    return [
        Problem(spec, GadgetKind.DETERMINER, 2),
        Problem(spec, GadgetKind.POSITIVE_SENDER),
        Problem(spec, GadgetKind.NEGATIVE_SENDER),
        Problem.make("P3", "K3", "red-determiner"),
        Problem.make("K1,3", "K3", "clause-gadget"),
    ]


@pytest.fixture(scope="module")
def reference():
    """The single-process, single-slice enumeration of every graph on 3..6 vertices."""
    return run_census(problems(), range(3, 7), mod=1)


def test_local_processes_return_every_result_once():
    with LocalExecutor(2) as ex:
        got = dict(ex.run(helpers.square, list(range(20))))
    assert got == {i: i * i for i in range(20)}


def test_a_killed_worker_costs_only_its_task(tmp_path, monkeypatch):
    monkeypatch.setenv(helpers.MARKER_ENV, str(tmp_path / "marker"))
    results = list(LocalExecutor(2).run(helpers.die_once, list(range(8))))
    assert (tmp_path / "marker").exists()  # the worker really died once
    assert sorted(i for i, _ in results) == list(range(8))  # every task exactly once
    assert dict(results) == {i: i * i for i in range(8)}


def test_a_task_that_always_kills_its_worker_gives_up_with_one_clear_error():
    with pytest.raises(ScaleoutError, match="lost its worker 3 times"):
        list(LocalExecutor(2, retries=2).run(helpers.always_die, [0, 1, 2]))


@needs_nauty
def test_counts_do_not_depend_on_the_slicing_or_the_number_of_processes(reference):
    assert reference.graphs == {3: 2, 4: 7, 5: 23, 6: 122}  # graphs without isolated vertices
    for mod, jobs in ((3, 1), (7, 2)):
        sliced = run_census(problems(), range(3, 7), mod=mod, executor=LocalExecutor(jobs))
        assert sliced.counts() == reference.counts()
        assert len(sliced.computed) == 4 * mod and not sliced.loaded
    assert reference.minimum("p3__p3__p4_green_determiner") == (5, 7)
    assert reference.minimum("p3_k3_red_determiner") == (5, 7)
    assert reference.solved("p3__p3__p4_negative_sender") > 0


@needs_nauty
def test_a_killed_slice_is_recomputed_and_nothing_is_double_counted(
    reference, tmp_path, monkeypatch
):
    checkpoints = tmp_path / "census"
    monkeypatch.setenv(helpers.MARKER_ENV, str(tmp_path / "marker"))
    monkeypatch.setenv(helpers.KILL_ENV, "n6-r2-of5")
    first = run_census(
        problems(),
        range(3, 7),
        mod=5,
        checkpoint_dir=checkpoints,
        executor=LocalExecutor(2),
        slice_fn=helpers.census_with_a_kill,
    )
    assert (tmp_path / "marker").read_text() == "n6-r2-of5"  # that worker died mid-run
    assert sorted(first.computed) == sorted(f"n{n}-r{r}-of5" for n in range(3, 7) for r in range(5))
    assert first.counts() == reference.counts()
    files = sorted(p.name for p in checkpoints.iterdir())
    assert files == sorted(
        f"n{n}-r{r}-of5.json" for n in range(3, 7) for r in range(5)
    )  # one file per slice

    # a later run: one slice file lost (a worker of a previous run died before its write), a torn
    # temporary file left behind; only that slice is computed again, the rest is loaded once
    (checkpoints / "n5-r1-of5.json").unlink()
    (checkpoints / ".n5-r1-of5.json.tmp-999").write_text('{"fingerprint": "x", "resu')
    seen = []
    second = run_census(
        problems(),
        range(3, 7),
        mod=5,
        checkpoint_dir=checkpoints,
        executor=LocalExecutor(2),
        on_slice=lambda task, computed: seen.append((task.name, computed)),
    )
    assert second.computed == ["n5-r1-of5"] and len(second.loaded) == 19
    assert sorted(name for name, _ in seen) == sorted(
        set(name for name, _ in seen)
    )  # each slice once
    assert second.counts() == reference.counts()
    third = run_census(problems(), range(3, 7), mod=5, checkpoint_dir=checkpoints)
    assert third.computed == [] and third.counts() == reference.counts()


@needs_nauty
def test_a_checkpoint_directory_of_another_enumeration_is_refused(tmp_path):
    run_census(problems()[:2], [4], mod=2, checkpoint_dir=tmp_path)
    with pytest.raises(CheckpointError, match="another enumeration"):
        run_census(problems()[:3], [4], mod=2, checkpoint_dir=tmp_path)
    data = json.loads((tmp_path / "n4-r0-of2.json").read_text())
    assert set(data) == {"fingerprint", "result"}


def test_bad_census_requests_are_one_line_errors():
    from ramseygadgets.core.errors import RamseyGadgetsError

    with pytest.raises(RamseyGadgetsError, match="at least one problem"):
        run_census([], [4])
    with pytest.raises(RamseyGadgetsError, match="positive"):
        run_census(problems(), [4], mod=0)


@needs_nauty
@pytest.mark.parametrize(
    "damage",
    [
        lambda result: result.update(graphs="many"),  # was a TypeError in the merge
        lambda result: result["by_edges"].update({"3": {"graphs": 1, "good": [], "solved": {}}}),
        lambda result: result["first"].update({"x": {"n": "5"}}),
        lambda result: result.update(by_edges=[[[[]]]]),
    ],
    ids=["graphs-string", "good-list", "first-n-string", "by-edges-list"],
)
def test_a_slice_file_of_the_wrong_shape_is_computed_again(tmp_path, damage):
    reference = run_census(problems()[:2], [4], mod=2)
    run_census(problems()[:2], [4], mod=2, checkpoint_dir=tmp_path)
    path = tmp_path / "n4-r1-of2.json"
    data = json.loads(path.read_text())
    damage(data["result"])
    path.write_text(json.dumps(data))
    again = run_census(problems()[:2], [4], mod=2, checkpoint_dir=tmp_path)
    assert again.computed == ["n4-r1-of2"] and again.counts() == reference.counts()
    assert json.loads(path.read_text())["result"]["graphs"] != "many"  # rewritten whole


@needs_nauty
def test_a_deeply_nested_slice_file_is_computed_again(tmp_path):
    run_census(problems()[:2], [4], mod=1, checkpoint_dir=tmp_path)
    (tmp_path / "n4-r0-of1.json").write_text("[" * 200_000 + "]" * 200_000)
    again = run_census(problems()[:2], [4], mod=1, checkpoint_dir=tmp_path)
    assert again.computed == ["n4-r0-of1"]
