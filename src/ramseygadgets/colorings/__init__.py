"""Good colourings: each colour class avoids its forbidden patterns, decided by SAT.

* :mod:`.spec`: colouring specs (``ColoringSpec``: each of c ≥ 2 colours forbids a set of patterns);
* :mod:`.red_blue`: (F,H)-good red/blue colourings, one variable per edge (the paper's case);
* :mod:`.multi`: good c-colourings, one variable per edge and colour.

The package exports the red/blue names (``from ramseygadgets.colorings import GoodColorings``).
"""

from __future__ import annotations

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
