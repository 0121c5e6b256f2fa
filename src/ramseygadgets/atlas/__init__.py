"""The atlas: minimal gadgets of every small pair, with proofs and provenance (issue 14).

The package computes the atlas; its data (an entry's facts, the shipped ``data/atlas.json``) is
:mod:`ramseygadgets.problems.atlas_entries`, a layer below, which the extended set reads and the package
re-exports.

* :mod:`.plan`: the sections (every pair of the paper's eight graphs; stars against every
  connected 5-vertex graph), the colour-swap identification and the F = H facts;
* :mod:`.run`: the computation (``ramseygadgets atlas run``): search fan-out, exhaustive
  cross-check, checkpoints;
* :mod:`.table`: ``docs/atlas.md``.
"""

from __future__ import annotations

from ramseygadgets.problems.atlas_entries import Atlas, AtlasError, Entry, load_atlas

__all__ = [
    "Atlas",
    "AtlasError",
    "Entry",
    "load_atlas",
]
