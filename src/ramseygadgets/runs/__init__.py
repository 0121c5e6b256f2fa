"""The data layer below the harness and the reports: run folders and checkpoint logs.

* :mod:`.checkpoint`: :class:`CheckpointLog`, the one append-only JSON Lines checkpoint (durable
  appends, torn-line repair, corrupt lines named by file and line);
* :mod:`.records`: the checks of every field read back from disk;
* :mod:`.grade`: :class:`Grade`, the grade of one answer;
* :mod:`.samples`: :class:`Sample`, :class:`Run` and the outcomes, as the reports use them;
* :mod:`.folder`: the run folder (``config.json``, ``samples.jsonl``, ``errors.jsonl``), written
  through :class:`RunFolder` and read with :func:`read_run_dir`;
* :mod:`.stats` and :mod:`.results`: the statistics of a run set and ``results.json``.

The harness (:mod:`ramseygadgets.harness`) writes run folders through this package and the
reports (:mod:`ramseygadgets.report`) read them through it; neither imports the other.
"""

from __future__ import annotations

from ramseygadgets.infra.checkpoint import CheckpointError, CheckpointLog, CheckpointWarning
from ramseygadgets.runs.folder import (
    CONFIG_FILE,
    ERRORS_FILE,
    RESULTS_FILE,
    SAMPLES_FILE,
    RunFolder,
    RunLogError,
    read_run_dir,
    read_samples,
)
from ramseygadgets.runs.grade import Grade
from ramseygadgets.runs.records import FieldError, SampleKey
from ramseygadgets.runs.samples import OUTCOMES, Run, RunFormatError, Sample, Usage

__all__ = [
    "CONFIG_FILE",
    "ERRORS_FILE",
    "OUTCOMES",
    "RESULTS_FILE",
    "SAMPLES_FILE",
    "CheckpointError",
    "CheckpointLog",
    "CheckpointWarning",
    "FieldError",
    "Grade",
    "Run",
    "RunFolder",
    "RunFormatError",
    "RunLogError",
    "Sample",
    "SampleKey",
    "Usage",
    "read_run_dir",
    "read_samples",
]
