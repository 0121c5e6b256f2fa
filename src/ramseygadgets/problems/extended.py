"""The extended benchmark (``--set extended``, issue 14): every proven-minimal problem of the
atlas outside the paper's 70, and three-colour problems, each with its minimal solution and the
proof that none is smaller, in tiers by minimal size so that results stay informative as
models improve.

* two colours: every atlas entry (:mod:`ramseygadgets.atlas`, both sections: pairs of the
  paper's eight graphs, stars K1,2..K1,4 against every connected 5-vertex graph) whose status is
  *minimal* (a solution on n vertices and the proof that none has n − 1), except the 70 catalog
  problems, which stay the default set (``--set paper``);
* three colours: ``data/three_colour.json``, built by ``scripts/build_three_colour.py`` from a
  ``ramseygadgets generate --spec ...`` run: every problem whose search proved its minimal
  vertex count, each solution checked again by :func:`~ramseygadgets.verify.verify`
  and, where 3^m ≤ 2^22, by the brute force over all colourings.

Size tiers by the minimal vertex count n: ``≤6``, ``7-8``, ``9-10``, ``≥11`` (``<=6`` and
``>=11`` are accepted as spellings).  Order: the
atlas' order (paper section, then stars), then the three-colour file's order; ids are the
atlas' and :meth:`Problem.of_colors <ramseygadgets.problems.catalog.Problem.of_colors>` ids
(``p3__p3__k3_green_determiner``).
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

from ramseygadgets.core.errors import RamseyGadgetsError
from ramseygadgets.core.gadgets import Candidate
from ramseygadgets.problems.atlas_entries import load_atlas
from ramseygadgets.problems.catalog import in_catalog
from ramseygadgets.problems.problem import Problem

THREE_COLOR_FILE = "three_colour.json"
#: Size tiers by minimal vertex count, easiest first.
SIZE_TIERS = ("≤6", "7-8", "9-10", "≥11")


class ExtendedSetError(RamseyGadgetsError):
    """The shipped data of the extended set is unusable."""


def size_tier(n: int) -> str:
    """The tier of a problem whose minimal solution has ``n`` vertices."""
    if n <= 6:
        return "≤6"
    if n <= 8:
        return "7-8"
    if n <= 10:
        return "9-10"
    return "≥11"


def parse_size_tier(text: str) -> str | None:
    """The size tier ``text`` names (``<=6``/``≤6``, ``7-8``, ``9-10``, ``>=11``/``≥11``)."""
    key = text.strip().replace("<=", "≤").replace(">=", "≥").replace("–", "-").replace(" ", "")
    return key if key in SIZE_TIERS else None


@dataclass(frozen=True)
class ExtendedEntry:
    """One problem of the extended set with its minimal solution and the proof of minimality.

    ``proof``: the lower bound ``n`` ("no solution on n − 1 vertices"), the prover (engine,
    method), the levels it enumerated and its seconds, plus any cross-checks.
    """

    problem: Problem
    candidate: Candidate
    source: str  # atlas:paper | atlas:stars | three-colour
    proof: dict[str, Any] = field(hash=False, compare=False)
    #: whether the solution's edge count is proven minimal on its n vertices too
    edges_minimal: bool = False

    @property
    def id(self) -> str:
        return self.problem.id

    @property
    def n(self) -> int:
        return self.candidate.graph.n

    @property
    def m(self) -> int:
        return self.candidate.graph.m

    @property
    def size_tier(self) -> str:
        return size_tier(self.n)

    @property
    def colors(self) -> int:
        return self.problem.c

    def to_json(self) -> dict[str, Any]:
        """The record of ``ramseygadgets problems --set extended --json``."""
        record: dict[str, Any] = dict(self.problem.to_json())
        record.update(
            {
                "source": self.source,
                "num_colors": self.colors,
                "size_tier": self.size_tier,
                "min_vertices": self.n,
                "min_edges": self.m if self.edges_minimal else None,
                "edges_minimal": self.edges_minimal,
                "solution": self.candidate.to_json(self.problem.kind),
                "proof": self.proof,
            }
        )
        return record


# ---------------------------------------------------------------------------------------------
# Two colours: the atlas
# ---------------------------------------------------------------------------------------------
def atlas_problems() -> list[ExtendedEntry]:
    """Every minimal atlas entry outside the catalog, in the atlas' order."""
    found = []
    for entry in load_atlas().entries.values():
        if entry.status != "minimal" or in_catalog(entry.problem):
            continue
        proof = {"lower_bound": entry.lower_bound, "cross_check": entry.cross_check}
        edges_minimal = bool(entry.solution and entry.solution.get("edges_minimal"))
        source = f"atlas:{entry.section}"
        found.append(ExtendedEntry(entry.problem, entry.candidate(), source, proof, edges_minimal))
    return found


# ---------------------------------------------------------------------------------------------
# Three colours: data/three_colour.json
# ---------------------------------------------------------------------------------------------
def three_color_entries() -> list[ExtendedEntry]:
    """The shipped three-colour problems: (problem, minimal Candidate, proof) each."""
    data = _three_color_data()
    found = []
    for record in data.get("entries", []):
        try:
            problem = Problem.from_json(record)
            candidate = Candidate.from_json(record["solution"], problem.kind, max_vertices=None)
        except (RamseyGadgetsError, ValueError, KeyError, TypeError) as exc:
            raise ExtendedSetError(
                f"data/{THREE_COLOR_FILE}: unusable entry {record.get('id', '?')}: {exc}"
            ) from None
        proof = record["proof"]
        edges_minimal = proof.get("edges_minimal") is True
        found.append(ExtendedEntry(problem, candidate, "three-colour", proof, edges_minimal))
    return found


@lru_cache(maxsize=1)
def _three_color_data() -> dict[str, Any]:
    try:
        text = resources.files("ramseygadgets.data").joinpath(THREE_COLOR_FILE).read_text("utf-8")
        data = json.loads(text)
    except (FileNotFoundError, ValueError) as exc:
        raise ExtendedSetError(f"cannot read data/{THREE_COLOR_FILE}: {exc}") from None
    if not isinstance(data, dict):
        raise ExtendedSetError(f"data/{THREE_COLOR_FILE} must hold a JSON object")
    return data


# ---------------------------------------------------------------------------------------------
# The set
# ---------------------------------------------------------------------------------------------
@lru_cache(maxsize=1)
def extended_problems() -> tuple[ExtendedEntry, ...]:
    """Every problem of the extended set (two and three colours), in listing order."""
    return (*atlas_problems(), *three_color_entries())


def tier_counts(problems: tuple[ExtendedEntry, ...] | None = None) -> dict[str, dict[str, int]]:
    """Problems per source and size tier (with totals), for the docs and the README."""
    problems = extended_problems() if problems is None else problems
    counts: dict[str, dict[str, int]] = {}
    for p in problems:
        counts.setdefault(p.source, dict.fromkeys((*SIZE_TIERS, "all"), 0))[p.size_tier] += 1
    counts["total"] = {t: sum(row[t] for row in counts.values()) for t in SIZE_TIERS}
    for row in counts.values():
        row["all"] = sum(row[t] for t in SIZE_TIERS)
    return counts


def counts_markdown(problems: tuple[ExtendedEntry, ...] | None = None) -> str:
    """The table of problems per source and size tier (docs/extended.md and the README)."""
    counts = tier_counts(problems)
    head = ["source", *SIZE_TIERS, "all"]
    lines = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(head) - 1)]
    for source, row in counts.items():
        cells = [str(row[t]) for t in (*SIZE_TIERS, "all")]
        lines.append(f"| {source} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


__all__ = [
    "SIZE_TIERS",
    "ExtendedEntry",
    "ExtendedSetError",
    "atlas_problems",
    "counts_markdown",
    "extended_problems",
    "parse_size_tier",
    "size_tier",
    "three_color_entries",
    "tier_counts",
]


def __getattr__(name: str) -> Callable[[], list[ExtendedEntry]]:
    """``three_colour_entries``: the old name of :func:`three_color_entries` (deprecated in 0.2,
    goes in the next release)."""
    if name == "three_colour_entries":
        warnings.warn(
            "ramseygadgets.problems.extended.three_colour_entries is now three_color_entries; "
            "the old name goes in the next release",
            DeprecationWarning,
            stacklevel=2,
        )
        return three_color_entries
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
