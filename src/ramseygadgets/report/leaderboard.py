"""Benchmark against fresh problems (table ``fresh_vs_benchmark``) and the leaderboard (table
``leaderboard``: ``leaderboard.md``, ``leaderboard.csv`` and a section of ``report.html``).

* **Fresh against benchmark.** For each model label and setting with both a benchmark cell and
  a cell of fresh problems (runs whose ``config.json`` has ``problem_set`` ``fresh``), both are
  split by size tier (:func:`~ramseygadgets.report.metrics.size_tier_of`: the tier of the
  problem's minimal vertex count) and set side by side, each accuracy with its bootstrap
  interval, with the **gap** benchmark − fresh in percentage points and its interval
  (:func:`~ramseygadgets.runs.stats.accuracy_gap`).  A large positive gap on the same tier is
  the contamination signal: the public problems are easier for the model than new ones of the
  same size.  The row ``shared`` pools the tiers both have; it is the leaderboard's gap.
* **Leaderboard.** One row per model label and setting (the benchmark cell; the fresh cell
  where a model has only fresh runs), sorted by accuracy: accuracy with its interval, minimal
  rate (of the graded answers) and mean excess, pass@k (k = runs), mean total tokens, the gap,
  the samples whose recorded grade disagreed with the re-derived one (``disputed``, with their
  ``file:line``: :mod:`.regrade`), and the command lines (``config.json`` ``command``; "—" when
  not recorded) and problem-set hashes (``dataset_hash``) of the runs behind the row.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ramseygadgets.problems.extended import SIZE_TIERS
from ramseygadgets.report.grades import SIZE_COLUMNS
from ramseygadgets.report.metrics import (
    Cell,
    CellStats,
    Interval,
    accuracy_gap,
    cell_stats,
    size_tier_of,
)
from ramseygadgets.report.regrade import disputes_at
from ramseygadgets.report.runs import setting_sort_key
from ramseygadgets.report.tables import (
    Column,
    Record,
    Table,
    fmt_ci,
    fmt_pct,
    fmt_tokens,
    pct,
    stats_record,
)
from ramseygadgets.runs.regrade import Dispute

__all__ = [
    "SHARED_TIERS",
    "Comparison",
    "compare_fresh",
    "fresh_table",
    "leaderboard_records",
    "leaderboard_table",
]

#: The tier of the comparison row over every size tier both cells have.
SHARED_TIERS = "shared"


@dataclass(frozen=True)
class Comparison:
    """One size tier of a model and setting: benchmark and fresh statistics and the gap."""

    model: str
    setting: str
    tier: str
    benchmark: CellStats | None
    fresh: CellStats | None
    gap: float | None = None
    gap_ci: Interval | None = None


def _pairs(cells: Sequence[Cell]) -> list[tuple[Cell | None, Cell]]:
    """(benchmark cell or None, fresh cell) per model label and setting with fresh runs."""
    benchmark = {(c.label, c.setting): c for c in cells if not c.fresh}
    return [(benchmark.get((c.label, c.setting)), c) for c in cells if c.fresh]


def _by_tier(cell: Cell) -> dict[str, Cell]:
    tier_of = {p: size_tier_of(info) for p, info in cell.infos().items()}
    return {str(t): part for t, part in cell.partition(tier_of).items() if t is not None}


def _compare(
    model: str, setting: str, tier: str, bench: Cell | None, fresh: Cell | None, **kwargs: Any
) -> Comparison:
    gap, ci = (None, None)
    if bench is not None and fresh is not None:
        gap, ci = accuracy_gap(bench, fresh, **kwargs)
    return Comparison(
        model,
        setting,
        tier,
        None if bench is None else cell_stats(bench, **kwargs),
        None if fresh is None else cell_stats(fresh, **kwargs),
        gap,
        ci,
    )


def compare_fresh(cells: Sequence[Cell], **kwargs: Any) -> list[Comparison]:
    """Per model and setting with fresh runs: one comparison per size tier either side has
    (problems of unknown minimal size left out), then the ``shared`` row."""
    out: list[Comparison] = []
    for bench, fresh in _pairs(cells):
        fresh_tiers = _by_tier(fresh)
        bench_tiers = _by_tier(bench) if bench is not None else {}
        for tier in SIZE_TIERS:
            if tier in fresh_tiers or tier in bench_tiers:
                pair = (bench_tiers.get(tier), fresh_tiers.get(tier))
                out.append(_compare(fresh.label, fresh.setting, tier, *pair, **kwargs))
        shared = [t for t in SIZE_TIERS if t in fresh_tiers and t in bench_tiers]
        if bench is not None and shared:
            keep_b = {p for t in shared for p in bench_tiers[t].problems}
            keep_f = {p for t in shared for p in fresh_tiers[t].problems}
            both = (bench.restrict(keep_b), fresh.restrict(keep_f))
            out.append(_compare(fresh.label, fresh.setting, SHARED_TIERS, *both, **kwargs))
    return out


def _side(prefix: str, st: CellStats | None) -> Record:
    if st is None:
        return {f"{prefix}_problems": None, f"{prefix}_accuracy_pct": None}
    ci = st.mean_ci
    return {
        f"{prefix}_problems": st.problems,
        f"{prefix}_runs": st.runs,
        f"{prefix}_accuracy_pct": pct(st.mean),
        f"{prefix}_ci_low_pct": pct(ci.low) if ci else None,
        f"{prefix}_ci_high_pct": pct(ci.high) if ci else None,
    }


def _gap_record(gap: float | None, ci: Interval | None) -> Record:
    return {
        "gap_pp": pct(gap),
        "gap_ci_low_pp": pct(ci.low) if ci else None,
        "gap_ci_high_pp": pct(ci.high) if ci else None,
    }


def _gap_text(record: Record) -> str:
    gap = record.get("gap_pp")
    if gap is None:
        return "—"
    low, high = record.get("gap_ci_low_pp"), record.get("gap_ci_high_pp")
    interval = "" if low is None else f" [{low:+.2f}, {high:+.2f}]"
    return f"{gap:+.2f}{interval}"


def _accuracy_columns(prefix: str, title: str) -> list[Column]:
    key = f"{prefix}_accuracy_pct"
    return [
        Column(
            f"{title} problems",
            lambda r: "—" if r.get(f"{prefix}_problems") is None else str(r[f"{prefix}_problems"]),
            lambda r: r.get(f"{prefix}_problems"),
        ),
        Column(f"{title} accuracy %", lambda r: fmt_pct(r.get(key)), lambda r: r.get(key)),
        Column(
            f"{title} 95% CI",
            lambda r: fmt_ci(r, f"{prefix}_ci"),
            lambda r: r.get(f"{prefix}_ci_low_pct"),
        ),
    ]


def fresh_table(comparisons: Sequence[Comparison]) -> Table:
    records = [
        {
            "model": c.model,
            "setting": c.setting,
            "size_tier": c.tier,
            **_side("benchmark", c.benchmark),
            **_side("fresh", c.fresh),
            **_gap_record(c.gap, c.gap_ci),
        }
        for c in comparisons
    ]
    columns = [
        Column("Model", lambda r: r["model"], lambda r: r["model"], numeric=False),
        Column("Setting", lambda r: r["setting"], lambda r: r["setting"], numeric=False),
        Column("Size tier", lambda r: r["size_tier"], lambda r: r["size_tier"], numeric=False),
        *_accuracy_columns("benchmark", "Benchmark"),
        *_accuracy_columns("fresh", "Fresh"),
        Column("Gap pp [95% CI]", _gap_text, lambda r: r.get("gap_pp")),
    ]
    caption = (
        "Accuracy on the benchmark's problems and on freshly drawn problems (eval --fresh) of the "
        "same size tier (the minimal solution's vertex count: ≤6, 7-8, 9-10, ≥11), each with its "
        "95% bootstrap CI over problems. Gap: benchmark − fresh in percentage points; its CI "
        "bootstraps both problem sets independently. A clearly positive gap is the contamination "
        f"signal. '{SHARED_TIERS}': all size tiers both sides have, pooled."
    )
    return Table("fresh_vs_benchmark", "Benchmark vs fresh problems", caption, columns, records)


# ---------------------------------------------------------------------------------------------
# The leaderboard
# ---------------------------------------------------------------------------------------------
def _distinct(values: Sequence[Any]) -> list[Any]:
    return list(dict.fromkeys(values))


def _config_text(configs: Sequence[dict[str, Any]], key: str, sep: str) -> str | None:
    values = [c.get(key) if isinstance(c.get(key), str) else None for c in configs]
    if not values or all(v is None for v in values):
        return None
    return sep.join("—" if v is None else v for v in _distinct(values))


def _problem_set(cell: Cell) -> str:
    names = [
        str(c.get("problem_set") or ("file" if c.get("dataset") else "paper")) for c in cell.configs
    ]
    return ", ".join(_distinct(names)) or "—"


def leaderboard_records(
    cells: Sequence[Cell],
    stats: Sequence[CellStats],
    comparisons: Sequence[Comparison],
    disputes: Sequence[Dispute] = (),
) -> list[Record]:
    """One record per model label and setting, best accuracy first (see the module docstring)."""
    by_cell = {(c.model, c.setting): st for c, st in zip(cells, stats, strict=True)}
    disputed: dict[tuple[str, str], list[Dispute]] = {}
    for d in disputes:
        disputed.setdefault((d.model, d.setting), []).append(d)
    gaps = {(c.model, c.setting): c for c in comparisons if c.tier == SHARED_TIERS}
    rows: dict[tuple[str, str], Cell] = {}
    fresh_of = {(c.label, c.setting): c for c in cells if c.fresh}
    for cell in cells:
        key = (cell.label, cell.setting)
        if key not in rows or rows[key].fresh:
            rows[key] = cell
    records = []
    for (label, setting), cell in rows.items():
        st = by_cell[(cell.model, cell.setting)]
        fresh = fresh_of.get((label, setting)) if not cell.fresh else None
        configs = cell.configs + (fresh.configs if fresh is not None else [])
        gap = gaps.get((label, setting))
        record = stats_record(st)
        against = disputed.get((cell.model, cell.setting), [])
        records.append(
            {
                "model": label,
                "setting": setting,
                "problem_set": _problem_set(cell),
                **{k: v for k, v in record.items() if k not in ("model", "setting")},
                **_gap_record(gap.gap if gap else None, gap.gap_ci if gap else None),
                "command": _config_text(configs, "command", "; "),
                "dataset_hash": _config_text(configs, "dataset_hash", " "),
                "disputed": len(against),
                "disputed_at": disputes_at(against) or None,
            }
        )
    records.sort(
        key=lambda r: (
            r["mean_accuracy_pct"] is None,
            -(r["mean_accuracy_pct"] or 0.0),
            r["model"],
            setting_sort_key(r["setting"]),
        )
    )
    return records


def _disputed_text(record: Record) -> str:
    count = record.get("disputed") or 0
    return "0" if not count else f"{count}: {record.get('disputed_at')}"


def _accuracy_text(record: Record) -> str:
    mean = record.get("mean_accuracy_pct")
    if mean is None:
        return "—"
    low = record.get("ci_low_pct")
    return f"{mean:.2f}" + ("" if low is None else f" [{low:.2f}, {record['ci_high_pct']:.2f}]")


def leaderboard_table(records: Sequence[Record]) -> Table:
    ks = sorted({r["pass_k"] for r in records})
    one_k = len(ks) == 1
    pass_title = f"Pass@{ks[0]} %" if one_k else "Pass@k % (k = runs)"

    def text(title: str, key: str) -> Column:
        return Column(
            title,
            lambda r: "—" if r.get(key) is None else str(r[key]),
            lambda r: r.get(key),
            numeric=False,
        )

    columns = [
        Column("Rank", lambda r: str(r["rank"]), lambda r: r["rank"]),
        text("Model", "model"),
        text("Setting", "setting"),
        text("Problem set", "problem_set"),
        Column("Problems", lambda r: str(r["problems"]), lambda r: r["problems"]),
        Column("Runs", lambda r: str(r["runs"]), lambda r: r["runs"]),
        Column("Accuracy % [95% CI]", _accuracy_text, lambda r: r.get("mean_accuracy_pct")),
        *SIZE_COLUMNS,
        Column(
            pass_title,
            lambda r: fmt_pct(r.get("pass_at_k_pct")) + ("" if one_k else f" (k={r['pass_k']})"),
            lambda r: r.get("pass_at_k_pct"),
        ),
        Column(
            "Mean tokens",
            lambda r: fmt_tokens(r.get("avg_total_tokens")),
            lambda r: r.get("avg_total_tokens"),
        ),
        Column("Gap vs fresh pp [95% CI]", _gap_text, lambda r: r.get("gap_pp")),
        text("Command", "command"),
        text("Problem-set hash", "dataset_hash"),
        Column("Disputed", _disputed_text, lambda r: r.get("disputed")),
    ]
    caption = (
        "One row per model and setting, best accuracy first. Accuracy: mean over runs with its "
        "95% bootstrap CI over problems; minimal rate and mean excess over every correct answer "
        "graded against an optimum (minimal: on an optimum proven in full; 'minimal in vertices "
        "only': on the vertex optimum of one whose edge count or bound is not proven, never "
        "counted as minimal; — : none graded); Pass@k with k = runs; mean total "
        "tokens per sample (— : not reported); gap: benchmark − fresh accuracy on the size tiers "
        "both have (table fresh_vs_benchmark; — : no fresh runs). Every grade is re-derived from "
        "the answers; Disputed: samples whose recorded grade disagreed (file:line; counted as "
        "re-derived, table disputed). Command and problem-set hash "
        "(dataset_hash of the problems graded against, re-derived) reproduce the row; — : not "
        "recorded (runs made before the command was recorded, or from the Python API)."
    )
    rows = [{"rank": i + 1, **r} for i, r in enumerate(records)]
    return Table("leaderboard", "Leaderboard", caption, columns, rows)
