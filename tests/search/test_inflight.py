"""The cubes a running search has in flight (search/inflight.py): written by the driver while a
level runs, gone when it ends, and shown only while their writer holds the directory."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

from ramseygadgets.infra.files import LOCK_FILE
from ramseygadgets.problems.catalog import Problem
from ramseygadgets.search.inflight import (
    IN_FLIGHT_FILE,
    FlyingCube,
    InFlight,
    clear_in_flight,
    read_in_flight,
    write_in_flight,
)
from ramseygadgets.search.options import SearchOptions
from ramseygadgets.search.parallel import solve_cubes
from ramseygadgets.search.runners import CubeRunner

CUBES = [
    FlyingCube(14, "f adjacent to e", "1110", 200.0, 41_203),
    FlyingCube(14, "f adjacent to e", "0", 100.0),
]


def _held_by(directory, pid: int) -> None:
    (directory / LOCK_FILE).write_text(str(pid))


def test_what_its_writer_holds_is_read_back_oldest_first(tmp_path):
    write_in_flight(tmp_path, "k3_k4_negative_sender", CUBES)
    _held_by(tmp_path, os.getpid())
    running = read_in_flight(tmp_path)
    assert running is not None and running.pid == os.getpid()
    assert running.problem_id == "k3_k4_negative_sender"
    assert running.cubes == (CUBES[1], CUBES[0])  # the lemma counts too
    assert running.written is not None and abs(running.written - time.time()) < 60
    assert CUBES[1].running_for(now=160.0) == 60.0 and CUBES[0].running_for(now=160.0) == 0.0
    clear_in_flight(tmp_path)
    assert read_in_flight(tmp_path) is None
    clear_in_flight(tmp_path)  # twice: nothing to remove, no error


def test_a_file_its_writer_left_behind_is_not_shown(tmp_path):
    write_in_flight(tmp_path, "p", CUBES)
    assert read_in_flight(tmp_path) is None  # no lock at all
    _held_by(tmp_path, os.getpid() + 1)
    assert read_in_flight(tmp_path) is None  # the lock names another process
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    document = json.loads((tmp_path / IN_FLIGHT_FILE).read_text())
    (tmp_path / IN_FLIGHT_FILE).write_text(json.dumps({**document, "pid": gone.pid}))
    _held_by(tmp_path, gone.pid)
    assert read_in_flight(tmp_path) is None  # killed with SIGKILL: the pid is gone


def test_a_malformed_file_is_not_shown(tmp_path):
    _held_by(tmp_path, os.getpid())
    cube = {"n": 14, "layout": "e=0-1", "bits": "0", "since": 1.0}
    bad_counts = [{**cube, "lemmas": lemmas} for lemmas in (-1, "7", True, 2.5)]
    for cubes in ([{}], *([c] for c in bad_counts)):
        text = json.dumps({"pid": os.getpid(), "problem_id": "p", "cubes": cubes})
        (tmp_path / IN_FLIGHT_FILE).write_text(text)
        assert read_in_flight(tmp_path) is None, cubes
    for text in (
        "{",
        "[]",
        *(
            json.dumps({"pid": os.getpid(), "problem_id": "p", "cubes": [cube], "written": w})
            for w in ("x", "1.5", True, [1])
        ),
    ):
        (tmp_path / IN_FLIGHT_FILE).write_text(text)
        assert read_in_flight(tmp_path) is None
    older = {"pid": os.getpid(), "problem_id": "p", "cubes": [cube]}  # before counts were kept
    (tmp_path / IN_FLIGHT_FILE).write_text(json.dumps(older))
    assert read_in_flight(tmp_path) == InFlight(
        os.getpid(), "p", (FlyingCube(14, "e=0-1", "0", 1.0),)
    )
    (tmp_path / IN_FLIGHT_FILE).write_text(json.dumps({"pid": "1", "problem_id": "p", "cubes": []}))
    assert read_in_flight(tmp_path) is None


def test_a_running_search_names_the_cubes_it_runs_and_removes_the_file_at_the_end(
    tmp_path, monkeypatch
):
    seen = []
    wait = CubeRunner.wait

    def looking(self, timeout=None):
        seen.append((read_in_flight(tmp_path), time.time()))
        return wait(self, timeout)

    monkeypatch.setattr(CubeRunner, "wait", looking)
    problem = Problem.make("K3", "K4-e", "red-determiner")
    options = SearchOptions(min_vertices=9, max_vertices=9, cubes=4, split_after=0.01, out=tmp_path)
    solve_cubes(problem, options)
    assert len(seen) >= 4
    logged = [json.loads(line) for line in (tmp_path / "cubes.jsonl").read_text().splitlines()]
    keys = {r["key"] for r in logged if r["kind"] == "cube"}
    for running, at in seen:
        assert running is not None and running.pid == os.getpid()
        assert running.problem_id == problem.id
        (cube,) = running.cubes  # one worker: one cube at a time
        assert f"{cube.n}|{cube.layout}|{cube.bits}" in keys  # the cube that then ended
        assert cube.n == 9 and 0 <= at - cube.since < 60
    assert not (tmp_path / IN_FLIGHT_FILE).exists()


def test_an_in_flight_file_that_cannot_be_written_or_removed_changes_nothing(tmp_path, monkeypatch):
    """The file is a view: a full disk or a read-only folder at its writing or its removal
    leaves the search and its log as they are without it."""

    def failing(*args, **kwargs):
        raise OSError(28, "No space left on device")

    problem = Problem.make("K3", "K4-e", "red-determiner")

    def run(out):
        options = SearchOptions(min_vertices=8, max_vertices=9, cubes=4, out=out)
        result = solve_cubes(problem, options)
        lines = [json.loads(line) for line in (out / "cubes.jsonl").read_text().splitlines()]
        return result, sorted((r["key"], r.get("outcome")) for r in lines if r["kind"] == "cube")

    plain, plain_log = run(tmp_path / "plain")
    monkeypatch.setattr("ramseygadgets.search.parallel.write_in_flight", failing)
    monkeypatch.setattr("ramseygadgets.search.parallel.clear_in_flight", failing)
    broken, broken_log = run(tmp_path / "broken")
    assert broken_log == plain_log and broken_log
    assert (broken.status, broken.n) == (plain.status, plain.n)
    assert not (tmp_path / "broken" / IN_FLIGHT_FILE).exists()
