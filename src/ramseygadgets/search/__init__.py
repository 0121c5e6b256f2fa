"""Minimal-gadget search engine: exact CEGAR finder, minimality proofs, exhaustive cross-check.

>>> from ramseygadgets.search import solve
>>> solve("p3_k3_red_determiner").n
5
"""

from __future__ import annotations

from ramseygadgets.search.options import DEFAULT_MAX_VERTICES, SearchError, SearchOptions
from ramseygadgets.search.solve import (
    LevelRecord,
    SearchResult,
    find_solution,
    smallest_vertex_count,
    solve,
)

__all__ = [
    "DEFAULT_MAX_VERTICES",
    "LevelRecord",
    "SearchError",
    "SearchOptions",
    "SearchResult",
    "find_solution",
    "smallest_vertex_count",
    "solve",
]
