"""Grades by distance to the optimum in ``results.json`` and the report (issue 24, item 1): the
minimal rate with its interval and denominator, the mean excess, per model × setting × tier;
the excess figure; the discoveries (confirmed and disputed) and ``discoveries.jsonl``; old run
folders are graded by the report; nothing graded is "—", never 0."""

from __future__ import annotations

import csv
import json
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from ramseygadgets.core.gadgets import Candidate
from ramseygadgets.harness.runner import EvalOptions, run_eval
from ramseygadgets.problems.catalog import all_problems, get_problem
from ramseygadgets.problems.problem import Problem
from ramseygadgets.problems.solutions import get_solution
from ramseygadgets.report import ReportOptions, build_report, load_runs
from ramseygadgets.report.grades import Discovery, discoveries_table
from ramseygadgets.runs.results import run_results
from ramseygadgets.search.minimal import solve_minimal
from ramseygadgets.search.options import SearchOptions

OLD_RUNS = Path(__file__).parents[1] / "harness" / "data" / "old_runs"
RESAMPLES, SEED = 300, 3

#: problem -> the answer of each run: k extra disjoint edges on the shipped minimal solution
#: (2k extra vertices, k extra edges), or None for an unreadable reply.
PLAN: dict[str, list[int | None]] = {
    "p3_k3_red_determiner": [0, 0, 1, None],
    "p3_k3_blue_determiner": [0, 2, 0, 0],
    "p3_p4_red_determiner": [1, 1, None, 0],
    "p3_k3_positive_sender": [0, 3, 0, None],  # hard tier
}


#: A problem with no shipped proof (not one of the 70, not in the extended set or the atlas):
#: a problem-set file's solution for it is only the best known one.
UNSHIPPED = "p3_p6_blue_determiner"


@cache
def minimal_of(problem_id: str) -> tuple[Problem, Candidate]:
    """The problem and a minimal solution: the shipped one, or found (6 vertices, 0.1 s)."""
    if problem_id == UNSHIPPED:
        problem = Problem.make("P3", "P6", "blue-determiner")
        found = solve_minimal(problem, SearchOptions(max_vertices=7, timeout=60))
        assert problem.id == UNSHIPPED and found.candidate is not None
        return problem, found.candidate
    return get_problem(problem_id), get_solution(problem_id).candidate


def padded(problem_id: str, k: int) -> dict:
    """A minimal solution with ``k`` disjoint extra edges on new vertices."""
    problem, solution = minimal_of(problem_id)
    data = solution.to_json(problem.kind)
    n = solution.graph.n
    data["edges"] = [*data["edges"], *([n + 2 * i, n + 2 * i + 1] for i in range(k))]
    return data


def replay_file(path: Path, plan: dict[str, list[int | None]]) -> str:
    rows = []
    for problem_id, answers in plan.items():
        for run, k in enumerate(answers):
            reply = "no idea" if k is None else "```json\n" + json.dumps(padded(problem_id, k))
            rows.append(
                {"problem_id": problem_id, "setting": "zero-shot", "run": run, "response": reply}
            )
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return f"replay:{path}"


@pytest.fixture(scope="module")
def graded_run(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("grades")
    out = base / "runs" / "padder"
    model = replay_file(base / "padder.jsonl", PLAN)
    run_eval(EvalOptions(model=model, out=out, runs=4, problems=list(PLAN), progress=False))
    return out


def expected_grades(plan: dict[str, list[int | None]]) -> dict:
    """The grades counted from the plan alone, and the bootstrap interval of the minimal rate
    recomputed from its definition (multinomial resamples of the problems in catalog order,
    default_rng(seed))."""
    order = [p.id for p in all_problems()]
    plan = {p: plan[p] for p in sorted(plan, key=order.index)}
    answers = [k for ks in plan.values() for k in ks if k is not None]
    graded = np.array([sum(k is not None for k in ks) for ks in plan.values()], dtype=float)
    minimal = np.array([sum(k == 0 for k in ks) for ks in plan.values()], dtype=float)
    rng = np.random.default_rng(SEED)
    ratios = []
    for weights in rng.multinomial(len(plan), [1 / len(plan)] * len(plan), size=RESAMPLES):
        if weights @ graded > 0:
            ratios.append((weights @ minimal) / (weights @ graded))
    low, high = np.percentile(ratios, [2.5, 97.5])
    return {
        "graded": len(answers),
        "minimal": sum(k == 0 for k in answers),
        "rate": sum(k == 0 for k in answers) / len(answers),
        "ci": (low, high),
        "excess_vertices": sum(2 * k for k in answers) / len(answers),
        "excess_edges": sum(answers) / len(answers),
    }


def test_results_json_has_the_minimal_rate_interval_and_mean_excess(graded_run):
    want = expected_grades(PLAN)
    (setting,) = run_results(graded_run)["settings"]
    assert setting["graded"] == want["graded"] == 13 and setting["minimal"] == want["minimal"]
    assert setting["minimal_rate"] == pytest.approx(want["rate"])
    assert setting["mean_excess_vertices"] == pytest.approx(want["excess_vertices"])
    assert setting["mean_excess_edges"] == pytest.approx(want["excess_edges"])
    counts = [2 * k for ks in PLAN.values() for k in ks if k is not None]
    assert setting["excess_vertices"] == {str(v): counts.count(v) for v in sorted(set(counts))}
    interval = setting["minimal_rate_ci95"]
    assert interval["low"] <= setting["minimal_rate"] <= interval["high"]
    # per tier: the sender is the hard tier, the three determiners the easy one
    tiers = {t["tier"]: t for t in setting["tiers"]}
    hard = {"p3_k3_positive_sender": PLAN["p3_k3_positive_sender"]}
    easy = {p: ks for p, ks in PLAN.items() if p not in hard}
    for name, plan in (("easy", easy), ("hard", hard)):
        part = expected_grades(plan)
        assert tiers[name]["graded"] == part["graded"]
        assert tiers[name]["minimal_rate"] == pytest.approx(part["rate"])
        assert tiers[name]["mean_excess_vertices"] == pytest.approx(part["excess_vertices"])
        assert tiers[name]["mean_excess_edges"] == pytest.approx(part["excess_edges"])
    assert tiers["hard"]["minimal_rate_ci95"] == {"low": 2 / 3, "high": 2 / 3}  # one problem


def test_the_report_tabulates_the_grades_per_tier_and_draws_the_excess(graded_run, tmp_path):
    options = ReportOptions(resamples=RESAMPLES, seed=SEED, drawings=False)
    result = build_report(load_runs([graded_run]), tmp_path / "report", options)
    want = expected_grades(PLAN)
    rows = {r["tier"]: r for r in csv.DictReader((tmp_path / "report" / "optimum.csv").open())}
    assert set(rows) == {"all", "easy", "hard"}
    row = rows["all"]
    assert int(row["graded"]) == want["graded"] and int(row["n_minimal"]) == want["minimal"]
    assert float(row["minimal_pct"]) == pytest.approx(100 * want["rate"], abs=1e-4)
    assert float(row["minimal_ci_low_pct"]) == pytest.approx(100 * want["ci"][0], abs=1e-4)
    assert float(row["minimal_ci_high_pct"]) == pytest.approx(100 * want["ci"][1], abs=1e-4)
    assert float(row["mean_excess_vertices"]) == pytest.approx(want["excess_vertices"], abs=1e-4)
    assert float(row["mean_excess_edges"]) == pytest.approx(want["excess_edges"], abs=1e-4)
    markdown = (tmp_path / "report" / "optimum.md").read_text()
    assert f"({want['minimal']}/{want['graded']})" in markdown  # the denominator is stated
    assert result.stats[0].sizes.minimal_ci is not None
    figure = tmp_path / "report" / "figures" / "excess_vertices.svg"
    assert "n=13" in figure.read_text() and "excess_vertices" in [f.name for f in result.figures]
    html = (tmp_path / "report" / "report.html").read_text()
    assert 'id="optimum"' in html and 'id="figure-excess_vertices"' in html


def test_old_run_folders_are_graded_by_the_report_not_by_their_records(tmp_path):
    """Run folders written before the size grades hold no optimum: the report grades their
    answers against the proven optimum of their problem set (the paper's) all the same, and
    nothing is disputed (a field the record lacks claims nothing)."""
    out = tmp_path / "report"
    result = build_report(load_runs([OLD_RUNS]), out, ReportOptions(resamples=50, drawings=False))
    rows = {r["model"]: r for r in csv.DictReader((out / "leaderboard.csv").open())}
    solver = rows["solver"]
    assert int(solver["graded"]) == int(solver["n_correct"]) > 0
    assert float(solver["minimal_pct"]) == 100.0 and float(solver["mean_excess_vertices"]) == 0
    assert result.disputes == [] and (out / "discoveries.jsonl").read_text() == ""


def test_nothing_graded_reports_dashes_not_zeros(tmp_path):
    """No proven optimum (a problem-set file whose solution is only the best known): "—"."""
    problem_id = UNSHIPPED
    dataset = _dataset(tmp_path, problem_id, 0)
    replies = replay_file(tmp_path / "answers.jsonl", {problem_id: [0, 1]})
    runs = tmp_path / "runs" / "unproven"
    run_eval(EvalOptions(model=replies, out=runs, runs=2, dataset=dataset, progress=False))
    out = tmp_path / "report"
    result = build_report(load_runs([runs]), out, ReportOptions(resamples=50, drawings=False))
    for row in csv.DictReader((out / "optimum.csv").open()):
        assert (
            row["graded"] == "0" and row["minimal_pct"] == "" and row["mean_excess_vertices"] == ""
        )
    board = (out / "leaderboard.md").read_text().splitlines()
    line = next(line for line in board if "| replay:answers | zero-shot |" in line)
    cells = [c.strip() for c in line.split("|")]
    assert cells[8:12] == ["—", "—", "—", "—"]  # minimal %, its CI, mean excess v/e
    assert all(r["minimal_pct"] is None for r in result.summary()["leaderboard"])


def _dataset(tmp_path: Path, problem_id: str, k: int) -> str:
    """A problem-set file with ``problem_id`` whose best known solution is padded by k edges
    (no proof: its optimum is not proven)."""
    row = {**minimal_of(problem_id)[0].to_json(), "solution": padded(problem_id, k)}
    path = tmp_path / f"{problem_id}.jsonl"
    path.write_text(json.dumps(row) + "\n")
    return str(path)


def test_discoveries_are_rechecked_by_the_report_whatever_the_record_says(tmp_path):
    problem_id = UNSHIPPED
    shipped = minimal_of(problem_id)[1].graph
    dataset = _dataset(tmp_path, problem_id, 2)  # best known: n + 4 vertices, m + 2 edges
    replies = replay_file(tmp_path / "finder.jsonl", {problem_id: [0, 1, 2]})
    found = tmp_path / "runs" / "finder"
    run_eval(EvalOptions(model=replies, out=found, runs=3, dataset=dataset, progress=False))
    # a second folder whose records say that the recheck of its discoveries did not confirm
    # them: the report runs the recheck again, and lists the records as disputed
    forged = tmp_path / "runs" / "forged"
    forged.mkdir()
    records = [json.loads(x) for x in (found / "samples.jsonl").read_text().splitlines()]
    config = json.loads((found / "config.json").read_text())
    claims = [r for r in records if r["discovery"]]
    assert sorted(r["run"] for r in claims) == [0, 1]  # +0 and +1 beat the +2 best known
    claims[0]["recheck"] = {"method": "brute-force", "agrees": False}
    claims[1]["recheck"] = {"method": "none", "agrees": None}
    (forged / "samples.jsonl").write_text("".join(json.dumps(r) + "\n" for r in claims))
    (forged / "config.json").write_text(json.dumps({**config, "model_label": "forger"}))

    out = tmp_path / "report"
    options = ReportOptions(resamples=50, drawings=False)
    result = build_report(load_runs([tmp_path / "runs"]), out, options)
    lines = [json.loads(x) for x in (out / "discoveries.jsonl").read_text().splitlines()]
    assert len(lines) == 4
    by_key = {(d["model"], d["run"]): d for d in lines}
    best = (shipped.n + 4, shipped.m + 2)
    for run, k in ((0, 0), (1, 1)):
        for model in ("replay:finder", "forger"):
            confirmed = by_key[(model, run)]
            assert confirmed["status"] == "discovery"
            assert confirmed["discovery"] == "new-best-known"
            assert confirmed["recheck"] == {"method": "brute-force", "agrees": True}
            assert (confirmed["candidate_vertices"], confirmed["candidate_edges"]) == (
                shipped.n + 2 * k,
                shipped.m + k,
            )
            assert (confirmed["best_known_vertices"], confirmed["best_known_edges"]) == best
            assert confirmed["optimum_vertices"] is None
            assert confirmed["candidate"] == padded(problem_id, k)
    assert "4 discovery(ies), 0 disputed" in (out / "discoveries.md").read_text()
    disputed = list(csv.DictReader((out / "disputed.csv").open()))
    assert [(r["where"], r["fields"]) for r in disputed] == [
        (f"{forged / 'samples.jsonl'}:1", "recheck"),
        (f"{forged / 'samples.jsonl'}:2", "recheck"),
    ]
    assert disputed[0]["recorded"] == 'recheck = {"method": "brute-force", "agrees": false}'
    assert [d.where for d in result.disputes] == [r["where"] for r in disputed]


def test_a_discovery_whose_recheck_does_not_agree_is_shown_as_disputed():
    def discovery(method: str | None, agrees: bool | None) -> Discovery:
        return Discovery(
            "p3_k3_red_determiner",
            "m",
            "zero-shot",
            0,
            "src",
            "new-best-known",
            (5, 6),
            (7, 8),
            None,
            method,
            agrees,
            None,
        )

    found = [
        discovery("brute-force", True),
        discovery("brute-force", False),
        discovery("none", None),
    ]
    assert [d.status for d in found] == ["discovery", "disputed", "disputed"]
    markdown = discoveries_table(found).to_markdown()
    assert "brute-force: DISAGREES" in markdown and "none: not decided" in markdown
    assert "1 discovery(ies), 2 disputed" in markdown
    assert "new-best-known (claimed)" in markdown
