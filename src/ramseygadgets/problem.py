"""Deprecated: :mod:`ramseygadgets.problems.problem` (moved in 0.2; this path goes in the next release).

The old path is the same module object as the new one, so what is patched or read through either
is the same."""

from __future__ import annotations

import sys
import warnings

from ramseygadgets.problems import problem as _moved

warnings.warn(
    "ramseygadgets.problem moved to ramseygadgets.problems.problem; the old path goes in the next release",
    DeprecationWarning,
    stacklevel=2,
)
sys.modules[__name__] = _moved
