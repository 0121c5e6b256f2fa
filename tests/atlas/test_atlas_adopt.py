"""``atlas adopt``: cube logs enter the atlas only with what they prove, each lower bound
carries its cube proof, and ``atlas table`` proves it again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ramseygadgets.atlas import Atlas, AtlasError, load_atlas
from ramseygadgets.atlas.adopt import CubeRecheck, adopt_cube_log
from ramseygadgets.atlas.plan import AtlasTask
from ramseygadgets.atlas.run import new_entry
from ramseygadgets.atlas.table import (
    FROM_FILE,
    dispute,
    edges_rests_on,
    entry_json,
    prover_cell,
)
from ramseygadgets.cli import app
from ramseygadgets.problems.catalog import Problem
from ramseygadgets.problems.extended import extended_problems
from ramseygadgets.search.options import SearchOptions
from ramseygadgets.search.parallel import solve_cubes

runner = CliRunner()
P3_K3_RED = Problem.make("P3", "K3", "red-determiner")  # as tests/atlas/conftest.py


@pytest.fixture
def log(p3_k3_log: Path) -> Path:
    return p3_k3_log


def _fresh_atlas() -> Atlas:
    """An atlas whose one entry knows only the definition's bound."""
    entry = new_entry(AtlasTask("paper", P3_K3_RED))
    return Atlas({entry.id: entry})


def _edit(log: Path, tmp_path: Path, change) -> Path:
    """A copy of the log with ``change(records)`` applied."""
    records = [json.loads(line) for line in log.read_text().splitlines()]
    change(records)
    path = tmp_path / "edited.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def _none_cubes(records, n):
    return [r for r in records if r["kind"] == "cube" and r["n"] == n and r["outcome"] == "none"]


def test_a_log_gives_the_entry_its_solution_and_the_proof_of_its_lower_bound(log):
    atlas = _fresh_atlas()
    report = adopt_cube_log(atlas, log.parent)  # the --out directory names the log too
    assert [(a.fact, a.outcome) for a in report] == [
        (report[0].fact, "adopted"),
        ("no solution on 4 vertices (cube log, 4 cubes, 1 re-run (agree))", "adopted"),
    ]
    assert report[0].fact.startswith("a solution on 5 vertices")
    entry = atlas.entries[P3_K3_RED.id]
    assert (entry.status, entry.n, entry.bound) == ("minimal", 5, 5)
    assert entry.lower_bound["cubes"]["n"] == 4 and entry.lower_bound["sha256"]
    assert entry.lower_bound["rerun"]["rerun"] == 1 and entry.lower_bound["rerun"]["agree"]
    assert entry.lower_bound["rests_on"] == "none on 4: cube log, 4 cubes, 1 re-run (agree)"
    assert entry.solution["recheck"] == {"method": "brute-force", "agrees": True}
    assert entry.solution["edges_minimal"] is False
    assert dispute(entry) is None
    # adopting the same log again changes nothing and says so
    again = adopt_cube_log(atlas, log)
    assert {a.outcome for a in again} == {"known"}


def test_re_running_a_logs_cubes_reports_each_one(log):
    """A re-run of many cubes takes long: the caller hears of every cube (the CLI draws a bar)."""
    heard: list[tuple[str, int, int]] = []
    recheck = CubeRecheck(share=1.0, seed=0, progress=lambda *a: heard.append(a))
    adopt_cube_log(_fresh_atlas(), log, recheck)
    fact = f"{P3_K3_RED.id}: no solution on 4 vertices"
    assert heard == [(fact, done, 4) for done in range(5)]


def test_the_table_proves_an_adopted_lower_bound_again(log):
    atlas = _fresh_atlas()
    adopt_cube_log(atlas, log)
    entry = atlas.entries[P3_K3_RED.id]
    cubes = entry.lower_bound["cubes"]["cubes"]
    layout = next(name for name, bits in cubes.items() if bits)
    cubes[layout] = cubes[layout][1:]  # one UNSAT cube forged away: a gap
    assert "cube proof does not hold" in dispute(entry)
    cubes[layout] = ["0", "1"]  # cubes that cover everything, claimed by an unknown engine
    entry.lower_bound["cubes"]["engine"] = "sat-oracle"
    assert "unknown engine" in dispute(entry)
    atlas = _fresh_atlas()
    adopt_cube_log(atlas, log)
    entry = atlas.entries[P3_K3_RED.id]
    entry.solution = None
    entry.lower_bound["n"] = 6  # more than none on 4 shows
    assert "does not follow" in dispute(entry)
    # forged sizes are refused before any work (no hang, no recursion without end)
    entry.lower_bound["cubes"] = "forged"
    assert "a cube proof is a JSON object" in dispute(entry)
    entry.lower_bound["cubes"] = {"n": 10**6, "engine": "lazy", "cubes": {layout: ["1"]}}
    assert "needs a level n in 1..20" in dispute(entry)
    entry.lower_bound["cubes"]["n"] = 4
    entry.lower_bound["cubes"]["cubes"][layout] = ["1" * 10**5]
    assert "not bit strings of at most one bit per pair of 4 vertices" in dispute(entry)


def test_an_undecided_level_is_left_out_and_the_levels_below_it_count(log, tmp_path):
    gap = _edit(log, tmp_path, lambda rs: rs.remove(_none_cubes(rs, 4)[0]))
    atlas = _fresh_atlas()
    report = {a.fact.split(":")[0].split(" (")[0]: a.outcome for a in adopt_cube_log(atlas, gap)}
    assert report["level 4 undecided"] == "left out"
    assert report["no solution on 3 vertices"] == "adopted"
    entry = atlas.entries[P3_K3_RED.id]
    assert (entry.status, entry.bound, entry.n) == ("open", 4, 5)


def test_a_wrong_logged_solution_is_left_out(log, tmp_path):
    def drop_an_edge(records):
        found = next(r for r in records if r.get("outcome") == "found" and r["kind"] == "cube")
        found["edges"] = found["edges"][1:]

    atlas = _fresh_atlas()
    report = adopt_cube_log(atlas, _edit(log, tmp_path, drop_an_edge))
    wrong = next(a for a in report if a.fact.startswith("a solution"))
    assert wrong.outcome == "left out" and "does not check" in wrong.fact
    assert atlas.entries[P3_K3_RED.id].solution is None


def test_malformed_cube_records_prove_nothing_and_break_nothing(log, tmp_path):
    def spoil(records):
        for r in _none_cubes(records, 4)[:1]:
            r["bits"] = "not bits"
        records.append({"kind": "cube", "problem_id": P3_K3_RED.id, "n": "4", "outcome": "none"})
        found = next(r for r in records if r.get("outcome") == "found" and r["kind"] == "cube")
        for change in ({"layout": "nowhere"}, {"n": 10**6}, {"edges": "0-1"}):
            records.append({**found, **change})

    atlas = _fresh_atlas()
    report = adopt_cube_log(atlas, _edit(log, tmp_path, spoil))
    assert atlas.entries[P3_K3_RED.id].bound == 4  # level 4 lost a cube: only none on 3 holds
    unreadable = [a.fact for a in report if a.fact.startswith("an unreadable solution")]
    assert len(unreadable) == 3 and "no layout 'nowhere'" in unreadable[0]
    assert atlas.entries[P3_K3_RED.id].n == 5  # the good solution record still counts


def test_a_log_that_contradicts_a_proof_is_an_error(log, tmp_path):
    atlas = _fresh_atlas()
    atlas.entries[P3_K3_RED.id].lower_bound = {"n": 6, "proof": "forged", "engine": "x"}
    with pytest.raises(AtlasError, match="contradicts the proof"):
        adopt_cube_log(atlas, log)


def test_the_cli_adopts_writes_and_the_table_shows_it(log, tmp_path):
    base = tmp_path / "base.json"
    _fresh_atlas().write(base)
    out = tmp_path / "atlas.json"
    result = runner.invoke(app, ["atlas", "adopt", str(log), "--base", str(base), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "no solution on 4 vertices (cube log, 4 cubes, 1 re-run (agree)) (adopted)" in (
        result.output
    )
    assert "2 of 2 facts adopted" in result.output
    table = runner.invoke(app, ["atlas", "table", "--data", str(out)])
    assert table.exit_code == 0, table.output
    row = next(line for line in table.output.splitlines() if line.startswith("| paper | P3 | K3"))
    # a sample re-run: the bound rests partly on the log's word, so n is marked, not bold
    assert "| 5 † |" in row and "none on 4: cube log, 4 cubes, 1 re-run (agree)" in row
    every = runner.invoke(
        app, ["atlas", "adopt", str(log), "--base", str(out), "-o", str(out), "--recheck", "all"]
    )
    assert every.exit_code == 0 and "all re-run (agree)) (adopted)" in every.output
    table = runner.invoke(app, ["atlas", "table", "--data", str(out)])
    row = next(line for line in table.output.splitlines() if line.startswith("| paper | P3 | K3"))
    assert "| **5** |" in row and "none on 4: cube log, 4 cubes, all re-run (agree)" in row
    as_json = runner.invoke(
        app, ["atlas", "adopt", str(log), "--base", str(out), "-o", str(out), "--json"]
    )
    assert as_json.exit_code == 0
    assert {f["outcome"] for f in json.loads(as_json.output)["facts"]} == {"known"}


def test_the_cli_refuses_bad_logs_in_one_line_and_writes_nothing(log, tmp_path):
    base = tmp_path / "base.json"
    _fresh_atlas().write(base)
    out = tmp_path / "atlas.json"
    torn = tmp_path / "torn.jsonl"
    torn.write_text("{not json}\n" + log.read_text())
    bad_base = tmp_path / "bad.json"
    bad = Atlas.from_text(base.read_text(), "base")
    bad.entries[P3_K3_RED.id].lower_bound = {"n": 6, "proof": "forged", "engine": "x"}
    bad.write(bad_base)
    for args in (
        [str(tmp_path / "missing.jsonl"), "--base", str(base)],
        [str(torn), "--base", str(base)],
        [str(log), "--base", str(bad_base)],
    ):
        result = runner.invoke(app, ["atlas", "adopt", *args, "-o", str(out)])
        assert result.exit_code == 2, result.output
        assert "Traceback" not in result.output and len(result.output.strip().splitlines()) <= 2
        assert not out.exists()


def test_a_problem_outside_the_atlas_is_named_and_left_out(log):
    atlas = Atlas()
    assert [str(a) for a in adopt_cube_log(atlas, log)] == [
        f"{P3_K3_RED.id}: not an atlas problem (left out)"
    ]
    assert not atlas.entries


def test_the_shipped_atlas_holds_the_k3_k4_frontier_with_proofs_it_checks_again():
    atlas = load_atlas()
    blue = atlas.entries["k3_k4_blue_determiner"]
    assert (blue.status, blue.n, blue.solution["m"]) == ("minimal", 14, 76)
    assert blue.lower_bound["cubes"]["n"] == 13
    # 76 edges fewest: the --max-edges 75 cube log of level 14, coverage re-derived here
    assert blue.solution["edges_minimal"] and blue.solution["edges_cubes"]["max_edges"] == 75
    assert edges_rests_on(blue) == (
        f"none on 14 with at most 75 edges: cube log, 285 cubes, all re-run (agree), {FROM_FILE}"
    )
    red = atlas.entries["k3_k4_red_determiner"]  # none on 14 by 376 cubes, found on 15
    assert (red.status, red.n, red.solution["m"]) == ("minimal", 15, 89)
    assert red.lower_bound["cubes"]["n"] == 14 and red.solution["recheck"]["agrees"]
    bounds = {"k3_k4_blue_determiner": 14, "k3_k4_negative_sender": 14, "k3_k4_red_determiner": 15}
    for pid, bound in bounds.items():
        entry = atlas.entries[pid]
        assert entry.bound == bound and "cubes" in entry.lower_bound
        assert dispute(entry) is None
    tier = {p.id: p.size_tier for p in extended_problems()}
    assert tier["k3_k4_blue_determiner"] == tier["k3_k4_red_determiner"] == "≥11"


@pytest.fixture(scope="module")
def minimised_log(tmp_path_factory) -> Path:
    """A cube run of the (P3, K3)-red-determiner that minimises edges by capped rounds."""
    out = tmp_path_factory.mktemp("cubes") / "minimised"
    solve_cubes(P3_K3_RED, SearchOptions(max_vertices=6, cubes=4, out=out))
    return out / "cubes.jsonl"


def test_capped_rounds_prove_the_solution_edge_minimal_and_the_table_proves_it_again(
    minimised_log,
):
    atlas = _fresh_atlas()
    report = adopt_cube_log(atlas, minimised_log)
    entry = atlas.entries[P3_K3_RED.id]
    n, m = entry.solution["n"], entry.solution["m"]
    assert (n, entry.solution["edges_minimal"]) == (5, True)
    edge_facts = [a for a in report if "at most" in a.fact and a.outcome == "adopted"]
    assert len(edge_facts) == 1
    assert edge_facts[0].fact.startswith(f"no solution on 5 vertices with at most {m - 1} edges")
    proof = entry.solution["edges_cubes"]
    assert entry.solution["edges_proof"] == proof["proof"]
    assert (proof["n"], proof["max_edges"], proof["cubes"]["max_edges"]) == (5, m - 1, m - 1)
    assert dispute(entry) is None
    shown = entry_json(entry)
    assert shown["edges_rests_on"].startswith(f"none on 5 with at most {m - 1} edges: cube log")
    assert "edges: none on 5" in prover_cell(entry)


@pytest.mark.parametrize(
    ("forge", "why"),
    [
        (lambda p: p["cubes"].update(cubes={"e=0-1": []}), "does not hold"),
        (lambda p: p["cubes"].update(max_edges=p["max_edges"] - 1), "not that"),
        (lambda p: p["cubes"].pop("max_edges"), "not that"),
        (lambda p: p.update(cubes="all of them"), "does not hold"),
        (lambda p: p["cubes"].update(max_edges="75"), "edge cap is a count of edges"),
    ],
)
def test_a_forged_edge_proof_is_disputed(minimised_log, forge, why):
    atlas = _fresh_atlas()
    adopt_cube_log(atlas, minimised_log)
    entry = atlas.entries[P3_K3_RED.id]
    forge(entry.solution["edges_cubes"])
    assert why in dispute(entry)


def test_capped_cubes_that_leave_the_level_open_prove_no_edge_count(minimised_log, tmp_path):
    def drop_last_round_cube(records):
        capped = [r for r in records if r["kind"] == "cube" and "max_edges" in r]
        last = min(r["max_edges"] for r in capped)
        records.remove(next(r for r in capped if r["max_edges"] == last and r["outcome"] == "none"))

    atlas = _fresh_atlas()
    report = adopt_cube_log(atlas, _edit(minimised_log, tmp_path, drop_last_round_cube))
    entry = atlas.entries[P3_K3_RED.id]
    assert not entry.solution["edges_minimal"] and "edges_cubes" not in entry.solution
    assert any("undecided" in a.fact and a.outcome == "left out" for a in report)


def test_an_edge_proof_of_other_sizes_is_refused_and_one_of_a_minimal_solution_changes_nothing(
    minimised_log,
):
    atlas = _fresh_atlas()
    adopt_cube_log(atlas, minimised_log)
    entry = atlas.entries[P3_K3_RED.id]
    proof = dict(entry.solution["edges_cubes"])
    before = dict(entry.solution)
    entry.add_edge_proof(proof)  # already edge-minimal: kept as it is
    assert entry.solution == before
    entry.solution = {**before, "edges_minimal": False, "m": before["m"] + 1}
    with pytest.raises(AtlasError, match="says nothing of the solution's"):
        entry.add_edge_proof(proof)
