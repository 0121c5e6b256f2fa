"""The checkpoint log: durable appends, torn last lines, corrupt lines named, symlinks refused."""

from __future__ import annotations

import json
import os
import warnings

import pytest

from ramseygadgets.infra.checkpoint import (
    CheckpointError,
    CheckpointLog,
    CheckpointWarning,
    ascii_json_line,
)


def test_append_read_and_reopen(tmp_path):
    path = tmp_path / "log.jsonl"
    with CheckpointLog(path) as log:
        assert log.read() == [] and not path.exists()
        log.append({"id": "a"})
        log.append_many([{"id": "b"}, {"id": "c", "text": "é"}])
    assert path.read_bytes() == b'{"id":"a"}\n{"id":"b"}\n{"id":"c","text":"\xc3\xa9"}\n'
    assert [r["id"] for r in CheckpointLog(path).read()] == ["a", "b", "c"]


def test_ascii_encoder_writes_json_dumps_lines(tmp_path):
    path = tmp_path / "log.jsonl"
    with CheckpointLog(path, encoder=ascii_json_line) as log:
        log.append({"id": "a", "n": 1, "text": "é"})
    assert path.read_text() == json.dumps({"id": "a", "n": 1, "text": "é"}) + "\n"


def test_lone_surrogates_are_replaced_and_flagged(tmp_path):
    with CheckpointLog(tmp_path / "log.jsonl") as log:
        stored = log.append({"id": "a", "text": "x\ud83d"})
    assert stored == {"id": "a", "text": "x\ufffd", "replaced_surrogates": True}
    assert CheckpointLog(tmp_path / "log.jsonl").read() == [stored]


def test_a_torn_last_line_is_cut_off_only_with_repair(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_bytes(b'{"id": "a"}\n{"id": "b", "n')
    log = CheckpointLog(path)
    assert log.read(repair=False) == [{"id": "a"}] and log.torn_bytes == 14
    assert path.read_bytes().endswith(b'"n')
    assert log.read() == [{"id": "a"}] and path.read_bytes() == b'{"id": "a"}\n'
    log.append({"id": "c"})
    log.close()
    assert [r["id"] for r in log.read()] == ["a", "c"] and log.torn_bytes == 0


def test_a_complete_last_line_gets_its_newline(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_bytes(b'{"id": "a"}')
    assert CheckpointLog(path).read() == [{"id": "a"}] and path.read_bytes() == b'{"id": "a"}\n'


@pytest.mark.parametrize(
    ("line", "problem"),
    [(b"not json", "malformed JSON"), (b"[1, 2]", "not a JSON object"), (b"[" * 100_000, "deep")],
)
def test_a_corrupt_line_is_named_or_skipped(tmp_path, line, problem):
    path = tmp_path / "log.jsonl"
    path.write_bytes(b'{"id": "a"}\n' + line + b'\n{"id": "b"}\n')
    with pytest.raises(CheckpointError, match=rf"log.jsonl line 2.*{problem}"):
        CheckpointLog(path).read()
    log = CheckpointLog(path)
    with pytest.warns(CheckpointWarning, match="line 2"):
        assert log.read(corrupt="skip") == [{"id": "a"}, {"id": "b"}]
    assert len(log.warnings) == 1 and "line 2" in log.warnings[0]


def test_a_check_refuses_records_by_line(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_bytes(b'{"id": "a"}\n{"nope": 1}\n')

    def check(record):
        if "id" not in record:
            raise ValueError("no id")

    with pytest.raises(CheckpointError, match="line 2: no id"):
        CheckpointLog(path, what="result").read(check=check)


def test_a_symlinked_log_is_refused(tmp_path):
    target = tmp_path / "elsewhere"
    target.write_text("")
    (tmp_path / "log.jsonl").symlink_to(target)
    with pytest.raises(CheckpointError, match="cannot write"):
        CheckpointLog(tmp_path / "log.jsonl").append({"id": "a"})
    assert target.read_text() == ""


def test_a_failed_write_is_cut_back(tmp_path, monkeypatch):
    path = tmp_path / "log.jsonl"
    log = CheckpointLog(path)
    log.append({"id": "a"})
    real_fsync = os.fsync

    def no_space(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", no_space)
    with pytest.raises(CheckpointError, match="No space left"):
        log.append_many([{"id": "b"}, {"id": "c"}])
    monkeypatch.setattr(os, "fsync", real_fsync)
    log.append({"id": "d"})
    log.close()
    assert [r["id"] for r in log.read()] == ["a", "d"]


def test_rewrite_replaces_the_log(tmp_path):
    path = tmp_path / "log.jsonl"
    with CheckpointLog(path) as log:
        log.append_many([{"id": "a"}, {"id": "b"}])
        log.rewrite([{"id": "b"}])
        log.append({"id": "c"})
    assert [r["id"] for r in CheckpointLog(path).read()] == ["b", "c"]


def test_records_since_an_offset_and_collected_lines(tmp_path):
    path = tmp_path / "log.jsonl"
    log = CheckpointLog(path)
    log.append({"id": "a"})
    mark = log.size()
    path.write_bytes(path.read_bytes() + b"junk\n")
    log.append({"id": "b"})
    log.close()
    assert log.read(start=mark, corrupt="collect") == [{"id": "b"}]
    assert log.warnings == [
        f"{path} line 2: not a record (malformed JSON); fix or delete that line"
    ]
    with open(path, "ab") as fh:
        fh.write(b'{"id": "c", "to')
    assert log.read(start=mark, corrupt="collect") == [{"id": "b"}] and log.torn_bytes == 15
    assert path.read_bytes().endswith(b'{"id":"b"}\n')


def test_a_corrupt_line_is_compacted_away_by_the_next_writer_once(tmp_path):
    """corrupt="compact" (a reader about to append): the bad lines are removed by one atomic
    rewrite that keeps every valid line byte for byte, with one warning; the next read is
    clean, so the same line is not warned about at every run forever."""
    path = tmp_path / "log.jsonl"
    good = [b'{"id": "a",  "spaced": true}', b'{"id":"b"}', b'{"id": "c"}']
    path.write_bytes(
        good[0] + b"\nnot json\n" + good[1] + b"\n[1]\n\n" + good[2] + b'\n{"id": "d", "t'
    )
    log = CheckpointLog(path)
    with pytest.warns(CheckpointWarning, match=r"compacted.*line 2.*line 4") as caught:
        records = log.read(corrupt="compact")
    assert len(caught) == 1
    assert [r["id"] for r in records] == ["a", "b", "c"] and log.lines == [1, 3, 6]
    assert path.read_bytes() == b"".join(line + b"\n" for line in good)  # torn tail gone too
    again = CheckpointLog(path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert again.read(corrupt="compact") == records and again.lines == [1, 2, 3]
    again.append({"id": "e"})
    again.close()
    assert [r["id"] for r in CheckpointLog(path).read()] == ["a", "b", "c", "e"]


def test_a_clean_log_is_not_rewritten_by_compact(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_bytes(b'{"id": "a"}\n')
    before = path.stat().st_ino
    assert CheckpointLog(path).read(corrupt="compact") == [{"id": "a"}]
    assert path.stat().st_ino == before
    with pytest.raises(ValueError, match="from its start"):
        CheckpointLog(path).read(corrupt="compact", start=3)
