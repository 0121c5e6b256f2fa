"""The atlas' problem list: sections, colour-swap identification, F = H facts, labels."""

from __future__ import annotations

import pytest

from ramseygadgets.atlas.plan import (
    PAPER_GRAPHS,
    SECTIONS,
    color_swap,
    graph_label,
    parse_sections,
    plan_atlas,
)
from ramseygadgets.core.gadgets import GadgetType
from ramseygadgets.core.patterns import canonical_graph6, get_pattern
from ramseygadgets.problems.catalog import Problem, all_problems
from ramseygadgets.problemsets import ProblemSetError
from ramseygadgets.search.exhaustive import gadgets_in_graph, iter_graphs, nauty_available

needs_nauty = pytest.mark.skipif(not nauty_available(), reason="nauty (geng) is not installed")


def _pair(p: Problem) -> frozenset[str]:
    return frozenset((canonical_graph6(p.F.graph), canonical_graph6(p.H.graph)))


def test_the_paper_section_has_every_unordered_pair_once_with_its_four_types():
    plan = plan_atlas([SECTIONS["paper"]])
    pairs: dict[frozenset[str], list[Problem]] = {}
    for item in plan.items:
        pairs.setdefault(_pair(item.problem), []).append(item.problem)
    assert len(pairs) == 8 * 7 // 2 + 8  # 28 pairs F ≠ H, 8 with F = H
    for problems in pairs.values():
        assert len({(p.F.name, p.H.name) for p in problems}) == 1  # one orientation only
        assert sorted(p.gadget.value for p in problems) == sorted(
            ["red-determiner", "blue-determiner", "positive-sender", "negative-sender"]
        )
    assert len(plan.problems) == 28 * 4 + 8 * 2 and len(plan.impossible) == 16
    assert all(i.problem.F == i.problem.H for i in plan.impossible)


def test_the_paper_section_contains_the_52_catalog_problems_with_their_ids():
    ids = set(plan_atlas([SECTIONS["paper"]]).ids)
    catalog = {p.id for p in all_problems() if not p.gadget.is_hardness}
    assert len(catalog) == 52 and catalog <= ids


@needs_nauty
def test_the_star_section_covers_every_connected_five_vertex_graph():
    plan = plan_atlas([SECTIONS["stars"]])
    five = {canonical_graph6(g) for g in iter_graphs(5, 4, 10, connected=True)}
    assert len(five) == 21
    for star in ("P3", "K1,3", "K1,4"):
        hs = {
            canonical_graph6(p.problem.H.graph) for p in plan.problems if p.problem.F.name == star
        }
        assert hs == five
    hardness = [p for p in plan.problems if p.problem.gadget.is_hardness]
    assert len(hardness) == 2 * 3 * 20  # every H but the star K1,4
    assert {x["problem"] for x in plan.not_asked} >= {"(P3, K1,4)-clause-gadget"}
    assert [i.id for i in plan.impossible] == ["k14_k14_red_determiner", "k14_k14_blue_determiner"]


def test_color_swap_names_the_twin_problem():
    red = Problem.make("K3", "C4", "red-determiner")
    assert color_swap(red) == "(C4, K3)-blue-determiner"
    assert color_swap(Problem.make("K3", "C4", "blue-determiner")) == "(C4, K3)-red-determiner"
    assert color_swap(Problem.make("P4", "K4", "negative-sender")) == "(K4, P4)-negative-sender"
    assert color_swap(Problem.make("K1,3", "C4", "clause-gadget")) is None


@needs_nauty
def test_no_graph_on_at_most_six_vertices_has_a_determiner_when_f_equals_h():
    """The F = H fact, checked by the independent scan (which does find (P3, K3) ones)."""
    found_control = False
    for name in ("P3", "K3"):
        F = get_pattern(name)
        for n in range(2, 7):
            for graph in iter_graphs(n, 1, n * (n - 1) // 2, connected=True):
                kinds = [GadgetType.RED_DETERMINER, GadgetType.BLUE_DETERMINER]
                assert not gadgets_in_graph(graph, F, F, kinds)
                if name == "P3" and gadgets_in_graph(graph, F, get_pattern("K3"), kinds):
                    found_control = True
    assert found_control


def test_labels_and_sections():
    assert graph_label(get_pattern("paw")) == "TK3"
    assert graph_label(get_pattern("0-1,1-2,2-3,3-4")) == "P5"
    assert [s.name for s in parse_sections(None)] == ["paper", "stars"]
    assert [s.name for s in parse_sections(["stars"])] == ["stars"]
    with pytest.raises(ProblemSetError, match="unknown atlas section 'nope'"):
        parse_sections(["paper,nope"])
    assert PAPER_GRAPHS[:2] == ("P3", "K1,3")
