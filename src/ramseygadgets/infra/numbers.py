"""The one check of every number read back from a file (a sample, a cube record, an atlas entry).

JSON numbers have no bounds: ``1e400`` parses as ``inf``, ``10^400`` written out in digits as a
Python ``int`` that no ``float()`` can hold (``OverflowError``), ``NaN`` (which Python's parser
accepts) as ``nan``, which then compares false with everything and spreads through a mean.  So
every number a reader uses goes through :func:`count` or :func:`seconds` first:

* a **count** (tokens, tool calls, rounds) is an ``int`` (not ``bool``) in ``0 .. MAX_COUNT``
  (2^53: every count up to it is exact as a float, so a mean over counts is exact to the unit);
* a **duration** in seconds is an ``int`` or ``float``, finite, in ``0 .. MAX_SECONDS`` (10^9 s,
  about 32 years).  Comparisons happen before any conversion to ``float``: Python compares an
  ``int`` with a ``float`` exactly, without overflow.

A value that fails is *missing*, never a traceback: :func:`drop_hostile` removes it from the
record and returns one warning naming ``file:line`` and the field.  Writers refuse NaN and
infinity (``json.dumps(..., allow_nan=False)``: :func:`ramseygadgets.infra.checkpoint.json_line` and
the atlas), so a value that was not checked is an error at write time, never bare ``NaN``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, MutableMapping
from typing import Any

__all__ = [
    "NumberWarning",
    "MAX_COUNT",
    "MAX_SECONDS",
    "count",
    "drop_hostile",
    "is_count",
    "is_seconds",
    "number_problem",
    "seconds",
]


class NumberWarning(UserWarning):
    """A number read back was out of range and is read as missing (the CLI shows it as one
    ``warning:`` line naming ``file:line`` and the field)."""


#: The largest count a reader accepts (2^53: exact as a float).
MAX_COUNT = 2**53
#: The largest duration in seconds a reader accepts (about 32 years).
MAX_SECONDS = 10**9


def is_count(value: Any) -> bool:
    """An ``int`` (not ``bool``) in ``0 .. MAX_COUNT``."""
    return type(value) is int and 0 <= value <= MAX_COUNT


def is_seconds(value: Any) -> bool:
    """A finite ``int`` or ``float`` (not ``bool``) in ``0 .. MAX_SECONDS``."""
    if type(value) is int:
        return 0 <= value <= MAX_SECONDS
    return type(value) is float and math.isfinite(value) and 0.0 <= value <= MAX_SECONDS


def count(value: Any) -> int | None:
    """``value`` if it is a count (:func:`is_count`), else ``None`` (missing)."""
    return value if is_count(value) else None


def seconds(value: Any) -> float | None:
    """``value`` as a ``float`` if it is a duration (:func:`is_seconds`), else ``None``."""
    return float(value) if is_seconds(value) else None


_CHECKS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "count": (is_count, f"a count in 0..{MAX_COUNT}"),
    "seconds": (is_seconds, f"a finite number of seconds in 0..{MAX_SECONDS:.0e}"),
}


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 24 else f"{text[:12]}…({len(text)} characters)"


def number_problem(value: Any, kind: str) -> str | None:
    """Why ``value`` is not a ``kind`` (``count`` or ``seconds``), ``None`` when it is one or
    is absent (``None``)."""
    valid, what = _CHECKS[kind]
    if value is None or valid(value):
        return None
    return f"must be {what}, got {_shown(value)}"


def drop_hostile(
    record: MutableMapping[str, Any], fields: Iterable[tuple[str, str]], where: str
) -> list[str]:
    """Remove from ``record`` every ``(field, kind)`` whose value is not a ``kind``; one warning
    per removed value, naming ``where`` (``file:line``) and the field.  A dotted field
    (``usage.total_tokens``) is looked up in the nested object."""
    warnings: list[str] = []
    for name, kind in fields:
        holder, key = _holder(record, name)
        if holder is None or key not in holder:
            continue
        why = number_problem(holder[key], kind)
        if why is not None:
            del holder[key]
            warnings.append(f"{where}: field {name!r} {why}; read as missing")
    return warnings


def _holder(
    record: MutableMapping[str, Any], name: str
) -> tuple[MutableMapping[str, Any] | None, str]:
    *path, key = name.split(".")
    holder: Any = record
    for part in path:
        holder = holder.get(part) if isinstance(holder, MutableMapping) else None
    return (holder if isinstance(holder, MutableMapping) else None), key
