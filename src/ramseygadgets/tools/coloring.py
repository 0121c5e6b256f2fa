"""The coloring tool of the multiround setting: the (F,H)-good colorings of a graph, as text
(with three or more colours: the good colorings, each colour avoiding its pattern).

A model submits a graph (native tool call ``color_graph`` with ``{"edges": [[u, v], ...]}``,
or the plain-text protocol: a ```` ```coloring_tool ```` block, see :func:`extract_tool_request`)
and sees :func:`run_coloring_tool`'s text:

* whether the graph is (F,H)-good;
* the number of good colorings (exact up to :data:`COUNT_CAP` patterns, else "more than");
* the edges red in every good coloring and blue in every good coloring (forced edges; one line
  per colour);
* the free edges (in no copy of F or H: each takes any color in every good coloring; the count
  multiplies by c per free edge);
* the good colorings of the other (constrained) edges: all of them when there are at most
  :data:`SAMPLE_SIZE`, otherwise a sample, within :data:`MAX_OUTPUT_CHARS` characters.

Bad input never raises: the model sees one line saying what is wrong and what is expected.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from pysat.solvers import Solver

from ramseygadgets.colorings.copies import find_copies
from ramseygadgets.colorings.multi import MultiColorings
from ramseygadgets.colorings.red_blue import DEFAULT_SOLVER, GoodColorings
from ramseygadgets.colorings.spec import ColoringSpec
from ramseygadgets.core.errors import RamseyGadgetsError
from ramseygadgets.core.gadgets import COLOR_NAMES
from ramseygadgets.core.graphs import Edge, Graph, graph_from_mapping, parse_edge_list
from ramseygadgets.core.patterns import Pattern
from ramseygadgets.problems.problem import Problem

__all__ = [
    "TOOL_NAME",
    "TOOL_MAX_VERTICES",
    "COUNT_CAP",
    "SAMPLE_SIZE",
    "MAX_OUTPUT_CHARS",
    "TOOL_SPEC",
    "tool_spec",
    "ToolRequest",
    "extract_tool_request",
    "GoodColoringsReport",
    "describe_colorings",
    "run_coloring_tool",
]


TOOL_NAME = "color_graph"
#: Largest graph the tool accepts (twice the largest minimal solution of the dataset).
TOOL_MAX_VERTICES = 20
#: Good colorings of the constrained edges counted exactly up to this many.
COUNT_CAP = 2000
#: Colorings listed in full; above this a sample of this size is shown.
SAMPLE_SIZE = 12
MAX_OUTPUT_CHARS = 6000

TOOL_SPEC: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": TOOL_NAME,
        "description": (
            "List the (F,H)-good red/blue colorings of a graph for the problem's F and H: whether the "
            "graph is (F,H)-good, how many good colorings it has, the edges that are red (or blue) in "
            "every good coloring, the edges in no copy of F or H, and the good colorings themselves "
            f"(a sample when there are many). Vertices are 0..n-1; at most {TOOL_MAX_VERTICES} vertices."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "edges": {
                    "type": "array",
                    "description": "Every edge of the graph once, as a pair [u, v] of vertex labels 0..n-1.",
                    "items": {
                        "type": "array",
                        "items": {"type": "integer", "minimum": 0},
                        "minItems": 2,
                        "maxItems": 2,
                    },
                }
            },
            "required": ["edges"],
            "additionalProperties": False,
        },
    },
}


def tool_spec(problem: Problem) -> dict[str, Any]:
    """The native tool definition for ``problem``: :data:`TOOL_SPEC`, whose description names
    F and H, or for three or more colours the same tool described with every colour."""
    if problem.is_pair:
        return json.loads(json.dumps(TOOL_SPEC))
    spec = json.loads(json.dumps(TOOL_SPEC))
    spec["function"]["description"] = (
        "List the good colorings of a graph for the problem's colors and forbidden graphs (each "
        "edge gets one color; a coloring is good when no color contains a copy of its forbidden "
        "graph in that color): whether the graph is good, how many good colorings it has, the "
        "edges that have the same color in every good coloring, the edges in no copy of any "
        "forbidden graph, and the good colorings themselves (a sample when there are many). "
        f"Vertices are 0..n-1; at most {TOOL_MAX_VERTICES} vertices."
    )
    return spec


_USAGE = f'The tool needs a graph as {{"edges": [[u, v], ...]}} with vertex labels 0..{TOOL_MAX_VERTICES - 1}.'


@dataclass(frozen=True)
class ToolRequest:
    """A plain-text coloring request: the graph, or why the request could not be read."""

    graph: Graph | None
    error: str | None
    raw: str

    @property
    def ok(self) -> bool:
        return self.graph is not None


# ---------------------------------------------------------------------------------------------
# Reading requests
# ---------------------------------------------------------------------------------------------
def _graph_from_args(args: Any) -> Graph:
    """A graph from native tool arguments (a dict or its JSON text) or request text."""
    if isinstance(args, Graph):
        if args.n > TOOL_MAX_VERTICES:
            raise RamseyGadgetsError(
                f"the graph has {args.n} vertices; the tool accepts at most {TOOL_MAX_VERTICES}"
            )
        return args
    if isinstance(args, ToolRequest):
        if args.graph is None:
            raise RamseyGadgetsError(args.error or "the request holds no graph")
        return _graph_from_args(args.graph)
    if isinstance(args, (bytes, bytearray)):
        args = args.decode("utf-8", "replace")
    if isinstance(args, str):
        text = args.strip()
        if not text:
            raise RamseyGadgetsError("the request is empty")
        if text.startswith("{"):
            try:
                args = json.loads(text)
            except (ValueError, RecursionError):
                raise RamseyGadgetsError("the request is not valid JSON") from None
        else:
            return parse_edge_list(text, max_vertices=TOOL_MAX_VERTICES)
    if isinstance(args, Mapping):
        unknown = sorted(str(k) for k in args if k not in ("edges", "n"))
        if unknown:
            raise RamseyGadgetsError(f'unexpected field {unknown[0]!r}; only "edges" is expected')
    if isinstance(args, (Mapping, list)):
        return graph_from_mapping(args, max_vertices=TOOL_MAX_VERTICES)
    raise RamseyGadgetsError(f'expected a JSON object with "edges", got {type(args).__name__}')


_FENCE = re.compile(
    r"^[ \t]{0,3}```[ \t]*coloring[_-]tool[ \t]*\n(.*?)(?:^[ \t]{0,3}```[ \t]*$|\Z)",
    re.M | re.S | re.I,
)
_TAG = re.compile(r"<coloring[_-]tool>(.*?)(?:</coloring[_-]tool>|\Z)", re.S | re.I)


def extract_tool_request(text: str | None) -> ToolRequest | None:
    """The last coloring request of a reply (plain-text protocol), or ``None`` if it has none.

    A request is a code block whose info string is ``coloring_tool`` (or a
    ``<coloring_tool>...</coloring_tool>`` element) holding the graph as JSON
    ``{"edges": [[0, 1], ...]}`` (an edge list ``0-1, 1-2`` is read too).  Text up to the last
    ``</think>`` is reasoning and is not searched.  An unreadable request gives a
    :class:`ToolRequest` with ``graph=None`` and the reason in ``error``.
    """
    if not isinstance(text, str):
        return None
    close = text.rfind("</think>")
    if close >= 0:
        text = text[close + len("</think>") :]
    elif "<think>" in text:
        return None
    found = [(m.start(), m.group(1)) for m in _FENCE.finditer(text)]
    found += [(m.start(), m.group(1)) for m in _TAG.finditer(text)]
    if not found:
        return None
    raw = max(found)[1].strip()
    try:
        return ToolRequest(_graph_from_args(raw), None, raw[:4000])
    except (RamseyGadgetsError, ValueError, TypeError) as exc:
        return ToolRequest(None, str(exc), raw[:4000])


# ---------------------------------------------------------------------------------------------
# Answering requests
# ---------------------------------------------------------------------------------------------
def _edges_text(edges: list[Edge] | tuple[Edge, ...]) -> str:
    return ", ".join(f"{u}-{v}" for u, v in edges) or "none"


def _constrained_patterns(sat: GoodColorings, limit: int) -> Iterator[tuple[int, ...]]:
    """Distinct good colorings restricted to the constrained edges, up to ``limit`` (blocking
    clauses), as colour indices (0 red, 1 blue)."""
    constrained = [i for i in range(sat.graph.m) if sat.constrained[i]]
    with Solver(name=DEFAULT_SOLVER, bootstrap_with=sat.clauses) as solver:
        for _ in range(limit):
            if not solver.solve():
                return
            model = set(lit for lit in (solver.get_model() or []) if lit > 0)
            red = tuple((i + 1) in model for i in range(sat.graph.m))
            yield tuple(0 if r else 1 for r in red)
            if not constrained:
                return
            solver.add_clause([-(i + 1) if red[i] else i + 1 for i in constrained])


def _spread(items: list[Any], k: int) -> list[Any]:
    """``k`` items spread evenly over the list (all of them when there are at most ``k``)."""
    if len(items) <= k:
        return items
    step = len(items) / k
    return [items[int(i * step)] for i in range(k)]


def _either(items: list[str]) -> str:
    """``a or b``, ``a, b or c``."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


@dataclass(frozen=True)
class GoodColoringsReport:
    """What the tool reports on a good graph, for any number of colours: per colour the edges
    that have it in every good coloring, which edges are constrained (in some forbidden copy),
    and distinct good colorings of the constrained edges (colour index per edge, up to
    ``COUNT_CAP + 1`` of them)."""

    forced: tuple[tuple[Edge, ...], ...]
    constrained: tuple[bool, ...]
    patterns: list[tuple[int, ...]]


def _two_color_report(graph: Graph, F: Pattern, H: Pattern) -> GoodColoringsReport | None:
    """The report for (F, H) on the core's two-colour solver (``None``: not good)."""
    with GoodColorings(graph, F, H) as sat:
        if not sat.is_good():
            return None
        forced = sat.forced_edges()
        patterns = list(_constrained_patterns(sat, COUNT_CAP + 1))
        return GoodColoringsReport((forced.red, forced.blue), sat.constrained, patterns)


def _multi_color_report(graph: Graph, patterns: tuple[Pattern, ...]) -> GoodColoringsReport | None:
    """The report for one forbidden pattern per colour on the k-colour solver (``None``: not good)."""
    used = [False] * graph.m
    for pattern in patterns:
        for copy in find_copies(pattern, graph):
            for i in copy:
                used[i] = True
    constrained = [i for i in range(graph.m) if used[i]]
    with MultiColorings(graph, ColoringSpec.of(*patterns)) as sat:
        colors = sat.edge_colors()
        if graph.m and not colors[0]:
            return None
        forced = tuple(
            tuple(e for i, (e, cs) in enumerate(zip(graph.edges, colors)) if used[i] and cs == {k})
            for k in range(sat.c)
        )
        found: list[tuple[int, ...]] = []
        while len(found) <= COUNT_CAP:
            coloring = sat.solve()
            if coloring is None:
                break
            found.append(coloring.colors)
            if not constrained:
                break
            sat.solver.add_clause([-sat.lit(i, coloring.colors[i]) for i in constrained])
        return GoodColoringsReport(forced, tuple(used), found)


def describe_colorings(graph: Graph, F: Pattern, H: Pattern, *more: Pattern) -> str:
    """The tool's report on ``graph`` when red avoids F, blue avoids H and further colours
    (green, …) avoid ``more`` (see module docs)."""
    patterns = (F, H, *more)
    names = COLOR_NAMES[: len(patterns)]
    label = "(" + ", ".join(p.name for p in patterns) + ")"
    header = f"Graph with {graph.n} vertices and {graph.m} edges: {_edges_text(graph.edges)}."
    report = _multi_color_report(graph, patterns) if more else _two_color_report(graph, F, H)
    if report is None:
        copies = _either([f"a {name} copy of {p.name}" for name, p in zip(names, patterns)])
        return (
            f"{header}\nThis graph is NOT {label}-good: every {'/'.join(names)} coloring of it "
            f"has {copies}. It has no good colorings."
        )
    free = [e for e, c in zip(graph.edges, report.constrained) if not c]
    lines = [header, *_summary_lines(report, patterns, names, label, free)]
    shown = _spread(report.patterns[:COUNT_CAP], SAMPLE_SIZE)
    lines.append(_listing_heading(report, len(shown), bool(free)))
    budget = MAX_OUTPUT_CHARS - sum(len(x) + 1 for x in lines) - 100
    return "\n".join(lines + _coloring_lines(graph, report, shown, names, bool(free), budget))


def _summary_lines(
    report: GoodColoringsReport,
    patterns: tuple[Pattern, ...],
    names: tuple[str, ...],
    label: str,
    free: list[Edge],
) -> list[str]:
    """The count of good colorings, the forced edges of each colour and the free edges."""
    multiplier = len(patterns) ** len(free)
    if len(report.patterns) <= COUNT_CAP:
        count = f"exactly {len(report.patterns) * multiplier}"
    else:
        count = f"more than {COUNT_CAP * multiplier}"
    lines = [f"This graph is {label}-good. It has {count} {label}-good colorings."]
    lines += [
        f"Edges {name} in every good coloring: {_edges_text(edges)}."
        for name, edges in zip(names, report.forced)
    ]
    if free:
        lines.append(
            f"Free edges (in no copy of {_either([p.name for p in patterns])}; each can be "
            f"{_either(list(names))} independently in every good coloring): {_edges_text(free)}."
        )
    return lines


def _listing_heading(report: GoodColoringsReport, shown: int, free: bool) -> str:
    """The line above the listed colorings: all of them, or a sample of how many."""
    exact = len(report.patterns) <= COUNT_CAP
    listed = min(len(report.patterns), COUNT_CAP)
    what = "the edges other than the free edges" if free else "all edges"
    if shown == listed and exact:
        return f"All {listed} good colorings of {what}:"
    total = str(listed) if exact else f"more than {COUNT_CAP}"
    return f"A sample of {shown} of the {total} good colorings of {what}:"


def _coloring_lines(
    graph: Graph,
    report: GoodColoringsReport,
    shown: list[tuple[int, ...]],
    names: tuple[str, ...],
    free: bool,
    budget: int,
) -> list[str]:
    """One line per shown coloring (the edges of every colour but the last), cut off with a
    note when the output would exceed ``budget`` characters."""
    body: list[str] = []
    rest = "every other non-free edge" if free else "every other edge"
    for number, colors in enumerate(shown, start=1):
        listed = [
            f"{name}: "
            + _edges_text(
                [e for e, k, c in zip(graph.edges, colors, report.constrained) if k == index and c]
            )
            for index, name in enumerate(names[:-1])
        ]
        line = f"{number}. {'; '.join(listed)}; {rest} {names[-1]}"
        if len(line) + 1 > budget:
            body.append(
                f"(further colorings omitted to keep this output short; {number - 1} shown)"
            )
            break
        budget -= len(line) + 1
        body.append(line)
    return body


def run_coloring_tool(problem: Problem, graph_or_args: Any) -> str:
    """The text the model sees for a request: a graph, tool-call arguments, or request text.

    Never raises on bad input: the result then starts with ``Tool error:`` and says what the tool
    expects.
    """
    try:
        graph = _graph_from_args(graph_or_args)
    except (RamseyGadgetsError, ValueError, TypeError) as exc:
        return f"Tool error: {exc}. {_USAGE}"
    return describe_colorings(graph, *problem.patterns)
