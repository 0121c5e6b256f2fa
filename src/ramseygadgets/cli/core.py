"""Core commands: ``problems``, ``verify``, ``colorings``."""

from __future__ import annotations

import json
from typing import Optional

import typer
from rich.table import Table

from ramseygadgets.catalog import all_problems, get_problem
from ramseygadgets.cli.app import app, console, guarded, print_json, read_text_input
from ramseygadgets.colorings import GoodColorings
from ramseygadgets.errors import GraphFormatError
from ramseygadgets.gadgets import Candidate, Designated, GadgetType
from ramseygadgets.graphs import DEFAULT_MAX_VERTICES, _check_label, parse_graph
from ramseygadgets.patterns import get_pattern
from ramseygadgets.verify import verify as verify_candidate

JSON_OPTION = typer.Option(False, "--json", help="Print machine-readable JSON.")


def problem_record(problem) -> dict:
    """The JSON description of a catalog problem (extended by later modules)."""
    return problem.to_json()


@app.command()
@guarded
def problems(as_json: bool = JSON_OPTION) -> None:
    """List the 70 problems of the dataset."""
    records = [problem_record(p) for p in all_problems()]
    if as_json:
        print_json(records)
        return
    table = Table(title=f"RamseyGadgets: {len(records)} problems")
    for column in ("id", "F", "H", "gadget", "tier"):
        table.add_column(column)
    for r in records:
        table.add_row(r["id"], r["F"], r["H"], r["gadget"], r["tier"])
    console.print(table)


def _parse_edge_option(text: str, name: str) -> tuple[int, int]:
    parts = [p for p in text.replace(",", " ").replace("-", " ").split() if p]
    if len(parts) != 2:
        raise GraphFormatError(f"--{name} must be an edge like 0-1, got {text!r}")
    u, v = (_check_label(p, f"vertex in --{name}") for p in parts)
    return (min(u, v), max(u, v))


def read_candidate(text: str, gadget: GadgetType, e: str | None, f: str | None, vertices: str | None,
                   max_vertices: int) -> Candidate:
    """A candidate from a JSON answer, or from edge-list / graph6 text plus designated options."""
    stripped = text.strip()
    if stripped.startswith("{"):
        try:
            data = json.loads(stripped)
        except json.JSONDecodeError as exc:
            raise GraphFormatError(f"malformed JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
        if isinstance(data, dict):
            for key, value in (("e", e), ("f", f)):
                if value is not None:
                    data[key] = list(_parse_edge_option(value, key))
            if vertices is not None:
                data["vertices"] = [p for p in vertices.replace(",", " ").split()]
        return Candidate.from_json(data, gadget, max_vertices=max_vertices)
    graph = parse_graph(text, max_vertices=max_vertices)
    edges = tuple(_parse_edge_option(v, k) for k, v in (("e", e), ("f", f)) if v is not None)
    verts = tuple(_check_label(p, "vertex in --vertices") for p in (vertices or "").replace(",", " ").split())
    if verts and max(verts) >= graph.n:
        from ramseygadgets.graphs import Graph

        graph = Graph(max(verts) + 1, graph.edges)
    return Candidate(graph, Designated(edges, verts))


@app.command()
@guarded
def verify(
    problem_id: str = typer.Argument(..., help="Problem id, e.g. k13_k4_red_determiner."),
    file: Optional[str] = typer.Argument(None, help="Answer file (JSON, edge list or graph6); '-' or omitted: stdin."),
    e: Optional[str] = typer.Option(None, "--e", help="Designated edge e, e.g. 0-1 (for edge-list input)."),
    f: Optional[str] = typer.Option(None, "--f", help="Designated edge f (senders)."),
    vertices: Optional[str] = typer.Option(None, "--vertices", help="Designated vertices, e.g. 0,1,2 (hardness gadgets)."),
    max_vertices: int = typer.Option(DEFAULT_MAX_VERTICES, help="Refuse graphs with more vertices."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Verify an answer. Exit 0: correct, 1: incorrect, 2: unusable input."""
    problem = get_problem(problem_id)
    candidate = read_candidate(read_text_input(file), problem.gadget, e, f, vertices, max_vertices)
    verdict = verify_candidate(problem, candidate)
    if as_json:
        print_json({"problem_id": problem.id, **verdict.to_json()})
    else:
        mark = "[green]CORRECT[/green]" if verdict.correct else "[red]INCORRECT[/red]"
        console.print(f"{mark} {problem.title}: {verdict.reason}", highlight=False)
        if verdict.witness is not None:
            console.print(f"  witness coloring: {verdict.witness.describe()}", highlight=False)
    if verdict.check == "designated":
        raise typer.Exit(2)
    raise typer.Exit(0 if verdict.correct else 1)


@app.command()
@guarded
def colorings(
    F: str = typer.Argument(..., help="Pattern forbidden in red (e.g. K1,3)."),
    H: str = typer.Argument(..., help="Pattern forbidden in blue (e.g. K4)."),
    file: Optional[str] = typer.Argument(None, help="Graph file (JSON, edge list or graph6); '-' or omitted: stdin."),
    limit: int = typer.Option(10, min=0, help="List at most this many colorings."),
    count_cap: int = typer.Option(1_000_000, min=1, help="Stop counting past this many colorings."),
    max_vertices: int = typer.Option(DEFAULT_MAX_VERTICES, help="Refuse graphs with more vertices."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Count and list the (F,H)-good colorings of a graph, with its forced edges."""
    f_pattern, h_pattern = get_pattern(F), get_pattern(H)
    graph = parse_graph(read_text_input(file), max_vertices=max_vertices)
    with GoodColorings(graph, f_pattern, h_pattern) as sat:
        count, exact = sat.count(cap=count_cap)
        forced = sat.forced_edges()
        listed = []
        for coloring in sat.iter_colorings():
            if len(listed) >= limit:
                break
            listed.append(coloring)
        free = sat.free_edges
    result = {
        "F": f_pattern.name, "H": h_pattern.name, "n": graph.n, "m": graph.m,
        "good": count > 0, "count": count, "count_exact": exact,
        "forced_red": [list(x) for x in forced.red], "forced_blue": [list(x) for x in forced.blue],
        "free_edges": [list(x) for x in free],
        "colorings": [c.to_json() for c in listed],
    }
    if as_json:
        print_json(result)
        return
    fmt = lambda edges: ", ".join(f"{u}-{v}" for u, v in edges) or "none"  # noqa: E731
    more = "" if exact else "more than "
    console.print(f"G: {graph.n} vertices, {graph.m} edges; ({f_pattern.name}, {h_pattern.name})-good colorings: "
                  f"{more}{count}", highlight=False)
    console.print(f"forced red: {fmt(forced.red)}\nforced blue: {fmt(forced.blue)}\nfree edges: {fmt(free)}",
                  highlight=False)
    for i, c in enumerate(listed, 1):
        console.print(f"  {i}. {c.describe()}", highlight=False)
    if count > len(listed):
        console.print(f"  ... {('more than ' if not exact else '')}{count - len(listed)} more", highlight=False)
