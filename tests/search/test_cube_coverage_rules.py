"""Issue 45, item 6: ``bench/cube_coverage.py`` is held to the CLI's rules.  It accepted a log of
one level relabelled as the next and printed "none on" that level, and a log whose identity keys
were deleted passed the identity check (the CLI's :func:`~ramseygadgets.search.cubecheck.
check_records` let it through too)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ramseygadgets.problems.catalog import Problem
from ramseygadgets.search.cubecheck import CubeLogRefused, read_checked, required_identity

ROOT = Path(__file__).parents[2]
SCRIPT = ROOT / "bench" / "cube_coverage.py"
LOG = ROOT / "bench" / "results" / "cubes" / "k3_k4e_red_determiner.jsonl"
PROBLEM = ["--F", "K3", "--H", "K4-e", "--gadget", "red-determiner"]
K3_K4E_RED = Problem.make("K3", "K4-e", "red-determiner")


def _records() -> list[dict[str, Any]]:
    return [json.loads(line) for line in LOG.read_text().splitlines()]


def _write(tmp_path: Path, records: list[dict[str, Any]]) -> Path:
    path = tmp_path / "cubes.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def _relabelled(tmp_path: Path) -> Path:
    """The shipped log's level-10 cubes (none) relabelled as level 11, where a solution exists
    (the level-11 records and above dropped, as a forger would)."""
    out = []
    for r in _records():
        if r["kind"] == "cube" and r["n"] == 10:
            out.append({**r, "n": 11, "key": "11" + r["key"][2:]})
        elif r["n"] < 10:
            out.append(r)
    return _write(tmp_path, out)


def _coverage(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *PROBLEM, *args], capture_output=True, text=True
    )


@pytest.mark.slow
def test_a_relabelled_level_is_refused_when_a_rerun_finds_a_solution(tmp_path):
    """Seed 5 draws cube 111111111, which finds a solution on 11 vertices."""
    done = _coverage("--seed", "5", str(_relabelled(tmp_path)))
    assert done.returncode == 2, done.stdout
    assert "re-run finds a solution on 11 vertices" in done.stderr
    assert "cubes.jsonl:" in done.stderr and "none on 11" not in done.stdout


@pytest.mark.slow
def test_a_covered_level_says_what_it_rests_on(tmp_path):
    """Seed 1 draws a cube that agrees: the level is not "none on 11 vertices", but none as far
    as the log holds, with how many cubes were re-run."""
    done = _coverage("--seed", "1", str(_relabelled(tmp_path)))
    assert done.returncode == 0, done.stderr
    assert "n = 11, lazy: none on 11: cube log, 10 cubes, 1 re-run (agree)" in done.stdout
    assert "none on 11 vertices" not in done.stdout


@pytest.mark.parametrize("deleted", [("problem",), ("problem", "patterns", "gadget", "colours")])
def test_a_record_whose_identity_keys_are_deleted_is_refused(tmp_path, deleted):
    records = _records()
    for r in records:
        if r["kind"] == "cube":
            for name in deleted:
                r.pop(name, None)
    path = _write(tmp_path, records)
    with pytest.raises(CubeLogRefused, match=r"cubes.jsonl:\d+: .* without its problem"):
        read_checked(path, K3_K4E_RED)
    done = _coverage("--recheck", "none", str(path))
    assert done.returncode == 2 and "without its problem" in done.stderr
    assert "none on" not in done.stdout


def test_a_newer_log_must_keep_its_newer_identity_keys(tmp_path):
    """A log whose records name patterns, gadget and colours from some record on (a log resumed
    by a newer version): a later record without them had them deleted."""
    records = _records()
    tag = {"patterns": ["K3", "K4-e"], "gadget": "red-determiner", "colours": 2}
    cubes = [r for r in records if r["kind"] == "cube"]
    for r in cubes[10:]:
        r.update(tag)
    assert required_identity(cubes)[9] == ("problem",)
    assert required_identity(cubes)[10] == ("problem", "patterns", "gadget", "colours")
    for name in tag:
        cubes[-1].pop(name)
    path = _write(tmp_path, records)
    with pytest.raises(CubeLogRefused, match="without its patterns, gadget, colours"):
        read_checked(path, K3_K4E_RED)


def test_the_shipped_logs_pass_the_identity_check():
    for log in sorted((ROOT / "bench" / "results" / "cubes").glob("*.jsonl")):
        pid = log.stem.split("-")[0]
        first = next(json.loads(line) for line in log.read_text().splitlines())
        problem = Problem.make(
            *first["problem"].removesuffix(")").split(")-")[0][1:].split(", "),
            first["problem"].split(")-")[1],
        )
        assert problem.id == pid
        read_checked(log, problem)
