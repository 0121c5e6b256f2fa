"""The shipped minimal solutions (data/solutions.json) and their use in ``problems --json``."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from ramseygadgets.cli import app
from ramseygadgets.problems.catalog import all_problems, get_problem
from ramseygadgets.problems.solutions import get_solution, load_solutions
from ramseygadgets.search.dataset import SOLUTIONS_PATH
from ramseygadgets.verification.bruteforce import brute_force_verify
from ramseygadgets.verification.verifier import verify


def test_one_solution_per_problem_in_catalog_order():
    records = json.loads(SOLUTIONS_PATH.read_text())["solutions"]
    assert [r["problem_id"] for r in records] == [p.id for p in all_problems()]


def test_every_shipped_solution_passes_the_verifier():
    for problem in all_problems():
        solution = get_solution(problem.id)
        verdict = verify(problem, solution.candidate)
        assert verdict.correct, f"{problem.id}: {verdict.reason}"


def test_small_shipped_solutions_pass_brute_force():
    checked = 0
    for problem in all_problems():
        s = get_solution(problem.id)
        if s.m <= 12:
            g, d = s.candidate.graph, s.candidate.designated
            assert brute_force_verify(g, problem.F, problem.H, problem.gadget, d), problem.id
            checked += 1
    assert checked >= 30


def test_records_say_how_they_were_obtained():
    for pid, s in load_solutions().items():
        assert s.method.startswith("cegar-sat")
        assert s.extra["proof"] == f"no solution on {s.n - 1} vertices (UNSAT)"
        assert s.extra["min_edges"] == s.m
        assert s.extra["seconds"] >= 0
        record = s.to_json()
        assert record["n"] == s.candidate.graph.n and record["m"] == len(record["edges"])
        # no isolated non-designated vertex: the graph really needs its n vertices
        designated = {x for e in s.candidate.designated.edges for x in e} | set(
            s.candidate.designated.vertices
        )
        assert all(s.candidate.graph.degree(v) > 0 or v in designated for v in range(s.n)), pid


def test_problems_json_carries_minimal_sizes_and_solutions():
    result = CliRunner().invoke(app, ["problems", "--json"])
    assert result.exit_code == 0, result.output
    records = json.loads(result.output)
    assert len(records) == 70
    for record in records:
        s = get_solution(record["id"])
        assert (record["min_vertices"], record["min_edges"]) == (s.n, s.m)
        assert record["solution"] == s.candidate.to_json(get_problem(record["id"]).gadget)
