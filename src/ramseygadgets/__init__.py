"""RamseyGadgets: graph-construction problems on (F,H)-good colorings, an exact verifier,
a minimal-gadget search engine and an evaluation harness for language models."""

from __future__ import annotations

__version__ = "0.1.0"

from ramseygadgets.catalog import Problem, all_problems, get_problem
from ramseygadgets.colorings.red_blue import Coloring, GoodColorings
from ramseygadgets.copies import find_copies
from ramseygadgets.gadgets import Candidate, Designated, GadgetType
from ramseygadgets.graphs import Graph, parse_graph
from ramseygadgets.patterns import Pattern, get_pattern
from ramseygadgets.verifier import Verdict, verify

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
