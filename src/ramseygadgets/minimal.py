"""Deprecated: :mod:`ramseygadgets.search.minimal` (moved in 0.2; this path goes in the next release)."""

from __future__ import annotations

import warnings

from ramseygadgets.search.minimal import *  # noqa: F403
from ramseygadgets.search.minimal import __all__ as __all__

warnings.warn(
    "ramseygadgets.minimal moved to ramseygadgets.search.minimal; "
    "the old path goes in the next release",
    DeprecationWarning,
    stacklevel=2,
)
