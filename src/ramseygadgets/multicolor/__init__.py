"""Goodness with c ≥ 2 colours, each avoiding a set of patterns: the encoding, the verifier
and the brute force (the search is :mod:`ramseygadgets.multicolor.search`, a layer above).

>>> from ramseygadgets.problem import Problem
>>> from ramseygadgets.multicolor.search import solve_multi
>>> solve_multi(Problem.of_colors("P3 | P3 | K3", "green-determiner")).n    # doctest: +SKIP

Problems are the one model of :mod:`ramseygadgets.problem`; two colours with one pattern each
are the paper's (F,H)-goodness, where the encoding, the verifier and the search agree with the
core's (tests compare them on all 70 problems).
"""

from __future__ import annotations

from ramseygadgets.multicolor.bruteforce import brute_force_verify_multi, good_colorings
from ramseygadgets.multicolor.colorings import MultiColoring, MultiColorings, literal

__all__ = [
    "MultiColoring",
    "MultiColorings",
    "brute_force_verify_multi",
    "good_colorings",
    "literal",
]
