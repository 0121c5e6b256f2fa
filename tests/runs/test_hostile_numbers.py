"""Issue 45, item 5: every number read back is checked (:mod:`ramseygadgets.infra.numbers`).  A hostile
value (10^400 written out in digits, NaN) in a sample, a cube record or an atlas entry is one
warning naming ``file:line`` and the field and is read as missing — never exit 70 — and no
writer puts a bare ``NaN`` into a file."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ramseygadgets.cli import app
from ramseygadgets.infra import numbers
from ramseygadgets.infra.checkpoint import json_line
from ramseygadgets.infra.numbers import is_seconds
from ramseygadgets.problems.atlas_entries import load_atlas
from ramseygadgets.runs.folder import read_samples_file
from ramseygadgets.search.cubelog import read_numbered
from ramseygadgets.search.cubeproof import CubeProof

sys.path.insert(0, str(Path(__file__).parents[1] / "report"))
from conftest import make_sample, write_run_dir  # noqa: E402

runner = CliRunner()
ROOT = Path(__file__).parents[2]
PROBLEM = "p3_k3_red_determiner"
HUGE = "1" + "0" * 400  # 10^400: an int that no float holds
CUBE_LOG = ROOT / "bench" / "results" / "cubes" / "k3_k4e_red_determiner.jsonl"


def _strict(text: str) -> Any:
    """``json.loads`` that refuses NaN and infinities (which are not JSON)."""

    def refuse(constant: str) -> Any:
        raise ValueError(f"not JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


def _python_run(tmp_path: Path, field: str, value: str) -> Path:
    """A python-setting run whose one sample has ``field`` (dotted: inside ``usage``) = value."""
    record = make_sample(PROBLEM, "python", 0, "correct", tool_calls=1, tool_seconds=0.5)
    folder = write_run_dir(
        tmp_path / "run", problems=[PROBLEM], settings=["python"], runs=1, samples=[record]
    )
    path = folder / "samples.jsonl"
    data = json.loads(path.read_text())
    holder, key = (data["usage"], "total_tokens") if field.startswith("usage.") else (data, field)
    holder[key] = "@@"
    path.write_text(json.dumps(data).replace('"@@"', value) + "\n")
    return folder


@pytest.mark.parametrize("field", ["latency_s", "usage.total_tokens", "tool_seconds", "tool_calls"])
@pytest.mark.parametrize("value", [HUGE, "NaN", "-1"])
def test_a_hostile_number_in_a_sample_is_a_warning_and_read_as_missing(tmp_path, field, value):
    folder = _python_run(tmp_path, field, value)
    warnings: list[str] = []
    (sample,) = read_samples_file(folder / "samples.jsonl", warnings)
    assert len(warnings) == 1
    assert warnings[0].startswith(f"{folder / 'samples.jsonl'}:1: field {field!r} must be")
    assert warnings[0].endswith("read as missing")
    assert sample.correct  # the sample is kept, only the value is gone
    assert sample.latency_s is None or field != "latency_s"
    assert "tool_seconds" not in sample.record or field != "tool_seconds"


@pytest.mark.parametrize("field", ["latency_s", "usage.total_tokens", "tool_seconds", "tool_calls"])
def test_report_over_a_hostile_number_exits_0_with_a_warning(tmp_path, field):
    folder = _python_run(tmp_path, field, HUGE)
    out = tmp_path / "out"
    result = runner.invoke(
        app, ["report", str(folder), "--out", str(out), "--bootstrap", "0", "--no-drawings"]
    )
    assert result.exit_code == 0, result.output
    assert f"samples.jsonl:1: field {field!r}" in result.output
    for written in out.rglob("*.json"):
        _strict(written.read_text())


def test_the_harness_still_refuses_a_hostile_number_on_resume(tmp_path):
    from ramseygadgets.runs.folder import RunFolder, RunLogError

    folder = _python_run(tmp_path, "latency_s", HUGE)
    with pytest.raises(RunLogError, match="latency_s"), RunFolder(folder):
        pass


def _hostile_cube_log(tmp_path: Path, value: str) -> Path:
    lines = CUBE_LOG.read_text().splitlines()
    record = json.loads(lines[-1])
    record["cpu_seconds"] = "@@"
    lines[-1] = json.dumps(record).replace('"@@"', value)
    path = tmp_path / "cubes.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("value", [HUGE, "NaN", "Infinity"])
def test_a_hostile_cube_seconds_is_a_warning_naming_file_and_line(tmp_path, value):
    path = _hostile_cube_log(tmp_path, value)
    with pytest.warns(numbers.NumberWarning, match=rf"{path.name}:\d+: field 'cpu_seconds'"):
        numbered = read_numbered(path)
    from ramseygadgets.problems.catalog import Problem

    proofs = CubeProof.from_numbered(numbered, Problem.make("K3", "K4-e", "red-determiner"))
    assert all(math.isfinite(p.cpu_seconds) for p in proofs)


def test_atlas_adopt_never_writes_a_bare_nan(tmp_path):
    """A NaN cube time was adopted and written as ``NaN`` (not JSON)."""
    log = _hostile_cube_log(tmp_path, "NaN")
    data = json.loads((ROOT / "src/ramseygadgets/data/atlas.json").read_text())
    for entry in data["entries"]:
        if entry["id"] == "k3_k4e_red_determiner":  # nothing known: both facts are adopted
            entry.update(solution=None, lower_bound={}, cross_check=None, n=None, m=None)
    base = tmp_path / "base.json"
    base.write_text(json.dumps(data))
    out = tmp_path / "atlas.json"
    result = runner.invoke(
        app,
        ["atlas", "adopt", str(log), "--base", str(base), "--out", str(out), "--recheck", "none"],
    )
    assert result.exit_code == 0, result.output
    assert "2 of 2 facts adopted" in result.output
    assert "field 'cpu_seconds'" in result.output
    _strict(out.read_text())


def _hostile_atlas(tmp_path: Path) -> tuple[Path, int]:
    """The shipped atlas with 10^400 as its first entry's solution seconds, and that line."""
    text = (ROOT / "src/ramseygadgets/data/atlas.json").read_text()
    at = text.index('"seconds": ', text.index('"entries"')) + len('"seconds": ')
    end = at + len(text[at:].split(",", 1)[0].split("}", 1)[0])
    path = tmp_path / "atlas.json"
    path.write_text(text[:at] + HUGE + text[end:])
    return path, text.count("\n", 0, at) + 1


def test_a_hostile_atlas_seconds_is_read_as_missing(tmp_path):
    path, line = _hostile_atlas(tmp_path)
    with pytest.warns(numbers.NumberWarning, match=f"atlas.json:{line}: field 'solution.seconds'"):
        atlas = load_atlas(path)
    assert all(
        "seconds" not in (e.solution or {}) or is_seconds(e.solution["seconds"])
        for e in atlas.entries.values()
    )


@pytest.mark.slow
def test_atlas_table_over_a_hostile_seconds_is_a_warning_not_a_crash(tmp_path):
    path, line = _hostile_atlas(tmp_path)
    result = runner.invoke(app, ["atlas", "table", "--data", str(path)])
    assert result.exit_code in (0, 1), result.output  # 1: a dispute, never 70
    assert f"atlas.json:{line}: field 'solution.seconds'" in result.output


def test_writers_refuse_nan():
    with pytest.raises(ValueError):
        json_line({"latency_s": math.nan})


@pytest.mark.parametrize(
    ("value", "kind", "ok"),
    [
        (0, "count", True),
        (2**53, "count", True),
        (2**53 + 1, "count", False),
        (10**400, "count", False),
        (1.0, "count", False),
        (True, "count", False),
        (0.5, "seconds", True),
        (10**400, "seconds", False),
        (math.nan, "seconds", False),
        (math.inf, "seconds", False),
        (-0.5, "seconds", False),
    ],
)
def test_the_number_checks(value, kind, ok):
    assert (numbers.number_problem(value, kind) is None) == ok
