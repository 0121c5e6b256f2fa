"""Kill safety: SIGKILL mid-run then resume gives each sample once with the uninterrupted verdicts;
Ctrl-C stops cleanly with exit 130 and a resume hint."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

from openai_mock import answer_script
from typer.testing import CliRunner

from ramseygadgets.cli import app
from ramseygadgets.prompts import settings_for
from ramseygadgets.runs.folder import read_samples

PROBLEMS = "p3_k3_red_determiner,k13_c4_negative_sender,k13_k3_clause_gadget"
TOTAL = (
    sum(len(settings_for(p)) for p in PROBLEMS.split(",")) * 3
)  # example-hint only where it applies
VERDICT_FIELDS = (
    "correct",
    "parse_error",
    "reason",
    "candidate",
    "finish_reason",
    "rounds",
    "tool_calls",
    "witness",
)


def eval_args(server, out: Path) -> list[str]:
    return [
        "eval",
        "--no-progress",
        "--model",
        "openai/mock-model",
        "--base-url",
        server.base_url,
        "--problems",
        PROBLEMS,
        "--runs",
        "3",
        "--max-concurrency",
        "3",
        "--out",
        str(out),
    ]


def start_subprocess(args: list[str]) -> subprocess.Popen:
    code = "import sys; from ramseygadgets.cli import main; sys.argv = ['ramseygadgets', *sys.argv[1:]]; main()"
    return subprocess.Popen(
        [sys.executable, "-c", code, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for_lines(path: Path, count: int, proc: subprocess.Popen, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and path.read_bytes().count(b"\n") >= count:
            return
        if proc.poll() is not None:
            raise AssertionError(f"eval ended early: {proc.communicate()}")
        time.sleep(0.01)
    raise AssertionError(f"{path} never reached {count} lines")


def by_key(out: Path) -> dict[tuple[str, str, int], dict]:
    records, torn = read_samples(out / "samples.jsonl")
    assert torn == 0
    keyed = {(r["problem_id"], r["setting"], r["run"]): r for r in records}
    assert len(keyed) == len(records), "a sample was recorded twice"
    return keyed


def test_sigkill_mid_run_then_resume_matches_an_uninterrupted_run(mock_server, tmp_path):
    server = mock_server(answer_script(), latency=0.1)
    reference = tmp_path / "reference"
    assert CliRunner().invoke(app, eval_args(server, reference)).exit_code == 0
    expected = by_key(reference)
    assert len(expected) == TOTAL

    out = tmp_path / "killed"
    proc = start_subprocess(eval_args(server, out))
    wait_for_lines(out / "samples.jsonl", 8, proc)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    survived = read_samples(out / "samples.jsonl")[0]
    assert 8 <= len(survived) < TOTAL
    with open(out / "samples.jsonl", "ab") as fh:  # as if the kill had torn a line mid-write
        fh.write(
            b'{"problem_id": "k13_k3_clause_gadget", "setting": "multiround", "run": 2, "messa'
        )

    result = CliRunner().invoke(app, eval_args(server, out))
    assert result.exit_code == 0, result.output
    assert (
        f"resumed: {len(survived)} samples were already recorded, ran {TOTAL - len(survived)}"
        in result.output
    )
    final = by_key(out)
    assert final.keys() == expected.keys()
    for key, record in final.items():
        assert {f: record[f] for f in VERDICT_FIELDS} == {
            f: expected[key][f] for f in VERDICT_FIELDS
        }, key
    for record in survived:  # what was recorded before the kill is kept as it was
        assert final[(record["problem_id"], record["setting"], record["run"])] == record


def test_ctrl_c_stops_cleanly_and_says_how_to_resume(mock_server, tmp_path):
    server = mock_server(answer_script(), latency=0.1)
    out = tmp_path / "run"
    args = eval_args(server, out)
    proc = start_subprocess(args)
    wait_for_lines(out / "samples.jsonl", 5, proc)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr
    recorded = by_key(out)
    assert 5 <= len(recorded) < TOTAL
    assert (
        f"interrupted: {len(recorded)}/{TOTAL} samples recorded in {out}; resume with: ramseygadgets eval"
        in stderr
    )
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert len(by_key(out)) == TOTAL
