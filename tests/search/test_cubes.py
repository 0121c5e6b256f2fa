"""Cube-and-conquer (search/cubes.py, parallel.py, runners.py, cubelog.py): the cubes cover
each level, the verdict equals the single-process search, nothing decided is lost."""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import select
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from ramseygadgets.cli import app
from ramseygadgets.cli import search as cli_search
from ramseygadgets.infra import executors
from ramseygadgets.problems.catalog import Problem
from ramseygadgets.search import SearchError, find_solution, solve
from ramseygadgets.search import cubes as cubes_module
from ramseygadgets.search import parallel as parallel_module
from ramseygadgets.search import runners as runners_module
from ramseygadgets.search.cegar import LayoutFinder
from ramseygadgets.search.cubelog import CubeLog, CubeLogError, cubes_by_node, read_log
from ramseygadgets.search.cubeproof import check_none_below
from ramseygadgets.search.cubes import (
    CubeTask,
    LemmaExchange,
    Refuter,
    clear_finders,
    covered,
    decided_by,
    generate_cubes,
    run_cube,
)
from ramseygadgets.search.options import SearchOptions
from ramseygadgets.search.parallel import solve_cubes
from ramseygadgets.search.spec import layouts

cli = CliRunner()
P3_K3_RED = Problem.make("P3", "K3", "red-determiner")
K13_K3_POS = Problem.make("K1,3", "K3", "positive-sender")
K3_K4E_RED = Problem.make("K3", "K4-e", "red-determiner")


@pytest.mark.parametrize("problem", [P3_K3_RED, K13_K3_POS, K3_K4E_RED])
@pytest.mark.parametrize("target", [1, 7, 30])
def test_cubes_and_refuted_prefixes_cover_each_level(problem, target):
    n = 6
    plan = generate_cubes(problem, n, target)
    assert len(plan.cubes) >= min(target, 2) or plan.refuted
    for i, lay in enumerate(layouts(problem.gadget, n)):
        refuter = Refuter(problem, n, lay)
        try:
            mine = {c.bits for c in plan.cubes if c.layout == i}
            assert covered(refuter, mine)
            # no cube is contained in another (a partition of what propagation leaves)
            assert not any(decided_by(b, mine - {b}) for b in mine)
            if len(mine) > 1:  # leaving any one cube out leaves a gap
                for b in mine:
                    assert not covered(refuter, mine - {b})
        finally:
            refuter.close()


@pytest.mark.parametrize(("problem", "max_n"), [(P3_K3_RED, 7), (K13_K3_POS, 8), (K3_K4E_RED, 9)])
@pytest.mark.parametrize("jobs", [1, 2])
def test_verdict_equals_the_single_process_search(problem, max_n, jobs):
    one = solve(problem, SearchOptions(max_vertices=max_n))
    many = solve_cubes(problem, SearchOptions(max_vertices=max_n, jobs=jobs, cubes=12))
    assert (many.status, many.n, many.m, many.lower_bound, many.edges_minimal) == (
        one.status,
        one.n,
        one.m,
        one.lower_bound,
        one.edges_minimal,
    )
    assert [lv.outcome for lv in many.levels] == [lv.outcome for lv in one.levels]


@pytest.mark.parametrize("jobs", [1, 2])
def test_cubes_split_at_run_time_keep_the_verdict(jobs):
    """A cube that runs past ``split_after`` is replaced by its halves: same verdict, and the
    cubes decided none still cover the level."""
    one = solve(K3_K4E_RED, SearchOptions(min_vertices=9, max_vertices=9, minimize_edges=False))
    cubes: list[dict] = []
    many = solve_cubes(
        K3_K4E_RED,
        SearchOptions(
            min_vertices=9,
            max_vertices=9,
            jobs=jobs,
            cubes=2,
            split_after=0.01,
            minimize_edges=False,
        ),
        on_cube=cubes.append,
    )
    expected = ("none-up-to-limit", 10)
    assert (many.status, many.lower_bound) == (one.status, one.lower_bound) == expected
    assert any(c["outcome"] == "split" for c in cubes)
    lay = layouts(K3_K4E_RED.gadget, 9)[0]
    refuter = Refuter(K3_K4E_RED, 9, lay, "lazy")
    try:
        decided = {c["bits"] for c in cubes if c["outcome"] == "none"}
        assert covered(refuter, decided)
    finally:
        refuter.close()


def test_workers_swap_lemmas_while_their_cubes_run(monkeypatch):
    """The parent relays the lemmas a running cube learned to the other worker (same verdict)."""
    relayed: list[tuple] = []
    send = executors._send_if_room
    monkeypatch.setattr(
        executors, "_send_if_room", lambda conn, m: (relayed.append(m), send(conn, m))
    )
    r = solve_cubes(K3_K4E_RED, SearchOptions(min_vertices=9, max_vertices=9, jobs=2, cubes=4))
    assert r.status == "none-up-to-limit" and r.lower_bound == 10
    assert relayed and all(m[0] == "lemmas" and m[1] == (K3_K4E_RED.id, 9, 0) for m in relayed)
    assert all(kind in ("a", "c") for m in relayed for kind, _ in m[2])


def _hashable(lemma: tuple) -> tuple:
    kind, value = lemma
    return kind, tuple(value) if isinstance(value, list) else value


def test_a_lemma_exchange_sends_what_the_cube_learned_and_adds_what_comes_in():
    lay = layouts(K3_K4E_RED.gadget, 9)[0]
    cube = generate_cubes(K3_K4E_RED, 9, 1).cubes[0]
    sent: list[tuple] = []
    inbox: list[tuple] = []
    exchange = LemmaExchange(sent.append, lambda: [inbox.pop() for _ in list(inbox)])
    try:
        record = run_cube(CubeTask(problem=K3_K4E_RED, cube=cube), exchange)
        learned = {_hashable(lemma) for lemma in record["learned"]}
        out = [_hashable(lemma) for m in sent for lemma in m[2]]
        assert out and set(out) <= learned and len(out) == len(set(out))
        # lemmas of another worker (here: a second finder's) reach this process's finder
        other = LayoutFinder(K3_K4E_RED, 9, lay, seed=5)
        other.share_lemmas()
        assert other.find(within=[(t, True) for t in range(3)]) is None
        assert other.learned
        inbox.append(("lemmas", (K3_K4E_RED.id, 9, 0), list(other.learned)))
        inbox.append(("lemmas", (K3_K4E_RED.id, 8, 0), [("c", 1)]))  # another level: ignored
        state = next(iter(cubes_module._LEVELS.values()))
        running = state.start(CubeTask(problem=K3_K4E_RED, cube=cube), lay)  # as a cube starts
        exchange.due = 0.0
        exchange(running)  # what the worker does between two candidates
        assert not inbox
        assert all(_hashable(lemma) in state.lemmas for lemma in other.learned)
        assert all(_hashable(lemma) in running.known for lemma in other.learned)
        other.close()
    finally:
        clear_finders()


def test_a_level_keeps_its_newest_lemmas_from_cube_to_cube(monkeypatch):
    """Each cube gets a fresh finder with the cube as unit clauses; the level's state keeps the
    lemmas of the cubes before (the newest ``MAX_KEPT_LEMMAS``) and the next finder starts with
    them."""
    plan = generate_cubes(K3_K4E_RED, 8, 4)
    first, second = plan.cubes[:2]
    try:
        for cap in (None, 3, 0):
            monkeypatch.setattr(cubes_module, "MAX_KEPT_LEMMAS", cap)
            clear_finders()
            one = run_cube(CubeTask(problem=K3_K4E_RED, cube=first))
            state = next(iter(cubes_module._LEVELS.values()))
            learned = [_hashable(lemma) for lemma in one["learned"]]
            assert learned  # the first cube learned lemmas
            kept = list(state.lemmas)
            assert kept == (learned if cap is None else learned[-cap:] if cap else [])
            two = run_cube(CubeTask(problem=K3_K4E_RED, cube=second))
            assert next(iter(cubes_module._LEVELS.values())) is state
            assert len(cubes_module._LEVELS) == 1
            # the second cube's finder started with the kept lemmas: it learned none of them again
            assert not set(kept) & {_hashable(lemma) for lemma in two["learned"]}
    finally:
        clear_finders()


def test_the_halves_of_a_split_cube_inherit_every_lemma_it_learned(monkeypatch):
    """A split cube's lemmas were learned in its very region: its halves get all of them (and
    its own inheritance), not only the level's newest ``MAX_KEPT_LEMMAS`` — here 0, so the
    inheritance is the only way they arrive; the verdict stays the single-process one.  Past
    ``MAX_CACHED_COPIES`` (here 0) the copies of lemmas the level does not keep are dropped."""
    monkeypatch.setattr(cubes_module, "MAX_KEPT_LEMMAS", 0)
    monkeypatch.setattr(cubes_module, "MAX_CACHED_COPIES", 0)
    seen: dict[str, tuple[set, set]] = {}
    real = runners_module.run_cube

    def spy(task, exchange=None):
        record = real(task, exchange)
        inherited = {_hashable(lemma) for lemma in task.inherited}
        seen[task.cube.bits] = (inherited, {_hashable(lemma) for lemma in record["learned"]})
        return record

    monkeypatch.setattr(runners_module, "run_cube", spy)
    options = SearchOptions(
        min_vertices=9, max_vertices=9, cubes=2, split_after=0.01, minimize_edges=False
    )
    cubes: list[dict] = []
    many = solve_cubes(K3_K4E_RED, options, on_cube=cubes.append)
    assert (many.status, many.lower_bound) == ("none-up-to-limit", 10)
    split = [c["bits"] for c in cubes if c["outcome"] == "split"]
    children = [bits for bits in seen if bits[:-1] in split]
    assert split and children
    for bits in children:
        parent_inherited, parent_learned = seen[bits[:-1]]
        assert seen[bits][0] == parent_inherited | parent_learned
    assert any(seen[bits][0] - seen[bits[:-1]][0] for bits in children)  # lemmas did pass down
    state = next(iter(cubes_module._LEVELS.values()), None)
    assert state is None or not state.finder.mono  # the inherited lemmas' copies dropped
    clear_finders()


@pytest.mark.parametrize("cap", [None, 0])
def test_an_inherited_lemmas_copies_stay_cached_up_to_the_cap(monkeypatch, cap):
    """A cube given inherited lemmas starts with them (it learns none of them again); the level
    does not keep them, but their copies stay cached for the next half unless the cache is past
    ``MAX_CACHED_COPIES``."""
    monkeypatch.setattr(cubes_module, "MAX_KEPT_LEMMAS", 0)
    if cap is not None:
        monkeypatch.setattr(cubes_module, "MAX_CACHED_COPIES", cap)
    first, second = generate_cubes(K3_K4E_RED, 8, 4).cubes[:2]
    try:
        learned = run_cube(CubeTask(problem=K3_K4E_RED, cube=first))["learned"]
        clear_finders()
        counterexamples = {value for kind, value in learned if kind == "c"}
        assert counterexamples
        two = run_cube(CubeTask(problem=K3_K4E_RED, cube=second, inherited=learned))
        assert not {_hashable(x) for x in learned} & {_hashable(x) for x in two["learned"]}
        state = next(iter(cubes_module._LEVELS.values()))
        assert not state.lemmas
        cached = counterexamples & set(state.finder.mono)
        assert cached == (counterexamples if cap is None else set())
    finally:
        clear_finders()


def test_without_sharing_nothing_is_inherited(monkeypatch):
    inherited: list = []
    real = runners_module.run_cube
    monkeypatch.setattr(
        runners_module,
        "run_cube",
        lambda task, exchange=None: (inherited.extend(task.inherited), real(task, exchange))[1],
    )
    options = SearchOptions(min_vertices=9, max_vertices=9, cubes=2, split_after=0.01, share=False)
    assert solve_cubes(K3_K4E_RED, options).lower_bound == 10
    assert not inherited
    clear_finders()


def test_the_verdict_holds_with_a_fresh_finder_for_every_cube(monkeypatch):
    monkeypatch.setattr(cubes_module, "MAX_KEPT_LEMMAS", 0)
    one = solve(K3_K4E_RED, SearchOptions(max_vertices=9))
    many = solve_cubes(K3_K4E_RED, SearchOptions(max_vertices=9, jobs=1, cubes=12))
    assert (many.status, many.lower_bound) == (one.status, one.lower_bound)
    assert [lv.outcome for lv in many.levels] == [lv.outcome for lv in one.levels]


def test_a_lemma_message_to_a_full_pipe_is_dropped_not_waited_for():
    ours, theirs = mp.Pipe(duplex=True)
    try:
        filler = b"x" * 4096
        while select.select([], [ours.fileno()], [], 0)[1]:
            ours.send_bytes(filler)
        t0 = time.monotonic()
        executors._send_if_room(ours, ("lemmas", ("p", 9, 0), [("c", 1)]))
        assert time.monotonic() - t0 < 1
        received = []
        while theirs.poll():
            received.append(theirs.recv_bytes())
        assert received and all(b == filler for b in received)
    finally:
        ours.close()
        theirs.close()


def test_a_lemma_message_to_a_worker_that_is_gone_is_dropped_quietly():
    ours, theirs = mp.Pipe(duplex=True)
    theirs.close()  # the worker's end: its process died
    executors._send_if_room(ours, ("lemmas", ("p", 9, 0), [("c", 1)]))
    ours.close()  # and a connection this process already closed
    executors._send_if_room(ours, ("lemmas", ("p", 9, 0), [("c", 1)]))


def _none_share(records: list[dict]) -> float:
    return sum(2.0 ** -len(r["bits"]) for r in records if r["outcome"] == "none")


def test_each_cube_record_says_how_much_of_the_level_is_decided_log_included(tmp_path):
    opts = {"min_vertices": 9, "max_vertices": 9, "cubes": 8, "minimize_edges": False}
    solve_cubes(K3_K4E_RED, SearchOptions(out=tmp_path / "first", **opts))
    cubes = [r for r in read_log(tmp_path / "first" / "cubes.jsonl") if r["kind"] == "cube"]
    shares = [r["decided_share"]["e=0-1"] for r in cubes]
    assert shares == sorted(shares) and shares[-1] == pytest.approx(_none_share(cubes))
    assert 0 < shares[-1] <= 1
    kept = cubes[: len(cubes) // 2]
    (tmp_path / "second").mkdir()
    (tmp_path / "second" / "cubes.jsonl").write_text("".join(json.dumps(r) + "\n" for r in kept))
    again: list[dict] = []
    solve_cubes(K3_K4E_RED, SearchOptions(out=tmp_path / "second", **opts), on_cube=again.append)
    assert again and len(again) < len(cubes)
    first = again[0]
    assert first["decided_share"]["e=0-1"] == pytest.approx(_none_share([*kept, first]))
    assert again[-1]["decided_share"]["e=0-1"] == pytest.approx(shares[-1])
    # no run-time splits here, so each cube is a planned one: decided ones counted one by one
    assert [r["planned_decided"] for r in cubes] == [
        [k, len(cubes)] for k in range(1, len(cubes) + 1)
    ]
    assert [r["planned_decided"][0] for r in again] == list(range(len(kept) + 1, len(cubes) + 1))


def test_solve_prints_a_heartbeat_while_cubes_finish(tmp_path, monkeypatch):
    monkeypatch.setattr(cli_search, "HEARTBEAT_SECONDS", 0.0)
    # a narrow terminal: each beat still stays one line
    monkeypatch.setattr(cli_search, "err_console", Console(stderr=True, width=40))
    args = ["solve", "--F", "K3", "--H", "K4-e", "--gadget", "red-determiner"]
    out = tmp_path / "run"
    result = cli.invoke(
        app,
        [*args, "--min-vertices", "9", "--max-vertices", "9", "--cubes", "4", "--out", str(out)],
    )
    assert result.exit_code == 1, result.output  # none on 9: not found within the limits
    beats = [line for line in result.output.splitlines() if "cubes decided" in line]
    cubes = [r for r in read_log(out / "cubes.jsonl") if r["kind"] == "cube"]
    assert len(beats) >= len(cubes) > 1
    last = beats[len(cubes) - 1]
    decided = sum(r["outcome"] == "none" for r in cubes)
    assert f"{decided} cubes decided" in last
    assert f"decided {decided} of {len(cubes)} planned cubes, at least" in last
    assert f"at least {_none_share(cubes):.1%} of 'e=0-1'" in last


def test_the_last_heartbeat_of_a_level_counts_every_cube_before_its_verdict(tmp_path, monkeypatch):
    """Cubes that finish within a beat of the last line are not lost from the output: the level's
    end prints them (a stopped sitting printed "3 split" where its log held 4)."""
    monkeypatch.setattr(cli_search, "HEARTBEAT_SECONDS", 3600.0)  # no beat of its own
    monkeypatch.setattr(cli_search, "err_console", cli_search.console)  # one stream, in order
    args = ["solve", "--F", "K3", "--H", "K4-e", "--gadget", "red-determiner", "--cubes", "4"]
    out = tmp_path / "run"
    result = cli.invoke(
        app, [*args, "--min-vertices", "9", "--max-vertices", "9", "--out", str(out)]
    )
    assert result.exit_code == 1, result.output
    lines = result.output.splitlines()
    [beat] = [i for i, line in enumerate(lines) if "cubes decided" in line]
    cubes = [r for r in read_log(out / "cubes.jsonl") if r["kind"] == "cube"]
    decided = sum(r["outcome"] == "none" for r in cubes)
    split = sum(r["outcome"] == "split" for r in cubes)
    assert f"n = 9: {decided} cubes decided, {split} split in" in lines[beat]
    assert lines[beat + 1].startswith("  n = 9: none")


def test_an_interrupted_sitting_prints_the_cubes_since_the_last_heartbeat(monkeypatch):
    def stopped(problem, options, *, on_level, on_cube, on_start):
        for outcome in ("split", "none", "split"):
            on_cube({"kind": "cube", "n": 14, "outcome": outcome, "decided_share": {"e": 0.5}})
        raise KeyboardInterrupt

    monkeypatch.setattr(cli_search, "HEARTBEAT_SECONDS", 3600.0)
    monkeypatch.setattr(parallel_module, "solve_cubes", stopped)
    args = ["solve", "--F", "K3", "--H", "K4", "--gadget", "negative-sender", "--cubes", "4"]
    result = cli.invoke(app, [*args, "--min-vertices", "14", "--max-vertices", "14"])
    assert result.exit_code == 130, result.output
    [beat] = [line for line in result.output.splitlines() if "cubes decided" in line]
    assert "n = 14: 1 cubes decided, 2 split in" in beat and "50.0% of 'e'" in beat


def test_the_coverage_script_rederives_what_a_log_proves(tmp_path):
    """bench/cube_coverage.py: a complete level is none; without one of its cubes it is open."""
    solve_cubes(
        K3_K4E_RED, SearchOptions(min_vertices=9, max_vertices=9, cubes=6, out=tmp_path / "run")
    )
    log = tmp_path / "run" / "cubes.jsonl"
    script = Path(__file__).parents[2] / "bench" / "cube_coverage.py"
    problem = ["--F", "K3", "--H", "K4-e", "--gadget", "red-determiner"]

    def coverage(path: Path) -> str:
        done = subprocess.run(
            [sys.executable, str(script), *problem, "--recheck", "all", str(path)],
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    assert "n = 9, lazy: none on 9: cube log, " in coverage(log)
    assert "all re-run (agree) (every layout covered)" in coverage(log)
    lines = log.read_text().splitlines()
    first_none = next(
        i
        for i, line in enumerate(lines)
        if json.loads(line).get("kind") == "cube" and json.loads(line)["outcome"] == "none"
    )
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(lines[:first_none] + lines[first_none + 1 :]) + "\n")
    out = coverage(cut)
    assert "'e=0-1':" in out and "not covered" in out and "none on 9" not in out


def test_a_rerun_reuses_the_halves_of_split_cubes(tmp_path):
    opts = {"min_vertices": 9, "max_vertices": 9, "cubes": 2, "out": tmp_path / "run"}
    first = solve_cubes(K3_K4E_RED, SearchOptions(split_after=0.01, **opts))
    assert first.levels[0].cubes > 2 and first.levels[0].cubes_from_log == 0
    records = [r for r in read_log(tmp_path / "run" / "cubes.jsonl") if r["kind"] == "cube"]
    assert records[-1]["planned_decided"] == [2, 2]  # both planned cubes, by their parts
    assert records[0]["planned_decided"][0] < 2
    again = solve_cubes(
        K3_K4E_RED, SearchOptions(**opts)
    )  # the same 2 static cubes, no splitting now
    assert again.status == "none-up-to-limit" and again.levels[0].cubes_searched == 0
    assert again.levels[0].cubes_from_log == first.levels[0].cubes


def test_a_rerun_goes_straight_to_the_halves_of_a_cube_logged_as_split(tmp_path):
    """A resumed frontier run must not search a cube for ``split_after`` seconds again only to
    split it again: the log says it splits, so its halves are searched at once."""
    opts = {"min_vertices": 9, "max_vertices": 9, "cubes": 2, "out": tmp_path / "run"}
    solve_cubes(K3_K4E_RED, SearchOptions(split_after=0.01, **opts))
    log = tmp_path / "run" / "cubes.jsonl"
    rows = [json.loads(ln) for ln in log.read_text().splitlines()]
    split = {r["bits"] for r in rows if r.get("outcome") == "split"}
    assert split
    kept = [r for r in rows if r.get("outcome") != "none"]
    log.write_text("".join(json.dumps(r) + "\n" for r in kept))
    again = solve_cubes(
        K3_K4E_RED, SearchOptions(**opts)
    )  # no splitting now: every open cube runs to its end
    assert again.status == "none-up-to-limit"
    new = [json.loads(ln) for ln in log.read_text().splitlines()][len(kept) :]
    searched = [r for r in new if r["kind"] == "cube"]
    assert searched and all(r["outcome"] == "none" for r in searched)
    assert not split & {r["bits"] for r in searched}
    assert again.levels[0].cubes_searched == len(searched)


def test_a_rerun_gives_every_untouched_planned_cube_its_turn_before_a_split_ones_parts(tmp_path):
    """A sitting that dug into one planned cube (split, parts decided, parts open) must not keep
    the next sitting from the planned cubes it never reached: they run first."""
    opts = {"min_vertices": 9, "max_vertices": 9, "cubes": 4, "out": tmp_path / "run"}
    solve_cubes(K3_K4E_RED, SearchOptions(split_after=0.01, **opts))
    log = tmp_path / "run" / "cubes.jsonl"
    rows = [json.loads(ln) for ln in log.read_text().splitlines()]
    planned = generate_cubes(K3_K4E_RED, 9, 4, SearchOptions().engine).cubes
    first = planned[0].bits
    split = [r for r in rows if r.get("outcome") == "split" and r["bits"] == first]
    assert split, "the first planned cube did not split"
    inside = [r for r in rows if r.get("kind") == "cube" and r["bits"].startswith(first)]
    inside = inside[: len(inside) - 1]  # its last part left open
    log.write_text("".join(json.dumps(r) + "\n" for r in inside))
    solve_cubes(K3_K4E_RED, SearchOptions(**opts))
    new = [json.loads(ln) for ln in log.read_text().splitlines()][len(inside) :]
    order = [r["bits"] for r in new if r["kind"] == "cube"]
    others = [c.bits for c in planned[1:]]
    assert order[: len(others)] == others
    assert all(b.startswith(first) for b in order[len(others) :]) and len(order) > len(others)


def test_every_planned_cube_has_its_first_turn_before_any_split_halves(tmp_path):
    """With one worker and cubes that all split, a split cube's halves wait until every planned
    cube has run once (so a deep cube never starves the rest within a sitting either)."""
    opts = SearchOptions(min_vertices=9, max_vertices=9, cubes=4, split_after=0.01, out=tmp_path)
    solve_cubes(K3_K4E_RED, opts)
    rows = [r for r in read_log(tmp_path / "cubes.jsonl") if r["kind"] == "cube"]
    planned = [c.bits for c in generate_cubes(K3_K4E_RED, 9, 4, opts.engine).cubes]
    assert [r["bits"] for r in rows[: len(planned)]] == planned
    assert len(rows) > len(planned) and rows[0]["outcome"] == "split"


def test_a_known_none_level_is_none_in_every_cube():
    """(K3, K4−e)-red-determiner: none on 9 vertices (needs 11, docs/search.md)."""
    assert (
        find_solution(K3_K4E_RED, 9, SearchOptions(engine="lazy", minimize_edges=False)).status
        == "none-up-to-limit"
    )
    cubes: list[dict] = []
    r = solve_cubes(
        K3_K4E_RED,
        SearchOptions(min_vertices=9, max_vertices=9, jobs=2, cubes=10),
        on_cube=cubes.append,
    )
    assert r.status == "none-up-to-limit" and r.lower_bound == 10
    assert len(cubes) == r.levels[0].cubes >= 10 and {c["outcome"] for c in cubes} == {"none"}
    assert r.proof() == "none on 9 vertices; levels below 9 not searched"


def test_min_vertices_is_not_a_minimum_without_the_lower_levels(tmp_path):
    r = solve_cubes(P3_K3_RED, SearchOptions(min_vertices=5, max_vertices=6, cubes=4))
    assert r.found and r.n == 5 and r.lower_bound == 2
    assert "not proven minimal" in r.proof() and "levels below 5 not searched" in r.proof()
    assert "not proven minimal" in r.describe()
    # a checked record of level 4, its cubes run again, makes it minimal
    solve_cubes(
        P3_K3_RED, SearchOptions(min_vertices=4, max_vertices=4, cubes=6, out=tmp_path / "run")
    )
    r = solve_cubes(
        P3_K3_RED,
        SearchOptions(
            min_vertices=5,
            max_vertices=6,
            assume_none_below=tmp_path / "run",
            recheck="all",
            cubes=4,
        ),
    )
    assert r.lower_bound == 5 and "(minimal)" in r.describe()
    assert "coverage re-derived" in r.proof() and "all re-run (agree)" in r.proof()
    # the plain search says which levels it did not search, too
    assert "levels below 4 not searched" in solve(P3_K3_RED, SearchOptions(min_vertices=4)).proof()


def test_a_proof_record_is_checked_not_trusted(tmp_path):
    solve_cubes(
        P3_K3_RED, SearchOptions(min_vertices=4, max_vertices=4, cubes=6, out=tmp_path / "run")
    )
    log = tmp_path / "run" / "cubes.jsonl"
    lines = log.read_text().splitlines()
    cube_lines = [ln for ln in lines if json.loads(ln)["kind"] == "cube"]
    # one UNSAT cube missing: the level is no longer covered
    gap = tmp_path / "gap.jsonl"
    gap.write_text("\n".join(ln for ln in lines if ln != cube_lines[0]) + "\n")
    with pytest.raises(SearchError, match="do not cover"):
        check_none_below(gap, P3_K3_RED, 4)
    # another problem's record proves nothing here
    with pytest.raises(SearchError, match="do not cover"):
        check_none_below(log, K13_K3_POS, 4)
    # cubes of one level decided by different engines (different symmetry breaking) do not add up
    with pytest.raises(SearchError, match="do not cover"):
        check_none_below(_relabel(log, tmp_path), P3_K3_RED, 4)
    assert check_none_below(log, P3_K3_RED, 4).startswith("none on 4: cube log")


def _relabel(log: Path, tmp_path: Path) -> Path:
    """Every other cube record marked as decided by the lazy engine."""
    out = tmp_path / "mixed.jsonl"
    rows = [json.loads(ln) for ln in log.read_text().splitlines()]
    for i, r in enumerate(rows):
        if i % 2:
            r["engine"] = "lazy"
    out.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return out


def test_resume_searches_only_undecided_cubes(tmp_path):
    out = tmp_path / "run"
    first = solve_cubes(K3_K4E_RED, SearchOptions(min_vertices=8, max_vertices=8, cubes=8, out=out))
    assert first.levels[0].cubes_searched == first.levels[0].cubes
    log = out / "cubes.jsonl"
    cube_lines = [ln for ln in log.read_text().splitlines() if '"kind":"cube"' in ln]
    # lose the last three cubes and tear the last line (a kill during a write)
    kept = [ln for ln in log.read_text().splitlines() if ln not in cube_lines[-3:]]
    log.write_text("\n".join(kept) + "\n" + cube_lines[-1][:25])
    again = solve_cubes(K3_K4E_RED, SearchOptions(min_vertices=8, max_vertices=8, cubes=8, out=out))
    assert again.status == first.status == "none-up-to-limit"
    assert again.levels[0].cubes_searched == 3
    records = read_log(log)  # the torn line was cut off, the log parses
    assert len([r for r in records if r["kind"] == "cube"]) == len(cube_lines)
    # a finer split later reuses the coarser decided cubes (their prefixes)
    finer = solve_cubes(
        K3_K4E_RED, SearchOptions(min_vertices=8, max_vertices=8, cubes=20, out=out)
    )
    assert finer.levels[0].cubes_searched == 0 and finer.status == "none-up-to-limit"


def test_each_cube_record_names_where_it_ran_and_older_logs_without_it_resume(tmp_path):
    """Local workers: the host (as ``node``) and the worker's pid (Ray: the node id, its IP,
    tests/scaleout/test_ray_cluster.py).  The fields are optional: a log written before them
    resumes like any other."""
    out = tmp_path / "run"
    first = solve_cubes(
        K3_K4E_RED, SearchOptions(min_vertices=8, max_vertices=8, jobs=2, cubes=8, out=out)
    )
    cubes = [r for r in read_log(out / "cubes.jsonl") if r["kind"] == "cube"]
    host = socket.gethostname()
    assert {(r["node"], r["host"], "ip" in r) for r in cubes} == {(host, host, False)}
    assert os.getpid() not in {r["pid"] for r in cubes}  # decided in the workers
    assert cubes_by_node(cubes) == {host: {"none": first.levels[0].cubes}}
    old = [{k: v for k, v in r.items() if k not in ("node", "host", "pid")} for r in cubes]
    (out / "cubes.jsonl").write_text("".join(json.dumps(r) + "\n" for r in old[:-2]))
    assert cubes_by_node(old) == {"?": {"none": len(old)}}
    again = solve_cubes(K3_K4E_RED, SearchOptions(min_vertices=8, max_vertices=8, cubes=8, out=out))
    assert again.status == "none-up-to-limit" and again.levels[0].cubes_searched == 2
    assert [r["node"] for r in read_log(out / "cubes.jsonl")[-3:-1]] == [host, host]


def test_a_found_level_resumes_from_its_logged_solution(tmp_path):
    out = tmp_path / "run"
    first = solve_cubes(
        P3_K3_RED, SearchOptions(max_vertices=6, cubes=4, out=out, minimize_edges=False)
    )
    again = solve_cubes(
        P3_K3_RED, SearchOptions(max_vertices=6, cubes=4, out=out, minimize_edges=False)
    )
    assert again.n == first.n == 5 and again.levels[-1].cubes_searched == 0
    assert again.candidate is not None and again.candidate.graph == first.candidate.graph


def test_a_corrupt_line_is_named(tmp_path):
    log = tmp_path / "cubes.jsonl"
    log.write_text('{"kind": "cube"}\nnot json\n{"kind": "cube"}\n')
    with pytest.raises(CubeLogError, match=r"cubes.jsonl line 2"):
        read_log(log)
    with pytest.raises(CubeLogError, match="line 2"):
        CubeLog(tmp_path)


def test_one_writer_at_a_time(tmp_path):
    with CubeLog(tmp_path) as log:
        log.append({"kind": "cube", "x": 1})
        with pytest.raises(CubeLogError, match="in use"):
            CubeLog(tmp_path)
    assert CubeLog(tmp_path).read() == [{"kind": "cube", "x": 1}]


def test_a_killed_worker_costs_only_its_cube(tmp_path, monkeypatch):
    """The first cube's worker SIGKILLs itself once (forked workers see the patched function):
    that cube is run again, every other cube once, and the verdict does not change."""
    marker = tmp_path / "killed"
    real = runners_module.run_cube

    def dying(task, exchange=None):
        if task.cube.bits.startswith("1111") and not marker.exists():
            marker.write_text(task.cube.key)
            os.kill(os.getpid(), signal.SIGKILL)
        return real(task, exchange)

    monkeypatch.setattr(runners_module, "run_cube", dying)
    cubes: list[dict] = []
    r = solve_cubes(
        K3_K4E_RED,
        SearchOptions(min_vertices=8, max_vertices=8, jobs=2, cubes=8, out=tmp_path / "run"),
        on_cube=cubes.append,
    )
    assert marker.exists() and r.status == "none-up-to-limit"
    keys = [c["key"] for c in cubes]
    assert len(keys) == len(set(keys)) == r.levels[0].cubes


def test_cli_cube_flags_and_errors(tmp_path):
    args = ["solve", "--F", "P3", "--H", "K3", "--gadget", "red-determiner"]
    result = cli.invoke(app, [*args, "--max-vertices", "6", "--jobs", "2", "--json"])
    assert result.exit_code == 0
    (r,) = json.loads(result.stdout)["results"]
    assert r["n"] == 5 and r["m"] == 7 and r["lower_bound"] == 5 and r["levels"][-1]["cubes"]
    result = cli.invoke(app, [*args, "--min-vertices", "5", "--max-vertices", "6"])
    assert "levels below 5 not searched" in result.output and "not proven minimal" in result.output
    for bad, message in (
        (["--assume-none-below", str(tmp_path)], "needs --min-vertices"),
        (["--min-vertices", "5", "--assume-none-below", str(tmp_path)], "not a cube log"),
        (["--min-vertices", "9", "--max-vertices", "6"], "above --max-vertices"),
    ):
        result = cli.invoke(app, [*args, *bad])
        assert result.exit_code == 2, result.output
        assert result.output.count("error:") == 1 and message in result.output
        assert "Traceback" not in result.output
    result = cli.invoke(app, ["solve", "--all", "--out", str(tmp_path)])
    assert result.exit_code == 2 and "take one problem" in result.output


def _session_processes(sid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[3]) == sid and fields[0] != "Z":
                out.append(int(entry.name))
    return out


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc")
@pytest.mark.parametrize(
    ("target", "sig", "exit_code"),
    [
        ("parent", signal.SIGINT, 130),
        ("process group", signal.SIGINT, 130),
        ("parent", signal.SIGTERM, 143),
    ],
)
def test_ctrl_c_stops_every_worker(target, sig, exit_code):
    """Ctrl-C in a terminal goes to the whole process group: the workers, in the middle of
    PySAT calls that install their own SIGINT handler, must not print tracebacks, and the parent
    must stop (once it took the dead workers for lost cubes and forked new ones)."""
    code = "import sys; from ramseygadgets.cli import main; sys.argv[0] = 'ramseygadgets'; main()"
    args = ["solve", "--F", "K3", "--H", "K4", "--gadget", "red-determiner"]
    args += ["--min-vertices", "12", "--max-vertices", "12", "--jobs", "2"]
    proc = subprocess.Popen(
        [sys.executable, "-c", code, *args],
        start_new_session=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        # a test run started in the background by a shell ignores SIGINT, and so would the CLI
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        deadline = time.monotonic() + 15
        while len(_session_processes(proc.pid)) < 3 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert len(_session_processes(proc.pid)) >= 3, "the workers never started"
        time.sleep(1.0)  # into the workers' SAT calls
        if target == "parent":
            os.kill(proc.pid, sig)
        else:
            os.killpg(proc.pid, sig)
        _, stderr = proc.communicate(timeout=15)
        time.sleep(0.5)
        assert proc.returncode == exit_code, stderr
        assert b"Traceback" not in stderr and b"KeyboardInterrupt" not in stderr, stderr
        assert _session_processes(proc.pid) == []
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)


@pytest.mark.slow
def test_cubes_on_ray_give_the_same_verdict():
    pytest.importorskip("ray")
    one = solve(K13_K3_POS, SearchOptions(max_vertices=8))
    many = solve_cubes(K13_K3_POS, SearchOptions(max_vertices=8, ray="local", jobs=2, cubes=8))
    assert (many.status, many.n, many.m, many.lower_bound) == (
        one.status,
        one.n,
        one.m,
        one.lower_bound,
    )


def test_a_failure_while_a_cube_is_set_up_clears_the_kept_levels(monkeypatch):
    """An interrupt while the finder is reset for a cube (its oracle may be mid-call) leaves no
    kept level behind, as one during the search does."""
    plan = generate_cubes(K3_K4E_RED, 8, 4)
    try:
        run_cube(CubeTask(problem=K3_K4E_RED, cube=plan.cubes[0]))
        assert cubes_module._LEVELS

        def interrupted(self, task, layout):
            raise KeyboardInterrupt

        monkeypatch.setattr(cubes_module.LevelState, "start", interrupted)
        with pytest.raises(KeyboardInterrupt):
            run_cube(CubeTask(problem=K3_K4E_RED, cube=plan.cubes[1]))
        assert not cubes_module._LEVELS
    finally:
        clear_finders()
