"""Every atlas reader re-derives (issue 45, item 3): a capped cube proof bounds no vertex count,
a scan census below the proven sizes is disputed, a re-run record is labelled as the atlas
file's word (and a seeded sample must be its seed's draw), ``atlas adopt`` keeps a verified
solution with fewer edges over a false "edges minimal", and an entry the re-checks dispute is
no optimum for ``verify``, ``--dataset`` or the extended set."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from shipped_atlas import clear_shipped_atlas_caches
from typer.testing import CliRunner

from ramseygadgets.atlas import Atlas, load_atlas
from ramseygadgets.atlas.adopt import CubeRecheck, adopt_cube_log
from ramseygadgets.atlas.plan import AtlasTask
from ramseygadgets.atlas.run import new_entry
from ramseygadgets.atlas.table import FROM_FILE, bound_rests_on, dispute, entry_json
from ramseygadgets.cli import app
from ramseygadgets.problems import atlas_entries
from ramseygadgets.problems.catalog import Problem
from ramseygadgets.problems.solutions import get_solution
from ramseygadgets.search.cubeproof import is_found, logged_candidate
from ramseygadgets.verification import basis
from ramseygadgets.verification.selection import load_selection, select_problems

runner = CliRunner()
P3_K3_RED = Problem.make("P3", "K3", "red-determiner")  # as tests/atlas/conftest.py


@pytest.fixture
def log(p3_k3_log: Path) -> Path:
    return p3_k3_log


def _adopted(log: Path, share: float, seed: int) -> Atlas:
    entry = new_entry(AtlasTask("paper", P3_K3_RED))
    atlas = Atlas({entry.id: entry})
    adopt_cube_log(atlas, log, CubeRecheck(share=share, seed=seed))
    return atlas


def test_a_capped_cube_proof_is_no_vertex_bound(log):
    entry = _adopted(log, 0.25, 1).entries[P3_K3_RED.id]
    assert dispute(entry) is None
    entry.lower_bound["cubes"]["max_edges"] = 3  # "none on 4 with at most 3 edges"
    assert "capped at 3 edges, which bounds no vertex count" in (dispute(entry) or "")
    assert entry_json(entry, dispute(entry))["basis"]["vertices"] == "disputed"


def test_a_census_below_a_proven_edge_count_is_disputed():
    entry = copy.deepcopy(load_atlas().entries["p3_k3_red_determiner"])
    assert entry.solution is not None and entry.solution["edges_minimal"] is True
    assert dispute(entry) is None
    assert entry.cross_check is not None
    entry.cross_check["census"] = [5, entry.solution["m"] - 1]  # one edge below: "agree" holds
    assert "fewer edges than the proven minimum 7" in (dispute(entry) or "")
    entry.cross_check["census"] = [4, 6]
    entry.cross_check["agree"] = False
    assert "fewer vertices than the proven 5" in (dispute(entry) or "")


def test_a_full_re_run_record_is_labelled_as_the_files_word(log, tmp_path):
    atlas = _adopted(log, 0.25, 1)
    entry = atlas.entries[P3_K3_RED.id]
    bound = entry.lower_bound
    bound["rerun"]["cubes"] = bound["cubes"]["cubes"]  # forged: every cube "re-run"
    bound["rerun"]["rerun"] = bound["rerun"]["of"]
    assert dispute(entry) is None  # nothing checks it short of running the cubes again
    rests = bound_rests_on(entry)
    assert rests == f"none on 4: cube log, 4 cubes, all re-run (agree), {FROM_FILE}"
    path = atlas.write(tmp_path / "atlas.json")
    table = runner.invoke(app, ["atlas", "table", "--data", str(path)])
    row = next(line for line in table.output.splitlines() if "| P3 | K3 | red-determiner" in line)
    assert f"all re-run (agree), {FROM_FILE}" in row


def test_a_re_run_sample_that_is_not_its_seeds_draw_is_disputed(log):
    entry = _adopted(log, 0.5, 11).entries[P3_K3_RED.id]
    bound = entry.lower_bound
    assert dispute(entry) is None and bound["rerun"]["rerun"] == 2
    (layout, bits), *_ = bound["cubes"]["cubes"].items()
    drawn = set(bound["rerun"]["cubes"].get(layout, []))
    others = [b for b in bits if b not in drawn]
    bound["rerun"]["cubes"] = {layout: sorted(others[:2])}  # two cubes, not the seed's two
    assert "not the draw of its seed 11" in (dispute(entry) or "")


def test_adopt_keeps_a_verified_solution_with_fewer_edges(log, tmp_path):
    """The base claims the log's 8-edge solution is edge-minimal; the log also holds the
    verified 7-edge one: the 7 is kept, the false claim dropped, and the report says so."""
    records = [json.loads(line) for line in log.read_text().splitlines()]
    found = next(r for r in records if is_found(r, P3_K3_RED.id))
    eight = logged_candidate(P3_K3_RED, found)
    assert eight.graph.m == 8
    base = _adopted(log, 0.25, 1)
    entry = base.entries[P3_K3_RED.id]
    assert entry.solution is not None and entry.solution["m"] == 8
    entry.solution["edges_minimal"] = True  # the base's false "8 edges, minimal"
    seven = get_solution("p3_k3_red_determiner").candidate.to_json(P3_K3_RED.gadget)
    edited = tmp_path / "seven.jsonl"
    records.append({**found, **seven})
    edited.write_text("".join(json.dumps(r) + "\n" for r in records))
    report = [str(a) for a in adopt_cube_log(base, edited, CubeRecheck(share=0.25, seed=1))]
    assert entry.solution["m"] == 7 and entry.solution["edges_minimal"] is False
    assert any("refutes the atlas' claim that 8 edges on 5 are fewest" in line for line in report)


# -- a disputed shipped entry is no optimum anywhere ---------------------------------------------


@pytest.fixture
def forged_atlas(monkeypatch) -> Iterator[str]:
    """The shipped atlas with one extended entry's solution replaced by a graph that is no
    solution (an edge removed, sizes kept consistent): the id of that entry."""
    atlas = load_atlas()
    entry = next(
        e
        for e in atlas.entries.values()
        if e.section == "stars" and e.status == "minimal" and e.n == 6
    )
    forged = copy.deepcopy(atlas)
    s = forged.entries[entry.id].solution
    assert s is not None
    others = [x for x in s["edges"] if sorted(x) != sorted(s["e"])]
    s["edges"] = [*others[1:], s["e"]]  # one edge fewer, e kept
    s["m"] = len(s["edges"])
    forged.entries[entry.id].cross_check = None
    text = forged.to_json()
    monkeypatch.setattr(atlas_entries, "_shipped_text", lambda: text)
    clear_shipped_atlas_caches()
    yield entry.id
    monkeypatch.undo()
    clear_shipped_atlas_caches()


def test_a_disputed_entry_is_no_optimum(forged_atlas, tmp_path):
    pid = forged_atlas
    chosen = select_problems([pid], set_name="extended")
    problem = chosen.problems[0]
    assert chosen.basis(problem).disputed and "fails the verifier" in str(
        chosen.basis(problem).dispute
    )
    assert chosen.optimum(problem) is None
    listed = runner.invoke(app, ["problems", "--set", "extended", "--json"])
    assert listed.exit_code == 0, listed.output
    (record,) = [r for r in json.loads(listed.stdout) if r["id"] == pid]
    assert "optimum_basis" in record  # the listing re-checks sizes only (no verifier run)
    shipped = get_solution_of(load_atlas(), pid)
    answer = tmp_path / "answer.json"
    answer.write_text(json.dumps(shipped))
    result = runner.invoke(app, ["verify", pid, str(answer), "--set", "extended", "--json"])
    data = json.loads(result.stdout)
    assert data["optimum_vertices"] is None and data["minimal"] is None


def test_a_disputed_entry_is_no_shipped_proof_for_a_dataset(forged_atlas, tmp_path):
    """A problem-set file naming the problem keeps its own solution and claims: the disputed
    entry neither refuses it nor gives it an optimum."""
    pid = forged_atlas
    problem = select_problems([pid], set_name="extended").problems[0]
    row = {**problem.to_json(), "solution": get_solution_of(load_atlas(), pid)}
    path = tmp_path / "set.jsonl"
    path.write_text(json.dumps(row) + "\n")
    loaded = load_selection(path)
    assert loaded.optimum(problem) is None and loaded.atlas_ids == {}


NEGATIVE = "k3_k4_negative_sender"


@pytest.fixture
def forged_gap(monkeypatch) -> Iterator[str]:
    """The shipped atlas with a gap forged into the negative sender's "none on 13": one cube
    taken out of its proof and of its full re-run record, the counts made to agree."""
    forged = copy.deepcopy(load_atlas())
    bound = forged.entries[NEGATIVE].lower_bound
    layout, cubes = next(iter(bound["cubes"]["cubes"].items()))
    gone = cubes.pop(0)
    bound["rerun"]["cubes"][layout].remove(gone)
    bound["rerun"]["of"] = bound["rerun"]["rerun"] = bound["rerun"]["of"] - 1
    text = forged.to_json()
    monkeypatch.setattr(atlas_entries, "_shipped_text", lambda: text)
    clear_shipped_atlas_caches()
    yield NEGATIVE
    monkeypatch.undo()
    clear_shipped_atlas_caches()


def test_the_audited_atlas_reads_proven_and_an_edited_one_takes_coverage_from_the_file(
    forged_gap,
):
    """A forged gap passes every check that needs no search; ``atlas table`` disputes it by
    re-deriving the coverage; every other reader cannot, sees that the file is not the audited
    one, and says its coverage is the file's word: never "proven"."""
    entry = basis.shipped_atlas().entries[forged_gap]
    assert basis.reader_dispute(entry, exact=False) is None
    assert "cover" in str(dispute(entry))
    found = basis.shipped_entry_basis(forged_gap, exact=False)
    assert found is not None and not found.vertices_proven and not found.coverage_rederived
    assert (
        found.vertex_phrase() == "as far as the cube log holds (coverage as the atlas file records)"
    )
    # the listing shows it for every cube-log optimum of the edited file (the red-determiner's)
    listed = runner.invoke(app, ["problems", "--set", "extended", "--json"])
    (record,) = [r for r in json.loads(listed.stdout) if r["id"] == "k3_k4_red_determiner"]
    assert record["optimum_basis"]["coverage_rederived"] is False
    assert "coverage as the atlas file records" in record["optimum_basis"]["rests_on"]


def test_the_shipped_negative_senders_bound_reads_proven():
    clear_shipped_atlas_caches()
    found = basis.shipped_entry_basis(NEGATIVE, exact=False)
    assert basis.shipped_atlas_audited() and found is not None and found.vertices_proven


def get_solution_of(atlas: Atlas, pid: str) -> dict:
    """The real solution of ``pid`` (read before the forgery took the shipped atlas' place)."""
    return {k: v for k, v in REAL[pid].items() if k in ("edges", "e", "f", "vertices")}


REAL = {e.id: dict(e.solution) for e in load_atlas().entries.values() if e.solution is not None}
