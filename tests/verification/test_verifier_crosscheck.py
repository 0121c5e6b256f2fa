"""The exact verifier against exhaustive enumeration of all 2^m colorings (bruteforce.py).

For each of the 13 pairs and every gadget type asked for it (the 70 catalog problems), plus the
clause and variable gadgets of the four polynomial P3 pairs (outside the catalog, but the
verifier must be right on them too), 16 small random candidates each: 1,248 cases.  The cases
are a deliberate mix:

* ``random``:   random graph, random designated items (mostly wrong answers);
* ``informed``: random graph, designated items chosen from the brute-force list of good
  colorings so that the answer is right whenever the graph allows it (forced edges,
  always-equal / always-opposite edge pairs, vertex triples with the required patterns);
* ``searched``: a larger random graph (up to 16 edges) whose designated items were found with
  the core (forced edges, or the verifier tried on many designated items);
* ``planted``:  a known gadget for the same problem (found earlier in the run, or the dataset's
  shipped minimal solution when it has at most 16 edges), relabelled, plus a disjoint random
  graph (correct iff that part is good) and sometimes one extra edge joining them;
* ``invalid``:  designated items that break the definition's own rules (absent edge, e = f,
  repeated vertex, vertex outside G).

Graphs get 0-2 isolated vertices (which may be designated) and often have free edges.  Every
verdict must equal the brute-force answer, and every witness must be a good coloring (checked
against the brute-force list) that really shows the stated failure.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from itertools import combinations, permutations

import numpy as np
import pytest

from ramseygadgets.colorings.red_blue import GoodColorings
from ramseygadgets.core.gadgets import Candidate, Designated, GadgetType
from ramseygadgets.core.graphs import Graph
from ramseygadgets.problems.catalog import POLYNOMIAL_PAIRS, Problem, all_problems
from ramseygadgets.problems.solutions import load_solutions
from ramseygadgets.verification.bruteforce import (
    brute_force_verify,
    copy_masks,
    designated_valid,
    good_coloring_masks,
    red_degrees,
)
from ramseygadgets.verification.verifier import Verdict, verify

CASES_PER_PROBLEM = 16
MAX_EDGES = 12  # 4,096 colorings per random case
MAX_SEARCH_EDGES = (
    16  # graphs searched for gadgets (informed / planted cases): up to 65,536 colorings
)
KINDS = ("random", "informed", "planted", "searched", "random", "planted", "informed", "invalid")


def problems_under_test() -> list[Problem]:
    extra = [
        Problem.make(f, h, g)
        for f, h in sorted(POLYNOMIAL_PAIRS)
        for g in (GadgetType.CLAUSE, GadgetType.VARIABLE)
    ]
    return [*all_problems(), *extra]


@dataclass
class Case:
    problem: Problem
    graph: Graph
    designated: Designated
    kind: str
    verdict: Verdict
    brute: bool
    good: np.ndarray
    free_edges: int


# ---------------------------------------------------------------------------------------------
# Candidate generation
# ---------------------------------------------------------------------------------------------
def random_graph(rng: random.Random, larger: bool = False) -> Graph:
    """3-7 vertices of random density plus 0-2 isolated vertices, at most MAX_EDGES edges
    (``larger``: 5-8 vertices and up to MAX_SEARCH_EDGES edges, where more gadgets live)."""
    low, high, limit = (5, 8, MAX_SEARCH_EDGES) if larger else (3, 7, MAX_EDGES)
    while True:
        core = rng.randint(low, high)
        p = rng.choice((0.3, 0.45, 0.6, 0.8))
        edges = [e for e in combinations(range(core), 2) if rng.random() < p]
        if 1 <= len(edges) <= limit:
            return Graph(core + rng.choice((0, 0, 1, 2)), tuple(edges))


def random_designated(rng: random.Random, graph: Graph, gadget: GadgetType) -> Designated:
    edges = (
        tuple(rng.sample(graph.edges, len(gadget.edge_names)))
        if graph.m >= len(gadget.edge_names)
        else ()
    )
    vertices: tuple[int, ...] = ()
    if gadget.vertex_names:
        isolated = [v for v in range(graph.n) if not graph.neighbors[v]]
        vertices = tuple(rng.sample(range(graph.n), 3))
        if isolated and rng.random() < 0.5:  # make sure isolated designated vertices occur
            pos = rng.randrange(3)
            if isolated[0] not in vertices:
                vertices = vertices[:pos] + (isolated[0],) + vertices[pos + 1 :]
    return Designated(edges, vertices)


def informed_designated(
    rng: random.Random, problem: Problem, graph: Graph, good: np.ndarray
) -> Designated | None:
    """Designated items satisfying the definition on this graph (from the brute-force list), if any."""
    if good.size == 0:
        return None
    g, m = problem.gadget, graph.m
    red = [((good >> i) & 1).astype(bool) for i in range(m)]
    if g is GadgetType.RED_DETERMINER or g is GadgetType.BLUE_DETERMINER:
        pool = [
            i
            for i in range(m)
            if (red[i].all() if g is GadgetType.RED_DETERMINER else (~red[i]).all())
        ]
        return Designated((graph.edges[rng.choice(pool)],)) if pool else None
    if g is GadgetType.POSITIVE_SENDER or g is GadgetType.NEGATIVE_SENDER:
        pairs = [
            (i, j)
            for i, j in permutations(range(m), 2)
            if red[i].any()
            and (~red[i]).any()
            and (
                (red[i] == red[j]).all()
                if g is GadgetType.POSITIVE_SENDER
                else (red[i] != red[j]).all()
            )
        ]
        if not pairs:
            return None
        i, j = rng.choice(pairs)
        return Designated((graph.edges[i], graph.edges[j]))
    k = problem.F.star_k
    degrees = [red_degrees(graph, good, v) for v in range(graph.n)]
    triples = list(permutations(range(graph.n), 3))
    rng.shuffle(triples)
    for a, b, c in triples:
        if g is GadgetType.CLAUSE:
            codes = (degrees[a] == 0) * 4 + (degrees[b] == 0) * 2 + (degrees[c] == 0)
            counts = np.bincount(codes, minlength=8)
            ok = counts[7] == 0 and (counts[:7] > 0).all()
        else:
            u1, u2, n1 = (degrees[x] == k - 1 for x in (a, b, c))
            ok = (n1 | (u1 & u2)).all() and (~u1 & ~u2).any() and (~n1).any()
        if ok:
            return Designated(vertices=(a, b, c))
    return None


def saturated_graph(rng: random.Random, problem: Problem) -> Graph:
    """Random edges added one by one while G stays good: tightly constrained graphs, rich in gadgets."""
    n = rng.randint(5, 8)
    pairs = list(combinations(range(n), 2))
    rng.shuffle(pairs)
    edges: list[tuple[int, int]] = []
    target = rng.randint(8, MAX_SEARCH_EDGES)
    for e in pairs:
        if len(edges) == target:
            break
        with GoodColorings(Graph(n, (*edges, e)), problem.F, problem.H) as sat:
            if sat.is_good():
                edges.append(e)
    return Graph(n, tuple(edges))


def searched_gadget(rng: random.Random, problem: Problem) -> tuple[Graph, Designated] | None:
    """A gadget on a larger random or saturated graph, found with the core (forced edges, or the
    verifier over designated items); the brute force still has the last word on it."""
    g = problem.gadget
    for attempt in range(8):
        graph = (
            saturated_graph(rng, problem) if attempt % 2 == 0 else random_graph(rng, larger=True)
        )
        with GoodColorings(graph, problem.F, problem.H) as sat:
            if not sat.is_good():
                continue
            if g in (GadgetType.RED_DETERMINER, GadgetType.BLUE_DETERMINER):
                forced = sat.forced_edges()
                pool = forced.red if g is GadgetType.RED_DETERMINER else forced.blue
                if pool:
                    return graph, Designated((rng.choice(pool),))
                continue
        if g in (GadgetType.POSITIVE_SENDER, GadgetType.NEGATIVE_SENDER):
            options = [Designated(pair) for pair in permutations(graph.edges, 2)]
        else:
            options = [Designated(vertices=t) for t in permutations(range(graph.n), 3)]
        for designated in rng.sample(options, min(len(options), 60)):
            if verify(problem, graph, designated).correct:
                return graph, designated
    return None


def planted(rng: random.Random, gadget: tuple[Graph, Designated]) -> tuple[Graph, Designated]:
    """A known gadget, relabelled, beside a disjoint random graph, sometimes joined by one edge."""
    graph, designated = gadget
    extra_n = rng.randint(0, 3)
    extra = [e for e in combinations(range(extra_n), 2) if rng.random() < 0.5]
    n = graph.n + extra_n
    edges = list(graph.edges) + [(u + graph.n, v + graph.n) for u, v in extra]
    if extra_n and rng.random() < 0.3:
        edges.append((rng.randrange(graph.n), graph.n + rng.randrange(extra_n)))
    edges = sorted(set(edges))[: MAX_SEARCH_EDGES + 2]
    perm = list(range(n))
    rng.shuffle(perm)
    relabel = lambda u, v: (min(perm[u], perm[v]), max(perm[u], perm[v]))  # noqa: E731
    kept = [relabel(u, v) for u, v in edges]
    d_edges = tuple(relabel(u, v) for u, v in designated.edges)
    for e in d_edges:  # never drop a designated edge
        if e not in kept:
            kept.append(e)
    return Graph(n, tuple(kept)), Designated(d_edges, tuple(perm[x] for x in designated.vertices))


def invalid_designated(rng: random.Random, graph: Graph, gadget: GadgetType) -> Designated:
    """Designated items that break the definition's rules on purpose."""
    if gadget.vertex_names:
        v = rng.randrange(graph.n)
        return Designated(
            vertices=rng.choice([(v, v, (v + 1) % graph.n), (0, 1, graph.n + rng.randint(0, 3))])
        )
    non_edges = [e for e in combinations(range(graph.n + 1), 2) if not graph.has_edge(*e)]
    absent = rng.choice(non_edges)
    if len(gadget.edge_names) == 1:
        return Designated((absent,))
    e = rng.choice(graph.edges)
    return Designated(rng.choice([(e, e), (e, absent), (absent, e)]))


def free_edge_count(problem: Problem, graph: Graph) -> int:
    used = 0
    for mask in copy_masks(problem.F, graph) | copy_masks(problem.H, graph):
        used |= mask
    return graph.m - bin(used).count("1")


def shipped_gadgets(problem: Problem) -> list[tuple[Graph, Designated]]:
    """The dataset's shipped minimal solution, when small enough for brute force (known gadgets)."""
    solution = load_solutions().get(problem.id)
    if solution is None or solution.m > MAX_SEARCH_EDGES:
        return []
    return [(solution.candidate.graph, solution.candidate.designated)]


def build_cases(problem: Problem) -> list[Case]:
    rng = random.Random(f"crosscheck:{problem.id}")
    known: list[tuple[Graph, Designated]] = []
    cases: list[Case] = []
    for index in range(CASES_PER_PROBLEM):
        kind = KINDS[index % len(KINDS)]
        graph = random_graph(rng)
        good = good_coloring_masks(graph, problem.F, problem.H)
        designated = None
        sources = known + shipped_gadgets(problem)
        if kind == "planted" and sources:
            graph, designated = planted(rng, rng.choice(sources))
            good = good_coloring_masks(graph, problem.F, problem.H)
        elif kind == "searched":
            found = searched_gadget(rng, problem)
            if found is not None:
                graph, designated = found
                known.append(found)
                good = good_coloring_masks(graph, problem.F, problem.H)
        elif kind in ("informed", "planted"):
            kind = "informed"
            for _ in range(6):  # a few graphs until one has a gadget
                graph = random_graph(rng)
                good = good_coloring_masks(graph, problem.F, problem.H)
                designated = informed_designated(rng, problem, graph, good)
                if designated is not None:
                    known.append((graph, designated))
                    break
        elif kind == "invalid":
            designated = invalid_designated(rng, graph, problem.kind)
        if designated is None:
            designated = random_designated(rng, graph, problem.kind)
        verdict = verify(problem, Candidate(graph, designated))
        brute = brute_force_verify(graph, problem.F, problem.H, problem.gadget, designated)
        cases.append(
            Case(
                problem,
                graph,
                designated,
                kind,
                verdict,
                brute,
                good,
                free_edge_count(problem, graph),
            )
        )
    return cases


@pytest.fixture(scope="module")
def cases() -> list[Case]:
    return [case for problem in problems_under_test() for case in build_cases(problem)]


# ---------------------------------------------------------------------------------------------
# The checks
# ---------------------------------------------------------------------------------------------
def describe(case: Case) -> str:
    return (
        f"{case.problem.id} [{case.kind}] {case.graph} {case.designated}: verifier says {case.verdict.correct} "
        f"({case.verdict.reason}), brute force says {case.brute}"
    )


def test_verifier_agrees_with_brute_force_on_every_case(cases: list[Case]) -> None:
    wrong = [describe(c) for c in cases if c.verdict.correct != c.brute]
    assert not wrong, f"{len(wrong)} disagreements, e.g.\n" + "\n".join(wrong[:10])


def test_every_pair_and_gadget_type_is_covered(cases: list[Case]) -> None:
    assert len(cases) >= 1000
    per_problem = Counter(c.problem.id for c in cases)
    assert len(per_problem) == 78 and min(per_problem.values()) == CASES_PER_PROBLEM
    pairs = {(c.problem.F.name, c.problem.H.name) for c in cases}
    assert len(pairs) == 13
    hardness_pairs = {
        (c.problem.F.name, c.problem.H.name) for c in cases if c.problem.gadget.is_hardness
    }
    assert len(hardness_pairs) == 13  # the 9 NP-hard pairs plus the 4 polynomial ones


def test_case_mix_has_many_correct_and_many_wrong_answers(cases: list[Case]) -> None:
    correct = [c for c in cases if c.brute]
    by_type = Counter(c.problem.gadget for c in correct)
    assert len(correct) >= 250, f"only {len(correct)} correct candidates"
    assert len(cases) - len(correct) >= 400
    for gadget in GadgetType:
        assert by_type[gadget] >= 20, f"only {by_type[gadget]} correct {gadget.value} candidates"
    problems_with_correct = {c.problem.id for c in correct}
    assert len(problems_with_correct) >= 55, (
        f"only {len(problems_with_correct)} problems have a correct case"
    )
    kinds = Counter(c.kind for c in cases)
    assert kinds["planted"] >= 200 and kinds["informed"] >= 250 and kinds["invalid"] >= 100
    planted_correct = sum(c.brute for c in cases if c.kind == "planted")
    assert 0 < planted_correct < kinds["planted"]  # both outcomes of planting occur


def test_cases_cover_each_failing_clause_of_the_definition(cases: list[Case]) -> None:
    checks = Counter(c.verdict.check for c in cases)
    assert checks["designated"] >= 100  # absent edge / e = f / repeated or missing vertex
    assert checks["good"] >= 50  # G itself not (F,H)-good
    assert checks["gadget"] >= 200  # the gadget property fails
    assert checks["ok"] >= 250


def test_free_edges_and_isolated_designated_vertices_occur(cases: list[Case]) -> None:
    with_free = [c for c in cases if c.free_edges]
    assert len(with_free) >= 150
    assert sum(c.brute for c in with_free) >= 30  # correct gadgets with free edges too
    isolated = [
        c
        for c in cases
        if any(not c.graph.neighbors[v] for v in c.designated.vertices if 0 <= v < c.graph.n)
    ]
    assert len(isolated) >= 60
    assert {c.problem.gadget for c in isolated} == {GadgetType.CLAUSE, GadgetType.VARIABLE}


def witness_mask(case: Case) -> int:
    w = case.verdict.witness
    assert w is not None and w.graph == case.graph and len(w.red) == case.graph.m
    return sum(1 << i for i, r in enumerate(w.red) if r)


def test_verdict_check_matches_the_failing_clause(cases: list[Case]) -> None:
    for c in cases:
        valid = designated_valid(c.graph, c.problem.kind, c.designated)
        if not valid:
            expected = "designated"
        elif c.good.size == 0:
            expected = "good"
        else:
            expected = "ok" if c.brute else "gadget"
        assert c.verdict.check == expected, describe(c)
        assert c.verdict.reason and "\n" not in c.verdict.reason
        if c.verdict.correct or expected in ("designated", "good"):
            assert c.verdict.witness is None, describe(c)


def test_witnesses_are_good_colorings_that_show_the_failure(cases: list[Case]) -> None:
    checked = 0
    for c in cases:
        if c.verdict.check != "gadget":
            continue
        g, graph, d = c.problem.gadget, c.graph, c.designated
        if c.verdict.witness is None:
            # only "missing" failures have no witness; brute force confirms nothing is missing by mistake
            assert g in (
                GadgetType.POSITIVE_SENDER,
                GadgetType.NEGATIVE_SENDER,
                GadgetType.CLAUSE,
                GadgetType.VARIABLE,
            )
            assert c.verdict.reason.startswith("no good coloring"), describe(c)
            if g is GadgetType.CLAUSE:
                missing = c.verdict.details["missing_pattern"]
                pattern = tuple(missing[name] for name in ("i1", "i2", "i3"))
                seen = {
                    tuple(bool(red_degrees(graph, c.good, v)[j] == 0) for v in d.vertices)
                    for j in range(c.good.size)
                }
                assert pattern not in seen
            continue
        mask = witness_mask(c)
        assert mask in set(c.good.tolist()), f"witness is not a good coloring: {describe(c)}"
        checked += 1
        w = c.verdict.witness
        if g in (GadgetType.RED_DETERMINER, GadgetType.BLUE_DETERMINER):
            assert w.color_of(*d.edges[0]) == ("blue" if g is GadgetType.RED_DETERMINER else "red")
        elif g in (GadgetType.POSITIVE_SENDER, GadgetType.NEGATIVE_SENDER):
            same = w.color_of(*d.edges[0]) == w.color_of(*d.edges[1])
            assert same is (g is GadgetType.NEGATIVE_SENDER), describe(c)
        elif g is GadgetType.CLAUSE:
            assert all(w.red_degree(v) == 0 for v in d.vertices)
        else:
            k = c.problem.F.star_k
            u1, u2, n1 = d.vertices
            assert w.red_degree(n1) != k - 1 and (
                w.red_degree(u1) != k - 1 or w.red_degree(u2) != k - 1
            )
    assert checked >= 150
