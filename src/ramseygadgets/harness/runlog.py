"""Moved to :mod:`ramseygadgets.runs.folder` (the data layer); re-exported for old imports."""

from __future__ import annotations

from ramseygadgets.runs.folder import (
    CONFIG_FILE,
    ERRORS_FILE,
    SAMPLES_FILE,
    RunFolder,
    RunLog,
    RunLogError,
    read_samples,
    sample_key,
    write_file,
)

__all__ = [
    "CONFIG_FILE",
    "ERRORS_FILE",
    "SAMPLES_FILE",
    "RunFolder",
    "RunLog",
    "RunLogError",
    "read_samples",
    "sample_key",
    "write_file",
]
