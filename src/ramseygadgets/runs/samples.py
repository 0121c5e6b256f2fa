"""The records of a run folder as typed values: :class:`Sample` (one ``samples.jsonl`` line),
:class:`Usage`, :class:`Run` (what one source holds: one model, some settings, ``runs``
repetitions of a list of problems), the sample outcomes and the problem metadata reports group
by.  Format: docs/eval.md, "The run directory"; reading a folder: :mod:`.folder`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from ramseygadgets.core.errors import RamseyGadgetsError
from ramseygadgets.core.gadgets import GadgetType
from ramseygadgets.infra import numbers
from ramseygadgets.problems.catalog import Problem, find_problem, parse_colored_problem
from ramseygadgets.runs.grade import Grade
from ramseygadgets.runs.sizes import DISCOVERY_KINDS, SizeGrade, optimum_of
from ramseygadgets.tools.python import PYTHON_SETTING
from ramseygadgets.verification.selection import Selection

__all__ = [
    "EXAMPLE_HINT",
    "FRESH_SET",
    "OUTCOMES",
    "MULTIROUND",
    "PYTHON_SETTING",
    "SETTINGS_ORDER",
    "TOOL_SETTINGS",
    "Run",
    "RunFormatError",
    "Sample",
    "USAGE_NULLS",
    "Usage",
    "example_hint_applies",
    "problem_colors",
    "problem_gadget",
    "problem_of_id",
    "problem_pair",
    "problem_tier",
    "setting_sort_key",
    "unknown_usage_as_zero",
]

#: The setting with the coloring tool (the paper's multiround setting).
MULTIROUND = "multiround"

#: The settings in display order: the paper's five, then ``python`` (the model runs Python
#: programs in a sandbox, docs/eval.md).  Unknown settings sort after these, alphabetically.
SETTINGS_ORDER = (
    "zero-shot",
    "structural-hint",
    "size-hint",
    "example-hint",
    MULTIROUND,
    PYTHON_SETTING,
)

#: The settings in which the model uses a tool between its calls: the coloring tool, Python.
TOOL_SETTINGS = (MULTIROUND, PYTHON_SETTING)

#: The setting that exists only for the 30 problems with a P3 counterpart.
EXAMPLE_HINT = "example-hint"

#: The ``problem_set`` a run of freshly drawn problems records (``eval --fresh``).
FRESH_SET = "fresh"

#: Sample outcomes, mutually exclusive, in the order they are decided (see :meth:`Sample.outcome`).
OUTCOMES = ("correct", "wrong", "parse-failure", "truncated", "error", "missing")


class RunFormatError(RamseyGadgetsError):
    """A run directory or log cannot be read."""


def setting_sort_key(setting: str) -> tuple[int, str]:
    try:
        return (SETTINGS_ORDER.index(setting), setting)
    except ValueError:
        return (len(SETTINGS_ORDER), setting)


def example_hint_applies(problem_id: str) -> bool:
    """Whether the example-hint setting exists for a problem: F = K1,3 and the P3 problem with the
    same H and gadget type is in the catalog (30 problems).  Problems outside the catalog: False."""
    problem = find_problem(problem_id)
    if problem is None or problem.F.name != "K1,3":
        return False
    return find_problem(f"p3_{problem.H.slug}_{problem.gadget.slug}") is not None


@dataclass(frozen=True)
class Usage:
    """Token counts of one call, or summed over a sample's calls; ``None``: not reported (the
    reference solver, a server without usage), never confused with a measured 0.

    Records hold it as ``usage`` (docs/eval.md); a run whose ``config.json`` lacks
    :data:`USAGE_NULLS` was written when an unreported count was recorded as 0: there a
    ``total_tokens`` of 0 reads as unknown (``zeros_unknown``)."""

    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    reasoning_tokens: int | None = None
    total_tokens: int | None = None

    def plus(self, other: Usage) -> Usage:
        """The counts of two calls together: a count either call did not report is unknown
        (a partial sum would pass an undercount off as a measurement)."""

        def both(a: int | None, b: int | None) -> int | None:
            return None if a is None or b is None else a + b

        return Usage(
            both(self.prompt_tokens, other.prompt_tokens),
            both(self.completion_tokens, other.completion_tokens),
            both(self.reasoning_tokens, other.reasoning_tokens),
            both(self.total_tokens, other.total_tokens),
        )

    def to_json(self) -> dict[str, int | None]:
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "reasoning_tokens": self.reasoning_tokens,
            "total_tokens": self.total_tokens,
        }

    @classmethod
    def from_json(cls, data: Any, *, zeros_unknown: bool = False) -> Usage:
        """A record's ``usage``: a missing, null or non-numeric count is unknown, a missing
        total is prompt + completion when both are known; ``zeros_unknown``: a total of 0 is
        unknown (runs written before unknown counts were recorded as null)."""
        if not isinstance(data, Mapping):
            return cls()

        def num(key: str) -> int | None:
            value = data.get(key)
            if type(value) is float and value.is_integer():  # 1000.0 from a JSON writer
                value = int(value)
            return numbers.count(value)  # in range, else unknown (never an overflow)

        total = num("total_tokens")
        prompt, completion = num("prompt_tokens"), num("completion_tokens")
        if total is None and prompt is not None and completion is not None:
            total = prompt + completion
        if zeros_unknown and total == 0:
            return cls()
        return cls(prompt, completion, num("reasoning_tokens"), total)


#: The ``config.json`` field of a run that records an unreported token count as null (and so a
#: 0 as measured); runs written before it recorded unreported counts as 0.
USAGE_NULLS = "usage_null_when_unknown"


def unknown_usage_as_zero(config: Mapping[str, Any] | None) -> bool:
    """Whether a run with this ``config.json`` recorded unknown token counts as 0."""
    return not (config and config.get(USAGE_NULLS) is True)


@dataclass(frozen=True)
class Sample:
    """One (problem, setting, run) record of a run directory (docs/eval.md), with the fields reports use.

    ``record`` keeps the original JSON object (minus the bulky ``messages``) for the HTML report;
    ``where`` names the file and line it was read from.
    """

    problem_id: str
    setting: str
    run: int
    correct: bool
    tier: str
    gadget: str
    min_vertices: int | None
    usage: Usage = field(default_factory=Usage)
    finish_reason: str | None = None
    error: str | None = None
    parse_error: str | None = None
    candidate: dict[str, Any] | None = None
    reason: str = ""
    witness: dict[str, Any] | None = None
    rounds: int | None = None
    latency_s: float | None = None
    response: str | None = None
    record: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    check: str = ""
    parse_error_kind: str | None = None
    #: Where the record was read: ``samples.jsonl:LINE`` (``None`` when the reader did not say).
    where: str | None = field(default=None, compare=False)

    @property
    def key(self) -> tuple[str, str, int]:
        return (self.problem_id, self.setting, self.run)

    @property
    def grade(self) -> Grade:
        """The sample's grade (:class:`~ramseygadgets.runs.grade.Grade`)."""
        return Grade(
            correct=self.correct,
            reason=self.reason,
            check=self.check,
            candidate=self.candidate,
            witness=self.witness,
            parse_error=self.parse_error,
            parse_error_kind=self.parse_error_kind,
        )

    @cached_property
    def sizes(self) -> SizeGrade:
        """The answer's size and distance to the proven optimum (:mod:`.sizes`; computed once:
        the report's tables and breakdowns ask for it again and again)."""
        return SizeGrade.of(self.grade, optimum_of(self.record))

    @property
    def discovery(self) -> str | None:
        """``new-best-known`` or ``contradicts-proof`` as graded (:mod:`.sizes`), else None."""
        found = self.record.get("discovery")
        return found if found in DISCOVERY_KINDS else None

    @property
    def truncated(self) -> bool:
        return self.finish_reason == "length"

    @property
    def outcome(self) -> str:
        """``correct``; else ``error`` (backend error), ``truncated`` (finish_reason length),
        ``parse-failure`` (answer unreadable) or ``wrong`` (parsed, verifier said no), first match."""
        if self.correct:
            return "correct"
        if self.error:
            return "error"
        if self.truncated:
            return "truncated"
        if self.parse_error:
            return "parse-failure"
        return "wrong"

    @classmethod
    def from_record(
        cls, data: Mapping[str, Any], *, zeros_unknown: bool = True, where: str | None = None
    ) -> Sample:
        """Read one decoded ``samples.jsonl`` line; missing tier/gadget come from the catalog.
        ``zeros_unknown``: the run recorded unknown token counts as 0
        (:func:`unknown_usage_as_zero` of its ``config.json``; the default suits a record of
        unknown origin); ``where``: the file and line it was read from."""
        for key in ("problem_id", "setting", "run"):
            if key not in data:
                raise RunFormatError(f"sample has no {key!r} field")
        problem_id = str(data["problem_id"])
        run = data["run"]
        if isinstance(run, bool) or not isinstance(run, int) or run < 0:
            raise RunFormatError(
                f"sample {problem_id}: 'run' must be a non-negative integer, got {run!r}"
            )
        tier, gadget = data.get("tier"), data.get("gadget")
        if not tier or not gadget:
            tier, gadget = tier or problem_tier(problem_id), gadget or problem_gadget(problem_id)
        min_vertices = data.get("min_vertices")
        if not isinstance(min_vertices, int) or isinstance(min_vertices, bool):
            min_vertices = None
        record = {k: v for k, v in data.items() if k != "messages"}
        grade = Grade.from_json(data)
        return cls(
            problem_id=problem_id,
            setting=str(data["setting"]),
            run=run,
            correct=grade.correct,
            tier=str(tier),
            gadget=str(gadget),
            min_vertices=min_vertices,
            usage=Usage.from_json(data.get("usage"), zeros_unknown=zeros_unknown),
            finish_reason=data.get("finish_reason"),
            error=data.get("error") or None,
            parse_error=grade.parse_error,
            candidate=grade.candidate,
            reason=grade.reason,
            witness=grade.witness,
            check=grade.check,
            parse_error_kind=grade.parse_error_kind,
            rounds=numbers.count(data.get("rounds")),
            latency_s=numbers.seconds(data.get("latency_s")),
            response=data.get("response") if isinstance(data.get("response"), str) else None,
            record=record,
            where=where,
        )


def problem_of_id(problem_id: str) -> Problem | None:
    """The catalog problem, or the problem with three or more colours an id names, else ``None``."""
    found = find_problem(problem_id)
    if found is not None:
        return found
    try:
        return parse_colored_problem(problem_id)
    except RamseyGadgetsError:
        return None


def problem_tier(problem_id: str) -> str:
    """Tier from the catalog, or from the gadget named in the id for problems outside it."""
    problem = problem_of_id(problem_id)
    if problem is not None:
        return problem.tier
    try:
        return GadgetType(problem_gadget(problem_id)).tier
    except ValueError:
        return "unknown"


def _split_id(problem_id: str) -> tuple[str, GadgetType] | None:
    """(the colours' part, the gadget) of an id no problem model reads, by its gadget suffix."""
    for g in GadgetType:
        if problem_id.endswith("_" + g.slug):
            return problem_id[: -len(g.slug) - 1], g
    return None


def problem_gadget(problem_id: str) -> str:
    problem = problem_of_id(problem_id)
    if problem is not None:
        return problem.gadget_name
    split = _split_id(problem_id)
    return split[1].value if split is not None else "unknown"


def problem_pair(problem_id: str) -> str:
    """``(F, H)`` as display text, e.g. ``(K1,3, K4)``; ``(P3, P3, C4)`` with more colours."""
    problem = problem_of_id(problem_id)
    if problem is not None:
        return problem.colors_label
    split = _split_id(problem_id)
    return split[0] if split is not None else "unknown"


def problem_colors(problem_id: str) -> int:
    """The number of colours of the problem an id names (2 unless it names more)."""
    problem = problem_of_id(problem_id)
    return problem.c if problem is not None else 2


@dataclass
class Run:
    """A set of runs from one source: one model, some settings, ``runs`` repetitions.

    ``expected`` is the sample set the source was meant to produce: every problem × setting ×
    run, where ``example-hint`` covers only the problems it applies to.  Samples outside it that
    are present anyway are added to it (a report never drops a recorded sample).
    """

    label: str
    model: str
    settings: tuple[str, ...]
    runs: int
    problems: tuple[str, ...]
    samples: list[Sample]
    config: dict[str, Any] = field(default_factory=dict)
    source: str = ""
    warnings: list[str] = field(default_factory=list)
    #: The problem set the run was asked from, as the report resolved it (``None``: not yet,
    #: or unreadable); ``set_tag`` tells it apart in the label where one label has runs of
    #: several problem sets (e.g. ``extended``), empty otherwise.
    problem_set: Selection | None = field(default=None, repr=False, compare=False)
    set_tag: str = ""

    @property
    def fresh(self) -> bool:
        """Whether the run asked freshly drawn problems (``problem_set`` ``fresh`` in its config)."""
        return self.config.get("problem_set") == FRESH_SET

    def problems_for(self, setting: str) -> tuple[str, ...]:
        if setting == EXAMPLE_HINT:
            return tuple(p for p in self.problems if example_hint_applies(p))
        return self.problems

    def expected_keys(self) -> set[tuple[str, str, int]]:
        keys = {
            (p, s, r) for s in self.settings for p in self.problems_for(s) for r in range(self.runs)
        }
        return keys | {s.key for s in self.samples}

    def missing_keys(self) -> set[tuple[str, str, int]]:
        return self.expected_keys() - {s.key for s in self.samples}
