"""Run-directory safety (issue 12, items 1, 4, 5, 9, 13): odd replies, full disks, big batches,
SIGTERM, planted symlinks and failed pre-flights never lose a sample nor leave debris."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from openai_mock import Reply, answer_script
from test_resume import TOTAL, by_key, eval_args, start_subprocess, wait_for_lines
from typer.testing import CliRunner

from ramseygadgets.cli import app
from ramseygadgets.runs.folder import RunLog, RunLogError

PROBLEM = "p3_k3_red_determiner"
HALF_EMOJI = "\ud83d"
SURROGATES_FLAG = "replaced_surrogates"  # runs.records.SURROGATES_FLAG


def run_eval(*args: str):
    return CliRunner().invoke(app, ["eval", "--no-progress", *args])


def lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def rec(pid: str, run: int = 0, **extra) -> dict:
    return {"problem_id": pid, "setting": "zero-shot", "run": run, "correct": False, **extra}


# -- item 1: lone surrogates ----------------------------------------------------------------
def test_a_lone_surrogate_is_replaced_and_flagged_and_the_batch_is_kept(tmp_path):
    with RunLog(tmp_path / "r") as log:
        log.append_many([rec("a"), rec("b", response=f"half {HALF_EMOJI} emoji"), rec("c")])
        assert log.records[next(k for k in log.records if k.problem_id == "b")][SURROGATES_FLAG]
    recorded = lines(tmp_path / "r" / "samples.jsonl")
    assert [r["problem_id"] for r in recorded] == ["a", "b", "c"]
    assert recorded[1]["response"] == "half \ufffd emoji" and recorded[1][SURROGATES_FLAG] is True
    assert SURROGATES_FLAG not in recorded[0]


def test_a_server_reply_with_a_lone_surrogate_is_recorded(mock_server, tmp_path):
    server = mock_server(lambda info: Reply(f"no answer {HALF_EMOJI}"))
    out = tmp_path / "run"
    result = run_eval(
        "--model", "openai/mock-model", "--base-url", server.base_url, "--problems", PROBLEM,
        "--runs", "3", "--setting", "zero-shot,size-hint", "--out", str(out),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    recorded = lines(out / "samples.jsonl")
    assert len(recorded) == 6
    assert all(r["response"] == "no answer \ufffd" and r[SURROGATES_FLAG] for r in recorded)


def test_a_replay_file_with_a_lone_surrogate_is_recorded(tmp_path):
    replay = tmp_path / "replay.jsonl"
    replay.write_text(
        "".join(
            json.dumps(
                {
                    "problem_id": PROBLEM,
                    "setting": "zero-shot",
                    "run": r,
                    "response": f"x{HALF_EMOJI}",
                }
            )
            + "\n"
            for r in range(3)
        )
    )
    out = tmp_path / "run"
    result = run_eval("--model", f"replay:{replay}", "--out", str(out))
    assert result.exit_code == 0, result.output
    assert len(lines(out / "samples.jsonl")) == 3


# -- item 4: disk full ------------------------------------------------------------------------
def no_space(*args, **kwargs):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_disk_full_at_the_lock_is_one_line_and_leaves_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(os, "pwrite", no_space)
    out = tmp_path / "run"
    result = run_eval("--problems", PROBLEM, "--out", str(out))
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert (
        result.output.startswith("error: cannot write the lock")
        and "No space left" in result.output
    )
    assert not out.exists()


def test_disk_full_at_the_config_write_is_one_line_and_leaves_no_temp_file(tmp_path, monkeypatch):
    monkeypatch.setattr(os, "fsync", no_space)
    out = tmp_path / "run"
    result = run_eval("--problems", PROBLEM, "--out", str(out))
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert "config.json" in result.output and "No space left" in result.output
    assert not out.exists() or list(out.iterdir()) == []


def test_disk_full_while_appending_keeps_the_log_whole(tmp_path, monkeypatch):
    d = tmp_path / "r"
    with RunLog(d) as log:
        log.append(rec("a"))
        real_fsync = os.fsync
        monkeypatch.setattr(os, "fsync", no_space)
        with pytest.raises(RunLogError, match="No space left"):
            log.append_many([rec("b"), rec("c")])
        monkeypatch.setattr(os, "fsync", real_fsync)
        log.append(rec("d"))
    assert [r["problem_id"] for r in lines(d / "samples.jsonl")] == ["a", "d"]


# -- item 5: linear batches and SIGTERM ---------------------------------------------------------
def test_a_batch_of_40k_records_appends_in_linear_time(tmp_path):
    code = (
        "import sys; from ramseygadgets.runs.folder import RunLog\n"
        "log = RunLog(sys.argv[1]).open()\n"
        "log.append_many([{'problem_id': f'p{i}', 'setting': 's', 'run': 0} for i in range(40000)])\n"
        "log.close()\n"
    )
    # Quadratic duplicate checks take minutes here; linear ones well under a second.
    subprocess.run([sys.executable, "-c", code, str(tmp_path / "r")], check=True, timeout=60)
    assert (tmp_path / "r" / "samples.jsonl").read_bytes().count(b"\n") == 40000


def test_duplicates_within_one_batch_are_still_refused(tmp_path):
    with RunLog(tmp_path / "r") as log, pytest.raises(RunLogError, match="already recorded"):
        log.append_many([rec("a"), rec("b"), rec("a")])


def test_sigterm_stops_like_ctrl_c_with_exit_143(mock_server, tmp_path):
    server = mock_server(answer_script(), latency=0.1)
    out = tmp_path / "run"
    proc = start_subprocess(eval_args(server, out))
    wait_for_lines(out / "samples.jsonl", 5, proc)
    proc.send_signal(signal.SIGTERM)
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 143, stderr
    assert "Traceback" not in stderr
    recorded = by_key(out)
    assert 5 <= len(recorded) < TOTAL
    assert f"interrupted: {len(recorded)}/{TOTAL} samples recorded in {out}; resume with:" in stderr


# -- item 9: symlinks ----------------------------------------------------------------------------
def test_a_symlinked_lock_is_not_followed(tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    target = tmp_path / "precious.txt"
    target.write_text("keep me")
    (out / ".lock").symlink_to(target)
    result = run_eval("--problems", PROBLEM, "--out", str(out))
    assert result.exit_code == 2 and result.output.startswith("error: cannot create the lock")
    assert target.read_text() == "keep me"


def test_a_symlinked_samples_file_is_not_followed(tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    target = tmp_path / "precious.txt"
    (out / "samples.jsonl").symlink_to(target)  # dangling: reading finds no samples
    result = run_eval("--problems", PROBLEM, "--out", str(out))
    assert result.exit_code == 2 and "samples.jsonl" in result.output
    assert not target.exists()


# -- item 13: a failed pre-flight leaves nothing --------------------------------------------------
def test_a_failed_preflight_leaves_nothing_and_other_options_then_run(mock_server, tmp_path):
    server = mock_server(answer_script())
    out = tmp_path / "runs" / "mock"
    args = ["--model", "openai/mock-model", "--problems", PROBLEM, "--out", str(out)]
    down = run_eval(*args, "--base-url", "http://127.0.0.1:9/v1")
    assert down.exit_code == 2 and "cannot reach the model server" in down.output
    unknown = run_eval(*args, "--base-url", server.base_url, "--model", "openai/no-such-model")
    assert unknown.exit_code == 2 and "is not served" in unknown.output
    assert not (tmp_path / "runs").exists()
    again = run_eval(*args, "--base-url", server.base_url, "--runs", "1", "--setting", "zero-shot")
    assert again.exit_code == 0, again.output
    assert len(lines(out / "samples.jsonl")) == 1


def test_a_directory_with_a_config_but_no_samples_takes_other_options(tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    (out / "config.json").write_text(
        json.dumps({"format_version": 1, "model": "openai/x", "runs": 5})
    )
    (out / "samples.jsonl").write_text("")  # what a failed pre-flight left before
    result = run_eval(
        "--problems", PROBLEM, "--runs", "1", "--setting", "zero-shot", "--out", str(out)
    )
    assert result.exit_code == 0, result.output
    assert json.loads((out / "config.json").read_text())["model"] == "solver"
