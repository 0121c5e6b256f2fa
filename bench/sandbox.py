"""The sandbox's cost against a plain subprocess running the same program, in one run.

    .venv/bin/python bench/sandbox.py [--runs 20]

Start-up: the first :func:`ramseygadgets.sandbox.require_sandbox` of a process (finding the
runtime's shared libraries, hashing or making the runtime image, one probe program).  The
sandbox is the python setting's: seccomp filter, a cgroup per program, read-only root
(docs/sandbox.md has the figures before and after issue 44).  Per call: the median wall time of
:meth:`Sandbox.run` and of ``subprocess.run([python, "-c", program])`` for three programs
(``pass``; importing networkx and PySAT; a small SAT search), interleaved, and their ratio and
difference (the overhead per program).  Exit code 0; 1 where the sandbox cannot run here.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

from ramseygadgets.sandbox import Sandbox, SandboxUnavailableError, require_sandbox

PROGRAMS = {
    "pass": "pass",
    "import networkx, pysat": "import networkx\nfrom pysat.solvers import Solver",
    "SAT search": (
        "import itertools, networkx as nx\nfrom pysat.solvers import Solver\n"
        "g = nx.complete_graph(6)\nedges = list(g.edges())\n"
        "with Solver(name='cadical153') as s:\n"
        "    for t in itertools.combinations(range(6), 3):\n"
        "        ids = [edges.index(e) + 1 for e in itertools.combinations(t, 2)]\n"
        "        s.add_clause(ids)\n        s.add_clause([-i for i in ids])\n"
        "    print(s.solve())\n"
    ),
}


def plain(program: str) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", program], capture_output=True, check=True)
    return time.perf_counter() - started


def sandboxed(sandbox: Sandbox, program: str) -> float:
    started = time.perf_counter()
    result = sandbox.run(program)
    if not result.ok:
        raise SystemExit(f"the sandboxed program failed: {result.stderr[-500:]}")
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    started = time.perf_counter()
    try:
        require_sandbox(require_cgroup=True)
    except SandboxUnavailableError as exc:
        print(exc)
        return 1
    print(f"start-up (once per process): {(time.perf_counter() - started) * 1000:.0f} ms")
    sandbox = Sandbox()
    print("| program | plain subprocess | sandbox | ratio | overhead |")
    print("| --- | --- | --- | --- | --- |")
    for name, program in PROGRAMS.items():
        plain_s, sandbox_s = [], []
        for _ in range(args.runs):
            plain_s.append(plain(program))
            sandbox_s.append(sandboxed(sandbox, program))
        p, s = statistics.median(plain_s), statistics.median(sandbox_s)
        print(
            f"| {name} | {p * 1000:.0f} ms | {s * 1000:.0f} ms | {s / p:.1f}× "
            f"| +{(s - p) * 1000:.0f} ms |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
