"""Tests that stand another atlas in the shipped one's place forget every cache built from it,
before and after (the extended set, the shipped proofs' index, what each optimum rests on)."""

from __future__ import annotations

from ramseygadgets.problems import extended
from ramseygadgets.verification import basis, proofs


def clear_shipped_atlas_caches() -> None:
    for cached in (
        basis.shipped_atlas,
        basis.shipped_entry_basis,
        basis.shipped_atlas_audited,
        extended.extended_problems,
        proofs._shipped_index,
    ):
        cached.cache_clear()
