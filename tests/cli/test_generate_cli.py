"""``ramseygadgets generate`` end to end: files, resume, Ctrl-C, unsolved problems, eval --dataset."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ramseygadgets.cli import app
from ramseygadgets.harness.runner import EvalOptions, run_eval
from ramseygadgets.infra.executors import Executor
from ramseygadgets.problemsets import (
    ProblemSetWriter,
    load_generated,
    plan_problem_set,
    read_results,
)
from ramseygadgets.scaleout import LocalExecutor
from ramseygadgets.scaleout.fanout import generate_problem_set
from ramseygadgets.search.exhaustive import nauty_available
from ramseygadgets.verification.selection import load_selection
from ramseygadgets.verification.verifier import verify

runner = CliRunner()
needs_nauty = pytest.mark.skipif(
    not nauty_available(), reason="nauty (geng, listg) is not installed"
)
ARGS = [
    "generate",
    "--F",
    "P3",
    "--H",
    "K3,C5",
    "--spec",
    "P3 | P3 | P4",
    "--max-vertices",
    "8",
    "--timeout",
    "30",
    "--jobs",
    "2",
]


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@needs_nauty
def test_generate_writes_an_eval_ready_set_and_resumes(tmp_path):
    out = tmp_path / "set"
    result = runner.invoke(app, [*ARGS, "--out", str(out), "--cross-check", "6"])
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["planned"] == manifest["finished"] == 13 and manifest["status"] == {"found": 13}
    assert (
        manifest["options"]["cross_check"]["agree"] == 13
        and not manifest["options"]["cross_check"]["disagree"]
    )
    assert "13 agree, 0 disagree" in result.output
    rows = _lines(out / "problems.jsonl")
    assert not (out / "multicolor.jsonl").exists()  # one file for every colour count
    assert all(r["schema_version"] == 2 and "colors" in r for r in rows)
    pairs = [r for r in rows if "F" in r]
    multi = [r for r in rows if "F" not in r]
    assert len(pairs) == 10 and len(multi) == 3
    assert all(r["colors"] == ["P3", "P3", "P4"] for r in multi)
    assert all(r["colors"] == [r["F"], r["H"]] for r in pairs)
    row = next(r for r in pairs if r["id"] == "p3_k3_red_determiner")
    assert (row["min_vertices"], row["min_edges"]) == (5, 7)  # the catalog's shipped minimum
    assert {
        "id",
        "F",
        "H",
        "gadget",
        "tier",
        "F_edges",
        "H_edges",
        "designated",
        "settings",
        "solution_edges",
        "solution_e",
        "solution_f",
        "solution_vertices",
        "solution_method",
        "solution",
    } <= set(row)
    loaded = load_generated(out)
    assert [p.id for p, _, _ in loaded] == [r["id"] for r in rows]
    for problem, candidate, _ in loaded:
        assert candidate is not None and verify(problem, candidate).correct, problem.id
    shipped = json.loads((out / "solutions.json").read_text())["solutions"]
    assert {s["problem_id"] for s in shipped} == {r["id"] for r in pairs}
    assert all(s["proof"].startswith("no solution on") for s in shipped)

    again = runner.invoke(app, [*ARGS, "--out", str(out)])
    assert (
        again.exit_code == 0
        and "13 already recorded" in again.output
        and "solving 0" in again.output
    )
    assert len(_lines(out / "results.jsonl")) == 13  # nothing solved twice

    problem_set = load_selection(out / "problems.jsonl")
    assert len(problem_set.problems) == 13 and len(problem_set.solutions) == 13
    outcome = run_eval(
        EvalOptions(
            out=tmp_path / "eval",
            model="solver",
            settings=["zero-shot"],
            runs=1,
            dataset=str(out / "problems.jsonl"),
            progress=False,
        )
    )
    assert outcome.stats.recorded == 13
    samples = _lines(tmp_path / "eval" / "samples.jsonl")
    assert len(samples) == 13 and all(s.get("correct") for s in samples)


@needs_nauty
def test_problems_without_a_solution_within_the_limits_are_recorded_not_dropped(tmp_path):
    result = runner.invoke(
        app,
        [
            "generate",
            "--F",
            "K1,3",
            "--H",
            "K5",
            "--gadgets",
            "red-determiner",
            "--max-vertices",
            "6",
            "--jobs",
            "1",
            "--out",
            str(tmp_path),
            "--json",
        ],
    )
    assert result.exit_code == 1, result.output
    summary = json.loads(result.output)
    assert summary["not_solved"] == [
        {
            "id": "k13_k5_red_determiner",
            "status": "none-up-to-limit",
            "lower_bound": 7,
            "max_vertices": 6,
        }
    ]
    assert (tmp_path / "problems.jsonl").read_text() == ""
    assert read_results(tmp_path / "results.jsonl")["k13_k5_red_determiner"]["solution"] is None


class _InterruptAfter(Executor):
    """Runs tasks in this process and presses Ctrl-C after ``count`` results."""

    def __init__(self, count: int) -> None:
        self.count = count

    def run(self, fn, items, *, describe=str):
        for index, item in enumerate(items):
            if index == self.count:
                raise KeyboardInterrupt
            yield index, fn(item)


def test_ctrl_c_keeps_every_finished_problem_and_a_torn_line_is_repaired(tmp_path):
    plan = plan_problem_set(["P3"], ["K3", "P4"], gadgets="determiners,senders")
    with ProblemSetWriter(tmp_path) as writer:
        first = generate_problem_set(plan, writer, max_vertices=7, executor=_InterruptAfter(3))
    assert first.interrupted and len(first.ran) == 3
    assert len(read_results(tmp_path / "results.jsonl")) == 3
    assert len(_lines(tmp_path / "problems.jsonl")) == 3  # the finished ones are already exported
    with (tmp_path / "results.jsonl").open("a") as fh:
        fh.write('{"id": "p3_p4_red_determiner", "status": "fou')  # a kill in the middle of a write
    with ProblemSetWriter(tmp_path) as writer:
        second = generate_problem_set(plan, writer, max_vertices=7, executor=LocalExecutor(1))
    assert not second.interrupted and second.skipped == 3 and len(second.ran) == 5
    assert len(_lines(tmp_path / "results.jsonl")) == 8
    assert json.loads((tmp_path / "manifest.json").read_text())["status"] == {"found": 8}


def test_cli_errors_are_one_line(tmp_path):
    for args, message in (
        (["generate", "--F", "Q9", "--H", "K3", "--out", str(tmp_path)], "unknown pattern 'Q9'"),
        (["generate", "--F", "P3", "--H", "K3"], "--out DIR is required"),
        (["generate", "--F", "P3", "--out", str(tmp_path)], "both --F and --H"),
        (["generate", "--spec", "P3 | ", "--out", str(tmp_path)], "colouring spec"),
        (
            ["generate", "--F", "P3", "--H", "K3", "--gadgets", "nope", "--out", str(tmp_path)],
            "unknown gadget",
        ),
        (
            [
                "generate",
                "--F",
                "P3",
                "--H",
                "K3",
                "--polynomial-pairs",
                str(tmp_path / "missing"),
                "--out",
                str(tmp_path),
            ],
            "cannot read the polynomial pairs file",
        ),
    ):
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (args, result.output)
        assert message in result.output and "Traceback" not in result.output
        assert len([line for line in result.output.splitlines() if line.startswith("error:")]) == 1


@needs_nauty
def test_dry_run_lists_the_plan(tmp_path):
    result = runner.invoke(
        app, ["generate", "--F", "P3,K1,3", "--H", "connected:5", "--dry-run", "--json"]
    )
    assert result.exit_code == 0
    data = json.loads(result.output)
    assert len(data["problems"]) == 248 and len(data["skipped"]) == 4


@needs_nauty
def test_a_real_ctrl_c_stops_the_workers_and_keeps_the_finished_problems(tmp_path):
    """The console script with 2 worker processes: one slow problem, one fast; SIGINT after the
    fast one is recorded."""
    import signal
    import subprocess
    import sys
    import time

    script = Path(sys.executable).with_name("ramseygadgets")
    out = tmp_path / "set"
    process = subprocess.Popen(
        [
            str(script),
            "generate",
            "--F",
            "K1,3",
            "--H",
            "K1,4,K3",
            "--gadgets",
            "red-determiner",
            "--jobs",
            "2",
            "--timeout",
            "120",
            "--out",
            str(out),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    results = out / "results.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (
        results.exists() and results.read_text().count("\n") >= 1
    ):
        time.sleep(0.1)
    process.send_signal(signal.SIGINT)
    output, _ = process.communicate(timeout=30)
    assert process.returncode == 130, output
    assert "interrupted: 1 problems finished in this run and kept" in output.replace("\n", " ")
    assert [r["id"] for r in _lines(results)] == ["k13_k3_red_determiner"]
    assert [r["id"] for r in _lines(out / "problems.jsonl")] == ["k13_k3_red_determiner"]
    assert json.loads((out / "manifest.json").read_text())["unfinished"] == [
        "k13_k14_red_determiner"
    ]


def test_ctrl_c_right_after_a_durable_write_still_counts_that_problem(tmp_path, monkeypatch):
    """Ctrl-C between the fsync of a record and the bookkeeping: the file is the truth."""
    plan = plan_problem_set(["P3"], ["K3"], gadgets="red-determiner")
    durable_write = ProblemSetWriter.record

    def write_then_interrupt(self, record):
        with open(self.results_path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(record) + "\n")
        raise KeyboardInterrupt

    monkeypatch.setattr(ProblemSetWriter, "record", write_then_interrupt)
    with ProblemSetWriter(tmp_path) as writer:
        outcome = generate_problem_set(plan, writer, max_vertices=6, executor=LocalExecutor(1))
    monkeypatch.setattr(ProblemSetWriter, "record", durable_write)
    assert outcome.interrupted
    assert [r["id"] for r in outcome.ran] == ["p3_k3_red_determiner"]
    assert [r["id"] for r in _lines(tmp_path / "problems.jsonl")] == ["p3_k3_red_determiner"]
