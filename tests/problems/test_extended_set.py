"""The extended benchmark (``--set extended``): its problems, solutions, proofs and size tiers."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from typer.testing import CliRunner

import ramseygadgets.problems.extended as extended_module
from ramseygadgets.cli import app
from ramseygadgets.problems.catalog import Problem, all_problems
from ramseygadgets.problems.extended import (
    SIZE_TIERS,
    atlas_problems,
    counts_markdown,
    extended_problems,
    parse_size_tier,
    size_tier,
    three_color_entries,
    tier_counts,
)
from ramseygadgets.verification.bruteforce import brute_force_verify
from ramseygadgets.verification.bruteforce_multi import (
    MAX_BRUTE_FORCE_COLORINGS,
    brute_force_verify_multi,
)
from ramseygadgets.verification.selection import extended_problem_set
from ramseygadgets.verification.verifier import verify

runner = CliRunner()


@pytest.mark.parametrize(
    ("n", "tier"),
    [(3, "≤6"), (6, "≤6"), (7, "7-8"), (8, "7-8"), (9, "9-10"), (10, "9-10"), (11, "≥11")],
)
def test_size_tier_boundaries(n: int, tier: str) -> None:
    assert size_tier(n) == tier


def test_size_tier_spellings() -> None:
    assert parse_size_tier("<=6") == "≤6" and parse_size_tier(">=11") == "≥11"
    assert parse_size_tier("7–8") == "7-8" and parse_size_tier("9-10") == "9-10"
    assert parse_size_tier("5-6") is None


def test_problems_set_extended_json_lists_200_with_solutions() -> None:
    result = runner.invoke(app, ["problems", "--set", "extended", "--json"])
    assert result.exit_code == 0, result.output
    records = json.loads(result.stdout)
    assert len(records) >= 200
    ids = [r["id"] for r in records]
    assert len(set(ids)) == len(ids)
    assert not set(ids) & {p.id for p in all_problems()}  # the 70 stay the paper set
    for r in records:
        assert r["solution"]["edges"] and r["min_vertices"] >= 2
        assert r["size_tier"] == size_tier(r["min_vertices"])
        assert r["proof"], r["id"]
    colors = Counter(r["num_colors"] for r in records)
    assert colors[3] >= 30
    assert len({r["size_tier"] for r in records}) >= 3
    assert {r["source"] for r in records} == {"atlas:paper", "atlas:stars", "three-colour"}


def test_paper_set_stays_the_default() -> None:
    default = json.loads(runner.invoke(app, ["problems", "--json"]).stdout)
    paper = json.loads(runner.invoke(app, ["problems", "--set", "paper", "--json"]).stdout)
    assert default == paper and len(paper) == 70
    assert [r["id"] for r in paper] == [p.id for p in all_problems()]


def test_atlas_part_is_every_minimal_entry_outside_the_catalog() -> None:
    from ramseygadgets.atlas import load_atlas
    from ramseygadgets.problems.catalog import in_catalog

    entries = [e for e in load_atlas().entries.values() if e.status == "minimal"]
    expected = [e.id for e in entries if not in_catalog(e.problem)]
    assert [p.id for p in atlas_problems()] == expected
    for p in atlas_problems():  # minimal: the proven lower bound is the solution's size
        assert p.proof["lower_bound"]["n"] == p.n


def test_every_atlas_proof_names_its_prover_and_time() -> None:
    for p in atlas_problems():
        bound = p.proof["lower_bound"]
        if bound["engine"] == "definition":  # e.g. a sender's two edges need three vertices
            assert bound["proof"].startswith(f"the designated items need at least {p.n}")
            continue
        assert bound["method"] and bound["seconds"] >= 0 and bound["levels"]
        assert bound["proof"].startswith(f"no solution on {p.n - 1} vertices")


def test_every_two_color_solution_passes_verify() -> None:
    for p in atlas_problems():
        assert verify(p.problem, p.candidate).correct, p.id


def test_sampled_two_color_solutions_pass_the_brute_force() -> None:
    """Every 7th atlas problem with at most 20 edges: the brute force over all colorings agrees."""
    for p in atlas_problems()[::7]:
        problem, candidate = p.problem, p.candidate
        assert isinstance(problem, Problem)
        if p.m <= 20:
            assert brute_force_verify(
                candidate.graph, problem.F, problem.H, problem.gadget, candidate.designated
            ), p.id


def test_three_color_solutions_and_proofs() -> None:
    entries = three_color_entries()
    assert len(entries) >= 30
    for p in entries:
        multi = p.problem
        assert p.colors == 3 and multi.is_possible_by_symmetry() and multi.id == p.id
        assert verify(p.problem, p.candidate).correct, p.id  # verify, the judge's path
        proof = p.proof
        assert proof["no_solution_up_to"] == p.n - 1
        levels = {level["n"]: level["outcome"] for level in proof["levels"]}
        assert levels[p.n] == "found" and all(levels[k] == "none" for k in levels if k < p.n)
        census = proof["cross_check"]  # the exhaustive census of all graphs on ≤ up_to vertices
        assert census["agree"], p.id
        assert census["confirms_lower_bound"] == (p.n - 1 <= census["up_to"])


def test_three_color_solutions_pass_the_brute_force_where_feasible() -> None:
    """The independent check over all 3^m colourings, for every solution with 3^m ≤ 2^22."""
    checked = 0
    for p in three_color_entries():
        if 3**p.m <= MAX_BRUTE_FORCE_COLORINGS:
            multi = p.problem
            assert brute_force_verify_multi(multi, p.candidate.graph, p.candidate.designated)
            checked += 1
    assert checked >= 20


def test_three_color_entries_are_distinct_up_to_color_renaming() -> None:
    multis = [p.problem for p in three_color_entries()]
    keys = [
        (m.spec.key, m.kind, m.spec.colors[m.color].key)
        if m.kind == "determiner" and m.color is not None
        else (m.spec.key, m.kind)
        for m in multis
    ]
    assert len(set(keys)) == len(keys)


def test_eval_set_holds_every_problem_with_its_tier() -> None:
    problem_set = extended_problem_set()
    assert problem_set.ids == [p.id for p in extended_problems()]
    assert len(problem_set.problems) == len(atlas_problems()) + len(three_color_entries())
    for p in problem_set.problems:
        assert problem_set.size_tiers[p.id] == size_tier(problem_set.min_vertices(p))


def test_tier_counts_add_up() -> None:
    counts = tier_counts()
    assert counts["total"]["all"] == len(extended_problems())
    for source in ("atlas:paper", "atlas:stars", "three-colour"):
        assert sum(counts[source][t] for t in SIZE_TIERS) == counts[source]["all"]
    assert sum(counts[s]["all"] for s in counts if s != "total") == counts["total"]["all"]


@pytest.mark.parametrize("doc", ["docs/extended.md", "README.md"])
def test_docs_show_the_current_tier_counts(doc: str) -> None:
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / doc).read_text(encoding="utf-8")
    assert counts_markdown() in text


def test_the_old_name_three_colour_entries_warns_and_gives_the_new_function():
    with pytest.warns(DeprecationWarning, match="three_color_entries"):
        old = extended_module.three_colour_entries
    assert old is three_color_entries
    with pytest.raises(AttributeError):
        _ = extended_module.no_such_name
