"""Push the frontier: time to prove "no solution on at most n vertices", eager against lazy engine.

    .venv/bin/python bench/frontier.py                                  # 8 problems, n = 7 … 11
    .venv/bin/python bench/frontier.py --problems k3_k4e_red --max-n 10 --timeout 600
    .venv/bin/python bench/frontier.py --engines lazy --min-n 11 --max-n 12 --timeout 3000
    .venv/bin/python bench/frontier.py --summary bench/results/frontier.jsonl   # table of a record
    .venv/bin/python bench/frontier.py --pairs        # both engines on 28 smaller non-star pairs
    .venv/bin/python bench/frontier.py --cubes 64 --jobs 1 2 --problems k3_k4_red --min-n 12
                                                      # cube-and-conquer scaling on one level

For each problem and n = min-n, min-n + 1, … both engines decide the vertex count n alone with
:func:`ramseygadgets.search.find_solution` (solutions are monotone in n, so "none on n" proves
"none on at most n").  An engine stops at its first solution or timeout.  Times are CPU seconds
of this process (``time.process_time``: the engines run in it, one after the other), so the
ratio does not depend on other load on the machine; wall seconds are recorded too.  Each
engine first runs one untimed level (n = 7) of each problem, so that one-time costs (imports,
caches) do not fall on the engine that happens to run first.  Each level
is appended to ``--out`` as one JSON line when it ends (with the finder's counts: candidates,
lemmas, arrowing lemmas, pruned candidates), so nothing is lost when the run is cut short.
"""

from __future__ import annotations

import argparse
import heapq
import json
import os
import sys
import time
from pathlib import Path

from ramseygadgets.core.gadgets import Candidate
from ramseygadgets.problems.catalog import Problem
from ramseygadgets.search import find_solution, solve
from ramseygadgets.search.cegar import ENGINES
from ramseygadgets.search.exhaustive import gadgets_in_graph
from ramseygadgets.search.options import SearchOptions
from ramseygadgets.search.parallel import solve_cubes

#: The hardest pairs found so far (issue 14): F = K3 against K4−e and K4, four gadget types.
FRONTIER = {
    f"k3_{h_id}_{g_id}": ("K3", h, gadget)
    for h_id, h in (("k4e", "K4-e"), ("k4", "K4"))
    for g_id, gadget in (
        ("red", "red-determiner"),
        ("blue", "blue-determiner"),
        ("pos", "positive-sender"),
        ("neg", "negative-sender"),
    )
}


def run_level(problem: Problem, n: int, engine: str, timeout: float) -> dict:
    cpu, wall = time.process_time(), time.monotonic()
    result = find_solution(
        problem, n, SearchOptions(timeout=timeout, engine=engine, minimize_edges=False)
    )
    level = result.levels[-1]
    return {
        "problem": problem.title,
        "n": n,
        "engine": engine,
        "outcome": level.outcome,
        "cpu_seconds": round(time.process_time() - cpu, 3),
        "wall_seconds": round(time.monotonic() - wall, 3),
        "candidates": level.candidates,
        "lemmas": level.lemmas,
        "arrowing_lemmas": level.arrowing,
        "pruned": level.pruned,
        # the verifier-checked solution (find_solution re-checks it with verify) and a second
        # check by the exhaustive scan's independent gadget detector
        "solution": result.candidate.to_json(problem.kind) if result.candidate else None,
        "detector_agrees": second_check(problem, result.candidate) if result.candidate else None,
    }


def warm_up(problem: Problem, engines: list[str], n: int = 7) -> None:
    """One untimed small level per engine first: one-time costs (imports, caches) would
    otherwise fall on whichever engine runs first."""
    for engine in engines:
        find_solution(problem, n, SearchOptions(timeout=60, engine=engine, minimize_edges=False))


def second_check(problem: Problem, candidate: Candidate) -> bool:
    """The exhaustive scan's detector also finds a gadget of this type in the graph."""
    found = gadgets_in_graph(candidate.graph, problem.F, problem.H, [problem.gadget])
    return found is not None and problem.gadget in found


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--problems", nargs="*", default=list(FRONTIER), choices=list(FRONTIER))
    parser.add_argument("--engines", nargs="*", default=["lazy", "eager"], choices=list(ENGINES))
    parser.add_argument("--min-n", type=int, default=7)
    parser.add_argument("--max-n", type=int, default=11)
    parser.add_argument(
        "--timeout", type=float, default=300.0, help="wall seconds per engine and level"
    )
    parser.add_argument("--out", type=Path, default=Path("frontier.jsonl"))
    parser.add_argument(
        "--summary", type=Path, help="print the table of a recorded run instead of running"
    )
    parser.add_argument(
        "--pairs",
        action="store_true",
        help="instead: minimal (n, m) of the PAIRS with both engines (120 s each), CPU seconds",
    )
    parser.add_argument(
        "--cubes",
        type=int,
        help="instead: cube-and-conquer scaling on level --min-n of the first --problems "
        "(single process, then the cubes with each --jobs count)",
    )
    parser.add_argument("--jobs", type=int, nargs="*", default=[1, 2])
    parser.add_argument(
        "--split-after", type=float, help="with --cubes: split a cube still running after S s"
    )
    args = parser.parse_args()
    if args.cubes:
        return cube_scaling(
            args.problems[0], args.min_n, args.cubes, args.jobs, args.out, args.split_after
        )
    if args.pairs:
        return compare_pairs()
    if args.summary:
        print_summary([json.loads(line) for line in args.summary.read_text().splitlines() if line])
        return 0
    rows: list[dict] = []
    with args.out.open("a") as out:
        for key in args.problems:
            problem = Problem.make(*FRONTIER[key])
            warm_up(problem, args.engines)
            alive = list(args.engines)
            for n in range(args.min_n, args.max_n + 1):
                for engine in list(alive):
                    row = run_level(problem, n, engine, args.timeout)
                    rows.append(row)
                    out.write(json.dumps(row) + "\n")
                    out.flush()
                    print(json.dumps(row), flush=True)
                    if row["outcome"] != "none":
                        alive.remove(engine)
                if not alive:
                    break
    print_summary(rows)
    return 0


def cube_scaling(
    key: str, n: int, cubes: int, jobs_list: list[int], out: Path, split_after: float | None = None
) -> int:
    """Wall time of one level by the single-process lazy engine and by cube-and-conquer with
    each worker count; the cube times; makespans on 8, 32 and 128 workers *simulated* from the
    cube times of the one-worker run (greedy list scheduling in submission order, as the
    scheduler runs them, and LPT); the splitting overhead (sum of cube CPU over the single
    process's CPU).  Load averages are recorded before and after each run (2-core machine
    shared with other jobs: wall times are noisy)."""
    problem = Problem.make(*FRONTIER[key])
    warm_up(problem, ["lazy"])
    rows: list[dict] = []

    def emit(row: dict) -> None:
        row = {"problem": problem.title, "n": n, **row}
        rows.append(row)
        with out.open("a") as fh:
            fh.write(json.dumps(row) + "\n")
        print(json.dumps(row)[:400], flush=True)

    load = os.getloadavg()
    cpu, wall = time.process_time(), time.monotonic()
    single = find_solution(problem, n, SearchOptions(engine="lazy", minimize_edges=False))
    emit(
        {
            "mode": "single",
            "outcome": single.levels[-1].outcome,
            "wall_seconds": round(time.monotonic() - wall, 3),
            "cpu_seconds": round(time.process_time() - cpu, 3),
            "candidates": single.levels[-1].candidates,
            "load_before": load,
            "load_after": os.getloadavg(),
        }
    )
    for jobs in jobs_list:
        cube_rows: list[dict] = []
        load = os.getloadavg()
        wall = time.monotonic()
        r = solve_cubes(
            problem,
            SearchOptions(
                min_vertices=n,
                max_vertices=n,
                jobs=jobs,
                cubes=cubes,
                engine="lazy",
                minimize_edges=False,
                split_after=split_after,
            ),
            on_cube=cube_rows.append,
        )
        times = [c["cpu_seconds"] for c in cube_rows]
        emit(
            {
                "mode": "cubes",
                "jobs": jobs,
                "cubes_target": cubes,
                "split_after": split_after,
                "cubes_split": sum(c["outcome"] == "split" for c in cube_rows),
                # worker processes swap lemmas while their cubes run (since 2026-12-03)
                "lemmas_swapped_while_running": jobs > 1,
                "outcome": r.levels[-1].outcome,
                "wall_seconds": round(time.monotonic() - wall, 3),
                "cube_cpu_sum": round(sum(times), 3),
                "overhead": round(sum(times) / max(rows[0]["cpu_seconds"], 1e-9), 3),
                "candidates": r.levels[-1].candidates,
                "cube_cpu_seconds": times,
                "cube_keys": [c["key"] for c in cube_rows],
                "projected_makespan": {
                    str(w): {"list": round(makespan(times, w), 3), "lpt": round(lpt(times, w), 3)}
                    for w in (1, 2, 8, 32, 128)
                },
                "load_before": load,
                "load_after": os.getloadavg(),
            }
        )
    return 0


def makespan(times: list[float], workers: int) -> float:
    """Greedy list scheduling in the given order: each job to the first free worker."""
    free = [0.0] * workers
    for t in times:
        heapq.heappush(free, heapq.heappop(free) + t)
    return max(free)


def lpt(times: list[float], workers: int) -> float:
    """Longest processing time first (a 4/3-approximation of the optimal makespan)."""
    return makespan(sorted(times, reverse=True), workers)


#: Smaller pairs with F not a star (minimal sizes 6 to 10, some undecided in 120 s).
PAIRS = [
    (F, H)
    for F, H in (
        ("K3", "P4"),
        ("K3", "C4"),
        ("C4", "K3"),
        ("P4", "K4"),
        ("TK3", "K4"),
        ("K3", "K3"),
        ("C4", "C4"),
    )
]
GADGETS = ("red-determiner", "blue-determiner", "positive-sender", "negative-sender")


def compare_pairs() -> int:
    """Both engines on every PAIRS problem: consistent answers, and their CPU seconds summed over
    the problems both decided within the limits."""
    engines = ("lazy", "eager")
    totals = {engine: 0.0 for engine in engines}
    decided = 0
    for F, H in PAIRS:
        for gadget in GADGETS:
            problem = Problem.make(F, H, gadget)
            answers, seconds = {}, {}
            for engine in engines:
                cpu = time.process_time()
                r = solve(problem, SearchOptions(engine=engine, max_vertices=10, timeout=120))
                seconds[engine] = time.process_time() - cpu
                answers[engine] = (r.status, r.n, r.m, r.lower_bound)
                print(
                    problem.title,
                    engine,
                    answers[engine],
                    f"{seconds[engine]:.2f} CPU s",
                    flush=True,
                )
            if not consistent(*answers.values()):
                print(f"ENGINES DISAGREE on {problem.title}: {answers}")
                return 1
            if all(answer[0] != "timeout" for answer in answers.values()):
                decided += 1
                for engine in engines:
                    totals[engine] += seconds[engine]
    print(
        f"{decided} problems decided by both, CPU s in all: "
        + ", ".join(f"{engine} {totals[engine]:.1f}" for engine in engines),
        flush=True,
    )
    return 0


def consistent(a: tuple, b: tuple) -> bool:
    """Whether two engines' answers (status, n, m, lower bound) can both be true.

    Solutions found by both must have the same (n, m) (both minimal); a solution on n vertices
    contradicts a proof that none has fewer than L > n vertices.  A timeout, or "none up to the
    limit", only says how far that engine's proof got.
    """
    if a[0] == "found" and b[0] == "found":
        return a[1:3] == b[1:3]
    for found, other in ((a, b), (b, a)):
        if found[0] == "found" and other[3] > found[1]:
            return False
    return True


def print_summary(rows: list[dict]) -> None:
    """Per problem and n: CPU seconds of each engine (the fastest record of each) and the ratio.

    A timeout shows as "> t": the ratio is then a lower bound.
    """
    by_problem: dict[str, dict[tuple[str, int], dict]] = {}
    for row in rows:
        key = (row["engine"], row["n"])
        levels = by_problem.setdefault(row["problem"], {})
        if key not in levels or row["cpu_seconds"] < levels[key]["cpu_seconds"]:
            levels[key] = row
    print("\n| problem | n | eager CPU s | lazy CPU s | eager / lazy |")
    print("|---|---|---|---|---|")
    for title, levels in by_problem.items():
        for n in sorted({n for _, n in levels}):
            eager, lazy = levels.get(("eager", n)), levels.get(("lazy", n))
            ratio = ""
            if eager and lazy and lazy["outcome"] != "timeout":
                bound = "> " if eager["outcome"] == "timeout" else ""
                ratio = f"{bound}{eager['cpu_seconds'] / max(lazy['cpu_seconds'], 1e-3):.1f}×"
            print(f"| {title} | {n} | {_cell(eager)} | {_cell(lazy)} | {ratio} |")


def _cell(row: dict | None) -> str:
    if row is None:
        return "—"
    if row["outcome"] == "timeout":
        return f"> {row['cpu_seconds']:.1f} (timeout)"
    return f"{row['cpu_seconds']:.2f} ({row['outcome']})"


if __name__ == "__main__":
    sys.exit(main())
