"""``atlas run`` on a tiny subset: search, exhaustive check, files, resume, Ctrl-C, CLI errors."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from ramseygadgets.atlas import Atlas, AtlasError, load_atlas
from ramseygadgets.atlas.run import AtlasOptions, run_atlas
from ramseygadgets.cli import app
from ramseygadgets.infra.executors import Executor, LocalExecutor
from ramseygadgets.problemsets import ProblemSetError, ProblemSetWriter, iter_records
from ramseygadgets.search.exhaustive import nauty_available

pytestmark = pytest.mark.skipif(not nauty_available(), reason="nauty (geng) is not installed")
runner = CliRunner()
SMALL = ("p3_p3_positive_sender", "p3_p3_negative_sender", "p4_p4_negative_sender")
SHIPPED = "p3_k3_red_determiner"  # one of the paper's 70: known, never searched again
OPEN = "k3_k4_red_determiner"  # needs more than 6 vertices
ONLY = (*SMALL, SHIPPED, OPEN)


def _options(**kw) -> AtlasOptions:
    base = dict(timeout=30.0, max_vertices=6, cross_check_up_to=6, only=ONLY)
    return AtlasOptions(**{**base, **kw})


class _InterruptAfter(Executor):
    """Runs tasks in this process and presses Ctrl-C after ``count`` results."""

    def __init__(self, count: int) -> None:
        self.count = count

    def run(self, fn, items, *, describe=str):
        for index, item in enumerate(items):
            if index == self.count:
                raise KeyboardInterrupt
            yield index, fn(item)


def test_a_run_searches_checks_writes_and_resumes(tmp_path):
    out = tmp_path / "atlas"
    first = run_atlas(out, _options(), executor=LocalExecutor(1), base=Atlas())
    assert not first.interrupted
    assert sorted(r["id"] for r in first.searched) == sorted((*SMALL, OPEN))
    assert sorted(c["id"] for c in first.checked) == sorted(SMALL)
    assert all(c["agree"] for c in first.checked)
    atlas = load_atlas(out / "atlas.json")
    for pid in SMALL:
        e = atlas.entries[pid]
        assert e.status == "minimal" and e.cross_check is not None and e.cross_check["agree"]
        assert e.solution is not None and e.solution["engine"] == "cegar"
        assert e.solution["budget"] == {"timeout": 30.0, "max_vertices": 6}
    assert atlas.entries[SHIPPED].solution["engine"] == "shipped"
    open_ = atlas.entries[OPEN]
    assert open_.status == "open" and open_.bound == 7 and open_.solution is None
    assert [lv["n"] for lv in open_.lower_bound["levels"]] == [2, 3, 4, 5, 6]
    assert atlas.entries["k3_k3_red_determiner"].status == "impossible"
    md = (out / "atlas.md").read_text()
    assert "| paper | P3 | P3 | negative-sender | **3** | 2 |" in md
    assert "| paper | K3 | K4 | red-determiner | none ≤ 6 | – |" in md

    again = run_atlas(out, _options(), executor=LocalExecutor(1), base=Atlas())
    assert again.searched == [] and again.checked == []
    assert load_atlas(out / "atlas.json").entries[OPEN].to_json() == open_.to_json()

    retry = run_atlas(
        out,
        _options(max_vertices=7, retry_unsolved=True, only=(OPEN,)),
        executor=LocalExecutor(1),
        base=Atlas(),
    )
    assert [(r["id"], r["min_vertices"]) for r in retry.searched] == [(OPEN, 7)]
    assert load_atlas(out / "atlas.json").entries[OPEN].bound == 8


def test_ctrl_c_keeps_finished_records_and_still_writes_the_atlas(tmp_path):
    outcome = run_atlas(tmp_path, _options(), executor=_InterruptAfter(2), base=Atlas())
    assert outcome.interrupted and len(outcome.searched) == 2
    assert len(list(iter_records(tmp_path / "results.jsonl"))) == 2
    minimal = [e for e in load_atlas(tmp_path / "atlas.json").entries.values() if e.id in SMALL]
    assert sum(e.status == "minimal" for e in minimal) == 2


def test_the_base_atlas_is_kept_and_only_improved(tmp_path):
    first = run_atlas(tmp_path / "a", _options(), executor=LocalExecutor(1), base=Atlas())
    weaker = _options(max_vertices=4, cross_check_up_to=0)
    second = run_atlas(tmp_path / "b", weaker, executor=LocalExecutor(1), base=first.atlas)
    assert second.searched == []  # everything is minimal or proven beyond 4 vertices
    assert second.atlas.entries[OPEN].bound == 7


def test_cli_errors_are_one_line(tmp_path):
    for args, message in (
        (["--problem", "nope"], "'nope' is not a problem of the atlas"),
        (["--engine", "warp"], "unknown search engine 'warp'"),
        (["--section", "moon"], "unknown atlas section 'moon'"),
        (["--base", str(tmp_path / "none.json")], "cannot read the atlas"),
    ):
        result = runner.invoke(app, ["atlas", "run", "--out", str(tmp_path / "o"), *args])
        assert result.exit_code == 2, result.output
        assert message in result.output and "Traceback" not in result.output


def test_cli_run_and_table(tmp_path):
    out = tmp_path / "o"
    args = ["atlas", "run", "--out", str(out), "--base", "none", "-j", "1", "--json"]
    args += ["--max-vertices", "6", "--cross-check", "6", "--problem", SMALL[1]]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    assert summary["searched"] == 1 and summary["checked"] == 1 and summary["disagree"] == []
    table = runner.invoke(app, ["atlas", "table", "--data", str(out / "atlas.json")])
    assert table.exit_code == 0 and "| paper | P3 | P3 | negative-sender | **3** |" in table.output
    assert table.output == (out / "atlas.md").read_text()


def test_a_wrong_recorded_solution_is_left_out_and_solved_again(tmp_path):
    bogus = {
        "id": SMALL[1],
        "F": "P3",
        "H": "P3",
        "gadget": "negative-sender",
        "status": "found",
        "n": 3,
        "m": 2,
        "lower_bound": 3,
        "edges_minimal": True,
        "solution": {"edges": [[0, 1], [0, 2]], "e": [0, 1], "f": [0, 1]},
    }
    (tmp_path / "results.jsonl").write_text(json.dumps(bogus) + "\n")
    outcome = run_atlas(tmp_path, _options(cross_check_up_to=0), base=Atlas())
    assert SMALL[1] in [r["id"] for r in outcome.searched]
    entry = load_atlas(tmp_path / "atlas.json").entries[SMALL[1]]
    assert entry.status == "minimal" and entry.solution["edges"] != bogus["solution"]["edges"]
    rejected = json.loads((tmp_path / "manifest.json").read_text())["rejected_records"]
    assert len(rejected) == 1 and "line 1: the solution is not a" in rejected[0]


def test_a_wrong_solution_in_the_base_atlas_is_refused(tmp_path):
    run_atlas(tmp_path / "a", _options(cross_check_up_to=0, only=SMALL[1:2]), base=Atlas())
    data = json.loads((tmp_path / "a" / "atlas.json").read_text())
    entry = next(e for e in data["entries"] if e["id"] == SMALL[1])
    entry["solution"]["f"] = entry["solution"]["e"]
    base = Atlas.from_text(json.dumps(data), "tampered")
    with pytest.raises(AtlasError, match="negative-sender: the recorded solution is wrong"):
        run_atlas(tmp_path / "b", _options(search=False, cross_check_up_to=0), base=base)


def test_reruns_with_other_problems_share_the_folder(tmp_path):
    first = run_atlas(tmp_path, _options(cross_check_up_to=0, only=SMALL[:1]), base=Atlas())
    second = run_atlas(tmp_path, _options(cross_check_up_to=0, only=SMALL[1:2]), base=Atlas())
    assert [r["id"] for r in first.searched] == [SMALL[0]]
    assert [r["id"] for r in second.searched] == [SMALL[1]]
    atlas = load_atlas(tmp_path / "atlas.json")
    assert atlas.entries[SMALL[0]].status == atlas.entries[SMALL[1]].status == "minimal"
    with ProblemSetWriter(tmp_path), pytest.raises(ProblemSetError, match="in use"):
        run_atlas(tmp_path, _options(cross_check_up_to=0), base=Atlas())  # one run at a time


def test_no_search_only_cross_checks_the_recorded_results(tmp_path):
    searched = run_atlas(tmp_path, _options(cross_check_up_to=0), base=Atlas())
    assert len(searched.searched) == 4 and searched.checked == []
    checked = run_atlas(tmp_path, _options(search=False), base=Atlas())
    assert checked.searched == [] and sorted(c["id"] for c in checked.checked) == sorted(SMALL)


def test_a_timed_out_search_line_reports_the_bound_it_started_from():
    """A search resumed at the base atlas's proven bound 9 that times out at n = 9 proves
    nothing new itself (lower_bound 3), but the line must not claim less than 9."""
    from ramseygadgets.cli.atlas import _line

    record = {"id": "k3_k4e_negative_sender", "status": "timeout", "seconds": 20.0}
    assert "none below 9 vertices" in _line({**record, "lower_bound": 3, "min_vertices": 9})
    assert "none below 10 vertices" in _line({**record, "lower_bound": 10, "min_vertices": 9})


def test_edges_lowers_and_proves_the_edge_count_of_a_minimal_entry(
    tmp_path, atlas_with_unproven_edges
):
    """The (K1,4, banner)-negative-sender minimal on 8 vertices with 21 edges, not proven
    edge-minimal (as the atlas shipped it): ``edges`` searches its level 8 again (a 20-edge
    solution exists) and proves the edge count; without it, a minimal entry is never searched."""
    pid = "k14_banner_negative_sender"
    base = atlas_with_unproven_edges
    assert base.entries[pid].status == "minimal" and base.entries[pid].solution["m"] == 21
    options = _options(only=(pid,), max_vertices=8, cross_check_up_to=0, timeout=120.0)
    plain = run_atlas(tmp_path / "plain", options, executor=LocalExecutor(1), base=base)
    assert plain.searched == []
    run = run_atlas(tmp_path / "edges", _options(**{**options.__dict__, "edges": True}), base=base)
    assert [r["id"] for r in run.searched] == [pid]
    entry = load_atlas(tmp_path / "edges" / "atlas.json").entries[pid]
    assert (entry.status, entry.n, entry.solution["m"]) == ("minimal", 8, 20)
    assert entry.solution["edges_minimal"] is True
    assert entry.solution["edges_proof"] == "no solution on 8 vertices with 19 edges (UNSAT)"
    assert entry.lower_bound == base.entries[pid].lower_bound  # the vertex proof is kept


def test_the_cli_edges_flag_reaches_the_run(tmp_path, atlas_with_unproven_edges):
    base = tmp_path / "base.json"
    atlas_with_unproven_edges.write(base)
    out = tmp_path / "run"
    args = ["atlas", "run", "--out", str(out), "--base", str(base), "--edges", "-j", "1"]
    args += ["--problem", "k14_banner_negative_sender", "--max-vertices", "8", "--cross-check", "0"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "searched 1" in result.output
    entry = load_atlas(out / "atlas.json").entries["k14_banner_negative_sender"]
    assert (entry.solution["m"], entry.solution["edges_minimal"]) == (20, True)
    assert load_atlas(out / "atlas.json").header["last_run"]["edges"] is True
