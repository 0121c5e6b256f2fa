"""RamseyGadgets: graph-construction problems on (F,H)-good colorings, an exact verifier,
a minimal-gadget search engine and an evaluation harness for language models.

The names below load on first use (a module ``__getattr__``), so that importing a submodule,
such as the command line's ``ramseygadgets.cli.app``, does not load the SAT solver.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from ramseygadgets.colorings.copies import find_copies
    from ramseygadgets.colorings.red_blue import Coloring, GoodColorings
    from ramseygadgets.core.gadgets import Candidate, Designated, GadgetType
    from ramseygadgets.core.graphs import Graph, parse_graph
    from ramseygadgets.core.patterns import Pattern, get_pattern
    from ramseygadgets.problems.catalog import Problem, all_problems, get_problem
    from ramseygadgets.verification.verifier import Verdict, verify

#: Each public name and the module that defines it.
_EXPORTS = {
    "Graph": "ramseygadgets.core.graphs",
    "parse_graph": "ramseygadgets.core.graphs",
    "Pattern": "ramseygadgets.core.patterns",
    "get_pattern": "ramseygadgets.core.patterns",
    "find_copies": "ramseygadgets.colorings.copies",
    "Coloring": "ramseygadgets.colorings.red_blue",
    "GoodColorings": "ramseygadgets.colorings.red_blue",
    "Candidate": "ramseygadgets.core.gadgets",
    "Designated": "ramseygadgets.core.gadgets",
    "GadgetType": "ramseygadgets.core.gadgets",
    "Problem": "ramseygadgets.problems.catalog",
    "all_problems": "ramseygadgets.problems.catalog",
    "get_problem": "ramseygadgets.problems.catalog",
    "Verdict": "ramseygadgets.verification.verifier",
    "verify": "ramseygadgets.verification.verifier",
}

__all__ = [
    "__version__",
    "Graph",
    "parse_graph",
    "Pattern",
    "get_pattern",
    "find_copies",
    "Coloring",
    "GoodColorings",
    "Candidate",
    "Designated",
    "GadgetType",
    "Problem",
    "all_problems",
    "get_problem",
    "Verdict",
    "verify",
]


def __getattr__(name: str) -> Any:
    """Load a public name from its module on first use (and keep it)."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'ramseygadgets' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
