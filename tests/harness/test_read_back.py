"""Everything read back from disk is checked (issue 12, items 2, 3, 11, 12): samples.jsonl,
config.json, replay files and --dataset files refuse a bad field with one line naming the file,
the line and the field; deep nesting and huge numbers never become tracebacks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ramseygadgets.cli import app
from ramseygadgets.harness.backends import replay as replay_module
from ramseygadgets.verification.selection import ProblemSetError, load_selection

PROBLEM = "p3_k3_red_determiner"
DEEP = "[" * 100_000 + "]" * 100_000


def run_eval(*args: str):
    return CliRunner().invoke(app, ["eval", "--no-progress", *args])


def one_error_line(result, *fragments: str) -> None:
    assert result.exit_code == 2, result.output
    assert result.output.startswith("error: ") and result.output.count("\n") == 1, result.output
    for fragment in fragments:
        assert fragment in result.output, result.output


def skipped_with_warning(result, *fragments: str) -> None:
    """The report is written; the unusable line is named (``file:line``) and left out."""
    assert result.exit_code == 0, result.output
    warnings = [line for line in result.output.splitlines() if line.startswith("warning: ")]
    assert len(warnings) == 1 and "line skipped" in warnings[0], result.output
    for fragment in fragments:
        assert fragment in warnings[0], result.output


@pytest.fixture
def solver_run(tmp_path) -> Path:
    """A finished two-run solver run directory on one problem."""
    out = tmp_path / "run"
    result = run_eval(
        "--problems", PROBLEM, "--runs", "2", "--setting", "zero-shot", "--out", str(out)
    )
    assert result.exit_code == 0, result.output
    return out


def replace_field(path: Path, line: int, field: str, raw: str) -> None:
    """Set ``field`` of JSON line ``line`` (1-based) to the raw JSON text ``raw``."""
    lines = path.read_text().splitlines()
    record = json.loads(lines[line - 1])
    record[field] = "@@"
    lines[line - 1] = json.dumps(record).replace('"@@"', raw)
    path.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("raw", ["100000000", "1e20", "Infinity", "1e400", "-1", "[1]", "1.0"])
def test_a_bad_run_index_in_samples_jsonl_is_refused_on_resume_and_skipped_by_report(
    solver_run, raw
):
    replace_field(solver_run / "samples.jsonl", 2, "run", raw)
    again = run_eval(
        "--problems", PROBLEM, "--runs", "2", "--setting", "zero-shot", "--out", str(solver_run)
    )
    one_error_line(again, f"{solver_run / 'samples.jsonl'} line 2", "field 'run'")
    report = CliRunner().invoke(
        app, ["report", str(solver_run), "--out", str(solver_run.parent / "rep")]
    )
    skipped_with_warning(report, "samples.jsonl:2: ", "field 'run'")


@pytest.mark.parametrize("raw", ["1000000000", "1e20", "Infinity", "0", '"5"'])
def test_a_bad_runs_count_in_config_json_is_refused(solver_run, raw):
    config = json.loads((solver_run / "config.json").read_text())
    config["runs"] = "@@"
    (solver_run / "config.json").write_text(json.dumps(config).replace('"@@"', raw))
    again = run_eval(
        "--problems", PROBLEM, "--runs", "2", "--setting", "zero-shot", "--out", str(solver_run)
    )
    one_error_line(again, "config.json", "field 'runs'")
    report = CliRunner().invoke(
        app, ["report", str(solver_run), "--out", str(solver_run.parent / "rep")]
    )
    one_error_line(report, "config.json", "field 'runs'")


def test_usage_infinity_is_read_as_missing_by_the_report(solver_run):
    """A hostile number is one warning naming file:line and the field; the sample is kept
    without that value (issue 45: ``ramseygadgets.infra.numbers``)."""
    replace_field(solver_run / "samples.jsonl", 1, "usage", '{"total_tokens": Infinity}')
    report = CliRunner().invoke(
        app, ["report", str(solver_run), "--out", str(solver_run.parent / "rep")]
    )
    assert report.exit_code == 0, report.output
    warnings = [line for line in report.output.splitlines() if line.startswith("warning: ")]
    assert len(warnings) == 1, report.output
    assert "samples.jsonl:1: field 'usage.total_tokens'" in warnings[0]
    assert warnings[0].endswith("read as missing")


@pytest.mark.parametrize("name", ["config.json", "samples.jsonl"])
def test_deeply_nested_json_in_a_run_directory_is_one_line(solver_run, name):
    path = solver_run / name
    if name == "config.json":
        path.write_text('{"runs": 2, "x": ' + DEEP + "}")
    else:
        path.write_text(path.read_text() + '{"problem_id": "a", "x": ' + DEEP + "}\n")
    again = run_eval(
        "--problems", PROBLEM, "--runs", "2", "--setting", "zero-shot", "--out", str(solver_run)
    )
    one_error_line(again, name, "nested too deeply")
    report = CliRunner().invoke(
        app, ["report", str(solver_run), "--out", str(solver_run.parent / "rep")]
    )
    if name == "config.json":
        one_error_line(report, name, "nested too deeply")
    else:  # a line of the samples is left out, the others reported
        skipped_with_warning(report, "samples.jsonl:3: ", "nested too deeply")


def write_replay(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "replay.jsonl"
    path.write_text("".join(line + "\n" for line in lines))
    return path


GOOD = json.dumps({"problem_id": PROBLEM, "setting": "zero-shot", "run": 0, "response": "x"})


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        ('"run": -1', "'run'"),
        ('"run": 100000000', "'run'"),
        ('"run": 1e20', "'run'"),
        ('"run": Infinity', "'run'"),
        ('"run": 1e400', "'run'"),
        ('"run": [1]', "'run'"),
        ('"run": 0, "retries": Infinity', "'retries'"),
        ('"run": 0, "usage": {"prompt_tokens": 1e400}', "'prompt_tokens'"),
        ('"run": 0, "latency_s": NaN', "'latency_s'"),
        ('"run": 0, "response": ' + DEEP, "nested too deeply"),
    ],
)
def test_a_bad_replay_line_names_file_line_and_field(tmp_path, raw, field):
    path = write_replay(
        tmp_path, GOOD, f'{{"problem_id": "{PROBLEM}", "setting": "zero-shot", {raw}}}'
    )
    result = run_eval("--model", f"replay:{path}", "--out", str(tmp_path / "run"))
    one_error_line(result, f"replay file {path} line 2", field)
    assert "--runs" not in result.output


def test_replay_and_dataset_files_have_a_size_cap(tmp_path, monkeypatch):
    path = write_replay(tmp_path, GOOD, GOOD)
    monkeypatch.setattr(replay_module, "MAX_REPLAY_BYTES", 64)
    result = run_eval("--model", f"replay:{path}", "--out", str(tmp_path / "run"))
    one_error_line(result, f"replay file {path} is larger than")
    dataset = tmp_path / "set.jsonl"
    dataset.write_text(json.dumps({"F": "P3", "H": "K3", "gadget": "red-determiner"}) + "\n")
    monkeypatch.setattr("ramseygadgets.verification.selection.MAX_PROBLEM_FILE_BYTES", 16)
    with pytest.raises(ProblemSetError, match="larger than"):
        load_selection(dataset)


@pytest.mark.parametrize("text", [DEEP, '{"F": ' + DEEP + "}\n", "\n" + '{"F": ' + DEEP + "}\n"])
def test_deeply_nested_dataset_is_one_line(tmp_path, text):
    dataset = tmp_path / "set.jsonl"
    dataset.write_text(text)
    result = run_eval("--dataset", str(dataset), "--out", str(tmp_path / "run"))
    one_error_line(result, str(dataset), "nested too deeply")


def test_deeply_nested_extra_body_and_engine_arg_are_one_line(tmp_path):
    deep = "[" * 10_000 + "]" * 10_000
    result = run_eval("--extra-body", '{"a": ' + deep + "}", "--out", str(tmp_path / "a"))
    one_error_line(result, "--extra-body", "nested too deeply")
    result = run_eval("--engine-arg", "x=" + deep, "--out", str(tmp_path / "b"))
    one_error_line(result, "--engine-arg x", "nested too deeply")


@pytest.mark.parametrize("suffix", [".toml", ".yaml"])
def test_deeply_nested_profiles_file_is_one_line(tmp_path, suffix):
    path = tmp_path / f"profiles{suffix}"
    deep = "[" * 10_000 + "]" * 10_000
    path.write_text(
        f"[profiles.x]\nextra = {deep}\n"
        if suffix == ".toml"
        else f"profiles:\n  x:\n    extra: {deep}\n"
    )
    result = run_eval("--profiles-file", str(path), "--out", str(tmp_path / "run"))
    one_error_line(result, str(path), "nested too deeply")
