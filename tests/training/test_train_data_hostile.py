"""``train-data`` under hostile use: it replaces only a folder it wrote, and checks every option
before any work (one ``error:`` line, exit code 2, nothing touched)."""

from __future__ import annotations

import hashlib
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from ramseygadgets.cli import app, training

runner = CliRunner()
pytest.importorskip("datasets")


def _digest(path: Path) -> str:
    """A hash of every file name and content under ``path`` (or of the file itself)."""
    if path.is_file():
        return hashlib.sha256(path.read_bytes()).hexdigest()
    h = hashlib.sha256()
    for item in sorted(path.rglob("*")):
        h.update(str(item.relative_to(path)).encode())
        if item.is_file():
            h.update(item.read_bytes())
    return h.hexdigest()


#: A pool with an unpublished problem of minimal size 4: the (K1,4, K4)-clause-gadget (the
#: default pool's small problems are nearly all published, so finding one there takes seconds).
QUICK_POOL = ("--pool", "K1,4,K4")


def _stream(out: Path, *extra: str):
    pool = () if "--pool" in extra else QUICK_POOL
    args = ["train-data", "--out", str(out), "--stream", "1", "--max-size", "5", *pool, *extra]
    return runner.invoke(app, args)


def _one_line_error(result, *words: str) -> None:
    lines = result.output.strip().splitlines()
    assert result.exit_code == 2, result.output
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    assert "Traceback" not in result.output
    for word in words:
        assert word in lines[0], (word, lines[0])


@pytest.mark.parametrize(
    "name, manifest",
    [
        ("generate folder", {"options": {}, "counts": {"problems": 3}}),  # generate's manifest
        ("atlas folder", None),
        ("eval run", None),
        ("unrelated folder", None),
    ],
)
def test_a_folder_train_data_did_not_write_is_refused_and_left_intact(tmp_path, name, manifest):
    out = tmp_path / name.replace(" ", "_")
    out.mkdir()
    (out / "results.jsonl").write_text('{"id": "x"}\n')
    if manifest is not None:
        (out / "manifest.json").write_text(json.dumps(manifest))
    if name == "eval run":
        (out / "samples.jsonl").write_text("{}\n")
        (out / "config.json").write_text("{}")
    before = _digest(out)
    _one_line_error(_stream(out), "not a dataset written by train-data", "refusing to replace")
    assert _digest(out) == before


def test_a_file_as_out_is_refused_and_left_intact(tmp_path):
    target = tmp_path / "notes.txt"
    target.write_text("keep me")
    _one_line_error(_stream(target), "is a file")
    assert target.read_text() == "keep me"


def test_a_train_data_folder_is_replaced_and_says_what_it_is(tmp_path):
    out = tmp_path / "data"
    first = _stream(out)
    assert first.exit_code == 0, first.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["kind"] == "ramseygadgets train-data"
    again = _stream(out, "--seed", "1")
    assert again.exit_code == 0, again.output
    assert json.loads((out / "manifest.json").read_text())["stream"]["seed"] == 1


def test_progress_lines_stay_whole_on_a_narrow_terminal(tmp_path, monkeypatch):
    """Each progress line is one line at 40 columns, brackets in the path included."""
    monkeypatch.setattr(training, "err_console", Console(stderr=True, width=40, soft_wrap=True))
    out = tmp_path / "[data] with a long folder name"
    result = _stream(out)
    assert result.exit_code == 0, result.output
    steps = [line for line in result.output.splitlines() if line.startswith("train-data [")]
    assert any(line.endswith("(each solved with its proof)") for line in steps), steps
    assert any(line.endswith(f"to {out}") for line in steps), steps


@pytest.mark.parametrize(
    "extra, words",
    [
        (("--solve-timeout", "inf"), ("--solve-timeout", "finite", "inf")),
        (("--solve-timeout", "nan"), ("--solve-timeout", "nan")),
        (("--solve-timeout", "-1"), ("--solve-timeout", "-1")),
        (("--pool", ","), ("--pool names no pattern",)),
        (("--settings", "few-shot"), ("unknown setting 'few-shot'", "zero-shot")),
        (("--model-profile", "nope"), ("nope",)),
        (("--colors", "5"), ("2 or 3 colours",)),
    ],
)
def test_bad_options_are_one_line_before_any_work(tmp_path, extra, words):
    out = tmp_path / "data"
    _one_line_error(_stream(out, *extra), *words)
    assert not out.exists()


def test_a_huge_stream_needs_force(tmp_path):
    out = tmp_path / "data"
    result = runner.invoke(app, ["train-data", "--out", str(out), "--stream", "2000000"])
    _one_line_error(result, "--stream 2,000,000", "--force")
    assert not out.exists()


def test_pool_names_with_commas_stay_whole(tmp_path):
    """``--pool "K4,K1,4"`` is K4 and K1,4 (not K1 and 4)."""
    from ramseygadgets.cli.training import _pool

    assert _pool(["P3,K1,4"]) == ("P3", "K1,4")
    assert _pool(["K2,3", "C4"]) == ("K2,3", "C4")
    out = tmp_path / "data"
    result = _stream(out, "--pool", "K4,K1,4", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads((out / "manifest.json").read_text())["stream"]["pool"] == ["K4", "K1,4"]


# -- trust nothing read back: --from re-verifies solutions and checks proofs ---------------------
@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A ``generate`` folder with two (P5, P4) problems, each with its solution and proof (an
    unpublished pair: a published one would be left out for that)."""
    out = tmp_path_factory.mktemp("from") / "set"
    args = ["generate", "--F", "P5", "--H", "P4", "--gadgets", "red-determiner,positive-sender"]
    result = runner.invoke(app, [*args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


def _copy(folder: Path, target: Path) -> Path:
    import shutil

    shutil.copytree(folder, target)
    return target


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _write(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def _excluded(source: Path, tmp_path: Path) -> dict[str, str]:
    out = tmp_path / "train"
    result = runner.invoke(app, ["train-data", "--from", str(source), "--out", str(out)])
    assert result.exit_code in (0, 2), result.output
    if result.exit_code == 2:  # nothing left: the error names why
        assert "no training problem is left" in result.output
        return {"*": "all left out"}
    manifest = json.loads((out / "manifest.json").read_text())
    return {e["problem"]: e["reason"] for e in manifest["excluded"]}


def test_honest_records_are_kept(generated, tmp_path):
    assert _excluded(generated, tmp_path) == {}


def test_a_wrong_solution_never_reaches_the_dataset(generated, tmp_path):
    folder = _copy(generated, tmp_path / "set")
    rows = _rows(folder / "problems.jsonl")
    target = next(r for r in rows if r["gadget"] == "red-determiner")
    target["solution"] = {**target["solution"], "edges": target["solution"]["edges"][:-1]}
    _write(folder / "problems.jsonl", rows)
    excluded = _excluded(folder, tmp_path)
    assert "fails the verifier" in excluded[target["id"]]


def test_a_forged_minimal_size_never_reaches_the_dataset(generated, tmp_path):
    folder = _copy(generated, tmp_path / "set")
    rows = _rows(folder / "problems.jsonl")
    rows[0]["min_vertices"] = rows[0]["min_vertices"] - 1
    _write(folder / "problems.jsonl", rows)
    assert "is not its solution's size" in _excluded(folder, tmp_path)[rows[0]["id"]]


def test_a_proof_that_claims_more_than_it_shows_is_left_out(generated, tmp_path):
    """results.jsonl's levels must show every smaller vertex count empty; a record that drops
    one (a forged lower bound) is left out, and so is a bare file that claims no proof."""
    folder = _copy(generated, tmp_path / "set")
    results = _rows(folder / "results.jsonl")
    record = results[0]
    n = record["n"]
    record["levels"] = [level for level in record["levels"] if level["n"] != n - 1]
    _write(folder / "results.jsonl", results)
    assert f"does not show it on {n - 1}" in _excluded(folder, tmp_path)[record["id"]]
    bare = tmp_path / "bare.jsonl"
    rows = _rows(generated / "problems.jsonl")
    _write(bare, [{**row, "proven_minimal": False} for row in rows])
    assert _excluded(bare, tmp_path / "b") == {"*": "all left out"}


# -- Ctrl-C and SIGTERM ---------------------------------------------------------------------------
@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_stops_train_data_and_keeps_the_old_dataset(tmp_path, sig, code):
    out = tmp_path / "data"
    assert _stream(out).exit_code == 0
    before = _digest(out)
    script = Path(sys.executable).with_name("ramseygadgets")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "ramseygadgets"]
    args = ["train-data", "--out", str(out), "--stream", "100000", "--max-size", "8", "--seed", "9"]
    args += ["--solve-timeout", "120"]  # one search may run that long: the signal must not wait
    process = subprocess.Popen(
        [*command, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert process.stderr is not None
    while "drawing" not in (line := process.stderr.readline()):  # the stream is being solved
        assert line, "train-data ended before drawing"
    time.sleep(1.0)
    process.send_signal(sig)
    started = time.monotonic()
    _, err = process.communicate(timeout=30)
    assert time.monotonic() - started < 20  # at once (a second or two idle), not after the search
    assert process.returncode == code, err
    assert "Traceback" not in err and "nothing written" in err
    assert _digest(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data"]  # no temporary folder left


def test_the_dataset_folder_gets_the_users_umask(tmp_path):
    """Like every other tool (``mkdtemp`` alone would leave 0700 on a shared cluster)."""
    import os

    previous = os.umask(0o022)
    try:
        out = tmp_path / "data"
        assert _stream(out).exit_code == 0
    finally:
        os.umask(previous)
    assert out.stat().st_mode & 0o777 == 0o755
    assert (out / "manifest.json").stat().st_mode & 0o777 == 0o644
