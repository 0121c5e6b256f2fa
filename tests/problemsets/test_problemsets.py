"""Planning a problem set: patterns, pairs up to colour swap, the gadget rules, polynomial pairs."""

from __future__ import annotations

import networkx as nx
import pytest

from ramseygadgets.core.patterns import canonical_graph6, get_pattern
from ramseygadgets.problems.catalog import all_problems
from ramseygadgets.problemsets import (
    BUILTIN_POLYNOMIAL_PAIRS,
    ProblemSetError,
    expand_patterns,
    load_polynomial_pairs,
    plan_problem_set,
)
from ramseygadgets.search.exhaustive import nauty_available

needs_nauty = pytest.mark.skipif(
    not nauty_available(), reason="nauty (geng, listg) is not installed"
)
PAPER_H = "P3,K3,K1,3,P4,TK3,C4,K4-e,K4"


def test_the_paper_lists_give_the_70_catalog_problems_plus_senders_of_the_symmetric_pairs():
    plan = plan_problem_set(["P3,K1,3"], [PAPER_H])
    catalog = [p.id for p in all_problems()]
    symmetric = [p for p in plan.problems if p.F.graph == p.H.graph]
    assert [p.id for p in plan.problems if p not in symmetric] == catalog  # same ids, same order
    # (P3, P3) and (K1,3, K1,3): no determiners (symmetric), no hardness gadgets (two stars)
    for name in ("P3", "K1,3"):
        assert sorted(p.gadget_name for p in symmetric if p.F.name == name) == [
            "negative-sender",
            "positive-sender",
        ]
    reasons = {s["reason"] for s in plan.skipped}
    assert any("colours exchanged" in r for r in reasons)  # (K1,3, P3) after (P3, K1,3)
    assert any("F ≅ H" in r for r in reasons) and any("polynomial pair" in r for r in reasons)
    assert any("two stars" in r for r in reasons)


def test_pairs_are_deduplicated_up_to_color_swap_and_isomorphism():
    plan = plan_problem_set(["K3,C3", "0-1 1-2 2-0"], ["P4", "K3"], gadgets="determiners")
    titles = [p.title for p in plan.problems]
    assert titles == [
        "(K3, P4)-red-determiner",
        "(K3, P4)-blue-determiner",
    ]  # (K3, K3): no determiners
    swapped = plan_problem_set(["P4"], ["K3", "P4"], gadgets="senders")
    assert [p.id for p in swapped.problems] == [
        "p4_k3_positive_sender",
        "p4_k3_negative_sender",
        "p4_p4_positive_sender",
        "p4_p4_negative_sender",
    ]


@needs_nauty
def test_connected_k_is_every_connected_graph_on_k_vertices():
    for k, count in ((3, 2), (4, 6), (5, 21)):
        patterns = expand_patterns([f"connected:{k}"])
        assert len(patterns) == count
        atlas = [g for g in nx.graph_atlas_g() if g.number_of_nodes() == k and nx.is_connected(g)]
        assert len(atlas) == count
        assert len({canonical_graph6(p.graph) for p in patterns}) == count
    names = {p.name for p in expand_patterns(["connected:5"])}
    assert {"P5", "C5", "K5", "K1,4", "K5-e"} <= names
    for p in expand_patterns(["connected:5"]):  # every name reads back as the same graph
        assert canonical_graph6(get_pattern(p.name).graph) == canonical_graph6(p.graph)
    with pytest.raises(ProblemSetError, match="connected:k"):
        expand_patterns(["connected:five"])


@needs_nauty
def test_the_issue_set_has_248_problems():
    plan = plan_problem_set(["P3,K1,3"], ["connected:5"])
    # 2 × 21 pairs × 6 types, less the hardness gadgets of (P3, K1,4) and (K1,3, K1,4) (two stars)
    assert len(plan.problems) == 2 * 21 * 6 - 4 and len(plan.skipped) == 4
    assert len(set(plan.ids)) == len(plan.ids)


def test_hardness_gadgets_follow_the_polynomial_list(tmp_path):
    assert set(BUILTIN_POLYNOMIAL_PAIRS) == {
        ("P3", "K3"),
        ("P3", "K1,3"),
        ("P3", "P4"),
        ("P3", "TK3"),
    }
    builtin = plan_problem_set(["P3"], ["K3,C4"], gadgets="hardness")
    assert [p.id for p in builtin.problems] == ["p3_c4_clause_gadget", "p3_c4_variable_gadget"]
    listed = tmp_path / "poly.txt"
    listed.write_text("# mine\nC4 P3\nP3 K3\n")
    mine = plan_problem_set(["P3"], ["K3,C4"], gadgets="hardness", polynomial_pairs=str(listed))
    assert mine.problems == []  # C4 P3 matches (P3, C4) up to colour swap
    everything = plan_problem_set(["P3"], ["K3"], gadgets="hardness", polynomial_pairs="none")
    assert len(everything.problems) == 2
    not_star = plan_problem_set(["K3"], ["P4"], gadgets="hardness", polynomial_pairs="none")
    assert not_star.problems == []  # clause/variable gadgets are defined only for F = K1,k
    assert load_polynomial_pairs(str(tmp_path / "poly.txt")) == load_polynomial_pairs(None) - {
        tuple(
            sorted((canonical_graph6(get_pattern(a).graph), canonical_graph6(get_pattern(b).graph)))
        )
        for a, b in (("P3", "P4"), ("P3", "TK3"), ("P3", "K1,3"))
    } | {
        tuple(
            sorted(
                (
                    canonical_graph6(get_pattern("P3").graph),
                    canonical_graph6(get_pattern("C4").graph),
                )
            )
        )
    }
    bad = tmp_path / "bad.txt"
    bad.write_text("P3\n")
    with pytest.raises(ProblemSetError, match="two patterns"):
        load_polynomial_pairs(str(bad))


def test_multi_color_specs_get_determiners_for_colors_without_a_twin():
    plan = plan_problem_set(specs=["P3 | P3 | K3", "K3 | P3 | P3", "P3 | K3"])
    multi = [p for p in plan.problems if not p.is_pair]
    assert [p.gadget_name for p in multi] == [
        "green-determiner",
        "positive-sender",
        "negative-sender",
    ]
    assert all(p.c == 3 for p in multi)
    assert any("colours renamed" in s["reason"] for s in plan.skipped)  # K3|P3|P3 is P3|P3|K3
    pair = [p for p in plan.problems if p.is_pair]
    assert len(pair) == 4 and pair[0].id == "p3_k3_red_determiner"  # a 2-colour spec is a pair


def test_bad_requests_are_clear_errors():
    with pytest.raises(ProblemSetError, match="both --F and --H"):
        plan_problem_set(["P3"], [])
    with pytest.raises(ProblemSetError, match="nothing to generate"):
        plan_problem_set()
    with pytest.raises(ProblemSetError, match="unknown gadget"):
        plan_problem_set(["P3"], ["K3"], gadgets="triangles")
    with pytest.raises(ProblemSetError, match="spec"):
        plan_problem_set(specs=["P3"])
