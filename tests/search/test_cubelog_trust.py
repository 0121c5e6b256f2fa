"""A cube log is checked before it proves anything (issue #32): every record must name the
problem and the level it is used for, a level with a logged solution is never none, and a
log proves "none" only as far as its cubes were run again (``--recheck``); the proof line
says what the fact rests on.  Each forgery starts from a genuine log of a tiny search."""

from __future__ import annotations

import importlib
import json
import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ramseygadgets.cli import app
from ramseygadgets.problems.catalog import Problem
from ramseygadgets.search import SearchError
from ramseygadgets.search.cubeproof import (
    CubeLogRefused,
    CubeProof,
    check_none_below,
    parse_recheck,
    read_checked,
    rerun_cubes,
    sample_cubes,
)
from ramseygadgets.search.cubes import generate_cubes
from ramseygadgets.search.options import SearchOptions
from ramseygadgets.search.parallel import solve_cubes
from ramseygadgets.search.solve import LevelRecord

cli = CliRunner()
#: needs 9 vertices (a solution on 9 exists); none on 8
K3_K4E_BLUE = Problem.make("K3", "K4-e", "blue-determiner")
BLUE_ARGS = ["--F", "K3", "--H", "K4-e", "--gadget", "blue-determiner"]


@pytest.fixture(scope="module")
def level8(tmp_path_factory) -> Path:
    """A genuine log: level 8 of the (K3, K4−e)-blue-determiner, none in 8 cubes."""
    out = tmp_path_factory.mktemp("trust") / "run8"
    r = solve_cubes(K3_K4E_BLUE, SearchOptions(min_vertices=8, max_vertices=8, cubes=8, out=out))
    assert r.status == "none-up-to-limit" and r.levels[0].cubes >= 8
    return out / "cubes.jsonl"


def _rows(log: Path) -> list[dict]:
    return [json.loads(line) for line in log.read_text().splitlines()]


def _write(rows: list[dict], path: Path) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _relevel(log: Path, path: Path, n: int, *, key: bool) -> Path:
    """The log with every record's ``n`` rewritten (and, with ``key``, its key too)."""
    rows = _rows(log)
    for r in rows:
        r["n"] = n
        if key and "key" in r:
            r["key"] = f"{n}|{r['key'].split('|', 1)[1]}"
    return _write(rows, path)


def test_a_log_with_its_level_rewritten_is_refused_in_one_line(level8, tmp_path):
    """Today a level-8 log with n rewritten to 9 'proves' minimal on 10, though 9 has a
    solution: the records' n no longer matches their keys."""
    forged = _relevel(level8, tmp_path / "n9.jsonl", 9, key=False)
    with pytest.raises(CubeLogRefused, match=r"n9\.jsonl:1: a cube record of level 9 whose key"):
        check_none_below(forged, K3_K4E_BLUE, 9)
    with pytest.raises(CubeLogRefused, match="names level 8"):
        solve_cubes(
            K3_K4E_BLUE, SearchOptions(min_vertices=10, max_vertices=10, assume_none_below=forged)
        )
    args = [*BLUE_ARGS, "--min-vertices", "10", "--max-vertices", "10"]
    result = cli.invoke(app, ["solve", *args, "--assume-none-below", str(forged)])
    assert result.exit_code == 2, result.output
    assert result.output.count("error:") == 1 and "n9.jsonl:1:" in result.output
    assert "lower_bound" not in result.output and "minimal" not in result.output


def test_a_consistent_relabel_is_caught_by_rerunning_the_cubes(level8, tmp_path):
    """With n and keys both rewritten, nothing in the log betrays it: taken on trust it is
    shown as such, and --recheck all runs the cubes at level 9, where one finds a solution."""
    forged = _relevel(level8, tmp_path / "n9key.jsonl", 9, key=True)
    trusted = check_none_below(forged, K3_K4E_BLUE, 9)
    assert trusted.startswith("none on 9: cube log, 8 cubes, taken on trust (not re-run)")
    with pytest.raises(CubeLogRefused, match=r"n9key\.jsonl:\d+: cube 9\|.* finds a solution"):
        check_none_below(forged, K3_K4E_BLUE, 9, recheck=1.0)
    args = [*BLUE_ARGS, "--min-vertices", "10", "--max-vertices", "10", "--recheck", "all"]
    result = cli.invoke(app, ["solve", *args, "--assume-none-below", str(forged)])
    assert result.exit_code == 2 and result.output.count("error:") == 1, result.output
    assert "is logged none, but its re-run finds a solution on 9 vertices" in result.output


def test_a_flipped_cube_outcome_is_caught_by_recheck_all(tmp_path):
    """A level-9 log whose found cube is rewritten as none (and whose unrun cubes are added as
    none) covers the level; re-running every cube finds the solution again."""
    out = tmp_path / "run9"
    r = solve_cubes(
        K3_K4E_BLUE,
        SearchOptions(min_vertices=9, max_vertices=9, cubes=8, out=out, minimize_edges=False),
    )
    assert r.found and r.n == 9
    rows = [row for row in _rows(out / "cubes.jsonl") if row["kind"] == "cube"]
    found = next(row for row in rows if row["outcome"] == "found")
    found.update(outcome="none", edges=None)
    logged = {row["key"] for row in rows}
    for cube in generate_cubes(K3_K4E_BLUE, 9, 8, "lazy").cubes:
        if cube.key not in logged:
            rows.append({**found, "key": cube.key, "layout": cube.layout_name, "bits": cube.bits})
    forged = _write(rows, tmp_path / "flipped.jsonl")
    assert "taken on trust" in check_none_below(forged, K3_K4E_BLUE, 9)
    with pytest.raises(CubeLogRefused, match="its re-run finds a solution on 9 vertices"):
        check_none_below(forged, K3_K4E_BLUE, 9, recheck="all")


def test_a_level_with_a_logged_solution_never_proves_none(level8, tmp_path):
    rows = _rows(level8)
    cube = next(r for r in rows if r["kind"] == "cube")
    rows.append({**cube, "outcome": "found", "edges": [[0, 1]]})
    forged = _write(rows, tmp_path / "found.jsonl")
    with pytest.raises(CubeLogRefused, match=rf"found\.jsonl:{len(rows)}: records a solution"):
        check_none_below(forged, K3_K4E_BLUE, 8)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("problem", "(K3, K4)-blue-determiner"),
        ("patterns", ["K3", "K4"]),
        ("gadget", "red-determiner"),
        ("colours", 3),
    ],
)
def test_a_record_of_another_problem_under_this_id_is_refused(level8, tmp_path, field, value):
    rows = _rows(level8)
    rows[2][field] = value
    forged = _write(rows, tmp_path / "other.jsonl")
    with pytest.raises(CubeLogRefused, match=rf"other\.jsonl:3: .* whose {field} is"):
        check_none_below(forged, K3_K4E_BLUE, 8)
    with pytest.raises(CubeLogRefused):
        read_checked(forged, K3_K4E_BLUE)


def test_new_records_name_the_problem_in_full(level8):
    cube = next(r for r in _rows(level8) if r["kind"] == "cube")
    assert cube["problem"] == K3_K4E_BLUE.title and cube["patterns"] == ["K3", "K4-e"]
    assert cube["gadget"] == "blue-determiner" and cube["colours"] == 2


def test_a_log_read_back_by_solve_out_is_held_to_the_same_rules(level8, tmp_path):
    """Resuming from --out checks the records as --assume-none-below does, and the proof line
    says which cubes were taken from the log without being run again."""
    out = tmp_path / "resume"
    out.mkdir()
    (out / "cubes.jsonl").write_text(level8.read_text())
    again = solve_cubes(
        K3_K4E_BLUE, SearchOptions(min_vertices=8, max_vertices=9, cubes=8, out=out)
    )
    assert again.found and again.n == 9 and again.lower_bound == 9
    cubes = again.levels[0].cubes
    assert f"level 8: {cubes} of {cubes} cubes from the checkpoint log, taken on trust" in (
        again.proof()
    )
    assert "minimal as far as the cube log holds" in again.proof()
    assert again.to_json()["lower_bound_on_trust"] is True
    bad = tmp_path / "bad"
    bad.mkdir()
    _relevel(level8, bad / "cubes.jsonl", 9, key=False)
    with pytest.raises(CubeLogRefused, match=r"cubes\.jsonl:1: a cube record of level 9"):
        solve_cubes(K3_K4E_BLUE, SearchOptions(min_vertices=8, max_vertices=9, cubes=8, out=bad))


def test_recheck_all_makes_the_bound_proven_and_says_so(level8):
    r = solve_cubes(
        K3_K4E_BLUE,
        SearchOptions(
            min_vertices=9,
            max_vertices=9,
            cubes=4,
            assume_none_below=level8,
            recheck="all",
            minimize_edges=False,
        ),
    )
    assert r.found and r.lower_bound == 9 and not r.bound_on_trust()
    assert "none on 8: cube log, 8 cubes, all re-run (agree)" in r.proof()
    assert "minimal: no solution on fewer than 9 vertices" in r.proof()
    trusted = solve_cubes(
        K3_K4E_BLUE,
        SearchOptions(min_vertices=9, max_vertices=9, cubes=4, assume_none_below=level8),
    )
    assert trusted.bound_on_trust() and "(minimal as far as the cube log holds)" in (
        trusted.describe()
    )


def test_a_sample_is_seeded_and_its_size_is_the_fraction_rounded_up(level8):
    (proof,) = CubeProof.from_numbered(read_checked(level8, K3_K4E_BLUE), K3_K4E_BLUE)
    n = proof.cubes
    assert len(sample_cubes(proof, 0.3, seed=7)) == math.ceil(0.3 * n)
    assert sample_cubes(proof, 0.3, seed=7) == sample_cubes(proof, 0.3, seed=7)
    assert sample_cubes(proof, 1.0, seed=1) == proof.cube_list()
    rerun = rerun_cubes(proof, 0.3, seed=7, where=level8)
    assert rerun.count == math.ceil(0.3 * n) and rerun.seed == 7
    assert rerun.to_json()["rerun"] == rerun.count and rerun.to_json()["agree"] is True
    assert rerun_cubes(proof, 0.3).seed is not None  # a fresh seed, recorded
    assert rerun_cubes(proof, 0.0).count == 0
    for text, share in (("all", 1.0), ("none", 0.0), ("0.25", 0.25), (None, 0.0)):
        assert parse_recheck(text) == share
    for bad in ("2", "-0.1", "some", "nan"):
        with pytest.raises(SearchError, match="--recheck takes all, none or a fraction"):
            parse_recheck(bad)


def test_cli_recheck_options(level8):
    args = [*BLUE_ARGS, "--min-vertices", "9", "--max-vertices", "9", "--any-edges"]
    result = cli.invoke(
        app, ["solve", *args, "--assume-none-below", str(level8), "--recheck", "0.5", "--seed", "3"]
    )
    assert result.exit_code == 0, result.output
    assert "none on 8: cube log, 8 cubes, 4 re-run (agree)" in result.output
    assert "sample seed 3" in result.output
    for bad, message in (
        (["--recheck", "all"], "go with --assume-none-below"),
        (["--assume-none-below", str(level8), "--recheck", "2"], "a fraction in [0, 1]"),
    ):
        result = cli.invoke(app, ["solve", *args, *bad])
        assert result.exit_code == 2 and result.output.count("error:") == 1, result.output
        assert message in result.output


def test_an_interrupted_single_problem_prints_its_proof_line(monkeypatch):
    """docs/search.md: every run prints a proof: line, an interrupted one too."""

    def interrupted(problem, options, *, on_level, on_start):
        for n in (2, 3):
            on_level(LevelRecord(n, "none", 0.0))
        raise KeyboardInterrupt

    solve_module = importlib.import_module("ramseygadgets.search.solve")  # not the function
    monkeypatch.setattr(solve_module, "solve", interrupted)  # the CLI imports it when it runs
    result = cli.invoke(app, ["solve", "p3_k3_red_determiner"])
    assert result.exit_code == 130
    assert "proof: none on 2..3 vertices" in result.output
    assert "no solution has fewer than 4 vertices" in result.output


@pytest.mark.parametrize("stop_in", ["level", "check"])
def test_an_interrupted_run_on_a_checked_log_says_what_its_proof_rests_on(
    level8, monkeypatch, stop_in
):
    """Ctrl-C during level 9 of ``--assume-none-below`` (no level finished): the proof line
    names the checked log (it said "levels below 9 not searched" before); Ctrl-C during the
    check itself claims nothing from the log."""
    parallel = importlib.import_module("ramseygadgets.search.parallel")

    def stop(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(parallel, "_level" if stop_in == "level" else "none_below", stop)
    args = [*BLUE_ARGS, "--min-vertices", "9", "--max-vertices", "9", "--any-edges"]
    result = cli.invoke(app, ["solve", *args, "--assume-none-below", str(level8)])
    assert result.exit_code == 130, result.output
    assert "interrupted: no level decided" in result.output
    if stop_in == "level":
        assert "proof: none on 8: cube log, 8 cubes" in result.output
        assert "not searched" not in result.output
    else:
        assert "proof: levels below 9 not searched" in result.output
        assert "cube log" not in result.output


def test_a_none_cube_whose_bits_are_not_its_keys_is_refused(level8, tmp_path):
    """Bits moved to fill a gap in the coverage, the key left as it was."""
    rows = _rows(level8)
    none = next(i for i, r in enumerate(rows) if r.get("outcome") == "none")
    rows[none]["bits"] += "0"
    forged = _write(rows, tmp_path / "bits.jsonl")
    with pytest.raises(CubeLogRefused, match=rf"bits\.jsonl:{none + 1}: .* its layout and bits"):
        check_none_below(forged, K3_K4E_BLUE, 8)
