"""Benchmark vs fresh problems and the leaderboard (issue 24, items 2 and 3): accuracy of the same
size tier side by side with intervals and the gap; one leaderboard row per model and setting
with accuracy, minimal rate, mean excess, pass@k, tokens, the gap, the command and the
problem-set hash; the ``command`` that ``eval`` records in ``config.json``.

Fresh runs are hand-written as ``eval --fresh`` writes them: ``problem_set`` ``fresh``, a
``fresh`` object and ``dataset`` pointing at ``DIR/problems.jsonl`` (here extended-set problems
stand in for freshly drawn ones: they are outside the 70 and carry proven minima)."""

from __future__ import annotations

import csv
import json
import shlex
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from ramseygadgets.cli import app
from ramseygadgets.harness.runner import EvalOptions, run_eval
from ramseygadgets.problems.extended import size_tier
from ramseygadgets.problems.solutions import get_solution
from ramseygadgets.report import regrade
from ramseygadgets.report.metrics import problem_sort_key
from ramseygadgets.runs.config import dataset_hash
from ramseygadgets.verification.selection import (
    Selection,
    extended_problem_set,
    load_selection,
    named_problem_set,
)

SEED, RESAMPLES = 5, 200
C, W = True, False
#: problem -> correct in runs 0, 1 (benchmark: the paper's problems)
BENCH = {
    "p3_k3_red_determiner": [C, C],  # ≤6
    "p3_k3_blue_determiner": [C, W],  # ≤6
    "p3_p4_red_determiner": [W, C],  # ≤6
    "p3_k3_positive_sender": [C, C],  # ≤6
    "p3_k4_red_determiner": [C, W],  # 7-8
    "p3_k4_blue_determiner": [W, W],  # 7-8
}
FRESH = {
    "p3_p3_positive_sender": [W, C],  # ≤6
    "p3_p3_negative_sender": [W, W],  # ≤6
    "k13_k13_positive_sender": [C, W],  # ≤6
    "k13_k13_negative_sender": [C, C],  # 7-8
    "k3_p4_red_determiner": [W, W],  # 7-8
    "k3_k3_negative_sender": [W, W],  # 9-10
}
BETA = {"p3_k3_red_determiner": [C, C], "p3_k4_red_determiner": [C, C]}
GAMMA = {"p3_p3_positive_sender": [C, W], "k13_k13_negative_sender": [W, W]}
BENCH_COMMAND = "ramseygadgets eval --model openai/alpha --runs 2 --out runs/alpha"
FRESH_COMMAND = "ramseygadgets eval --model openai/alpha --fresh 6 --seed 7 --out runs/alpha-fresh"


# ---------------------------------------------------------------------------------------------
# Fixtures: run folders with known samples
# ---------------------------------------------------------------------------------------------
def _optimum_fields(n: int, m: int) -> dict:
    """The size fields of a correct answer that is the proven minimal solution."""
    return {
        "candidate_vertices": n,
        "candidate_edges": m,
        "optimum_vertices": n,
        "optimum_edges": m,
        "minimal": True,
        "excess_vertices": 0,
        "excess_edges": 0,
        "discovery": None,
    }


def bench_folder(
    helpers, path: Path, label: str, plan: dict, tokens: int, **config: object
) -> Path:
    """A benchmark run folder (conftest's builders: real answers, scored by the verifier);
    ``tokens`` 0: the backend reported no usage."""
    samples = []
    for problem_id, outcomes in plan.items():
        solution = get_solution(problem_id)
        for run, ok in enumerate(outcomes):
            extra = _optimum_fields(solution.n, solution.m) if ok else {}
            outcome = "correct" if ok else "wrong"
            record = helpers.make_sample(problem_id, "zero-shot", run, outcome, **extra)
            record["usage"]["total_tokens"] = tokens
            samples.append(record)
    helpers.write_run_dir(
        path,
        problems=list(plan),
        settings=["zero-shot"],
        runs=2,
        samples=samples,
        model_label=label,
    )
    _patch_config(path, {"problem_set": "paper", **config})
    return path


def _patch_config(path: Path, extra: dict) -> None:
    config = json.loads((path / "config.json").read_text())
    (path / "config.json").write_text(json.dumps({**config, **extra}, indent=2))


def fresh_folder(path: Path, label: str, plan: dict, **config: object) -> Path:
    """A run folder as ``eval --fresh`` writes it, with its problems.jsonl."""
    extended = extended_problem_set()
    path.mkdir(parents=True)
    rows, samples = [], []
    for problem_id, outcomes in plan.items():
        problem = extended.get(problem_id)
        solution = extended.solution(problem)
        assert solution is not None
        answer = solution.to_json(problem.kind)
        n, m = solution.graph.n, solution.graph.m
        rows.append(
            {**problem.to_json(), "solution": answer, "proven_minimal": True, "lower_bound": n}
        )
        for run, ok in enumerate(outcomes):
            samples.append(
                {
                    "problem_id": problem_id,
                    "setting": "zero-shot",
                    "run": run,
                    "model": f"openai/{label}",
                    "tier": problem.tier,
                    "gadget": problem.gadget_name,
                    "colors": 2,
                    "min_vertices": n,
                    "usage": {"total_tokens": 2000},
                    "finish_reason": "stop",
                    "error": None,
                    "parse_error": None,
                    "candidate": answer if ok else {"edges": [[0, 1]], "e": [0, 1]},
                    "correct": ok,
                    "reason": "ok" if ok else "no",
                    **(_optimum_fields(n, m) if ok else {}),
                }
            )
    (path / "problems.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (path / "samples.jsonl").write_text("".join(json.dumps(s) + "\n" for s in samples))
    fresh = {"count": len(plan), "seed": 7, "colors": 2, "min_size": 3, "max_size": 10}
    config_json = {
        "format_version": 1,
        "model": f"openai/{label}",
        "model_label": label,
        "profile": None,
        "settings": ["zero-shot"],
        "runs": 2,
        "problems": list(plan),
        "sampling": {},
        "tool_mode": "text",
        "package_version": "0.1.0",
        "dataset_hash": "f" * 64,
        "dataset": str(path / "problems.jsonl"),
        "problem_set": "fresh",
        "fresh": {**fresh, "pool": None, "gadgets": None},
        "backend": {},
        **config,
    }
    (path / "config.json").write_text(json.dumps(config_json, indent=2))
    return path


@pytest.fixture(scope="module")
def report_dir(tmp_path_factory, report_helpers) -> Path:
    base = tmp_path_factory.mktemp("board")
    runs = base / "runs"
    alpha = {"command": BENCH_COMMAND, "dataset_hash": "a" * 64}
    bench_folder(report_helpers, runs / "alpha", "alpha", BENCH, 1000, **alpha)
    fresh_folder(runs / "alpha-fresh", "alpha", FRESH, command=FRESH_COMMAND)
    bench_folder(report_helpers, runs / "beta", "beta", BETA, 0)
    fresh_folder(runs / "gamma-fresh", "gamma", GAMMA)
    out = base / "report"
    with pytest.MonkeyPatch.context() as patch:  # a run is fresh only if drawn again: these
        patch.setattr(regrade, "checked_fresh_problems", _hand_written_draw)  # stand in for it
        result = CliRunner().invoke(
            app,
            ["report", str(runs), "--out", str(out), "--bootstrap", str(RESAMPLES)]
            + ["--seed", str(SEED), "--no-drawings"],
        )
    assert result.exit_code == 0, result.output
    return out


def _hand_written_draw(directory: str) -> Selection:
    """The hand-written ``problems.jsonl`` of a fresh folder, as if drawn again (the report
    re-derives a draw from its seed; these folders stand in for one)."""
    return load_selection(Path(directory) / "problems.jsonl")


def graded_hash(plan: dict, selection: Selection) -> str:
    """The hash of the problems a run of ``plan`` is graded against (zero-shot)."""
    return dataset_hash(selection.subset([selection.get(p) for p in plan]), ["zero-shot"])


# ---------------------------------------------------------------------------------------------
# Independent computations
# ---------------------------------------------------------------------------------------------
def accuracy(plan: dict) -> float:
    """Mean over runs of the share of problems solved in that run."""
    runs = len(next(iter(plan.values())))
    return float(np.mean([sum(o[r] for o in plan.values()) / len(plan) for r in range(runs)]))


def draws(plan: dict, seed: int) -> np.ndarray:
    """The mean accuracy in each bootstrap resample of the problems (sorted as the report
    sorts them), as docs/report.md defines the interval."""
    ordered = [plan[p] for p in sorted(plan, key=problem_sort_key)]
    correct = np.array(ordered, dtype=float)
    rng = np.random.default_rng(seed)
    weights = rng.multinomial(len(plan), [1 / len(plan)] * len(plan), size=RESAMPLES)
    return np.array([np.mean(w @ correct / len(plan)) for w in weights])


def tier_of(problem_id: str) -> str:
    solution = get_solution(problem_id) if problem_id in BENCH or problem_id in BETA else None
    if solution is not None:
        return size_tier(solution.n)
    extended = extended_problem_set()
    size = extended.min_vertices(extended.get(problem_id))
    assert size is not None
    return size_tier(size)


def part(plan: dict, tiers: set[str]) -> dict:
    return {p: o for p, o in plan.items() if tier_of(p) in tiers}


def gap(bench: dict, fresh: dict) -> tuple[float, float, float]:
    low, high = np.percentile(draws(bench, SEED) - draws(fresh, SEED + 1), [2.5, 97.5])
    return 100 * (accuracy(bench) - accuracy(fresh)), 100 * low, 100 * high


# ---------------------------------------------------------------------------------------------
# Tests
# ---------------------------------------------------------------------------------------------
def test_benchmark_and_fresh_accuracy_by_size_tier_with_the_gap(report_dir):
    rows = list(csv.DictReader((report_dir / "fresh_vs_benchmark.csv").open()))
    alpha = {r["size_tier"]: r for r in rows if r["model"] == "alpha"}
    assert list(alpha) == ["≤6", "7-8", "9-10", "shared"]
    for tier in ("≤6", "7-8"):
        bench, fresh = part(BENCH, {tier}), part(FRESH, {tier})
        row = alpha[tier]
        assert int(row["benchmark_problems"]) == len(bench)
        assert int(row["fresh_problems"]) == len(fresh)
        assert float(row["benchmark_accuracy_pct"]) == pytest.approx(100 * accuracy(bench))
        assert float(row["fresh_accuracy_pct"]) == pytest.approx(100 * accuracy(fresh))
        low, high = np.percentile(draws(fresh, SEED), [2.5, 97.5])
        assert float(row["fresh_ci_low_pct"]) == pytest.approx(100 * low, abs=1e-4)
        assert float(row["fresh_ci_high_pct"]) == pytest.approx(100 * high, abs=1e-4)
        want = gap(bench, fresh)
        got = (float(row["gap_pp"]), float(row["gap_ci_low_pp"]), float(row["gap_ci_high_pp"]))
        assert got == pytest.approx(want, abs=1e-4)
    # a tier only the fresh side has: no benchmark accuracy, no gap
    only_fresh = alpha["9-10"]
    assert only_fresh["benchmark_accuracy_pct"] == "" and only_fresh["gap_pp"] == ""
    assert float(only_fresh["fresh_accuracy_pct"]) == 0.0
    # shared: the tiers both sides have, pooled
    shared = alpha["shared"]
    want = gap(part(BENCH, {"≤6", "7-8"}), part(FRESH, {"≤6", "7-8"}))
    got = (float(shared["gap_pp"]), float(shared["gap_ci_low_pp"]), float(shared["gap_ci_high_pp"]))
    assert got == pytest.approx(want, abs=1e-4)
    # gamma has fresh runs only: its rows have no benchmark side
    assert all(r["benchmark_accuracy_pct"] == "" for r in rows if r["model"] == "gamma")
    # the fresh runs are never pooled with the benchmark's: a cell of their own
    table1 = {r["model"] for r in csv.DictReader((report_dir / "table1.csv").open())}
    assert table1 == {"alpha", "alpha [fresh]", "beta", "gamma [fresh]"}


def test_the_leaderboard_rows(report_dir):
    rows = list(csv.DictReader((report_dir / "leaderboard.csv").open()))
    assert [(r["rank"], r["model"], r["problem_set"]) for r in rows] == [
        ("1", "beta", "paper"),
        ("2", "alpha", "paper"),
        ("3", "gamma", "fresh"),
    ]
    beta, alpha, gamma = rows
    assert float(beta["mean_accuracy_pct"]) == 100.0
    assert float(alpha["mean_accuracy_pct"]) == pytest.approx(100 * accuracy(BENCH))
    low, high = np.percentile(draws(BENCH, SEED), [2.5, 97.5])
    assert float(alpha["ci_low_pct"]) == pytest.approx(100 * low, abs=1e-4)
    assert float(alpha["ci_high_pct"]) == pytest.approx(100 * high, abs=1e-4)
    solved_any = sum(any(o) for o in BENCH.values()) / len(BENCH)
    assert float(alpha["pass_at_k_pct"]) == pytest.approx(100 * solved_any, abs=1e-4)
    # every correct answer is the proven minimal solution: minimal rate 100 % of the correct ones
    correct = sum(sum(o) for o in BENCH.values())
    assert int(alpha["graded"]) == correct and int(alpha["n_minimal"]) == correct
    assert float(alpha["minimal_pct"]) == 100.0 and float(alpha["mean_excess_vertices"]) == 0.0
    assert float(alpha["avg_total_tokens"]) == 1000.0 and beta["avg_total_tokens"] == ""
    want = gap(part(BENCH, {"≤6", "7-8"}), part(FRESH, {"≤6", "7-8"}))
    assert float(alpha["gap_pp"]) == pytest.approx(want[0], abs=1e-4)
    assert beta["gap_pp"] == "" and gamma["gap_pp"] == ""
    # the command and the problem-set hash of the runs behind the row
    assert alpha["command"] == f"{BENCH_COMMAND}; {FRESH_COMMAND}"
    # the hash of the problems graded against, not config.json's ("a" * 64, "f" * 64)
    paper = named_problem_set("paper")
    alpha_fresh = load_selection(report_dir.parent / "runs" / "alpha-fresh" / "problems.jsonl")
    gamma_fresh = load_selection(report_dir.parent / "runs" / "gamma-fresh" / "problems.jsonl")
    bench_hash = graded_hash(BENCH, paper)
    assert alpha["dataset_hash"] == bench_hash + " " + graded_hash(FRESH, alpha_fresh)
    assert beta["command"] == "" and beta["dataset_hash"] == graded_hash(BETA, paper)
    assert gamma["dataset_hash"] == graded_hash(GAMMA, gamma_fresh)
    markdown = (report_dir / "leaderboard.md").read_text()
    beta_line = next(line for line in markdown.splitlines() if "| beta |" in line)
    cells = [c.strip() for c in beta_line.split("|")][1:-1]
    assert cells[12] == "—" and cells[13] == "—"  # tokens unknown, no gap
    assert cells[14] == "—" and cells[15] == beta["dataset_hash"]  # no command; the hash
    html = (report_dir / "report.html").read_text()
    assert 'id="leaderboard"' in html and 'id="fresh_vs_benchmark"' in html
    assert BENCH_COMMAND in html
    summary = json.loads((report_dir / "summary.json").read_text())
    assert [r["model"] for r in summary["leaderboard"]] == ["beta", "alpha", "gamma"]


def test_eval_records_its_command_and_the_report_shows_it(tmp_path, monkeypatch):
    out = tmp_path / "runs" / "solver"
    args = ["eval", "--problems", "p3_k3_red_determiner", "--runs", "1", "--setting", "zero-shot"]
    args += ["--out", str(out)]
    monkeypatch.setattr(sys, "argv", ["/usr/bin/ramseygadgets", *args])
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    command = "ramseygadgets " + shlex.join(args)
    assert json.loads((out / "config.json").read_text())["command"] == command
    # not part of the identity: a resume with another command line keeps the first one
    again = [*args, "--no-progress"]
    monkeypatch.setattr(sys, "argv", ["ramseygadgets", *again])
    assert CliRunner().invoke(app, again).exit_code == 0
    assert json.loads((out / "config.json").read_text())["command"] == command
    # the Python API records none
    api = tmp_path / "runs" / "api"
    run_eval(EvalOptions(out=api, problems=["p3_k3_blue_determiner"], runs=1, progress=False))
    assert json.loads((api / "config.json").read_text())["command"] is None
    report = tmp_path / "report"
    result = CliRunner().invoke(
        app, ["report", str(tmp_path / "runs"), "--out", str(report), "--bootstrap", "0"]
    )
    assert result.exit_code == 0, result.output
    # both runs are labelled solver: the zero-shot row combines them, one command unknown
    rows = {r["setting"]: r for r in csv.DictReader((report / "leaderboard.csv").open())}
    assert sorted(rows["zero-shot"]["command"].split("; ")) == sorted([command, "—"])
    assert rows["size-hint"]["command"] == ""  # the API run only
    assert (report / "discoveries.jsonl").is_file()
