"""Build the whole report from runs: tables (Markdown + CSV), figures (PNG + SVG), ``report.md``,
``summary.json`` and the self-contained ``report.html``."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ramseygadgets.files import atomic_write, make_output_dir
from ramseygadgets.report import figures as figs
from ramseygadgets.report.html import problem_sections, render_html
from ramseygadgets.report.metrics import (
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    BREAKDOWNS,
    Cell,
    CellStats,
    breakdown,
    build_cells,
    cell_stats,
)
from ramseygadgets.report.runs import Run
from ramseygadgets.report.tables import (
    MISSING_NOTE,
    STD_NOTE,
    Table,
    breakdown_table,
    outcomes_table,
    per_problem_table,
    stats_record,
    table1,
    table1_wide,
    table2,
)

DEFINITIONS = (
    "Accuracy of a run: correct samples / expected samples of that run (a sample is correct only if the "
    "verifier accepted the parsed answer).",
    MISSING_NOTE,
    STD_NOTE,
    "Pass@k with k = number of runs: share of problems solved in at least one run. pass@j for j < k: the "
    "unbiased estimator 1 − C(n−c, j)/C(n, j) of Chen et al. (2021), n expected and c correct samples of a "
    "problem, averaged over problems.",
    "Average total tokens: mean of usage.total_tokens (prompt + completion, summed over rounds) over the "
    "samples obtained without a backend error that report it.",
    "Outcomes apart from wrong answers: parse failures, truncated responses (finish_reason length) and backend "
    "errors; accuracy is also shown with truncated samples removed.",
    "Several run directories of one model label are combined: disjoint problem sets are joined run by run, "
    "overlapping ones stacked as further runs.",
)


@dataclass(frozen=True)
class ReportOptions:
    title: str = "RamseyGadgets evaluation report"
    resamples: int = BOOTSTRAP_RESAMPLES
    seed: int = BOOTSTRAP_SEED
    html: bool = True
    drawings: bool = True


@dataclass
class ReportResult:
    out_dir: Path
    cells: list[Cell]
    stats: list[CellStats]
    tables: list[Table]
    figures: list[figs.FigureFiles]
    warnings: list[str]
    files: list[Path] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        return {
            "out_dir": str(self.out_dir),
            "table1": [stats_record(st) for st in self.stats],
            "warnings": self.warnings,
            "files": [str(p) for p in self.files],
        }


ProgressHook = Callable[[str, int], Callable[[], None]]


def build_report(
    runs: Sequence[Run],
    out_dir: str | Path,
    options: ReportOptions = ReportOptions(),
    progress: ProgressHook | None = None,
) -> ReportResult:
    """Compute every table and figure and write them under ``out_dir``.

    ``progress(description, total)`` may return a callback advanced once per problem card drawn.
    """
    out = make_output_dir(out_dir, "the report directory")
    kwargs = {"resamples": options.resamples, "seed": options.seed}
    warnings = [w for run in runs for w in run.warnings]
    cells = build_cells(runs)
    for cell in cells:
        warnings.extend(f"{cell.model} · {cell.setting}: {note}" for note in cell.notes)
    stats = [cell_stats(c, **kwargs) for c in cells]
    splits = {
        name: [breakdown(cell, split, **kwargs) for cell in cells]
        for name, split in BREAKDOWNS.items()
    }
    tables = [table1(stats), table1_wide(stats), table2(cells, **kwargs), outcomes_table(stats)]
    tables += [breakdown_table(cells, split, splits[name]) for name, split in BREAKDOWNS.items()]
    tables.append(per_problem_table(cells))
    result = ReportResult(out, cells, stats, tables, [], warnings)

    for table in tables:
        result.files.append(atomic_write(out / f"{table.name}.md", table.to_markdown()))
        result.files.append(atomic_write(out / f"{table.name}.csv", table.to_csv()))

    by_size = [
        (st, value, sub) for st, groups in zip(stats, splits["size"]) for value, sub in groups
    ]
    by_tier = [
        (st, value, sub) for st, groups in zip(stats, splits["tier"]) for value, sub in groups
    ]
    figure_dir = out / "figures"
    result.figures = [
        figs.accuracy_vs_tokens(stats, figure_dir),
        figs.accuracy_vs_size(by_size, figure_dir),
        figs.accuracy_by_tier(by_tier, figure_dir),
        figs.outcomes(stats, figure_dir),
    ]
    for f in result.figures:
        result.files += [f.png, f.svg]

    result.files.append(
        atomic_write(
            out / "report.md", report_markdown(options.title, tables, result.figures, warnings)
        )
    )

    if options.html:
        total = sum(len(c.problems) for c in cells)
        advance = progress("drawing problems", total) if progress else None
        sections = problem_sections(cells, drawings=options.drawings, advance=advance)
        html = render_html(
            title=options.title,
            tables=tables,
            figures=result.figures,
            problems=sections,
            definitions=DEFINITIONS,
            warnings=warnings,
            sources=sorted({s for c in cells for s in c.sources}),
            resamples=options.resamples,
            seed=options.seed,
            collapsed=("per_problem",),
        )
        result.files.append(atomic_write(out / "report.html", html))
    summary_path = out / "summary.json"
    result.files.append(summary_path)
    atomic_write(summary_path, json.dumps(result.summary(), indent=2) + "\n")
    return result


def report_markdown(
    title: str,
    tables: Sequence[Table],
    figures: Sequence[figs.FigureFiles],
    warnings: Sequence[str],
) -> str:
    parts = [f"# {title}", "", "## Definitions", "", *[f"- {d}" for d in DEFINITIONS], ""]
    if warnings:
        parts += ["## Warnings", "", *[f"- {w}" for w in warnings], ""]
    parts += ["## Tables", ""]
    parts += [t.to_markdown() for t in tables if t.name != "per_problem"]
    parts += ["Per-problem results: per_problem.md / per_problem.csv.", "", "## Figures", ""]
    for f in figures:
        parts += [f"![{f.title}](figures/{f.png.name})", "", f"*{f.title}.* {f.caption}", ""]
    return "\n".join(parts)
