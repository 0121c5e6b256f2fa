"""What docs/search.md and the README print about the open level-14 cube log is re-derived from
the committed log: a sitting that appends cubes without updating the prose fails here."""

from __future__ import annotations

import json
from pathlib import Path

from ramseygadgets.problems.catalog import Problem
from ramseygadgets.search.cubeproof import none_cubes
from ramseygadgets.search.cubes import Refuter, covered, generate_cubes
from ramseygadgets.search.spec import layouts

ROOT = Path(__file__).resolve().parents[2]
LOG = ROOT / "bench/results/cubes/k3_k4_negative_sender-14-partial.jsonl"
PLANNED = 64  # the --cubes of the command docs/search.md gives


def _cubes() -> list[dict]:
    rows = [json.loads(line) for line in LOG.read_text().splitlines() if line.strip()]
    return [r for r in rows if r.get("kind") == "cube"]


def _planned_decided(cubes: list[dict]) -> int:
    """The planned cubes of level 14 that the logged "none" cubes and propagation cover."""
    problem = Problem.make("K3", "K4", "negative-sender")
    engine = cubes[0]["engine"]
    none = none_cubes(cubes).get((14, engine), {})
    refuters = {lay.name: Refuter(problem, 14, lay, engine) for lay in layouts(problem.gadget, 14)}
    try:
        plan = generate_cubes(problem, 14, PLANNED, engine)
        return sum(
            covered(refuters[c.layout_name], none.get(c.layout_name, set()), c.bits)
            for c in plan.cubes
        )
    finally:
        for r in refuters.values():
            r.close()


def test_the_level_14_figures_in_the_docs_are_those_of_the_committed_log():
    cubes = _cubes()
    decided = _planned_decided(cubes)
    cpu = f"{round(sum(c['cpu_seconds'] for c in cubes)):,} CPU s"
    candidates = f"{sum(c['candidates'] for c in cubes):,} candidates"
    none = sum(c["outcome"] == "none" for c in cubes)
    splits = sum(c["outcome"] == "split" for c in cubes)
    assert not any(c["outcome"] == "found" for c in cubes)
    search_md = " ".join((ROOT / "docs/search.md").read_text().split())
    readme = " ".join((ROOT / "README.md").read_text().split())
    assert f"level 14: {decided} of {PLANNED} planned cubes decided ({cpu}" in search_md
    assert (
        f"**{decided} of {PLANNED}** in all ({none} cubes none, {splits} splits, {cpu}, "
        f"{candidates})"
    ) in search_md
    assert f"level 14 at {decided} of {PLANNED} planned cubes, {cpu}, no solution" in readme
