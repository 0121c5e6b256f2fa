"""Which optional dependencies the tests can use in this environment."""

from __future__ import annotations

import importlib


def imports(module: str) -> bool:
    """Whether ``module`` imports (installed is not enough: the lowest-direct CI step has
    datasets with a pyarrow that refuses its NumPy)."""
    try:
        importlib.import_module(module)
    except ImportError:
        return False
    return True


HAS_DATASETS = imports("datasets")
