"""Metrics over runs: the statistics of :mod:`ramseygadgets.runs.stats` (re-exported here: accuracy
per run, mean ± standard deviation, pass@k, token averages, outcome counts, bootstrap
confidence intervals; the definitions are in that module's docstring) and the report's
breakdowns of a cell by tier, minimal size, gadget, pair and colour count.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ramseygadgets.core.gadgets import GadgetType
from ramseygadgets.problems.catalog import paper_pairs
from ramseygadgets.problems.extended import SIZE_TIERS, size_tier
from ramseygadgets.runs.stats import (
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    Cell,
    CellStats,
    Interval,
    ProblemInfo,
    SizeStats,
    accuracy_gap,
    bootstrap_mean,
    bootstrap_mean_accuracy,
    build_cells,
    cell_stats,
    fresh_label,
    mean,
    order_models,
    pass_at_k,
    problem_info,
    problem_sort_key,
    row_label,
    sample_std,
    shipped_min_vertices,
)

__all__ = [
    "BOOTSTRAP_RESAMPLES",
    "BOOTSTRAP_SEED",
    "BREAKDOWNS",
    "SIZE_TIER_BREAKDOWN",
    "Breakdown",
    "Cell",
    "CellStats",
    "Interval",
    "ProblemInfo",
    "SizeStats",
    "accuracy_gap",
    "bootstrap_mean",
    "bootstrap_mean_accuracy",
    "breakdown",
    "build_cells",
    "cell_stats",
    "fresh_label",
    "has_more_colors",
    "mean",
    "order_models",
    "pass_at_k",
    "problem_info",
    "problem_sort_key",
    "row_label",
    "sample_std",
    "shipped_min_vertices",
    "size_tier_of",
]


@dataclass(frozen=True)
class Breakdown:
    """A way to split problems into groups: ``key(info)`` is the group (``None``: unknown)."""

    name: str
    title: str
    key: Callable[[ProblemInfo], object]
    order: Callable[[object], object] = lambda value: str(value)


def breakdown(cell: Cell, split: Breakdown, **kwargs) -> list[tuple[object, CellStats]]:
    """Statistics of the cell restricted to each group of problems (e.g. per tier)."""
    group_of = {problem: split.key(info) for problem, info in cell.infos().items()}
    out = [(value, cell_stats(part, **kwargs)) for value, part in cell.partition(group_of).items()]
    return sorted(
        out, key=lambda item: (item[0] is None, split.order(item[0]) if item[0] is not None else 0)
    )


def _gadget_order(value: object) -> object:
    names = [g.value for g in GadgetType]
    return (names.index(value), "") if value in names else (len(names), str(value))


def _pair_order(value: object) -> object:
    pairs = [f"({f}, {h})" for f, h in paper_pairs()]
    return (pairs.index(value), "") if value in pairs else (len(pairs), str(value))


#: The breakdowns of the report, by name.
BREAKDOWNS: dict[str, Breakdown] = {
    "tier": Breakdown("tier", "tier", lambda info: info.tier),
    "size": Breakdown("size", "minimal size", lambda info: info.min_vertices, lambda v: v),
    "gadget": Breakdown("gadget", "gadget", lambda info: info.gadget, _gadget_order),
    "pair": Breakdown("pair", "pair", lambda info: info.pair, _pair_order),
    "colors": Breakdown("colors", "colours", lambda info: info.colors, lambda v: v),
}


def has_more_colors(cells: Iterable[Cell]) -> bool:
    """Whether any cell has a problem with three or more colours (the report then tabulates
    results per colour count)."""
    return any(info.colors > 2 for cell in cells for info in cell.infos().values())


def size_tier_of(info: ProblemInfo) -> str | None:
    """The size tier of a problem (``extended.size_tier`` of its minimal vertex count), or
    ``None`` when that count is unknown."""
    return None if info.min_vertices is None else size_tier(info.min_vertices)


#: Accuracy by size tier (minimal vertex count ≤ 6, 7–8, 9–10, ≥ 11): for sets with size tiers.
SIZE_TIER_BREAKDOWN = Breakdown("size_tier", "size tier", size_tier_of, SIZE_TIERS.index)
