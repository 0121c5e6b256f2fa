"""The atlas: minimal gadgets of every small pair, with proofs and provenance (issue 14).

* :mod:`.plan`: the sections (every pair of the paper's eight graphs; stars against every
  connected 5-vertex graph), the colour-swap identification and the F = H facts;
* :mod:`.entries`: an entry's facts (solution, lower bound, exhaustive check), merged so that
  the strongest known result wins; the shipped ``data/atlas.json``;
* :mod:`.run`: the computation (``ramseygadgets atlas run``): search fan-out, exhaustive
  cross-check, checkpoints (a layer above the data: import it from ``ramseygadgets.atlas.run``);
* :mod:`.table`: ``docs/atlas.md``.
"""

from __future__ import annotations

from ramseygadgets.atlas.entries import Atlas, AtlasError, Entry, load_atlas
from ramseygadgets.atlas.plan import SECTIONS, colour_swap, graph_label, plan_atlas
from ramseygadgets.atlas.table import render_markdown

__all__ = [
    "SECTIONS",
    "Atlas",
    "AtlasError",
    "Entry",
    "colour_swap",
    "graph_label",
    "load_atlas",
    "plan_atlas",
    "render_markdown",
]
