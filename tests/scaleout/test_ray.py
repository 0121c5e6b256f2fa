"""The same work on a Ray cluster (a local single-node cluster: Ray ≥ 2.10 has no local_mode)."""

from __future__ import annotations

import os

import pytest

from ramseygadgets.problemsets import ProblemSetWriter, plan_problem_set
from ramseygadgets.scaleout import LocalExecutor, RayExecutor
from ramseygadgets.scaleout.census import run_census
from ramseygadgets.scaleout.fanout import generate_problem_set
from ramseygadgets.search.exhaustive import nauty_available

from . import helpers
from .test_executors_and_census import problems

ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'ramseygadgets[ray]')")
pytestmark = pytest.mark.skipif(
    not nauty_available(), reason="nauty (geng, listg) is not installed"
)


def test_unreachable_or_malformed_cluster_addresses_fail_at_once_with_one_line():
    """Ray itself would retry for minutes; the executor checks the address first (runs before
    the module's cluster starts: with Ray already initialised no address is dialled)."""
    import time

    from ramseygadgets.scaleout import ScaleoutError

    assert not ray.is_initialized()
    started = time.monotonic()
    with pytest.raises(ScaleoutError, match="cannot reach the Ray cluster at '127.0.0.1:1'"):
        RayExecutor("127.0.0.1:1")
    with pytest.raises(ScaleoutError, match="must be auto, local, host:port"):
        RayExecutor("nonsense")
    assert time.monotonic() - started < 15


@pytest.fixture(scope="module")
def cluster():
    from ray import cloudpickle

    cloudpickle.register_pickle_by_value(helpers)  # test tasks travel by value to Ray workers
    executor = RayExecutor("local", num_cpus=2)
    yield executor
    executor.close()
    cloudpickle.unregister_pickle_by_value(helpers)


@pytest.mark.integration
def test_a_local_cluster_runs_its_workers_at_the_callers_priority(cluster):
    """Ray's default (nice 15) would starve the tasks beside any other work."""
    assert [v for _, v in cluster.run(helpers.niceness, [0, 1])] == [os.nice(0)] * 2


NICED_CALLER = """
import os
os.nice(3)
from ramseygadgets.scaleout import RayExecutor

def niceness(_):
    return os.nice(0)

executor = RayExecutor("local", num_cpus=1)
print(os.nice(0), [v for _, v in executor.run(niceness, [0])][0])
executor.close()
"""


@pytest.mark.integration
def test_a_niced_callers_local_cluster_runs_its_workers_at_its_niceness_not_twice_it():
    """A caller at nice 5 once got workers at nice 10: the variable is an increment on the
    niceness the workers inherit from the caller."""
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "RAY_worker_niceness"}
    done = subprocess.run(
        [sys.executable, "-c", NICED_CALLER], capture_output=True, text=True, timeout=180, env=env
    )
    assert done.returncode == 0, done.stderr[-2000:]
    caller, worker = (int(v) for v in done.stdout.split()[-2:])
    assert caller == min(19, os.nice(0) + 3) and worker == caller


@pytest.mark.integration
def test_ray_sliced_enumeration_gets_the_single_process_counts(cluster, tmp_path):
    single = run_census(problems(), range(3, 7), mod=1, executor=LocalExecutor(1))
    on_ray = run_census(problems(), range(3, 7), mod=6, executor=cluster, checkpoint_dir=tmp_path)
    assert on_ray.counts() == single.counts()
    assert len(on_ray.computed) == 24 and len(list(tmp_path.glob("*.json"))) == 24
    again = run_census(problems(), range(3, 7), mod=6, executor=cluster, checkpoint_dir=tmp_path)
    assert again.computed == [] and again.counts() == single.counts()


@pytest.mark.integration
def test_ray_reruns_the_task_of_a_dead_worker_once(cluster, tmp_path):
    marker = str(tmp_path / "marker")
    results = list(cluster.run(helpers.die_once_marked, [(x, marker) for x in range(6)]))
    assert (tmp_path / "marker").exists()
    assert sorted(i for i, _ in results) == list(range(6))
    assert dict(results) == {x: x * x for x in range(6)}


@pytest.mark.integration
def test_problems_fan_out_on_ray_like_on_local_processes(cluster, tmp_path):
    plan = plan_problem_set(["P3"], ["K3", "C5"], ["P3 | P3 | P4"], gadgets="determiners,senders")
    local = generate_problem_set(
        plan,
        ProblemSetWriter(tmp_path / "local"),
        max_vertices=7,
        timeout=30,
        executor=LocalExecutor(1),
    )
    remote = generate_problem_set(
        plan, ProblemSetWriter(tmp_path / "ray"), max_vertices=7, timeout=30, executor=cluster
    )

    def sizes(outcome):
        return {r["id"]: (r["status"], r["n"], r["m"]) for r in outcome.ran}

    assert len(remote.ran) == len(plan.problems) == 11
    assert sizes(remote) == sizes(local)
    assert (tmp_path / "ray" / "problems.jsonl").read_text() == (
        tmp_path / "local" / "problems.jsonl"
    ).read_text()


def test_the_clusters_error_events_go_to_stderr_not_into_json_on_stdout(monkeypatch, capsys):
    """Ray prints events such as a node marked dead to the driver's stdout; the executor sends
    them to stderr (the real case: tests/scaleout/test_ray_cluster.py)."""
    from ray._private import worker as ray_worker

    from ramseygadgets.infra import executors

    monkeypatch.setattr(ray_worker, "print_to_stdstream", ray_worker.print_to_stdstream)
    monkeypatch.setattr(executors, "_errors_guarded", False)
    executors._cluster_errors_to_stderr()
    executors._cluster_errors_to_stderr()  # a second call changes nothing
    event = {"lines": ["The node with node id: 3a5a has been marked dead"], "pid": "raylet"}
    ray_worker.print_to_stdstream({**event, "is_err": False}, ignore_prefix=False)
    out, err = capsys.readouterr()
    assert out == "" and err.count("has been marked dead") == 1
