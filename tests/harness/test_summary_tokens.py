"""Token counts: unknown (not reported: the reference solver, a server without ``usage``) is
``None`` from the backend to the record (``null``), the summaries, the report and the progress
line ("—"); a measured 0 stays 0.  Run folders written before unknown was recorded as null (their
``config.json`` lacks ``usage_null_when_unknown``) recorded it as 0: there a total of 0 reads as
unknown."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from openai_mock import Reply
from typer.testing import CliRunner

from ramseygadgets.cli import app
from ramseygadgets.harness.progress import EvalStats
from ramseygadgets.harness.runner import EvalOptions, run_eval
from ramseygadgets.harness.summary import ACCURACY_COLUMNS, summarize
from ramseygadgets.runs import Usage, read_run_dir
from ramseygadgets.runs.samples import USAGE_NULLS

PROBLEM = "k13_k4_red_determiner"
ZEROS = {"prompt_tokens": 0, "completion_tokens": 0, "reasoning_tokens": None, "total_tokens": 0}
NULLS = dict.fromkeys(ZEROS)


def record(run: int, usage: dict[str, Any] | None) -> dict[str, Any]:
    row: dict[str, Any] = {
        "problem_id": PROBLEM,
        "setting": "zero-shot",
        "run": run,
        "correct": True,
        "finish_reason": "stop",
        "error": None,
    }
    if usage is not None:
        row["usage"] = usage
    return row


def tokens_cell(records: list[dict[str, Any]], *, nulls: bool = True) -> str:
    config = {"runs": 2, "problems": [PROBLEM], "settings": ["zero-shot"]}
    if nulls:
        config[USAGE_NULLS] = True
    (row,) = summarize(records, config)
    cell = dict(ACCURACY_COLUMNS)["tokens"]
    return cell(row)


# -- the usage type ----------------------------------------------------------------------------
def test_null_or_missing_counts_are_unknown_and_zero_is_zero() -> None:
    assert Usage.from_json(None) == Usage() == Usage.from_json({}) == Usage.from_json(NULLS)
    assert Usage.from_json({"total_tokens": True}).total_tokens is None
    assert Usage.from_json(ZEROS) == Usage(0, 0, None, 0)
    assert Usage.from_json({"prompt_tokens": 0, "completion_tokens": 0}).total_tokens == 0
    assert Usage.from_json(ZEROS, zeros_unknown=True) == Usage()  # a run of before
    assert Usage.from_json({"total_tokens": 7}, zeros_unknown=True).total_tokens == 7
    assert Usage().to_json() == NULLS


def test_counts_of_several_calls_are_unknown_when_one_call_has_none() -> None:
    assert Usage(10, 5, None, 15).plus(Usage(1, 1, None, 2)) == Usage(11, 6, None, 17)
    assert Usage(10, 5, 2, 15).plus(Usage()) == Usage()


# -- the end-of-eval summary and the progress line ---------------------------------------------
def test_unknown_counts_are_a_dash_and_a_measured_zero_is_zero() -> None:
    assert tokens_cell([record(0, NULLS), record(1, None)]) == "—"
    assert tokens_cell([record(0, ZEROS), record(1, ZEROS)]) == "0"
    assert tokens_cell([record(0, ZEROS), record(1, NULLS)]) == "0"  # the one measured


def test_a_run_of_before_reads_its_zeros_as_unknown() -> None:
    assert tokens_cell([record(0, ZEROS), record(1, ZEROS)], nulls=False) == "—"
    assert tokens_cell([record(0, None), record(1, None)], nulls=False) == "—"


def test_recorded_token_counts_are_averaged() -> None:
    assert (
        tokens_cell([record(0, {"total_tokens": 100}), record(1, {"total_tokens": 300})]) == "200"
    )
    assert tokens_cell([record(0, {"total_tokens": 100}), record(1, None)]) == "100"


def test_the_progress_line_shows_a_dash_until_a_count_is_reported() -> None:
    stats = EvalStats(total=3)
    stats.add(record(0, NULLS))
    assert "tokens —" in stats.line()
    stats.add(record(1, ZEROS))
    assert "tokens 0" in stats.line()
    stats.add(record(2, {"total_tokens": 1234}))
    assert "tokens 1,234" in stats.line()


# -- end to end: backend, record, summary, report ----------------------------------------------
@pytest.mark.parametrize(
    "reply, usage, shown",
    [
        (Reply(prompt_tokens=0, completion_tokens=0), ZEROS, "0"),
        (Reply(usage=False), NULLS, "—"),
        (
            Reply(prompt_tokens=40, completion_tokens=2),
            {**ZEROS, "prompt_tokens": 40, "completion_tokens": 2, "total_tokens": 42},
            "42",
        ),
    ],
    ids=["measured zero", "not reported", "counted"],
)
def test_counts_from_the_server_to_the_report(mock_server, tmp_path, reply, usage, shown) -> None:
    server = mock_server(lambda info: reply)
    out = tmp_path / "run"
    args = ["eval", "--no-progress", "--json", "--model", "openai/mock-model"]
    args += ["--base-url", server.base_url, "--problems", PROBLEM, "--setting", "zero-shot"]
    args += ["--runs", "1"]
    result = CliRunner().invoke(app, [*args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    (line,) = (out / "samples.jsonl").read_text().splitlines()
    assert json.loads(line)["usage"] == usage
    assert json.loads((out / "config.json").read_text())[USAGE_NULLS] is True
    (setting,) = json.loads(result.stdout)["settings"]
    assert setting["avg_tokens"] == (None if shown == "—" else float(shown))
    (run,) = read_run_dir(out)
    assert run.samples[0].usage == Usage.from_json(usage)
    results = json.loads((out / "results.json").read_text())["settings"][0]
    assert results["avg_tokens"] == setting["avg_tokens"]
    assert results["token_samples"] == (0 if shown == "—" else 1)

    report = CliRunner().invoke(
        app, ["report", str(out), "--out", str(tmp_path / "rep"), "--no-html", "--bootstrap", "0"]
    )
    assert report.exit_code == 0, report.output
    table = next(line for line in report.stdout.splitlines() if "zero-shot" in line)
    assert table.split()[-2] == shown  # the tokens column, before "missing"
    with open(tmp_path / "rep" / "table1.csv") as fh:
        (row,) = csv.DictReader(fh)
    assert row["avg_total_tokens"] == ("" if shown == "—" else str(float(shown)))
    assert f"| {shown} |" in Path(tmp_path / "rep" / "table1.md").read_text()


def test_a_replayed_run_keeps_what_its_counts_meant(tmp_path) -> None:
    """Replaying a run folder of before (zeros meant unknown) records null; the same folder
    marked as recording null for unknown keeps its zeros as measured."""
    old = Path(__file__).parent / "data" / "old_runs" / "solver"
    marked = tmp_path / "marked"
    shutil.copytree(old, marked)
    config = json.loads((marked / "config.json").read_text())
    (marked / "config.json").write_text(json.dumps({**config, USAGE_NULLS: True}))
    for source, usage in ((old, NULLS), (marked, ZEROS)):
        out = tmp_path / f"replay-{source.name}"
        run_eval(EvalOptions(out=out, model=f"replay:{source}", progress=False))
        lines = (out / "samples.jsonl").read_text().splitlines()
        assert lines and all(json.loads(x)["usage"] == usage for x in lines), source
