"""Benchmark: exact verification of 10-vertex candidates, fast core vs. the naive way.

For every gadget type the benchmark builds realistic candidates for every catalog problem of
that type, on ``--n`` vertices (default 10):

* ``random``: G(n, p) for several densities p, designated items drawn at random;
* ``good``:   G(n, p) resampled until G is (F,H)-good (so every clause of the definition is
  checked, not only "G is good"), random designated items;
* ``correct``: good graphs whose designated items are chosen from the good colorings so that
  the candidate is a real gadget (determiners: forced edges; senders: edge pairs that always
  agree / disagree; hardness gadgets: vertex triples that satisfy the definition, when found).

Each candidate is verified twice in the same process:

* fast:  :func:`ramseygadgets.verification.verifier.verify` (specialised copy enumerators, one incremental
  solver answering every question with assumptions);
* naive: copies from networkx's GraphMatcher subgraph monomorphisms, and a fresh PySAT solver
  (same backend) built from scratch for every SAT question.

Both must agree on every candidate (the script exits 1 otherwise).  It prints the median
milliseconds per verification for each gadget type and the ratio naive / fast.

Usage: ``.venv/bin/python bench/verify.py [--n 10] [--per-problem 24] [--seed 1] [--json]``
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import statistics
import sys
import time
from dataclasses import dataclass
from itertools import combinations, product

from networkx.algorithms.isomorphism import GraphMatcher
from pysat.card import CardEnc, EncType
from pysat.solvers import Solver

from ramseygadgets.colorings.red_blue import GoodColorings
from ramseygadgets.core.gadgets import Designated, GadgetType
from ramseygadgets.core.graphs import Graph
from ramseygadgets.core.patterns import Pattern
from ramseygadgets.problems.catalog import Problem, all_problems
from ramseygadgets.problems.solutions import load_solutions
from ramseygadgets.verification.verifier import VERIFY_SOLVER, verify

DENSITIES = (0.25, 0.4, 0.55, 0.7)


# ---------------------------------------------------------------------------------------------
# The naive baseline: GraphMatcher copies + a fresh solver per SAT question.
# ---------------------------------------------------------------------------------------------
def graphmatcher_copies(pattern: Pattern, graph: Graph) -> set[frozenset[int]]:
    """Copies as edge-index sets from networkx subgraph monomorphisms (deduplicated), no caching."""
    g, f = graph.to_networkx(), pattern.graph.to_networkx()
    copies: set[frozenset[int]] = set()
    for mapping in GraphMatcher(g, f).subgraph_monomorphisms_iter():
        inverse = {p: v for v, p in mapping.items()}
        copies.add(frozenset(graph.edge_id(inverse[a], inverse[b]) for a, b in pattern.graph.edges))
    return copies


class NaiveVerifier:
    """The same questions as :mod:`ramseygadgets.verification.verifier`, each on a freshly built solver."""

    def __init__(self, graph: Graph, problem: Problem) -> None:
        self.graph = graph
        self.clauses: list[list[int]] = []
        for copy in graphmatcher_copies(problem.F, graph):
            self.clauses.append([-(i + 1) for i in copy])
        for copy in graphmatcher_copies(problem.H, graph):
            self.clauses.append([i + 1 for i in copy])

    def sat(self, assumptions: list[int] = (), extra: list[list[int]] = ()) -> bool:
        with Solver(name=VERIFY_SOLVER, bootstrap_with=self.clauses + list(extra)) as solver:
            return solver.solve(assumptions=list(assumptions))

    def degree_clauses(
        self, v: int, at_most: int | None = None, at_least: int | None = None
    ) -> list[list[int]]:
        lits = [i + 1 for i in self.graph.incident_edges[v]]
        top = self.graph.m + 10 * self.graph.n * (v + 1)  # disjoint auxiliary variables per call
        if at_most is not None:
            if at_most >= len(lits):
                return []
            return CardEnc.atmost(
                lits, bound=at_most, top_id=top, encoding=EncType.seqcounter
            ).clauses
        if at_least > len(lits):
            return [[]]
        return CardEnc.atleast(
            lits, bound=at_least, top_id=top + 5 * self.graph.n, encoding=EncType.seqcounter
        ).clauses


def naive_verify(problem: Problem, graph: Graph, designated: Designated) -> bool:
    g = problem.gadget
    if g.edge_names:
        if any(not graph.has_edge(*e) for e in designated.edges) or len(
            set(designated.edges)
        ) != len(designated.edges):
            return False
    if g.vertex_names and len(set(designated.vertices)) != 3:
        return False
    nv = NaiveVerifier(graph, problem)
    if not nv.sat():
        return False
    var = [graph.edge_id(*e) + 1 for e in designated.edges]
    if g is GadgetType.RED_DETERMINER:
        return not nv.sat([-var[0]])
    if g is GadgetType.BLUE_DETERMINER:
        return not nv.sat([var[0]])
    if g in (GadgetType.POSITIVE_SENDER, GadgetType.NEGATIVE_SENDER):
        e, f = var
        if not nv.sat([e]) or not nv.sat([-e]):
            return False
        bad = ([e, -f], [-e, f]) if g is GadgetType.POSITIVE_SENDER else ([e, f], [-e, -f])
        return not any(nv.sat(a) for a in bad)
    k = problem.F.star_k
    vs = designated.vertices
    if g is GadgetType.CLAUSE:
        enforced = [nv.degree_clauses(v, at_most=0) for v in vs]
        not_enforced = [nv.degree_clauses(v, at_least=1) for v in vs]
        if nv.sat(extra=[c for cs in enforced for c in cs]):
            return False
        for pattern in product((True, False), repeat=3):
            if all(pattern):
                continue
            extra = [c for p, a, b in zip(pattern, enforced, not_enforced) for c in (a if p else b)]
            if not nv.sat(extra=extra):
                return False
        return True
    u1, u2, n1 = (nv.degree_clauses(v, at_most=k - 2) for v in vs)
    if nv.sat(extra=u1 + n1) or nv.sat(extra=u2 + n1):
        return False
    return nv.sat(extra=u1 + u2) and nv.sat(extra=n1)


# ---------------------------------------------------------------------------------------------
# Candidates
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Case:
    problem: Problem
    graph: Graph
    designated: Designated
    kind: str  # random | good | correct


def random_graph(rng: random.Random, n: int, p: float) -> Graph:
    return Graph(n, tuple(e for e in combinations(range(n), 2) if rng.random() < p))


def random_designated(rng: random.Random, graph: Graph, gadget: GadgetType) -> Designated | None:
    if len(gadget.edge_names) > graph.m:
        return None
    return Designated(
        tuple(rng.sample(graph.edges, len(gadget.edge_names))),
        tuple(rng.sample(range(graph.n), len(gadget.vertex_names))),
    )


def good_graph(rng: random.Random, problem: Problem, n: int, tries: int = 400) -> Graph | None:
    for _ in range(tries):
        graph = random_graph(rng, n, rng.choice(DENSITIES))
        if graph.m >= 2:
            with GoodColorings(graph, problem.F, problem.H) as sat:
                if sat.is_good():
                    return graph
    return None


def correct_designated(rng: random.Random, problem: Problem, graph: Graph) -> Designated | None:
    """Designated items that make ``graph`` a real gadget, when the graph has any."""
    g = problem.gadget
    with GoodColorings(graph, problem.F, problem.H) as sat:
        if g in (GadgetType.RED_DETERMINER, GadgetType.BLUE_DETERMINER):
            forced = sat.forced_edges()
            pool = forced.red if g is GadgetType.RED_DETERMINER else forced.blue
            return Designated((rng.choice(pool),)) if pool else None
        options = list(range(graph.m))
        rng.shuffle(options)
        if g in (GadgetType.POSITIVE_SENDER, GadgetType.NEGATIVE_SENDER):
            pairs = [(a, b) for a, b in combinations(options[:12], 2)]
            rng.shuffle(pairs)
            for a, b in pairs[:40]:
                d = Designated((graph.edges[a], graph.edges[b]))
                if verify(problem, graph, d).correct:
                    return d
            return None
    triples = list(combinations(range(graph.n), 3))
    rng.shuffle(triples)
    for t in triples[:60]:
        for order in (t, (t[1], t[2], t[0]), (t[0], t[2], t[1])):
            d = Designated(vertices=order)
            if verify(problem, graph, d).correct:
                return d
    return None


def correct_case(
    rng: random.Random, problem: Problem, n: int, tries: int = 25
) -> tuple[Graph, Designated] | None:
    """A good random graph on n vertices with designated items that make it a gadget."""
    for _ in range(tries):
        graph = good_graph(rng, problem, n)
        if graph is None:
            return None
        designated = correct_designated(rng, problem, graph)
        if designated is not None:
            return graph, designated
    return None


def planted_case(rng: random.Random, problem: Problem, n: int) -> tuple[Graph, Designated] | None:
    """The shipped minimal solution, relabelled at random inside n vertices, plus a random
    graph on the added vertices (the gadget survives exactly when that extra part is good)."""
    solution = load_solutions().get(problem.id)
    if solution is None or solution.n > n:
        return None
    perm = list(range(n))
    rng.shuffle(perm)
    g, d = solution.candidate.graph, solution.candidate.designated
    extra = list(range(g.n, n))
    edges = [(perm[u], perm[v]) for u, v in g.edges]
    edges += [(perm[u], perm[v]) for u, v in combinations(extra, 2) if rng.random() < 0.3]
    designated = Designated(
        tuple((perm[u], perm[v]) for u, v in d.edges), tuple(perm[x] for x in d.vertices)
    )
    return Graph(n, tuple(edges)), designated


def build_cases(rng: random.Random, n: int, per_problem: int) -> list[Case]:
    """Per problem, in turn: random, good, correct and planted candidates."""
    cases: list[Case] = []
    for problem in all_problems():
        for i in range(per_problem):
            kind = ("random", "good", "correct", "planted")[i % 4]
            found = None
            if kind == "planted":
                found = planted_case(rng, problem, n)
            elif kind == "correct":
                found = correct_case(rng, problem, n)
            if found is None:
                kind = "random" if kind == "random" else "good"
                graph = (
                    random_graph(rng, n, DENSITIES[i % len(DENSITIES)])
                    if kind == "random"
                    else good_graph(rng, problem, n)
                )
                designated = None if graph is None else random_designated(rng, graph, problem.kind)
                found = None if designated is None else (graph, designated)
            if found is not None:
                cases.append(Case(problem, found[0], found[1], kind))
    return cases


# ---------------------------------------------------------------------------------------------
def best_times(func, cases: list[Case], repeats: int) -> tuple[list[float], list[bool]]:
    """Per case the fastest of ``repeats`` runs (each run over all cases in a block, each on a freshly
    built graph so that nothing computed in an earlier run is reused), and the verdicts."""
    best = [float("inf")] * len(cases)
    verdicts: list[bool] = []
    for round_ in range(repeats):
        gc.collect()
        gc.disable()
        try:
            for i, case in enumerate(cases):
                graph = Graph(case.graph.n, case.graph.edges)  # fresh: no derived data cached yet
                start = time.perf_counter()
                result = func(case.problem, graph, case.designated)
                best[i] = min(best[i], time.perf_counter() - start)
                if round_ == 0:
                    verdicts.append(result if isinstance(result, bool) else result.correct)
        finally:
            gc.enable()
    return best, verdicts


def run(n: int, per_problem: int, seed: int, repeats: int) -> dict:
    rng = random.Random(seed)
    cases = build_cases(rng, n, per_problem)
    for case in cases[:20]:  # warm caches and imports on both sides
        verify(case.problem, case.graph, case.designated)
        naive_verify(case.problem, case.graph, case.designated)
    fast, fast_ok = best_times(verify, cases, repeats)
    naive, naive_ok = best_times(naive_verify, cases, repeats)
    disagreements = [c for c, a, b in zip(cases, fast_ok, naive_ok) if a != b]
    for case in disagreements:
        print(f"DISAGREEMENT {case.problem.id} {case.graph} {case.designated}", file=sys.stderr)
    rows = []
    for g in GadgetType:
        idx = [i for i, c in enumerate(cases) if c.problem.gadget is g]
        if not idx:
            continue
        tf, tn = [fast[i] for i in idx], [naive[i] for i in idx]
        mf, mn = statistics.median(tf), statistics.median(tn)
        rows.append(
            {
                "gadget": g.value,
                "candidates": len(idx),
                "good_graphs": sum(cases[i].kind != "random" for i in idx),
                "correct": sum(fast_ok[i] for i in idx),
                "fast_median_ms": mf * 1e3,
                "fast_p90_ms": statistics.quantiles(tf, n=10)[-1] * 1e3,
                "fast_max_ms": max(tf) * 1e3,
                "naive_median_ms": mn * 1e3,
                "ratio": mn / mf,
            }
        )
    return {
        "n": n,
        "seed": seed,
        "repeats": repeats,
        "cases": len(cases),
        "disagreements": len(disagreements),
        "kinds": {
            k: sum(c.kind == k for c in cases) for k in ("random", "good", "correct", "planted")
        },
        "rows": rows,
        "overall": {
            "fast_median_ms": statistics.median(fast) * 1e3,
            "naive_median_ms": statistics.median(naive) * 1e3,
            "ratio_of_medians": statistics.median(naive) / statistics.median(fast),
            "ratio_of_totals": sum(naive) / sum(fast),
        },
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=10, help="vertices per candidate (default 10)")
    parser.add_argument(
        "--per-problem", type=int, default=24, help="candidates per catalog problem (default 24)"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--repeats", type=int, default=3, help="runs per candidate; the fastest counts (default 3)"
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    result = run(args.n, args.per_problem, args.seed, args.repeats)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        kinds = ", ".join(f"{v} {k}" for k, v in result["kinds"].items())
        print(
            f"{result['cases']} candidates on {args.n} vertices ({kinds}; seed {args.seed}, best of {args.repeats})"
        )
        print(
            f"fast = ramseygadgets.verify; naive = networkx GraphMatcher copies + a fresh {VERIFY_SOLVER} "
            f"solver per SAT question"
        )
        print(
            f"{'gadget':<16} {'cands':>5} {'good G':>6} {'correct':>7} {'fast ms':>8} {'p90 ms':>7} "
            f"{'max ms':>7} {'naive ms':>9} {'ratio':>6}"
        )
        for r in result["rows"]:
            print(
                f"{r['gadget']:<16} {r['candidates']:>5} {r['good_graphs']:>6} {r['correct']:>7} "
                f"{r['fast_median_ms']:>8.3f} {r['fast_p90_ms']:>7.3f} {r['fast_max_ms']:>7.2f} {r['naive_median_ms']:>9.3f} {r['ratio']:>5.1f}x"
            )
        o = result["overall"]
        print(
            f"{'all':<16} {result['cases']:>5} {'':>6} {'':>7} {o['fast_median_ms']:>8.3f} {'':>7} {'':>7} "
            f"{o['naive_median_ms']:>9.3f} {o['ratio_of_medians']:>5.1f}x  (ratio of totals {o['ratio_of_totals']:.1f}x)"
        )
        print(f"disagreements between fast and naive: {result['disagreements']}")
    return 1 if result["disagreements"] else 0


if __name__ == "__main__":
    sys.exit(main())
