"""Training problems: from generated problem sets, and a seeded, unlimited procedural stream.

Every source yields :class:`TrainingProblem` (a problem with its proven minimal size and a
minimal solution) and drops problems equivalent to a benchmark problem
(:mod:`ramseygadgets.training.leakage`).

The stream (:class:`ProblemStream`) draws with replacement, from one seeded RNG:

1. a pair (F, H), F and H independently and uniformly from the pattern pool;
2. a gadget type uniformly among those the spec's rules allow for the pair (the rules of
   ``ramseygadgets generate``: :func:`ramseygadgets.problemsets.pair_problems`) and the
   requested types;
3. the problem is kept when its proven minimal size lies in ``[min_size, max_size]`` (the
   difficulty); it is solved once by the search engine (:func:`ramseygadgets.search.solve`)
   and remembered, so the stream costs one search per distinct problem.

Problems that are benchmark-equivalent are never candidates; those without a solution within
``max_size`` (or not solved within ``solve_timeout``) are remembered and redrawn from the RNG;
the stream ends (``StreamExhausted``) only when no problem of the pool is left.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ramseygadgets.catalog import Problem
from ramseygadgets.errors import RamseyGadgetsError
from ramseygadgets.gadgets import Candidate
from ramseygadgets.training.leakage import ProblemKey, is_benchmark_equivalent, problem_key

__all__ = [
    "DEFAULT_POOL",
    "TrainingDataError",
    "StreamExhausted",
    "TrainingProblem",
    "StreamConfig",
    "pool_problems",
    "ProblemStream",
    "SetSelection",
    "problem_set_problems",
]


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
    """The training-data request cannot be met."""


class StreamExhausted(TrainingDataError):
    """No problem of the pool meets the limits (all drawn ones were dropped)."""


@dataclass(frozen=True)
class TrainingProblem:
    """A training problem with its proven minimal size and a minimal solution."""

    problem: Problem
    min_vertices: int
    solution: Candidate
    source: str


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

    def __post_init__(self) -> None:
        if not 2 <= self.min_size <= self.max_size:
            raise TrainingDataError(
                f"size limits must satisfy 2 <= min-size <= max-size, got {self.min_size}..{self.max_size}"
            )
        if self.max_size > 10:
            raise TrainingDataError(
                f"max-size {self.max_size} is too large for on-the-fly solving (at most 10)"
            )
        if self.solve_timeout <= 0:
            raise TrainingDataError(f"solve timeout must be positive, got {self.solve_timeout}")


def pool_problems(config: StreamConfig) -> list[list[Problem]]:
    """Per ordered pair (F, H) of the pool, the non-benchmark problems the rules allow."""
    from ramseygadgets.problemsets import (
        ProblemSetPlan,
        expand_patterns,
        load_polynomial_pairs,
        pair_problems,
        parse_gadgets,
    )

    patterns = expand_patterns(config.pool)
    if not patterns:
        raise TrainingDataError("the pattern pool is empty")
    wanted = parse_gadgets(config.gadgets)
    polynomial = load_polynomial_pairs(config.polynomial_pairs)
    pairs = []
    for F in patterns:
        for H in patterns:
            plan = ProblemSetPlan()
            pair_problems(F, H, wanted, polynomial, plan)
            kept = [p for p in plan.problems if isinstance(p, Problem)]
            pairs.append([p for p in kept if not is_benchmark_equivalent(p)])
    return [p for p in pairs if p]


class ProblemStream:
    """Seeded, unlimited stream of training problems (module docs).  Iterate it."""

    def __init__(self, config: StreamConfig | None = None) -> None:
        self.config = config or StreamConfig()
        self.rng = random.Random(self.config.seed)
        self.pairs = pool_problems(self.config)
        self.solved: dict[ProblemKey, TrainingProblem] = {}
        self.dropped: dict[ProblemKey, str] = {}
        self.total = len({problem_key(p) for pair in self.pairs for p in pair})

    def __iter__(self) -> Iterator[TrainingProblem]:
        while True:
            yield self.next_problem()

    def next_problem(self) -> TrainingProblem:
        """The next draw from the stream's own RNG (see :meth:`draw`)."""
        return self.draw(self.rng)

    def draw(self, rng: random.Random) -> TrainingProblem:
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

    def _solve(self, problem: Problem) -> TrainingProblem | None:
        from ramseygadgets.search import solve

        key = problem_key(problem)
        if key in self.solved or key in self.dropped:
            return self.solved.get(key)
        cfg = self.config
        result = solve(problem, max_vertices=cfg.max_size, timeout=cfg.solve_timeout, seed=0)
        size = result.candidate.graph.n if result.candidate is not None else None
        if (
            result.candidate is None
            or size is None
            or result.lower_bound != size
            or size < cfg.min_size
        ):
            self.dropped[key] = result.status
            return None
        found = TrainingProblem(problem, size, result.candidate, f"stream:seed={cfg.seed}")
        self.solved[key] = found
        return found


@dataclass
class SetSelection:
    """Training problems read from generated problem sets, and what was left out."""

    problems: list[TrainingProblem] = field(default_factory=list)
    excluded: list[dict[str, Any]] = field(default_factory=list)


def problem_set_problems(paths: list[str | Path]) -> SetSelection:
    """The two-colour problems with a solution of generated problem sets (``generate`` output
    directories or their ``problems.jsonl``), without benchmark-equivalent ones."""
    from ramseygadgets.problemsets import load_generated

    out = SetSelection()
    seen: set[ProblemKey] = set()
    for path in paths:
        if not Path(path).exists():
            raise TrainingDataError(f"problem set {path} does not exist")
        for problem, candidate, record in load_generated(path):
            if not isinstance(problem, Problem) or candidate is None:
                why = "multi-colour problem" if candidate is not None else "no solution"
                out.excluded.append({"problem": str(record.get("id")), "reason": why})
                continue
            key = problem_key(problem)
            if is_benchmark_equivalent(problem):
                out.excluded.append({"problem": problem.id, "reason": "benchmark-equivalent"})
            elif key in seen:
                out.excluded.append({"problem": problem.id, "reason": "duplicate"})
            else:
                seen.add(key)
                out.problems.append(
                    TrainingProblem(problem, candidate.graph.n, candidate, str(path))
                )
    return out
