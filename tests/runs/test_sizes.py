"""Grades by distance to the optimum (issue 24, item 1): every sample records the candidate's
size; a correct one also ``minimal`` and the excess over the *proven* optimum (null where none
is proven); a correct answer below the best known solution is a discovery, rechecked."""

from __future__ import annotations

import json

import pytest

from ramseygadgets.core.gadgets import Candidate
from ramseygadgets.harness.runner import EvalOptions, run_eval
from ramseygadgets.problems.catalog import get_problem
from ramseygadgets.problems.extended import extended_problems, three_color_entries
from ramseygadgets.problems.problem import Problem
from ramseygadgets.problems.solutions import get_solution
from ramseygadgets.runs import read_run_dir
from ramseygadgets.runs.sizes import SIZE_FIELDS, SizeGrade, optimum_of, size_reward
from ramseygadgets.search import find_solution
from ramseygadgets.search.minimal import solve_minimal
from ramseygadgets.search.options import SearchOptions
from ramseygadgets.verification.basis import EDGES_UNPROVEN
from ramseygadgets.verification.proofs import shipped_proof
from ramseygadgets.verification.recheck import BRUTE_FORCE_COLORINGS, Recheck, recheck
from ramseygadgets.verification.selection import (
    Optimum,
    ProblemSetError,
    load_selection,
    named_problem_set,
)
from ramseygadgets.verification.verifier import verify

PROBLEM = "p3_k3_red_determiner"


def _answer(edges: list[list[int]], e: list[int]) -> str:
    return "```json\n" + json.dumps({"edges": edges, "e": e}) + "\n```"


def _replay(tmp_path, replies: list[str], problem_id: str = PROBLEM) -> str:
    path = tmp_path / "replies.jsonl"
    rows = [
        {"problem_id": problem_id, "setting": "zero-shot", "run": i, "response": text}
        for i, text in enumerate(replies)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return f"replay:{path}"


def _padded(solution: Candidate) -> tuple[list[list[int]], list[int]]:
    """The minimal solution plus one edge on two new vertices (still a solution)."""
    n = solution.graph.n
    edges = [list(e) for e in solution.graph.edges] + [[n, n + 1]]
    return edges, list(solution.designated.edges[0])


def test_minimal_and_padded_answers_record_the_excess_an_independent_count_gives(tmp_path):
    shipped = get_solution(PROBLEM)
    minimal_edges = [list(e) for e in shipped.candidate.graph.edges]
    e = list(shipped.candidate.designated.edges[0])
    padded_edges, _ = _padded(shipped.candidate)
    model = _replay(tmp_path, [_answer(minimal_edges, e), _answer(padded_edges, e), "no idea"])
    out = tmp_path / "run"
    run_eval(EvalOptions(model=model, out=out, runs=3, problems=[PROBLEM], progress=False))
    records = {
        r["run"]: r for r in map(json.loads, (out / "samples.jsonl").read_text().splitlines())
    }
    # the independent count: vertices = 1 + largest label, edges = the list's length
    for run, edges in ((0, minimal_edges), (1, padded_edges)):
        record = records[run]
        n = 1 + max(max(edge) for edge in edges)
        assert record["correct"] is True
        assert (record["candidate_vertices"], record["candidate_edges"]) == (n, len(edges))
        assert (record["optimum_vertices"], record["optimum_edges"]) == (shipped.n, shipped.m)
        assert record["excess_vertices"] == n - shipped.n
        assert record["excess_edges"] == len(edges) - shipped.m
        assert record["minimal"] is (n == shipped.n)
        assert record["discovery"] is None
    assert records[1]["excess_vertices"] == 2 and records[1]["excess_edges"] == 1
    unread = records[2]
    assert unread["correct"] is False
    assert all(unread[k] is None for k in SIZE_FIELDS if not k.startswith("optimum"))
    (run,) = read_run_dir(out)
    by_run = {s.run: s.sizes for s in run.samples}
    assert [by_run[i].minimal for i in range(3)] == [True, False, None]


#: A problem with no shipped proof (not one of the 70, not in the extended set or the atlas):
#: what a problem-set file says about it is all there is (a file cannot override a shipped
#: proof: tests/problemsets/test_problem_file.py).
UNSHIPPED = "p3_p6_blue_determiner"


def _unshipped() -> tuple[Problem, Candidate]:
    """The unshipped problem and its minimal solution (6 vertices, 7 edges; found in 0.1 s)."""
    problem = Problem.make("P3", "P6", "blue-determiner")
    assert problem.id == UNSHIPPED and shipped_proof(problem) is None
    found = solve_minimal(problem, SearchOptions(max_vertices=7, timeout=60))
    assert found.candidate is not None and found.lower_bound == found.n == 6
    return problem, found.candidate


def _dataset(tmp_path, problem: Problem, record: dict) -> str:
    row = {**problem.to_json(), **record}
    path = tmp_path / "set.jsonl"
    path.write_text(json.dumps(row) + "\n")
    return str(path)


def test_an_unproven_problem_has_no_distance_and_a_smaller_answer_is_a_discovery(tmp_path):
    problem, minimal = _unshipped()
    padded_edges, e = _padded(minimal)
    known = {"solution": {"edges": padded_edges, "e": e}}  # a solution, but no proof
    dataset = _dataset(tmp_path, problem, known)
    problems = load_selection(dataset)
    assert problems.optimum(problems.problems[0]) is None
    minimal_edges = [list(x) for x in minimal.graph.edges]
    model = _replay(tmp_path, [_answer(minimal_edges, e), _answer(padded_edges, e)], UNSHIPPED)
    out = tmp_path / "run"
    run_eval(EvalOptions(model=model, out=out, runs=2, dataset=dataset, progress=False))
    records = {
        r["run"]: r for r in map(json.loads, (out / "samples.jsonl").read_text().splitlines())
    }
    assert records[0]["minimal"] is None and records[0]["excess_vertices"] is None
    assert records[0]["discovery"] == "new-best-known"
    assert records[0]["recheck"] == {"method": "brute-force", "agrees": True}
    assert records[1]["discovery"] is None  # as large as the best known: no discovery


def test_a_proof_claim_in_a_problem_file_is_used_only_when_it_checks(tmp_path):
    problem, minimal = _unshipped()
    n, m = minimal.graph.n, minimal.graph.m
    claim = {"solution": minimal.to_json(problem.kind), "proven_minimal": True, "lower_bound": n}
    proven = load_selection(_dataset(tmp_path, problem, claim))
    assert proven.optimum(proven.problems[0]) == Optimum(n, m)
    weaker = load_selection(_dataset(tmp_path, problem, {**claim, "lower_bound": n - 1}))
    assert weaker.optimum(weaker.problems[0]) is None
    wrong = {**claim, "solution": {"edges": [[0, 1], [1, 2]], "e": [0, 1]}, "lower_bound": 3}
    with pytest.raises(ProblemSetError, match="set.jsonl:1: its solution is not a"):
        load_selection(_dataset(tmp_path, problem, wrong))


def test_a_forged_proof_is_contradicted_by_a_smaller_correct_answer(tmp_path):
    """A bare file's claim is the row's own word (the rule of train-data --from); a smaller
    correct answer exposes a forged one."""
    problem, minimal = _unshipped()
    padded_edges, e = _padded(minimal)
    forged = {
        "solution": {"edges": padded_edges, "e": e},
        "proven_minimal": True,
        "lower_bound": minimal.graph.n + 2,
    }
    dataset = _dataset(tmp_path, problem, forged)
    minimal_edges = [list(x) for x in minimal.graph.edges]
    model = _replay(tmp_path, [_answer(minimal_edges, e)], UNSHIPPED)
    out = tmp_path / "run"
    run_eval(EvalOptions(model=model, out=out, dataset=dataset, progress=False))
    (record,) = map(json.loads, (out / "samples.jsonl").read_text().splitlines())
    assert record["discovery"] == "contradicts-proof" and record["excess_vertices"] == -2
    assert record["recheck"]["agrees"] is True


def test_every_shipped_optimum_is_the_shipped_solution():
    paper = named_problem_set("paper")
    for problem in paper.problems:
        solution = get_solution(problem.id)
        assert paper.optimum(problem) == Optimum(solution.n, solution.m)


def test_recheck_falls_back_to_the_second_encoding_then_to_none():
    """Above 2^22 colourings: a pair is decided again by the other SAT encoding (agreeing on the
    shipped solution, refusing it with its designated edge moved); three colours by nothing."""
    problem = get_problem("k13_k4_red_determiner")
    shipped = get_solution(problem.id).candidate
    assert 2**shipped.graph.m > BRUTE_FORCE_COLORINGS
    assert recheck(problem, shipped) == Recheck("second-encoding", True)
    other = next(e for e in shipped.graph.edges if e != shipped.designated.edges[0])
    moved = Candidate.from_json(
        {"edges": [list(x) for x in shipped.graph.edges], "e": list(other)}, problem.kind
    )
    assert recheck(problem, moved) == Recheck("second-encoding", verify(problem, moved).correct)
    entry = next(e for e in three_color_entries() if 3**e.m > BRUTE_FORCE_COLORINGS)
    assert recheck(entry.problem, entry.candidate) == Recheck("none", None)


def test_recheck_disagrees_on_a_wrong_candidate():
    problem = get_problem(PROBLEM)
    wrong = Candidate.from_json({"edges": [[0, 1], [1, 2]], "e": [0, 1]}, problem.kind)
    assert recheck(problem, wrong).agrees is False


def test_an_old_record_reads_as_its_size_without_a_distance():
    record = {"correct": True, "candidate": {"edges": [[0, 1], [1, 2]], "e": [0, 1]}}
    sizes = SizeGrade.from_json(record)
    assert (sizes.vertices, sizes.edges, sizes.minimal, sizes.excess_edges) == (3, 2, None, None)


def test_the_size_shaped_reward_formula():
    """0 wrong; 1 minimal; 1 / (1 + excess vertices) above the optimum; the exact reward (1 for
    any correct answer) without a proven optimum or a known size."""
    assert size_reward(False, 5, 5) == size_reward(False, None, None) == 0.0
    assert size_reward(True, 5, 5) == 1.0
    assert size_reward(True, 6, 5) == 0.5 and size_reward(True, 7, 5) == pytest.approx(1 / 3)
    assert size_reward(True, 9, None) == size_reward(True, None, 5) == 1.0
    assert size_reward(True, 4, 5) == 1.0  # below a (forged) proof: never above 1
    optimum = Optimum(5, 7)
    padded = SizeGrade(True, 7, 8, optimum)
    assert padded.reward == size_reward(True, 7, 5) and padded.excess_vertices == 2
    assert SizeGrade(True, 7, 8, None).reward == 1.0 and SizeGrade(False, 5, 7, optimum).reward == 0


def test_fewer_edges_than_an_unproven_edge_count_is_a_new_best_not_a_contradiction(
    tmp_path, atlas_with_unproven_edges
):
    """An extended problem whose vertex count is proven minimal but not its edge count (the
    (K1,4, banner)-negative-sender with the 21-edge solution the atlas shipped as "≤ 21"): a
    correct answer on 8 vertices with fewer edges is a new best known construction, not a
    contradiction of a proof, and no excess over the unproven edge count is recorded."""
    pid = "k14_banner_negative_sender"
    entry = next(e for e in extended_problems() if e.id == pid)
    assert (entry.m, entry.edges_minimal, entry.to_json()["min_edges"]) == (21, False, None)
    assert verify(entry.problem, entry.candidate).correct
    better = find_solution(entry.problem, entry.n, SearchOptions(minimize_edges=True, timeout=120))
    assert better.n == entry.n and better.m is not None and better.m < entry.m
    assert better.candidate is not None
    answers = [better.candidate, entry.candidate]
    replies = ["```json\n" + json.dumps(c.to_json(entry.problem.gadget)) + "\n```" for c in answers]
    out = tmp_path / "run"
    model = _replay(tmp_path, replies, pid)
    options = EvalOptions(
        model=model, out=out, runs=2, problems=[pid], problem_set="extended", progress=False
    )
    run_eval(options)
    records = {
        r["run"]: r for r in map(json.loads, (out / "samples.jsonl").read_text().splitlines())
    }
    for record in records.values():  # on the vertex optimum, the edge count unproven
        assert record["correct"] and record["minimal"] is False
        assert record["minimality"] == "minimal in vertices"
        assert record["optimum_vertices"] == entry.n and record["optimum_edges"] is None
        assert record["excess_vertices"] == 0 and record["excess_edges"] is None
    assert records[0]["discovery"] == "new-best-known" and records[0]["recheck"]["agrees"]
    assert records[1]["discovery"] is None


@pytest.mark.parametrize(
    ("optimum", "size", "kind"),
    [
        (Optimum(8, None), (8, 20), "new-best-known"),  # n* proven, m* not: fewer edges
        (Optimum(8, None), (8, 21), None),
        (Optimum(8, None), (7, 30), "contradicts-proof"),
        (Optimum(8, None), (9, 5), None),  # more vertices is never better, whatever the edges
        (Optimum(8, 21), (8, 20), "contradicts-proof"),
        (Optimum(8, 21), (9, 5), None),
        (None, (8, 20), "new-best-known"),
        (None, (8, 21), None),
    ],
)
def test_discoveries_are_judged_only_against_what_is_proven(optimum, size, kind):
    grade = SizeGrade(True, *size, optimum)
    assert grade.discovery(best_known=(8, 21)) == kind
    if optimum is not None and optimum.edges is None:
        assert grade.excess_edges is None and grade.excess_vertices == size[0] - 8


def test_a_record_with_only_the_vertex_count_proven_is_graded_by_vertices():
    """What Inspect's and lm-eval's scorers read back (``optimum_of``): a row whose optimum has
    no proven edge count still grades ``minimal`` and the vertex excess, never the edges."""

    row = {"optimum_vertices": 8, "optimum_edges": None}
    assert optimum_of(row) == Optimum(8, None, EDGES_UNPROVEN)
    assert optimum_of({"optimum_vertices": None, "optimum_edges": 20}) is None
    grade = SizeGrade(True, 9, 20, optimum_of(row))
    assert (grade.minimal, grade.excess_vertices, grade.excess_edges) == (False, 1, None)
