"""The atlas: minimal gadgets of every small pair, with proofs and provenance (issue 14).

The package exports the data (:mod:`.entries`, which the extended set reads); the plan, the
table and the computation sit above the search and ``generate`` layers: import them from their
modules.

* :mod:`.plan`: the sections (every pair of the paper's eight graphs; stars against every
  connected 5-vertex graph), the colour-swap identification and the F = H facts;
* :mod:`.entries`: an entry's facts (solution, lower bound, exhaustive check), merged so that
  the strongest known result wins; the shipped ``data/atlas.json``;
* :mod:`.run`: the computation (``ramseygadgets atlas run``): search fan-out, exhaustive
  cross-check, checkpoints;
* :mod:`.table`: ``docs/atlas.md``.
"""

from __future__ import annotations

from ramseygadgets.atlas.entries import Atlas, AtlasError, Entry, load_atlas

__all__ = [
    "Atlas",
    "AtlasError",
    "Entry",
    "load_atlas",
]
