"""Training problems from generated problem sets (``train-data --from``): every solution
verified again, its minimal size used only with a proof that checks, and no problem equivalent
to a benchmark problem (:mod:`ramseygadgets.leakage`).  The procedural stream is
:mod:`ramseygadgets.problemsets.stream`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ramseygadgets.gadgets import Candidate, GadgetKind
from ramseygadgets.leakage import ProblemKey, is_benchmark_equivalent, problem_key
from ramseygadgets.problem import Problem
from ramseygadgets.problemsets import load_generated, read_results
from ramseygadgets.problemsets.stream import TrainingDataError, TrainingItem
from ramseygadgets.verify import verify

__all__ = [
    "SetSelection",
    "problem_set_problems",
    "untrusted",
]


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
