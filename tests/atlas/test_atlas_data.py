"""The shipped atlas (``data/atlas.json``) and its page ``docs/atlas.md``: complete, every
solution verified (and by brute force over all colorings where small), the colour-swap twins,
the exhaustive cross-check of every minimal size ≤ 8, provenance on every fact."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import pytest

from ramseygadgets.atlas import Atlas, load_atlas
from ramseygadgets.atlas.plan import SECTIONS, plan_atlas
from ramseygadgets.atlas.table import dispute, render_markdown
from ramseygadgets.core.gadgets import GadgetType
from ramseygadgets.problems.atlas_entries import shipped_sha256
from ramseygadgets.problems.catalog import Problem
from ramseygadgets.search.exhaustive import nauty_available
from ramseygadgets.verification.basis import AUDITED_ATLAS_SHA256
from ramseygadgets.verification.bruteforce import brute_force_verify
from ramseygadgets.verification.verifier import verify

DOCS = Path(__file__).resolve().parents[2] / "docs" / "atlas.md"
TWIN = {
    GadgetType.RED_DETERMINER: GadgetType.BLUE_DETERMINER,
    GadgetType.BLUE_DETERMINER: GadgetType.RED_DETERMINER,
    GadgetType.POSITIVE_SENDER: GadgetType.POSITIVE_SENDER,
    GadgetType.NEGATIVE_SENDER: GadgetType.NEGATIVE_SENDER,
}


@lru_cache(maxsize=1)
def shipped() -> Atlas:
    return load_atlas()


def _solved():
    return [e for e in shipped().entries.values() if e.solution is not None]


@pytest.mark.skipif(not nauty_available(), reason="nauty (geng) is not installed")
def test_the_atlas_has_every_problem_of_both_sections_in_order():
    plan = plan_atlas(list(SECTIONS.values()))
    assert list(shipped().entries) == plan.ids
    assert len(plan.ids) == 144 + 372  # 128 + 16 impossible; 370 + 2 impossible


def test_every_solution_passes_the_verifier_for_its_problem_and_its_color_swap_twin():
    solved = _solved()
    assert len(solved) >= 300
    for e in solved:
        problem, candidate = e.problem, e.candidate()
        assert candidate.graph.n == e.solution["n"] and candidate.graph.m == e.solution["m"]
        assert verify(problem, candidate).correct, e.title
        if problem.gadget in TWIN:
            twin = Problem.make(problem.H, problem.F, TWIN[problem.gadget])
            assert verify(twin, candidate).correct, f"{e.title} as {e.swap}"


def _brute_force(max_edges: int) -> int:
    checked = 0
    for e in _solved():
        if e.solution["m"] <= max_edges:
            p, c = e.problem, e.candidate()
            assert brute_force_verify(c.graph, p.F, p.H, p.gadget, c.designated), e.title
            checked += 1
    return checked


def test_small_solutions_pass_brute_force_over_all_colorings():
    assert _brute_force(12) >= 40


@pytest.mark.slow
def test_all_solutions_up_to_twenty_edges_pass_brute_force():
    assert _brute_force(20) >= 150


def test_every_minimal_size_up_to_eight_is_confirmed_by_the_exhaustive_scan():
    minimal = [e for e in shipped().entries.values() if e.status == "minimal"]
    small = [e for e in minimal if e.n is not None and e.n <= 8]
    assert len(small) >= 200
    for e in small:
        check = e.cross_check
        assert check is not None and check["agree"], e.title
        assert (check["n"], check["m"]) == (e.solution["n"], e.solution["m"])
        assert check["census"][0] == e.n and check["up_to"] >= e.n


def test_every_fact_carries_its_provenance():
    for e in shipped().entries.values():
        if e.impossible:
            assert e.gadget.endswith("determiner") and e.F == e.H and "F = H" in e.impossible
            continue
        assert e.lower_bound["engine"] and e.lower_bound["proof"]
        if e.solution is not None:
            assert e.solution["engine"] and e.solution["method"] and "seconds" in e.solution
        if "cubes" in e.lower_bound:  # a cube proof: the cubes, where they came from
            assert e.lower_bound["source"] and len(e.lower_bound["sha256"]) == 64
        elif e.status == "open" and e.lower_bound["engine"] not in ("definition", "shipped"):
            assert e.lower_bound["budget"]["timeout"] > 0


def test_docs_page_is_generated_from_the_data():
    assert DOCS.read_text(encoding="utf-8") == render_markdown(shipped())


def _rests_on_cubes(entry) -> bool:
    bound, solution = entry.lower_bound, entry.solution or {}
    return (isinstance(bound, dict) and "cubes" in bound) or "edges_cubes" in solution


def test_the_shipped_atlas_is_the_audited_one():
    """``atlas table``'s audit re-derives every cube proof's coverage with no dispute, and the
    file is the one :data:`AUDITED_ATLAS_SHA256` pins (what every reader below the search
    trusts the coverage by; an edited atlas is read with its coverage taken from the file)."""
    cubed = [e for e in shipped().entries.values() if _rests_on_cubes(e)]
    assert len(cubed) >= 3
    assert {e.id: why for e in cubed if (why := dispute(e)) is not None} == {}
    sha = shipped_sha256()
    assert sha == AUDITED_ATLAS_SHA256, (
        f"the shipped atlas changed since its audit: once `ramseygadgets atlas table` shows no "
        f"dispute, set AUDITED_ATLAS_SHA256 = {sha!r} in ramseygadgets/verification/basis.py"
    )
