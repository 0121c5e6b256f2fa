"""The names table (data/small_graphs.toml): complete, unique, and every name on the right graph.

The reference graphs are built independently of the table and of our nauty canonical form:
networkx's atlas and generators, and ISGCI's definitions (mostly as complements).
"""

from __future__ import annotations

import re
from collections import Counter

import networkx as nx
import pytest
from networkx.generators.atlas import graph_atlas_g

from ramseygadgets.core.errors import GraphFormatError, UnknownPatternError
from ramseygadgets.core.graphs import parse_graph
from ramseygadgets.core.patterns import (
    PAPER_NAMES,
    PAPER_PATTERNS,
    NamedGraph,
    _normalize,
    canonical_graph6,
    get_pattern,
    name_graph,
    small_graphs,
)

TABLE = small_graphs()


def nxg(row: NamedGraph) -> nx.Graph:
    return row.graph.to_networkx()


def connected_atlas() -> list[nx.Graph]:
    """Every connected graph on 1..5 vertices, from networkx's atlas (one per isomorphism class)."""
    return [g for g in graph_atlas_g() if 1 <= g.number_of_nodes() <= 5 and nx.is_connected(g)]


def test_table_has_every_connected_graph_on_at_most_5_vertices_exactly_once() -> None:
    atlas = connected_atlas()
    assert len(atlas) == len(TABLE) == 31  # 1 + 1 + 2 + 6 + 21 (OEIS A001349)
    assert Counter(row.graph.n for row in TABLE) == {1: 1, 2: 1, 3: 2, 4: 6, 5: 21}
    for g in atlas:
        matches = [row.name for row in TABLE if nx.is_isomorphic(g, nxg(row))]
        assert len(matches) == 1, (sorted(g.edges()), matches)


def test_table_agrees_with_nauty_geng() -> None:
    from ramseygadgets.search.exhaustive import iter_graphs

    for n in range(3, 6):
        geng = {
            canonical_graph6(g) for g in iter_graphs(n, n - 1, n * (n - 1) // 2, connected=True)
        }
        table = {canonical_graph6(row.graph) for row in TABLE if row.graph.n == n}
        assert geng == table


def test_names_slugs_and_spellings_are_unique() -> None:
    names = [row.name for row in TABLE]
    slugs = [row.slug for row in TABLE]
    assert len(set(names)) == len(names) and len(set(slugs)) == len(slugs)
    assert all(re.fullmatch(r"[a-z0-9]+", slug) for slug in slugs)
    rows_of: dict[str, set[str]] = {}
    for row in TABLE:
        for spelling in (row.name, *row.aliases):
            rows_of.setdefault(_normalize(spelling), set()).add(row.name)
    assert all(len(rows) == 1 for rows in rows_of.values())  # no spelling names two graphs
    assert all(row.about and row.source for row in TABLE)


def test_no_spelling_is_also_a_graph6_or_edge_list_of_a_pattern() -> None:
    for row in TABLE:
        for spelling in (row.name, *row.aliases):
            with pytest.raises(GraphFormatError):
                parse_graph(spelling, max_vertices=12)


def _plus_vertex(g: nx.Graph, neighbours: list[int]) -> nx.Graph:
    g = nx.Graph(g)
    new = g.number_of_nodes()
    g.add_edges_from((new, v) for v in neighbours)
    return g


def _minus_edge(g: nx.Graph) -> nx.Graph:
    g = nx.Graph(g)
    g.remove_edge(*next(iter(g.edges())))
    return g


def _co(*parts: nx.Graph) -> nx.Graph:
    """ISGCI's co-(A ∪ B ∪ …): the complement of a disjoint union."""
    union = parts[0]
    for part in parts[1:]:
        union = nx.disjoint_union(union, part)
    return nx.complement(union)


K1 = nx.empty_graph(1)
DIAMOND = nx.diamond_graph()
FORK = _plus_vertex(nx.star_graph(3), [1])  # the claw with one edge subdivided
PAW = _plus_vertex(nx.complete_graph(3), [0])

#: Each name's graph from its definition in the literature, built without the table.
DEFINITIONS: dict[str, nx.Graph] = {
    "K1": K1,
    "K2": nx.complete_graph(2),
    "P3": nx.path_graph(3),
    "K3": nx.complete_graph(3),
    "P4": nx.path_graph(4),
    "K1,3": nx.star_graph(3),
    "TK3": PAW,
    "C4": nx.cycle_graph(4),
    "K4-e": DIAMOND,
    "K4": nx.complete_graph(4),
    "P5": nx.path_graph(5),
    "K1,4": nx.star_graph(4),
    "fork": FORK,
    "cricket": nx.Graph(list(nx.star_graph(4).edges()) + [(1, 2)]),  # K1,4 + e
    "bull": nx.bull_graph(),
    "banner": _plus_vertex(nx.cycle_graph(4), [0]),  # P = 4-pan
    "co-banner": nx.complement(_plus_vertex(nx.cycle_graph(4), [0])),
    "C5": nx.cycle_graph(5),
    "dart": _co(PAW, K1),  # ISGCI: co-dart = paw ∪ K1
    "kite": nx.complement(FORK),  # ISGCI: kite = co-fork
    "butterfly": nx.compose(
        nx.complete_graph(3), nx.relabel_nodes(nx.complete_graph(3), {1: 3, 2: 4})
    ),
    "house": nx.house_graph(),
    "K2,3": nx.complete_bipartite_graph(2, 3),
    "co-(claw∪K1)": _co(nx.star_graph(3), K1),
    "K1,1,3": nx.complete_multipartite_graph(1, 1, 3),
    "gem": _plus_vertex(nx.path_graph(4), [0, 1, 2, 3]),  # 3-fan
    "co-(P2∪P3)": _co(nx.path_graph(2), nx.path_graph(3)),
    "house X": nx.house_x_graph(),
    "W4": nx.wheel_graph(5),
    "K5-e": _minus_edge(nx.complete_graph(5)),
    "K5": nx.complete_graph(5),
}


def test_every_name_is_on_the_graph_its_definition_gives() -> None:
    assert set(DEFINITIONS) == {row.name for row in TABLE}
    for row in TABLE:
        assert nx.is_isomorphic(nxg(row), DEFINITIONS[row.name]), row.name


def test_defining_properties_of_a_few_names() -> None:
    by_name = {row.name: nxg(row) for row in TABLE}
    house = by_name["house"]  # C5 plus one chord
    assert house.number_of_edges() == 6 and any(
        nx.is_isomorphic(nx.Graph(house.edges() - {e}), nx.cycle_graph(5)) for e in house.edges()
    )
    w4 = by_name["W4"]  # C4 plus a universal vertex
    hub = [v for v in w4 if w4.degree(v) == 4]
    assert len(hub) == 1 and nx.is_isomorphic(w4.subgraph(set(w4) - set(hub)), nx.cycle_graph(4))
    dart, kite = by_name["dart"], by_name["kite"]  # the diamond plus a pendant edge
    for g, attached in ((dart, 3), (kite, 2)):
        leaf = [v for v in g if g.degree(v) == 1][0]
        (anchor,) = g.neighbors(leaf)
        assert nx.is_isomorphic(g.subgraph(set(g) - {leaf}), DIAMOND)
        assert g.degree(anchor) - 1 == attached
    assert nx.is_isomorphic(nx.complement(by_name["bull"]), by_name["bull"])  # self-complementary
    assert nx.is_isomorphic(nx.complement(by_name["P5"]), house)  # house = co-P5


def test_every_spelling_resolves_to_its_row() -> None:
    for row in TABLE:
        for spelling in (row.name, *row.aliases):
            if row.graph.m < 2:
                with pytest.raises(UnknownPatternError, match="at least 3 vertices"):
                    get_pattern(spelling)
                continue
            pattern = get_pattern(spelling)
            assert (pattern.name, pattern.slug, pattern.graph) == (row.name, row.slug, row.graph)


def test_any_labelling_gets_the_table_name() -> None:
    for g in connected_atlas():
        relabelled = nx.relabel_nodes(g, {v: g.number_of_nodes() - 1 - v for v in g})
        pattern = name_graph(parse_graph(nx.to_graph6_bytes(relabelled, header=False).decode()))
        assert nx.is_isomorphic(pattern.graph.to_networkx(), g)
        assert pattern.name in {row.name for row in TABLE}


def test_the_paper_patterns_keep_the_papers_spelling() -> None:
    assert tuple(name for name, _, _ in PAPER_PATTERNS) == PAPER_NAMES
    assert get_pattern("paw").name == "TK3" and get_pattern("diamond").name == "K4-e"


@pytest.mark.parametrize(
    "args",
    [
        ("colorings", "K12", "K3"),
        ("colorings", "K3", "K12"),
        ("solve", "--F", "K12", "--H", "K3", "--gadget", "positive-sender"),
        ("generate", "--F", "P3,K12", "--H", "K3", "--dry-run", "--out", "{tmp}"),
        ("generate", "--spec", "K12 | K3 | K4", "--dry-run", "--out", "{tmp}"),
    ],
)
def test_ambiguous_compact_name_is_refused_the_same_in_every_command(args, tmp_path) -> None:
    """Issue 16.11: ``K12`` silently meant K1,2 (P3) in every command that takes a pattern."""
    from typer.testing import CliRunner

    from ramseygadgets.cli import app

    result = CliRunner().invoke(
        app, [a.replace("{tmp}", str(tmp_path / "out")) for a in args], input="0-1,1-2,0-2"
    )
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")
    assert (
        "'K12' is ambiguous: write K1,2 for the star with 2 leaves, or K_12 for the complete graph on 12 vertices"
        in lines[0]
    )


def test_records_with_any_name_read_back_to_the_same_problem() -> None:
    from ramseygadgets.colorings.spec import ColoringSpec
    from ramseygadgets.core.gadgets import GadgetKind
    from ramseygadgets.problems.problem import Problem
    from ramseygadgets.problemsets import problem_of_record

    tadpole = "0-1 1-2 2-3 3-4 4-0 0-5"  # C5 with a pendant edge: no table or family name
    for F, H in (("K3", tadpole), ("K1,3", "bull"), ("P3", "K_12"), ("K3", "Petersen")):
        problem = Problem.make(F, H, "positive-sender")
        assert problem_of_record(problem.to_json()) == problem
    multi = Problem(ColoringSpec.of("P3", [tadpole, "K3"], "house"), GadgetKind.DETERMINER, 2)
    assert Problem.from_json(multi.to_json()) == multi
    assert "n6m6-" in multi.id and "house" in multi.id


def test_names_are_accepted_by_every_command(tmp_path) -> None:
    from typer.testing import CliRunner

    from ramseygadgets.cli import app

    runner = CliRunner()
    result = runner.invoke(app, ["colorings", "P3", "bull"], input="0-1,0-2,1-2,1-3,2-4")
    assert result.exit_code == 0 and "(P3, bull)-good colorings: 8" in result.stdout
    out = str(tmp_path / "gen")
    result = runner.invoke(
        app, ["generate", "--F", "K1,3", "--H", "house,kite,K2,3", "--dry-run", "--out", out]
    )
    assert result.exit_code == 0, result.output
    for pid in ("k13_house_red_determiner", "k13_kite_clause_gadget", "k13_k23_negative_sender"):
        assert pid in result.stdout
    result = runner.invoke(app, ["generate", "--spec", "P3 | bull | W4", "--dry-run", "--out", out])
    assert result.exit_code == 0 and "p3__bull__w4_green_determiner" in result.stdout
