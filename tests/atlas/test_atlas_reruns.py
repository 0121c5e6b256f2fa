"""``atlas adopt LOG --rerun-log DIR`` (issue #48): a bound's re-run read from a re-run log
written in sittings (``search/reruns.py``), with the configuration each cube used, instead of
cubes run in the adopt call."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ramseygadgets.atlas import Atlas, load_atlas
from ramseygadgets.atlas.adopt import CubeRecheck, adopt_cube_log
from ramseygadgets.atlas.plan import AtlasTask
from ramseygadgets.atlas.reruns import LoggedRecheck
from ramseygadgets.atlas.run import new_entry
from ramseygadgets.atlas.table import bound_on_trust, bound_rests_on, dispute
from ramseygadgets.cli import app
from ramseygadgets.problems.catalog import Problem
from ramseygadgets.search.cubeproof import CubeLogRefused, CubeProof, read_checked
from ramseygadgets.search.options import SearchOptions
from ramseygadgets.search.parallel import solve_cubes
from ramseygadgets.search.reruns import RerunConfig, rerun_to_log

runner = CliRunner()
P3_K3_RED = Problem.make("P3", "K3", "red-determiner")  # as tests/atlas/conftest.py


def _level4(log: Path) -> CubeProof:
    proofs = CubeProof.from_numbered(read_checked(log, P3_K3_RED), P3_K3_RED)
    return next(p for p in proofs if p.n == 4)


def _atlas() -> Atlas:
    entry = new_entry(AtlasTask("paper", P3_K3_RED))
    return Atlas({entry.id: entry})


def test_a_complete_re_run_log_makes_the_bound_all_re_run(p3_k3_log, tmp_path):
    proof = _level4(p3_k3_log)
    rerun_to_log(proof, tmp_path / "reruns", RerunConfig())
    atlas = _atlas()
    adopt_cube_log(atlas, p3_k3_log, LoggedRecheck(logs=(tmp_path / "reruns",)))
    entry = atlas.entries[P3_K3_RED.id]
    rerun = entry.lower_bound["rerun"]
    assert rerun["rerun"] == rerun["of"] == proof.cubes
    assert rerun["configs"] == {"degree rules off, auto, seed None": proof.cubes}
    assert rerun["rerun_log"]["sha256"]
    assert bound_rests_on(entry).startswith(
        f"none on 4: cube log, {proof.cubes} cubes, all re-run (agree)"
    )
    assert not bound_on_trust(entry) and dispute(entry) is None


def test_a_partial_re_run_log_counts_what_it_holds(p3_k3_log, tmp_path):
    proof = _level4(p3_k3_log)
    out = tmp_path / "reruns"
    rerun_to_log(proof, out, RerunConfig(), order=lambda cubes: cubes[:1])
    atlas = _atlas()
    adopt_cube_log(atlas, p3_k3_log, LoggedRecheck(logs=(out,)))
    entry = atlas.entries[P3_K3_RED.id]
    assert bound_rests_on(entry).startswith(f"none on 4: cube log, {proof.cubes} cubes, 1 re-run")
    assert bound_on_trust(entry) and dispute(entry) is None


def test_a_re_run_record_that_found_a_solution_refuses_the_log(p3_k3_log, tmp_path):
    proof = _level4(p3_k3_log)
    out = tmp_path / "reruns"
    rerun_to_log(proof, out, RerunConfig())
    log = out / "cubes.jsonl"
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    rows[0].update(outcome="found", edges=[[0, 1]])
    log.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(CubeLogRefused, match="its re-run found a solution"):
        adopt_cube_log(_atlas(), p3_k3_log, LoggedRecheck(logs=(out,)))


def test_the_cli_takes_the_re_run_log(p3_k3_log, tmp_path):
    rerun_to_log(_level4(p3_k3_log), tmp_path / "reruns", RerunConfig())
    base, out = tmp_path / "base.json", tmp_path / "atlas.json"
    _atlas().write(base)
    args = [str(p3_k3_log), "-o", str(out), "--base", str(base)]
    result = runner.invoke(app, ["atlas", "adopt", *args, "--rerun-log", str(tmp_path / "reruns")])
    assert result.exit_code == 0, result.output
    entry = load_atlas(out).entries[P3_K3_RED.id]
    assert "all re-run (agree)" in bound_rests_on(entry)
    result = runner.invoke(app, ["atlas", "adopt", *args, "--rerun-log", str(tmp_path / "no")])
    assert result.exit_code == 2 and result.output.count("error:") == 1, result.output
    assert "is not a re-run log" in result.output


@pytest.fixture(scope="module")
def minimised_log(tmp_path_factory) -> Path:
    """A cube run of the (P3, K3)-red-determiner that minimises edges by capped rounds."""
    out = tmp_path_factory.mktemp("cubes") / "minimised"
    solve_cubes(P3_K3_RED, SearchOptions(max_vertices=6, cubes=4, out=out))
    return out / "cubes.jsonl"


def test_an_edge_proof_re_run_later_replaces_the_sampled_one(minimised_log, tmp_path):
    """The blue-determiner's 76 edges rest on a sampled re-run: a later complete re-run log
    must replace it (before, an edge-minimal solution's proof was never looked at again)."""
    atlas = _atlas()
    adopt_cube_log(atlas, minimised_log, CubeRecheck(share=0.0))
    solution = atlas.entries[P3_K3_RED.id].solution
    assert solution["edges_minimal"] and "rerun" not in solution["edges_cubes"]
    n, cap = solution["n"], solution["m"] - 1
    numbered = read_checked(minimised_log, P3_K3_RED)
    (proof,) = [p for p in CubeProof.from_numbered(numbered, P3_K3_RED, max_edges=cap) if p.n == n]
    rerun_to_log(proof, tmp_path / "reruns", RerunConfig())
    adopt_cube_log(atlas, minimised_log, LoggedRecheck(logs=(tmp_path / "reruns",)))
    entry = atlas.entries[P3_K3_RED.id]
    assert entry.solution["edges_cubes"]["rerun"]["rerun"] == proof.cubes
    assert entry.solution["edges_cubes"]["rests_on"].endswith("all re-run (agree)")
    assert dispute(entry) is None
    again = adopt_cube_log(atlas, minimised_log, CubeRecheck(share=0.0))  # never fewer
    assert entry.solution["edges_cubes"]["rerun"]["rerun"] == proof.cubes
    assert not any("at most" in a.fact for a in again)
