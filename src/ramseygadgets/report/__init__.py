"""Reports from evaluation runs: the paper's tables and figures, an HTML report with graph drawings.

* :func:`load_runs` reads run directories (and any format added with :func:`register_reader`);
* :func:`build_cells` / :func:`cell_stats` compute the metrics (see :mod:`.metrics` for the math);
* :func:`build_report` writes tables, figures, ``report.md``, ``summary.json`` and ``report.html``.
"""

from __future__ import annotations

from ramseygadgets.report.build import ReportOptions, ReportResult, build_report
from ramseygadgets.report.drawing import GraphPicture, graph_picture, picture_svg, save_picture
from ramseygadgets.report.metrics import (
    BREAKDOWNS,
    Cell,
    CellStats,
    breakdown,
    build_cells,
    cell_stats,
    pass_at_k,
    sample_std,
)
from ramseygadgets.report.runs import (
    OUTCOMES,
    SETTINGS_ORDER,
    Run,
    RunFormatError,
    Sample,
    Usage,
    example_hint_applies,
    load_runs,
    read_run_dir,
    register_reader,
    registered_readers,
)

__all__ = [
    "BREAKDOWNS",
    "Cell",
    "CellStats",
    "GraphPicture",
    "OUTCOMES",
    "ReportOptions",
    "ReportResult",
    "Run",
    "RunFormatError",
    "SETTINGS_ORDER",
    "Sample",
    "Usage",
    "breakdown",
    "build_cells",
    "build_report",
    "cell_stats",
    "example_hint_applies",
    "graph_picture",
    "load_runs",
    "pass_at_k",
    "picture_svg",
    "read_run_dir",
    "register_reader",
    "registered_readers",
    "sample_std",
    "save_picture",
]
