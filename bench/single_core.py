"""Single-core speed on the frontier set, against a baseline commit, in one run.

    .venv/bin/python bench/single_core.py --baseline 0f58e2b              # 3 rounds
    .venv/bin/python bench/single_core.py --baseline 0f58e2b --repeat 5 --out bench/results/single-core.jsonl

The frontier set of issue 25: "none on ≤ n" for the (K3,K4) red-determiner (n = 12), the
(K3,K4−e) red-determiner (n = 10) and the (K3,K4) blue-determiner (n = 11), each decided by
``solve(..., max_vertices=n, minimize_edges=False)`` from its smallest vertex count.  The
baseline is checked out into a temporary git worktree; each round runs every problem once on
the baseline and once on this tree, alternating which goes first, each in a fresh process
(``PYTHONPATH`` selects the source), and records the child's CPU seconds
(``time.process_time``).  Ratios are baseline / current medians over the rounds, so they do not
depend on how busy the machine was when the run started.  One JSON line per timed run goes to
``--out`` as it finishes.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: (key, F, H, gadget, n): "none on at most n vertices".
FRONTIER_SET = [
    ("k3_k4_red_determiner", "K3", "K4", "red-determiner", 12),
    ("k3_k4e_red_determiner", "K3", "K4-e", "red-determiner", 10),
    ("k3_k4_blue_determiner", "K3", "K4", "blue-determiner", 11),
]

#: Runs in the child: decide the levels, print CPU seconds and the outcome as JSON.
CHILD = """
import json, sys, time
from ramseygadgets.problems.problem import Problem
from ramseygadgets.search import solve
try:  # SearchOptions since issue 35; a baseline before it takes keywords
    from ramseygadgets.search import SearchOptions
    def search(problem, n):
        return solve(problem, SearchOptions(max_vertices=n, minimize_edges=False))
except ImportError:
    def search(problem, n):
        return solve(problem, max_vertices=n, minimize_edges=False)
F, H, gadget, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
problem = Problem.make(F, H, gadget)
search(problem, 7)  # imports and caches, untimed
cpu = time.process_time()
result = search(problem, n)
print(json.dumps({"cpu_seconds": time.process_time() - cpu, "status": result.status,
                  "lower_bound": result.lower_bound}))
"""


def run_child(src: Path, F: str, H: str, gadget: str, n: int) -> dict:
    env = {"PYTHONPATH": str(src), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, F, H, gadget, str(n)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--baseline", required=True, help="git revision to compare against")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", type=Path, default=Path("single-core.jsonl"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "baseline"
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), args.baseline],
            check=True,
            capture_output=True,
        )
        try:
            times = measure(tree / "src", args.repeat, args.baseline, args.out)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)])
    print_table(times)
    return 0


def measure(baseline: Path, repeat: int, revision: str, out: Path) -> dict:
    sources = {"baseline": baseline, "current": ROOT / "src"}
    times: dict = {(key, side): [] for key, *_ in FRONTIER_SET for side in sources}
    head = current_revision()
    with out.open("a") as log:
        for round_ in range(repeat):
            for key, F, H, gadget, n in FRONTIER_SET:
                order = list(sources) if round_ % 2 == 0 else list(reversed(sources))
                for side in order:
                    result = run_child(sources[side], F, H, gadget, n)
                    if result["status"] != "none-up-to-limit" or result["lower_bound"] != n + 1:
                        raise SystemExit(f"{side} did not prove none on ≤ {n} for {key}: {result}")
                    times[key, side].append(result["cpu_seconds"])
                    record = {"problem": key, "n": n, "side": side, "round": round_, **result}
                    log.write(json.dumps({**record, "baseline": revision, "current": head}) + "\n")
                    log.flush()
                    print(f"{key} ≤{n} {side}: {result['cpu_seconds']:.2f} CPU s", flush=True)
    return times


def current_revision() -> str:
    """This tree's commit, with ``+changes`` when the working tree differs from it."""
    git = ["git", "-C", str(ROOT)]
    head = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    dirty = subprocess.run([*git, "diff", "--quiet", "HEAD", "--", "src"]).returncode != 0
    return head.stdout.strip() + ("+changes" if dirty else "")


def print_table(times: dict) -> None:
    print("\n| problem | baseline CPU s (median) | current CPU s (median) | speed-up |")
    print("|---|---:|---:|---:|")
    total = {"baseline": 0.0, "current": 0.0}
    for key, *_, n in FRONTIER_SET:
        base = statistics.median(times[key, "baseline"])
        now = statistics.median(times[key, "current"])
        total["baseline"] += base
        total["current"] += now
        print(f"| {key} none on ≤ {n} | {base:.2f} | {now:.2f} | {base / now:.2f}× |")
    ratio = total["baseline"] / total["current"]
    print(f"| the set | {total['baseline']:.2f} | {total['current']:.2f} | {ratio:.2f}× |")


if __name__ == "__main__":
    raise SystemExit(main())
