"""The cgroup budget's files, v2 and v1, on a stand-in folder (the real hierarchies are
exercised by test_sandbox_kernel.py; cgroup v2 is not delegated on our machines)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from ramseygadgets.sandbox.cgroup import HELPER_TASKS, CgroupBudget, CgroupSupport, enter_command
from ramseygadgets.sandbox.limits import SandboxLimits, SandboxUnavailableError

LIMITS = SandboxLimits(memory_mb=96, processes=8)


def _budget(tmp_path: Path, kind: str, controllers: tuple[str, ...]) -> CgroupBudget:
    parents = tuple((c, tmp_path / (c or "unified") / "ramseygadgets") for c in controllers)
    for _, parent in parents:
        parent.mkdir(parents=True)
    return CgroupBudget(CgroupSupport(kind, parents), LIMITS)


def test_v2_limits_events_and_cpu(tmp_path: Path) -> None:
    budget = _budget(tmp_path, "v2", ("",))
    [folder] = budget.dirs.values()
    assert (folder / "memory.max").read_text() == str(96 * 2**20)
    assert (folder / "pids.max").read_text() == str(8 + HELPER_TASKS)
    assert budget.procs_files == [str(folder / "cgroup.procs")]
    assert not budget.oom_killed() and budget.cpu_seconds() is None
    (folder / "memory.events").write_text("low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n")
    (folder / "cpu.stat").write_text("usage_usec 2500000\nuser_usec 2000000\n")
    assert budget.oom_killed() and budget.cpu_seconds() == 2.5
    shutil.rmtree(folder)
    budget.close()


def test_v1_limits_in_each_hierarchy(tmp_path: Path) -> None:
    budget = _budget(tmp_path, "v1", ("memory", "pids", "cpuacct"))
    assert (budget.dirs["memory"] / "memory.limit_in_bytes").read_text() == str(96 * 2**20)
    assert not (
        budget.dirs["memory"] / "memory.memsw.limit_in_bytes"
    ).exists()  # only where swap is counted
    assert (budget.dirs["pids"] / "pids.max").read_text() == str(8 + HELPER_TASKS)
    (budget.dirs["memory"] / "memory.oom_control").write_text("oom_kill_disable 0\noom_kill 2\n")
    (budget.dirs["cpuacct"] / "cpuacct.usage").write_text("1500000000\n")
    assert budget.oom_killed() and budget.cpu_seconds() == 1.5
    assert len(budget.procs_files) == 3
    for folder in budget.dirs.values():
        shutil.rmtree(folder)


def test_the_wrapper_enters_every_cgroup_then_execs(tmp_path: Path) -> None:
    files = [str(tmp_path / "a"), str(tmp_path / "b")]
    done = subprocess.run(
        [*enter_command(files), "/bin/sh", "-c", "echo $$"], capture_output=True, text=True
    )
    pid = done.stdout.strip()
    assert [Path(f).read_text().strip() for f in files] == [pid, pid]  # the same process
    failed = subprocess.run(enter_command([str(tmp_path / "no" / "such")]) + ["true"])
    assert failed.returncode == 125


def test_a_budget_that_cannot_be_made_is_refused_in_one_line(tmp_path: Path) -> None:
    support = CgroupSupport("v2", (("", tmp_path / "missing" / "ramseygadgets"),))
    with pytest.raises(SandboxUnavailableError, match="cannot set up its cgroup") as caught:
        CgroupBudget(support, LIMITS)
    assert "\n" not in str(caught.value)
