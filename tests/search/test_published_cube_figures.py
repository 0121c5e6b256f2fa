"""What docs/search.md and the README print about the open level-14 cube log is re-derived from
the committed log (:mod:`ramseygadgets.search.cubestatus`, as ``solve … --status`` prints it): a
sitting that appends cubes without updating the prose and the sittings table fails here."""

from __future__ import annotations

import lzma
from pathlib import Path

from ramseygadgets.cli.search_status import sitting_cells
from ramseygadgets.problems.catalog import Problem
from ramseygadgets.search.cubelog import read_log
from ramseygadgets.search.cubes import Cube, Refuter, cube_engine
from ramseygadgets.search.cubestatus import LevelStatus, level_status
from ramseygadgets.search.spec import layouts
from ramseygadgets.search.stopped import STOPPED_FILE, StoppedCubes, nearest_entry

ROOT = Path(__file__).resolve().parents[2]
LOG = ROOT / "bench/results/cubes/k3_k4_negative_sender-14-partial.jsonl"
#: what the last sitting's cubes in flight learned, for the next sitting (docs/search.md)
STOPPED = ROOT / "bench/results/cubes/k3_k4_negative_sender-14-stopped.jsonl.xz"
PLANNED = 64  # the --cubes of the command docs/search.md gives
TABLE_HEADER = "| # | session | workers, `--split-after` | wall | none | split | CPU s |"


def _status() -> LevelStatus:
    problem = Problem.make("K3", "K4", "negative-sender")
    return level_status(problem, read_log(LOG), 14, PLANNED)


def _flat(path: Path) -> str:
    return " ".join(path.read_text().split())


def test_the_level_14_figures_in_the_docs_are_those_of_the_committed_log():
    status = _status()
    total = status.total
    cpu = f"{round(total.cpu_seconds):,} CPU s"
    assert status.planned == PLANNED and not status.found and total.found == 0
    search_md, readme = _flat(ROOT / "docs/search.md"), _flat(ROOT / "README.md")
    decided = status.decided
    assert f"level 14: {decided} of {PLANNED} planned cubes decided ({cpu}" in search_md
    assert (
        f"**{decided} of {PLANNED}** planned cubes decided ({total.none} cubes none, "
        f"{total.splits} splits, {cpu}, {total.candidates:,} candidates), no solution"
    ) in search_md
    for lay in status.layouts:
        if lay.open_parts:
            assert f"(in {len(lay.open_parts)} parts" in search_md, lay.name
    assert f"level 14 at {decided} of {PLANNED} planned cubes, {cpu}, no solution" in readme


def test_the_level_14_sittings_table_is_the_status_of_the_committed_log():
    lines = (ROOT / "docs/search.md").read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(TABLE_HEADER))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    status = _status()
    expected = [*status.sittings, status.total]
    assert [r[0] for r in rows] == [*map(str, range(1, len(status.sittings) + 1)), "all"]
    for row, sitting in zip(rows, expected, strict=True):
        wall, none, split, _found, cpu, candidates = sitting_cells(sitting)
        assert row[3:8] == [wall, none, split, cpu, candidates], row[0]


def test_the_committed_stopped_lemmas_hold_and_each_is_the_nearest_of_an_open_part(tmp_path):
    """The next sitting starts the open parts with these lemmas: each is derived again (as the run
    does), and each entry is the one a rerun hands to some open part of the committed log (the
    part itself or its nearest stopped ancestor): the file keeps nothing no rerun would use."""
    problem = Problem.make("K3", "K4", "negative-sender")
    (tmp_path / STOPPED_FILE).write_bytes(lzma.decompress(STOPPED.read_bytes()))
    stopped = StoppedCubes(tmp_path, problem)
    entries = [entry for _, entry in stopped.read()]
    assert entries and all(entry["n"] == 14 for entry in entries)
    keys = {(entry["layout"], entry["bits"]) for entry in entries}
    parts = [(lay.name, bits) for lay in _status().layouts for bits in lay.open_parts]
    assert keys == {nearest_entry(name, bits, keys) for name, bits in parts} - {None}
    lays = {lay.name: (i, lay) for i, lay in enumerate(layouts(problem.gadget, 14))}
    cubes = [Cube(14, lays[e["layout"]][0], e["layout"], e["bits"]) for e in entries]
    handed = stopped.for_cubes(14, cubes, {name: lay for name, (_, lay) in lays.items()})
    assert [len(handed[c.key]) for c in cubes] == [len(e["lemmas"]) for e in entries]


def test_the_spine_is_refuted_by_propagation_where_the_docs_say():
    """docs/search.md: the all-ones spine of "f adjacent to e" is refuted by propagation only at
    "01⁴²" (the planner's refuter, which decides nothing before it)."""
    problem = Problem.make("K3", "K4", "negative-sender")
    assert 'refuted by\npropagation only at "01⁴²"' in (ROOT / "docs/search.md").read_text()
    layout = next(lay for lay in layouts(problem.gadget, 14) if lay.name == "f adjacent to e")
    refuter = Refuter(problem, 14, layout, cube_engine(problem, "auto"))
    try:
        assert refuter.refuted("0" + "1" * 42) and not refuter.refuted("0" + "1" * 41)
    finally:
        refuter.close()
