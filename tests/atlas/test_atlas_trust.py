"""What an atlas fact from a cube log rests on (issue #32): ``atlas adopt`` refuses a log whose
records name another level, re-runs a sample of its cubes (or all) before a bound counts and
records which; ``atlas table`` says what each bound rests on and marks the ones not all re-run;
``atlas table --json`` gives a disputed entry the status "disputed"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ramseygadgets.atlas import Atlas, load_atlas
from ramseygadgets.atlas.adopt import CubeRecheck, adopt_cube_log
from ramseygadgets.atlas.plan import AtlasTask
from ramseygadgets.atlas.run import new_entry
from ramseygadgets.atlas.table import (
    FROM_FILE,
    bound_on_trust,
    bound_rests_on,
    dispute,
    entry_json,
    result_cells,
)
from ramseygadgets.cli import app
from ramseygadgets.problems.catalog import Problem
from ramseygadgets.search.options import SearchOptions
from ramseygadgets.search.parallel import solve_cubes
from ramseygadgets.verification import basis

runner = CliRunner()
K3_K4_RED = Problem.make("K3", "K4", "red-determiner")  # open at 14 in the shipped atlas
P3_K3_RED = Problem.make("P3", "K3", "red-determiner")  # minimal: 5 vertices


@pytest.fixture(scope="module")
def level9(tmp_path_factory) -> Path:
    """A genuine log: level 9 of the (K3, K4)-red-determiner, none."""
    out = tmp_path_factory.mktemp("trust") / "run9"
    r = solve_cubes(K3_K4_RED, SearchOptions(min_vertices=9, max_vertices=9, cubes=4, out=out))
    assert r.status == "none-up-to-limit"
    return out / "cubes.jsonl"


@pytest.fixture(scope="module")
def p3_log(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("p3") / "run"
    solve_cubes(P3_K3_RED, SearchOptions(max_vertices=6, cubes=4, out=out, minimize_edges=False))
    return out / "cubes.jsonl"


def _relabel(log: Path, path: Path, n: int, *, key: bool) -> Path:
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    for r in rows:
        r["n"] = n
        if key and "key" in r:
            r["key"] = f"{n}|{r['key'].split('|', 1)[1]}"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _adopt(*args: str):
    return runner.invoke(app, ["atlas", "adopt", *args])


def test_a_log_relabelled_to_another_level_is_refused_in_one_line(level9, tmp_path):
    """Today a level-9 log relabelled 20 is adopted and shown as 'none ≤ 20' for a problem open
    at 14."""
    forged = _relabel(level9, tmp_path / "n20.jsonl", 20, key=False)
    out = tmp_path / "atlas.json"
    result = _adopt(str(forged), "-o", str(out))
    assert result.exit_code == 2, result.output
    assert result.output.count("error:") == 1 and len(result.output.strip().splitlines()) == 1
    assert "n20.jsonl:1: a cube record of level 20 whose key" in result.output
    assert not out.exists()


def test_a_consistent_relabel_is_not_confirmed_by_its_re_run(level9, tmp_path):
    """n and keys both rewritten: the sampled cube is run at level 20 and does not finish in
    its time (a genuine level-9 cube would); taken without a re-run it is shown as what it is."""
    forged = _relabel(level9, tmp_path / "n20key.jsonl", 20, key=True)
    out = tmp_path / "atlas.json"
    base = tmp_path / "base.json"  # an open entry (the definition's bound only), alone
    Atlas({K3_K4_RED.id: new_entry(AtlasTask("paper", K3_K4_RED))}).write(base)
    result = _adopt(
        str(forged), "-o", str(out), "--base", str(base), "--recheck-timeout", "1", "--seed", "0"
    )
    assert result.exit_code == 2 and result.output.count("error:") == 1, result.output
    assert "was not confirmed: its re-run did not finish within 1.0 s" in result.output
    assert not out.exists()
    result = _adopt(str(forged), "-o", str(out), "--base", str(base), "--recheck", "none")
    assert result.exit_code == 0, result.output
    entry = load_atlas(out).entries[K3_K4_RED.id]
    assert entry.bound == 21 and bound_on_trust(entry) and dispute(entry) is None
    assert result_cells(entry)[0] == "none ≤ 20 †"
    assert bound_rests_on(entry) == "none on 20: cube log, 4 cubes, taken on trust (not re-run)"
    table = runner.invoke(app, ["atlas", "table", "--data", str(out)])
    row = next(line for line in table.output.splitlines() if "| K3 | K4 | red-determiner |" in line)
    assert "none ≤ 20 †" in row and "taken on trust (not re-run)" in row


def test_the_entry_records_which_cubes_were_re_run(p3_log, tmp_path):
    entry = new_entry(AtlasTask("paper", P3_K3_RED))
    atlas = Atlas({entry.id: entry})
    adopt_cube_log(atlas, p3_log, CubeRecheck(share=0.5, seed=11))
    bound = atlas.entries[P3_K3_RED.id].lower_bound
    rerun = bound["rerun"]
    assert rerun["of"] == 4 and rerun["rerun"] == 2 and rerun["seed"] == 11
    assert sum(map(len, rerun["cubes"].values())) == 2
    assert all(
        set(bits) <= set(bound["cubes"]["cubes"][name]) for name, bits in rerun["cubes"].items()
    )
    assert bound["rests_on"] == "none on 4: cube log, 4 cubes, 2 re-run (agree)"
    # as adopt ran them: re-run; as a reader reads them back: the atlas file's record
    assert bound_rests_on(atlas.entries[P3_K3_RED.id]) == f"{bound['rests_on']}, {FROM_FILE}"
    # the same seed draws the same cubes
    again = Atlas({entry.id: new_entry(AtlasTask("paper", P3_K3_RED))})
    adopt_cube_log(again, p3_log, CubeRecheck(share=0.5, seed=11))
    assert again.entries[P3_K3_RED.id].lower_bound["rerun"]["cubes"] == rerun["cubes"]


@pytest.mark.parametrize(
    ("change", "why"),
    [
        (lambda r: r.update(agree=False), "not one of re-runs that agree"),
        (lambda r: r["cubes"].update({"e=0-1": ["0101"]}), "cubes the proof does not hold"),
        (lambda r: r.update(rerun=4), "counts 4 of 4 cubes"),
        (lambda r: r.update(cubes="all"), "lists no cubes"),
    ],
)
def test_a_forged_re_run_record_is_disputed(p3_log, change, why):
    entry = new_entry(AtlasTask("paper", P3_K3_RED))
    atlas = Atlas({entry.id: entry})
    adopt_cube_log(atlas, p3_log, CubeRecheck(share=0.25, seed=1))
    change(atlas.entries[P3_K3_RED.id].lower_bound["rerun"])
    assert why in dispute(atlas.entries[P3_K3_RED.id])


def test_a_level_with_a_logged_solution_is_left_out_with_its_line(p3_log, tmp_path):
    rows = [json.loads(line) for line in p3_log.read_text().splitlines()]
    cube = next(r for r in rows if r["kind"] == "cube" and r["n"] == 4)
    rows.append({**cube, "outcome": "found", "edges": [[0, 1]]})
    forged = tmp_path / "found4.jsonl"
    forged.write_text("".join(json.dumps(r) + "\n" for r in rows))
    atlas = Atlas({P3_K3_RED.id: new_entry(AtlasTask("paper", P3_K3_RED))})
    report = [str(a) for a in adopt_cube_log(atlas, forged)]
    assert any(
        f"level 4: the log records a solution there ({forged}:{len(rows)}) (left out)" in line
        for line in report
    )
    assert atlas.entries[P3_K3_RED.id].bound == 4  # none on 3 only


def test_table_json_gives_a_disputed_entry_the_status_disputed(p3_log, tmp_path):
    entry = new_entry(AtlasTask("paper", P3_K3_RED))
    atlas = Atlas({entry.id: entry})
    adopt_cube_log(atlas, p3_log)
    atlas.entries[P3_K3_RED.id].lower_bound["rerun"]["agree"] = False
    path = tmp_path / "atlas.json"
    atlas.write(path)
    result = runner.invoke(app, ["atlas", "table", "--data", str(path), "--json"])
    assert result.exit_code == 1
    (row,) = json.loads(result.stdout)
    assert row["status"] == "disputed" and "re-run record" in row["disputed"]


def test_the_shipped_cube_bounds_say_what_they_rest_on():
    """The blue-determiner's bound on 13 was adopted with every cube re-run (atlas adopt
    --recheck all), the negative sender's 123 cubes on 13 all re-run in a resumable sitting with
    the degree rules off, the red-determiner's 376 cubes on 14 all re-run with the degree rules
    on and another seed (atlas adopt --rerun-log, issue #48): coverage re-derived, nothing left
    on trust (no †)."""
    atlas = load_atlas()
    expected = {
        "k3_k4_red_determiner": (
            f"none on 14: cube log, 376 cubes, all re-run (agree), {FROM_FILE}",
            False,
        ),
        "k3_k4_blue_determiner": (
            f"none on 13: cube log, 32 cubes, all re-run (agree), {FROM_FILE}",
            False,
        ),
        "k3_k4_negative_sender": (
            f"none on 13: cube log, 123 cubes, all re-run (agree), {FROM_FILE}",
            False,
        ),
    }
    for pid, (rests, on_trust) in expected.items():
        entry = atlas.entries[pid]
        assert bound_rests_on(entry) == rests and dispute(entry) is None
        assert bound_on_trust(entry) is on_trust
    assert result_cells(atlas.entries["k3_k4_blue_determiner"])[0] == "**14**"
    assert result_cells(atlas.entries["k3_k4_red_determiner"])[0] == "**15**"  # found on 15
    assert result_cells(atlas.entries["k3_k4_negative_sender"])[0] == "none ≤ 13"
    assert sum(bound_on_trust(e) for e in atlas.entries.values()) == 0
    red = atlas.entries["k3_k4_red_determiner"].lower_bound["rerun"]
    assert red["configs"] == {"degree rules on, auto, seed 1": 376}
    sender = atlas.entries["k3_k4_negative_sender"].lower_bound["rerun"]
    assert sender["configs"] == {"degree rules off, auto, seed None": 123}
    assert sender["rerun_log"]["source"].endswith("k3_k4_negative_sender-13-rerun.jsonl")
    blue = entry_json(atlas.entries["k3_k4_blue_determiner"])  # as atlas table --json gives it
    assert blue["lower_bound_rests_on"] == expected["k3_k4_blue_determiner"][0]
    assert blue["lower_bound_on_trust"] is False and blue["status"] == "minimal"


def _prose(path: Path) -> str:
    return " ".join(path.read_text(encoding="utf-8").split())


def test_the_readme_and_the_trust_page_say_what_the_shipped_optima_rest_on():
    """The sentences of README.md (Trust) and docs/trust.md on the (K3, K4) determiners follow
    what the shipped atlas's entries rest on, re-derived here: they go false when it changes."""
    red = basis.shipped_entry_basis("k3_k4_red_determiner", exact=False)
    blue = basis.shipped_entry_basis("k3_k4_blue_determiner", exact=False)
    assert red is not None and blue is not None
    assert red.vertices_proven and red.edges == "not proven"
    assert blue.vertices_proven and blue.edges in ("proven", "cube log")
    blue_edges = (
        "blue-determiner's 14 vertices and its 76 edges are proven (all 285 cubes re-run"
        if blue.edges == "proven"
        else f"({blue.edges_not_rerun} of 285 cubes not re-run)"
    )
    root = Path(__file__).resolve().parents[2]
    for page in (root / "README.md", root / "docs" / "trust.md"):
        text = _prose(page)
        assert "red-determiner's 15 vertices are proven (all 376 cubes re-run" in text, page
        assert blue_edges in text, page
