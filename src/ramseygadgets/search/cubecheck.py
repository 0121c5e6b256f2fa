"""The identity check of a cube log: before a log proves anything, every cube record of the
problem asked must name that problem and its own level (:func:`check_records`), or the log is
refused in one line naming ``file:line`` (:class:`CubeLogRefused`).

A record names its problem by id and title (in every log) and, in logs written since they were
added, by patterns, gadget and colours; every record after the first that carries those must
have them too (:func:`required_identity`), and every record its title: a record whose identity
keys were deleted names no problem.  Its level: ``n`` equals the level its ``key`` names, and a none-cube's key names its
layout and bits.  Malformed records (no level, key, layout or bits) prove nothing and are passed
over.  The CLI (``solve --assume-none-below``, ``atlas adopt``, ``atlas table``) and
``bench/cube_coverage.py`` all read logs through :func:`read_checked`.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any, TypeGuard

from ramseygadgets.problems.catalog import Problem
from ramseygadgets.search.cubelog import read_numbered
from ramseygadgets.search.solve import SearchError

__all__ = [
    "MAX_PROOF_VERTICES",
    "NEWER_IDENTITY",
    "CubeLogRefused",
    "check_records",
    "found_line",
    "is_bits",
    "is_cube",
    "is_found",
    "is_level",
    "problem_tag",
    "read_checked",
    "required_identity",
]

#: The largest level a proof may speak of: far beyond any search (each vertex costs 10–40×
#: more), small enough that re-deriving a forged proof's coverage stays quick.
MAX_PROOF_VERTICES = 20


class CubeLogRefused(SearchError):
    """A cube log that cannot be used as evidence for the problem and level asked (a record of
    another level or problem under this problem's id, a logged solution on the level, a re-run
    that disagrees); ``str()`` names ``file:line``."""


def problem_tag(problem: Problem) -> dict[str, Any]:
    """What identifies the problem in a log record (checked when the log is read back)."""
    return {
        "problem_id": problem.id,
        "problem": problem.title,
        "patterns": [p.spec for p in problem.patterns],
        "gadget": problem.gadget_name,
        "colours": problem.c,
    }


def _problem_mismatch(record: dict[str, Any], problem: Problem) -> str | None:
    """Why a record under ``problem``'s id is not about ``problem`` (``None``: it is).  The
    title is in every log; patterns, gadget and colours in logs written since they were added."""
    tag = problem_tag(problem)
    for name in ("problem", "patterns", "gadget", "colours"):
        if name in record and record[name] != tag[name]:
            return (
                f"a cube record of {problem.id} whose {name} is {record[name]!r}, not {tag[name]!r}"
            )
    return None


def _level_mismatch(record: dict[str, Any]) -> str | None:
    """Why a well-formed cube record's level is not its own (``n`` against its ``key``), or a
    none-cube's key names other bits (a found one is verified on its own, a malformed one is
    passed over)."""
    n, key = record["n"], record["key"]
    named = key.split("|", 1)[0]
    if named != str(n):
        return f"a cube record of level {n} whose key {key!r} names level {named}"
    if record.get("outcome") == "none" and key != f"{n}|{record['layout']}|{record['bits']}":
        return f"a none-cube record whose key {key!r} does not name its layout and bits"
    return None


#: The identity keys logs carry since they were added (the title is in every log).
NEWER_IDENTITY = ("patterns", "gadget", "colours")


def required_identity(records: Iterable[dict[str, Any]]) -> list[tuple[str, ...]]:
    """The identity keys each record of a log (in file order) must carry: the title always;
    patterns, gadget and colours from the first record that carries one of them on (a log is
    append-only: once its writer recorded them, every later record has them, so a later record
    without them had them deleted; a log resumed by a newer version starts them midway)."""
    required: list[tuple[str, ...]] = []
    newer = False
    for r in records:
        newer = newer or any(name in r for name in NEWER_IDENTITY)
        required.append(("problem", *(NEWER_IDENTITY if newer else ())))
    return required


def _missing_identity(record: dict[str, Any], required: tuple[str, ...]) -> str | None:
    missing = [name for name in required if name not in record]
    if not missing:
        return None
    return f"a cube record of {record.get('problem_id')} without its {', '.join(missing)}"


def check_records(
    path: Path, numbered: Iterable[tuple[int, dict[str, Any]]], problem: Problem
) -> None:
    """Refuse (:class:`CubeLogRefused`, ``file:line``) a log in which a cube record under
    ``problem``'s id is about another problem, names two levels, or lacks an identity key
    (:func:`required_identity`: a record whose keys were deleted names no problem).  Malformed
    records (no level, key, layout or bits) are passed over: they prove nothing."""
    mine = [
        (line, r)
        for line, r in numbered
        if r.get("kind") == "cube" and r.get("problem_id") == problem.id
    ]
    required = required_identity(r for _, r in mine)
    for (line, record), keys in zip(mine, required, strict=True):
        why = _problem_mismatch(record, problem)
        if why is None and is_cube(record):
            why = _missing_identity(record, keys) or _level_mismatch(record)
        if why is not None:
            raise CubeLogRefused(f"{path}:{line}: {why}; the log is not used")


def read_checked(path: Path, problem: Problem) -> list[tuple[int, dict[str, Any]]]:
    """The records of the cube log ``path`` with their line numbers, after
    :func:`check_records`."""
    numbered = read_numbered(path)
    check_records(path, numbered, problem)
    return numbered


def found_line(
    numbered: Iterable[tuple[int, dict[str, Any]]], problem: Problem, n: int
) -> int | None:
    """The line of a logged solution of ``problem`` on ``n`` vertices (``None``: none)."""
    return next((ln for ln, r in numbered if is_found(r, problem.id) and r.get("n") == n), None)


def is_cube(record: dict[str, Any]) -> bool:
    """A well-formed cube record (a malformed one proves nothing and is passed over)."""
    n = record.get("n")
    return (
        record.get("kind") == "cube"
        and is_level(n)
        and isinstance(record.get("layout"), str)
        and isinstance(record.get("key"), str)
        and is_bits(record.get("bits"), n)
    )


def is_level(n: Any) -> TypeGuard[int]:
    return type(n) is int and 1 <= n <= MAX_PROOF_VERTICES


def is_bits(bits: Any, n: int) -> bool:
    """A cube: one bit per fixed vertex pair, at most one per pair of the n vertices."""
    return isinstance(bits, str) and set(bits) <= {"0", "1"} and len(bits) <= n * (n - 1) // 2


def is_found(record: dict[str, Any], problem_id: str) -> bool:
    """Whether ``record`` is a cube of problem ``problem_id`` that found a solution."""
    return (
        record.get("kind") == "cube"
        and record.get("problem_id") == problem_id
        and record.get("outcome") == "found"
    )
