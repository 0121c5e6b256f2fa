"""Deprecated: :mod:`ramseygadgets.harness.evals` (moved in 0.2; this path goes in the next release)."""

from __future__ import annotations

import warnings

from ramseygadgets.harness.evals import *  # noqa: F403
from ramseygadgets.harness.evals import __all__ as __all__

warnings.warn(
    "ramseygadgets.scaleout.evals moved to ramseygadgets.harness.evals; "
    "the old path goes in the next release",
    DeprecationWarning,
    stacklevel=2,
)
