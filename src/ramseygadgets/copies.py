"""Deprecated: :mod:`ramseygadgets.colorings.copies` (moved in 0.2; this path goes in the next release)."""

from __future__ import annotations

import warnings

from ramseygadgets.colorings.copies import *  # noqa: F403
from ramseygadgets.colorings.copies import __all__ as __all__

warnings.warn(
    "ramseygadgets.copies moved to ramseygadgets.colorings.copies; "
    "the old path goes in the next release",
    DeprecationWarning,
    stacklevel=2,
)
