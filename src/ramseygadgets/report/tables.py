"""The report's tables: Table 1 (per model and setting), Table 2 (example hint vs zero-shot on the
same problems), breakdowns (tier, minimal size, gadget, pair), outcomes and per-problem results.

A :class:`Table` holds raw records (written as CSV, percentages as numbers in [0, 100]) and display
columns (Markdown and HTML text, with a numeric sort key for the HTML report's sortable tables).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ramseygadgets.infra.terminal import terminal_text
from ramseygadgets.report.metrics import (
    Breakdown,
    Cell,
    CellStats,
    SizeStats,
    breakdown,
    cell_stats,
    problem_sort_key,
)
from ramseygadgets.report.runs import EXAMPLE_HINT, setting_sort_key

__all__ = [
    "Record",
    "Column",
    "Table",
    "accuracy_columns",
    "tokens_column",
    "FORMULA_START",
    "csv_value",
    "markdown_text",
    "pct",
    "fmt_pct",
    "fmt_mean_std",
    "fmt_ci",
    "fmt_tokens",
    "stats_record",
    "size_record",
    "fmt_number",
    "STD_NOTE",
    "MISSING_NOTE",
    "table1",
    "table1_wide",
    "table2",
    "breakdown_table",
    "outcomes_table",
    "per_problem_table",
]


Record = dict[str, Any]


@dataclass(frozen=True)
class Column:
    """A display column: ``text(record)`` is what is shown, ``sort(record)`` what it sorts by."""

    title: str
    text: Callable[[Record], str]
    sort: Callable[[Record], Any] = lambda record: None
    numeric: bool = True


@dataclass
class Table:
    name: str
    title: str
    caption: str
    columns: list[Column]
    records: list[Record] = field(default_factory=list)

    def display_rows(self) -> list[list[tuple[str, Any]]]:
        """Rows of ``(text, sort key)`` pairs."""
        return [[(c.text(r), c.sort(r)) for c in self.columns] for r in self.records]

    def to_markdown(self) -> str:
        cell = markdown_text
        lines = (
            [f"### {self.title}", "", markdown_text(self.caption), ""]
            if self.caption
            else [f"### {self.title}", ""]
        )
        lines.append("| " + " | ".join(cell(c.title) for c in self.columns) + " |")
        lines.append("|" + "|".join("---:" if c.numeric else "---" for c in self.columns) + "|")
        for row in self.display_rows():
            lines.append("| " + " | ".join(cell(text) for text, _ in row) + " |")
        if not self.records:
            lines.append("| " + " | ".join("" for _ in self.columns) + " |")
        return "\n".join(lines) + "\n"

    def to_csv(self) -> str:
        fields: list[str] = []
        for r in self.records:
            fields.extend(k for k in r if k not in fields)
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=fields, lineterminator="\n")
        writer.writerow({k: csv_value(k) for k in fields})  # column names may be setting names
        for r in self.records:
            writer.writerow({k: csv_value(v) for k, v in r.items()})
        return buffer.getvalue()


#: First characters that make a spreadsheet read a cell as a formula (OWASP "CSV injection").
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_value(value: Any) -> Any:
    """A CSV cell that spreadsheets show as text: ``None`` is empty, and a string that starts
    like a formula gets a leading ``'`` (numbers stay numbers)."""
    if value is None:
        return ""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def markdown_text(text: str) -> str:
    """Text for a Markdown table cell or paragraph: ``&``, ``<`` and ``>`` as HTML entities (no
    raw HTML such as ``<script>``), ``|`` escaped, no line breaks or control characters."""
    text = terminal_text(text, markup=False)
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("|", "\\|")


# ---------------------------------------------------------------------------------------------
# Formatting
# ---------------------------------------------------------------------------------------------
def pct(x: float | None) -> float | None:
    return None if x is None else round(100.0 * x, 4)


def fmt_pct(x: float | None) -> str:
    return "—" if x is None else f"{x:.2f}"


def fmt_mean_std(record: Record) -> str:
    mean, std = record.get("mean_accuracy_pct"), record.get("std_pct")
    if mean is None:
        return "—"
    return f"{mean:.2f} ± {std:.2f}" if std is not None else f"{mean:.2f} ± —"


def fmt_ci(record: Record, prefix: str = "ci") -> str:
    low, high = record.get(f"{prefix}_low_pct"), record.get(f"{prefix}_high_pct")
    return "—" if low is None else f"[{low:.2f}, {high:.2f}]"


def fmt_tokens(x: float | None) -> str:
    return "—" if x is None else f"{x:,.0f}"


def fmt_number(x: float | None) -> str:
    return "—" if x is None else f"{x:.2f}"


def size_record(sizes: SizeStats) -> Record:
    """The grades by distance to the optimum of one cell (percentages in [0, 100]); ``graded``
    is the denominator of the rate and the means, which are ``None`` when it is 0."""

    def rounded(x: float | None) -> float | None:
        return None if x is None else round(x, 4)

    ci = sizes.minimal_ci
    return {
        "graded": sizes.graded,
        "n_minimal": sizes.minimal if sizes.graded else None,
        "n_minimal_in_vertices": sizes.minimal_in_vertices if sizes.graded else None,
        "minimal_pct": pct(sizes.minimal_rate),
        "minimal_ci_low_pct": pct(ci.low) if ci else None,
        "minimal_ci_high_pct": pct(ci.high) if ci else None,
        "mean_excess_vertices": rounded(sizes.mean_excess_vertices),
        "mean_excess_edges": rounded(sizes.mean_excess_edges),
        "edges_graded": sizes.edges_graded,
    }


def stats_record(st: CellStats, **extra: Any) -> Record:
    """The raw numbers of one cell as a flat CSV record (percentages in [0, 100])."""
    record: Record = {
        "model": st.model,
        "setting": st.setting,
        **extra,
        "problems": st.problems,
        "runs": st.runs,
        "samples_expected": st.expected,
        "samples_missing": st.missing,
        "mean_accuracy_pct": pct(st.mean),
        "std_pct": pct(st.std),
        "ci_low_pct": pct(st.mean_ci.low) if st.mean_ci else None,
        "ci_high_pct": pct(st.mean_ci.high) if st.mean_ci else None,
        "pass_k": st.runs,
        "pass_at_k_pct": pct(st.pass_at_runs),
        "pass_ci_low_pct": pct(st.pass_ci.low) if st.pass_ci else None,
        "pass_ci_high_pct": pct(st.pass_ci.high) if st.pass_ci else None,
    }
    for k, value in sorted(st.pass_at.items()):
        record[f"unbiased_pass_at_{k}_pct"] = pct(value)
    record["avg_total_tokens"] = None if st.avg_tokens is None else round(st.avg_tokens, 2)
    record["run_accuracies_pct"] = " ".join(f"{100 * a:.2f}" for a in st.run_accuracies)
    for name, count in st.outcomes.items():
        record[f"n_{name.replace('-', '_')}"] = count
    record["accuracy_without_truncated_pct"] = pct(st.mean_without_truncated)
    record.update(size_record(st.sizes))
    return record


def _text(key: str) -> Column:
    return Column(
        key.capitalize(), lambda r: str(r.get(key, "")), lambda r: r.get(key), numeric=False
    )


def _count(title: str, key: str) -> Column:
    return Column(title, lambda r: str(r.get(key, 0)), lambda r: r.get(key, 0))


def accuracy_columns() -> list[Column]:
    """Mean accuracy ± sd, its 95% interval and pass@k, as Table 1 shows them."""
    return [
        Column("Accuracy % (mean ± sd)", fmt_mean_std, lambda r: r.get("mean_accuracy_pct")),
        Column("95% CI", fmt_ci, lambda r: r.get("ci_low_pct")),
        Column(
            "Pass@k %",
            lambda r: f"{fmt_pct(r.get('pass_at_k_pct'))} (k={r['pass_k']})",
            lambda r: r.get("pass_at_k_pct"),
        ),
    ]


def tokens_column() -> Column:
    """The mean total tokens per sample."""
    return Column(
        "Avg total tokens",
        lambda r: fmt_tokens(r.get("avg_total_tokens")),
        lambda r: r.get("avg_total_tokens"),
    )


def _pass_title(records: Sequence[Record]) -> str:
    ks = {r["pass_k"] for r in records}
    return f"Pass@{ks.pop()} %" if len(ks) == 1 else "Pass@k % (k = runs)"


def _with_pass_title(columns: list[Column], records: Sequence[Record]) -> list[Column]:
    title = _pass_title(records)
    return [Column(title, c.text, c.sort) if c.title == "Pass@k %" else c for c in columns]


# ---------------------------------------------------------------------------------------------
# The tables
# ---------------------------------------------------------------------------------------------
STD_NOTE = (
    "± is the sample standard deviation of the per-run accuracies (ddof = 1); 95% CI: percentile "
    "bootstrap over problems of the mean accuracy."
)
MISSING_NOTE = (
    "Missing samples (runs that did not finish) count as not solved: accuracy is over the "
    "expected sample set."
)


def table1(stats: Sequence[CellStats]) -> Table:
    records = [stats_record(st) for st in stats]
    max_runs = max((st.runs for st in stats), default=0)
    unbiased = [_unbiased_pass_column(k) for k in range(1, max_runs)]
    columns = [
        _text("model"),
        _text("setting"),
        _count("Problems", "problems"),
        _count("Runs", "runs"),
        *accuracy_columns(),
        *unbiased,
        tokens_column(),
        _count("Missing", "samples_missing"),
    ]
    caption = (
        f"Per model and setting. {STD_NOTE} Pass@k with k = number of runs: share of problems solved in "
        f"at least one run; pass@j (j < k): unbiased estimator 1 − C(n−c, j)/C(n, j) averaged over "
        f"problems. Tokens: mean usage.total_tokens per sample obtained (no backend error). {MISSING_NOTE}"
    )
    return Table(
        "table1",
        "Table 1: accuracy, Pass@k and token cost",
        caption,
        _with_pass_title(columns, records),
        records,
    )


def _unbiased_pass_column(k: int) -> Column:
    key = f"unbiased_pass_at_{k}_pct"
    return Column(f"pass@{k} %", lambda r: fmt_pct(r.get(key)), lambda r: r.get(key))


def _setting_column(setting: str) -> Column:
    return Column(setting, lambda r: r.get(setting, "—"), lambda r: r.get(f"{setting}__sort"))


def table1_wide(stats: Sequence[CellStats]) -> Table:
    """The paper's layout: one row per model, per setting ``mean ± sd / Pass@k / tokens``."""
    settings = sorted({st.setting for st in stats}, key=setting_sort_key)
    by_model: dict[str, Record] = {}
    for st in stats:
        r = stats_record(st)
        row = by_model.setdefault(st.model, {"model": st.model})
        row[f"{st.setting}"] = (
            f"{fmt_mean_std(r)} / {fmt_pct(r['pass_at_k_pct'])} / {fmt_tokens(r['avg_total_tokens'])}"
        )
        row[f"{st.setting}__sort"] = r["mean_accuracy_pct"]
    columns = [_text("model")] + [_setting_column(s) for s in settings]
    records = [by_model[m] for m in sorted(by_model)]
    return Table(
        "table1_wide",
        "Table 1 (paper layout)",
        "Each cell: accuracy % mean ± sd / Pass@k % / average total tokens.",
        columns,
        records,
    )


def table2(cells: Sequence[Cell], **kwargs: Any) -> Table:
    """Example hint against zero-shot, both restricted to the problems the example-hint cell covers."""
    records: list[Record] = []
    by_key = {(c.model, c.setting): c for c in cells}
    for cell in cells:
        if cell.setting != EXAMPLE_HINT:
            continue
        problems = cell.problems
        zero = by_key.get((cell.model, "zero-shot"))
        if zero is not None:
            restricted = zero.restrict(problems)
            if restricted.expected:
                records.append(stats_record(cell_stats(restricted, **kwargs)))
        records.append(stats_record(cell_stats(cell, **kwargs)))
    columns = [
        _text("model"),
        _text("setting"),
        _count("Problems", "problems"),
        _count("Runs", "runs"),
        *accuracy_columns(),
        tokens_column(),
        _count("Missing", "samples_missing"),
    ]
    caption = (
        "Zero-shot + example hint against zero-shot on the same problems (the K1,3 problems whose P3 "
        f"counterpart is in the dataset: 30 for a full run). {STD_NOTE}"
    )
    if not records:
        caption = (
            "Empty: no run has the example-hint setting (it applies only to the paper's K1,3 "
            "problems whose P3 counterpart is in the dataset; the extended set has none)."
        )
    return Table(
        "table2",
        "Table 2: example hint vs zero-shot",
        caption,
        _with_pass_title(columns, records),
        records,
    )


def breakdown_table(
    cells: Sequence[Cell],
    split: Breakdown,
    groups: Sequence[Sequence[tuple[object, CellStats]]] | None = None,
    **kwargs: Any,
) -> Table:
    """``groups`` (one list per cell, from :func:`breakdown`) may be passed when already computed."""
    records: list[Record] = []
    if groups is None:
        groups = [breakdown(cell, split, **kwargs) for cell in cells]
    for per_cell in groups:
        for value, st in per_cell:
            records.append(stats_record(st, **{split.name: "unknown" if value is None else value}))
    columns = [
        _text("model"),
        _text("setting"),
        Column(
            split.title.capitalize(),
            lambda r: str(r.get(split.name)),
            lambda r: r.get(split.name),
            numeric=split.name == "size",
        ),
        _count("Problems", "problems"),
        _count("Runs", "runs"),
        *accuracy_columns(),
        _count("Missing", "samples_missing"),
    ]
    return Table(
        f"by_{split.name}",
        f"Accuracy by {split.title}",
        f"Per model, setting and {split.title}. {STD_NOTE}",
        _with_pass_title(columns, records),
        records,
    )


def outcomes_table(stats: Sequence[CellStats]) -> Table:
    records = [stats_record(st) for st in stats]
    columns = [
        _text("model"),
        _text("setting"),
        _count("Expected", "samples_expected"),
        _count("Correct", "n_correct"),
        _count("Wrong", "n_wrong"),
        _count("Parse failures", "n_parse_failure"),
        _count("Truncated", "n_truncated"),
        _count("Errors", "n_error"),
        _count("Missing", "n_missing"),
        Column(
            "Accuracy %",
            lambda r: fmt_pct(r.get("mean_accuracy_pct")),
            lambda r: r.get("mean_accuracy_pct"),
        ),
        Column(
            "Accuracy % without truncated",
            lambda r: fmt_pct(r.get("accuracy_without_truncated_pct")),
            lambda r: r.get("accuracy_without_truncated_pct"),
        ),
    ]
    caption = (
        "Outcomes are exclusive, decided in this order: correct; error (backend error, no sample); truncated "
        "(finish_reason length); parse failure (answer unreadable); wrong (parsed, verifier said no); missing "
        "(not recorded). Accuracy without truncated: every truncated sample removed from the expected set."
    )
    return Table(
        "outcomes",
        "Outcomes: wrong answers, parse failures, truncations, errors",
        caption,
        columns,
        records,
    )


def per_problem_table(cells: Sequence[Cell]) -> Table:
    records: list[Record] = []
    for cell in cells:
        infos = cell.infos()
        grouped = cell.keys_by_problem()
        for problem in cell.problems:
            keys = grouped[problem]
            samples = [cell.samples.get(k) for k in keys]
            solved = sum(1 for s in samples if s is not None and s.correct)
            info = infos[problem]
            outcome_list = ["missing" if s is None else s.outcome for s in samples]
            records.append(
                {
                    "model": cell.model,
                    "setting": cell.setting,
                    "problem": problem,
                    "tier": info.tier,
                    "gadget": info.gadget,
                    "pair": info.pair,
                    "min_vertices": info.min_vertices,
                    "runs": len(keys),
                    "solved": solved,
                    "solved_pct": pct(solved / len(keys)) if keys else None,
                    "outcomes": " ".join(outcome_list),
                }
            )
    records.sort(
        key=lambda r: (problem_sort_key(r["problem"]), setting_sort_key(r["setting"]), r["model"])
    )
    columns = [
        _text("problem"),
        _text("model"),
        _text("setting"),
        _text("tier"),
        _text("gadget"),
        Column(
            "Minimal size",
            lambda r: "?" if r["min_vertices"] is None else str(r["min_vertices"]),
            lambda r: r["min_vertices"],
        ),
        Column("Solved", lambda r: f"{r['solved']}/{r['runs']}", lambda r: r["solved_pct"]),
        Column("Outcomes by run", lambda r: r["outcomes"], lambda r: r["outcomes"], numeric=False),
    ]
    return Table(
        "per_problem",
        "Per-problem results",
        "One row per problem, model and setting.",
        columns,
        records,
    )
