"""Inspect AI entry point (``[project.entry-points.inspect_ai]``): importing this module registers
the task ``ramseygadgets/ramsey_gadgets``, its solver, scorer, metrics, the coloring tool and the
python setting's ``run_python``."""

from ramseygadgets.integrations.inspect_python import run_python
from ramseygadgets.integrations.inspect_task import (  # registration by import
    accuracy_std,
    coloring_tool,
    pass_at,
    ramsey_gadgets,
    ramsey_scorer,
    ramsey_solver,
)

__all__ = [
    "accuracy_std",
    "coloring_tool",
    "pass_at",
    "ramsey_gadgets",
    "ramsey_scorer",
    "ramsey_solver",
    "run_python",
]
