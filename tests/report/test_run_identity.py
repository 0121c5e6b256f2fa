"""Issue 45, item 4: run folders are identified by content.  A ``cp -r`` copy of a run folder
counted as a second run; a paper run relabelled ``problem_set: fresh`` in ``config.json`` entered
the fresh-vs-benchmark gap; the leaderboard's problem-set hash was ``config.json``'s, not that
of the problems graded against."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from ramseygadgets.cli import app
from ramseygadgets.report import load_runs
from ramseygadgets.report.regrade import regrade_runs
from ramseygadgets.runs.config import dataset_hash
from ramseygadgets.verification.selection import named_problem_set

PROBLEMS = ["p3_k3_red_determiner", "p3_k4_red_determiner"]


def _run(factory, sample, **config: object) -> Path:
    folder = factory(
        problems=PROBLEMS,
        settings=["zero-shot"],
        runs=1,
        samples=[sample(p, "zero-shot", 0, "correct") for p in PROBLEMS],
    )
    path = folder / "config.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), **config}))
    return folder


def _paper_hash() -> str:
    paper = named_problem_set("paper")
    return dataset_hash(paper.subset([paper.get(p) for p in PROBLEMS]), ["zero-shot"])


def test_a_copied_run_folder_counts_once(run_dir_factory, sample, tmp_path):
    first = _run(run_dir_factory, sample)
    copy = tmp_path / "copy"
    shutil.copytree(first, copy)
    config = json.loads((copy / "config.json").read_text())
    config["model_label"] = "another-model"  # relabelled: the samples are still the same
    (copy / "config.json").write_text(json.dumps(config))
    out = regrade_runs(load_runs([first, copy]))
    assert len(out.runs) == 1
    assert any(
        f"{copy}: the same samples as {first} (a copy); counted once" in w for w in out.warnings
    )


def test_a_paper_run_relabelled_fresh_is_not_fresh(run_dir_factory, sample, tmp_path):
    bench = _run(run_dir_factory, sample)
    relabelled = _run(run_dir_factory, sample, problem_set="fresh")
    # one sample differs, so it is not a copy of the benchmark run
    lines = (relabelled / "samples.jsonl").read_text().splitlines()
    record = json.loads(lines[0])
    record["latency_s"] = 0.75
    (relabelled / "samples.jsonl").write_text("\n".join([json.dumps(record), *lines[1:]]) + "\n")
    out = regrade_runs(load_runs([bench, relabelled]))
    assert [run.fresh for run in out.runs] == [False, False]
    assert any("not counted as fresh" in w for w in out.warnings)
    report = tmp_path / "report"
    args = ["report", str(bench), str(relabelled), "--out", str(report), "--bootstrap", "0"]
    result = CliRunner().invoke(app, [*args, "--no-drawings"])
    assert result.exit_code == 0, result.output
    assert not (report / "fresh_vs_benchmark.csv").exists()
    rows = list(csv.DictReader((report / "leaderboard.csv").open()))
    assert [r["problem_set"] for r in rows] == ["paper"]


def test_the_hash_shown_is_that_of_the_problems_graded_against(run_dir_factory, sample, tmp_path):
    folder = _run(run_dir_factory, sample, dataset_hash="a" * 64, problem_set="paper")
    out = regrade_runs(load_runs([folder]))
    assert out.runs[0].config["dataset_hash"] == _paper_hash()
    assert out.runs[0].config["recorded"]["dataset_hash"] == "a" * 64
    assert any("config.json dataset_hash aaaaaaaaaaaa… is not the hash" in w for w in out.warnings)
    report = tmp_path / "report"
    args = ["report", str(folder), "--out", str(report), "--bootstrap", "0", "--no-drawings"]
    assert CliRunner().invoke(app, args).exit_code == 0
    (row,) = csv.DictReader((report / "leaderboard.csv").open())
    assert row["dataset_hash"] == _paper_hash()


def test_the_tool_records_say_they_are_taken_from_samples(run_dir_factory, sample, tmp_path):
    """Issue 45, item 7: the python setting's tool calls, tool seconds and programs are read
    from samples.jsonl as recorded; the report says so next to the figures that use them."""
    record = sample(PROBLEMS[0], "python", 0, "correct", tool_calls=2, tool_seconds=0.5)
    folder = run_dir_factory(problems=PROBLEMS[:1], settings=["python"], runs=1, samples=[record])
    report = tmp_path / "report"
    args = ["report", str(folder), "--out", str(report), "--bootstrap", "0", "--no-drawings"]
    assert CliRunner().invoke(app, args).exit_code == 0
    said = "Taken from samples.jsonl as recorded, not re-derived: tool calls, tool seconds"
    assert said in (report / "tool_use.md").read_text()
    assert said in (report / "report.html").read_text()
