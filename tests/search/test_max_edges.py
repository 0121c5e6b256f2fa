"""``max_edges``: search only graphs with at most M edges, in one process, by cubes, in k colours,
and on the command line; a capped "none" never stands in for an uncapped one."""

from __future__ import annotations

import importlib
import json
from dataclasses import replace

import pytest
from typer.testing import CliRunner

from ramseygadgets.cli import app
from ramseygadgets.colorings.spec import ColoringSpec
from ramseygadgets.core.gadgets import GadgetKind
from ramseygadgets.problems.catalog import all_problems, get_problem
from ramseygadgets.problems.problem import Problem
from ramseygadgets.search import SearchOptions, parallel, solve
from ramseygadgets.search.cubelog import read_log
from ramseygadgets.search.cubeproof import CubeProof, none_below, problem_tag
from ramseygadgets.search.exhaustive import exhaustive_minimums, nauty_available
from ramseygadgets.search.multi import solve_multi
from ramseygadgets.search.options import SearchError
from ramseygadgets.search.parallel import solve_cubes

#: the module (the package's ``solve`` is the function)
search_solve = importlib.import_module("ramseygadgets.search.solve")


def _at(n: int, cap: int, **more) -> SearchOptions:
    return SearchOptions(min_vertices=n, max_vertices=n, max_edges=cap, **more)


def test_a_negative_cap_is_refused_in_one_line():
    with pytest.raises(SearchError, match="--max-edges must be at least 0, got -1"):
        SearchOptions(max_edges=-1)


@pytest.mark.skipif(not nauty_available(), reason="nauty (geng, listg) is not installed")
def test_capped_search_finds_exactly_when_the_cap_reaches_the_exhaustive_minimum():
    """The least edge count on the least vertex count, from the independent nauty scan: a cap
    one below it is 'none' on that level, the cap itself finds a solution of that size."""
    problems = [p for p in all_problems() if p.id.startswith(("p3_", "k13_k3"))][:6]
    scanned = exhaustive_minimums(problems, 7)
    checked = 0
    for p in problems:
        n, m = scanned[p.id].n, scanned[p.id].m
        if n is None:
            continue
        below = solve(p, _at(n, m - 1))
        assert below.status == "none-up-to-limit", p.id
        assert f"none on {n} vertices with at most {m - 1} edges" in below.proof()
        at = solve(p, _at(n, m))
        assert at.found and at.m == m and at.edges_minimal, p.id
        checked += 1
    assert checked >= 4


def test_a_cube_run_gives_the_single_process_verdict_and_logs_the_cap(tmp_path):
    p = get_problem("k13_k4_red_determiner")  # minimal: 10 vertices, 40 edges
    capped = solve_cubes(p, _at(10, 39, cubes=8, out=tmp_path))
    assert capped.status == "none-up-to-limit"
    assert capped.proof().startswith("none on 10 vertices with at most 39 edges")
    records = read_log(tmp_path / "cubes.jsonl")
    cubes = [r for r in records if r["kind"] == "cube"]
    assert cubes and all(r["max_edges"] == 39 for r in cubes)
    assert [r["max_edges"] for r in records if r["kind"] == "level"] == [39]
    found = solve_cubes(p, _at(10, 40, cubes=8, minimize_edges=False))
    assert found.found and found.m <= 40


def test_a_rerun_takes_from_the_log_only_what_holds_under_its_cap(tmp_path):
    p = get_problem("k13_k4_red_determiner")
    solve_cubes(p, _at(10, 38, cubes=8, out=tmp_path))
    # a larger cap or none at all: the cap-38 none-cubes say nothing, every cube runs again
    again = solve_cubes(p, _at(10, 39, cubes=8, out=tmp_path))
    assert again.levels[0].cubes_from_log == 0 and again.status == "none-up-to-limit"
    # a smaller cap: the cap-39 none-cubes hold for it, nothing is searched
    smaller = solve_cubes(p, _at(10, 37, cubes=8, out=tmp_path))
    assert smaller.levels[0].cubes_searched == 0 and smaller.levels[0].cubes_from_log > 0


def test_a_capped_log_never_proves_a_level_none(tmp_path):
    p = get_problem("k13_k4_red_determiner")
    solve_cubes(p, _at(9, 20, cubes=4, out=tmp_path))  # none on 9 with at most 20 edges
    with pytest.raises(SearchError, match="do not cover it"):
        none_below(tmp_path, p, 9)
    # the atlas reads proofs the same way: no level-9 proof from capped cubes
    assert not CubeProof.from_records(read_log(tmp_path / "cubes.jsonl"), p)
    uncapped = tmp_path / "uncapped"
    solve_cubes(p, SearchOptions(min_vertices=9, max_vertices=9, cubes=4, out=uncapped))
    assert "none on 9" in none_below(uncapped, p, 9)[0]


def test_three_colours_take_the_cap():
    spec = ColoringSpec.parse("P3 | P3 | P4")
    kinds = [(GadgetKind.DETERMINER, k) for k in range(3)] + [(GadgetKind.POSITIVE_SENDER, None)]
    solved = (solve_multi(Problem(spec, *kind), SearchOptions(max_vertices=5)) for kind in kinds)
    best = next(r for r in solved if r.found and r.m > 0)
    problem = best.problem
    n, m = best.n, best.m
    assert solve_multi(problem, _at(n, m - 1)).status == "none-up-to-limit"
    capped = solve_multi(problem, _at(n, m))
    assert capped.found and capped.m == m


def test_the_cli_searches_under_the_cap_and_says_so():
    runner = CliRunner()
    none = runner.invoke(
        app, ["solve", "k13_k4_red_determiner", "--max-vertices", "10", "--max-edges", "39"]
    )
    assert none.exit_code == 1, none.output
    assert "no solution on at most 10 vertices with at most 39 edges (proven)" in none.output
    found = runner.invoke(app, ["solve", "k13_k4_red_determiner", "--max-edges", "40", "--json"])
    assert found.exit_code == 0, found.output
    result = json.loads(found.output)["results"][0]
    assert result["max_edges"] == 40 and result["m"] == 40
    bad = runner.invoke(app, ["solve", "k13_k4_red_determiner", "--max-edges", "-2"])
    assert bad.exit_code == 2 and "Traceback" not in bad.output


def test_cube_runs_minimise_edges_by_capped_rounds_that_resume(tmp_path):
    p = get_problem("k13_k4_red_determiner")  # minimal: 10 vertices, 40 edges
    options = SearchOptions(min_vertices=10, max_vertices=10, cubes=8, out=tmp_path)
    first = solve_cubes(p, options)
    assert (first.n, first.m, first.edges_minimal) == (10, 40, True)
    # the rounds are not levels: "none with at most 39 edges" is no level's "none"
    assert [(lv.n, lv.outcome, lv.max_edges) for lv in first.levels] == [(10, "found", None)]
    assert "with at most" not in first.proof()
    log = tmp_path / "cubes.jsonl"
    levels = [r for r in read_log(log) if r["kind"] == "level"]
    caps = [r.get("max_edges") for r in levels]
    assert caps[0] is None and caps[1:] == sorted(caps[1:], reverse=True)
    assert (levels[-1]["outcome"], levels[-1]["max_edges"]) == ("none", 39)
    cubes_logged = sum(r["kind"] == "cube" for r in read_log(log))
    # the same command again: the solution and every round's none-cubes come from the log
    assert not first.edges_on_trust()
    again = solve_cubes(p, options)
    assert (again.m, again.edges_minimal) == (40, True)
    # what the log decided is said to be the log's word
    assert again.edges_on_trust()
    decided_below = replace(again, lower_bound=again.n)  # as if level 9 were decided
    assert "minimal as far as the cube log holds" in decided_below.describe()
    assert "(minimal)" in replace(decided_below, edges_round=(0, 8)).describe()
    assert "cubes of none with at most 39 edges from the checkpoint log" in again.proof()
    assert again.to_json()["edges_minimal_on_trust"] is True
    assert sum(r["kind"] == "cube" for r in read_log(log)) == cubes_logged


def test_a_cube_minimisation_out_of_time_keeps_its_best_solution_unproven(monkeypatch):
    p = get_problem("k13_k4_red_determiner")
    real = parallel._run_level

    def rounds_time_out(sched, n, record):
        return ("timeout", None) if record.max_edges is not None else real(sched, n, record)

    monkeypatch.setattr(parallel, "_run_level", rounds_time_out)
    result = solve_cubes(p, SearchOptions(min_vertices=10, max_vertices=10, cubes=8))
    assert result.found and not result.edges_minimal
    assert "not proven minimal" in result.describe()


@pytest.mark.parametrize("edges", [7, "0-1", {"0": 1}, []])
def test_a_found_record_without_an_edge_list_is_passed_over(tmp_path, edges):
    p = get_problem("k13_k4_red_determiner")
    forged = {
        **problem_tag(p),
        **{"kind": "cube", "key": "10|e=0-1|1", "n": 10, "layout": "e=0-1", "bits": "1"},
        **{"outcome": "found", "engine": "eager", "edges": edges},
    }
    (tmp_path / "cubes.jsonl").write_text(json.dumps(forged) + "\n")
    for cap in (None, 40):
        options = SearchOptions(min_vertices=10, max_vertices=10, cubes=4, out=tmp_path)
        result = solve_cubes(p, replace(options, max_edges=cap))
        assert (result.n, result.m, result.edges_minimal) == (10, 40, True)


def test_an_interrupted_capped_run_states_its_cap(monkeypatch):
    """Ctrl-C after capped levels: what was proven is 'none with at most M edges', never more."""
    real = search_solve._run_level

    def interrupt_at_ten(problem, n, deadline, options, result):
        if n == 10:
            raise KeyboardInterrupt
        return real(problem, n, deadline, options, result)

    monkeypatch.setattr(search_solve, "_run_level", interrupt_at_ten)
    args = ["solve", "k13_k4_red_determiner", "--max-vertices", "10", "--max-edges", "39"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 130, result.output
    assert "no solution with at most 39 edges has fewer than 10 vertices" in result.output
    assert "proof: none on 2..9 vertices with at most 39 edges" in result.output


def test_the_minimisation_rounds_reuse_the_levels_cubes(monkeypatch):
    plans = []
    real = parallel.generate_cubes

    def counted(problem, n, target, engine):
        plans.append(n)
        return real(problem, n, target, engine)

    monkeypatch.setattr(parallel, "generate_cubes", counted)
    p = get_problem("k13_k4_red_determiner")
    result = solve_cubes(p, SearchOptions(min_vertices=10, max_vertices=10, cubes=8))
    assert (result.m, result.edges_minimal) == (40, True)
    assert plans == [10]  # one plan for the level and all its capped rounds
