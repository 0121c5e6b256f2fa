"""Training problems from generated problem sets (``train-data --from``): every solution
verified again, its minimal size used only with a proof that checks, and no problem equivalent
to a published problem (:mod:`ramseygadgets.problems.leakage`: one of the 70, and by default one of the
extended set).  The procedural stream is
:mod:`ramseygadgets.problemsets.stream`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ramseygadgets.core.gadgets import Candidate
from ramseygadgets.problems.leakage import (
    EXTENDED_SET,
    PAPER_SET,
    ProblemKey,
    problem_key,
    published_set,
)
from ramseygadgets.problems.problem import Problem
from ramseygadgets.problemsets import load_generated
from ramseygadgets.problemsets.stream import TrainingDataError, TrainingItem
from ramseygadgets.verification.proofs import proof_problem, proof_records
from ramseygadgets.verification.verifier import verify

__all__ = [
    "EXCLUDED_REASONS",
    "SetSelection",
    "problem_set_problems",
    "untrusted",
]


#: The reason a record equivalent to a published problem is left out with, per published set.
EXCLUDED_REASONS = {PAPER_SET: "benchmark-equivalent", EXTENDED_SET: "extended-equivalent"}


@dataclass
class SetSelection:
    """Training problems read from generated problem sets, and what was left out."""

    problems: list[TrainingItem] = field(default_factory=list)
    excluded: list[dict[str, Any]] = field(default_factory=list)


def problem_set_problems(
    paths: Sequence[str | Path], include_extended: bool = False
) -> SetSelection:
    """The problems with a solution of generated problem sets (``generate`` output directories
    or their ``problems.jsonl``; any number of colours, one forbidden pattern per colour),
    without published ones: none equivalent to one of the 70 (``benchmark-equivalent``) nor,
    unless ``include_extended``, to an extended problem (``extended-equivalent``).  Nothing read
    back is trusted: every solution is verified again and its minimal size is used only with a
    proof that checks (:func:`untrusted`); every record left out is listed with its reason."""
    out = SetSelection()
    seen: set[ProblemKey] = set()
    for path in paths:
        if not Path(path).exists():
            raise TrainingDataError(f"problem set {path} does not exist")
        proofs = proof_records(path)
        for problem, candidate, record in load_generated(path):
            why = untrusted(problem, candidate, record, proofs)
            key = problem_key(problem)
            published = published_set(problem) if why is None else None
            if published == PAPER_SET or (published == EXTENDED_SET and not include_extended):
                why = EXCLUDED_REASONS[published]
            elif why is None and key in seen:
                why = "duplicate"
            if why is not None:
                out.excluded.append({"problem": str(record.get("id", problem.id)), "reason": why})
                continue
            assert candidate is not None
            seen.add(key)
            out.problems.append(TrainingItem(problem, candidate.graph.n, candidate, str(path)))
    return out


def untrusted(
    problem: Problem,
    candidate: Candidate | None,
    record: dict[str, Any],
    proofs: dict[str, dict[str, Any]] | None,
) -> str | None:
    """Why a problem-set record may not become a training problem (``None``: it may): it needs
    one pattern per colour, a solution the exact verifier accepts, and a proof that no solution
    has fewer vertices (:func:`~ramseygadgets.verification.proofs.proof_problem`, the rule ``eval --dataset``
    applies too: ``proven_minimal`` with lower bound = the solution's size, and, where the
    search's levels are recorded, every vertex count below it searched and found empty)."""
    if not problem.spec.is_simple:
        return "several patterns in one colour"
    if candidate is None:
        return "no solution"
    verdict = verify(problem, candidate)
    if not verdict.correct:
        return f"its solution fails the verifier: {verdict.reason}"
    return proof_problem(problem, candidate.graph.n, record, proofs)
