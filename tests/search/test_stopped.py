"""What the cubes in flight at a stop learned is kept, handed to the rerun, and never trusted
(:mod:`ramseygadgets.search.stopped`)."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ramseygadgets.cli import app
from ramseygadgets.core.graphs import Graph
from ramseygadgets.problems.catalog import Problem
from ramseygadgets.search import SearchError
from ramseygadgets.search import parallel as parallel_module
from ramseygadgets.search import runners as runners_module
from ramseygadgets.search import stopped as stopped_module
from ramseygadgets.search.cubes import clear_finders
from ramseygadgets.search.cubestatus import level_status
from ramseygadgets.search.inflight import write_in_flight
from ramseygadgets.search.options import SearchOptions
from ramseygadgets.search.parallel import solve_cubes
from ramseygadgets.search.spec import EdgeColor, gadget_spec, layouts
from ramseygadgets.search.stopped import (
    STOPPED_FILE,
    LemmaCheck,
    StoppedCubes,
    StoppedLemmaRefused,
    nearest_entry,
)
from ramseygadgets.verification.bruteforce import good_coloring_masks

K3_K4E_RED = Problem.make("K3", "K4-e", "red-determiner")
P3_K3_NEG = Problem.make("P3", "K3", "negative-sender")
P3_K3_RED = Problem.make("P3", "K3", "red-determiner")
#: level 10 of K3_K4E_RED in two cubes: "0" is decided at once, "1" runs about ten seconds
LEVEL_10 = dict(min_vertices=10, max_vertices=10, cubes=2, minimize_edges=False)


def _entries(out: Path) -> list[dict]:
    path = out / STOPPED_FILE
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def _stopped_while_1_runs(out: Path, timeout: float = 3.0, **options):
    """Level 10 stopped by its timeout while cube "1" runs, with something learned to keep.  On a
    busy machine a short timeout can stop "1" before its first lemma (nothing to keep: the cause
    of a failure seen once in five loaded runs), so the run goes on with the timeout doubled,
    resuming from the log, until a stop keeps something."""
    while True:
        kept = {**LEVEL_10, "jobs": 1, **options}
        result = solve_cubes(K3_K4E_RED, SearchOptions(timeout=timeout, out=out, **kept))
        assert result.status == "timeout"
        if _entries(out) or timeout > 12:
            return result
        timeout *= 2


@pytest.fixture(autouse=True)
def _fresh_finders():
    yield
    clear_finders()


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_run_out_of_time_keeps_what_its_cube_in_flight_learned_and_the_rerun_starts_with_it(
    tmp_path, jobs
):
    first = _stopped_while_1_runs(tmp_path, timeout=4.0, jobs=jobs)
    [entry] = _entries(tmp_path)
    level = first.levels[0]
    assert (entry["n"], entry["bits"], entry["problem_id"]) == (10, "1", K3_K4E_RED.id)
    assert len(entry["lemmas"]) == level.stopped_lemmas > 0 and level.stopped_cubes == 1
    cubes: list[dict] = []
    rerun = solve_cubes(
        K3_K4E_RED, SearchOptions(jobs=jobs, out=tmp_path, **LEVEL_10), on_cube=cubes.append
    )
    assert (rerun.status, rerun.lower_bound) == ("none-up-to-limit", 11)  # the verdict holds
    assert rerun.levels[0].cubes_from_stop == 1
    assert [c["inherited_in"] for c in cubes if c["bits"] == "1"] == [len(entry["lemmas"])]
    assert _entries(tmp_path) == []  # the level is decided: nothing stopped is left open


def test_ctrl_c_keeps_what_the_other_workers_cube_streamed(tmp_path):
    """Two workers: the quick cube ends, a second later Ctrl-C comes; the cube still running
    never ends, but the lemmas it sent are kept (those still unread in its pipe too: the pool's
    ``drain``, tested in tests/infra/test_task_messages.py)."""

    def interrupt(record: dict) -> None:
        time.sleep(1.0)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        solve_cubes(K3_K4E_RED, SearchOptions(jobs=2, out=tmp_path, **LEVEL_10), on_cube=interrupt)
    [entry] = _entries(tmp_path)
    assert entry["bits"] == "1"
    level = [json.loads(x) for x in (tmp_path / "cubes.jsonl").read_text().splitlines()][-1]
    assert level["kind"] == "level" and level["stopped_cubes"] == 1


def _entry(bits: str, n: int = 10, problem: Problem = K3_K4E_RED) -> dict:
    return {"problem_id": problem.id, "n": n, "layout": "e=0-1", "bits": bits, "lemmas": []}


def test_an_entry_no_open_part_would_start_from_is_dropped_and_the_rest_kept(tmp_path):
    """ "01" split and both halves stopped in turn: no open part starts from "01" any more; "1"
    is decided; "0" is still the nearest of "00"; another level's and problem's entries stay."""
    path = tmp_path / STOPPED_FILE
    old = [_entry(b) for b in ("0", "01", "010", "011", "1")]
    old += [_entry("01", n=11), _entry("01", problem=P3_K3_RED)]
    path.write_text("".join(json.dumps(e) + "\n" for e in old))
    parts = {"e=0-1": ["011", "010", "00"]}
    StoppedCubes(tmp_path, K3_K4E_RED).write(
        [], lambda n, name: parts.get(name) if n == 10 else None
    )
    kept = [(e["problem_id"] == K3_K4E_RED.id, e["n"], e["bits"]) for e in _entries(tmp_path)]
    assert sorted(kept) == [
        (False, 10, "01"),
        (True, 10, "0"),
        (True, 10, "010"),
        (True, 10, "011"),
        (True, 11, "01"),
    ]


@pytest.mark.parametrize("seed", range(20))
def test_every_open_part_keeps_its_nearest_entry_and_every_kept_entry_is_one(tmp_path, seed):
    rng = random.Random(seed)
    bit_strings = ["".join(rng.choice("01") for _ in range(rng.randint(0, 6))) for _ in range(12)]
    entries, parts = set(bit_strings[:7]), set(bit_strings[7:])
    (tmp_path / STOPPED_FILE).write_text("".join(json.dumps(_entry(b)) + "\n" for b in entries))
    StoppedCubes(tmp_path, K3_K4E_RED).write([], lambda n, name: parts)
    kept = {("e=0-1", e["bits"]) for e in _entries(tmp_path)}
    every = {("e=0-1", b) for b in entries}
    for part in parts:
        assert nearest_entry("e=0-1", part, kept) == nearest_entry("e=0-1", part, every), part
    assert kept == {nearest_entry("e=0-1", part, every) for part in parts} - {None}


def _log_open_parts(out: Path) -> list[str]:
    """The open parts of level 10's layout that the log in ``out`` leaves a rerun (``--status``)."""
    records = [json.loads(x) for x in (out / "cubes.jsonl").read_text().splitlines()]
    assert "1" in {r["bits"] for r in records if r.get("outcome") == "split"}
    return list(level_status(K3_K4E_RED, records, 10, LEVEL_10["cubes"]).layouts[0].open_parts)


def test_the_stop_hands_the_file_the_open_parts_of_the_log_its_own_splits_included(
    tmp_path, monkeypatch
):
    """Split at run time, the driver's open parts are those the log leaves (not the planned cube
    "1"): else the stop would keep "1" for parts that have nearer entries."""
    seen: list[list[str] | None] = []
    write = stopped_module.StoppedCubes.write

    def spy(self, stopped, open_parts):
        seen.append(open_parts(10, "e=0-1"))
        return write(self, stopped, open_parts)

    monkeypatch.setattr(stopped_module.StoppedCubes, "write", spy)
    options = SearchOptions(timeout=4.0, jobs=1, split_after=1.0, out=tmp_path, **LEVEL_10)
    assert solve_cubes(K3_K4E_RED, options).status == "timeout"
    assert sorted(seen[-1] or []) == sorted(_log_open_parts(tmp_path)) and "1" not in seen[-1]


def test_a_half_still_waiting_at_the_stop_keeps_what_its_split_parent_learned(tmp_path):
    """One worker splits "1" and its halves every second: at the stop one part runs and its
    siblings wait.  The stop keeps each split parent's lemmas for its waiting halves (before,
    only a snapshot's older copy, if any), so every open part whose split parent knew lemmas
    starts from an entry (the rerun's use of an entry: the tests above)."""
    options = SearchOptions(timeout=6.0, split_after=1.0, jobs=1, out=tmp_path, **LEVEL_10)
    first = solve_cubes(K3_K4E_RED, options)
    assert first.status == "timeout"
    records = [json.loads(x) for x in (tmp_path / "cubes.jsonl").read_text().splitlines()]
    knew = {
        r["bits"]
        for r in records
        if r.get("outcome") == "split" and r["lemmas"] + r["inherited_in"]
    }
    waiting = [p for p in _log_open_parts(tmp_path) if p[:-1] in knew]
    entries = {("e=0-1", e["bits"]) for e in _entries(tmp_path)}
    assert waiting and all(nearest_entry("e=0-1", p, entries) for p in waiting), entries


def test_a_split_parent_whose_parts_all_stopped_in_turn_is_dropped_by_the_next_stop(tmp_path):
    """The way "01¹⁴" of the (K3, K4) negative sender stayed: a stop kept cube "1", a later
    sitting split it, and its parts stopped in turn, each with an entry of its own.  The next
    stop drops "1" (no rerun would start from it) and keeps each open part's entry."""
    _stopped_while_1_runs(tmp_path, timeout=4.0, split_after=1.0)
    lemmas = _entries(tmp_path)[0]["lemmas"]
    older = [{**_entry(bits), "lemmas": lemmas} for bits in ("1", *_log_open_parts(tmp_path))]
    (tmp_path / STOPPED_FILE).write_text("".join(json.dumps(e) + "\n" for e in older))
    second = solve_cubes(K3_K4E_RED, SearchOptions(timeout=2.0, jobs=1, out=tmp_path, **LEVEL_10))
    assert second.status == "timeout" and second.levels[0].cubes_from_stop >= 1
    kept = sorted(e["bits"] for e in _entries(tmp_path))
    assert kept == sorted(_log_open_parts(tmp_path)) and "1" not in kept


def _stopped_run(tmp_path: Path) -> tuple[Path, list[str]]:
    _stopped_while_1_runs(tmp_path)
    path = tmp_path / STOPPED_FILE
    return path, path.read_text().splitlines()


def _designated_edge_id(problem: Problem, n: int) -> int:
    layout = layouts(problem.gadget, n)[0]
    return Graph.complete(n).edge_id(*layout.designated.edges[0])


def test_a_forged_lemma_that_would_hide_every_solution_is_refused(tmp_path):
    """``("a", [e])`` says "e is not an edge": every graph of the layout has it, so the rerun
    would prove the level none whatever it holds.  It is derived again and refused."""
    path, lines = _stopped_run(tmp_path)
    entry = json.loads(lines[0])
    entry["lemmas"].insert(0, ["a", [_designated_edge_id(K3_K4E_RED, 10)]])
    path.write_text(json.dumps(entry) + "\n")
    with pytest.raises(StoppedLemmaRefused, match=rf"{STOPPED_FILE}:1: lemma 0 .*good colouring"):
        solve_cubes(K3_K4E_RED, SearchOptions(jobs=1, out=tmp_path, **LEVEL_10))


def test_a_forged_counterexample_that_meets_no_bad_condition_is_refused(tmp_path):
    """A red-determiner's bad colourings have e blue; a "counterexample" with e red excludes
    graphs for no reason."""
    path, lines = _stopped_run(tmp_path)
    entry = json.loads(lines[0])
    red_everywhere = format((1 << 45) - 1, "x")
    entry["lemmas"].append(["c", red_everywhere])
    path.write_text(json.dumps(entry) + "\n")
    with pytest.raises(StoppedLemmaRefused, match=r"lemma \d+ .*meets no bad condition"):
        solve_cubes(K3_K4E_RED, SearchOptions(jobs=1, out=tmp_path, **LEVEL_10))


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("{not json", "not JSON"),
        ("[1, 2]", "not a JSON object"),
        ('{"problem_id": "%s", "n": 10, "layout": "e=0-1"}', "without its n, layout, bits"),
        (
            '{"problem_id": "%s", "n": 10, "layout": "e=0-1", "bits": "1", "lemmas": [["x", 1]]}',
            "unknown lemma kind",
        ),
        (
            '{"problem_id": "%s", "n": 10, "layout": "e=0-1", "bits": "1", "lemmas": [["c", "zz"]]}',
            "no colouring of K_n",
        ),
        (
            '{"problem_id": "%s", "n": 10, "layout": "e=0-1", "bits": "1", "lemmas": [["a", [99]]]}',
            "no set of K_n edges",
        ),
    ],
)
def test_a_malformed_stopped_cube_is_named_not_used(tmp_path, line, why):
    (tmp_path / STOPPED_FILE).write_text((line.replace("%s", K3_K4E_RED.id)) + "\n")
    with pytest.raises(SearchError, match=rf"{STOPPED_FILE}:1: .*{why}"):
        solve_cubes(K3_K4E_RED, SearchOptions(jobs=1, out=tmp_path, **LEVEL_10))


def test_an_entry_with_more_lemmas_than_a_stop_keeps_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(stopped_module, "MAX_INHERITED_LEMMAS", 1)
    line = {"problem_id": K3_K4E_RED.id, "n": 10, "layout": "e=0-1", "bits": "1"}
    line["lemmas"] = [["c", "1"], ["c", "2"]]
    (tmp_path / STOPPED_FILE).write_text(json.dumps(line) + "\n")
    with pytest.raises(SearchError, match=rf"{STOPPED_FILE}:1: 2 lemmas, more than 1"):
        solve_cubes(K3_K4E_RED, SearchOptions(jobs=1, out=tmp_path, **LEVEL_10))


def test_a_level_end_with_nothing_stopped_leaves_the_file_alone(tmp_path):
    """Another level's entry, nothing in flight at this level's end: no rewrite."""
    path, lines = _stopped_run(tmp_path)
    other = {**json.loads(lines[0]), "n": 11}
    path.write_text(json.dumps(other) + "\n")
    before = path.stat().st_mtime_ns
    options = {**LEVEL_10, "min_vertices": 9, "max_vertices": 9}
    assert solve_cubes(K3_K4E_RED, SearchOptions(jobs=1, out=tmp_path, **options)).lower_bound == 10
    assert path.stat().st_mtime_ns == before and _entries(tmp_path) == [other]


def test_a_stopped_cubes_file_that_is_not_text_is_named_not_used(tmp_path):
    (tmp_path / STOPPED_FILE).write_bytes(b"\xff\xfe\x00garbage\n")
    with pytest.raises(SearchError, match=rf"{STOPPED_FILE}: cannot be read"):
        solve_cubes(K3_K4E_RED, SearchOptions(jobs=1, out=tmp_path, **LEVEL_10))


def test_without_sharing_no_stopped_lemma_is_written_or_read(tmp_path):
    solve_cubes(K3_K4E_RED, SearchOptions(timeout=1.0, share=False, out=tmp_path, **LEVEL_10))
    assert not (tmp_path / STOPPED_FILE).exists()


def _brute_force_arrows(problem: Problem, n: int, edges: list[int]) -> bool:
    """Whether the graph of ``edges`` (K_n ids) has no good colouring meeting some witness
    condition, by listing every colouring."""
    kn = Graph.complete(n)
    pairs = [kn.edges[t] for t in edges]
    graph = Graph.from_edges(pairs, n)
    good = good_coloring_masks(graph, problem.F, problem.H)
    spec = gadget_spec(problem, layouts(problem.gadget, n)[0].designated)
    for witness in spec.witnesses:
        ok = good
        for atom in witness:
            assert isinstance(atom, EdgeColor)
            if tuple(atom.edge) in pairs or tuple(reversed(atom.edge)) in pairs:
                bit = 1 << graph.edge_id(*atom.edge)
                ok = ok[((ok & bit) != 0) == atom.red]
        if len(ok) == 0:
            return True
    return False


@pytest.mark.parametrize("problem", [P3_K3_RED, P3_K3_NEG])
def test_the_arrowing_check_agrees_with_brute_force(problem):
    """Random edge sets of K_6, dense enough that some arrow and some do not: the oracle's
    verdict equals the list of every colouring's."""
    n, rng = 6, random.Random(7)
    check = LemmaCheck(problem, n, layouts(problem.gadget, n)[0])
    m = n * (n - 1) // 2
    verdicts = []
    try:
        for _ in range(40):
            edges = sorted(rng.sample(range(m), rng.randint(6, m)))
            holds = check.why_not(("a", edges)) is None
            assert holds == _brute_force_arrows(problem, n, edges), edges
            verdicts.append(holds)
    finally:
        check.close()
    assert any(verdicts) and not all(verdicts)


CLI_LEVEL_10 = ["solve", "--F", "K3", "--H", "K4-e", "--gadget", "red-determiner"]
CLI_LEVEL_10 += ["--min-vertices", "10", "--max-vertices", "10", "--cubes", "2", "--any-edges"]


def test_the_cli_says_where_a_stopped_runs_lemmas_went(tmp_path):
    for timeout in ("3", "6", "12"):  # until a stop keeps something (_stopped_while_1_runs)
        result = CliRunner().invoke(
            app, [*CLI_LEVEL_10, "--timeout", timeout, "--out", str(tmp_path)]
        )
        assert result.exit_code == 1, result.output
        if _entries(tmp_path):
            break
    assert f"kept what the cubes in flight learned in {tmp_path / STOPPED_FILE}" in result.output
    assert _entries(tmp_path)


def _driver(out: Path, setup: str = "pass") -> subprocess.Popen:
    """``solve`` of level 10 on two workers into ``out``, as a process of its own (after the
    Python statement ``setup``)."""
    code = f"import sys; {setup}; from ramseygadgets.cli import main; "
    code += "sys.argv[0] = 'ramseygadgets'; main()"
    return subprocess.Popen(
        [sys.executable, "-c", code, *CLI_LEVEL_10, "--jobs", "2", "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )


@pytest.mark.skipif(not hasattr(signal, "SIGTERM"), reason="POSIX signals")
def test_sigterm_keeps_what_the_workers_cubes_streamed(tmp_path):
    """The way a sitting ends: SIGTERM to the driver of two workers (exit 143)."""
    proc = _driver(tmp_path)
    try:
        deadline = time.monotonic() + 30
        log = tmp_path / "cubes.jsonl"
        while not (log.exists() and log.read_text()) and time.monotonic() < deadline:
            time.sleep(0.2)  # the quick cube "0" is logged; "1" runs on
        time.sleep(1.0)
        proc.send_signal(signal.SIGTERM)
        _, stderr = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 143, stderr
    assert b"kept what the cubes in flight learned" in stderr
    [entry] = _entries(tmp_path)
    assert entry["bits"] == "1" and entry["lemmas"]


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="POSIX signals")
def test_a_driver_killed_outright_keeps_what_the_cubes_in_flight_learned_until_its_last_snapshot(
    tmp_path,
):
    """SIGKILL (or a machine lost) gives the driver no stop to write at: what the cubes in flight
    learned is written every ``SNAPSHOT_SECONDS`` meanwhile (1 s here), and the rerun starts the
    cube with it (each lemma derived again) and reaches the same verdict."""
    proc = _driver(tmp_path, "import ramseygadgets.search.parallel as p; p.SNAPSHOT_SECONDS = 1.0")
    try:
        deadline = time.monotonic() + 30
        while not _entries(tmp_path) and time.monotonic() < deadline:
            time.sleep(0.2)
        proc.kill()
        proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == -signal.SIGKILL
    [entry] = _entries(tmp_path)
    assert entry["bits"] == "1" and entry["lemmas"]
    cubes: list[dict] = []
    rerun = solve_cubes(
        K3_K4E_RED, SearchOptions(jobs=2, out=tmp_path, **LEVEL_10), on_cube=cubes.append
    )
    assert (rerun.status, rerun.lower_bound) == ("none-up-to-limit", 11)
    assert rerun.levels[0].cubes_from_stop == 1
    assert [c["inherited_in"] for c in cubes if c["bits"] == "1"] == [len(entry["lemmas"])]


def test_a_snapshot_the_disk_refuses_stops_nothing_and_the_in_flight_file_counts_the_lemmas(
    tmp_path, monkeypatch
):
    """Every snapshot with lemmas to keep fails with OSError (a full disk): the run goes on to its
    verdict, and the level's end (nothing stopped) writes as usual.  The in-flight file (for
    ``solve --status``) is written next, each cube's lemma count the number the snapshot held
    for it (nothing inherited, fewer than a stop keeps)."""
    events: list[tuple[str, dict]] = []
    write = stopped_module.StoppedCubes.write

    def refuse(self, stopped, open_parts):
        if not stopped:
            return write(self, stopped, open_parts)
        events.append(("snapshot", {s.bits: len(s.lemmas) for s in stopped}))
        raise OSError(28, "No space left on device")

    def show(directory, problem_id, cubes):
        cubes = list(cubes)
        events.append(("in flight", {c.bits: c.lemmas for c in cubes if c.lemmas is not None}))
        write_in_flight(directory, problem_id, cubes)

    monkeypatch.setattr(parallel_module, "SNAPSHOT_SECONDS", 0.5)
    monkeypatch.setattr(stopped_module.StoppedCubes, "write", refuse)
    monkeypatch.setattr(parallel_module, "write_in_flight", show)
    result = solve_cubes(K3_K4E_RED, SearchOptions(jobs=2, out=tmp_path, **LEVEL_10))
    assert (result.status, result.lower_bound) == ("none-up-to-limit", 11)
    assert not (tmp_path / STOPPED_FILE).exists()
    snapshots = [i for i, (what, _) in enumerate(events) if what == "snapshot"]
    assert len(snapshots) >= 2  # due every 0.5 s, tried, refused
    for i in snapshots:
        assert events[i + 1] == ("in flight", events[i][1])
    for bits in {bits for i in snapshots for bits in events[i][1]}:  # a cube's count only grows
        counts = [events[i][1][bits] for i in snapshots if bits in events[i][1]]
        assert counts == sorted(counts), bits


def test_the_driver_holds_only_the_newest_lemmas_a_stop_could_keep(monkeypatch):
    monkeypatch.setattr(runners_module, "MAX_INHERITED_LEMMAS", 10)
    runner = runners_module.make_runner(1)
    try:
        for start in range(0, 100, 7):
            message = ("lemmas", ("p", 9, 0), [("c", i) for i in range(start, start + 7)])
            runner._streamed("9|e=0-1|1", message)
            assert len(runner.streamed["9|e=0-1|1"]) <= 20
        assert runner.streamed["9|e=0-1|1"][-10:] == [("c", i) for i in range(95, 105)]
        runner._streamed("9|e=0-1|1", ("something else",))
        assert len(runner.streamed) == 1
    finally:
        runner.close()
