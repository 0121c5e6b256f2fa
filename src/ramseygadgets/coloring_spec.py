"""Deprecated: :mod:`ramseygadgets.colorings.spec` (moved in 0.2; this path goes in the next release)."""

from __future__ import annotations

import warnings

from ramseygadgets.colorings.spec import *  # noqa: F403
from ramseygadgets.colorings.spec import __all__ as __all__

warnings.warn(
    "ramseygadgets.coloring_spec moved to ramseygadgets.colorings.spec; "
    "the old path goes in the next release",
    DeprecationWarning,
    stacklevel=2,
)
