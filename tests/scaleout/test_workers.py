"""Worker processes never outlive their parent (issue 16): a SIGKILLed ``generate`` or
``solve --jobs`` takes its workers with it, pools are no larger than their work, and a
``generate`` killed at random moments resumes to the results of a clean run."""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from pysat.examples.genhard import PHP
from pysat.solvers import Solver
from typer.testing import CliRunner

from ramseygadgets.cli import app
from ramseygadgets.cli.app import sigterm_raises
from ramseygadgets.core.gadgets import Candidate
from ramseygadgets.infra.workers import init_worker
from ramseygadgets.problemsets import (
    ProblemSetWriter,
    load_generated,
    plan_problem_set,
    read_results_file,
)
from ramseygadgets.scaleout import LocalExecutor
from ramseygadgets.scaleout.fanout import generate_problem_set
from ramseygadgets.verification.verifier import verify

from . import helpers

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/stat").exists(), reason="needs Linux /proc to see worker processes"
)
SCRIPT = str(Path(sys.executable).with_name("ramseygadgets"))
SLOW = ["--F", "K1,3", "--H", "K1,4,K5", "--gadgets", "red-determiner", "--timeout", "120"]


def _start(args: list[str]) -> subprocess.Popen:
    return subprocess.Popen(
        [SCRIPT, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # a stray Ctrl-C of the test run does not reach it
    )


def _wait_for_workers(process: subprocess.Popen, count: int, seconds: float = 60) -> list[int]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        workers = [pid for pid in helpers.children(process.pid) if helpers.alive(pid)]
        if len(workers) >= count:
            return workers
        time.sleep(0.05)
    process.kill()
    pytest.fail(f"{count} workers did not start: {process.communicate()[0]}")


def _kill_and_check(process: subprocess.Popen, workers: list[int]) -> None:
    """SIGKILL the parent; every worker is gone within 5 s and the output pipe closes."""
    process.kill()
    process.wait()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and any(helpers.alive(pid) for pid in workers):
        time.sleep(0.05)
    survivors = [pid for pid in workers if helpers.alive(pid)]
    for pid in survivors:
        os.kill(pid, signal.SIGKILL)
    assert not survivors, f"workers {survivors} outlived their killed parent"
    process.communicate(timeout=5)  # nobody holds the parent's stdout any more


def test_workers_of_a_killed_generate_die_with_it(tmp_path):
    process = _start(["generate", *SLOW, "--jobs", "2", "--out", str(tmp_path)])
    _kill_and_check(process, _wait_for_workers(process, 2))


def test_workers_of_a_killed_solve_jobs_die_with_it():
    """The pool of ``solve --jobs`` (``solve_many``) on two long problems, parent SIGKILLed."""
    code = (
        "from ramseygadgets.problems.catalog import Problem\n"
        "from ramseygadgets.search.batch import solve_many\n"
        "from ramseygadgets.search.options import SearchOptions\n"
        "slow = [Problem.make('K1,3', H, 'red-determiner') for H in ('K1,4', 'K5')]\n"
        "solve_many(slow, SearchOptions(jobs=2, timeout=120))\n"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", code],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    _kill_and_check(process, _wait_for_workers(process, 2))


def test_a_pool_has_no_more_processes_than_tasks():
    others = len(helpers.children(os.getpid()))  # e.g. a Ray node started by another test
    sizes = [size for _, size in LocalExecutor(12).run(helpers.siblings, [0, 1, 2])]
    assert max(sizes) - others <= 3


def test_jobs_are_capped_at_the_problems_and_cores_and_that_is_said(tmp_path):
    result = CliRunner().invoke(
        app,
        [
            "generate",
            "--F",
            "P3",
            "--H",
            "K3",
            "--gadgets",
            "determiners",
            "--max-vertices",
            "6",
            "--jobs",
            "1000",
            "--out",
            str(tmp_path),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "note: --jobs 1000 capped at" in result.output and "2 problems to solve" in result.output
    assert "--oversubscribe" in result.output and "1000 local processes" not in result.output


# -- resumed after SIGKILL at random moments --------------------------------------------------
RESUME = ["--F", "P3", "--H", "K3,C4,P4,C5", "--gadgets", "determiners,senders"]
LIMITS = ["--max-vertices", "8", "--timeout", "60"]


def _outcomes(records: dict[str, dict]) -> dict[str, tuple]:
    """What must not depend on timing: status and the minimal (n, m) with its proof."""
    return {pid: (r["status"], r["n"], r["m"], r["proven_minimal"]) for pid, r in records.items()}


def _kill_resume(tmp_path: Path, kills: int, seed: int) -> None:
    rng = random.Random(seed)
    plan = plan_problem_set(["P3"], ["K3,C4,P4,C5"], gadgets="determiners,senders")
    with ProblemSetWriter(tmp_path / "clean") as writer:
        generate_problem_set(plan, writer, max_vertices=8, timeout=60, executor=LocalExecutor(1))
        clean = _outcomes(writer.results)
    out = tmp_path / "killed"
    command = ["generate", *RESUME, *LIMITS, "--jobs", "2", "--out", str(out)]
    for _ in range(kills):
        process = _start(command)
        time.sleep(rng.uniform(0.2, 4.0))
        workers = [pid for pid in helpers.children(process.pid) if helpers.alive(pid)]
        _kill_and_check(process, workers)
    final = subprocess.run([SCRIPT, *command], capture_output=True, text=True, timeout=120)
    assert final.returncode == 0, final.stdout + final.stderr
    read = read_results_file(out / "results.jsonl")
    assert not read.rejected  # no kill left a line that does not check
    assert _outcomes(read.by_id()) == clean
    exported = load_generated(out)
    assert len(exported) == len(clean)
    for problem, candidate, _ in exported:
        assert isinstance(candidate, Candidate) and verify(problem, candidate).correct, problem.id
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["planned"] == manifest["finished"] == len(clean)


def test_generate_resumed_after_sigkill_at_random_moments_matches_a_clean_run(tmp_path):
    _kill_resume(tmp_path, kills=3, seed=16)


@pytest.mark.slow
def test_generate_resumed_after_ten_sigkills_matches_a_clean_run(tmp_path):
    _kill_resume(tmp_path, kills=10, seed=1016)


def _solve_hard_formula_as_a_worker(parent: int, conn) -> None:
    init_worker(parent)
    with Solver(name="minisat22", bootstrap_with=PHP(10).clauses) as solver:
        conn.send("solving")
        try:
            solver.solve()  # installs PySAT's own SIGINT handler for the call
        except Exception as exc:
            conn.send(f"interrupted: {exc}")
            return
        conn.send("finished")


def test_ctrl_c_never_reaches_a_workers_pysat_call():
    """A terminal's Ctrl-C goes to every process of the group. A worker ignores SIGINT, but a
    PySAT ``solve`` installs its own handler while it runs: the worker must still not see it
    (it is the parent's to handle), or each worker dies printing a traceback."""
    ctx = mp.get_context("fork")
    conn, child = ctx.Pipe()
    worker = ctx.Process(target=_solve_hard_formula_as_a_worker, args=(os.getpid(), child))
    worker.start()
    try:
        assert conn.poll(30) and conn.recv() == "solving"
        time.sleep(0.3)
        os.kill(worker.pid, signal.SIGINT)
        reply = conn.recv() if conn.poll(2) else None
        assert reply in (None, "finished"), reply
        assert reply == "finished" or worker.is_alive()
    finally:
        worker.kill()
        worker.join()


def _sleep_as_a_worker(parent: int) -> None:
    init_worker(parent)
    time.sleep(30)


def test_sigterm_ends_a_worker_quietly_whatever_the_parent_handles():
    """A pool stops its workers with SIGTERM; a worker forked while its parent turns SIGTERM into
    an exception (``sigterm_raises``) must die of the signal, not print that exception."""
    ctx = mp.get_context("fork")
    with sigterm_raises():
        worker = ctx.Process(target=_sleep_as_a_worker, args=(os.getpid(),))
        worker.start()
    time.sleep(0.5)
    worker.terminate()
    worker.join(10)
    assert worker.exitcode == -signal.SIGTERM
