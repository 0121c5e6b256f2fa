"""Hostile atlas data: forged records are shown as disputed, bad lines never a traceback, and
the run's start-up does not re-verify the package's own solutions."""

from __future__ import annotations

import json
import warnings

import pytest
from typer.testing import CliRunner

from ramseygadgets.atlas import Atlas, AtlasError, load_atlas
from ramseygadgets.atlas import run as atlas_run
from ramseygadgets.atlas.plan import SECTIONS, plan_atlas
from ramseygadgets.atlas.run import AtlasOptions, build_atlas, run_atlas
from ramseygadgets.atlas.table import audit
from ramseygadgets.cli import app
from ramseygadgets.search.exhaustive import nauty_available

runner = CliRunner()
GOOD = "p3_p3_negative_sender"
IDS = (
    "p3_p3_positive_sender",
    "p4_p4_negative_sender",
    "p3_k3_red_determiner",
    "k3_c4_red_determiner",
)


def _atlas(tmp_path, forge) -> str:
    """A small atlas folder from the shipped entries, ``forge(entries)`` applied."""
    shipped = load_atlas(None)
    data = {pid: shipped.entries[pid].to_json() for pid in (GOOD, *IDS)}
    forge(data)
    text = Atlas.from_text(json.dumps({"entries": list(data.values())}), "forged").to_json()
    (tmp_path / "atlas.json").write_text(text)
    return str(tmp_path)


def _forge(data):
    a, b, c, d = (data[pid] for pid in IDS)
    a["solution"]["f"] = a["solution"]["e"]  # fails the verifier
    b["lower_bound"]["n"] = b["solution"]["n"] + 1  # bound above the solution
    c["solution"]["m"] += 1  # m not the solution's
    c["cross_check"]["m"] += 1
    d["cross_check"] = {**d["cross_check"], "census": None, "agree": True}  # forged agreement


def test_table_shows_forged_records_as_disputed_and_exits_1(tmp_path):
    folder = _atlas(tmp_path, _forge)
    result = runner.invoke(app, ["atlas", "table", "--data", folder])
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    for pid in IDS:
        assert f"disputed: {pid}:" in result.output
    assert result.output.count("**DISPUTED**") == len(IDS)
    assert "| paper | P3 | P3 | negative-sender | **3** |" in result.output
    reasons = audit(load_atlas(tmp_path / "atlas.json"))
    assert set(reasons) == set(IDS)
    assert "verifier" in reasons[IDS[0]] and "lower bound" in reasons[IDS[1]]
    assert "(n, m)" in reasons[IDS[2]] and "census" in reasons[IDS[3]]


def test_a_cross_check_claiming_more_than_it_shows_is_disputed(tmp_path):
    def forge(data):
        check = data[IDS[3]]["cross_check"]
        check["up_to"] = check["n"] - 1

    reasons = audit(load_atlas(_atlas(tmp_path, forge) + "/atlas.json"))
    assert list(reasons) == [IDS[3]] and "up to" in reasons[IDS[3]]


def test_a_clean_atlas_exits_0(tmp_path):
    result = runner.invoke(app, ["atlas", "table", "--data", _atlas(tmp_path, lambda d: None)])
    rows = [line for line in result.output.splitlines() if line.startswith("|")]
    assert result.exit_code == 0 and rows and not [r for r in rows if "DISPUTED" in r]


def test_a_missing_field_is_a_clear_error_not_a_traceback(tmp_path):
    def forge(data):
        del data[IDS[0]]["solution"]["m"]

    path = tmp_path / "atlas.json"
    shipped = load_atlas(None)
    entries = [shipped.entries[pid].to_json() for pid in IDS]
    forge({IDS[0]: entries[0]})
    path.write_text(json.dumps({"entries": entries}))
    with pytest.raises(AtlasError, match=r"p3_p3_positive_sender: solution has no int field 'm'"):
        load_atlas(path)
    for args in (
        ["atlas", "table", "--data", str(path)],
        ["atlas", "run", "--out", str(tmp_path / "o"), "--base", str(path)],
    ):
        result = runner.invoke(app, args)
        assert result.exit_code == 2 and "Traceback" not in result.output
        assert "no int field 'm'" in result.output and str(path) in result.output


def test_start_up_does_not_reverify_the_shipped_solutions(monkeypatch):
    calls = []
    real = atlas_run.verify
    monkeypatch.setattr(atlas_run, "verify", lambda *a: calls.append(a) or real(*a))
    plan = plan_atlas(list(SECTIONS.values()))
    atlas = build_atlas(plan, load_atlas(None))
    assert calls == [] and atlas.entries[GOOD].status == "minimal"
    tampered = load_atlas(None)
    tampered.entries[GOOD].solution = {**tampered.entries[GOOD].solution, "f": [0, 1], "e": [0, 1]}
    fresh = Atlas({GOOD: tampered.entries[GOOD]})
    with pytest.raises(AtlasError, match="recorded solution is wrong"):
        build_atlas(plan, fresh)


@pytest.mark.skipif(not nauty_available(), reason="nauty (geng) is not installed")
def test_a_corrupt_crosscheck_line_is_removed_named_and_re_derived(tmp_path):
    """The next run compacts the log (one warning naming the lines, every valid line kept) and
    re-derives the check; the run after it reads a clean log and warns nothing."""
    options = AtlasOptions(max_vertices=6, cross_check_up_to=6, only=(GOOD,), timeout=30.0)
    first = run_atlas(tmp_path, options, base=Atlas())
    assert len(first.checked) == 1
    log = tmp_path / "crosscheck.jsonl"
    record = json.loads(log.read_text())
    del record["m"]
    log.write_text(json.dumps(record) + "\n{not json\n")
    with pytest.warns(UserWarning, match=r"crosscheck.jsonl compacted.*line 1 .*line 2 "):
        again = run_atlas(tmp_path, options, base=Atlas())
    assert [c["id"] for c in again.checked] == [GOOD]
    assert load_atlas(tmp_path / "atlas.json").entries[GOOD].cross_check["agree"]
    lines = log.read_text().splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["m"] == record_m(first)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        third = run_atlas(tmp_path, options, base=Atlas())
    assert third.checked == [] and log.read_text().splitlines() == lines


def record_m(outcome) -> int:
    return outcome.checked[0]["m"]
