"""Deprecated: :mod:`ramseygadgets.verification.verifier` (moved in 0.2 so that the module no longer hides
behind the package's ``verify`` function; this path goes in the next release).

The module can be called like the function, so ``ramseygadgets.verify(problem, candidate)`` keeps
working after ``import ramseygadgets.verify`` has put this module in the function's place.
"""

from __future__ import annotations

import sys
import types
import warnings
from typing import Any

from ramseygadgets.verification.verifier import *  # noqa: F403
from ramseygadgets.verification.verifier import __all__ as __all__
from ramseygadgets.verification.verifier import verify as _verify

warnings.warn(
    "ramseygadgets.verify (the module) moved to ramseygadgets.verification.verifier; "
    "the old path goes in the next release",
    DeprecationWarning,
    stacklevel=2,
)


class _CallableModule(types.ModuleType):
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return _verify(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
