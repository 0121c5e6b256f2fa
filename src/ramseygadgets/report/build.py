"""Build the whole report from runs: tables (Markdown + CSV; the leaderboard among them),
figures (PNG + SVG), ``report.md``, ``summary.json``, ``discoveries.jsonl`` and the
self-contained ``report.html``."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ramseygadgets.core.errors import RamseyGadgetsError
from ramseygadgets.infra.files import make_output_dir, staged_directory
from ramseygadgets.report import figures as figs
from ramseygadgets.report.grades import (
    DISCOVERIES_FILE,
    Discovery,
    discoveries_jsonl,
    discoveries_table,
    find_discoveries,
    optimum_table,
)
from ramseygadgets.report.html import problem_sections, render_html
from ramseygadgets.report.leaderboard import (
    compare_fresh,
    fresh_table,
    leaderboard_records,
    leaderboard_table,
)
from ramseygadgets.report.metrics import (
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    BREAKDOWNS,
    SIZE_TIER_BREAKDOWN,
    Cell,
    CellStats,
    breakdown,
    build_cells,
    cell_stats,
    has_more_colors,
)
from ramseygadgets.report.regrade import Regraded, disputed_table, regrade_runs
from ramseygadgets.report.runs import FRESH_SET, Run
from ramseygadgets.report.tables import (
    MISSING_NOTE,
    STD_NOTE,
    Table,
    breakdown_table,
    markdown_text,
    outcomes_table,
    per_problem_table,
    stats_record,
    table1,
    table1_wide,
    table2,
)
from ramseygadgets.report.tools import (
    ToolTier,
    has_python,
    tool_comparison,
    tool_use_table,
    tools_table,
)
from ramseygadgets.runs.regrade import Dispute
from ramseygadgets.verification.selection import (
    SIZE_TIERED_SETS,
    Selection,
    base_problem_set,
    check_set_name,
    merge_problem_sets,
    named_problem_set,
)

__all__ = [
    "DEFINITIONS",
    "ReportOptions",
    "ReportResult",
    "ProgressHook",
    "FAILED_SHARE_WARNING",
    "build_report",
    "usable_runs",
    "compute_report",
    "shows_size_tiers",
    "write_report",
    "write_text",
    "report_html",
    "report_markdown",
]


DEFINITIONS = (
    "Accuracy of a run: correct samples / expected samples of that run (a sample is correct only if the "
    "verifier accepted the parsed answer).",
    MISSING_NOTE,
    STD_NOTE,
    "Pass@k with k = number of runs: share of problems solved in at least one run. pass@j for j < k: the "
    "unbiased estimator 1 − C(n−c, j)/C(n, j) of Chen et al. (2021), n expected and c correct samples of a "
    "problem, averaged over problems.",
    "Average total tokens: mean of usage.total_tokens (prompt + completion, summed over rounds) over the "
    "samples obtained without a backend error that report it (0 counts as not reported).",
    "Outcomes apart from wrong answers: parse failures, truncated responses (finish_reason length) and backend "
    "errors; accuracy is also shown with truncated samples removed.",
    "Several run directories of one model label are combined: disjoint problem sets are joined run by run, "
    "overlapping ones stacked as further runs. Runs of fresh problems (eval --fresh) are kept apart: their "
    "model label gets ' [fresh]'.",
    "Minimal rate: among every correct answer graded against an optimum (the denominator, shown), the share "
    "on the vertex optimum of an optimum proven in full, with a 95% percentile bootstrap CI over problems; an "
    "answer on the vertex optimum of one whose edge count is unproven, or whose bound holds only as far as its "
    "cube log does, is counted as 'minimal in vertices only' (shown next to the rate), never as minimal; an "
    "answer above it is not minimal with its vertex excess. Mean excess: vertices above the optimum, edges above "
    "a proven edge count. Each problem section says what its optimum rests on where it is not proven in full. "
    "— where none is graded (no optimum), never 0.",
    "Discoveries: correct answers smaller than the best known solution of a problem without a proven optimum, "
    "or than a proven optimum, each re-verified by an independent method; one whose recheck did not agree is "
    "listed as disputed. All are written to discoveries.jsonl.",
    "Every grade is re-derived by this report, never read from samples.jsonl: the recorded candidate is verified "
    "again (else the reply is parsed again), minimal and excess come from the proven optimum of the run's own "
    "problem set, and each discovery is rechecked again. A sample whose record disagrees is counted by the "
    "re-derived grade and listed in the table of disputed samples (file:line). A run given twice counts once; "
    "runs of one model over different problem sets are shown apart (the set's name in the label).",
    "Benchmark vs fresh: accuracy on the benchmark and on freshly drawn problems of the same size tier; the gap "
    "(benchmark − fresh, percentage points) is the contamination signal.",
)


@dataclass(frozen=True)
class ReportOptions:
    title: str = "RamseyGadgets evaluation report"
    resamples: int = BOOTSTRAP_RESAMPLES
    seed: int = BOOTSTRAP_SEED
    html: bool = True
    drawings: bool = True
    problem_set: str | None = None  # named set whose tiers to show; None: from the runs' configs
    dataset: str | None = None  # problem-set file of the runs; None: as their configs record it


@dataclass
class ReportResult:
    out_dir: Path
    cells: list[Cell]
    stats: list[CellStats]
    tables: list[Table]
    figures: list[figs.FigureFiles]
    warnings: list[str]
    files: list[Path] = field(default_factory=list)
    by_size: list[tuple[CellStats, object, CellStats]] = field(default_factory=list, repr=False)
    by_tier: list[tuple[CellStats, object, CellStats]] = field(default_factory=list, repr=False)
    problems: Selection | None = field(default=None, repr=False)  # names and shipped solutions
    discoveries: list[Discovery] = field(default_factory=list)
    disputes: list[Dispute] = field(default_factory=list)
    #: No tool, coloring tool and Python per size tier (empty: no run has the python setting).
    tool_tiers: list[ToolTier] = field(default_factory=list, repr=False)

    def table(self, name: str) -> Table | None:
        return next((t for t in self.tables if t.name == name), None)

    def summary(self) -> dict[str, Any]:
        leaderboard = self.table("leaderboard")
        return {
            "out_dir": str(self.out_dir),
            "table1": [stats_record(st) for st in self.stats],
            "leaderboard": leaderboard.records if leaderboard is not None else [],
            "discoveries": [d.to_json() for d in self.discoveries],
            "disputed": [d.to_json() for d in self.disputes],
            "warnings": self.warnings,
            "files": [str(p) for p in self.files],
        }


ProgressHook = Callable[[str, int], Callable[[], None]]

#: A run whose recorded samples are more than this share backend errors or truncations is
#: reported with a warning: its accuracy measures the backend or the token limit.
FAILED_SHARE_WARNING = 0.5


def build_report(
    runs: Sequence[Run],
    out_dir: str | Path,
    options: ReportOptions = ReportOptions(),
    progress: ProgressHook | None = None,
) -> ReportResult:
    """Compute every table and figure and write them under ``out_dir``, all files together: on
    any failure (a full disk) the report already there stays whole and nothing else is left.

    ``progress(description, total)`` may return a callback advanced once per problem card drawn.
    """
    out = make_output_dir(out_dir, "the report directory")
    regraded = regrade(runs, options)
    kept, warnings = usable_runs(regraded.runs)
    result = compute_report(out, kept, regraded.warnings + warnings, options, regraded.disputes)
    try:
        with staged_directory(out) as stage:
            write_report(result, stage, options, progress)
    except OSError as exc:
        raise RamseyGadgetsError(
            f"cannot write the report to {out}: {exc.strerror or exc}; "
            "the report there (if any) is unchanged"
        ) from None
    return result


def regrade(runs: Sequence[Run], options: ReportOptions) -> Regraded:
    """The runs the report counts: each once, under its own problem set, every grade re-derived
    (:func:`~ramseygadgets.report.regrade.regrade_runs`)."""
    return regrade_runs(runs, dataset=options.dataset, set_name=options.problem_set)


def usable_runs(runs: Sequence[Run]) -> tuple[list[Run], list[str]]:
    """The runs with samples, and the warnings of all runs: a run with no samples (e.g. an
    ``eval`` whose start failed) is left out; a run whose samples are mostly backend errors or
    truncations is kept but flagged."""
    warnings = [w for run in runs for w in run.warnings]
    kept: list[Run] = []
    for run in runs:
        where = run.source or run.label
        if not run.samples:
            warnings.append(f"{where}: no samples recorded; left out of the report")
            continue
        kept.append(run)
        errors = sum(1 for s in run.samples if s.outcome == "error")
        truncated = sum(1 for s in run.samples if s.outcome == "truncated")
        if errors + truncated > FAILED_SHARE_WARNING * len(run.samples):
            warnings.append(
                f"{where}: {errors} of {len(run.samples)} samples are backend errors and "
                f"{truncated} truncated (finish_reason length); its accuracy reflects the "
                "backend or the token limit more than the model"
            )
    if runs and not kept:
        raise RamseyGadgetsError(
            "nothing to report: no run has any samples recorded ("
            + ", ".join(run.source or run.label for run in runs[:3])
            + (", ..." if len(runs) > 3 else "")
            + ")"
        )
    return kept, warnings


def compute_report(
    out: Path,
    runs: Sequence[Run],
    warnings: list[str],
    options: ReportOptions,
    disputes: Sequence[Dispute] = (),
) -> ReportResult:
    """Cells, statistics and tables (no files yet) of runs as :func:`regrade` prepared them."""
    kwargs = {"resamples": options.resamples, "seed": options.seed}
    cells = build_cells(runs)
    for cell in cells:
        warnings.extend(f"{cell.model} · {cell.setting}: {note}" for note in cell.notes)
    stats = [cell_stats(c, **kwargs) for c in cells]
    shown = {
        name: split
        for name, split in BREAKDOWNS.items()
        if name != "colors" or has_more_colors(cells)
    }
    splits = {
        name: [breakdown(cell, split, **kwargs) for cell in cells] for name, split in shown.items()
    }
    tables = [table1(stats), table1_wide(stats), table2(cells, **kwargs), outcomes_table(stats)]
    tables += [breakdown_table(cells, split, splits[name]) for name, split in shown.items()]
    if shows_size_tiers(runs, options):
        split = SIZE_TIER_BREAKDOWN
        tables.append(breakdown_table(cells, split, [breakdown(c, split, **kwargs) for c in cells]))
    tool_tiers: list[ToolTier] = []
    if has_python(cells):  # the python setting: the three tool settings side by side
        tool_tiers, notes = tool_comparison(cells, **kwargs)
        warnings.extend(notes)
        tables += [tools_table(tool_tiers), tool_use_table(cells)]
    tables.append(optimum_table(stats, splits["tier"]))
    comparisons = compare_fresh(cells, **kwargs)
    if any(cell.fresh for cell in cells):
        tables.append(fresh_table(comparisons))
    problems = report_problems(runs, options)
    discoveries = find_discoveries(runs, problems)
    tables.append(discoveries_table(discoveries))
    tables.append(disputed_table(disputes))
    tables.append(per_problem_table(cells))
    leaderboard = leaderboard_table(leaderboard_records(cells, stats, comparisons, disputes))
    result = ReportResult(out, cells, stats, [leaderboard, *tables], [], warnings)
    result.problems = problems
    result.discoveries = discoveries
    result.disputes = list(disputes)
    result.by_size = _flatten(stats, splits["size"])
    result.by_tier = _flatten(stats, splits["tier"])
    result.tool_tiers = tool_tiers
    return result


def report_problems(runs: Sequence[Run], options: ReportOptions) -> Selection:
    """The problems the report names and draws, with their shipped solutions: ``--dataset``, or
    ``--set``, else the runs' own problem sets (``run.problem_set``: their problem-set files
    where still readable, their named sets) and always the paper's 70."""
    if options.dataset is not None or options.problem_set is not None:
        return base_problem_set(options.dataset, options.problem_set)
    sets = [named_problem_set("paper")]
    sets += [run.problem_set for run in runs if run.problem_set is not None]
    return merge_problem_sets(sets)


def shows_size_tiers(runs: Sequence[Run], options: ReportOptions) -> bool:
    """Accuracy by size tier is shown for sets that have size tiers: ``options.problem_set``
    (``report --set``), else the set recorded in any run's ``config.json`` (fresh problems
    have size tiers too)."""

    if options.problem_set is not None:
        return check_set_name(options.problem_set) in SIZE_TIERED_SETS
    tiered = (*SIZE_TIERED_SETS, FRESH_SET)
    return any(run.config.get("problem_set") in tiered for run in runs)


def _flatten(
    stats: Sequence[CellStats], groups: Sequence[Sequence[tuple[object, CellStats]]]
) -> list[tuple[CellStats, object, CellStats]]:
    return [(st, value, sub) for st, per_cell in zip(stats, groups) for value, sub in per_cell]


def write_report(
    result: ReportResult, stage: Path, options: ReportOptions, progress: ProgressHook | None
) -> None:
    """Write every file of the report under ``stage`` (as it will lie under ``result.out_dir``);
    ``result.figures`` and ``result.files`` get the final paths."""
    staged: list[Path] = []
    for table in result.tables:
        staged.append(write_text(stage / f"{table.name}.md", table.to_markdown()))
        staged.append(write_text(stage / f"{table.name}.csv", table.to_csv()))
    figure_dir = stage / "figures"
    figures = [
        figs.accuracy_vs_tokens(result.stats, figure_dir),
        figs.accuracy_vs_size(result.by_size, figure_dir),
        figs.accuracy_by_tier(result.by_tier, figure_dir),
        figs.outcomes(result.stats, figure_dir),
        figs.excess_vertices(result.stats, figure_dir),
    ]
    if result.tool_tiers:
        figures.append(figs.tools_by_size_tier(result.tool_tiers, figure_dir))
    staged += [path for f in figures for path in (f.png, f.svg)]
    staged.append(write_text(stage / DISCOVERIES_FILE, discoveries_jsonl(result.discoveries)))
    markdown = report_markdown(options.title, result.tables, figures, result.warnings)
    staged.append(write_text(stage / "report.md", markdown))
    if options.html:
        staged.append(
            write_text(stage / "report.html", report_html(result, figures, options, progress))
        )
    final = {
        path: result.out_dir / path.relative_to(stage) for path in [*staged, stage / "summary.json"]
    }
    result.figures = [replace(f, png=final[f.png], svg=final[f.svg]) for f in figures]
    result.files = list(final.values())
    write_text(
        stage / "summary.json", json.dumps(result.summary(), indent=2, allow_nan=False) + "\n"
    )


def write_text(path: Path, text: str) -> Path:
    """A new file of the staging directory (made durable when the report is committed)."""
    path.write_text(text, encoding="utf-8")
    return path


def report_html(
    result: ReportResult,
    figures: Sequence[figs.FigureFiles],
    options: ReportOptions,
    progress: ProgressHook | None,
) -> str:
    cells = result.cells
    total = sum(len(c.problems) for c in cells)
    advance = progress("drawing problems", total) if progress else None
    sections = problem_sections(
        cells,
        drawings=options.drawings,
        advance=advance,
        problems=result.problems,
    )
    return render_html(
        title=options.title,
        tables=result.tables,
        figures=figures,
        problems=sections,
        definitions=DEFINITIONS,
        warnings=result.warnings,
        sources=sorted({s for c in cells for s in c.sources}),
        resamples=options.resamples,
        seed=options.seed,
        collapsed=("per_problem",),
    )


def report_markdown(
    title: str,
    tables: Sequence[Table],
    figures: Sequence[figs.FigureFiles],
    warnings: Sequence[str],
) -> str:
    """The Markdown report; every text that may hold names from the runs (title, warnings,
    captions) is escaped with :func:`markdown_text`."""
    parts = [f"# {markdown_text(title)}", "", "## Definitions", ""]
    parts += [*[f"- {d}" for d in DEFINITIONS], ""]
    if warnings:
        parts += ["## Warnings", "", *[f"- {markdown_text(w)}" for w in warnings], ""]
    parts += ["## Tables", ""]
    parts += [t.to_markdown() for t in tables if t.name != "per_problem"]
    parts += ["Per-problem results: per_problem.md / per_problem.csv.", "", "## Figures", ""]
    for f in figures:
        caption = markdown_text(f.caption)
        parts += [f"![{f.title}](figures/{f.png.name})", "", f"*{f.title}.* {caption}", ""]
    return "\n".join(parts)
