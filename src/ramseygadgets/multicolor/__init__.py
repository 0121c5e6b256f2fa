"""Generalised goodness: c ≥ 2 colours, each avoiding a set of patterns.

>>> from ramseygadgets.multicolor import ColoringSpec, MultiProblem, solve_multi
>>> spec = ColoringSpec.parse("P3 | P3 | K3")          # red and blue avoid P3, green avoids K3
>>> solve_multi(MultiProblem.make(spec, "green-determiner")).n    # doctest: +SKIP

Two colours with one pattern each are the paper's (F,H)-goodness; the encoding, the verifier
and the search then reduce to the core's (tests compare them on all 70 problems).
"""

from __future__ import annotations

from ramseygadgets.multicolor.bruteforce import brute_force_verify_multi, good_colorings
from ramseygadgets.multicolor.colorings import MultiColoring, MultiColorings, literal
from ramseygadgets.multicolor.search import MultiSearchResult, solve_multi
from ramseygadgets.multicolor.spec import (
    COLOR_NAMES,
    KINDS,
    ColorClass,
    ColoringSpec,
    MultiProblem,
    SpecError,
    split_pattern_list,
)
from ramseygadgets.multicolor.verify import verify_multi

__all__ = [
    "COLOR_NAMES",
    "KINDS",
    "ColorClass",
    "ColoringSpec",
    "MultiColoring",
    "MultiColorings",
    "MultiProblem",
    "MultiSearchResult",
    "SpecError",
    "brute_force_verify_multi",
    "good_colorings",
    "literal",
    "solve_multi",
    "split_pattern_list",
    "verify_multi",
]
