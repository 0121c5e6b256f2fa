"""Grades re-derived from the answers: what a report counts, whatever ``samples.jsonl`` says.

A recorded sample claims a grade (``correct``, the optimum, ``minimal``, ``excess_*``,
``discovery``, ``recheck``); :class:`Regrader` decides it again with the code ``eval`` grades with
(:mod:`.grading`):

1. the answer is the recorded reply (``response`` and ``reasoning``) parsed again with the
   project's parser, as ``eval`` graded it, or, for a record without the reply, the recorded
   ``candidate`` (read back and verified exactly); a sample with a backend ``error`` has no
   answer;
2. ``minimal`` and the excess come from the proven optimum of the problem set the run used
   (:meth:`~ramseygadgets.verification.selection.Selection.optimum`), never from the record;
3. a discovery is rechecked again by the independent method (:mod:`ramseygadgets.verification.recheck`).

A sample of a problem the run's problem set does not know cannot be verified: it counts as not
correct (a non-correct recorded grade is kept as it is: it claims nothing).  A sample whose
recorded grade disagrees with the re-derived one is counted by the re-derived grade and
returned as a :class:`Dispute` naming its file and line.

Verification is cached per (problem, canonical candidate) and per (problem, reply): identical
answers (the same shipped solution, the same wrong guess) are verified once.  What the report
still takes from the file: the reply itself, the backend error, ``finish_reason``, token usage,
latency and rounds (what only the backend saw).
"""

from __future__ import annotations

import gc
import json
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

from ramseygadgets.core.errors import RamseyGadgetsError
from ramseygadgets.core.gadgets import Candidate
from ramseygadgets.core.graphs import DEFAULT_MAX_VERTICES
from ramseygadgets.problems.problem import Problem
from ramseygadgets.runs.grade import Grade
from ramseygadgets.runs.grading import grade, grade_candidate, size_fields
from ramseygadgets.runs.samples import Run, Sample, problem_of_id
from ramseygadgets.runs.sizes import SizeGrade
from ramseygadgets.verification.selection import Optimum, Selection

__all__ = ["COMPARED_FIELDS", "Answer", "Dispute", "Regrader"]

#: The recorded fields compared with the re-derived ones (``correct`` always; the others when
#: the record has them: run folders written before the size grades lack them).
COMPARED_FIELDS = (
    "correct",
    "optimum_vertices",
    "optimum_edges",
    "minimal",
    "excess_vertices",
    "excess_edges",
    "discovery",
    "recheck",
)


@dataclass(frozen=True)
class Dispute:
    """A sample whose recorded grade disagrees with the re-derived one: ``differences`` holds
    (field, recorded, re-derived) for each field that differs."""

    where: str
    model: str
    setting: str
    problem_id: str
    run: int
    differences: tuple[tuple[str, Any, Any], ...]

    def text(self, side: int) -> str:
        """``field = value; ...`` of the recorded (``side`` 1) or re-derived (2) values."""
        return "; ".join(f"{d[0]} = {json.dumps(d[side])}" for d in self.differences)

    def to_json(self) -> dict[str, Any]:
        return {
            "where": self.where,
            "model": self.model,
            "setting": self.setting,
            "problem_id": self.problem_id,
            "run": self.run,
            "recorded": {name: old for name, old, _ in self.differences},
            "rederived": {name: new for name, _, new in self.differences},
        }


@dataclass(frozen=True)
class _Context:
    """What grading one run's samples needs: its problem set and the key of that set."""

    problems: Selection | None
    key: str
    model: str
    source: str


#: An answer as the caches know it: ``("candidate", problem id, Candidate)`` or ``("reply",
#: problem id, response, reasoning)``; ``("unreadable", why)``: a recorded candidate that cannot
#: be read back; ``None``: no answer (a backend error, an unknown problem).
Answer = tuple[Any, ...] | None


@dataclass(frozen=True)
class _SetFacts:
    """A problem in a run's set: whether the set has it, its proven optimum, its best known
    solution and that solution's vertex count."""

    in_set: bool
    optimum: Optimum | None
    best: Candidate | None
    min_vertices: int | None


class Regrader:
    """Re-derives sample grades (module docstring), caching every verification."""

    def __init__(self, max_vertices: int = DEFAULT_MAX_VERTICES) -> None:
        self.max_vertices = max_vertices
        self._grades: dict[tuple[Any, ...], Grade] = {}
        self._read: dict[tuple[str, str], tuple[Any, ...]] = {}  # candidate JSON -> Answer
        self._sizes: dict[tuple[str, Any], dict[str, Any]] = {}
        self._problems: dict[tuple[str, str], Problem | None] = {}
        self._set_facts: dict[tuple[str, str], _SetFacts] = {}
        #: Distinct answers verified (or parsed and verified): the rest were cache hits.
        self.verified = 0

    # -- runs -----------------------------------------------------------------------------------
    def runs(self, jobs: Sequence[tuple[Run, str, str]]) -> list[tuple[Run, list[Dispute]]]:
        """Each ``(run, model, key)`` with every sample's grade re-derived against
        ``run.problem_set`` (``key`` names that set in the caches; ``model``: the label its
        disputes are listed under): the answers of all runs are read first, every distinct one
        not yet known is verified once, then each sample is graded from the cache."""
        with _frozen_heap():
            contexts = [
                _Context(run.problem_set, key, model, run.source) for run, model, key in jobs
            ]
            answers = [
                [self._answer(sample, context) for sample in run.samples]
                for (run, _, _), context in zip(jobs, contexts, strict=True)
            ]
            self._verify_new([a for per_run in answers for a in per_run])
            out = []
            for (run, _, _), context, per_run in zip(jobs, contexts, answers, strict=True):
                graded = [
                    self.sample(sample, context, problem, answer)
                    for sample, (problem, answer) in zip(run.samples, per_run, strict=True)
                ]
                disputes = [d for _, d in graded if d is not None]
                out.append((replace(run, samples=[s for s, _ in graded]), disputes))
        return out

    def run(self, run: Run, model: str, key: str) -> tuple[Run, list[Dispute]]:
        """One run (:meth:`runs`)."""
        return self.runs([(run, model, key)])[0]

    def sample(
        self, sample: Sample, context: _Context, problem: Problem | None, answer: Answer
    ) -> tuple[Sample, Dispute | None]:
        """One sample with its re-derived grade, and its dispute if its record disagrees."""
        if problem is None:
            return self._unknown_problem(sample, context)
        verdict = self._verdict(sample, answer)
        sizes = self._size_fields(problem, sample.problem_id, verdict, answer, context)
        record = {**sample.record, **verdict.to_json(), **sizes}
        record["recheck"] = sizes.get("recheck")  # a recorded one is never kept
        known = self._facts(problem, sample.problem_id, context).min_vertices
        min_vertices = sample.min_vertices if known is None else known
        record["min_vertices"] = min_vertices
        regraded = replace(
            sample,
            correct=verdict.correct,
            parse_error=verdict.parse_error,
            parse_error_kind=verdict.parse_error_kind,
            candidate=verdict.candidate,
            reason=verdict.reason,
            witness=verdict.witness,
            check=verdict.check,
            tier=problem.tier,
            gadget=problem.gadget_name,
            min_vertices=min_vertices,
            record=record,
        )
        return regraded, self._dispute(sample, regraded, context)

    # -- the steps ------------------------------------------------------------------------------
    def _problem(self, problem_id: str, context: _Context) -> Problem | None:
        """The problem of the run's set with this id, else the catalog or a colour-spec id."""
        key = (context.key, problem_id)
        if key not in self._problems:
            found = context.problems.by_id.get(problem_id) if context.problems else None
            self._problems[key] = found if found is not None else problem_of_id(problem_id)
        return self._problems[key]

    def _facts(self, problem: Problem, problem_id: str, context: _Context) -> _SetFacts:
        """What the run's set says about a problem (looked up once per set and problem)."""
        key = (context.key, problem_id)
        found = self._set_facts.get(key)
        if found is None:
            problems = context.problems
            if problems is None or problem.id not in problems.by_id:
                found = _SetFacts(False, None, None, None)
            else:
                best = problems.solution(problem)
                optimum, size = problems.optimum(problem), best.graph.n if best else None
                found = _SetFacts(True, optimum, best, size)
            self._set_facts[key] = found
        return found

    def _answer(self, sample: Sample, context: _Context) -> tuple[Problem | None, Answer]:
        """The sample's problem and its answer: the recorded reply parsed again (as ``eval``
        graded it: a candidate edited beside an untouched reply proves nothing), else the
        recorded candidate read back (a record without the reply); ``None`` without one."""
        problem = self._problem(sample.problem_id, context)
        if problem is None or sample.error:
            return problem, None
        recorded = sample.record.get("candidate")
        reasoning = sample.record.get("reasoning")
        text = reasoning if isinstance(reasoning, str) else None
        if isinstance(sample.response, str) or text is not None or recorded is None:
            return problem, ("reply", sample.problem_id, sample.response, text)
        spelled = (sample.problem_id, json.dumps(recorded, sort_keys=True))
        found = self._read.get(spelled)
        if found is None:
            try:
                candidate = Candidate.from_json(
                    recorded, problem.kind, max_vertices=self.max_vertices
                )
            except (RamseyGadgetsError, ValueError, TypeError) as exc:
                found = ("unreadable", str(exc))
            else:
                found = ("candidate", sample.problem_id, candidate)
            self._read[spelled] = found
        return problem, found

    def _verdict(self, sample: Sample, answer: Answer) -> Grade:
        """The grade of an answer (from the cache), of no reply, or of an unreadable one."""
        if answer is None:
            return Grade.no_reply(sample.error or "no reply")
        if answer[0] == "unreadable":
            recorded = sample.record.get("candidate")
            data = dict(recorded) if isinstance(recorded, Mapping) else None
            reason = f"the recorded candidate is unreadable: {answer[1]}"
            return Grade(False, reason, "candidate", data)
        return self._grades[answer]

    def _verify_new(self, answers: Sequence[tuple[Problem | None, Answer]]) -> None:
        """Verify every distinct answer not in the cache (:func:`_grade_answer`)."""
        for problem, answer in answers:
            if answer is None or answer[0] == "unreadable" or problem is None:
                continue
            if answer not in self._grades:
                self._grades[answer] = _grade_answer(problem, answer, self.max_vertices)
                self.verified += 1

    def _size_fields(
        self, problem: Problem, problem_id: str, verdict: Grade, answer: Any, context: _Context
    ) -> dict[str, Any]:
        """:func:`~.grading.size_fields` against the run's set (with the recheck of a
        discovery), cached per set and answer; a problem outside the set has no optimum and
        no best known solution to beat."""
        key = None if answer is None or answer[0] == "unreadable" else (context.key, answer)
        found = self._sizes.get(key) if key is not None else None
        if found is not None:
            return found
        facts = self._facts(problem, problem_id, context)
        if facts.in_set:
            found = size_fields(problem, verdict, facts.optimum, facts.best)
        else:
            found = {**SizeGrade.of(verdict, None).to_json(), "discovery": None}
        if key is not None:
            self._sizes[key] = found
        return found

    def _unknown_problem(self, sample: Sample, context: _Context) -> tuple[Sample, Dispute | None]:
        """A problem nobody can name: its answer cannot be verified, so it is not correct."""
        if not sample.correct:
            return sample, None
        reason = f"problem {sample.problem_id} is unknown: the answer cannot be verified"
        record = {**sample.record, "correct": False, "reason": reason, "discovery": None}
        for name in ("minimal", "excess_vertices", "excess_edges", "recheck"):  # not graded
            record[name] = None
        regraded = replace(sample, correct=False, reason=reason, record=record)
        return regraded, self._dispute(sample, regraded, context)

    def _dispute(self, old: Sample, new: Sample, context: _Context) -> Dispute | None:
        """The fields the record has (``correct`` always) whose value differs."""
        names = ["correct", *(name for name in COMPARED_FIELDS[1:] if name in old.record)]
        pairs = [(name, _field(old, name), _field(new, name)) for name in names]
        differences = tuple(pair for pair in pairs if not _same(pair[1], pair[2]))
        if not differences:
            return None
        where = old.where or f"{context.source} ({old.problem_id}, {old.setting}, run {old.run})"
        return Dispute(where, context.model, old.setting, old.problem_id, old.run, differences)


def _grade_answer(problem: Problem, answer: tuple[Any, ...], max_vertices: int) -> Grade:
    """The grade of an answer: a candidate verified exactly, a reply parsed again and
    verified (:mod:`.grading`, as ``eval`` grades)."""
    if answer[0] == "candidate":
        return grade_candidate(problem, answer[2])
    return grade(problem, answer[2], answer[3], max_vertices)


@contextmanager
def _frozen_heap() -> Iterator[None]:
    """The objects alive now left out of garbage collection while grading: a report holds
    every record in memory, and collecting them again and again took half the time."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def _field(sample: Sample, name: str) -> Any:
    if name == "correct":
        return sample.correct
    return sample.record.get(name)


def _same(a: Any, b: Any) -> bool:
    """Equal JSON values, a boolean never equal to a number."""
    if a is b:
        return True
    if isinstance(a, bool) != isinstance(b, bool):
        return False
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return set(a) == set(b) and all(_same(a[k], b[k]) for k in a)
    return bool(a == b)
