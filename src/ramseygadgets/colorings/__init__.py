"""Good colourings: each colour class avoids its forbidden patterns, decided by SAT.

* :mod:`.spec`: colouring specs (``ColoringSpec``: each of c ≥ 2 colours forbids a set of patterns);
* :mod:`.red_blue`: (F,H)-good red/blue colourings, one variable per edge (the paper's case);
* :mod:`.multi`: good c-colourings, one variable per edge and colour.

The package exports the red/blue names (``from ramseygadgets.colorings import GoodColorings``),
loaded on first use, so that :mod:`.spec` (and the catalog) come without the SAT solver.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ramseygadgets.colorings.red_blue import (
        DEFAULT_MAX_CLAUSES,
        DEFAULT_SOLVER,
        Coloring,
        ForcedEdges,
        GoodColorings,
        IncrementalCNF,
        keyboard_interrupts,
        new_solver,
    )

__all__ = [
    "DEFAULT_MAX_CLAUSES",
    "DEFAULT_SOLVER",
    "Coloring",
    "ForcedEdges",
    "GoodColorings",
    "IncrementalCNF",
    "keyboard_interrupts",
    "new_solver",
]


def __getattr__(name: str) -> Any:
    """Load a red/blue name from :mod:`.red_blue` on first use (and keep it)."""
    if name not in __all__:
        raise AttributeError(f"module 'ramseygadgets.colorings' has no attribute {name!r}")
    value = getattr(importlib.import_module("ramseygadgets.colorings.red_blue"), name)
    globals()[name] = value
    return value
