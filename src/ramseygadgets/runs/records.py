"""Checks of everything read back from disk (``samples.jsonl``, ``config.json``, replay files):
a field that would make a later step fail or grow without bound is refused with its name.

* JSON is parsed with :func:`parse_json`: nesting deeper than the parser's recursion limit is a
  ``ValueError`` ("nested too deeply"), not a ``RecursionError``.
* ``run`` is an integer (JSON ``1.0``, ``1e20``, ``Infinity`` or ``[1]`` are not) in
  ``0 .. runs − 1``; ``runs`` is an integer in ``1 .. MAX_RUNS``.
* Token counts, retries, round and tool-call counts are counts, latencies and tool seconds
  durations, both in range (:mod:`ramseygadgets.infra.numbers`, the one check of numbers read back);
  texts are strings; ``correct`` is a boolean.  The harness refuses a record that fails (it
  resumes only from a log it can read whole); a report reads a hostile number as missing, with
  one warning naming ``file:line`` and the field (:func:`drop_hostile_numbers`).

Text written back is made encodable by :func:`ramseygadgets.infra.checkpoint.json_line`: lone UTF-16 surrogates (half
an emoji, which servers emit when a token splits a code point) become U+FFFD and the record is
flagged ``"replaced_surrogates": true``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ramseygadgets.infra import numbers
from ramseygadgets.infra.files import JSONTooDeepError, parse_json

__all__ = [
    "MAX_RUNS",
    "FieldError",
    "JSONTooDeepError",
    "SampleKey",
    "check_config",
    "check_integer",
    "check_run",
    "check_runs",
    "check_sample_fields",
    "check_usage",
    "drop_hostile_numbers",
    "is_count",
    "is_duration",
    "is_integer",
    "parse_json",
    "sample_key",
]

#: Largest number of runs (repetitions) a configuration or a ``--runs`` option may ask for.
MAX_RUNS = 1000

#: Sample fields and what they must be (``None`` is allowed for all but the key fields).
_TEXT_FIELDS = ("model", "response", "reasoning", "finish_reason", "error", "error_kind")
_COUNT_FIELDS = ("retries", "rounds", "tool_calls", "min_vertices")
_SECONDS_FIELDS = ("latency_s", "tool_seconds")
_USAGE_FIELDS = ("prompt_tokens", "completion_tokens", "reasoning_tokens", "total_tokens")
#: Every number of a sample record, with its kind (:mod:`ramseygadgets.infra.numbers`).
NUMBER_FIELDS = (
    *((name, "count") for name in _COUNT_FIELDS),
    *((name, "seconds") for name in _SECONDS_FIELDS),
    *((f"usage.{name}", "count") for name in _USAGE_FIELDS),
)


class FieldError(ValueError):
    """One field of a record read from disk is unusable; ``str()`` names the field."""

    def __init__(self, field: str, problem: str):
        super().__init__(f"field {field!r} {problem}")
        self.field, self.problem = field, problem


@dataclass(frozen=True)
class SampleKey:
    """One sample: (problem, setting, run)."""

    problem_id: str
    setting: str
    run: int

    def label(self) -> str:
        return f"{self.problem_id}/{self.setting}/{self.run}"


def _shown(value: Any) -> str:
    text = json.dumps(value, default=str) if not isinstance(value, float) else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def is_integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_integer(value: Any, field: str, low: int, high: int) -> int:
    """``value`` if it is an integer in ``low .. high``, else :class:`FieldError`."""
    if not is_integer(value) or not low <= value <= high:
        raise FieldError(field, f"must be an integer in {low}..{high}, got {_shown(value)}")
    return int(value)


def check_run(value: Any, runs: int | None = None, field: str = "run") -> int:
    """A run index: an integer in ``0 .. runs − 1`` (``runs`` defaults to :data:`MAX_RUNS`)."""
    return check_integer(value, field, 0, (runs or MAX_RUNS) - 1)


def sample_key(record: Mapping[str, Any], runs: int | None = None) -> SampleKey:
    """The key of a record, checked: string ids and a run in ``0 .. runs − 1``."""
    for name in ("problem_id", "setting"):
        if not isinstance(record.get(name), str):
            raise FieldError(name, "must be a string")
    return SampleKey(record["problem_id"], record["setting"], check_run(record.get("run"), runs))


def check_runs(value: Any, field: str = "runs") -> int:
    return check_integer(value, field, 1, MAX_RUNS)


def _check_optional(record: Mapping[str, Any], field: str, valid: Any, what: str) -> None:
    value = record.get(field)
    if value is not None and not valid(value):
        raise FieldError(field, f"must be {what}, got {_shown(value)}")


def is_count(value: Any) -> bool:
    """A count read back (:func:`ramseygadgets.infra.numbers.is_count`: an integer in range)."""
    return numbers.is_count(value)


def is_duration(value: Any) -> bool:
    """Seconds read back (:func:`ramseygadgets.infra.numbers.is_seconds`: finite, in range)."""
    return numbers.is_seconds(value)


def drop_hostile_numbers(record: dict[str, Any], where: str) -> list[str]:
    """Remove every number of a sample record that is not in range (a NaN, 10^400, a negative
    count): one warning each, naming ``where`` and the field; the record then lacks that value
    (a report reads it as not recorded) instead of failing its check."""
    return numbers.drop_hostile(record, NUMBER_FIELDS, where)


def check_usage(usage: Any, field: str = "usage") -> None:
    """Token counts: an object whose counts are non-negative integers or null."""
    if usage is None:
        return
    if not isinstance(usage, Mapping):
        raise FieldError(field, f"must be an object, got {_shown(usage)}")
    for name in _USAGE_FIELDS:
        _check_optional(usage, name, is_count, f"a count in 0..{numbers.MAX_COUNT}")


def check_sample_fields(record: Mapping[str, Any]) -> None:
    """The optional fields of a sample record (see the module docstring)."""
    for name in _TEXT_FIELDS:
        _check_optional(record, name, lambda v: isinstance(v, str), "a string")
    for name, kind in NUMBER_FIELDS:
        if "." not in name:
            why = numbers.number_problem(record.get(name), kind)
            if why is not None:
                raise FieldError(name, why)
    _check_optional(record, "correct", lambda v: isinstance(v, bool), "true or false")
    _check_optional(record, "messages", lambda v: isinstance(v, list), "a list")
    check_usage(record.get("usage"))


def check_config(config: Mapping[str, Any]) -> None:
    """The fields of a ``config.json`` that later steps index or iterate over."""
    if "runs" in config:
        check_runs(config["runs"])
    for name in ("settings", "problems"):
        value = config.get(name)
        if value is not None and (
            not isinstance(value, list) or not all(isinstance(x, str) for x in value)
        ):
            raise FieldError(name, "must be a list of strings")
    for name in ("model", "model_label", "profile"):
        _check_optional(config, name, lambda v: isinstance(v, str), "a string")
