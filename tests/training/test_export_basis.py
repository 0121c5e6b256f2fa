"""The export says what each solution's minimality rests on (issue 45): ``min_edges`` only for a
proven edge count, ``optimum_rests_on`` per problem, and a card that claims "a minimal solution
(fewest vertices, then fewest edges)" only when every problem has one proven."""

from __future__ import annotations

import json

from ramseygadgets.training.export import export_dataset
from ramseygadgets.verification.selection import select_problems

RED = "k3_k4_red_determiner"  # 15 vertices proven (all 376 cubes re-run), 89 edges unproven
PROVEN = "k14_banner_negative_sender"  # 8 vertices, 20 edges, both proven


def _rows(path) -> dict[str, dict]:
    return {r["id"]: r for r in map(json.loads, path.read_text().splitlines())}


def test_the_export_labels_unproven_edge_counts(tmp_path):
    chosen = select_problems([RED, PROVEN], set_name="extended")
    result = export_dataset(tmp_path / "out", problem_set=chosen, settings=["zero-shot"])
    rows = _rows(result.files["problems"])
    assert rows[RED]["min_edges"] is None and rows[RED]["min_vertices"] == 15
    assert rows[RED]["optimum_rests_on"] == "vertex count proven; edge count not proven"
    assert rows[PROVEN]["min_edges"] == 20 and rows[PROVEN]["optimum_rests_on"] == "proven"
    card = result.files["card"].read_text()
    assert "Each problem ships a minimal solution" not in card
    assert "1 of the 2 are proven minimal" in card


def test_the_paper_export_keeps_its_claim(tmp_path):
    chosen = select_problems(["p3_k3_red_determiner"])
    result = export_dataset(tmp_path / "out", problem_set=chosen, settings=["zero-shot"])
    (row,) = _rows(result.files["problems"]).values()
    assert row["min_edges"] == 7 and row["optimum_rests_on"] == "proven"
    assert "Each problem ships a minimal solution" in result.files["card"].read_text()
