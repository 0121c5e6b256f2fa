"""Re-runs of a proof's cubes in resumable sittings (``search/reruns.py``, issue #48): one
logged record per cube with its configuration, a second sitting runs only what the first left,
a re-run that finds a solution refuses the proof, and the log reads back into the re-run record
an atlas fact carries."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ramseygadgets.problems.catalog import Problem
from ramseygadgets.search.cubelog import read_log
from ramseygadgets.search.cubeproof import CubeLogRefused, CubeProof, Rerun, read_checked
from ramseygadgets.search.options import SearchOptions
from ramseygadgets.search.parallel import solve_cubes
from ramseygadgets.search.reruns import (
    RerunConfig,
    logged_rerun,
    pending,
    rerun_to_log,
)

#: needs 9 vertices (a solution on 9 exists); none on 8
K3_K4E_BLUE = Problem.make("K3", "K4-e", "blue-determiner")


@pytest.fixture(scope="module")
def level8(tmp_path_factory) -> Path:
    """A genuine log: level 8 of the (K3, K4−e)-blue-determiner, none in 8 cubes."""
    out = tmp_path_factory.mktemp("reruns") / "run8"
    r = solve_cubes(K3_K4E_BLUE, SearchOptions(min_vertices=8, max_vertices=8, cubes=8, out=out))
    assert r.status == "none-up-to-limit"
    return out / "cubes.jsonl"


def _proof(log: Path, n: int = 8) -> CubeProof:
    (proof,) = [p for p in CubeProof.from_numbered(read_checked(log, K3_K4E_BLUE), K3_K4E_BLUE)]
    assert proof.n == n
    return proof


class Stop(Exception):
    """Stands for a sitting killed after its first cube."""


def test_a_second_sitting_runs_only_the_cubes_the_first_left(level8, tmp_path):
    proof = _proof(level8)
    out = tmp_path / "reruns"

    def stop_after_one(record, done, total):
        raise Stop

    with pytest.raises(Stop):
        rerun_to_log(proof, out, RerunConfig(), progress=stop_after_one)
    assert len(pending(read_log(out / "cubes.jsonl"), proof)) == proof.cubes - 1
    partial = logged_rerun(proof, out)
    assert partial.count == 1 and partial.of == proof.cubes
    assert rerun_to_log(proof, out, RerunConfig()) == proof.cubes - 1
    assert rerun_to_log(proof, out, RerunConfig()) == 0
    records = read_log(out / "cubes.jsonl")
    assert len(records) == proof.cubes and pending(records, proof) == []
    assert all(r["kind"] == "rerun" and r["outcome"] == "none" for r in records)
    assert all(r["config"]["degree_rules"] is False for r in records)
    rerun = logged_rerun(proof, out)
    assert rerun.count == proof.cubes and rerun.cubes == proof.decided
    assert rerun.configs == {"degree rules off, auto, seed None": proof.cubes}
    data = rerun.to_json()
    assert data["rerun_log"]["source"] == str(out / "cubes.jsonl")
    assert Rerun.from_json(proof, data).count == proof.cubes  # the atlas reads it back


def test_records_of_other_cubes_levels_or_caps_count_for_nothing(level8, tmp_path):
    proof = _proof(level8)
    out = tmp_path / "reruns"
    rerun_to_log(proof, out, RerunConfig(degree_rules=True, seed=3))
    log = out / "cubes.jsonl"
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    assert {r["config"]["seed"] for r in rows} == {3}
    forged = [
        {**rows[0], "bits": rows[0]["bits"] + "01"},  # a cube the proof does not hold
        {**rows[1], "n": 9},
        {**rows[2], "max_edges": 5},  # "none with at most 5 edges" says nothing of more
        {**rows[3], "problem": "(K3, K4)-blue-determiner"},
        {**rows[4], "engine": "eager"},
    ]
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_text("".join(json.dumps(r) + "\n" for r in [*forged, *rows[5:]]))
    assert logged_rerun(proof, mixed).count == proof.cubes - 5


def test_a_relabelled_log_is_refused_when_its_cubes_are_re_run(level8, tmp_path):
    """Level-8 cubes with n and keys rewritten to 9: one holds a 9-vertex solution, so its
    re-run is logged found and the proof refused (then and whenever the log is read)."""
    rows = [json.loads(line) for line in level8.read_text().splitlines()]
    for r in rows:
        r["n"] = 9
        if "key" in r:
            r["key"] = f"9|{r['key'].split('|', 1)[1]}"
    forged = tmp_path / "n9.jsonl"
    forged.write_text("".join(json.dumps(r) + "\n" for r in rows))
    proof = _proof(forged, 9)
    out = tmp_path / "reruns"
    with pytest.raises(CubeLogRefused, match=r"cube 9\|.* re-runs to a solution"):
        rerun_to_log(proof, out, RerunConfig())
    assert any(r["outcome"] == "found" and r["edges"] for r in read_log(out / "cubes.jsonl"))
    with pytest.raises(CubeLogRefused, match="its re-run found a solution"):
        logged_rerun(proof, out)


def test_a_missing_re_run_log_is_named(level8, tmp_path):
    with pytest.raises(CubeLogRefused, match="is not a re-run log"):
        logged_rerun(_proof(level8), tmp_path / "nothing.jsonl")
