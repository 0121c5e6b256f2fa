"""Drawings of candidate graphs in the style of the paper's Figure 1: vertices numbered, edges red or
blue as in a coloring (grey when uncoloured), designated edges thick and labelled ``e``/``f``,
designated vertices ringed and labelled (``i1``…, ``u1``…).

:func:`graph_picture` fixes what is drawn (a seeded spring layout from networkx, the colours and
marks); :func:`picture_svg` renders it as a small standalone SVG string (a few kB, used inline in
the HTML report) and :func:`save_picture` renders it with matplotlib to PNG or SVG files.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ramseygadgets.colorings.red_blue import Coloring
from ramseygadgets.core.errors import InputError
from ramseygadgets.core.gadgets import COLOR_NAMES, Designated, GadgetForm
from ramseygadgets.core.graphs import Graph
from ramseygadgets.infra.files import atomic_path, make_output_dir

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from ramseygadgets.colorings.multi import MultiColoring

__all__ = [
    "RED",
    "BLUE",
    "GREY",
    "COLORS",
    "MAX_DRAWN_VERTICES",
    "GraphPicture",
    "MARGIN",
    "LAYOUT_SEEDS",
    "vertex_radius",
    "layout",
    "CLEARANCE",
    "clearance",
    "coloring_from_json",
    "graph_picture",
    "picture_svg",
    "save_picture",
]


RED = "#d62728"
BLUE = "#1f77b4"
GREY = "#9a9a9a"
#: Edge colours by colour name (problems with more colours use green, yellow, … after red, blue).
COLORS = {
    "red": RED,
    "blue": BLUE,
    "green": "#2ca02c",
    "yellow": "#bcbd22",
    "purple": "#9467bd",
    "orange": "#ff7f0e",
    "cyan": "#17becf",
    "magenta": "#e377c2",
    None: GREY,
}

#: Largest graph the report draws (bigger answers are described, not drawn).
MAX_DRAWN_VERTICES = 64


@dataclass(frozen=True)
class GraphPicture:
    """Everything a renderer needs: positions in [0, 1]², edge colours, designated marks."""

    graph: Graph
    positions: tuple[tuple[float, float], ...]
    edge_colors: tuple[
        str | None, ...
    ]  # a colour name ("red", "blue", "green", …) or None per edge
    edge_marks: Mapping[int, str]  # edge index -> "e" / "f"
    vertex_marks: Mapping[int, str]  # vertex -> "i1" / "u1" ...


#: Drawing margin: positions lie in [MARGIN, 1 - MARGIN]².
MARGIN = 0.08
#: Spring-layout seeds tried per graph before the circular layout (whose clearance is enough
#: up to 12 vertices per component: vertex to the chord of its neighbours, R(1 − cos 2π/n)).
LAYOUT_SEEDS = 3


def vertex_radius(n: int) -> float:
    """The radius of a vertex disc in units of the drawing's side (as :func:`picture_svg` draws
    it: 9 px of 220 up to 16 vertices, 7 px beyond)."""
    return (9 if n <= 16 else 7) / 220


@lru_cache(maxsize=4096)
def layout(graph: Graph, seed: int = 0) -> tuple[tuple[float, float], ...]:
    """Vertex positions in [MARGIN, 1 − MARGIN]² in which no edge passes within a vertex radius
    (plus a margin) of a vertex not on it wherever the seeded spring layouts allow; connected
    components are laid out separately and placed side by side at the same scale.  Cached per
    graph (reports draw the same answer many times)."""
    if graph.n == 0:
        return ()
    needed = CLEARANCE * vertex_radius(graph.n)
    tries: list[list[tuple[float, float]]] = []
    for layout_seed in [*range(seed, seed + LAYOUT_SEEDS), None]:
        tries.append(_arranged(graph, layout_seed))
        if clearance(graph, tries[-1]) >= needed:
            return _rounded(tries[-1])
    best = max(tries, key=lambda pos: clearance(graph, pos))
    return _rounded(_repaired(graph, best, needed))


def _rounded(positions: Sequence[tuple[float, float]]) -> tuple[tuple[float, float], ...]:
    return tuple((round(x, 4), round(y, 4)) for x, y in positions)


#: Clearance asked for, in vertex radii (a little more than one, for the edge's stroke).
CLEARANCE = 1.25


def clearance(graph: Graph, positions: Sequence[tuple[float, float]]) -> float:
    """The smallest distance from a vertex to an edge not incident to it (∞ without such pairs)."""
    if not graph.edges or graph.n < 3:
        return math.inf
    points = np.asarray(positions, dtype=float)
    ends = np.asarray(graph.edges)
    a, b = points[ends[:, 0]][:, None, :], points[ends[:, 1]][:, None, :]  # (m, 1, 2)
    d = b - a
    length2 = np.maximum((d * d).sum(axis=2), 1e-18)  # (m, 1)
    t = np.clip(((points[None, :, :] - a) * d).sum(axis=2) / length2, 0.0, 1.0)  # (m, n)
    gaps = np.hypot(*np.moveaxis(points[None, :, :] - (a + t[:, :, None] * d), 2, 0))
    vertices = np.arange(graph.n)[None, :]
    incident = (vertices == ends[:, :1]) | (vertices == ends[:, 1:])
    gaps = np.where(incident, np.inf, gaps)
    return float(gaps.min())


def _segment_distance(
    p: tuple[float, float], a: tuple[float, float], b: tuple[float, float]
) -> float:
    (px, py), (ax, ay), (bx, by) = p, a, b
    dx, dy = bx - ax, by - ay
    length2 = dx * dx + dy * dy
    t = 0.0 if length2 == 0 else max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / length2))
    return math.hypot(px - (ax + t * dx), py - (ay + t * dy))


def _arranged(graph: Graph, seed: int | None) -> list[tuple[float, float]]:
    """Each component's spring layout (``seed``; ``None``: its circular layout) at a size
    growing with √(its vertices), placed in rows left to right, the whole scaled into the
    drawing area."""
    import networkx as nx

    g = graph.to_networkx()
    components = sorted(
        (sorted(c) for c in nx.connected_components(g)), key=lambda c: (-len(c), c[0])
    )
    shapes = [_component_shape(g.subgraph(c), c, seed) for c in components]
    return _fit(graph.n, _pack(shapes))


def _component_shape(
    g: Any, vertices: list[int], seed: int | None
) -> dict[int, tuple[float, float]]:
    """Positions of one component with its larger side √k units long (k vertices), from (0, 0)."""
    import networkx as nx

    if len(vertices) == 1:
        return {vertices[0]: (0.0, 0.0)}
    pos = nx.circular_layout(g)
    if seed is not None and len(vertices) > 2:
        pos = nx.spring_layout(g, pos=pos, seed=seed, iterations=80)
    xs = [float(pos[v][0]) for v in vertices]
    ys = [float(pos[v][1]) for v in vertices]
    span = max(max(xs) - min(xs), max(ys) - min(ys)) or 1.0
    scale = math.sqrt(len(vertices)) / span
    return {v: ((x - min(xs)) * scale, (y - min(ys)) * scale) for v, x, y in zip(vertices, xs, ys)}


def _pack(shapes: list[dict[int, tuple[float, float]]]) -> dict[int, tuple[float, float]]:
    """Components in rows (largest first), one unit apart, rows about as wide as the whole is
    tall."""
    sizes = [_extent(shape) for shape in shapes]
    area = sum((w + 1) * (h + 1) for w, h in sizes)
    row_width = max(max(w for w, _ in sizes), math.sqrt(area))
    out: dict[int, tuple[float, float]] = {}
    x = y = row_height = 0.0
    for shape, (w, h) in zip(shapes, sizes):
        if x > 0 and x + w > row_width:
            x, y, row_height = 0.0, y + row_height + 1, 0.0
        out.update({v: (x + px, y + py) for v, (px, py) in shape.items()})
        x, row_height = x + w + 1, max(row_height, h)
    return out


def _extent(shape: dict[int, tuple[float, float]]) -> tuple[float, float]:
    xs = [p[0] for p in shape.values()]
    ys = [p[1] for p in shape.values()]
    return max(xs) - min(xs), max(ys) - min(ys)


def _fit(n: int, pos: dict[int, tuple[float, float]]) -> list[tuple[float, float]]:
    """Scale uniformly and centre into [MARGIN, 1 − MARGIN]²."""
    xs = [pos[v][0] for v in range(n)]
    ys = [pos[v][1] for v in range(n)]
    span = max(max(xs) - min(xs), max(ys) - min(ys)) or 1.0
    cx, cy = (max(xs) + min(xs)) / 2, (max(ys) + min(ys)) / 2
    inner = 1 - 2 * MARGIN
    return [(0.5 + inner * (x - cx) / span, 0.5 + inner * (y - cy) / span) for x, y in zip(xs, ys)]


def _repaired(
    graph: Graph, positions: list[tuple[float, float]], needed: float
) -> list[tuple[float, float]]:
    """Push vertices off the edges they are too close to and fit into the drawing area again,
    until every vertex is clear (pushing may widen the drawing, so a few times)."""
    for _ in range(5):
        positions = _fit(graph.n, dict(enumerate(_pushed(graph, positions, needed * 1.1))))
        if clearance(graph, positions) >= needed:
            break
    return positions


def _pushed(
    graph: Graph, positions: list[tuple[float, float]], needed: float, rounds: int = 50
) -> list[tuple[float, float]]:
    """Move every vertex that lies closer than ``needed`` to an edge not on it away from that
    edge, a step at a time, until all are clear (or ``rounds`` passes)."""
    pos = [list(p) for p in positions]
    for _ in range(rounds):
        moved = False
        for u, v in graph.edges:
            for w in range(graph.n):
                if w in (u, v):
                    continue
                a, b, p = pos[u], pos[v], pos[w]
                d = _segment_distance((p[0], p[1]), (a[0], a[1]), (b[0], b[1]))
                if d >= needed:
                    continue
                nx_, ny_ = _away_from(p, a, b)
                step = (needed - d) * 0.6 + 1e-3
                p[0], p[1] = p[0] + nx_ * step, p[1] + ny_ * step
                moved = True
        if not moved:
            break
    return [(p[0], p[1]) for p in pos]


def _away_from(p: list[float], a: list[float], b: list[float]) -> tuple[float, float]:
    """Unit vector from the segment ab towards p (perpendicular when p lies on the line)."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    length2 = dx * dx + dy * dy or 1.0
    t = max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / length2))
    qx, qy = a[0] + t * dx - p[0], a[1] + t * dy - p[1]
    norm = math.hypot(qx, qy)
    if norm < 1e-9:
        qx, qy, norm = -dy, dx, math.sqrt(length2)
    return -qx / norm, -qy / norm


def coloring_from_json(graph: Graph, data: Mapping[str, Any] | None) -> tuple[str | None, ...]:
    """Edge colours from ``{"red": [[u, v]...], "blue": [...], "green": [...]}``; edges not listed
    stay uncoloured."""
    colors: list[str | None] = [None] * graph.m
    if not data:
        return tuple(colors)
    for color in COLOR_NAMES:
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
    gadget: GadgetForm | None = None,
    coloring: Coloring | MultiColoring | Mapping[str, Any] | None = None,
    *,
    seed: int = 0,
) -> GraphPicture:
    if isinstance(coloring, Coloring):
        colors: tuple[str | None, ...] = tuple("red" if r else "blue" for r in coloring.red)
    elif coloring is not None and not isinstance(coloring, Mapping):  # k colours
        colors = coloring_from_json(graph, coloring.to_json())
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
    from matplotlib.figure import Figure

    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".png", ".svg"):
        raise InputError(f"output must end in .png or .svg, got {path.name!r}")
    fig = Figure(figsize=(5, 5.4 if caption else 5))
    FigureCanvasAgg(fig)
    ax = fig.add_axes((0.02, 0.08 if caption else 0.02, 0.96, 0.86 if title else 0.94))
    ax.set_xlim(0, 1)
    ax.set_ylim(1, 0)
    ax.set_aspect("equal")
    ax.axis("off")
    _plot_edges(ax, picture)
    _plot_vertices(ax, picture)
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


def _plot_edges(ax: Axes, picture: GraphPicture) -> None:
    """The coloured edges (marked ones thicker) and the labels of the marked edges."""
    from matplotlib.collections import LineCollection

    graph, pos = picture.graph, picture.positions
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


def _plot_vertices(ax: Axes, picture: GraphPicture) -> None:
    """The marked vertices (highlighted, with their names), then every vertex with its number."""
    graph, pos = picture.graph, picture.positions
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
