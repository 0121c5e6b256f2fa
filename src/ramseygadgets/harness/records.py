"""Moved to :mod:`ramseygadgets.runs.records` (the data layer); re-exported for old imports."""

from __future__ import annotations

from ramseygadgets.runs.records import (
    MAX_RUNS,
    SURROGATES_FLAG,
    FieldError,
    JSONTooDeepError,
    check_config,
    check_integer,
    check_run,
    check_runs,
    check_sample_fields,
    check_usage,
    encodable_json,
    is_count,
    is_duration,
    is_integer,
    parse_json,
)

__all__ = [
    "MAX_RUNS",
    "SURROGATES_FLAG",
    "FieldError",
    "JSONTooDeepError",
    "check_config",
    "check_integer",
    "check_run",
    "check_runs",
    "check_sample_fields",
    "check_usage",
    "encodable_json",
    "is_count",
    "is_duration",
    "is_integer",
    "parse_json",
]
