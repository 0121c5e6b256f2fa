"""Merging facts: the strongest result wins, in any order; contradictions are errors."""

from __future__ import annotations

from itertools import permutations

import pytest

from ramseygadgets.atlas import Atlas, AtlasError, Entry, load_atlas


def _entry(**facts) -> Entry:
    e = Entry("k3_c4_red_determiner", "paper", "K3", "C4", "red-determiner", "t", None)
    e.lower_bound = {"n": 2, "engine": "definition"}
    for kind, value in facts.items():
        getattr(e, f"add_{kind}")(value)
    return e


def _solution(n: int, m: int, edges_minimal: bool = True, engine: str = "a") -> dict:
    return {
        "n": n,
        "m": m,
        "edges": [],
        "e": [0, 1],
        "edges_minimal": edges_minimal,
        "engine": engine,
    }


FACTS = [
    ("solution", _solution(9, 30, engine="slow")),
    ("solution", _solution(8, 25, edges_minimal=False)),
    ("solution", _solution(8, 24)),
    ("lower_bound", {"n": 7, "engine": "a"}),
    ("lower_bound", {"n": 8, "engine": "b"}),
]


def test_merging_keeps_the_strongest_facts_in_any_order():
    results = set()
    for order in permutations(FACTS):
        e = _entry()
        for kind, fact in order:
            getattr(e, f"add_{kind}")(fact)
        results.add((e.status, e.n, e.solution["m"], e.bound, e.lower_bound["engine"]))
    assert results == {("minimal", 8, 24, 8, "b")}


def test_a_weaker_rerun_never_downgrades_an_entry():
    known = Atlas({"x": _entry(solution=_solution(8, 24), lower_bound={"n": 8, "engine": "b"})})
    weaker = Atlas({"x": _entry(lower_bound={"n": 6, "engine": "c"})})
    known.merge(weaker)
    assert known.entries["x"].status == "minimal" and known.entries["x"].bound == 8
    fresh = Atlas({"x": _entry()})
    fresh.merge(known)
    assert fresh.entries["x"].status == "minimal"


def test_a_solution_below_a_proven_bound_is_a_contradiction():
    e = _entry(lower_bound={"n": 9, "engine": "b"})
    with pytest.raises(AtlasError, match="contradicts the proof that none has fewer than 9"):
        e.add_solution(_solution(8, 24))


def test_cross_checks_follow_the_solution_and_disagreements_are_kept():
    e = _entry(solution=_solution(8, 25, edges_minimal=False), lower_bound={"n": 8})
    check = {"n": 8, "m": 25, "census": [8, 24], "agree": True}
    e.add_cross_check({**check, "n": 9})  # about another solution: ignored
    assert e.cross_check is None
    e.add_cross_check(check)
    assert e.cross_check == check
    e.add_solution(_solution(8, 24))  # a better solution: the old scan no longer applies
    assert e.cross_check is None
    e.add_cross_check({"n": 8, "m": 24, "census": [7, 20], "agree": False})
    assert "the exhaustive scan finds (n, m) = [7, 20]" in (e.disagreement or "")


def test_the_file_round_trips(tmp_path):
    entry = _entry(solution=_solution(8, 24), lower_bound={"n": 8})
    atlas = Atlas({entry.id: entry}, header={"description": "d"})
    atlas.write(tmp_path / "a.json")
    again = load_atlas(tmp_path / "a.json")
    assert again.header == {"description": "d"}
    assert list(again.entries) == [entry.id]
    assert again.entries[entry.id].to_json() == entry.to_json()
    (tmp_path / "bad.json").write_text('{"entries": [{"id": "x"}]}')
    with pytest.raises(AtlasError, match="unusable atlas entry x"):
        load_atlas(tmp_path / "bad.json")
    with pytest.raises(AtlasError, match="cannot read the atlas"):
        load_atlas(tmp_path / "missing.json")
