"""What a user of ``eval`` expects (issue 12, items 7, 8, 14, 20): secrets never stored or
printed, a default --out inside runs/, output that fits 80 columns, --version, --limit and a
results.json summary in every run directory."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from openai_mock import Fail, answer_script
from rich.console import Console
from typer.testing import CliRunner

from ramseygadgets import __version__
from ramseygadgets.cli import app
from ramseygadgets.cli.evaluation import resume_hint
from ramseygadgets.harness.runner import default_out
from ramseygadgets.harness.summary import SettingSummary, summary_tables

PROBLEM = "p3_k3_red_determiner"
SECRET = "sk-very-secret-key-1234"


def run_eval(*args: str):
    return CliRunner().invoke(app, ["eval", "--no-progress", *args])


# -- item 7: secrets -----------------------------------------------------------------------------
def test_an_echoed_api_key_is_redacted_from_samples_and_stderr(mock_server, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    server = mock_server(
        lambda info: Fail(400, f"bad request; headers: Authorization: Bearer {SECRET}")
    )
    out = tmp_path / "run"
    result = run_eval(
        "--model", "openai/mock-model", "--base-url", server.base_url, "--problems", PROBLEM,
        "--runs", "3", "--setting", "zero-shot", "--out", str(out),
    )  # fmt: skip
    assert SECRET not in result.output and "Bearer ***" in result.output
    stored = "".join(p.read_text() for p in out.iterdir() if p.is_file())
    assert SECRET not in stored and "Bearer ***" in stored


def test_url_credentials_are_redacted_in_errors_and_the_resume_hint(tmp_path, monkeypatch):
    result = run_eval(
        "--model",
        "openai/m",
        "--base-url",
        "ftp://user:hunter2@host/v1",
        "--out",
        str(tmp_path / "r"),
    )
    assert (
        result.exit_code == 2
        and "hunter2" not in result.output
        and "ftp://***@host" in result.output
    )
    argv = [
        "ramseygadgets",
        "eval",
        "--base-url",
        "http://user:hunter2@host:8000/v1",
        "--model",
        "openai/m",
    ]
    monkeypatch.setattr(sys, "argv", argv)
    hint = resume_hint(tmp_path)
    assert "hunter2" not in hint and "http://***@host:8000/v1" in hint


# -- item 8: the default --out stays inside runs/ ----------------------------------------------
def test_a_model_label_becomes_one_safe_path_component():
    for label in ("..", ".", "x/..", "../../etc", "a/b", "", "名前", ".hidden", "ok-Name_1.5+x"):
        path = default_out(label)
        assert path.parent == Path("runs") and len(path.parts) == 2, label
        assert (
            path.name not in ("", ".", "..")
            and "/" not in path.name
            and not path.name.startswith(".")
        )
    assert default_out("ok-Name_1.5+x") == Path("runs/ok-Name_1.5+x")


def test_a_model_named_dot_dot_writes_inside_runs(mock_server, tmp_path, monkeypatch):
    server = mock_server(answer_script(), models=("x/..",))
    monkeypatch.chdir(tmp_path)
    result = run_eval(
        "--model", "openai/x/..", "--base-url", server.base_url, "--problems", PROBLEM,
        "--runs", "1", "--setting", "zero-shot",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["runs"]
    (run_dir,) = (tmp_path / "runs").iterdir()
    assert (run_dir / "config.json").is_file() and (run_dir / "samples.jsonl").is_file()


# -- item 14: 80 columns ------------------------------------------------------------------------
def wide_rows() -> list[SettingSummary]:
    return [
        SettingSummary(s, 1750, 1750, 900, 0.5123, 0.0456, 0.9, 5, 123456.0, 120, 230, 17, 12345)
        for s in ("zero-shot", "structural-hint", "size-hint", "example-hint", "multiround")
    ]


def test_the_summary_fits_80_columns():
    console = Console(width=80, record=True)
    for table in summary_tables(wide_rows(), 80):
        console.print(table)
    text = console.export_text()
    assert all(len(line) <= 80 for line in text.splitlines())
    assert "…" not in text
    for header in (
        "samples",
        "accuracy %",
        "pass@5 %",
        "tokens",
        "wrong",
        "unparsed",
        "truncated",
        "errors",
        "retries",
    ):
        assert header in text
    assert "51.2 ± 4.6" in text and "12345" in text


def test_eval_output_and_help_fit_80_columns(tmp_path):
    env = {**os.environ, "COLUMNS": "80"}
    code = "import sys; from ramseygadgets.cli import main; sys.argv = ['ramseygadgets', *sys.argv[1:]]; main()"
    done = subprocess.run(
        [sys.executable, "-c", code, "eval", "--model", "random", "--no-progress", "--runs", "2", "--out", str(tmp_path / "r")],
        capture_output=True, text=True, env=env, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert all(len(line) <= 80 for line in done.stdout.splitlines()) and "…" not in done.stdout
    helped = subprocess.run(
        [sys.executable, "-c", code, "eval", "--help"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert "--repetition-penalty" in helped.stdout and "--max-concurrency" in helped.stdout
    assert all(len(line) <= 80 for line in helped.stdout.splitlines())


# -- item 20: --version, --limit, results.json -------------------------------------------------------
def test_version():
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0 and result.output == f"ramseygadgets {__version__}\n"


def test_limit_runs_the_first_n_problems(tmp_path):
    out = tmp_path / "run"
    result = run_eval("--tier", "hard", "--limit", "3", "--runs", "1", "--out", str(out))
    assert result.exit_code == 0, result.output
    config = json.loads((out / "config.json").read_text())
    everything = CliRunner().invoke(
        app,
        ["eval", "--no-progress", "--tier", "hard", "--runs", "1", "--out", str(tmp_path / "all")],
    )
    assert everything.exit_code == 0
    assert (
        config["problems"]
        == json.loads((tmp_path / "all" / "config.json").read_text())["problems"][:3]
    )
    assert run_eval("--limit", "0", "--out", str(tmp_path / "x")).output.startswith(
        "error: --limit must be at least 1"
    )


def test_results_json_is_written_at_the_end_and_on_resume(tmp_path):
    from ramseygadgets.report.metrics import build_cells, cell_stats
    from ramseygadgets.report.runs import load_runs

    out = tmp_path / "run"
    args = (
        "--model",
        "random",
        "--problems",
        f"{PROBLEM},k13_k3_clause_gadget",
        "--runs",
        "3",
        "--out",
        str(out),
    )
    assert run_eval(*args).exit_code == 0
    results = json.loads((out / "results.json").read_text())
    assert results["samples"] == (out / "samples.jsonl").read_text().count("\n")
    stats = {c.setting: cell_stats(c) for c in build_cells(load_runs([out]))}
    for row in results["settings"]:
        s = stats[row["setting"]]
        assert row["accuracy"] == s.mean and row["accuracy_sd"] == s.std
        assert row["pass_at_k"] == s.pass_at_runs and row["k"] == 3
        assert row["avg_tokens"] == s.avg_tokens and row["outcomes"] == s.outcomes
    (out / "results.json").unlink()
    again = run_eval(*args)
    assert again.exit_code == 0 and "already recorded, ran 0" in again.output
    assert json.loads((out / "results.json").read_text()) == results
