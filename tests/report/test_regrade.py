"""The report re-derives every grade (issue 32, item 2): forged run folders are built from
genuine ones (the random baseline, the reference solver, replayed replies) and the report must
count what the answers are, list every record that claims otherwise as disputed (file:line),
count a folder given twice once, and keep runs of different problem sets apart."""

from __future__ import annotations

import csv
import hashlib
import json
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ramseygadgets.cli import app
from ramseygadgets.harness.runner import EvalOptions, run_eval
from ramseygadgets.report import Run, Sample, build_report, load_runs, register_reader
from ramseygadgets.report.build import ReportOptions
from ramseygadgets.report.regrade import regrade_runs
from ramseygadgets.report.runs import _READERS
from ramseygadgets.runs.regrade import Regrader

PROBLEMS = ["p3_k3_red_determiner", "p3_k3_blue_determiner", "p3_k3_positive_sender"]
OPTIONS = ReportOptions(resamples=0, drawings=False)


def records(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (folder / "samples.jsonl").read_text().splitlines()]


def forge(source: Path, target: Path, label: str, change: Any, keep: Any = lambda r: True) -> Path:
    """A copy of a genuine run folder, labelled ``label``, each kept record passed through
    ``change`` (which edits it in place)."""
    target.mkdir(parents=True)
    config = json.loads((source / "config.json").read_text())
    (target / "config.json").write_text(json.dumps({**config, "model_label": label}))
    lines = []
    for record in records(source):
        if keep(record):
            change(record)
            lines.append(json.dumps(record) + "\n")
    (target / "samples.jsonl").write_text("".join(lines))
    return target


@pytest.fixture(scope="module")
def genuine(tmp_path_factory) -> Path:
    """Genuine run folders: the random baseline and the reference solver, two runs each."""
    base = tmp_path_factory.mktemp("genuine")
    for model in ("random", "solver"):
        run_eval(
            EvalOptions(
                model=model,
                out=base / model,
                runs=2,
                problems=PROBLEMS,
                settings=["zero-shot"],
                progress=False,
            )
        )
    return base


def report(tmp_path: Path, *paths: Path) -> tuple[Any, Path]:
    out = tmp_path / "report"
    return build_report(load_runs(paths), out, OPTIONS), out


def board(out: Path) -> list[dict[str, str]]:
    return list(csv.DictReader((out / "leaderboard.csv").open()))


def test_a_random_run_marked_all_correct_is_counted_as_what_it_answered(genuine, tmp_path):
    random = genuine / "random"
    wrong = [r for r in records(random) if not r["correct"]]
    assert wrong  # the random baseline fails (almost) everything

    def mark_correct(record: dict[str, Any]) -> None:
        record.update(correct=True, reason="ok", check="ok", witness=None)

    forged = forge(random, tmp_path / "runs" / "forged", "forger", mark_correct)
    result, out = report(tmp_path, genuine / "solver", random, forged)
    rows = {r["model"]: r for r in board(out)}
    assert board(out)[0]["model"] == "solver"
    assert rows["forger"]["mean_accuracy_pct"] == rows["random"]["mean_accuracy_pct"]
    assert float(rows["forger"]["mean_accuracy_pct"]) < 100
    # every forged line is listed where it was read, and counted as re-derived
    numbers = [i for i, r in enumerate(records(random), 1) if not r["correct"]]
    want = [f"{forged / 'samples.jsonl'}:{n}" for n in numbers]
    assert [d.where for d in result.disputes] == want
    assert all(d.differences[0][:3] == ("correct", True, False) for d in result.disputes)
    assert int(rows["forger"]["disputed"]) == len(wrong) and rows["random"]["disputed"] == "0"
    assert want[0] in rows["forger"]["disputed_at"]
    disputed = list(csv.DictReader((out / "disputed.csv").open()))
    assert [r["where"] for r in disputed] == want
    assert any(want[0] in w and "re-derived" in w for w in result.warnings)
    assert want[-1] in (out / "report.html").read_text()
    assert want[0] in (out / "report.md").read_text()
    summary = json.loads((out / "summary.json").read_text())
    assert summary["disputed"][0]["recorded"] == {"correct": True}


def test_correct_candidates_written_beside_the_random_replies_are_disputed(genuine, tmp_path):
    """A forger who also writes the shipped solution as each sample's candidate proves
    nothing: the report grades the reply, as eval did, not the candidate beside it."""
    right = {r["problem_id"]: r["candidate"] for r in records(genuine / "solver")}

    def forge_candidate(record: dict[str, Any]) -> None:
        record.update(correct=True, candidate=right[record["problem_id"]], parse_error=None)

    random = genuine / "random"
    wrong = [r for r in records(random) if not r["correct"]]
    assert wrong and all(isinstance(r["response"], str) for r in wrong)
    forged = forge(random, tmp_path / "runs" / "forged", "forger", forge_candidate)
    result, out = report(tmp_path, random, forged)
    rows = {r["model"]: r for r in board(out)}
    assert rows["forger"]["mean_accuracy_pct"] == rows["random"]["mean_accuracy_pct"]
    assert int(rows["forger"]["disputed"]) == len(wrong)


def test_the_console_names_the_disputed_samples(genuine, tmp_path):
    forged = forge(
        genuine / "random", tmp_path / "forged", "forger", lambda r: r.update(correct=True)
    )
    result = CliRunner().invoke(
        app, ["report", str(forged), "--out", str(tmp_path / "r"), "--bootstrap", "0"]
    )
    assert result.exit_code == 0, result.output
    assert f"{forged / 'samples.jsonl'}:1" in result.output.replace("\n", "")
    assert "disputed" in result.output


def one_edge_discovery(record: dict[str, Any]) -> None:
    """A hand-written discovery: one edge, claimed below the proof and rechecked."""
    record.update(
        response=json.dumps({"edges": [[0, 1]], "e": [0, 1]}),
        candidate={"edges": [[0, 1]], "e": [0, 1]},
        correct=True,
        reason="ok",
        check="ok",
        witness=None,
        candidate_vertices=2,
        candidate_edges=1,
        optimum_vertices=1,
        optimum_edges=0,
        minimal=False,
        excess_vertices=-2,
        excess_edges=-5,
        discovery="contradicts-proof",
        recheck={"method": "brute-force", "agrees": True},
    )


def test_a_hand_written_one_edge_discovery_is_disputed_not_confirmed(genuine, tmp_path):
    solver = genuine / "solver"
    forged = forge(
        solver,
        tmp_path / "forged",
        "finder",
        one_edge_discovery,
        keep=lambda r: r["problem_id"] == PROBLEMS[0] and r["run"] == 0,
    )
    result, out = report(tmp_path, forged)
    assert result.discoveries == [] and (out / "discoveries.jsonl").read_text() == ""
    markdown = (out / "discoveries.md").read_text()
    assert "brute-force: agrees" not in markdown and "None:" in markdown
    (dispute,) = result.disputes
    assert dispute.where == f"{forged / 'samples.jsonl'}:1"
    assert [name for name, _, _ in dispute.differences] == [
        "correct",
        "optimum_vertices",
        "optimum_edges",
        "minimal",
        "excess_vertices",
        "excess_edges",
        "discovery",
        "recheck",
    ]
    (row,) = board(out)
    assert float(row["mean_accuracy_pct"]) == 0.0 and row["graded"] == "0"


def test_negative_excess_is_re_derived_from_the_proven_optimum(genuine, tmp_path):
    """Records claiming a larger optimum than the proven one: a negative mean excess beside
    "no correct answer is smaller than the optimum" unless the optimum is the set's."""

    def above(record: dict[str, Any]) -> None:
        record.update(
            optimum_vertices=record["optimum_vertices"] + 3,
            optimum_edges=record["optimum_edges"] + 7,
            minimal=False,
            excess_vertices=-3,
            excess_edges=-7,
        )

    forged = forge(genuine / "solver", tmp_path / "forged", "solver", above)
    result, out = report(tmp_path, forged)
    (row,) = board(out)
    assert float(row["mean_excess_vertices"]) == 0.0 and float(row["mean_excess_edges"]) == 0.0
    assert float(row["minimal_pct"]) == 100.0
    assert "None:" in (out / "discoveries.md").read_text()
    assert len(result.disputes) == len(PROBLEMS) * 2
    names = {tuple(name for name, _, _ in d.differences) for d in result.disputes}
    assert names == {
        ("optimum_vertices", "optimum_edges", "minimal", "excess_vertices", "excess_edges")
    }
    assert all(d.differences[3][1:] == (-3, 0) for d in result.disputes)


@pytest.mark.parametrize("route", ["same path", "another path", "symlink", "parent folder"])
def test_the_same_folder_given_twice_counts_once(genuine, tmp_path, route):
    solver = genuine / "solver"
    if route == "same path":
        second = solver
    elif route == "another path":
        second = solver / ".." / "solver"
    elif route == "symlink":
        second = tmp_path / "link"
        second.symlink_to(solver, target_is_directory=True)
    else:
        second = tmp_path / "holder"
        second.mkdir()
        (second / "solver").symlink_to(solver, target_is_directory=True)
    result, out = report(tmp_path, solver, second)
    (row,) = board(out)
    assert row["runs"] == "2" and row["problems"] == str(len(PROBLEMS))
    assert not any("stacked" in w for w in result.warnings)
    assert any("counted once" in w for w in result.warnings)


def test_runs_of_different_problem_sets_are_never_one_row(genuine, tmp_path):
    """The same label over the paper's problems and over a problem-set file: two rows, told
    apart by the set; each graded against its own set's optimum."""
    dataset = tmp_path / "mine.jsonl"
    dataset.write_text(json.dumps({"id": PROBLEMS[0]}) + "\n")  # with its shipped solution
    other = tmp_path / "runs" / "other"
    options = EvalOptions(
        model="solver", out=other, runs=2, dataset=str(dataset), settings=["zero-shot"]
    )
    run_eval(replace(options, progress=False))
    result, out = report(tmp_path, genuine / "solver", other)
    models = sorted({r["model"] for r in board(out)})
    digest = hashlib.sha256(dataset.read_bytes()).hexdigest()
    assert models == [f"solver [mine.jsonl {digest[:8]}]", "solver [paper]"]
    assert not any("stacked" in w for w in result.warnings)
    rows = {r["model"]: r for r in board(out) if r["setting"] == "zero-shot"}
    assert rows["solver [paper]"]["problems"] == str(len(PROBLEMS))
    assert rows[models[0]]["problems"] == "1" and rows[models[0]]["runs"] == "2"


def test_a_registered_reader_s_samples_are_graded_again(genuine, tmp_path):
    """Samples from any reader (Inspect logs among them) go through the same re-grading."""
    forged_records = records(genuine / "random")
    for record in forged_records:
        record["correct"] = True

    def read(path: Path) -> list[Run]:
        samples = [Sample.from_record(r) for r in forged_records]
        return [
            Run(
                label="plugin",
                model="plugin",
                settings=("zero-shot",),
                runs=2,
                problems=tuple(PROBLEMS),
                samples=samples,
                source=str(path),
            )
        ]

    log = tmp_path / "x.mylog"
    log.write_text("")
    register_reader("test-mylog", lambda p: p.suffix == ".mylog", read)
    try:
        result, out = report(tmp_path, log)
    finally:
        _READERS[:] = [r for r in _READERS if r.name != "test-mylog"]
    assert result.disputes and all(d.where.startswith(f"{log} (") for d in result.disputes)
    (row,) = board(out)
    genuine_correct = sum(r["correct"] for r in records(genuine / "random"))
    assert float(row["mean_accuracy_pct"]) == pytest.approx(
        100 * genuine_correct / len(forged_records)
    )


def test_identical_answers_are_verified_once(genuine, tmp_path):
    copies = [shutil.copytree(genuine / "solver", tmp_path / f"copy{i}") for i in range(3)]
    for i, copy in enumerate(copies):  # the same answers, but not copies (which count once)
        lines = [json.loads(line) for line in (copy / "samples.jsonl").read_text().splitlines()]
        text = "".join(json.dumps({**r, "latency_s": 0.5 + i}) + "\n" for r in lines)
        (copy / "samples.jsonl").write_text(text)
    runs = load_runs(copies)
    regrader = Regrader()
    done = regrade_runs(runs, regrader=regrader)
    assert done.samples == 3 * 2 * len(PROBLEMS) and not done.disputes
    assert regrader.verified == len(PROBLEMS)  # one shipped answer per problem


def test_lines_are_named_past_blank_and_corrupt_lines(genuine, tmp_path):
    forged = forge(genuine / "random", tmp_path / "forged", "forger", lambda r: None)
    lines = (forged / "samples.jsonl").read_text().splitlines(keepends=True)
    first = json.loads(lines[0])
    first["correct"] = not first["correct"]
    text = "\n" + "{not json\n" + "   \n" + json.dumps(first) + "\n" + "".join(lines[1:])
    (forged / "samples.jsonl").write_text(text)
    result, _ = report(tmp_path, forged)
    assert [d.where for d in result.disputes] == [f"{forged / 'samples.jsonl'}:4"]
