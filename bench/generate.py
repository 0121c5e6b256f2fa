"""Benchmark ``generate``: the problem set F ∈ {P3, K1,3}, H = every connected graph on 5 vertices.

    .venv/bin/python bench/generate.py                       # 2 local processes, 30 s per problem
    .venv/bin/python bench/generate.py --timeout 60 --jobs 2 --out runs/gen-p3-k13-c5
    .venv/bin/python bench/generate.py --ray local           # the same on a local Ray cluster

First, the cost of generality on the paper's pairs (same process, ratios): the multi-colour
verifier and search against the core ones on the 52 determiner/sender problems (search: those
with minimal size ≤ 8).  Then the generated set: the number of problems (and those the rules left out), the distribution of minimal sizes,
the problems not solved within the limits (by status), total search time (sum over problems)
and wall time, and their ratio (the parallel speed-up over one process).  The output directory
is resumable: a second run with the same --out only solves what is missing.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter

from rich.console import Console
from rich.table import Table

from ramseygadgets.infra.executors import make_executor
from ramseygadgets.problems.catalog import all_problems
from ramseygadgets.problems.solutions import load_solutions
from ramseygadgets.problemsets import ProblemSetWriter, plan_problem_set
from ramseygadgets.scaleout.fanout import generate_problem_set, hardest_last
from ramseygadgets.search import solve
from ramseygadgets.search.multi import solve_multi
from ramseygadgets.search.options import SearchOptions
from ramseygadgets.verification.verifier import verify


def compare_pairs(console: Console) -> None:
    """Multi-colour code vs the core on the same two-colour single-pattern problems (ratios,
    one process): ``verify(..., encoding="colors")``/``solve_multi`` against ``verify``/``search.solve``."""
    shipped = load_solutions()
    problems = [p for p in all_problems() if not p.kind.is_hardness]

    def per_call(fn, repeats: int = 20) -> float:
        started = time.perf_counter()
        for _ in range(repeats):
            for p in problems:
                fn(p)
        return (time.perf_counter() - started) / repeats / len(problems) * 1000

    core_ms = per_call(lambda p: verify(p, shipped[p.id].candidate))
    multi_ms = per_call(lambda p: verify(p, shipped[p.id].candidate, encoding="colors"))
    small = [p for p in problems if shipped[p.id].n <= 8]
    started = time.perf_counter()
    for p in small:
        solve(p, SearchOptions(max_vertices=shipped[p.id].n))
    core_s = time.perf_counter() - started
    started = time.perf_counter()
    for p in small:
        result = solve_multi(p, SearchOptions(max_vertices=shipped[p.id].n))
        assert (result.n, result.m) == (shipped[p.id].n, shipped[p.id].m), p.id
    multi_s = time.perf_counter() - started
    console.print(
        f"pairs, multi-colour code vs core: verify {multi_ms:.3f} vs {core_ms:.3f} ms per solution "
        f"({multi_ms / core_ms:.2f}x); minimal search of {len(small)} problems {multi_s:.2f} vs "
        f"{core_s:.2f} s ({multi_s / core_s:.2f}x), same (n, m) on every one"
    )


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--F", default="P3,K1,3")
    parser.add_argument("--H", default="connected:5")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per problem")
    parser.add_argument("--max-vertices", type=int, default=10)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--ray", default=None, help="Ray address (auto, local, ...)")
    parser.add_argument("--out", default=None, help="output directory (default: a temporary one)")
    parser.add_argument(
        "--skip-pairs", action="store_true", help="skip the multi-colour vs core comparison"
    )
    args = parser.parse_args()
    console = Console(width=120)
    if not args.skip_pairs:
        compare_pairs(console)
    out = args.out or tempfile.mkdtemp(prefix="bench-generate-")
    plan = plan_problem_set([args.F], [args.H])
    writer = ProblemSetWriter(out)
    started = time.monotonic()
    with make_executor(args.jobs, args.ray) as executor:
        console.print(
            f"{len(plan.problems)} problems (F = {args.F}, H = {args.H}), {len(plan.skipped)} left out by "
            f"the rules; {executor.describe()}, {args.timeout:g} s and ≤ {args.max_vertices} vertices per "
            f"problem; output {out}"
        )
        done = [0]

        def progress(record: dict) -> None:
            done[0] += 1
            if done[0] % 20 == 0:
                console.print(f"  {done[0]} finished ({time.monotonic() - started:.0f} s)")

        outcome = generate_problem_set(
            plan,
            writer,
            max_vertices=args.max_vertices,
            timeout=args.timeout,
            executor=executor,
            on_result=progress,
            order=hardest_last,
            options={"command": "bench/generate.py " + " ".join(sys.argv[1:])},
        )
    wall = time.monotonic() - started
    manifest = outcome.manifest
    records = [writer.results[pid] for pid in plan.ids if pid in writer.results]
    by_gadget: dict[str, Counter] = {}
    for r in records:
        key = "proven" if r.get("proven_minimal") else r["status"]
        by_gadget.setdefault(r["gadget"], Counter())[key] += 1
    table = Table(title="by gadget type")
    for column in (
        "gadget",
        "problems",
        "minimal (proven)",
        "found, not proven",
        "none ≤ max-vertices",
        "timeout",
        "sizes",
    ):
        table.add_column(column)
    for gadget, counts in by_gadget.items():
        sizes = Counter(
            r["n"] for r in records if r["gadget"] == gadget and r.get("proven_minimal")
        )
        table.add_row(
            gadget,
            str(sum(counts.values())),
            str(counts["proven"]),
            str(counts["found"]),
            str(counts["none-up-to-limit"]),
            str(counts["timeout"]),
            " ".join(f"{n}:{c}" for n, c in sorted(sizes.items())),
        )
    console.print(table)
    sizes = manifest["minimal_sizes"]
    console.print(f"problems: {manifest['planned']} (left out by the rules: {len(plan.skipped)})")
    console.print(
        "minimal sizes (proven): "
        + ", ".join(f"n={n}: {c}" for n, c in sizes.items())
        + f"  (total {sum(sizes.values())})"
    )
    console.print(
        f"status: {json.dumps(manifest['status'])}; not solved within limits: {len(manifest['not_solved'])} "
        f"(timeout {manifest['status'].get('timeout', 0)}, none up to {args.max_vertices} vertices "
        f"{manifest['status'].get('none-up-to-limit', 0)}); found but not proven minimal: "
        f"{len(manifest['not_proven_minimal'])}"
    )
    search = manifest["search_seconds"]
    console.print(
        f"total search time {search:.1f} s; wall {wall:.1f} s (this run: {outcome.seconds:.1f} s, "
        f"{len(outcome.ran)} solved now, {outcome.skipped} resumed); parallel speed-up "
        f"{search / max(outcome.seconds, 1e-9):.2f}x"
        if outcome.ran
        else f"total search time {search:.1f} s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
