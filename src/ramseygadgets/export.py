"""Deprecated: :mod:`ramseygadgets.training.export` (moved in 0.2; this path goes in the next release).

The old path is the same module object as the new one, so what is patched or read through either
is the same."""

from __future__ import annotations

import sys
import warnings

from ramseygadgets.training import export as _moved

warnings.warn(
    "ramseygadgets.export moved to ramseygadgets.training.export; the old path goes in the next release",
    DeprecationWarning,
    stacklevel=2,
)
sys.modules[__name__] = _moved
