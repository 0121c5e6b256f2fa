"""``solve … --out DIR --status`` (cli/search_status.py): the state of a cube log, as text and
JSON, and one clear line for what it cannot show."""

from __future__ import annotations

import json
import os
import re
import time

import pytest
from typer.testing import CliRunner

from ramseygadgets.cli import app
from ramseygadgets.cli.search_status import compact_bits, percent, sitting_cells
from ramseygadgets.infra.files import LOCK_FILE
from ramseygadgets.problems.catalog import Problem
from ramseygadgets.search.cubestatus import Sitting
from ramseygadgets.search.inflight import FlyingCube, clear_in_flight, write_in_flight
from ramseygadgets.search.options import SearchOptions
from ramseygadgets.search.parallel import solve_cubes

runner = CliRunner()
LEVEL = ["--min-vertices", "9", "--max-vertices", "9", "--cubes", "4"]
PAIR = ["--F", "K3", "--H", "K4-e", "--gadget", "red-determiner"]


@pytest.fixture(scope="module")
def stopped_log(tmp_path_factory):
    """A level-9 log of (K3, K4-e)-red-determiner cut after its first split cube and one more,
    as a stop leaves it."""
    out = tmp_path_factory.mktemp("run")
    problem = Problem.make("K3", "K4-e", "red-determiner")
    opts = SearchOptions(min_vertices=9, max_vertices=9, cubes=4, split_after=0.01, out=out)
    solve_cubes(problem, opts)
    rows = [json.loads(line) for line in (out / "cubes.jsonl").read_text().splitlines()]
    cubes = [r for r in rows if r["kind"] == "cube"]
    first_split = next(i for i, r in enumerate(cubes) if r["outcome"] == "split")
    kept = [*cubes[: first_split + 2], rows[-1]]
    (out / "cubes.jsonl").write_text("".join(json.dumps(r) + "\n" for r in kept))
    return out


def test_the_status_names_what_is_decided_what_is_open_and_each_sitting(stopped_log):
    before = (stopped_log / "cubes.jsonl").read_text()
    text = runner.invoke(app, ["solve", *PAIR, *LEVEL, "--out", str(stopped_log), "--status"])
    assert text.exit_code == 0, text.output
    data = runner.invoke(
        app, ["solve", *PAIR, *LEVEL, "--out", str(stopped_log), "--status", "--json"]
    )
    assert data.exit_code == 0, data.output
    assert (stopped_log / "cubes.jsonl").read_text() == before  # nothing searched or written
    (level,) = json.loads(data.output)["levels"]
    assert level["n"] == 9 and level["target"] == 4 and not level["found"]
    assert 0 <= level["decided"] < level["planned"]
    assert (
        f"(K3, K4-e)-red-determiner, level 9 (lazy engine, --cubes 4): {level['decided']} of "
        f"{level['planned']} planned cubes decided, no solution in the log"
    ) in text.output
    for lay in level["layouts"]:
        if lay["open_parts"]:
            parts = ", ".join(compact_bits(b) for b in lay["open_parts"])
            assert f"in {len(lay['open_parts'])} parts a rerun searches: {parts}" in text.output
    (sitting,) = level["sittings"]
    assert sitting == level["total"] and sitting["splits"] >= 1
    # the JSON's wall time is rounded to 0.1 s, the table's to 1 s from the unrounded value:
    # 1.46 s shows as 1.5 and 0:00:01 (a CI run read 1.5 back as 0:00:02 and failed)
    wall = sitting["wall_seconds"]
    assert any(f"│ 1   │ {_clock(w)} │" in text.output for w in (wall - 0.05, wall + 0.05))


def _clock(seconds: float) -> str:
    s = round(seconds)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--all", "--status"], "one problem"),
        ([*PAIR, "--status"], "give it and --out DIR"),
        ([*PAIR, "--status", "--out", "{out}", "--ray", "local"], "needs --cubes"),
        ([*PAIR, *LEVEL, "--status", "--out", "{empty}"], "no cube log at"),
        ([*PAIR, "--status", "--out", "{out}", "--max-vertices", "8"], "it has levels 9"),
        (["k13_k4_red_determiner", "--status", "--out", "{out}"], "holds cubes of k3_k4e"),
    ],
)
def test_what_the_status_cannot_show_is_one_line(stopped_log, tmp_path, args, words):
    args = [a.format(out=stopped_log, empty=tmp_path) for a in args]
    result = runner.invoke(app, ["solve", *args])
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and words in lines[0], lines


@pytest.mark.parametrize(
    ("bits", "text"),
    [("", "(all)"), ("0", "0"), ("110", "110"), ("1111111111011", "1¹⁰011"), ("0001", "0³1")],
)
def test_cube_bits_are_written_with_powers_for_runs(bits, text):
    assert compact_bits(bits) == text


@pytest.mark.parametrize(
    ("share", "text"), [(0.0, "0.0%"), (1.0, "100.0%"), (0.1172, "11.7%"), (2.0**-14, "0.0061%")]
)
def test_a_small_decided_share_is_not_shown_as_zero(share, text):
    assert percent(share) == text


def test_a_sitting_a_kill_cut_short_shows_no_wall_time():
    cells = sitting_cells(Sitting(None, 3, 1, 0, 1234.6, 56789))
    assert cells == ["—", "3", "1", "0", "1,235", "56,789"]
    assert sitting_cells(Sitting(3725.4, 0, 0, 0, 0.0, 0))[0] == "1:02:05"


def test_the_status_shows_the_cubes_a_running_search_has_in_flight(stopped_log):
    problem = Problem.make("K3", "K4-e", "red-determiner")
    layout = "e=0-1"
    started = time.time() - 75
    (stopped_log / LOCK_FILE).write_text(str(os.getpid()))  # as a search holding the log
    cubes = [FlyingCube(9, layout, "11110", started), FlyingCube(9, layout, "0", started, 123456)]
    write_in_flight(stopped_log, problem.id, cubes)
    try:
        args = ["solve", *PAIR, *LEVEL, "--out", str(stopped_log), "--status"]
        text = runner.invoke(app, args)
        data = runner.invoke(app, [*args, "--json"])
    finally:
        clear_in_flight(stopped_log)
    assert text.exit_code == 0 and data.exit_code == 0, text.output + data.output
    (level,) = json.loads(data.output)["levels"]
    written = time.strftime("%H:%M %Z", time.localtime(level["in_flight"]["written"]))
    line = " ".join(text.output.split())  # the console wraps long lines
    assert re.search(
        rf"in flight now \(pid {os.getpid()}, not in the log until it ends or splits\): "
        rf"{layout} 1⁴0 for 0:01:1\d; {layout} 0 for 0:01:1\d, 123,456 lemmas learned "
        rf"\(lemma counts as of {written}\)",
        line,
    ), line
    first, second = level["in_flight"]["cubes"]
    assert first["bits"] == "11110" and 75 <= first["running_seconds"] < 90
    assert (first["lemmas"], second["lemmas"]) == (None, 123456)
    assert abs(level["in_flight"]["written"] - time.time()) < 60
    after = runner.invoke(app, args)  # the search ended: nothing in flight is shown
    assert "in flight" not in after.output


def test_the_status_shows_the_stopped_cubes_a_rerun_starts_with(tmp_path):
    """A run out of time leaves what its cube in flight learned (search/stopped.py): the status
    names that cube and its lemma count as the file records them, and a file a rerun would
    refuse as refused, in one line, without failing."""
    problem = Problem.make("K3", "K4-e", "red-determiner")
    level_10 = dict(min_vertices=10, max_vertices=10, cubes=2, minimize_edges=False)
    solve_cubes(problem, SearchOptions(timeout=4.0, jobs=1, out=tmp_path, **level_10))
    stopped = tmp_path / "stopped-cubes.jsonl"
    (entry,) = [json.loads(line) for line in stopped.read_text().splitlines()]
    args = ["solve", *PAIR, "--min-vertices", "10", "--max-vertices", "10", "--cubes", "2"]
    args += ["--out", str(tmp_path), "--status"]
    text = runner.invoke(app, args)
    data = runner.invoke(app, [*args, "--json"])
    assert text.exit_code == 0 and data.exit_code == 0, text.output + data.output
    lemmas = len(entry["lemmas"])
    assert "stopped cubes a rerun starts with (stopped-cubes.jsonl, written " in text.output
    assert f"{entry['layout']} {compact_bits(entry['bits'])} ({lemmas:,} lemmas)" in text.output
    (level,) = json.loads(data.output)["levels"]
    assert level["stopped"]["cubes"] == [
        {"layout": entry["layout"], "bits": entry["bits"], "lemmas": lemmas}
    ]
    assert level["stopped"]["refused"] is None
    stopped.write_text(stopped.read_text() + "{not json\n")
    refused = runner.invoke(app, args)
    assert refused.exit_code == 0, refused.output
    assert (
        "stopped cubes: " in refused.output and "stopped-cubes.jsonl:2: not JSON" in refused.output
    )
    assert "a rerun starts with" not in refused.output
