"""``ramseygadgets solve``: single problems, batches, custom pairs, limits and errors."""

from __future__ import annotations

import io
import json

import pytest
from typer.testing import CliRunner

from ramseygadgets.cli import app
from ramseygadgets.problems.catalog import get_problem
from ramseygadgets.problems.solutions import load_solutions
from ramseygadgets.search.batch import solve_many
from ramseygadgets.search.options import SearchOptions
from ramseygadgets.search.solve import SearchResult

runner = CliRunner()


def _json(args: list[str]) -> tuple[int, dict]:
    result = runner.invoke(app, ["solve", *args, "--json"])
    return result.exit_code, json.loads(result.stdout)


def test_solve_one_problem_json():
    code, data = _json(["k13_p4_clause_gadget"])
    assert code == 0
    (r,) = data["results"]
    assert r["status"] == "found" and r["n"] == 8 and r["lower_bound"] == 8 and r["edges_minimal"]
    assert r["solution"]["vertices"] and [lv["outcome"] for lv in r["levels"]][-2:] == [
        "none",
        "found",
    ]


def test_solve_one_problem_text():
    result = runner.invoke(app, ["solve", "p3_k3_red_determiner"])
    assert result.exit_code == 0
    assert (
        "n = 4: none" in result.output
        and "found on n = 5 vertices, m = 7 edges (minimal)" in result.output
    )


def test_solve_all_in_parallel_matches_shipped():
    code, data = _json(["--all", "--jobs", "2"])
    assert code == 0 and not data["interrupted"] and len(data["results"]) == 70
    shipped = load_solutions()
    for r in data["results"]:
        assert (r["n"], r["m"]) == (shipped[r["problem_id"]].n, shipped[r["problem_id"]].m)


def test_solve_a_pair_outside_the_catalog():
    code, data = _json(
        ["--F", "P3", "--H", "C5", "--gadget", "red-determiner", "--max-vertices", "8"]
    )
    assert code == 0
    assert data["results"][0]["problem_id"] == "p3_c5_red_determiner"


def test_printed_solution_pastes_into_verify():
    result = runner.invoke(app, ["solve", "p3_k3_red_determiner"])
    (line,) = [x for x in result.output.splitlines() if x.strip().startswith("solution: ")]
    answer = line.split("solution: ", 1)[1]
    verified = runner.invoke(app, ["verify", "p3_k3_red_determiner", "-"], input=answer)
    assert verified.exit_code == 0, verified.output


def test_not_found_within_limits_suggests_max_vertices():
    result = runner.invoke(app, ["solve", "p3_k3_red_determiner", "--max-vertices", "4"])
    assert result.exit_code == 1
    assert "(proven); search larger graphs with --max-vertices 8" in result.output


def test_not_found_within_limits_exits_1():
    code, data = _json(["k13_k4_blue_determiner", "--max-vertices", "7"])
    assert code == 1 and data["results"][0]["status"] == "none-up-to-limit"
    # (K3, K4)-negative-sender's level 12 takes about a minute (docs/search.md): 0.3 s is never
    # enough, however warm the process (the (K1,3, K5)-positive-sender used here before is now
    # decided up to 12 vertices in 0.2 s)
    result = runner.invoke(
        app,
        ["solve", "--F", "K3", "--H", "K4", "--gadget", "negative-sender",
         "--min-vertices", "12", "--timeout", "0.3"],
    )  # fmt: skip
    assert result.exit_code == 1 and "not found within limits: time limit reached" in result.output


def test_a_run_that_decided_no_level_says_so(monkeypatch):
    """A first level cut by the time limit leaves nothing proven: the line says so instead of an
    empty "proof:" (seen on a cold (K1,3, K5)-positive-sender run with --timeout 0.3)."""
    monkeypatch.setattr(SearchResult, "proof", lambda self: "")
    result = runner.invoke(app, ["solve", "p3_k3_red_determiner"])
    assert "\n  proof: no level decided\n" in result.output


@pytest.mark.parametrize(
    "args,message",
    [
        ([], "give exactly one of"),
        (["p3_k3_red_determiner", "--all"], "give exactly one of"),
        (["--F", "K3"], "must be given together"),
        (["--F", "K3", "--H", "K4", "--gadget", "clause"], "defined only for F = K1,k"),
        (["--F", "K1,3", "--H", "K4", "--gadget", "bogus"], "unknown gadget type"),
        (["no_such_problem"], "unknown problem id"),
        (
            ["--F", "K3", "--H", "K3", "--gadget", "red-determiner"],
            "no (K3, K3)-red-determiner exists",
        ),
        (["--F", "K1,2", "--H", "P3", "--gadget", "blue-determiner"], "F and H are isomorphic"),
        (["--F", "0-1,2-3", "--H", "K3", "--gadget", "positive-sender"], "must be connected"),
    ],
)
def test_bad_input_is_one_clear_line(args, message):
    result = runner.invoke(app, ["solve", *args])
    assert result.exit_code == 2
    assert message in result.output and "Traceback" not in result.output


@pytest.mark.parametrize("jobs", [1, 2])
def test_finished_results_survive_ctrl_c(jobs):
    problems = [
        get_problem(pid)
        for pid in (
            "p3_k3_red_determiner",
            "p3_k3_blue_determiner",
            "p3_p4_red_determiner",
            "k13_k4_variable_gadget",
        )
    ]
    seen = []

    def on_result(result):
        seen.append(result)
        if len(seen) == 2:
            raise KeyboardInterrupt

    outcome = solve_many(problems, SearchOptions(jobs=jobs), on_result=on_result)
    assert outcome.interrupted
    assert [r.problem_id for r in outcome.results] == [r.problem_id for r in seen] and len(
        seen
    ) == 2
    assert len(outcome.unfinished) == 2
    assert all(r.found for r in outcome.results)


@pytest.mark.parametrize(
    ("F", "H", "why"),
    [("P3", "K3", "in the list of polynomial pairs"), ("K1,3", "K1,4", "two stars")],
)
def test_a_hardness_gadget_of_a_polynomial_pair_is_refused(F, H, why):
    result = runner.invoke(app, ["solve", "--F", F, "--H", H, "--gadget", "clause-gadget"])
    assert result.exit_code == 2, result.output
    assert f"({F}, {H}) is a polynomial pair ({why}" in result.output
    assert "unless P = NP" in result.output and "n = " not in result.output  # nothing searched


def _commands(group, path=()):
    """Every command path of the CLI (groups included), from Typer's public Click object."""
    yield path
    for name, command in getattr(group, "commands", {}).items():
        yield from _commands(command, (*path, name))


def test_help_shows_boolean_flags_as_flags():
    """Every command's --help: a flag takes no value (never '--json <bool>' or '--help
    <bool>'), whatever Typer's help renderer does with boolean types."""
    import typer

    root = typer.main.get_command(app)
    paths = list(_commands(root))
    assert ("solve",) in paths and ("atlas", "adopt") in paths
    for path in paths:
        result = runner.invoke(app, [*path, "--help"], terminal_width=100)
        assert result.exit_code == 0, (path, result.output)
        assert "<bool>" not in result.output and "BOOLEAN" not in result.output, path
        assert "-h, --help" in result.output, path
    solve_help = runner.invoke(app, ["solve", "--help"], terminal_width=100).output
    assert "  --json  " in solve_help and "--minimize-edges / --any-edges" in solve_help
    assert "fewer cubes than asked" in solve_help  # --cubes on small levels


def test_the_summary_table_gives_each_problem_its_proof_line():
    """--all's table: the proof each result states (never 'none on 1 vertices' for a level that
    was not searched)."""
    from rich.console import Console

    from ramseygadgets.cli.search import _summary_table
    from ramseygadgets.search.solve import LevelRecord, SearchResult

    problem = get_problem("p3_k3_red_determiner")
    timed_out = SearchResult(problem.id, problem, "timeout", None, 2, 0.1)
    timed_out.levels = [LevelRecord(2, "timeout", 0.1)]
    decided = SearchResult(problem.id, problem, "none-up-to-limit", None, 4, 0.1)
    decided.levels = [LevelRecord(2, "none", 0.0), LevelRecord(3, "none", 0.0)]
    console = Console(width=200, file=io.StringIO())
    console.print(_summary_table([timed_out, decided]))
    text = console.file.getvalue()
    assert "none on 2..3 vertices" in text and "none on 1 vertices" not in text
