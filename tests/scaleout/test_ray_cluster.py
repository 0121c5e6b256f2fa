"""A cube search on a Ray cluster of two nodes (a head and a second node, one CPU each, both on
this machine: ``ray.cluster_utils.Cluster``), driven like ``solve --ray ADDRESS`` on a real
cluster: the CLI in its own process, connecting to the cluster's address.

Both nodes must decide cubes, and no worker may rely on a file only the driver can see: every
Python process the two nodes start (their workers) runs with an audit hook that refuses to open
anything under the driver's directory (its working directory, which holds ``--out`` and the
log), and leaves a marker so the test knows the hook was there in each worker that decided a
cube.  The problem, the cubes and the lemmas must therefore reach the workers through Ray, and
the records come back the same way to the driver, which alone writes the log.
"""

from __future__ import annotations

import json
import os
import pickle
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePath
from subprocess import PIPE
from typing import Any

import pytest

from ramseygadgets.problems.problem import Problem
from ramseygadgets.search.cubelog import CUBES_FILE, cubes_by_node, read_log
from ramseygadgets.search.options import SearchOptions
from ramseygadgets.search.parallel import solve_cubes
from ramseygadgets.search.runners import CubeRunner

#: The environment variables of the audit hook (set for the cluster's nodes only).
FORBID_ENV = "RAMSEYGADGETS_TEST_FORBID_DIR"
SEEN_ENV = "RAMSEYGADGETS_TEST_SEEN_DIR"

#: Loaded by every Python process the nodes start (PYTHONPATH): marks the process as watched,
#: then refuses any open() under the forbidden directory.
SITECUSTOMIZE = f"""
import json, os, sys

_forbid = os.environ.get({FORBID_ENV!r})
_seen = os.environ.get({SEEN_ENV!r})
if _forbid and _seen:
    _marker = os.path.join(_seen, str(os.getpid()))
    with open(_marker + ".part", "w") as _f:  # renamed when complete: read whole or not at all
        json.dump({{"cwd": os.getcwd(), "argv": sys.argv}}, _f)
    os.replace(_marker + ".part", _marker)
    _forbid = os.path.realpath(_forbid)

    def _refuse(event, args):
        if event == "open" and args and isinstance(args[0], (str, bytes, os.PathLike)):
            path = os.path.realpath(os.fsdecode(args[0]))
            if path == _forbid or path.startswith(_forbid + os.sep):
                raise PermissionError(f"a worker may not open the driver's file {{path}}")

    sys.addaudithook(_refuse)
"""

#: A level that is none (so every cube is searched) and takes a few CPU seconds in 16 cubes.
PROBLEM = ["--F", "K3", "--H", "K4-e", "--gadget", "red-determiner"]
LEVEL = 10
CUBES = 16


def _node_env(tmp_path: Path, driver: Path) -> dict[str, str]:
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(SITECUSTOMIZE)
    (tmp_path / "seen").mkdir()
    path = os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH")) if p)
    return {
        "PYTHONPATH": path,
        FORBID_ENV: str(driver),
        SEEN_ENV: str(tmp_path / "seen"),
        "RAY_worker_niceness": str(os.nice(0)),  # Ray's nice 15 would starve them here
    }


def test_the_hook_refuses_the_drivers_files(tmp_path):
    """The guard itself: a process started with the nodes' environment cannot read the log."""
    driver = tmp_path / "driver"
    (driver / "out").mkdir(parents=True)
    (driver / "out" / CUBES_FILE).write_text("{}\n")
    env = {**os.environ, **_node_env(tmp_path, driver)}
    read = "open('out/cubes.jsonl').read()"
    refused = subprocess.run(
        [sys.executable, "-c", read], cwd=driver, env=env, capture_output=True, text=True
    )
    assert refused.returncode != 0
    assert "a worker may not open the driver's file" in refused.stderr
    assert list((tmp_path / "seen").iterdir())  # and it left its marker
    outside = subprocess.run([sys.executable, "-c", "print(1)"], cwd=tmp_path, env=env)
    assert outside.returncode == 0


@dataclass
class TwoNodes:
    """The cluster, each node's working directory by node id, the driver's directory."""

    cluster: Any
    homes: dict[str, Path]
    root: Path
    driver: Path
    env: dict[str, str]

    def add_node(self, name: str) -> Any:
        """Start one more node (one CPU) in an empty directory ``name`` of its own."""
        (self.root / name).mkdir()
        with pytest.MonkeyPatch.context() as mp:
            mp.chdir(self.root / name)
            return self.cluster.add_node(num_cpus=1, env_vars=self.env)

    def solve(self, out: str) -> list[str]:
        """The command line of ``solve --ray ADDRESS`` for the level, logging to ``out``."""
        args = ["solve", *PROBLEM, "--min-vertices", str(LEVEL), "--max-vertices", str(LEVEL)]
        args += ["--cubes", str(CUBES), "--ray", self.cluster.address, "--out", out, "--json"]
        return [sys.executable, "-m", "ramseygadgets", *args]


@pytest.fixture(scope="module")
def two_nodes(tmp_path_factory):
    pytest.importorskip("ray", reason="Ray is not installed (pip install 'ramseygadgets[ray]')")
    from ray.cluster_utils import Cluster

    root = tmp_path_factory.mktemp("cluster")
    driver = root / "driver"
    driver.mkdir()
    env = _node_env(root, driver)
    (root / "head").mkdir()
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(root / "head")  # each node works in an empty directory of its own
        cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "env_vars": env})
    try:
        nodes = TwoNodes(cluster, {cluster.head_node.node_id: root / "head"}, root, driver, env)
        nodes.homes[nodes.add_node("second").node_id] = root / "second"
        yield nodes
    finally:
        cluster.shutdown()


def _cubes(path: Path) -> list[dict[str, Any]]:
    return [r for r in read_log(path) if r["kind"] == "cube"] if path.exists() else []


def _check_watched(root: Path, homes: dict[str, Path], cubes: list[dict[str, Any]]) -> None:
    """Every worker that decided a cube ran under the hook, in its node's empty directory (by
    node id, ``homes``): none could open the driver's files (its cwd, ``--out``, the log)."""
    seen = (p for p in (root / "seen").iterdir() if p.name.isdigit())
    watched = {int(p.name): json.loads(p.read_text()) for p in seen}
    for r in cubes:
        assert r["pid"] in watched, r
        assert "default_worker.py" in " ".join(watched[r["pid"]]["argv"])
        assert Path(watched[r["pid"]]["cwd"]) == homes[r["node"]]


@pytest.mark.integration
def test_both_nodes_of_a_two_node_cluster_decide_cubes_without_the_drivers_files(two_nodes):
    run = subprocess.run(
        two_nodes.solve("both"), cwd=two_nodes.driver, capture_output=True, text=True, timeout=240
    )
    assert run.returncode == 1, run.stderr[-3000:]  # exit 1: no solution within the limit
    (result,) = json.loads(run.stdout)["results"]
    assert result["status"] == "none-up-to-limit" and result["lower_bound"] == LEVEL + 1

    log = two_nodes.driver / "both" / CUBES_FILE
    cubes = _cubes(log)
    assert len(cubes) == CUBES and {r["outcome"] for r in cubes} == {"none"}
    by_node = cubes_by_node(read_log(log))
    assert set(by_node) == set(two_nodes.homes), by_node  # both nodes decided cubes
    assert all(counts["none"] >= 1 for counts in by_node.values())
    assert {(r["host"], bool(r["ip"])) for r in cubes} == {(socket.gethostname(), True)}
    _check_watched(two_nodes.root, two_nodes.homes, cubes)


def _wait_for(what: Callable[[], bool], proc: subprocess.Popen[str], seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while not what():
        assert proc.poll() is None, "the search ended too soon"
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


@pytest.mark.integration
def test_a_lost_node_costs_nothing_decided_and_a_rerun_resumes_from_the_log(two_nodes):
    """A third node decides a cube, then dies: the search goes on (Ray runs a task of the lost
    node again elsewhere).  Then the driver is killed too (SIGKILL, as when its machine goes
    down): the log holds exactly the cubes decided so far, and the same command again searches
    only the others, the ones in flight when it died included."""
    third = two_nodes.add_node("third")
    homes = {**two_nodes.homes, third.node_id: two_nodes.root / "third"}
    log = two_nodes.driver / "lost" / CUBES_FILE
    proc = subprocess.Popen(
        two_nodes.solve("lost"), cwd=two_nodes.driver, stdout=PIPE, stderr=PIPE, text=True
    )
    try:
        _wait_for(lambda: any(r["node"] == third.node_id for r in _cubes(log)), proc)
        two_nodes.cluster.remove_node(third, allow_graceful=False)
        lost_at = len(_cubes(log))
        _wait_for(lambda: len(_cubes(log)) >= lost_at + 2, proc)  # the search goes on
    finally:
        proc.kill()
        proc.communicate()
    first = _cubes(log)
    decided = {r["key"] for r in first if r["outcome"] == "none"}
    assert len(decided) == len(first) < CUBES

    again = subprocess.run(
        two_nodes.solve("lost"), cwd=two_nodes.driver, capture_output=True, text=True, timeout=240
    )
    assert again.returncode == 1, again.stderr[-3000:]
    assert again.stdout.startswith("{"), (again.stdout[:3000], again.stderr[-3000:])
    (result,) = json.loads(again.stdout)["results"]
    assert result["status"] == "none-up-to-limit"
    (level,) = result["levels"]
    assert (level["cubes_from_log"], level["cubes_searched"]) == (
        len(decided),
        CUBES - len(decided),
    )
    resumed = _cubes(log)[len(first) :]
    assert not decided & {r["key"] for r in resumed}  # nothing decided is searched again
    assert len(decided | {r["key"] for r in resumed}) == CUBES
    _check_watched(two_nodes.root, homes, first + resumed)


class _Watch(pickle.Pickler):
    """Pickles like Ray and the worker pipes do, noting every path object on the way."""

    def __init__(self, file: Any) -> None:
        super().__init__(file)
        self.paths: list[PurePath] = []

    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, PurePath):
            self.paths.append(obj)
        return NotImplemented


def test_a_cube_task_carries_no_path(tmp_path, monkeypatch):
    """What a worker gets (the same task for every runner: the scheduler builds it) holds no
    path: not the log's, not the working directory's, no path object at all."""
    import io

    tasks: list[Any] = []
    submit = CubeRunner.submit
    monkeypatch.setattr(
        CubeRunner, "submit", lambda self, k, t: (tasks.append(t), submit(self, k, t))
    )
    problem = Problem.make("K3", "K4-e", "red-determiner")
    solve_cubes(
        problem, SearchOptions(min_vertices=8, max_vertices=8, cubes=8, out=tmp_path / "out")
    )
    assert len(tasks) >= 8 and any(t.lemmas for t in tasks)  # lemmas travel in the task
    for task in tasks:
        buffer = io.BytesIO()
        watch = _Watch(buffer)
        watch.dump(task)
        data = buffer.getvalue()
        assert watch.paths == []
        for place in (tmp_path, Path.cwd(), Path.home()):
            assert str(place).encode() not in data
        assert CUBES_FILE.encode() not in data
