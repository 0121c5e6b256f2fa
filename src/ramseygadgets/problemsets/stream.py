"""The seeded, unlimited procedural stream of problems, each solved with its proof of
minimality: the source of ``train-data --stream`` (training) and ``eval --fresh`` (fresh
evaluation problems).

Every item is a :class:`TrainingItem` (a problem with its proven minimal size, a minimal
solution and the search's result).  Problems equivalent to a published problem are never
candidates (:mod:`ramseygadgets.leakage`): by default the 70 benchmark problems; ``eval
--fresh`` also leaves out the extended set.

The stream (:class:`ProblemStream`) draws with replacement, from one seeded RNG:

1. the colours' patterns: with two colours a pair (F, H), F and H independently and uniformly
   from the pattern pool; with c ≥ 3 colours a multiset of c patterns of the pool (colour
   order does not matter: every colour's determiner is a separate problem);
2. a gadget type uniformly among those the rules of ``ramseygadgets generate`` allow
   (:func:`ramseygadgets.problemsets.pair_problems`, :func:`~ramseygadgets.problemsets.spec_problems`)
   and the requested types;
3. the problem is kept when its proven minimal size lies in ``[min_size, max_size]`` (the
   difficulty); it is solved once (:func:`ramseygadgets.minimal.solve_minimal`) and
   remembered, so the stream costs one search per distinct problem.

Problems without a solution within ``max_size`` (or not solved within ``solve_timeout``) are
remembered and redrawn from the RNG; the stream ends (``StreamExhausted``) only when no problem
of the pool is left.  :meth:`ProblemStream.distinct` draws without repeats.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field

from ramseygadgets.coloring_spec import ColoringSpec
from ramseygadgets.errors import RamseyGadgetsError
from ramseygadgets.gadgets import Candidate
from ramseygadgets.leakage import ProblemKey, benchmark_keys, problem_key
from ramseygadgets.minimal import MinimalResult, solve_minimal
from ramseygadgets.problem import Problem
from ramseygadgets.problemsets.patterns import expand_patterns, load_polynomial_pairs
from ramseygadgets.problemsets.plan import (
    ProblemSetPlan,
    pair_problems,
    parse_gadgets,
    spec_problems,
)

__all__ = [
    "DEFAULT_POOL",
    "STREAM_COLORS",
    "MAX_SIZE",
    "TrainingDataError",
    "StreamExhausted",
    "TrainingItem",
    "StreamConfig",
    "pool_problems",
    "ProblemStream",
]

#: Colour counts the stream draws (three colours multiply the pool: keep it small).
STREAM_COLORS = (2, 3)
#: The largest ``max_size`` solved on the fly.
MAX_SIZE = 10

#: Default pattern pool: the paper's eight patterns plus a few small families.
DEFAULT_POOL: tuple[str, ...] = (
    "P3",
    "K1,3",
    "K3",
    "P4",
    "TK3",
    "C4",
    "K4-e",
    "K4",
    "K1,4",
    "P5",
    "C5",
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
    result: MinimalResult | None = field(default=None, compare=False, repr=False)


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
    :func:`~ramseygadgets.leakage.problem_key`; default: the 70 benchmark problems)."""
    excluded = benchmark_keys() if exclude is None else exclude
    patterns = expand_patterns(config.pool)
    if not patterns:
        raise TrainingDataError("the pattern pool is empty")
    wanted = parse_gadgets(config.gadgets)
    plans = []
    if config.colors == 2:
        polynomial = load_polynomial_pairs(config.polynomial_pairs)
        for F in patterns:
            for H in patterns:
                plans.append(ProblemSetPlan())
                pair_problems(F, H, wanted, polynomial, plans[-1])
    else:
        for chosen in itertools.combinations_with_replacement(patterns, config.colors):
            plans.append(ProblemSetPlan())
            spec_problems(ColoringSpec.of(*chosen), wanted, plans[-1])
    groups = [[p for p in plan.problems if problem_key(p) not in excluded] for plan in plans]
    return [g for g in groups if g]


class ProblemStream:
    """Seeded, unlimited stream of solved problems (module docs).  Iterate it.

    ``exclude``: canonical forms of problems never drawn (default: the 70 benchmark problems;
    :func:`~ramseygadgets.leakage.published_keys` adds the extended set)."""

    def __init__(
        self, config: StreamConfig | None = None, exclude: Collection[ProblemKey] | None = None
    ) -> None:
        self.config = config or StreamConfig()
        self.rng = random.Random(self.config.seed)
        self.pairs = pool_problems(self.config, exclude)
        self.solved: dict[ProblemKey, TrainingItem] = {}
        self.dropped: dict[ProblemKey, str] = {}
        self.total = len({problem_key(p) for pair in self.pairs for p in pair})

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
            pair = rng.choice(self.pairs)
            problem = rng.choice(pair)
            found = self._solve(problem)
            if found is not None:
                return found
        raise StreamExhausted(
            f"no problem of the pool has a minimal size in {self.config.min_size}..{self.config.max_size} "
            f"(solved within {self.config.solve_timeout:g} s); widen the pool or the size limits"
        )

    def _solve(self, problem: Problem) -> TrainingItem | None:
        key = problem_key(problem)
        if key in self.solved or key in self.dropped:
            return self.solved.get(key)
        cfg = self.config
        result = solve_minimal(
            problem, max_vertices=cfg.max_size, timeout=cfg.solve_timeout, seed=0
        )
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
