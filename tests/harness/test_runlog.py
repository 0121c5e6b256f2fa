"""The run log: durable appends, torn-line repair, locking, error archiving."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from ramseygadgets.harness.types import SampleKey
from ramseygadgets.runs.folder import ERRORS_FILE, RunLog, RunLogError, read_samples


def rec(pid: str, run: int = 0, **extra) -> dict:
    return {"problem_id": pid, "setting": "zero-shot", "run": run, "correct": False, **extra}


def test_append_and_reopen(tmp_path):
    with RunLog(tmp_path / "r") as log:
        log.append(rec("a"))
        log.append(rec("a", 1))
        assert SampleKey("a", "zero-shot", 1) in log
        with pytest.raises(RunLogError, match="already recorded"):
            log.append(rec("a", 1))
    with RunLog(tmp_path / "r") as log:
        assert len(log) == 2
    lines = (tmp_path / "r" / "samples.jsonl").read_text().splitlines()
    assert [json.loads(x)["run"] for x in lines] == [0, 1]


def test_torn_last_line_is_cut_off(tmp_path):
    d = tmp_path / "r"
    with RunLog(d) as log:
        log.append(rec("a"))
    path = d / "samples.jsonl"
    with open(path, "ab") as fh:
        fh.write(b'{"problem_id": "b", "setting": "zero-shot", "ru')  # killed mid-write
    records, torn = read_samples(path)
    assert [r["problem_id"] for r in records] == ["a"] and torn > 0
    with RunLog(d) as log:
        assert len(log) == 1 and log.torn_bytes > 0
        log.append(rec("c"))
    assert [json.loads(x)["problem_id"] for x in path.read_text().splitlines()] == ["a", "c"]


def test_complete_last_line_without_newline_is_kept(tmp_path):
    d = tmp_path / "r"
    d.mkdir()
    (d / "samples.jsonl").write_text(json.dumps(rec("a")) + "\n" + json.dumps(rec("b")))
    with RunLog(d) as log:
        assert len(log) == 2
        log.append(rec("c"))
    assert len((d / "samples.jsonl").read_text().splitlines()) == 3


def test_malformed_middle_line_is_a_clear_error(tmp_path):
    d = tmp_path / "r"
    d.mkdir()
    (d / "samples.jsonl").write_text(
        json.dumps(rec("a")) + "\nnot json\n" + json.dumps(rec("b")) + "\n"
    )
    with pytest.raises(RunLogError, match="line 2"):
        RunLog(d).open()


def test_second_writer_is_refused(tmp_path):
    d = tmp_path / "r"
    with RunLog(d):
        code = (
            "from ramseygadgets.runs.folder import RunLog, RunLogError\n"
            f"try:\n    RunLog({str(d)!r}).open()\nexcept RunLogError as e:\n    print(e)\n"
        )
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=60
        ).stdout
        assert f"in use by another eval (pid {os.getpid()})" in out


def test_forget_errors_archives_them(tmp_path):
    d = tmp_path / "r"
    with RunLog(d) as log:
        log.append(rec("a"))
        log.append(rec("b", error="HTTP 500: boom"))
        assert log.forget_errors() == 1
        assert SampleKey("b", "zero-shot", 0) not in log
        log.append(rec("b", correct=True))
    with RunLog(d) as log:
        assert {k.problem_id for k in log.records} == {"a", "b"}
        assert all(r.get("error") is None for r in log)
    archived = [json.loads(x) for x in (d / ERRORS_FILE).read_text().splitlines()]
    assert [r["error"] for r in archived] == ["HTTP 500: boom"]


def test_config_roundtrip_and_unwritable_dir(tmp_path):
    with RunLog(tmp_path / "r") as log:
        assert log.read_config() is None
        log.write_config({"model": "solver"})
        assert log.read_config() == {"model": "solver"}
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(RunLogError, match="cannot create run directory"):
        RunLog(blocker / "sub").open()
