"""The tool settings in the report: no tool (``zero-shot``), the coloring tool (``multiround``)
and Python (``python``: the model runs programs in a sandbox, docs/eval.md) side by side.

* :func:`tool_comparison`: per model with a python run, the accuracy of the three settings per
  size tier of the minimal solution (and over all tiers), each on the problems that all of the
  model's compared settings cover, so the three are measured on the same problems;
* :func:`tools_table`: that comparison as a table (``tools_by_size_tier``; the figure of the
  same name is :func:`ramseygadgets.report.figures.tools_by_size_tier`);
* :func:`tool_use_table`: per model and tool setting, the mean tool calls, tool seconds,
  programs and rounds per sample (``tool_use``).

All of it is written only when a run has the python setting (:func:`has_python`): a report of
runs without it is what it was before the setting existed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ramseygadgets.infra import numbers
from ramseygadgets.problems.extended import SIZE_TIERS
from ramseygadgets.report.metrics import SIZE_TIER_BREAKDOWN, Cell, CellStats, breakdown, cell_stats
from ramseygadgets.report.tables import (
    STD_NOTE,
    Column,
    Record,
    Table,
    accuracy_columns,
    fmt_number,
    stats_record,
    tokens_column,
)
from ramseygadgets.runs.samples import MULTIROUND, PYTHON_SETTING, TOOL_SETTINGS, Sample

__all__ = [
    "ALL_TIERS",
    "COMPARED_SETTINGS",
    "PROGRAM_LIMIT_FLAGS",
    "TOOL_LABELS",
    "UNKNOWN_TIER",
    "ToolTier",
    "has_python",
    "tier_order",
    "tool_comparison",
    "tool_use_records",
    "tool_use_table",
    "tools_table",
]

#: The settings compared side by side: no tool, the coloring tool, Python.
COMPARED_SETTINGS = ("zero-shot", MULTIROUND, PYTHON_SETTING)
#: What each compared setting gives the model, as tables and figures name it.
TOOL_LABELS = {"zero-shot": "no tool", MULTIROUND: "coloring tool", PYTHON_SETTING: "Python"}
#: The tier of the rows over all the compared problems.
ALL_TIERS = "all"
#: The tier of problems whose minimal solution size is unknown.
UNKNOWN_TIER = "unknown"
#: A program's flags (``programs`` of a python sample) that say it was stopped at a limit.
PROGRAM_LIMIT_FLAGS = ("timed_out", "memory_exceeded", "cpu_exceeded", "killed_by_signal")


def has_python(cells: Iterable[Cell]) -> bool:
    """Whether any run has the python setting (then the tool tables and figure are written)."""
    return any(cell.setting == PYTHON_SETTING for cell in cells)


def tier_order(tier: str) -> int:
    """The size tiers in order, then the unknown one, then :data:`ALL_TIERS`."""
    order = (*SIZE_TIERS, UNKNOWN_TIER, ALL_TIERS)
    return order.index(tier) if tier in order else len(order)


@dataclass(frozen=True)
class ToolTier:
    """The statistics of one compared setting of one model on one size tier."""

    model: str
    setting: str
    tier: str
    stats: CellStats


def _compared_cells(group: Sequence[Cell]) -> tuple[list[Cell], set[str], list[str]]:
    """The cells of one model to compare (python first kept, then each other setting that
    shares problems with those kept), the problems they all cover, and a note per cell left
    out for sharing none."""
    python = next(c for c in group if c.setting == PYTHON_SETTING)
    kept, common, notes = [python], set(python.problems), []
    for cell in group:
        if cell is python:
            continue
        shared = common & set(cell.problems)
        if shared:
            kept.append(cell)
            common = shared
        else:
            notes.append(
                f"{cell.model} · {cell.setting}: no problem in common with its python run; "
                "left out of the tool comparison"
            )
    kept.sort(key=lambda c: COMPARED_SETTINGS.index(c.setting))
    return kept, common, notes


def tool_comparison(cells: Sequence[Cell], **kwargs: Any) -> tuple[list[ToolTier], list[str]]:
    """Per model with a python run: zero-shot, multiround and python (those it has) per size
    tier and over all tiers, each restricted to the problems all of them cover; and a warning
    per cell left out.  ``kwargs``: ``resamples`` and ``seed`` of the bootstrap."""
    by_model: dict[str, list[Cell]] = {}
    for cell in cells:
        if cell.setting in COMPARED_SETTINGS:
            by_model.setdefault(cell.model, []).append(cell)
    points: list[ToolTier] = []
    notes: list[str] = []
    for model, group in by_model.items():
        if not has_python(group):
            continue
        kept, common, left_out = _compared_cells(group)
        notes += left_out
        for cell in kept:
            part = cell if set(cell.problems) == common else cell.restrict(common)
            for value, st in breakdown(part, SIZE_TIER_BREAKDOWN, **kwargs):
                tier = UNKNOWN_TIER if value is None else str(value)
                points.append(ToolTier(model, cell.setting, tier, st))
            points.append(ToolTier(model, cell.setting, ALL_TIERS, cell_stats(part, **kwargs)))
    points.sort(key=lambda p: (p.model, tier_order(p.tier), COMPARED_SETTINGS.index(p.setting)))
    return points, notes


def _text(title: str, key: str) -> Column:
    return Column(title, lambda r: str(r.get(key, "")), lambda r: r.get(key), numeric=False)


def _count(title: str, key: str) -> Column:
    return Column(title, lambda r: str(r.get(key, 0)), lambda r: r.get(key, 0))


def tools_table(points: Sequence[ToolTier]) -> Table:
    """:func:`tool_comparison` as a table: one row per model, size tier and compared setting."""
    records = [stats_record(p.stats, tool=TOOL_LABELS[p.setting], size_tier=p.tier) for p in points]
    columns = [
        _text("Model", "model"),
        _text("Size tier", "size_tier"),
        _text("Tool", "tool"),
        _text("Setting", "setting"),
        _count("Problems", "problems"),
        _count("Runs", "runs"),
        *accuracy_columns(),
        tokens_column(),
        _count("Missing", "samples_missing"),
    ]
    caption = (
        "No tool (zero-shot), the coloring tool (multiround) and Python (python) side by side, per "
        "model with a python run and size tier of the minimal solution (≤6, 7-8, 9-10, ≥11 "
        "vertices; unknown: no minimal size known; all: every compared problem). Each setting is "
        "counted on the problems all of the model's compared settings cover, so the three are "
        f"measured on the same problems. {STD_NOTE}"
    )
    return Table(
        "tools_by_size_tier",
        "No tool, coloring tool and Python by size tier",
        caption,
        columns,
        records,
    )


#: What the tool figures rest on, said next to them (docs/trust.md, "Run folders and logs").
TAKEN_FROM_SAMPLES = (
    "Taken from samples.jsonl as recorded, not re-derived: tool calls, tool seconds, the "
    "programs and their limit flags (only the sandbox saw them run; each number is range-"
    "checked, an out-of-range one is read as missing with a warning naming file:line)."
)


def _amount(value: Any) -> float | None:
    """A recorded count or number of seconds in range (:func:`ramseygadgets.infra.numbers.seconds`:
    finite, 0 .. 10^9), else ``None``: the reader has already warned of a hostile one."""
    return numbers.seconds(value)


def _mean(values: Sequence[float]) -> float | None:
    return round(sum(values) / len(values), 4) if values else None


def _programs(sample: Sample) -> list[dict[str, Any]] | None:
    programs = sample.record.get("programs")
    if not isinstance(programs, list):
        return None
    return [p for p in programs if isinstance(p, dict)]


def tool_use_records(cells: Sequence[Cell]) -> list[Record]:
    """Per model and tool setting (:data:`~ramseygadgets.runs.samples.TOOL_SETTINGS`): the
    means per recorded sample of tool calls, tool seconds, programs and rounds, each over the
    samples that record the field (backend errors included), and the programs stopped at a
    limit."""
    records: list[Record] = []
    for cell in cells:
        if cell.setting not in TOOL_SETTINGS:
            continue
        samples = list(cell.samples.values())
        calls = [x for s in samples if (x := _amount(s.record.get("tool_calls"))) is not None]
        seconds = [x for s in samples if (x := _amount(s.record.get("tool_seconds"))) is not None]
        rounds = [float(s.rounds) for s in samples if s.rounds is not None and s.rounds >= 0]
        programs = [p for s in samples if (p := _programs(s)) is not None]
        stopped = sum(
            1
            for runs in programs
            for p in runs
            if any(p.get(f) is True for f in PROGRAM_LIMIT_FLAGS)
        )
        records.append(
            {
                "model": cell.model,
                "setting": cell.setting,
                "tool": TOOL_LABELS[cell.setting],
                "samples": len(samples),
                "mean_tool_calls": _mean(calls),
                "mean_tool_seconds": _mean(seconds),
                "total_tool_seconds": round(sum(seconds), 4) if seconds else None,
                "mean_programs": _mean([float(len(p)) for p in programs]),
                "programs": sum(len(p) for p in programs) if programs else None,
                "programs_stopped": stopped if programs else None,
                "mean_rounds": _mean(rounds),
            }
        )
    return records


def tool_use_table(cells: Sequence[Cell]) -> Table:
    """:func:`tool_use_records` as a table (``tool_use``)."""

    def number(title: str, key: str) -> Column:
        return Column(title, lambda r: fmt_number(r.get(key)), lambda r: r.get(key))

    def count(title: str, key: str) -> Column:
        return Column(
            title,
            lambda r: "—" if r.get(key) is None else str(r[key]),
            lambda r: r.get(key),
        )

    columns = [
        _text("Model", "model"),
        _text("Setting", "setting"),
        _text("Tool", "tool"),
        count("Samples", "samples"),
        number("Tool calls / sample", "mean_tool_calls"),
        number("Tool seconds / sample", "mean_tool_seconds"),
        number("Programs / sample", "mean_programs"),
        count("Programs stopped at a limit", "programs_stopped"),
        number("Rounds / sample", "mean_rounds"),
    ]
    caption = (
        "Per model and tool setting (coloring tool: multiround; Python: python), means per "
        "recorded sample (backend errors included) of: tool calls (tool_calls: the coloring "
        "tool's requests, the programs asked to run), tool seconds (tool_seconds: the programs' "
        "wall time; recorded by the python setting only, — for the coloring tool), programs run "
        "and rounds (model calls). Programs stopped at a limit: those ended by the wall-time, "
        f"CPU or memory limit or a signal. {TAKEN_FROM_SAMPLES}"
    )
    return Table("tool_use", "Tool use per sample", caption, columns, tool_use_records(cells))
