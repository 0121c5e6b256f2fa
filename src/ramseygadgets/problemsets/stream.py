"""The seeded, unlimited procedural stream of problems, each solved with its proof of
minimality: the source of ``train-data --stream`` (training) and ``eval --fresh`` (fresh
evaluation problems).

Every item is a :class:`TrainingItem` (a problem with its proven minimal size, a minimal
solution and the search's result).  Problems equivalent to a published problem are never
candidates (:mod:`ramseygadgets.problems.leakage`): by default neither the 70 benchmark problems nor the
extended set (``--set extended``); ``StreamConfig(include_extended=True)`` (``train-data
--include-extended``) leaves out only the 70.  ``eval --fresh`` always leaves out both.

The default pool (:data:`DEFAULT_POOL`) is the paper's eight patterns (every connected graph on
3 or 4 vertices) and every connected graph on 5 vertices: the published sets hold nearly every
small problem of the eight (the atlas' pairs, the stars against 5-vertex graphs, the
three-colour problems of P3, K1,3, K3, P4, C4), so the 5-vertex graphs are where unpublished
problems of small minimal size are (the yield: ``bench/stream_yield.py``, docs/training.md).

The stream (:class:`ProblemStream`) draws with replacement, from one seeded RNG:

1. the colours' patterns: with two colours a pair (F, H), F and H independently and uniformly
   from the pattern pool; with c ≥ 3 colours a multiset of c patterns of the pool (colour
   order does not matter: every colour's determiner is a separate problem);
2. a gadget type uniformly among those the rules of ``ramseygadgets generate`` allow
   (:func:`ramseygadgets.problemsets.pair_problems`, :func:`~ramseygadgets.problemsets.spec_problems`)
   and the requested types;
3. the problem is kept when its proven minimal size lies in ``[min_size, max_size]`` (the
   difficulty); it is solved once (:func:`ramseygadgets.search.minimal.solve_minimal`) and
   remembered, so the stream costs one search per distinct problem.

Problems without a solution within ``max_size`` (or not solved within ``solve_timeout``) are
remembered and redrawn from the RNG; the stream ends (``StreamExhausted``) only when no problem
of the pool is left.  :meth:`ProblemStream.distinct` draws without repeats.
"""

from __future__ import annotations

import collections
import itertools
import math
import random
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass, field, replace

from ramseygadgets.colorings.spec import ColoringSpec
from ramseygadgets.core.errors import RamseyGadgetsError
from ramseygadgets.core.gadgets import Candidate
from ramseygadgets.core.patterns import Pattern
from ramseygadgets.problems.leakage import ProblemKey, excluded_keys, excluded_sets, problem_key
from ramseygadgets.problems.problem import Problem
from ramseygadgets.problemsets.patterns import expand_patterns, load_polynomial_pairs
from ramseygadgets.problemsets.plan import (
    ProblemSetPlan,
    pair_problems,
    parse_gadgets,
    spec_problems,
)
from ramseygadgets.search.minimal import solve_minimal
from ramseygadgets.search.options import SearchOptions
from ramseygadgets.search.solve import SearchResult

__all__ = [
    "DEFAULT_POOL",
    "STREAM_COLORS",
    "MAX_SIZE",
    "TrainingDataError",
    "StreamExhausted",
    "TrainingItem",
    "StreamConfig",
    "pattern_weights",
    "pool_groups",
    "pool_problems",
    "ProblemStream",
]

#: Colour counts the stream draws (three colours multiply the pool: keep it small).
STREAM_COLORS = (2, 3)
#: The largest ``max_size`` solved on the fly.
MAX_SIZE = 10

#: Default pattern pool: the paper's eight patterns (every connected graph on 3 or 4 vertices)
#: and every connected graph on 5 vertices (21, K1,4, P5 and C5 among them).
DEFAULT_POOL: tuple[str, ...] = (
    "P3",
    "K1,3",
    "K3",
    "P4",
    "TK3",
    "C4",
    "K4-e",
    "K4",
    "connected:5",
)


class TrainingDataError(RamseyGadgetsError):
    """The request for stream problems (training data, fresh problems) cannot be met."""


class StreamExhausted(TrainingDataError):
    """No problem of the pool meets the limits (all drawn ones were dropped)."""


@dataclass(frozen=True)
class TrainingItem:
    """A problem with its proven minimal size and a minimal solution; ``result``: the search
    that found it (the stream's items), ``None`` for one read from a problem set."""

    problem: Problem
    min_vertices: int
    solution: Candidate
    source: str
    result: SearchResult | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class StreamConfig:
    """Options of the procedural stream (module docs)."""

    seed: int = 0
    pool: tuple[str, ...] = DEFAULT_POOL
    gadgets: str | None = None
    min_size: int = 3
    max_size: int = 7
    solve_timeout: float = 10.0
    polynomial_pairs: str = "builtin"
    colors: int = 2
    #: Draw problems equivalent to an extended problem too (the 70 stay excluded).
    include_extended: bool = False

    def __post_init__(self) -> None:
        if self.colors not in STREAM_COLORS:
            raise TrainingDataError(
                f"the stream draws problems with {' or '.join(map(str, STREAM_COLORS))} colours, "
                f"got {self.colors}"
            )
        if not 2 <= self.min_size <= self.max_size:
            raise TrainingDataError(
                f"size limits must satisfy 2 <= min-size <= max-size, got {self.min_size}..{self.max_size}"
            )
        if self.max_size > MAX_SIZE:
            raise TrainingDataError(
                f"max-size {self.max_size} is too large for on-the-fly solving (at most {MAX_SIZE})"
            )
        if not (math.isfinite(self.solve_timeout) and self.solve_timeout > 0):
            raise TrainingDataError(
                f"--solve-timeout must be a finite number of seconds > 0, got {self.solve_timeout}"
            )


def pool_problems(
    config: StreamConfig, exclude: Collection[ProblemKey] | None = None
) -> list[list[Problem]]:
    """Per ordered pair (F, H) of the pool, or per multiset of ``config.colors`` patterns, the
    problems the rules allow that are not equivalent to one of ``exclude`` (canonical forms,
    :func:`~ramseygadgets.problems.leakage.problem_key`; default: the published problems the config
    leaves out, :func:`~ramseygadgets.problems.leakage.excluded_keys`: the 70 and the extended set,
    or only the 70 with ``include_extended``)."""
    return [group for _, group in pool_groups(config, exclude)]


def pattern_weights(patterns: Sequence[Pattern]) -> list[float]:
    """The probability of drawing each pattern for one colour: a vertex count uniformly among
    the pool's, then a pattern with that many vertices uniformly (so the paper's two 3-vertex
    patterns are not swamped by the 21 on 5 vertices)."""
    counts = collections.Counter(p.graph.n for p in patterns)
    return [1 / (len(counts) * counts[p.graph.n]) for p in patterns]


def pool_groups(
    config: StreamConfig, exclude: Collection[ProblemKey] | None = None
) -> list[tuple[float, list[Problem]]]:
    """:func:`pool_problems` with each group's weight: the probability that the colours'
    independent draws (:func:`pattern_weights`) give its patterns (in any colour order for a
    multiset); groups left empty by the exclusion are dropped, so the stream draws the others
    in proportion to their weights."""
    excluded = excluded_keys(config.include_extended) if exclude is None else exclude
    patterns = expand_patterns(config.pool)
    if not patterns:
        raise TrainingDataError("the pattern pool is empty")
    weight = pattern_weights(patterns)
    wanted = parse_gadgets(config.gadgets)
    plans: list[tuple[float, ProblemSetPlan]] = []
    if config.colors == 2:
        polynomial = load_polynomial_pairs(config.polynomial_pairs)
        for f, F in enumerate(patterns):
            for h, H in enumerate(patterns):
                plans.append((weight[f] * weight[h], ProblemSetPlan()))
                pair_problems(F, H, wanted, polynomial, plans[-1][1])
    else:
        for chosen in itertools.combinations_with_replacement(range(len(patterns)), config.colors):
            orders = math.factorial(len(chosen))  # colour orders giving this multiset
            for repeats in collections.Counter(chosen).values():
                orders //= math.factorial(repeats)
            plans.append((orders * math.prod(weight[i] for i in chosen), ProblemSetPlan()))
            spec = ColoringSpec.of(*(patterns[i] for i in chosen))
            spec_problems(spec, wanted, plans[-1][1])
    groups = [
        (w, [p for p in plan.problems if problem_key(p) not in excluded]) for w, plan in plans
    ]
    return [(w, g) for w, g in groups if g]


class ProblemStream:
    """Seeded, unlimited stream of solved problems (module docs).  Iterate it.

    ``exclude``: canonical forms of problems never drawn (default: the 70 and the extended
    set, only the 70 with ``config.include_extended``; :func:`pool_problems`).

    ``draws`` counts the problems drawn so far (those solved, dropped or drawn again), the
    measure of the rejection sampling's cost (``bench/stream_yield.py``)."""

    def __init__(
        self, config: StreamConfig | None = None, exclude: Collection[ProblemKey] | None = None
    ) -> None:
        self.config = config or StreamConfig()
        self.rng = random.Random(self.config.seed)
        groups = pool_groups(self.config, exclude)
        self.pairs = [group for _, group in groups]
        self.cum_weights = list(itertools.accumulate(w for w, _ in groups))
        self.solved: dict[ProblemKey, TrainingItem] = {}
        self.dropped: dict[ProblemKey, str] = {}
        self.total = len({problem_key(p) for pair in self.pairs for p in pair})
        self.draws = 0

    def __iter__(self) -> Iterator[TrainingItem]:
        while True:
            yield self.next_problem()

    def next_problem(self) -> TrainingItem:
        """The next draw from the stream's own RNG (see :meth:`draw`)."""
        return self.draw(self.rng)

    def distinct(self) -> Iterator[TrainingItem]:
        """The stream's draws without repeats (no two equivalent problems), in draw order; it
        ends when every problem of the pool is solved or dropped and every solved one was
        yielded."""
        given: set[ProblemKey] = set()
        while True:
            if len(self.solved) + len(self.dropped) == self.total and given >= set(self.solved):
                return
            try:
                item = self.next_problem()
            except StreamExhausted:
                return
            key = problem_key(item.problem)
            if key not in given:
                given.add(key)
                yield item

    def draw(self, rng: random.Random) -> TrainingItem:
        """A problem drawn with ``rng``: rejection sampling over the fixed pool, so the result
        depends only on ``rng`` (and on which problems solve within the limits), not on
        earlier draws.  Raises :class:`StreamExhausted` when no problem of the pool is left."""
        while len(self.dropped) < self.total:
            pair = rng.choices(self.pairs, cum_weights=self.cum_weights)[0]
            problem = rng.choice(pair)
            self.draws += 1
            found = self.solve(problem)
            if found is not None:
                return found
        cfg = self.config
        raise StreamExhausted(
            f"no problem of the pool has a minimal size in {cfg.min_size}..{cfg.max_size} "
            f"(solved within {cfg.solve_timeout:g} s) and is apart from the published sets "
            f"({' and '.join(excluded_sets(cfg.include_extended))}); widen the pool or the size "
            f"limits"
        )

    def solve(self, problem: Problem) -> TrainingItem | None:
        """The stream's item for ``problem`` (``None``: dropped, its proven minimal size is not
        within the limits or it was not solved in time); solved once per equivalence class and
        remembered.  The item names ``problem`` itself even when an equivalent problem (colours
        renamed: an (F,H) red-determiner and the (H,F) blue-determiner) was solved first: the
        same graph with the same designated items is a solution of both, so a draw does not
        depend on which of them came first."""
        key = problem_key(problem)
        if key in self.solved or key in self.dropped:
            found = self.solved.get(key)
            if found is None or found.problem == problem:
                return found
            return replace(found, problem=problem)
        cfg = self.config
        options = SearchOptions(max_vertices=cfg.max_size, timeout=cfg.solve_timeout, seed=0)
        result = solve_minimal(problem, options)
        size = result.candidate.graph.n if result.candidate is not None else None
        if (
            result.candidate is None
            or size is None
            or result.lower_bound != size
            or size < cfg.min_size
        ):
            self.dropped[key] = result.status
            return None
        found = TrainingItem(problem, size, result.candidate, f"stream:seed={cfg.seed}", result)
        self.solved[key] = found
        return found
