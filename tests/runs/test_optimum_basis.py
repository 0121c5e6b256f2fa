"""What an optimum rests on, shown wherever it is graded (issue 45, items 1–2). The (K3, K4)
red-determiner as the atlas stood before its bound was re-run in full (``red_on_trust``: 38 of
376 cubes re-run, an audited file): its 15 vertices hold as far as its cube log holds and its
edge count is not proven, so a 16-vertex answer is not minimal with 1 vertex excess and a
15-vertex one is "minimal in vertices", never counted as minimal; nothing is dropped from the
minimal rate's denominator; ``verify`` never calls that optimum proven.  The shipped atlas, all
376 cubes re-run since, reads "vertex count proven" by itself."""

from __future__ import annotations

import copy
import csv
import hashlib
import json
import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from shipped_atlas import clear_shipped_atlas_caches
from typer.testing import CliRunner

from ramseygadgets.cli import app
from ramseygadgets.harness.runner import EvalOptions, run_eval
from ramseygadgets.problems import atlas_entries
from ramseygadgets.problems.atlas_entries import load_atlas
from ramseygadgets.report import ReportOptions, build_report, load_runs
from ramseygadgets.runs.sizes import SizeGrade, optimum_of
from ramseygadgets.verification import basis
from ramseygadgets.verification.basis import PROVEN, Basis
from ramseygadgets.verification.selection import Optimum, select_problems

RED = "k3_k4_red_determiner"
ON_TRUST = Basis("cube log", 338, "not proven")
runner = CliRunner()


#: The shipped atlas's own reader and audited hash (the fixture below stands another in place).
SHIPPED_TEXT, AUDITED = atlas_entries._shipped_text, basis.AUDITED_ATLAS_SHA256


def _sampled_rerun(atlas, pid: str, count: int, seed: int) -> str:
    """The atlas text with ``pid``'s bound re-run on ``seed``'s draw of ``count`` cubes only."""
    bound = atlas.entries[pid].lower_bound
    decided = sorted((name, b) for name, bits in bound["cubes"]["cubes"].items() for b in bits)
    cubes: dict[str, list[str]] = {}
    for name, bits in random.Random(seed).sample(decided, count):
        cubes.setdefault(name, []).append(bits)
    bound["rerun"].update(rerun=count, seed=seed, cubes=cubes, configs={"sample": count})
    return atlas.to_json()


@pytest.fixture(scope="module", autouse=True)
def red_on_trust() -> Iterator[None]:
    """An audited shipped atlas in which the red-determiner's bound has 38 of 376 cubes re-run."""
    text = _sampled_rerun(copy.deepcopy(load_atlas()), RED, 38, 2026)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(atlas_entries, "_shipped_text", lambda: text)
        patch.setattr(basis, "AUDITED_ATLAS_SHA256", hashlib.sha256(text.encode()).hexdigest())
        clear_shipped_atlas_caches()
        yield
    clear_shipped_atlas_caches()


def test_the_shipped_red_determiners_vertex_count_is_proven_by_its_full_re_run(red_on_trust):
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(atlas_entries, "_shipped_text", SHIPPED_TEXT)
        patch.setattr(basis, "AUDITED_ATLAS_SHA256", AUDITED)
        clear_shipped_atlas_caches()
        found = basis.shipped_entry_basis(RED, exact=False)
    clear_shipped_atlas_caches()
    assert found == Basis(edges="not proven")
    assert found.phrase() == "vertex count proven; edge count not proven"


def _answer(pendant: bool) -> dict:
    """The atlas' 15-vertex solution, with a pendant 16th vertex (still a solution: the new
    edge lies in no triangle or K4) where ``pendant``."""
    s = load_atlas().entries[RED].solution
    assert s is not None
    edges = [*s["edges"], *([[0, 15]] if pendant else [])]
    return {"edges": edges, "e": s["e"]}


def _grade(vertices: int, edges: int, optimum: Optimum | None) -> SizeGrade:
    return SizeGrade(True, vertices, edges, optimum)


def test_the_red_determiners_optimum_rests_on_its_cube_log():
    chosen = select_problems([RED], set_name="extended")
    optimum = chosen.optimum(chosen.problems[0])
    assert optimum == Optimum(15, None, ON_TRUST)
    phrase = ON_TRUST.phrase()
    assert phrase == (
        "vertex count as far as the cube log holds (338 cubes not re-run); edge count not proven"
    )
    assert "proven optimum" not in ON_TRUST.describe(15)


@pytest.mark.parametrize(
    ("vertices", "basis", "grade", "excess"),
    [
        (16, ON_TRUST, "not minimal", 1),  # above: not minimal whatever is known of edges
        (15, ON_TRUST, "minimal in vertices", 0),
        (15, Basis(edges="not proven"), "minimal in vertices", 0),
        (15, PROVEN, "minimal", 0),
    ],
)
def test_the_grade_follows_what_the_optimum_rests_on(vertices, basis, grade, excess):
    sizes = _grade(vertices, 90, Optimum(15, 89 if basis.edges_proven else None, basis))
    assert sizes.minimality == grade and sizes.excess_vertices == excess
    assert sizes.minimal is (grade == "minimal")
    record = sizes.to_json()
    assert record["optimum_basis"]["rests_on"] == basis.phrase()
    assert optimum_of(record) == sizes.optimum  # read back with its basis


def test_a_disputed_optimum_grades_nothing():
    disputed = Basis("disputed", dispute="the solution fails the verifier")
    assert _grade(16, 90, Optimum(15, None, disputed)).minimality is None


def test_an_old_record_without_a_basis_keeps_its_edge_count_unproven():
    old = {"optimum_vertices": 15, "optimum_edges": None}
    assert optimum_of(old) == Optimum(15, None, Basis(edges="not proven"))
    assert _grade(16, 90, optimum_of(old)).minimality == "not minimal"  # graded, not dropped


def test_verify_says_what_the_optimum_rests_on(tmp_path):
    for pendant, words in ((False, "minimal in vertices"), (True, "not minimal: 1 vertex above")):
        path = tmp_path / f"answer{pendant}.json"
        path.write_text(json.dumps(_answer(pendant)))
        text = runner.invoke(app, ["verify", RED, str(path), "--set", "extended"])
        assert text.exit_code == 0, text.output
        assert words in text.output and "338 cubes not re-run" in text.output
        assert "proven optimum" not in text.output
        result = runner.invoke(app, ["verify", RED, str(path), "--set", "extended", "--json"])
        data = json.loads(result.stdout)
        assert data["minimal"] is False and data["excess_vertices"] == int(pendant)
        assert data["optimum_basis"]["vertices_not_rerun"] == 338


@pytest.fixture(scope="module")
def red_run(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("red")
    replies = base / "replies.jsonl"
    rows = [
        {
            "problem_id": RED,
            "setting": "zero-shot",
            "run": run,
            "response": "```json\n" + json.dumps(_answer(pendant)) + "\n```",
        }
        for run, pendant in enumerate((False, True))
    ]
    replies.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = base / "runs" / "red"
    options = EvalOptions(
        model=f"replay:{replies}",
        out=out,
        runs=2,
        problems=[RED],
        problem_set="extended",
        progress=False,
    )
    run_eval(options)
    return out


def test_eval_records_and_the_report_count_every_correct_answer(red_run, tmp_path):
    records = [json.loads(x) for x in (red_run / "samples.jsonl").read_text().splitlines()]
    grades = sorted((r["minimality"], r["excess_vertices"]) for r in records)
    assert grades == [("minimal in vertices", 0), ("not minimal", 1)]
    build_report(load_runs([red_run]), tmp_path / "report", ReportOptions(drawings=False))
    (row,) = csv.DictReader((tmp_path / "report" / "leaderboard.csv").open())
    # both correct answers graded (none dropped), neither fully minimal, one on the vertex optimum
    assert (row["graded"], row["n_minimal"], row["n_minimal_in_vertices"]) == ("2", "0", "1")
    assert float(row["minimal_pct"]) == 0.0 and float(row["mean_excess_vertices"]) == 0.5
    html = (tmp_path / "report" / "report.html").read_text()
    assert "minimal in vertices only" in html
    assert "vertex count as far as the cube log holds (338 cubes not re-run)" in html


def test_a_basis_read_back_keeps_where_its_coverage_came_from():
    taken = Basis("cube log", 0, "not proven", coverage_rederived=False)
    assert Basis.from_json(taken.to_json()) == taken
    assert (
        taken.vertex_phrase() == "as far as the cube log holds (coverage as the atlas file records)"
    )
    assert Basis.from_json({**taken.to_json(), "coverage_rederived": "yes"}) is None
    old = {k: v for k, v in PROVEN.to_json().items() if k != "coverage_rederived"}
    assert Basis.from_json(old) == PROVEN  # records written before the field
