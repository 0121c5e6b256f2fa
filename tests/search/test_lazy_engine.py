"""The lazy engine: arrowing lemmas, the lex-max canonicity check, agreement with the eager engine."""

from __future__ import annotations

import json
import random
import re
from itertools import permutations, product
from pathlib import Path

import pytest

from ramseygadgets.core.gadgets import Candidate, GadgetType
from ramseygadgets.core.graphs import Graph
from ramseygadgets.problems.catalog import Problem, all_problems
from ramseygadgets.problems.solutions import load_solutions
from ramseygadgets.search import SearchError, find_solution, solve
from ramseygadgets.search.cegar import KnCopies, LayoutFinder
from ramseygadgets.search.exhaustive import (
    exhaustive_minimums,
    gadgets_in_graph,
    nauty_available,
)
from ramseygadgets.search.options import SearchOptions
from ramseygadgets.search.spec import Layout, layouts
from ramseygadgets.search.symmetry import MAX_VERTICES, LexMaxCheck, column_order, group_cosets
from ramseygadgets.verification.verifier import verify


def test_the_eager_engine_still_proves_every_shipped_minimum():
    shipped = load_solutions()
    for p in all_problems():
        result = solve(p, SearchOptions(engine="eager"))
        assert (result.n, result.m) == (shipped[p.id].n, shipped[p.id].m), p.id
        assert result.lower_bound == result.n and result.edges_minimal, p.id


def test_an_unknown_engine_is_refused():
    with pytest.raises(SearchError, match="unknown search engine"):
        solve("p3_k3_red_determiner", SearchOptions(engine="fast"))


def test_auto_runs_lazy_unless_f_is_a_star():
    star = solve("p3_k3_red_determiner")
    other = solve(Problem.make("K3", "P4", "red-determiner"))
    assert {lv.engine for lv in star.levels} == {"eager"}
    assert {lv.engine for lv in other.levels} == {"lazy"}
    assert other.levels[-1].to_json()["engine"] == "lazy"


def test_the_lazy_engine_proves_every_shipped_minimum():
    shipped = load_solutions()
    for p in all_problems():
        result = solve(p, SearchOptions(engine="lazy"))
        assert (result.n, result.m) == (shipped[p.id].n, shipped[p.id].m), p.id
        assert result.lower_bound == result.n and result.edges_minimal, p.id


def _graphs_with(n: int, required: tuple[tuple[int, int], ...]):
    optional = [e for e in Graph.complete(n).edges if e not in required]
    for bits in product((False, True), repeat=len(optional)):
        yield Graph(n, tuple(required) + tuple(e for e, b in zip(optional, bits) if b))


@pytest.mark.parametrize(
    "F,H,gadget,n",
    [
        ("K3", "P4", "red-determiner", 5),
        ("K3", "P4", "blue-determiner", 5),
        ("K3", "K3", "positive-sender", 5),
        ("P3", "K3", "negative-sender", 5),
        ("K3", "K1,3", "red-determiner", 5),
    ],
)
def test_no_lemma_of_the_lazy_engine_excludes_a_solution(F, H, gadget, n):
    """Brute force over all graphs on n vertices: counterexample and arrowing lemmas keep them all."""
    problem = Problem.make(F, H, gadget)
    kn = Graph.complete(n)
    for layout in layouts(problem.kind, n):
        finder = LayoutFinder(
            problem, n, layout, copies=KnCopies(problem, n), record_lemmas=True, engine="lazy"
        )
        finder.canonicity = None  # pruning clauses drop non-canonical solutions, tested below
        best = finder.find()
        while best is not None:
            best = finder.find(max_edges=best.m - 1)
        lemmas, arrowings = finder.model.lemmas, finder.model.arrowings
        finder.close()
        assert lemmas is not None and arrowings is not None
        assert lemmas or arrowings
        for g in _graphs_with(n, layout.designated.edges):
            if not verify(problem, Candidate(g, layout.designated)).correct:
                continue
            mask = sum(1 << kn.edge_id(u, v) for u, v in g.edges)
            for lemma in lemmas:
                assert any(copy & ~mask == 0 for copy in lemma), (layout.name, g)
            for arrowing in arrowings:
                assert arrowing & ~mask != 0, (layout.name, g)


def _group(layout: Layout, n: int):
    """Every vertex permutation the layout allows: class permutations, then optionally a swap."""
    parts = [list(permutations(cls)) for cls in layout.classes]
    for images in product(*parts):
        base = list(range(n))
        for cls, image in zip(layout.classes, images):
            for a, b in zip(cls, image):
                base[a] = b
        yield base
        for swap in layout.swaps:
            yield [swap[v] for v in base]


def _vector(edges: set[tuple[int, int]], n: int, sigma=None) -> tuple[int, ...]:
    s = sigma or list(range(n))
    return tuple(int(tuple(sorted((s[i], s[j]))) in edges) for i, j in column_order(n))


def _lex_max(edges: set[tuple[int, int]], layout: Layout, n: int) -> bool:
    own = _vector(edges, n)
    return all(_vector(edges, n, sigma) <= own for sigma in _group(layout, n))


@pytest.mark.parametrize("gadget,n", [("red-determiner", 5), ("positive-sender", 5)])
def test_the_canonicity_check_prunes_exactly_the_non_lex_maximal_graphs(gadget, n):
    """Against brute force over the layout's group: sound always, and complete on full graphs
    (the step budget is not reached at this size); every graph its clause excludes is non-maximal."""
    problem = Problem.make("K3", "P4", gadget)
    kn = Graph.complete(n)
    rng = random.Random(7)
    for layout in layouts(problem.kind, n):
        finder = LayoutFinder(problem, n, layout, engine="lazy")
        check, model = finder.canonicity, finder.model
        assert check is not None
        graphs = list(_graphs_with(n, layout.designated.edges))
        for g in rng.sample(graphs, 60):
            edges = set(g.edges)
            clause = model.pruning_clause(check, sum(1 << kn.edge_id(u, v) for u, v in g.edges))
            assert (clause is None) == _lex_max(edges, layout, n), (layout.name, g)
            if clause is None:
                continue
            fixed = {abs(lit): lit < 0 for lit in clause}  # the assignment the clause excludes
            for other in graphs:
                present = {model.x[kn.edge_id(u, v)] for u, v in other.edges}
                if all((var in present) == value for var, value in fixed.items()):
                    assert not _lex_max(set(other.edges), layout, n), (layout.name, g, other)
        finder.close()


def test_the_canonicity_check_prunes_nothing_beyond_its_vertex_limit():
    """A graph over MAX_VERTICES vertices is not checked (no clause), even a non-maximal one."""
    n = MAX_VERTICES + 1
    var = [[0] * n for _ in range(n)]
    check = LexMaxCheck(n, var, group_cosets(n, [list(range(n))], []))
    adjacency = [0] * n
    adjacency[n - 2] |= 1 << (n - 1)  # one edge at the end: the maximal member puts it first
    adjacency[n - 1] |= 1 << (n - 2)
    assert check.pruning_clause(adjacency) is None
    small = LexMaxCheck(
        4,
        [[0, 1, 2, 3], [1, 0, 4, 5], [2, 4, 0, 6], [3, 5, 6, 0]],
        group_cosets(4, [[0, 1, 2, 3]], []),
    )
    assert small.pruning_clause([0, 0, 8, 4]) is not None  # the same graph on 4 vertices is pruned


# Pairs beyond the catalog with F not a star, small enough for the exhaustive scan.
BEYOND = [
    ("K3", "P4", "red-determiner"),
    ("K3", "P4", "blue-determiner"),
    ("K3", "P4", "positive-sender"),
    ("K3", "K1,3", "negative-sender"),
    ("P4", "K3", "red-determiner"),
    ("K3", "K3", "blue-determiner"),
]


@pytest.mark.skipif(not nauty_available(), reason="nauty (geng, listg) is not installed")
def test_engines_and_the_exhaustive_scan_agree_beyond_the_catalog():
    problems = [Problem.make(*args) for args in BEYOND]
    scanned = exhaustive_minimums(problems, 7)
    agreed = 0
    for p in problems:
        lazy = solve(p, SearchOptions(max_vertices=7, engine="lazy"))
        eager = solve(p, SearchOptions(max_vertices=7, engine="eager"))
        assert (lazy.n, lazy.m, lazy.lower_bound) == (eager.n, eager.m, eager.lower_bound), p.title
        assert (scanned[p.id].n, scanned[p.id].m) == (lazy.n, lazy.m), p.title
        agreed += lazy.found
    assert agreed >= 3


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_engines_agree_on_the_frontier_problems_up_to_nine_vertices():
    """(K3, K4−e) and (K3, K4): both engines prove the same bounds (eager takes minutes)."""
    for H in ("K4-e", "K4"):
        for gadget in GadgetType:
            if gadget in (GadgetType.CLAUSE, GadgetType.VARIABLE):
                continue
            p = Problem.make("K3", H, gadget)
            lazy = solve(p, SearchOptions(max_vertices=9, minimize_edges=False, engine="lazy"))
            eager = solve(p, SearchOptions(max_vertices=9, minimize_edges=False, engine="eager"))
            assert (lazy.status, lazy.n, lazy.lower_bound) == (
                eager.status,
                eager.n,
                eager.lower_bound,
            ), p.title


def test_the_lazy_engine_decides_small_frontier_problems():
    """(K3, K4−e): blue-determiner and positive sender need exactly 9 vertices; no
    red-determiner on 9 (the eager engine agrees in the slow test below, about 8× slower)."""
    for gadget in ("blue-determiner", "positive-sender"):
        p = Problem.make("K3", "K4-e", gadget)
        below, at = (
            find_solution(p, 8, SearchOptions(engine="lazy", minimize_edges=False)),
            find_solution(p, 9, SearchOptions(engine="lazy", minimize_edges=False)),
        )
        assert below.status == "none-up-to-limit" and at.status == "found", gadget
        assert verify(p, at.candidate).correct
    red = find_solution(
        Problem.make("K3", "K4-e", "red-determiner"),
        9,
        SearchOptions(engine="lazy", minimize_edges=False),
    )
    assert red.status == "none-up-to-limit" and red.lower_bound == 10
    assert red.levels[-1].engine == "lazy" and red.levels[-1].pruned > 0


def test_every_frontier_solution_on_record_passes_two_independent_checks():
    """The solutions bench/frontier.py recorded (11 to 12 vertices, beyond any enumeration) pass
    the verifier and the exhaustive scan's gadget detector, on exactly the recorded n."""
    records = sorted((Path(__file__).parents[2] / "bench" / "results").glob("frontier*.jsonl"))
    assert len(records) >= 2  # this engine's run and the earlier one's
    rows = [json.loads(line) for path in records for line in path.read_text().splitlines() if line]
    solved = [r for r in rows if r["outcome"] == "found" and r.get("solution")]
    assert len({r["problem"] for r in solved}) >= 5
    for row in solved:
        match = re.fullmatch(r"\((.+), (.+)\)-(.+)", row["problem"])
        assert match is not None
        problem = Problem.make(*match.groups())
        candidate = Candidate.from_json(row["solution"], problem.kind, max_vertices=None)
        assert candidate.graph.n <= row["n"]
        assert verify(problem, candidate).correct, row["problem"]
        found = gadgets_in_graph(candidate.graph, problem.F, problem.H, [problem.gadget])
        assert found is not None and problem.gadget in found, row["problem"]


def test_one_hard_sat_call_stops_at_the_deadline() -> None:
    """A single solver call (here a pigeonhole formula that takes minutes) is interrupted at
    the deadline: the atlas once overran its 20 s budget by 30 minutes inside one oracle query."""
    import time

    from pysat.examples.genhard import PHP
    from pysat.solvers import Solver

    from ramseygadgets.search.cegar import SearchTimeout, interrupt_at, solve_before

    with Solver(name="minisat22", bootstrap_with=PHP(12).clauses) as solver:
        start = time.monotonic()
        with pytest.raises(SearchTimeout), interrupt_at(start + 0.5, [solver]):
            solve_before(solver, [], start + 0.5)
        assert time.monotonic() - start < 10
        solver.add_clause([-1])  # assuming 1 now fails at once: False, not an interrupt
        with interrupt_at(time.monotonic() + 60, [solver]):  # the alarm was cleared after use
            assert solve_before(solver, [1], time.monotonic() + 60) is False


def test_the_coloring_oracle_honours_the_deadline() -> None:
    import time

    from ramseygadgets.search.cegar import ColoringOracle, EdgeColor, KnCopies, SearchTimeout

    problem = Problem.make("K4", "K4", "positive-sender")
    copies = KnCopies(problem, 8)
    oracle = ColoringOracle(copies)
    everything = (1 << copies.kn.m) - 1
    assert oracle.red_mask(everything, []) is not None  # R(4, 4) = 18: K8 has good colorings
    e_red = oracle.condition_literals((EdgeColor((0, 1), True),))
    with pytest.raises(SearchTimeout):
        oracle.red_mask(everything, e_red, time.monotonic() - 1)
    oracle.close()


@pytest.mark.parametrize("engine", ["lazy", "eager"])
def test_a_solver_without_interrupts_runs_under_a_deadline(engine: str) -> None:
    """CaDiCaL cannot be interrupted: the deadline is checked between its calls instead of the
    timer raising NotImplementedError from ``interrupt``/``clear_interrupt``."""
    problem = Problem.make("K3", "P4", "red-determiner")
    result = solve(
        problem, SearchOptions(engine=engine, solver="cadical195", timeout=60, max_vertices=8)
    )
    assert (result.status, result.n) == ("found", 7)
    assert verify(problem, result.candidate).correct


def test_the_coloring_oracle_refuses_red_degree_conditions() -> None:
    from ramseygadgets.search.cegar import ColoringOracle, KnCopies
    from ramseygadgets.search.spec import RedDegree

    oracle = ColoringOracle(KnCopies(Problem.make("K3", "P4", "red-determiner"), 5))
    with pytest.raises(ValueError, match="edge colours only"):
        oracle.condition_literals((RedDegree(0, at_most=0),))
    oracle.close()


def _frontier_bench():
    import importlib.util

    path = Path(__file__).parents[2] / "bench" / "frontier.py"
    spec = importlib.util.spec_from_file_location("frontier_bench", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_pairs_bench_flags_only_contradicting_answers() -> None:
    """(status, n, m, lower bound): a longer proof or a timeout is no disagreement; different
    minimal solutions, or a proven bound beyond the other engine's solution, are."""
    consistent = _frontier_bench().consistent
    assert consistent(("none-up-to-limit", None, None, 11), ("timeout", None, None, 10))
    assert consistent(("found", 8, 23, 8), ("found", 8, 23, 8))
    assert consistent(("found", 8, 23, 8), ("timeout", None, None, 8))
    assert not consistent(("found", 8, 23, 8), ("found", 8, 24, 8))
    assert not consistent(("timeout", None, None, 9), ("found", 8, 23, 8))


@pytest.mark.parametrize("name", ["cadical195", "minisat22"])
def test_a_backend_that_cannot_be_interrupted_still_stops_at_the_deadline(name) -> None:
    """CaDiCaL (the exists part's backend from 13 vertices) has no ``interrupt()``: once a
    deadline waited for its call to end (minutes on this formula); it now solves in conflict
    budget slices and stops within one slice of the deadline."""
    import time

    from pysat.examples.genhard import PHP
    from pysat.solvers import Solver

    from ramseygadgets.search.cegar import SearchTimeout, interrupt_at, solve_before
    from ramseygadgets.search.oracle import interruptible

    with Solver(name=name, bootstrap_with=PHP(12).clauses) as solver:
        assert interruptible(solver) == (name == "minisat22")
        start = time.monotonic()
        with pytest.raises(SearchTimeout), interrupt_at(start + 0.5, [solver]):
            solve_before(solver, [], start + 0.5)
        assert time.monotonic() - start < 5
        solver.add_clause([-1])  # a budget left over from the slices does not cut a later call
        with interrupt_at(time.monotonic() + 60, [solver]):
            assert solve_before(solver, [1], time.monotonic() + 60) is False
        assert solver.solve(assumptions=[1]) is False


def test_a_ctrl_c_as_the_deadline_alarm_starts_leaves_no_thread_behind(monkeypatch) -> None:
    """train-data once printed "interrupted" and then hung at exit: a Ctrl-C landing just after
    the alarm thread started, before its block was entered, left a non-daemon timer waiting for
    its deadline (the 120 s --solve-timeout), and the interpreter waits for such threads."""
    import threading
    import time

    from pysat.solvers import Solver

    from ramseygadgets.search.oracle import interrupt_at

    start = threading.Timer.start

    def start_then_ctrl_c(self) -> None:
        start(self)
        raise KeyboardInterrupt

    monkeypatch.setattr(threading.Timer, "start", start_then_ctrl_c)
    with Solver(name="minisat22") as solver, pytest.raises(KeyboardInterrupt):
        with interrupt_at(time.monotonic() + 120, [solver]):
            pass
    time.sleep(0.2)
    left = [t for t in threading.enumerate() if isinstance(t, threading.Timer) and t.is_alive()]
    assert not left


def test_a_backend_without_interrupts_or_budgets_still_answers_under_a_deadline() -> None:
    """Lingeling has neither ``interrupt()`` nor conflict budgets: the call runs to its end."""
    import time

    from pysat.solvers import Solver

    from ramseygadgets.search.cegar import solve_before
    from ramseygadgets.search.oracle import interruptible

    with Solver(name="lingeling", bootstrap_with=[[1, 2], [-1]]) as solver:
        assert not interruptible(solver)
        assert solve_before(solver, [], time.monotonic() + 60) is True
        assert solve_before(solver, [-2], time.monotonic() + 60) is False


def test_the_kept_extension_has_the_shortest_lemma_and_excludes_the_candidate(monkeypatch):
    """Best of EXTENSIONS_TRIED extensions: it agrees with the bad colouring on G, its lemma has
    no more copies than the edge-order extension's, and no copy lies inside G (G is excluded)."""
    from ramseygadgets.search import cegar
    from ramseygadgets.search.oracle import extend_red_mask

    problem = Problem.make("K3", "K4", "blue-determiner")
    n = 8
    (layout,) = layouts(problem.kind, n)
    finder = LayoutFinder(problem, n, layout, engine="lazy")
    kn, rng, checked, shorter = finder.kn, random.Random(5), 0, 0
    for _ in range(40):
        mask = sum(1 << t for t in range(kn.m) if t == 0 or rng.random() < 0.6)
        red = finder.oracle.red_mask(mask, finder.bad_literals[0])
        if red is None:
            continue
        red &= mask
        plain = extend_red_mask(finder.copies, mask, red)
        extended, (f_idx, h_idx) = finder._shortest_extension(mask, red)
        assert extended & mask == red
        plain_size = sum(map(len, finder.model.lemma_copies(plain)))
        assert len(f_idx) + len(h_idx) <= plain_size
        shorter += len(f_idx) + len(h_idx) < plain_size
        copies = [finder.copies.f_masks[i] for i in f_idx] + [
            finder.copies.h_masks[i] for i in h_idx
        ]
        assert all(copy & ~mask for copy in copies)
        monkeypatch.setattr(cegar, "EXTENSIONS_TRIED", 1)
        assert finder._shortest_extension(mask, red)[0] == plain
        monkeypatch.setattr(cegar, "EXTENSIONS_TRIED", 3)
        checked += 1
    finder.close()
    assert checked > 10 and shorter > 0


def test_a_search_is_repeatable():
    """The shuffled extensions are seeded: the same search twice learns the same lemmas."""
    problem = Problem.make("K3", "K4", "blue-determiner")
    (layout,) = layouts(problem.kind, 11)
    runs = []
    for _ in range(2):
        with LayoutFinder(problem, 11, layout, engine="lazy", record_lemmas=True) as finder:
            finder.find()
            runs.append((finder.stats.candidates, finder.model.lemmas))
    assert runs[0][0] > 10 and runs[0] == runs[1]
