"""Re-run every none-cube of a cube log's proof in resumable sittings (``search/reruns.py``).

    nice -n 19 .venv/bin/python bench/rerun_cubes.py LOG --problem negative-sender --n 13 \\
        --out DIR [--max-edges M] [--degree-rules off|on] [--seed S] [--order log|cheap]

Reads the proof "none on n vertices" (with ``--max-edges``: "with at most M edges") from the
cube log ``LOG``, re-derives its coverage, and searches each of its none-cubes that the re-run
log ``DIR/cubes.jsonl`` has not finished again, one at a time in this process, appending a
``rerun`` record per cube (stop it with SIGTERM at any time: only the cube in progress is lost;
start the same command again to go on).  ``--order cheap``: the cubes with the least logged CPU
time first (more cubes per sitting), ``log`` (default): the order the log decided them (later
cubes reuse the lemmas earlier ones learned, as in the search).  Prints one line per cube and
what is left; ``atlas adopt LOG --rerun-log DIR`` then takes the re-run record into the atlas.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from ramseygadgets.problems.problem import Problem
from ramseygadgets.search.cubelog import read_log
from ramseygadgets.search.cubeproof import CubeProof, read_checked
from ramseygadgets.search.reruns import RerunConfig, pending, rerun_to_log


def load_proof(log: Path, problem: Problem, n: int, max_edges: int | None) -> CubeProof:
    """The covering proof of level ``n`` in ``log`` (``SystemExit`` naming why not)."""
    numbered = read_checked(log, problem)
    for proof in CubeProof.from_numbered(numbered, problem, max_edges=max_edges):
        if proof.n == n:
            print(proof.check(), flush=True)
            return proof
    raise SystemExit(f"{log}: no cubes of {problem.title} decided none on level {n}")


def logged_order(log: Path, proof: CubeProof, cheap: bool) -> dict[tuple[str, str], float]:
    """A sort key per cube of the proof: its log line, or its logged CPU seconds."""
    key: dict[tuple[str, str], float] = {}
    for line, record in enumerate(read_log(log), 1):
        cube = (str(record.get("layout")), str(record.get("bits")))
        if record.get("outcome") == "none" and record.get("n") == proof.n and cube not in key:
            key[cube] = float(record.get("cpu_seconds", 0.0)) if cheap else float(line)
    return key


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("log", type=Path, help="the cube log (cubes.jsonl) holding the proof")
    parser.add_argument("--problem", required=True, help="the (K3, K4) gadget of the log")
    parser.add_argument("--n", type=int, required=True, help="the level the proof decides none")
    parser.add_argument("--max-edges", type=int, default=None, help="the proof's edge cap")
    parser.add_argument("--out", type=Path, required=True, help="the re-run log's directory")
    parser.add_argument("--degree-rules", choices=("off", "on"), default="off")
    parser.add_argument("--seed", type=int, default=None, help="the exists solver's seed")
    parser.add_argument("--order", choices=("log", "cheap"), default="log")
    parser.add_argument("--timeout", type=float, default=None, help="seconds per cube")
    args = parser.parse_args(argv)
    problem = Problem.make("K3", "K4", args.problem)
    proof = load_proof(args.log, problem, args.n, args.max_edges)
    config = RerunConfig(degree_rules=args.degree_rules == "on", seed=args.seed)
    rank = logged_order(args.log, proof, args.order == "cheap")
    start = time.monotonic()

    def report(record: dict[str, Any], done: int, total: int) -> None:
        print(
            f"[{time.monotonic() - start:7.0f} s] {done}/{total} {record['layout']}|"
            f"{record['bits']}: {record['outcome']} {record['cpu_seconds']:.1f} CPU s "
            f"({record['candidates']} candidates)",
            flush=True,
        )

    count = rerun_to_log(
        proof,
        args.out,
        config,
        timeout=args.timeout,
        order=lambda cubes: sorted(cubes, key=lambda c: rank.get(c, float("inf"))),
        progress=report,
    )
    left = pending(read_log(args.out / "cubes.jsonl"), proof)
    print(f"re-ran {count} cubes this sitting; {len(left)} of {proof.cubes} left", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
