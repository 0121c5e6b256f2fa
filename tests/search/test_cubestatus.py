"""The status of a cube log (search/cubestatus.py): the planned cubes it decides are those
coverage re-derives, its open parts are exactly what a rerun searches, its sittings are the
runs that wrote it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ramseygadgets.problems.catalog import Problem
from ramseygadgets.problems.extended import three_color_entries
from ramseygadgets.search import SearchError
from ramseygadgets.search.cubelog import read_log
from ramseygadgets.search.cubes import Refuter, covered, cube_engine, generate_cubes
from ramseygadgets.search.cubestatus import level_status, log_status
from ramseygadgets.search.options import SearchOptions
from ramseygadgets.search.parallel import solve_cubes
from ramseygadgets.search.spec import layouts

K3_K4E_RED = Problem.make("K3", "K4-e", "red-determiner")  # named patterns, lazy engine
K13_K4_RED = Problem.make("K1,3", "K4", "red-determiner")  # a star: the eager engine
N, TARGET = 9, 4


def _rows(log: Path) -> list[dict]:
    return [json.loads(line) for line in log.read_text().splitlines()]


def _write(log: Path, rows: list[dict]) -> None:
    log.write_text("".join(json.dumps(r) + "\n" for r in rows))


def _split_run(problem: Problem, out: Path, n: int = N) -> Path:
    """A level run to its end with cubes split at once (a log with none-cubes and splits)."""
    opts = SearchOptions(min_vertices=n, max_vertices=n, cubes=TARGET, split_after=0.01, out=out)
    solve_cubes(problem, opts)
    return out / "cubes.jsonl"


def _finer_run(problem: Problem, out: Path, n: int) -> Path:
    """A level run to its end on a finer plan (its none-cubes lie inside the planned cubes of
    :data:`TARGET`, as the halves of split ones do)."""
    opts = SearchOptions(min_vertices=n, max_vertices=n, cubes=4 * TARGET, out=out)
    solve_cubes(problem, opts)
    return out / "cubes.jsonl"


def _cut(log: Path) -> list[dict]:
    """The log cut after the first half of its cube records and closed as a stopped sitting."""
    rows = _rows(log)
    cubes = [r for r in rows if r["kind"] == "cube"]
    cubes = cubes[: (len(cubes) + 1) // 2]
    level = next(r for r in rows if r["kind"] == "level")
    _write(log, [*cubes, level])
    return cubes


def _planned_decided(problem: Problem, n: int, cubes: list[dict]) -> int:
    """Coverage of each planned cube by the none-cubes, re-derived with the refuter alone."""
    engine = cube_engine(problem, "auto")
    plan = generate_cubes(problem, n, TARGET, engine)
    decided = 0
    for i, lay in enumerate(layouts(problem.gadget, n)):
        none = {c["bits"] for c in cubes if c["layout"] == lay.name and c["outcome"] == "none"}
        refuter = Refuter(problem, n, lay, engine)
        decided += sum(covered(refuter, none, c.bits) for c in plan.cubes if c.layout == i)
        refuter.close()
    return decided


@pytest.mark.parametrize(
    ("problem", "n", "run"),
    [(K3_K4E_RED, N, _split_run), (K13_K4_RED, 8, _finer_run)],
    ids=["lazy-split", "eager-finer"],
)
def test_the_open_parts_are_what_a_rerun_searches(tmp_path, problem, n, run):
    log = run(problem, tmp_path, n)
    kept = _cut(log)
    assert run is _finer_run or "split" in {c["outcome"] for c in kept}
    (status,) = log_status(problem, tmp_path, TARGET)
    assert status.engine == cube_engine(problem, "auto") and status.n == n
    assert status.planned == len(generate_cubes(problem, n, TARGET, status.engine).cubes)
    assert status.decided == _planned_decided(problem, n, kept) < status.planned
    parts = {(lay.name, b) for lay in status.layouts for b in lay.open_parts}
    assert parts
    rerun = SearchOptions(
        min_vertices=n, max_vertices=n, cubes=TARGET, out=tmp_path, minimize_edges=False
    )
    assert solve_cubes(problem, rerun).status == "none-up-to-limit"  # no split: parts run whole
    searched = [r for r in _rows(log)[len(kept) + 1 :] if r["kind"] == "cube"]
    assert {(r["layout"], r["bits"]) for r in searched} == parts
    (after,) = log_status(problem, tmp_path, TARGET)
    assert after.decided == after.planned and not any(lay.open_parts for lay in after.layouts)


def test_each_sitting_is_one_run_and_a_run_cut_short_has_no_wall_time(tmp_path):
    log = _split_run(K3_K4E_RED, tmp_path)
    first = _cut(log)
    rerun = SearchOptions(min_vertices=N, max_vertices=N, cubes=TARGET, out=tmp_path)
    solve_cubes(K3_K4E_RED, rerun)
    rows = _rows(log)
    second = [r for r in rows[len(first) + 1 :] if r["kind"] == "cube"]
    (status,) = log_status(K3_K4E_RED, tmp_path, TARGET)
    assert len(status.sittings) == 2
    for sitting, cubes in zip(status.sittings, [first, second], strict=True):
        assert sitting.none == sum(c["outcome"] == "none" for c in cubes)
        assert sitting.splits == sum(c["outcome"] == "split" for c in cubes)
        assert sitting.candidates == sum(c["candidates"] for c in cubes)
        assert sitting.cpu_seconds == pytest.approx(sum(c["cpu_seconds"] for c in cubes))
    walls = [r["seconds"] for r in rows if r["kind"] == "level"]
    assert [s.wall_seconds for s in status.sittings] == walls
    assert status.total.none == len(first + second) - status.total.splits
    _write(log, rows[:-1])  # a kill before the level record
    (killed,) = log_status(K3_K4E_RED, tmp_path, TARGET)
    assert killed.sittings[-1].wall_seconds is None and killed.sittings[-1] != status.sittings[-1]
    assert killed.sittings[-1].none == status.sittings[-1].none


def test_capped_none_cubes_decide_only_under_a_cap_as_low(tmp_path):
    opts = SearchOptions(min_vertices=N, max_vertices=N, cubes=TARGET, max_edges=20, out=tmp_path)
    solve_cubes(K3_K4E_RED, opts)
    records = read_log(tmp_path / "cubes.jsonl")
    capped = level_status(K3_K4E_RED, records, N, TARGET, max_edges=20)
    assert capped.decided == capped.planned and capped.max_edges == 20
    assert level_status(K3_K4E_RED, records, N, TARGET, max_edges=19).decided == capped.planned
    uncapped = level_status(K3_K4E_RED, records, N, TARGET)
    assert uncapped.decided == 0 and not uncapped.found


def test_a_logged_solution_is_reported(tmp_path):
    opts = SearchOptions(min_vertices=5, max_vertices=8, cubes=TARGET, out=tmp_path)
    result = solve_cubes(Problem.make("P3", "K3", "red-determiner"), opts)
    assert result.found
    statuses = log_status(result.problem, tmp_path, TARGET)
    assert statuses[-1].n == result.n and statuses[-1].found
    assert not any(s.found for s in statuses[:-1])


def test_what_cannot_be_read_is_named(tmp_path):
    with pytest.raises(SearchError, match="no cube log at"):
        log_status(K3_K4E_RED, tmp_path, TARGET)
    _split_run(K3_K4E_RED, tmp_path)
    with pytest.raises(SearchError, match=r"no cube of .* on 1–8 vertices \(it has levels 9"):
        log_status(K3_K4E_RED, tmp_path, TARGET, levels=range(1, 9))
    with pytest.raises(SearchError, match=r"holds cubes of k3_k4e_red_determiner only"):
        log_status(K13_K4_RED, tmp_path, TARGET)  # another problem's log
    three = three_color_entries()[0].problem
    with pytest.raises(SearchError, match="3 colours: this search handles two"):
        log_status(three, tmp_path, TARGET)
