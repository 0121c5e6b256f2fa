"""The report's figures (matplotlib, object API with the Agg canvas: no global backend change).

* ``accuracy_vs_tokens``: mean accuracy against average total tokens, one point per model and
  setting (colour: model, marker: setting), bars: 95 % bootstrap CI (the paper's Figure 4);
* ``accuracy_vs_size``: mean accuracy against minimal solution size, one panel per setting
  (Figure 5);
* ``accuracy_by_tier``: mean accuracy per tier, one panel per setting (Figure 6);
* ``outcomes``: share of correct / wrong / parse-failure / truncated / error / missing samples;
* ``excess_vertices``: the distribution of excess vertices over the proven minimum among the
  graded correct answers, one bar per model and setting;
* ``tools_by_size_tier``: only when a run has the python setting: no tool (zero-shot), the
  coloring tool (multiround) and Python side by side per size tier, one panel per model
  (:mod:`.tools`).

A figure shows at most :data:`MAX_FIGURE_SETTINGS` settings (the paper's five and python; the
first in display order) and says in its caption which further settings are in the tables only.  Model
labels are drawn as plain text (``$`` never starts mathtext).

Each is written as PNG and SVG; the SVG keeps text as text (``svg.fonttype = none``) and is
deterministic (fixed hash salt, no date).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import matplotlib
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from ramseygadgets.infra.terminal import terminal_text
from ramseygadgets.report.metrics import CellStats
from ramseygadgets.report.runs import OUTCOMES, setting_sort_key
from ramseygadgets.report.tools import (
    ALL_TIERS,
    COMPARED_SETTINGS,
    TOOL_LABELS,
    ToolTier,
    tier_order,
)

__all__ = [
    "MARKERS",
    "MAX_FIGURE_SETTINGS",
    "OUTCOME_COLORS",
    "FigureFiles",
    "figure_settings",
    "plain",
    "model_colors",
    "accuracy_vs_tokens",
    "accuracy_vs_size",
    "accuracy_by_tier",
    "outcomes",
    "BELOW",
    "EXCESS_BINS",
    "excess_vertices",
    "TOOL_COLORS",
    "tools_by_size_tier",
]


MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
#: Settings a figure shows at most (panels, markers, bars); further ones are in the tables.
MAX_FIGURE_SETTINGS = 6
OUTCOME_COLORS = {
    "correct": "#2ca02c",
    "wrong": "#d62728",
    "parse-failure": "#ff7f0e",
    "truncated": "#9467bd",
    "error": "#7f7f7f",
    "missing": "#d9d9d9",
}


@dataclass(frozen=True)
class FigureFiles:
    name: str
    title: str
    caption: str
    png: Path
    svg: Path


def figure_settings(settings: Iterable[str]) -> tuple[list[str], str]:
    """The settings a figure shows (display order, at most :data:`MAX_FIGURE_SETTINGS`) and a
    caption sentence naming how many are left out (empty when none)."""
    ordered = sorted(set(settings), key=setting_sort_key)
    shown = ordered[:MAX_FIGURE_SETTINGS]
    left = len(ordered) - len(shown)
    if not left:
        return shown, ""
    return shown, f" Shown: the first {len(shown)} settings; {left} more are in the tables only."


def plain(label: str) -> str:
    """A label drawn as written: control characters removed, ``$`` escaped (no mathtext)."""
    return terminal_text(label, markup=False).replace("$", r"\$")


def model_colors(models: Sequence[str]) -> dict[str, tuple[float, float, float, float]]:
    cmap = matplotlib.colormaps["tab10"]
    return {m: tuple(cmap(i % 10)) for i, m in enumerate(models)}  # type: ignore[misc]


def _new_figure(width: float, height: float) -> Figure:
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _save(fig: Figure, out_dir: Path, name: str, title: str, caption: str) -> FigureFiles:
    out_dir.mkdir(parents=True, exist_ok=True)
    png, svg = out_dir / f"{name}.png", out_dir / f"{name}.svg"
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "ramseygadgets"}):
        fig.savefig(png, dpi=110)
        fig.savefig(svg, metadata={"Date": None})
    return FigureFiles(name, title, caption, png, svg)


def _yerr(points: Sequence[CellStats]) -> list[list[float]]:
    low = [
        100 * (st.mean - st.mean_ci.low) if st.mean_ci and st.mean is not None else 0
        for st in points
    ]
    high = [
        100 * (st.mean_ci.high - st.mean) if st.mean_ci and st.mean is not None else 0
        for st in points
    ]
    return [[max(0.0, x) for x in low], [max(0.0, x) for x in high]]


def _panels(count: int) -> tuple[int, int]:
    cols = min(count, 3) or 1
    return (count + cols - 1) // cols or 1, cols


def accuracy_vs_tokens(stats: Sequence[CellStats], out_dir: Path) -> FigureFiles:
    """One point per model and setting with token data; the caption names those without."""
    settings, settings_note = figure_settings(st.setting for st in stats)
    shown = [st for st in stats if st.setting in settings and st.mean is not None]
    points = [(st, st.mean, st.avg_tokens) for st in shown if st.mean is not None and st.avg_tokens]
    models = sorted({st.model for st, _, _ in points})
    colors = model_colors(models)
    fig = _new_figure(7.5, 4.8)
    ax = fig.add_subplot()
    for st, mean, avg_tokens in points:
        marker = MARKERS[settings.index(st.setting) % len(MARKERS)]
        ax.errorbar(
            [avg_tokens],
            [100 * mean],
            yerr=_yerr([st]),
            fmt=marker,
            color=colors[st.model],
            markersize=8,
            capsize=3,
            alpha=0.9,
        )
    tokens = [avg_tokens for _, _, avg_tokens in points]
    if tokens and max(tokens) / max(min(tokens), 1) > 20:
        ax.set_xscale("log")
    if not points:
        ax.text(
            0.5, 0.5, "no run reports token usage", ha="center", va="center", transform=ax.transAxes
        )
        ax.set_xticks([])
    ax.set_xlabel("average total tokens per sample")
    ax.set_ylabel("mean accuracy (%)")
    ax.set_ylim(-2, 102)
    ax.grid(alpha=0.3)
    handles = _model_handles(models, colors, line=False)
    handles += [
        matplotlib.lines.Line2D(
            [], [], color="#444", marker=MARKERS[i % len(MARKERS)], linestyle="", label=plain(s)
        )
        for i, s in enumerate(settings)
        if any(st.setting == s for st, _, _ in points)
    ]
    if handles:
        ax.legend(
            handles=handles,
            loc="center left",
            bbox_to_anchor=(1.01, 0.5),
            fontsize=8,
            frameon=False,
        )
    ax.set_title("Accuracy vs. token cost")
    return _save(
        fig,
        out_dir,
        "accuracy_vs_tokens",
        "Accuracy vs. token cost",
        "Mean accuracy against average total tokens per sample; one point per model (colour) and setting "
        "(marker); bars: 95% bootstrap CI over problems." + _no_tokens_note(shown) + settings_note,
    )


def _hide_unused(axes: Any, used: int, rows: int, cols: int) -> None:
    """Blank the grid's panels after the first ``used`` (row-major)."""
    for j in range(used, rows * cols):
        axes[j // cols][j % cols].axis("off")


def _side_legend(fig: Figure, handles: list[Any]) -> None:
    """One legend for all panels, outside on the right."""
    fig.legend(handles=handles, loc="outside right center", fontsize=8, frameon=False)


def _model_handles(models: Sequence[str], colors: dict[str, Any], line: bool = True) -> list[Any]:
    """Legend entries, one per model in its colour (a marker on a line, or the marker alone)."""
    return [
        matplotlib.lines.Line2D(
            [], [], color=colors[m], marker="o", linestyle="-" if line else "", label=plain(m)
        )
        for m in models
    ]


def _no_tokens_note(stats: Sequence[CellStats]) -> str:
    """Caption sentence naming the cells left out for want of token counts."""
    left = [f"{st.model} · {st.setting}" for st in stats if not st.avg_tokens]
    if not left:
        return ""
    named = ", ".join(left[:5]) + (f" and {len(left) - 5} more" if len(left) > 5 else "")
    return f" Left out, no token counts recorded: {named}."


def _size_series(
    by_size: Sequence[tuple[CellStats, object, CellStats]], setting: str, model: str
) -> list[tuple[int, CellStats, float]]:
    """One model's (size, stats, mean accuracy) in one setting, by size."""
    points = [
        (size, st, st.mean)
        for cell, size, st in by_size
        if cell.setting == setting
        and cell.model == model
        and isinstance(size, int)
        and st.mean is not None
    ]
    return sorted(points, key=lambda p: p[0])


def accuracy_vs_size(
    by_size: Sequence[tuple[CellStats, object, CellStats]], out_dir: Path
) -> FigureFiles:
    """``by_size``: (cell stats, minimal size, stats restricted to that size)."""
    shown, settings_note = figure_settings(cell.setting for cell, _, _ in by_size)
    settings = shown or ["(none)"]
    models = sorted({cell.model for cell, _, _ in by_size})
    colors = model_colors(models)
    rows, cols = _panels(len(settings))
    fig = _new_figure(4.2 * cols + 1.5, 3.3 * rows)
    axes = fig.subplots(rows, cols, squeeze=False, sharey=True)
    for i, setting in enumerate(settings):
        ax = axes[i // cols][i % cols]
        for model in models:
            points = _size_series(by_size, setting, model)
            if not points:
                continue
            ax.errorbar(
                [p[0] for p in points],
                [100 * p[2] for p in points],
                yerr=_yerr([p[1] for p in points]),
                marker="o",
                color=colors[model],
                capsize=2,
                label=plain(model),
            )
        ax.set_title(plain(setting))
        ax.set_xlabel("minimal solution size (vertices)")
        ax.set_ylim(-2, 102)
        ax.grid(alpha=0.3)
        if i % cols == 0:
            ax.set_ylabel("mean accuracy (%)")
    _hide_unused(axes, len(settings), rows, cols)
    if models:
        _side_legend(fig, _model_handles(models, colors))
    return _save(
        fig,
        out_dir,
        "accuracy_vs_size",
        "Accuracy vs. minimal solution size",
        "Mean accuracy by the number of vertices of the problem's minimal solution, one panel per setting; "
        "bars: 95% bootstrap CI over problems." + settings_note,
    )


def _tier_series(
    by_tier: Sequence[tuple[CellStats, object, CellStats]],
    setting: str,
    models: Sequence[str],
    tier: str,
) -> list[tuple[int, CellStats]]:
    """(model index, stats) of each model's cells of one tier in one setting."""
    return [
        (m_index, st)
        for m_index, model in enumerate(models)
        for cell, value, st in by_tier
        if cell.setting == setting
        and cell.model == model
        and str(value) == tier
        and st.mean is not None
    ]


def accuracy_by_tier(
    by_tier: Sequence[tuple[CellStats, object, CellStats]], out_dir: Path
) -> FigureFiles:
    shown, settings_note = figure_settings(cell.setting for cell, _, _ in by_tier)
    settings = shown or ["(none)"]
    models = sorted({cell.model for cell, _, _ in by_tier})
    tiers = sorted({str(t) for _, t, _ in by_tier})
    palette = ("#4c9be8", "#e8704c", "#8c8c8c", "#9467bd")
    tier_colors = {t: palette[i % len(palette)] for i, t in enumerate(tiers)}
    rows, cols = _panels(len(settings))
    fig = _new_figure(max(4.2, 1.1 * len(models) + 1.5) * cols, 3.4 * rows)
    axes = fig.subplots(rows, cols, squeeze=False, sharey=True)
    width = 0.8 / max(len(tiers), 1)
    for i, setting in enumerate(settings):
        ax = axes[i // cols][i % cols]
        for t_index, tier in enumerate(tiers):
            offset = (t_index - (len(tiers) - 1) / 2) * width
            columns = _tier_series(by_tier, setting, models, tier)
            xs = [m_index + offset for m_index, _ in columns]
            ys = [100 * (st.mean or 0.0) for _, st in columns]
            points = [st for _, st in columns]
            if xs:
                ax.bar(
                    xs,
                    ys,
                    width=width,
                    color=tier_colors[tier],
                    label=plain(tier),
                    yerr=_yerr(points),
                    capsize=2,
                )
        ax.set_xticks(
            range(len(models)), [plain(m) for m in models], rotation=20, ha="right", fontsize=8
        )
        ax.set_title(plain(setting))
        ax.set_ylim(0, 102)
        ax.grid(alpha=0.3, axis="y")
        if i % cols == 0:
            ax.set_ylabel("mean accuracy (%)")
    _hide_unused(axes, len(settings), rows, cols)
    if tiers:
        _side_legend(
            fig, [matplotlib.patches.Patch(color=tier_colors[t], label=plain(t)) for t in tiers]
        )
    return _save(
        fig,
        out_dir,
        "accuracy_by_tier",
        "Accuracy by difficulty tier",
        "Mean accuracy on the easy (determiner) and hard problems, one panel per setting; bars: 95% "
        "bootstrap CI over problems." + settings_note,
    )


def outcomes(stats: Sequence[CellStats], out_dir: Path) -> FigureFiles:
    settings, settings_note = figure_settings(st.setting for st in stats)
    stats = [st for st in stats if st.setting in settings]
    labels = [plain(f"{st.model} · {st.setting}") for st in stats]
    fig = _new_figure(8, max(2.2, 0.32 * len(stats) + 1.2))
    ax = fig.add_subplot()
    left = [0.0] * len(stats)
    for name in OUTCOMES:
        shares = [
            100 * st.outcomes.get(name, 0) / st.expected if st.expected else 0 for st in stats
        ]
        ax.barh(range(len(stats)), shares, left=left, color=OUTCOME_COLORS[name], label=name)
        left = [a + b for a, b in zip(left, shares)]
    ax.set_yticks(range(len(stats)), labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    ax.set_xlabel("share of expected samples (%)")
    fig.legend(loc="outside right center", fontsize=8, frameon=False)
    ax.set_title("Sample outcomes")
    return _save(
        fig,
        out_dir,
        "outcomes",
        "Sample outcomes",
        "Share of each outcome per model and setting: wrong answers apart from parse failures, truncated "
        "responses (finish_reason length), backend errors and missing samples." + settings_note,
    )


#: The excess vertex counts the distribution shows; the last bin holds that many and more.
EXCESS_BINS = 5
#: The bin of answers below a proven minimum (a contradicted proof), drawn only when present.
BELOW = "< 0"


def _excess_bins(counts: dict[int, int]) -> dict[str, int]:
    """Graded answers per bin: ``< 0``, ``+0``, ``+1``, …, ``≥ +(EXCESS_BINS − 1)``."""
    last = EXCESS_BINS - 1
    bins = {BELOW: 0, **{f"+{b}" if b < last else f"≥ +{b}": 0 for b in range(EXCESS_BINS)}}
    names = list(bins)[1:]
    for excess, count in counts.items():
        bins[BELOW if excess < 0 else names[min(excess, last)]] += count
    return bins


def excess_vertices(stats: Sequence[CellStats], out_dir: Path) -> FigureFiles:
    """Stacked bars: per model and setting with graded answers, the share of them with 0, 1, …
    excess vertices over the proven minimum; the label states how many were graded."""
    settings, settings_note = figure_settings(st.setting for st in stats)
    shown = [st for st in stats if st.setting in settings and st.sizes.graded]
    left_out = sum(1 for st in stats if st.setting in settings and not st.sizes.graded)
    labels = [plain(f"{st.model} · {st.setting} (n={st.sizes.graded})") for st in shown]
    fig = _new_figure(8, max(2.2, 0.32 * len(shown) + 1.2))
    ax = fig.add_subplot()
    rows = [_excess_bins(st.sizes.excess_vertices) for st in shown]
    names = [BELOW] if any(row[BELOW] for row in rows) else []
    names += list(_excess_bins({}))[1:]
    cmap = matplotlib.colormaps["viridis"]
    left = [0.0] * len(shown)
    for i, name in enumerate(names):
        widths = [100 * row[name] / st.sizes.graded for row, st in zip(rows, shown)]
        color = "#d62728" if name == BELOW else cmap((i - len(names) + EXCESS_BINS) / EXCESS_BINS)
        ax.barh(range(len(shown)), widths, left=left, color=color, label=name)
        left = [a + w for a, w in zip(left, widths)]
    if not shown:
        ax.text(
            0.5,
            0.5,
            "no correct answer graded against a proven optimum",
            ha="center",
            va="center",
            transform=ax.transAxes,
        )
    ax.set_yticks(range(len(shown)), labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    ax.set_xlabel("share of graded correct answers (%)")
    if shown:
        fig.legend(loc="outside right center", fontsize=8, frameon=False, title="excess vertices")
    ax.set_title("Excess vertices over the proven minimum")
    note = f" Left out, no graded answer: {left_out} model/setting cell(s)." if left_out else ""
    return _save(
        fig,
        out_dir,
        "excess_vertices",
        "Excess vertices over the proven minimum",
        "Among the correct answers graded against a proven optimum (n: their number), the share "
        f"with 0 (minimal), 1, 2, … vertices more than the proven minimum ({BELOW}: below it, "
        "contradicting the proof; shown only when it occurs)." + note + settings_note,
    )


#: The bar colour of each compared setting (no tool, coloring tool, Python).
TOOL_COLORS = dict(zip(COMPARED_SETTINGS, ("#8c8c8c", "#4c9be8", "#e8704c")))


def _tool_bars(
    ax: Any, points: Sequence[ToolTier], model: str, settings: list[str], tiers: list[str]
) -> None:
    """One model's bars: for each setting, its mean accuracy per tier with 95% CIs."""
    width = 0.8 / max(len(settings), 1)
    for s_index, setting in enumerate(settings):
        shown = [
            (tiers.index(p.tier), p.stats)
            for p in points
            if p.model == model and p.setting == setting and p.stats.mean is not None
        ]
        if not shown:
            continue
        ax.bar(
            [x + (s_index - (len(settings) - 1) / 2) * width for x, _ in shown],
            [100 * st.mean for _, st in shown if st.mean is not None],
            width=width,
            color=TOOL_COLORS[setting],
            yerr=_yerr([st for _, st in shown]),
            capsize=2,
        )


def _tier_axis(ax: Any, model: str, tiers: list[str], first_column: bool) -> None:
    """A panel's tier ticks, title and labels."""
    labels = ["all tiers" if t == ALL_TIERS else t for t in tiers]
    ax.set_xticks(range(len(tiers)), [plain(t) for t in labels], fontsize=8)
    ax.set_title(plain(model))
    ax.set_xlabel("size tier (vertices of the minimal solution)")
    ax.set_ylim(0, 102)
    ax.grid(alpha=0.3, axis="y")
    if first_column:
        ax.set_ylabel("mean accuracy (%)")


def tools_by_size_tier(points: Sequence[ToolTier], out_dir: Path) -> FigureFiles:
    """One panel per model with a python run: per size tier (and over all), a bar for each of
    no tool, the coloring tool and Python (:func:`~ramseygadgets.report.tools.tool_comparison`)."""
    models = sorted({p.model for p in points}) or ["(none)"]
    tiers = sorted({p.tier for p in points}, key=tier_order)
    settings = [s for s in COMPARED_SETTINGS if any(p.setting == s for p in points)]
    rows, cols = _panels(len(models))
    fig = _new_figure(max(4.2, 0.9 * len(tiers) + 1.5) * cols + 1.5, 3.4 * rows)
    axes = fig.subplots(rows, cols, squeeze=False, sharey=True)
    for i, model in enumerate(models):
        ax = axes[i // cols][i % cols]
        _tool_bars(ax, points, model, settings, tiers)
        _tier_axis(ax, model, tiers, first_column=i % cols == 0)
    _hide_unused(axes, len(models), rows, cols)
    if settings:
        patches = [
            matplotlib.patches.Patch(color=TOOL_COLORS[s], label=f"{TOOL_LABELS[s]} ({s})")
            for s in settings
        ]
        _side_legend(fig, patches)
    return _save(
        fig,
        out_dir,
        "tools_by_size_tier",
        "No tool, coloring tool and Python by size tier",
        "Mean accuracy with no tool (zero-shot), the coloring tool (multiround) and Python (python) "
        "per size tier of the minimal solution (≤6, 7-8, 9-10, ≥11 vertices) and over all tiers, "
        "one panel per model with a python run, each setting on the problems all of the model's "
        "compared settings cover; bars: 95% bootstrap CI over problems. Written only when a run "
        "has the python setting.",
    )
