"""``report`` on a run folder whose ``samples.jsonl`` has a line it cannot use (malformed JSON,
bytes that are not UTF-8, a field that fails its check, a truncated last line): the line is
skipped with a warning naming ``file:line`` and the report is written from the others, while
``eval`` still refuses to resume from such a log (it names the line)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ramseygadgets.cli import app
from ramseygadgets.runs import RunFolder, read_run_dir
from ramseygadgets.runs.folder import RunLogError

runner = CliRunner()
PROBLEMS = ["p3_k3_red_determiner", "p3_k4_red_determiner"]

BAD_LINES = {
    "malformed JSON": (b'{"problem_id": "p3_k3_red_determiner", "setting"\n', "malformed JSON"),
    "not UTF-8": (b'{"problem_id": "p3_k3_\xff\xfe"}\n', "not UTF-8"),
    "bad field": (
        b'{"problem_id": "p3_k3_red_determiner", "setting": "zero-shot", "run": -3}\n',
        "run",
    ),
    "not an object": (b"[1, 2, 3]\n", "not a JSON object"),
}


def run_folder(factory, sample) -> Path:
    return factory(
        problems=PROBLEMS,
        settings=["zero-shot"],
        runs=2,
        samples=[
            sample(PROBLEMS[0], "zero-shot", 0, "correct"),
            sample(PROBLEMS[1], "zero-shot", 0, "wrong"),
            sample(PROBLEMS[0], "zero-shot", 1, "correct"),
            sample(PROBLEMS[1], "zero-shot", 1, "correct"),
        ],
    )


def insert_line(path: Path, index: int, line: bytes) -> None:
    lines = path.read_bytes().splitlines(keepends=True)
    lines.insert(index, line)
    path.write_bytes(b"".join(lines))


def report(folder: Path, out: Path):
    args = ["report", str(folder), "--out", str(out), "--bootstrap", "0", "--no-drawings"]
    return runner.invoke(app, args)


@pytest.mark.parametrize("kind", list(BAD_LINES))
def test_a_corrupt_line_is_skipped_with_a_warning_naming_file_and_line(
    tmp_path, run_dir_factory, sample, kind
):
    folder = run_folder(run_dir_factory, sample)
    samples = folder / "samples.jsonl"
    line, problem = BAD_LINES[kind]
    insert_line(samples, 2, line)  # the third line of the file
    result = report(folder, tmp_path / "out")
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    warnings = [w for w in result.output.splitlines() if w.startswith("warning: ")]
    assert len(warnings) == 1 and f"{samples}:3: " in warnings[0], result.output
    assert problem in warnings[0] and "skipped" in warnings[0]
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["warnings"] == [warnings[0].removeprefix("warning: ")]
    (run,) = read_run_dir(folder)
    assert len(run.samples) == 4  # every good line is read, the bad one alone is left out
    assert f"{samples}:3:" in (tmp_path / "out" / "report.md").read_text()


def test_a_truncated_last_line_is_skipped_with_its_line_number(tmp_path, run_dir_factory, sample):
    folder = run_folder(run_dir_factory, sample)
    samples = folder / "samples.jsonl"
    samples.write_bytes(samples.read_bytes() + b'{"problem_id": "p3_k3_red_det')
    result = report(folder, tmp_path / "out")
    assert result.exit_code == 0, result.output
    assert f"warning: {samples}:5: unfinished last line (29 bytes) skipped" in result.output
    assert samples.read_bytes().endswith(b"red_det")  # a report never repairs what it reads


def test_several_bad_lines_each_get_a_warning(tmp_path, run_dir_factory, sample):
    folder = run_folder(run_dir_factory, sample)
    samples = folder / "samples.jsonl"
    insert_line(samples, 0, BAD_LINES["not UTF-8"][0])
    insert_line(samples, 3, BAD_LINES["malformed JSON"][0])
    result = report(folder, tmp_path / "out")
    assert result.exit_code == 0, result.output
    assert f"{samples}:1: not UTF-8" in result.output
    assert f"{samples}:4: not a sample record (malformed JSON)" in result.output


def test_eval_resume_still_refuses_a_corrupt_log(run_dir_factory, sample):
    folder = run_folder(run_dir_factory, sample)
    insert_line(folder / "samples.jsonl", 2, BAD_LINES["malformed JSON"][0])
    with pytest.raises(RunLogError, match="line 3"):
        RunFolder(folder).open()
