"""Training problems: from generated problem sets, and a seeded, unlimited procedural stream.

Every source yields :class:`TrainingItem` (a problem with its proven minimal size and a
minimal solution) and drops problems equivalent to a benchmark problem
(:mod:`ramseygadgets.training.leakage`).

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

Problems that are benchmark-equivalent are never candidates; those without a solution within
``max_size`` (or not solved within ``solve_timeout``) are remembered and redrawn from the RNG;
the stream ends (``StreamExhausted``) only when no problem of the pool is left.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ramseygadgets.coloring_spec import ColoringSpec
from ramseygadgets.errors import RamseyGadgetsError
from ramseygadgets.gadgets import Candidate, GadgetKind
from ramseygadgets.minimal import solve_minimal
from ramseygadgets.problem import Problem
from ramseygadgets.problemsets import (
    ProblemSetPlan,
    expand_patterns,
    load_generated,
    load_polynomial_pairs,
    pair_problems,
    parse_gadgets,
    read_results,
    spec_problems,
)
from ramseygadgets.training.leakage import ProblemKey, is_benchmark_equivalent, problem_key
from ramseygadgets.verify import verify

__all__ = [
    "DEFAULT_POOL",
    "STREAM_COLORS",
    "TrainingDataError",
    "StreamExhausted",
    "TrainingItem",
    "StreamConfig",
    "pool_problems",
    "ProblemStream",
    "SetSelection",
    "problem_set_problems",
    "untrusted",
]

#: Colour counts the stream draws (three colours multiply the pool: keep it small).
STREAM_COLORS = (2, 3)

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
class TrainingItem:
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
        if self.max_size > 10:
            raise TrainingDataError(
                f"max-size {self.max_size} is too large for on-the-fly solving (at most 10)"
            )
        if not (math.isfinite(self.solve_timeout) and self.solve_timeout > 0):
            raise TrainingDataError(
                f"--solve-timeout must be a finite number of seconds > 0, got {self.solve_timeout}"
            )


def pool_problems(config: StreamConfig) -> list[list[Problem]]:
    """Per ordered pair (F, H) of the pool, or per multiset of ``config.colors`` patterns, the
    non-benchmark problems the rules allow."""
    patterns = expand_patterns(config.pool)
    if not patterns:
        raise TrainingDataError("the pattern pool is empty")
    wanted = parse_gadgets(config.gadgets)
    groups = []
    if config.colors == 2:
        polynomial = load_polynomial_pairs(config.polynomial_pairs)
        for F in patterns:
            for H in patterns:
                plan = ProblemSetPlan()
                pair_problems(F, H, wanted, polynomial, plan)
                groups.append([p for p in plan.problems if not is_benchmark_equivalent(p)])
    else:
        for chosen in itertools.combinations_with_replacement(patterns, config.colors):
            plan = ProblemSetPlan()
            spec_problems(ColoringSpec.of(*chosen), wanted, plan)
            groups.append(plan.problems)
    return [g for g in groups if g]


class ProblemStream:
    """Seeded, unlimited stream of training problems (module docs).  Iterate it."""

    def __init__(self, config: StreamConfig | None = None) -> None:
        self.config = config or StreamConfig()
        self.rng = random.Random(self.config.seed)
        self.pairs = pool_problems(self.config)
        self.solved: dict[ProblemKey, TrainingItem] = {}
        self.dropped: dict[ProblemKey, str] = {}
        self.total = len({problem_key(p) for pair in self.pairs for p in pair})

    def __iter__(self) -> Iterator[TrainingItem]:
        while True:
            yield self.next_problem()

    def next_problem(self) -> TrainingItem:
        """The next draw from the stream's own RNG (see :meth:`draw`)."""
        return self.draw(self.rng)

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
        found = TrainingItem(problem, size, result.candidate, f"stream:seed={cfg.seed}")
        self.solved[key] = found
        return found


@dataclass
class SetSelection:
    """Training problems read from generated problem sets, and what was left out."""

    problems: list[TrainingItem] = field(default_factory=list)
    excluded: list[dict[str, Any]] = field(default_factory=list)


def problem_set_problems(paths: Sequence[str | Path]) -> SetSelection:
    """The problems with a solution of generated problem sets (``generate`` output directories
    or their ``problems.jsonl``; any number of colours, one forbidden pattern per colour),
    without benchmark-equivalent ones.  Nothing read back is trusted: every solution is verified
    again and its minimal size is used only with a proof that checks (:func:`untrusted`);
    every record left out is listed with its reason."""
    out = SetSelection()
    seen: set[ProblemKey] = set()
    for path in paths:
        if not Path(path).exists():
            raise TrainingDataError(f"problem set {path} does not exist")
        proofs = _proof_records(Path(path))
        for problem, candidate, record in load_generated(path):
            why = untrusted(problem, candidate, record, proofs)
            key = problem_key(problem)
            if why is None and is_benchmark_equivalent(problem):
                why = "benchmark-equivalent"
            elif why is None and key in seen:
                why = "duplicate"
            if why is not None:
                out.excluded.append({"problem": str(record.get("id", problem.id)), "reason": why})
                continue
            assert candidate is not None
            seen.add(key)
            out.problems.append(TrainingItem(problem, candidate.graph.n, candidate, str(path)))
    return out


def _proof_records(path: Path) -> dict[str, dict[str, Any]] | None:
    """The checked proof records of a ``generate`` folder (its ``results.jsonl``, each record
    checked by :func:`~ramseygadgets.problemsets.check_record`), or ``None`` for a bare file."""
    folder = path if path.is_dir() else path.parent
    results = folder / "results.jsonl"
    return read_results(results) if results.exists() else None


def untrusted(
    problem: Problem,
    candidate: Candidate | None,
    record: dict[str, Any],
    proofs: dict[str, dict[str, Any]] | None,
) -> str | None:
    """Why a problem-set record may not become a training problem (``None``: it may): it needs
    one pattern per colour, a solution the exact verifier accepts, and a proof that no solution
    has fewer vertices — ``proven_minimal`` with lower bound = the solution's size, and, where the
    search's levels are recorded, every vertex count below it searched and found empty."""
    if not problem.spec.is_simple:
        return "several patterns in one colour"
    if candidate is None:
        return "no solution"
    verdict = verify(problem, candidate)
    if not verdict.correct:
        return f"its solution fails the verifier: {verdict.reason}"
    n = candidate.graph.n
    if record.get("min_vertices") not in (None, n):
        return f"min_vertices {record['min_vertices']} is not its solution's size {n}"
    if proofs is not None and problem.id not in proofs:
        return "no checked proof record in the set's results.jsonl"
    proof = proofs[problem.id] if proofs is not None else record
    if proof.get("proven_minimal") is not True or proof.get("lower_bound") != n:
        return f"no proof that none is smaller than its solution's {n} vertices"
    return _levels_problem(problem, proof, n)


def _levels_problem(problem: Problem, proof: dict[str, Any], n: int) -> str | None:
    """Why the recorded levels do not show "none below n" (``None``: they do, or none recorded)."""
    levels = proof.get("levels")
    if not levels:
        return None
    outcomes = {level.get("n"): level.get("outcome") for level in levels if isinstance(level, dict)}
    smallest = 2 if problem.kind is GadgetKind.DETERMINER else 3
    empty = [k for k in range(smallest, n) if outcomes.get(k) != "none"]
    if empty:
        return f"its proof claims none below {n} vertices but does not show it on {empty[0]}"
    return None
