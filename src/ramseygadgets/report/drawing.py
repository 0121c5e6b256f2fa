"""Drawings of candidate graphs in the style of the paper's Figure 1: vertices numbered, edges red or
blue as in a coloring (grey when uncoloured), designated edges thick and labelled ``e``/``f``,
designated vertices ringed and labelled (``i1``…, ``u1``…).

:func:`graph_picture` fixes what is drawn (a seeded spring layout from networkx, the colours and
marks); :func:`picture_svg` renders it as a small standalone SVG string (a few kB, used inline in
the HTML report) and :func:`save_picture` renders it with matplotlib to PNG or SVG files.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from html import escape
from pathlib import Path
from typing import Any

from ramseygadgets.colorings import Coloring
from ramseygadgets.files import atomic_path, make_output_dir
from ramseygadgets.gadgets import Designated, GadgetType
from ramseygadgets.graphs import Graph

RED = "#d62728"
BLUE = "#1f77b4"
GREY = "#9a9a9a"
COLORS = {"red": RED, "blue": BLUE, None: GREY}

#: Largest graph the report draws (bigger answers are described, not drawn).
MAX_DRAWN_VERTICES = 64


@dataclass(frozen=True)
class GraphPicture:
    """Everything a renderer needs: positions in [0, 1]², edge colours, designated marks."""

    graph: Graph
    positions: tuple[tuple[float, float], ...]
    edge_colors: tuple[str | None, ...]  # "red", "blue" or None per edge index
    edge_marks: Mapping[int, str]  # edge index -> "e" / "f"
    vertex_marks: Mapping[int, str]  # vertex -> "i1" / "u1" ...


@lru_cache(maxsize=4096)
def layout(graph: Graph, seed: int = 0) -> tuple[tuple[float, float], ...]:
    """Seeded spring layout (networkx) from a circular start, scaled into [0.08, 0.92]²; cached per
    graph (reports draw the same answer many times)."""
    import networkx as nx

    if graph.n == 0:
        return ()
    g = graph.to_networkx()
    start = nx.circular_layout(g)
    pos = nx.spring_layout(g, pos=start, seed=seed, iterations=60) if graph.n > 2 else start
    xs = [float(pos[v][0]) for v in range(graph.n)]
    ys = [float(pos[v][1]) for v in range(graph.n)]
    span = max(max(xs) - min(xs), max(ys) - min(ys)) or 1.0
    cx, cy = (max(xs) + min(xs)) / 2, (max(ys) + min(ys)) / 2
    return tuple(
        (0.5 + 0.84 * (x - cx) / span, 0.5 - 0.84 * (y - cy) / span) for x, y in zip(xs, ys)
    )


def coloring_from_json(graph: Graph, data: Mapping[str, Any] | None) -> tuple[str | None, ...]:
    """Edge colours from ``{"red": [[u, v]...], "blue": [...]}``; edges not listed stay uncoloured."""
    colors: list[str | None] = [None] * graph.m
    if not data:
        return tuple(colors)
    for color in ("red", "blue"):
        for pair in data.get(color) or ():
            try:
                u, v = int(pair[0]), int(pair[1])
            except (TypeError, ValueError, IndexError):
                continue
            index = graph.edge_index.get((min(u, v), max(u, v)))
            if index is not None:
                colors[index] = color
    return tuple(colors)


def graph_picture(
    graph: Graph,
    designated: Designated | None = None,
    gadget: GadgetType | None = None,
    coloring: Coloring | Mapping[str, Any] | None = None,
    *,
    seed: int = 0,
) -> GraphPicture:
    if isinstance(coloring, Coloring):
        colors: tuple[str | None, ...] = tuple("red" if r else "blue" for r in coloring.red)
    else:
        colors = coloring_from_json(graph, coloring)
    edge_marks: dict[int, str] = {}
    vertex_marks: dict[int, str] = {}
    if designated is not None:
        edge_names = gadget.edge_names if gadget is not None else ("e", "f")
        for name, (u, v) in zip(edge_names, designated.edges):
            index = graph.edge_index.get((min(u, v), max(u, v)))
            if index is not None:
                edge_marks[index] = name
        vertex_names = gadget.vertex_names if gadget is not None else ()
        for i, x in enumerate(designated.vertices):
            if 0 <= x < graph.n:
                vertex_marks[x] = vertex_names[i] if i < len(vertex_names) else f"v{i + 1}"
    return GraphPicture(graph, layout(graph, seed), colors, edge_marks, vertex_marks)


# ---------------------------------------------------------------------------------------------
# SVG (compact, for the HTML report)
# ---------------------------------------------------------------------------------------------
def picture_svg(picture: GraphPicture, size: int = 220, title: str = "") -> str:
    """A standalone ``<svg>`` element, ``size`` pixels square."""
    graph = picture.graph
    radius = 9 if graph.n <= 16 else 7
    font = 9 if graph.n <= 16 else 7

    def xy(v: int) -> tuple[float, float]:
        x, y = picture.positions[v]
        return round(x * size, 1), round(y * size, 1)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="graph" width="{size}" height="{size}" '
        f'viewBox="0 0 {size} {size}" role="img">'
    ]
    if title:
        parts.append(f"<title>{escape(title)}</title>")
    for i, (u, v) in enumerate(graph.edges):
        (x1, y1), (x2, y2) = xy(u), xy(v)
        color = COLORS[picture.edge_colors[i]]
        width = 4.5 if i in picture.edge_marks else 2
        parts.append(
            f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="{color}" stroke-width="{width}"/>'
        )
    for i, name in picture.edge_marks.items():
        (x1, y1), (x2, y2) = xy(graph.edges[i][0]), xy(graph.edges[i][1])
        mx, my = round((x1 + x2) / 2, 1), round((y1 + y2) / 2, 1)
        parts.append(
            f'<rect x="{mx - 6}" y="{my - 7}" width="12" height="13" rx="3" fill="#fff" stroke="#333"/>'
            f'<text x="{mx}" y="{my + 3.5}" font-size="10" font-weight="bold" text-anchor="middle">'
            f"{escape(name)}</text>"
        )
    for v in range(graph.n):
        x, y = xy(v)
        if v in picture.vertex_marks:
            parts.append(
                f'<circle cx="{x}" cy="{y}" r="{radius + 4}" fill="#ffd54f" stroke="#333" stroke-width="2"/>'
            )
            parts.append(
                f'<text x="{x}" y="{round(y + radius + 14, 1)}" font-size="10" font-weight="bold" '
                f'text-anchor="middle">{escape(picture.vertex_marks[v])}</text>'
            )
        parts.append(
            f'<circle cx="{x}" cy="{y}" r="{radius}" fill="#fff" stroke="#222" stroke-width="1.2"/>'
            f'<text x="{x}" y="{round(y + font / 3, 1)}" font-size="{font}" text-anchor="middle">{v}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


# ---------------------------------------------------------------------------------------------
# matplotlib (PNG / SVG files)
# ---------------------------------------------------------------------------------------------
def save_picture(
    picture: GraphPicture, path: str | Path, title: str = "", caption: str = ""
) -> Path:
    """Render with matplotlib; the format follows the suffix (``.png`` or ``.svg``)."""
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.collections import LineCollection
    from matplotlib.figure import Figure

    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".png", ".svg"):
        raise ValueError(f"output must end in .png or .svg, got {path.name!r}")
    graph = picture.graph
    fig = Figure(figsize=(5, 5.4 if caption else 5))
    FigureCanvasAgg(fig)
    ax = fig.add_axes((0.02, 0.08 if caption else 0.02, 0.96, 0.86 if title else 0.94))
    ax.set_xlim(0, 1)
    ax.set_ylim(1, 0)
    ax.set_aspect("equal")
    ax.axis("off")
    pos = picture.positions
    segments = [(pos[u], pos[v]) for u, v in graph.edges]
    widths = [5 if i in picture.edge_marks else 2.2 for i in range(graph.m)]
    ax.add_collection(
        LineCollection(
            segments, colors=[COLORS[c] for c in picture.edge_colors], linewidths=widths, zorder=1
        )
    )
    for i, name in picture.edge_marks.items():
        (x1, y1), (x2, y2) = segments[i]
        ax.text(
            (x1 + x2) / 2,
            (y1 + y2) / 2,
            name,
            ha="center",
            va="center",
            fontsize=11,
            fontweight="bold",
            zorder=3,
            bbox={"boxstyle": "round,pad=0.2", "fc": "white", "ec": "#333"},
        )
    size = 300 if graph.n <= 16 else 160
    marked = list(picture.vertex_marks)
    if marked:
        ax.scatter(
            [pos[v][0] for v in marked],
            [pos[v][1] for v in marked],
            s=size * 2.2,
            c="#ffd54f",
            edgecolors="#333",
            linewidths=2,
            zorder=2,
        )
        for v in marked:
            ax.text(
                pos[v][0],
                pos[v][1] + 0.065,
                picture.vertex_marks[v],
                ha="center",
                va="center",
                fontsize=11,
                fontweight="bold",
                zorder=4,
            )
    if graph.n:
        ax.scatter(
            [p[0] for p in pos],
            [p[1] for p in pos],
            s=size,
            c="white",
            edgecolors="#222",
            linewidths=1.2,
            zorder=2,
        )
    for v, (x, y) in enumerate(pos):
        ax.text(
            x, y, str(v), ha="center", va="center", fontsize=9 if graph.n <= 16 else 7, zorder=3
        )
    if title:
        fig.suptitle(title, fontsize=12)
    if caption:
        fig.text(0.5, 0.03, caption, ha="center", va="center", fontsize=9, wrap=True)
    make_output_dir(path.parent, "the drawing directory")
    with (
        matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "ramseygadgets"}),
        atomic_path(path) as tmp,
    ):
        metadata = {"Date": None} if suffix == ".svg" else None
        fig.savefig(tmp, format=suffix[1:], dpi=150, metadata=metadata)
    return path
