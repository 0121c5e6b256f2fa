"""The leakage rule: canonical forms up to isomorphism and colour exchange, and no exported
training problem equivalent to a benchmark problem (checked again with networkx's isomorphism,
independently of nauty).  The extended set: tests/training/test_published_apart.py."""

from __future__ import annotations

import json
import random
from pathlib import Path

import networkx as nx
import pytest
from typer.testing import CliRunner

from ramseygadgets.cli import app
from ramseygadgets.core.gadgets import GadgetType
from ramseygadgets.core.graphs import Graph
from ramseygadgets.core.patterns import canonical_graph6
from ramseygadgets.problems.catalog import Problem, all_problems
from ramseygadgets.problems.solutions import get_solution
from ramseygadgets.problemsets.stream import pool_problems
from ramseygadgets.search.options import SearchOptions
from ramseygadgets.training import (
    COLOR_SWAP,
    StreamConfig,
    benchmark_keys,
    is_benchmark_equivalent,
    problem_key,
    published_keys,
)


def nx_graph(graph: Graph) -> nx.Graph:
    g = nx.Graph()
    g.add_nodes_from(range(graph.n))
    g.add_edges_from(graph.edges)
    return g


def equivalent_by_networkx(a: Problem, b: Problem) -> bool:
    """The leakage relation decided directly from the definitions (no canonical forms)."""
    iso = nx.is_isomorphic
    fa, ha, fb, hb = (nx_graph(p.graph) for p in (a.F, a.H, b.F, b.H))
    if a.gadget == b.gadget and iso(fa, fb) and iso(ha, hb):
        return True
    return COLOR_SWAP[a.gadget] == b.gadget and iso(fa, hb) and iso(ha, fb)


def relabelled(problem: Problem, rng: random.Random, swap: bool) -> Problem:
    """The same problem with F and H given as shuffled edge lists, colours exchanged if asked."""

    def shuffled(graph: Graph) -> str:
        perm = list(range(graph.n))
        rng.shuffle(perm)
        return ",".join(f"{perm[u]}-{perm[v]}" for u, v in graph.edges)

    F, H = shuffled(problem.F.graph), shuffled(problem.H.graph)
    if swap:
        F, H = H, F
    gadget = COLOR_SWAP[problem.gadget] if swap else problem.gadget
    return Problem.make(F, H, gadget)


def test_color_exchange_table_is_an_involution_on_the_two_color_types() -> None:
    for gadget, image in COLOR_SWAP.items():
        if image is None:
            assert gadget.is_hardness
        else:
            assert COLOR_SWAP[image] == gadget


def test_the_seventy_have_seventy_distinct_keys() -> None:
    assert len(benchmark_keys()) == 70


def test_relabelled_and_color_exchanged_benchmark_problems_are_caught() -> None:
    rng = random.Random(7)
    for problem in all_problems():
        assert is_benchmark_equivalent(relabelled(problem, rng, swap=False))
        if COLOR_SWAP[problem.gadget] is not None:
            assert is_benchmark_equivalent(relabelled(problem, rng, swap=True))


def test_color_exchange_keeps_solutions_valid() -> None:
    """Why the rule is right: a benchmark solution solves the colour-exchanged problem."""
    from ramseygadgets.verification.verifier import verify

    for problem in all_problems():
        if COLOR_SWAP[problem.gadget] is None:
            continue
        swapped = Problem.make(problem.H, problem.F, COLOR_SWAP[problem.gadget])
        assert verify(swapped, get_solution(problem.id).candidate).correct, problem.id


def test_keys_decide_the_relation_exactly_on_the_default_pool() -> None:
    everything = [p for pair in pool_problems(StreamConfig()) for p in pair]
    sample = random.Random(3).sample(everything, 40)
    for a in sample:
        for b in sample:
            assert (problem_key(a) == problem_key(b)) == equivalent_by_networkx(a, b)


def test_hardness_gadgets_have_no_color_exchanged_twin() -> None:
    clause = Problem.make("K1,3", "K4", "clause-gadget")
    assert is_benchmark_equivalent(clause)
    assert problem_key(Problem.make("K1,3", "K4", "clause-gadget")) != problem_key(
        Problem.make("K1,3", "K4", "variable-gadget")
    )


def test_the_pool_filter_removes_exactly_the_published_problems() -> None:
    """By default the 70 and the extended set; with ``include_extended`` exactly the 70."""
    from ramseygadgets.problemsets import (
        ProblemSetPlan,
        expand_patterns,
        load_polynomial_pairs,
        pair_problems,
    )

    patterns = expand_patterns(StreamConfig().pool)
    unfiltered = ProblemSetPlan()
    for F in patterns:
        for H in patterns:
            pair_problems(F, H, None, load_polynomial_pairs(), unfiltered)
    keys = {problem_key(p) for p in unfiltered.problems}
    kept = {problem_key(p) for pair in pool_problems(StreamConfig()) for p in pair}
    assert keys - kept == keys & published_keys()
    with_extended = StreamConfig(include_extended=True)
    kept = {problem_key(p) for pair in pool_problems(with_extended) for p in pair}
    assert keys - kept == set(benchmark_keys())


def leaky_problem_set(path: Path) -> Path:
    """A problem set holding benchmark problems in disguise (relabelled, colours exchanged) and
    two honest (unpublished) problems, each with a valid solution."""
    rng = random.Random(11)
    records = []
    for pid in ("p3_k3_red_determiner", "k13_c4_negative_sender", "k13_k4_clause_gadget"):
        problem = Problem.make(*_names(pid))
        disguised = relabelled(problem, rng, swap=COLOR_SWAP[problem.gadget] is not None)
        solution = get_solution(problem.id).candidate
        records.append(_record(disguised, solution))
    from ramseygadgets.search import solve

    for honest in (
        Problem.make("P5", "P4", "red-determiner"),
        Problem.make("K1,4", "K4", "clause-gadget"),
    ):
        records.append(
            _record(honest, solve(honest, SearchOptions(max_vertices=7, timeout=30)).candidate)
        )
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def _names(pid: str) -> tuple[str, str, str]:
    from ramseygadgets.problems.catalog import get_problem

    p = get_problem(pid)
    return p.F.name, p.H.name, p.gadget.value


def _record(problem: Problem, solution) -> dict:  # noqa: ANN001
    """A problem-set row with a minimal solution and its proof fields (the solutions here are
    the shipped or searched minima)."""
    proof = {"proven_minimal": True, "lower_bound": solution.graph.n}
    return {
        "id": problem.id,
        **problem.to_json(),
        "solution": solution.to_json(problem.kind),
        **proof,
    }


def test_no_exported_training_problem_is_a_benchmark_problem(tmp_path: Path) -> None:
    from datasets import load_from_disk

    source = leaky_problem_set(tmp_path / "problems.jsonl")
    out = tmp_path / "train"
    result = CliRunner().invoke(
        app,
        [
            "train-data",
            "--out",
            str(out),
            "--from",
            str(source),
            "--stream",
            "12",
            "--seed",
            "5",
            "--max-size",
            "6",
            "--settings",
            "zero-shot,structural-hint,size-hint",
        ],
    )
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert [e["reason"] for e in manifest["excluded"]] == ["benchmark-equivalent"] * 3
    rows = load_from_disk(str(out))
    assert len(rows) == 3 * (2 + 12)
    problems = {(r["F"], r["H"], r["gadget"]) for r in rows}
    assert ("P5", "P4", "red-determiner") in problems
    for F, H, gadget in problems:
        exported = Problem.make(F, H, gadget)
        assert not any(equivalent_by_networkx(exported, b) for b in all_problems()), exported.title


@pytest.mark.parametrize("setting", ["example-hint", "multiround", "few-shot"])
def test_settings_that_cannot_be_training_data_are_refused(tmp_path: Path, setting: str) -> None:
    result = CliRunner().invoke(
        app, ["train-data", "--out", str(tmp_path / "x"), "--stream", "1", "--settings", setting]
    )
    assert result.exit_code == 2 and "error:" in result.output
    assert not (tmp_path / "x").exists()


def test_gadget_types_for_any_pair_follow_the_rules() -> None:
    for pair in pool_problems(StreamConfig(pool=("P3", "K1,4", "C5", "K3")), exclude=set()):
        for p in pair:
            if p.gadget.is_hardness:
                assert p.F.star_k is not None and p.H.star_k is None
            if p.gadget in (GadgetType.RED_DETERMINER, GadgetType.BLUE_DETERMINER):
                assert canonical_graph6(p.F.graph) != canonical_graph6(p.H.graph)
