"""Core commands: ``problems``, ``verify``, ``colorings``; the problem-set options (``--set``,
``--dataset``) shared by every command that takes a problem id; the size grade of an answer as
``eval`` records it (:func:`size_grade`, shared with ``check``)."""

from __future__ import annotations

import re
from itertools import islice
from typing import TYPE_CHECKING, Any

import typer
from rich.table import Table

from ramseygadgets.cli.app import (
    app,
    console,
    err_console,
    fail,
    guarded,
    print_json,
    read_text_input,
)
from ramseygadgets.cli.options import (
    DatasetOption,
    EdgeEOption,
    EdgeFOption,
    JsonOption,
    SetOption,
    VerticesOption,
)
from ramseygadgets.core.errors import DesignatedItemError, GraphFormatError
from ramseygadgets.core.gadgets import Candidate, Designated, GadgetForm
from ramseygadgets.core.graphs import (
    DEFAULT_MAX_VERTICES,
    Graph,
    _check_label,
    load_json,
    parse_graph,
)
from ramseygadgets.core.patterns import get_pattern
from ramseygadgets.problems.catalog import Problem

if TYPE_CHECKING:
    from ramseygadgets.runs.grade import Grade
    from ramseygadgets.verification.basis import Basis
    from ramseygadgets.verification.selection import Selection

__all__ = [
    "resolve_problem",
    "size_grade",
    "size_text",
    "problem_record",
    "set_records",
    "problems",
    "read_candidate",
    "verify",
    "DEFAULT_COUNT_CAP",
    "colorings",
]


def resolve_problem(
    problem_id: str, set_name: str | None, dataset: str | None
) -> tuple[Problem, Selection]:
    """The problem ``problem_id`` of the chosen set (``--set``, default paper, or ``--dataset``),
    and that set; an unknown id names the set and suggests close ids. The paper's set (the
    default) also finds an extended-set id, as ``eval --problems`` does."""
    from ramseygadgets.verification.selection import (
        base_problem_set,
        find_in_set,
        with_extended_ids,
    )

    problem_set = base_problem_set(dataset, set_name)
    if problem_set.source == "catalog":
        problem_set = with_extended_ids(problem_set, [problem_id])
    return find_in_set(problem_set, problem_id), problem_set


def size_grade(problem: Problem, problem_set: Selection, grade: Grade) -> dict[str, Any]:
    """The size grade of an answer exactly as ``eval`` records it
    (:func:`~ramseygadgets.runs.grading.size_fields`: ``minimal``, the excesses over the
    problem's proven optimum, ``discovery``, and the ``recheck`` of a discovery), against the
    chosen set's proven optimum and best known solution."""
    from ramseygadgets.runs.grading import size_fields

    return size_fields(problem, grade, problem_set.optimum(problem), problem_set.solution(problem))


def size_text(fields: dict[str, Any]) -> str | None:
    """One line on a correct answer's size grade (``None`` for an answer without one)."""
    n, m = fields.get("candidate_vertices"), fields.get("candidate_edges")
    if n is None or m is None:
        return None
    grade = _minimality_text(fields)
    discovery = fields.get("discovery")
    if discovery is not None:
        agrees = (fields.get("recheck") or {}).get("agrees")
        confirmed = {True: "confirmed", False: "NOT confirmed", None: "not rechecked"}[agrees]
        grade += f"; {discovery} (the independent recheck: {confirmed})"
    return f"{n} vertices, {m} edges: {grade}"


def _minimality_text(fields: dict[str, Any]) -> str:
    """The size grade in words, with what the optimum rests on (:mod:`ramseygadgets.verification.basis`):
    "minimal (the proven optimum has 5 vertices)", "minimal in vertices (the vertex count is 15
    as far as the cube log holds (338 cubes not re-run), its edge count not proven)", "1 vertex
    above the optimum (…)"."""
    from ramseygadgets.runs.sizes import optimum_of

    optimum, grade = optimum_of(fields), fields.get("minimality")
    if optimum is None or grade is None:
        return "no proven optimum to compare with"
    about = optimum.basis.describe(optimum.vertices)
    if grade == "not minimal":
        excess = fields["excess_vertices"]
        return f"not minimal: {excess} {'vertex' if excess == 1 else 'vertices'} above ({about})"
    return f"{grade} ({about})"


def problem_record(problem: Problem, problem_set: Selection | None = None) -> dict[str, Any]:
    """The JSON description of a problem, with its minimal solution (the shipped one for the
    paper's 70, else the set's).

    ``min_vertices`` / ``min_edges``: the minimal solution's size (fewest vertices, then fewest
    edges; ``null`` when none is known, and ``min_edges`` ``null`` where only the vertex count
    is proven); ``solution``: that graph with its designated items.
    """
    from ramseygadgets.problems.solutions import load_solutions

    record: dict[str, Any] = dict(problem.to_json())
    if problem_set is None:
        shipped = load_solutions().get(problem.id)
        candidate = shipped.candidate if shipped is not None else None
    else:
        candidate = problem_set.solution(problem)
    optimum = problem_set.optimum(problem) if problem_set is not None else None
    basis = optimum.basis if optimum is not None else None
    record["min_vertices"] = candidate.graph.n if candidate is not None else None
    edges_unproven = basis is not None and not basis.edges_proven
    record["min_edges"] = None if candidate is None or edges_unproven else candidate.graph.m
    if problem_set is not None:
        record["optimum_basis"] = None if basis is None else basis.to_json()
    record["solution"] = candidate.to_json(problem.kind) if candidate is not None else None
    return record


def _with_basis(record: dict[str, Any], basis: Basis) -> dict[str, Any]:
    """An extended-set record with what its optimum rests on (``min_edges`` null unless the
    edge count is proven; a disputed entry lists no minimum)."""
    if basis.disputed:
        record["min_vertices"] = None
    if not basis.edges_proven:
        record["min_edges"] = None
    record["optimum_basis"] = basis.to_json()
    return record


def set_records(set_name: str | None, dataset: str | None) -> list[dict[str, Any]]:
    """The records ``problems`` lists: the extended set with every colour count, size tier and
    proof; any other set with the fields of :func:`problem_record`."""
    if dataset is None and set_name in (None, "paper"):  # the catalog alone: no SAT solver
        from ramseygadgets.problems.catalog import all_problems

        return [problem_record(p) for p in all_problems()]
    from ramseygadgets.verification.selection import base_problem_set

    problem_set = base_problem_set(dataset, set_name)
    if set_name == "extended":
        from ramseygadgets.problems.extended import extended_problems

        return [
            _with_basis(p.to_json(), problem_set.basis(p.problem, exact=False))
            for p in extended_problems()
        ]
    chosen = None if dataset is None else problem_set
    return [problem_record(p, chosen) for p in problem_set.problems]


def _problems_table(rows: list[dict[str, str]], columns: list[str], count: int) -> Table:
    """The ``problems`` table of ``columns``: the id column keeps its longest id on one line,
    the other columns fold (wrap mid-word) if the terminal is narrower still."""
    table = Table(title=f"RamseyGadgets: {count} problems")
    longest = max((len(r["id"]) for r in rows), default=2)
    table.add_column("id", no_wrap=True, min_width=longest)
    for column in columns[1:]:
        table.add_column(column, overflow="fold", min_width=9 if column == "size tier" else None)
    for row in rows:
        table.add_row(*(row[c] for c in columns))
    return table


def _pattern_column(record: dict[str, Any]) -> tuple[str, str]:
    """The F and H columns: a pair's two patterns, else every colour's forbidden pattern (or
    pattern set) in the F column, e.g. ``P3, P3, K3`` or ``{P3}; {K3, C4}``."""
    if record.get("F") is not None:
        return record["F"], record["H"]
    groups = record["colors"]
    if all(isinstance(group, str) for group in groups):
        return ", ".join(groups), ""
    return "; ".join(
        group if isinstance(group, str) else "{" + ", ".join(group) + "}" for group in groups
    ), ""


@app.command()
@guarded
def problems(
    set_name: SetOption = None,
    dataset: DatasetOption = None,
    as_json: JsonOption = False,
) -> None:
    """List the problems of a set (default: the paper's 70) with id, F, H, gadget type and tier.

    Ids are {F}_{H}_{gadget} in lower case, e.g. k13_k4_red_determiner for the (K1,3, K4)-red-determiner. --set extended adds the size tier, the source and the colour count, and --json every minimal solution with its proof.
    """
    records = set_records(set_name, dataset)
    if as_json:
        print_json(records)
        return
    sized = any("size_tier" in r for r in records)
    rows = [
        {
            "id": r["id"],
            **dict(zip(("F", "H"), _pattern_column(r))),
            "gadget": r["gadget"],
            "tier": r["tier"],
            **(
                {"n": _vertex_cell(r), "size tier": r["size_tier"], "source": r["source"]}
                if sized
                else {}
            ),
        }
        for r in records
    ]
    columns = list(rows[0]) if rows else ["id", "F", "H", "gadget", "tier"]
    table = _problems_table(rows, columns, len(records))
    dropped: list[str] = []
    # a narrow terminal: leave out the least needed columns (--json has them all) before
    # anything is folded; ids are never cut
    unbounded = console.options.update(max_width=10_000)
    for column in ("source", "size tier"):
        if (
            column not in columns
            or console.measure(table, options=unbounded).maximum <= console.width
        ):
            continue
        columns.remove(column)
        dropped.append(column)
        table = _problems_table(rows, columns, len(records))
    notes = [ON_TRUST_NOTE] if any(row.get("n", "").endswith("†") for row in rows) else []
    if dropped:
        notes.append(f"{', '.join(dropped)} left out at this width: --json lists every field")
    if notes:
        table.caption = "\n".join(notes)
    console.print(table)


#: The caption under a ``problems`` table with a † (what the † says; ``--json`` says more).
ON_TRUST_NOTE = "† n as far as a cube log holds (not all re-run); --json: optimum_basis"


def _vertex_cell(record: dict[str, Any]) -> str:
    """The ``n`` column: the minimal vertex count, ``15†`` where it rests on cube outcomes
    not all re-run, ``disputed`` where the atlas entry is."""
    basis = record.get("optimum_basis") or {}
    if basis.get("vertices") == "disputed":
        return "disputed"
    n = str(record["min_vertices"])
    return f"{n}†" if basis.get("vertices") == "cube log" else n


def _parse_edge_option(text: str, name: str) -> tuple[int, int]:
    parts = [p for p in re.split(r"[\s,;()\[\]\-−–]+", text) if p]
    if len(parts) != 2:
        raise DesignatedItemError(f"--{name} must be an edge like 0-1, got {text!r}")
    u, v = (_designated_label(p, f"vertex in --{name}") for p in parts)
    return (min(u, v), max(u, v))


def _designated_label(text: str, what: str) -> int:
    try:
        return _check_label(text, what)
    except GraphFormatError as exc:
        raise DesignatedItemError(str(exc)) from None


def _parse_vertices_option(text: str) -> list[int]:
    return [
        _designated_label(p, "vertex in --vertices") for p in re.split(r"[\s,;()\[\]]+", text) if p
    ]


def read_candidate(
    text: str,
    gadget: GadgetForm,
    e: str | None,
    f: str | None,
    vertices: str | None,
    max_vertices: int,
) -> Candidate:
    """A candidate from a JSON answer, or from edge-list / graph6 text plus designated options.

    Options given on the command line override designated items inside a JSON answer.
    """
    stripped = text.strip().removeprefix("\ufeff").strip()
    if stripped.startswith("{"):
        data = load_json(stripped)
        if isinstance(data, dict):
            for key, value in (("e", e), ("f", f)):
                if value is not None:
                    data[key] = list(_parse_edge_option(value, key))
            if vertices is not None:
                data["vertices"] = _parse_vertices_option(vertices)
        return Candidate.from_json(data, gadget, max_vertices=max_vertices)
    graph = parse_graph(text, max_vertices=max_vertices)
    edges = tuple(_parse_edge_option(v, k) for k, v in (("e", e), ("f", f)) if v is not None)
    verts = tuple(_parse_vertices_option(vertices or ""))
    if verts and max(verts) >= graph.n:  # designated isolated vertices beyond the edge list
        if max(verts) >= max_vertices:
            raise DesignatedItemError(
                f"designated vertex {max(verts)} exceeds the limit of {max_vertices} vertices"
            )
        graph = Graph(max(verts) + 1, graph.edges)
    return Candidate(graph, Designated(edges, verts))


@app.command()
@guarded
def verify(
    problem_id: str = typer.Argument(
        ..., help="Problem id, e.g. k13_k4_red_determiner (see 'ramseygadgets problems')."
    ),
    file: str | None = typer.Argument(
        None, help="Answer file (JSON, edge list or graph6); '-' or omitted: stdin."
    ),
    set_name: SetOption = None,
    dataset: DatasetOption = None,
    e: EdgeEOption = None,
    f: EdgeFOption = None,
    vertices: VerticesOption = None,
    max_vertices: int = typer.Option(
        DEFAULT_MAX_VERTICES, min=1, help="Refuse graphs with more vertices."
    ),
    as_json: JsonOption = False,
) -> None:
    r"""Verify an answer to a problem. Exit 0: correct, 1: incorrect, 2: unusable input.

    The answer is a JSON object {"edges": \[\[0,1], \[1,2], ...], "e": \[0,1], "f": \[1,2], "vertices": \[0,1,2]} with the designated items the gadget needs, or an edge list (0-1, 1-2 or one "0 1" per line) or graph6 string with the designated items given by --e, --f and --vertices.
    """
    from ramseygadgets.runs.grade import Grade
    from ramseygadgets.verification.verifier import verify as verify_candidate

    problem, problem_set = resolve_problem(problem_id, set_name, dataset)
    candidate = read_candidate(read_text_input(file), problem.kind, e, f, vertices, max_vertices)
    verdict = verify_candidate(problem, candidate)
    if verdict.check == "designated":  # unusable answer, not a wrong one
        fail(verdict.reason)
    graded = Grade(
        correct=verdict.correct,
        reason=verdict.reason,
        check=verdict.check,
        candidate=candidate.to_json(problem.kind),
        witness=verdict.witness.to_json() if verdict.witness is not None else None,
    )
    sizes = size_grade(problem, problem_set, graded)
    if as_json:
        print_json({"problem_id": problem.id, **verdict.to_json(), **sizes})
    else:
        mark = "[green]CORRECT[/green]" if verdict.correct else "[red]INCORRECT[/red]"
        console.print(f"{mark} {problem.title}: {verdict.reason}", highlight=False)
        if verdict.witness is not None:
            console.print(f"  witness coloring: {verdict.witness.describe()}", highlight=False)
        if (line := size_text(sizes)) is not None:
            console.print(f"  size: {line}", highlight=False)
    raise typer.Exit(0 if verdict.correct else 1)


#: Default cap for ``colorings``: counting enumerates colorings (about 1 s for 20,000 on long chains).
DEFAULT_COUNT_CAP = 20_000


@app.command()
@guarded
def colorings(
    F: str = typer.Argument(
        ...,
        help="Pattern forbidden in red: a name (P3, K1,3/claw, K3, P4, TK3/paw, C4, K4-e, K4, "
        "bull, house, kite, dart, gem, W4, K2,3, ... any connected graph on at most 5 vertices; "
        "families Pk, Ck, Kk, Ka,b, Kk-e, Wk, Petersen), an edge list or graph6.",
    ),
    H: str = typer.Argument(..., help="Pattern forbidden in blue (same forms as F)."),
    file: str | None = typer.Argument(
        None, help="Graph file (JSON, edge list or graph6); '-' or omitted: stdin."
    ),
    limit: int = typer.Option(10, "--limit", min=0, help="List at most this many colorings."),
    count_cap: int = typer.Option(
        DEFAULT_COUNT_CAP,
        "--count-cap",
        min=1,
        help="Stop counting past this many colorings (then the count is a lower bound).",
    ),
    max_vertices: int = typer.Option(
        DEFAULT_MAX_VERTICES, min=1, help="Refuse graphs with more vertices."
    ),
    as_json: JsonOption = False,
) -> None:
    """Count and list the (F,H)-good colorings of a graph, with its forced and free edges.

    A coloring is (F,H)-good when it has no red F and no blue H. Forced edges have the same colour in every good coloring; free edges lie in no copy of F or H and take both colours.
    """
    from ramseygadgets.colorings.red_blue import GoodColorings

    f_pattern, h_pattern = get_pattern(F), get_pattern(H)
    graph = parse_graph(read_text_input(file), max_vertices=max_vertices)
    with GoodColorings(graph, f_pattern, h_pattern) as sat:
        with err_console.status("counting good colorings ..."):
            count, exact = sat.count(cap=count_cap)
            forced = sat.forced_edges()
            listed = list(islice(sat.iter_colorings(), limit))
        free = sat.free_edges
    result = {
        "F": f_pattern.name,
        "H": h_pattern.name,
        "n": graph.n,
        "m": graph.m,
        "good": count > 0,
        "count": count,
        "count_exact": exact,
        "forced_red": [list(x) for x in forced.red],
        "forced_blue": [list(x) for x in forced.blue],
        "free_edges": [list(x) for x in free],
        "colorings": [c.to_json() for c in listed],
    }
    if as_json:
        print_json(result)
        return
    fmt = lambda edges: ", ".join(f"{u}-{v}" for u, v in edges) or "none"  # noqa: E731
    how_many = (
        f"{count:,}" if exact else f"more than {count:,} (raise --count-cap to count further)"
    )
    console.print(
        f"G: {graph.n} vertices, {graph.m} edges; ({f_pattern.name}, {h_pattern.name})-good colorings: "
        f"{how_many}",
        highlight=False,
    )
    console.print(
        f"forced red: {fmt(forced.red)}\nforced blue: {fmt(forced.blue)}\nfree edges: {fmt(free)}",
        highlight=False,
    )
    for i, c in enumerate(listed, 1):
        console.print(f"  {i}. {c.describe()}", highlight=False)
    if not exact or count > len(listed):
        rest = f"{count - len(listed):,} more" if exact else "more"
        console.print(f"  ... {rest} (list more with --limit)", highlight=False)
