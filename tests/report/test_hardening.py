"""``report`` under hostile conditions (issue 12): a full disk, thousands of problems outside the
catalog and many settings, names that carry spreadsheet formulas, HTML, Rich markup and terminal
escapes, runs with no samples or mostly failed samples, and an 80-column terminal."""

from __future__ import annotations

import builtins
import csv
import errno
import io
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ramseygadgets.cli import app

runner = CliRunner()
PROBLEMS = ["p3_k3_red_determiner", "p3_k4_red_determiner"]


def two_problem_run(factory, sample, outcome: str = "wrong", **kwargs: Any) -> Path:
    return factory(
        problems=PROBLEMS,
        settings=["zero-shot"],
        runs=2,
        samples=[
            sample(PROBLEMS[0], "zero-shot", 0, "correct"),
            sample(PROBLEMS[1], "zero-shot", 0, outcome),
            sample(PROBLEMS[0], "zero-shot", 1, outcome),
        ],
        **kwargs,
    )


def report(*args: str) -> Any:
    return runner.invoke(app, ["report", *args, "--bootstrap", "0", "--no-drawings"])


def snapshot(directory: Path) -> dict[str, bytes]:
    """Every file under ``directory`` (hidden ones too) by relative path."""
    return {
        str(p.relative_to(directory)): p.read_bytes() for p in directory.rglob("*") if p.is_file()
    }


# ---------------------------------------------------------------------------------------------
# Full disk
# ---------------------------------------------------------------------------------------------
@contextmanager
def disk_full_after(monkeypatch: pytest.MonkeyPatch, root: Path, budget: int) -> Iterator[None]:
    """Files opened for writing under ``root`` accept ``budget`` bytes in all, then write what
    fits and raise ENOSPC, as a full disk does."""
    real_open = io.open
    left = [budget]

    class FullDisk:
        def __init__(self, fh: Any) -> None:
            self._fh = fh

        def write(self, data: Any) -> int:
            if len(data) > left[0]:
                self._fh.write(data[: left[0]])
                left[0] = 0
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            left[0] -= len(data)
            return self._fh.write(data)

        def __getattr__(self, name: str) -> Any:
            return getattr(self._fh, name)

        def __enter__(self) -> FullDisk:
            return self

        def __exit__(self, *exc: object) -> None:
            self._fh.close()

    def fake_open(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        fh = real_open(file, mode, *args, **kwargs)
        writing = any(c in mode for c in "wax+")
        if writing and isinstance(file, (str, os.PathLike)):
            if Path(file).resolve().is_relative_to(root.resolve()):
                return FullDisk(fh)
        return fh

    monkeypatch.setattr(builtins, "open", fake_open)
    monkeypatch.setattr(io, "open", fake_open)
    yield
    monkeypatch.undo()


@pytest.mark.parametrize("share", [0.0, 0.05, 0.5, 0.97])
def test_report_on_a_full_disk_keeps_the_old_report_whole(
    tmp_path, run_dir_factory, sample, monkeypatch, share
):
    old_run = two_problem_run(run_dir_factory, sample, "wrong")
    new_run = two_problem_run(run_dir_factory, sample, "parse-failure", model_label="other")
    out = tmp_path / "out"
    assert report(str(old_run), "--out", str(out)).exit_code == 0
    old = snapshot(out)
    budget = int(share * sum(len(data) for data in old.values()))
    with disk_full_after(monkeypatch, out, budget):
        result = report(str(old_run), str(new_run), "--out", str(out))
    assert result.exit_code == 2, result.output
    assert result.output.startswith("error: cannot write the report") and "No space left" in (
        result.output
    )
    assert result.output.count("\n") == 1 and "Traceback" not in result.output
    assert snapshot(out) == old  # nothing new, nothing truncated, no temporary file left
    assert report(str(old_run), str(new_run), "--out", str(out)).exit_code == 0
    assert b"other" in (out / "table1.csv").read_bytes()


# ---------------------------------------------------------------------------------------------
# Many problems outside the catalog, many settings
# ---------------------------------------------------------------------------------------------
def outside_record(problem_id: str, setting: str, run: int) -> dict[str, Any]:
    return {
        "problem_id": problem_id,
        "setting": setting,
        "run": run,
        "correct": False,
        "parse_error": "no answer found",
        "usage": {"total_tokens": 100},
    }


def test_report_never_computes_spelling_suggestions(tmp_path, run_dir_factory, monkeypatch):
    """Suggestions for unknown ids belong to error messages; a report over problems outside the
    catalog looks every id up many times and must not compute them (87 of 92 s before)."""
    import difflib

    def forbidden(*args: Any, **kwargs: Any) -> list[str]:
        raise AssertionError("difflib.get_close_matches called while reporting")

    monkeypatch.setattr(difflib, "get_close_matches", forbidden)
    problems = [f"q{i}_k4_red_determiner" for i in range(30)] + [PROBLEMS[0]]
    path = run_dir_factory(
        problems=problems,
        settings=["zero-shot"],
        runs=1,
        samples=[outside_record(p, "zero-shot", 0) for p in problems],
    )
    result = report(str(path), "--out", str(tmp_path / "out"), "--json")
    assert result.exit_code == 0, result.output
    (row,) = json.loads(result.output)["table1"]
    assert row["problems"] == 31 and row["n_parse_failure"] == 31


def test_figures_show_at_most_six_settings_and_say_so(tmp_path, run_dir_factory):
    settings = [f"variant-{i:02d}" for i in range(9)]
    path = run_dir_factory(
        problems=PROBLEMS,
        settings=settings,
        runs=1,
        samples=[outside_record(p, s, 0) for s in settings for p in PROBLEMS],
    )
    out = tmp_path / "out"
    assert report(str(path), "--out", str(out), "--no-html").exit_code == 0
    for name in ("accuracy_vs_size", "accuracy_by_tier", "outcomes"):
        svg = (out / "figures" / f"{name}.svg").read_text()
        drawn = [s for s in settings if s in svg]
        assert drawn == settings[:6], name
    assert "3 more are in the tables only" in (out / "report.md").read_text()
    rows = list(csv.DictReader((out / "table1.csv").open()))
    assert [r["setting"] for r in rows] == settings


# ---------------------------------------------------------------------------------------------
# Hostile names
# ---------------------------------------------------------------------------------------------
HOSTILE_LABEL = '=HYPERLINK("http://x")[/bold]\x1b[2J\x1b]0;owned\x07<script>alert(1)</script>|'


def test_hostile_names_are_neutralised_in_every_output(tmp_path, run_dir_factory, sample):
    problem, setting = "@SUM(1+1)_k4_red_determiner", "+cmd|' /C calc'!A0"
    path = run_dir_factory(
        problems=[PROBLEMS[0], problem],
        settings=["zero-shot", setting],
        runs=1,
        samples=[
            sample(PROBLEMS[0], "zero-shot", 0, "correct"),
            outside_record(problem, "zero-shot", 0),
            outside_record(problem, setting, 0),
        ],
        model_label=HOSTILE_LABEL,
    )
    out = tmp_path / "out"
    result = report(str(path), "--out", str(out))
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.output and "\x07" not in result.output
    assert "HYPERLINK" in result.output and "/bold]" in result.output  # markup not parsed
    for csv_file in out.glob("*.csv"):
        for row in csv.reader(csv_file.open()):
            assert not any(cell.startswith(("=", "+", "-", "@")) for cell in row), (csv_file, row)
    table1 = list(csv.DictReader((out / "table1.csv").open()))
    assert table1[0]["model"] == "'" + HOSTILE_LABEL
    for md_file in out.glob("*.md"):
        text = md_file.read_text()
        assert "<script>" not in text and "\x1b" not in text, md_file
    assert "&lt;script&gt;alert(1)&lt;/script&gt;\\|" in (out / "table1.md").read_text()
    assert "<script>alert" not in (out / "report.html").read_text()


# ---------------------------------------------------------------------------------------------
# Empty and failed runs
# ---------------------------------------------------------------------------------------------
def test_runs_without_samples_are_left_out_with_a_warning(tmp_path, run_dir_factory, sample):
    good = two_problem_run(run_dir_factory, sample)
    empty = run_dir_factory(
        problems=PROBLEMS, settings=["zero-shot"], runs=1, samples=[], model_label="never-ran"
    )
    out = tmp_path / "out"
    result = report(str(good), str(empty), "--out", str(out), "--no-html")
    assert result.exit_code == 0, result.output
    assert f"warning: {empty}: no samples recorded; left out of the report" in result.output
    assert "never-ran" not in (out / "table1.csv").read_text()
    alone = report(str(empty), "--out", str(tmp_path / "out2"))
    assert alone.exit_code == 2 and alone.output.startswith("error: nothing to report")


def test_runs_of_mostly_backend_errors_or_truncations_are_flagged(
    tmp_path, run_dir_factory, sample
):
    failed = run_dir_factory(
        problems=PROBLEMS,
        settings=["zero-shot"],
        runs=2,
        samples=[
            sample(PROBLEMS[0], "zero-shot", 0, "error"),
            sample(PROBLEMS[1], "zero-shot", 0, "error"),
            sample(PROBLEMS[0], "zero-shot", 1, "truncated"),
            sample(PROBLEMS[1], "zero-shot", 1, "correct"),
        ],
    )
    fine = two_problem_run(run_dir_factory, sample)
    result = report(str(failed), str(fine), "--out", str(tmp_path / "out"), "--no-html")
    assert result.exit_code == 0, result.output
    flagged = [line for line in result.output.splitlines() if "backend errors" in line]
    assert len(flagged) == 1 and str(failed) in flagged[0]
    assert "2 of 4 samples are backend errors and 1 truncated" in flagged[0]


# ---------------------------------------------------------------------------------------------
# 80 columns
# ---------------------------------------------------------------------------------------------
def test_console_table_fits_80_columns(tmp_path, run_dir_factory, sample):
    settings = ["zero-shot", "structural-hint", "size-hint", "multiround"]
    path = run_dir_factory(
        problems=PROBLEMS,
        settings=settings,
        runs=2,
        samples=[
            sample(p, s, r, "correct" if (i + r) % 2 else "wrong", tokens=123_456)
            for s in settings
            for i, p in enumerate(PROBLEMS)
            for r in range(2)
        ],
        model_label="openai/Qwen/Qwen3-235B-A22B-Instruct-2507-FP8",
    )
    env = {**os.environ, "COLUMNS": "80", "PYTHONPATH": os.pathsep.join(sys.path)}
    args = [sys.executable, "-c", "from ramseygadgets.cli import main; main()", "report", str(path)]
    args += ["--out", str(tmp_path / "out"), "--no-html", "--bootstrap", "0"]
    result = subprocess.run(args, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    lines = [line for line in result.stdout.splitlines() if not line.startswith("wrote ")]
    assert lines and max(len(line) for line in lines) <= 80, result.stdout  # the table
    assert "…" not in result.stdout  # no header or number cut short
    rows = [line for line in lines[1:] if "± " in line]  # below the title
    assert len(rows) == len(settings)  # one line per row: no number wrapped onto a second line
    for line in rows:
        assert "50.00 ± 0.00" in line and "100.00" in line and "123,456" in line


def test_accuracy_vs_tokens_leaves_out_cells_without_token_counts(
    tmp_path, run_dir_factory, sample
):
    solver = run_dir_factory(  # the reference solver records 0 tokens: no token data
        problems=PROBLEMS,
        settings=["zero-shot"],
        runs=1,
        samples=[sample(p, "zero-shot", 0, "correct", tokens=0) for p in PROBLEMS],
        model_label="solver",
    )
    model = two_problem_run(run_dir_factory, sample, model_label="a-model")
    out = tmp_path / "out"
    assert report(str(solver), str(model), "--out", str(out), "--no-html").exit_code == 0
    svg = (out / "figures" / "accuracy_vs_tokens.svg").read_text()
    assert "a-model" in svg and "solver" not in svg
    assert (
        "Left out, no token counts recorded: solver · zero-shot." in (out / "report.md").read_text()
    )
    (solver_row,) = [
        r for r in csv.DictReader((out / "table1.csv").open()) if r["model"] == "solver"
    ]
    assert solver_row["avg_total_tokens"] == ""
