"""Benchmark the search engine: all 70 problems (minimal sizes with proofs), and the exhaustive
enumeration on a representative subset, in the same run, reported as a ratio.

    .venv/bin/python bench/solve_all.py                      # 70 problems on 2 jobs + subset ratio
    .venv/bin/python bench/solve_all.py --write-solutions    # also rewrite data/solutions.json
    .venv/bin/python bench/solve_all.py --write-solutions --cross-check 9   # + exhaustive check n ≤ 9
    .venv/bin/python bench/solve_all.py --compare-engines --no-subset      # lazy vs eager on the 70

*Finder*: :func:`ramseygadgets.search.solve` (CEGAR SAT, minimal n then m, proofs of both).
*Exhaustive*: :func:`ramseygadgets.search.exhaustive.exhaustive_minimums` (nauty geng + verifier),
the independent cross-check.  The subset ratio compares both on the same problems, one process each.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from rich.console import Console
from rich.table import Table

from ramseygadgets.problems.catalog import Problem, all_problems, get_problem
from ramseygadgets.search import solve
from ramseygadgets.search.batch import solve_many
from ramseygadgets.search.cegar import DEFAULT_ENGINE, ENGINES
from ramseygadgets.search.dataset import solution_record, write_solutions
from ramseygadgets.search.exhaustive import exhaustive_minimums, nauty_available
from ramseygadgets.search.options import SearchOptions

#: Every gadget type, minimal sizes 6 to 9 (the 10-vertex ones take the scan ~15 min: see the slow tests).
SUBSET = (
    "k13_c4_blue_determiner",
    "p3_k4_red_determiner",
    "k13_k3_positive_sender",
    "p3_k4e_negative_sender",
    "k13_k3_clause_gadget",
    "k13_p4_clause_gadget",
    "k13_k4e_positive_sender",
    "k13_k4e_negative_sender",
    "k13_c4_variable_gadget",
    "k13_k4_variable_gadget",
)

console = Console()


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--jobs", type=int, default=2, help="worker processes for the 70 problems (default 2)"
    )
    parser.add_argument(
        "--write-solutions",
        action="store_true",
        help="rewrite src/ramseygadgets/data/solutions.json",
    )
    parser.add_argument(
        "--cross-check",
        type=int,
        default=0,
        metavar="N",
        help="also run the exhaustive scan on all 70 problems up to N vertices and record agreement",
    )
    parser.add_argument(
        "--cross-check-ten",
        action="store_true",
        help="with --cross-check 9: also scan 10 vertices for the problems that need 10 (~15-20 min)",
    )
    parser.add_argument(
        "--no-subset", action="store_true", help="skip the exhaustive subset comparison"
    )
    parser.add_argument(
        "--beyond", action="store_true", help="also solve pairs beyond the paper (11-13 vertices)"
    )
    parser.add_argument(
        "--engine", choices=ENGINES, default=DEFAULT_ENGINE, help="finder engine (default lazy)"
    )
    parser.add_argument(
        "--compare-engines",
        action="store_true",
        help="also solve the 70 with every engine in this process and compare CPU times",
    )
    args = parser.parse_args()

    console.print(f"machine: {os.cpu_count()} cores; jobs = {args.jobs}")
    problems = list(all_problems())
    outcome = solve_many(problems, SearchOptions(jobs=args.jobs, engine=args.engine))
    if outcome.interrupted:
        console.print("interrupted")
        return 130
    results = {r.problem_id: r for r in outcome.results}
    table = Table(title="minimal solutions (fewest vertices, then fewest edges)")
    for column in ("problem", "n", "m", "proof", "seconds"):
        table.add_column(column)
    for p in problems:
        r = results[p.id]
        table.add_row(
            p.id,
            str(r.n),
            str(r.m),
            f"none on {r.lower_bound - 1} vertices; none with {r.m - 1} edges",
            f"{r.seconds:.3f}",
        )
    console.print(table)
    sizes = [results[p.id].n for p in problems]
    console.print(
        f"[bold]all 70 problems (sizes and proofs): {outcome.seconds:.2f} s wall on {args.jobs} jobs[/bold]; "
        f"sum of per-problem times {sum(r.seconds for r in results.values()):.2f} s; "
        f"slowest {max(results.values(), key=lambda r: r.seconds).problem_id} "
        f"({max(r.seconds for r in results.values()):.2f} s)"
    )
    console.print(
        f"largest minimal solution: {max(sizes)} vertices; problems needing >= 8 vertices: "
        f"{sum(n >= 8 for n in sizes)}; (K1,3,K4) red/blue determiners: "
        f"{results['k13_k4_red_determiner'].n}/{results['k13_k4_blue_determiner'].n} vertices"
    )

    if args.compare_engines:
        compare_engines(problems)
    if not args.no_subset and nauty_available():
        compare_subset()

    cross: dict[str, str] = {}
    if args.cross_check:
        t0 = time.perf_counter()
        scanned = exhaustive_minimums(problems, args.cross_check, jobs=args.jobs)
        for p in problems:
            r, s = results[p.id], scanned[p.id]
            if r.n <= args.cross_check:
                if (s.n, s.m) != (r.n, r.m):
                    console.print(
                        f"[red]DISAGREEMENT {p.id}: finder ({r.n}, {r.m}), exhaustive ({s.n}, {s.m})[/red]"
                    )
                    return 1
                cross[p.id] = (
                    f"exhaustive geng scan of all graphs up to {args.cross_check} vertices agrees"
                )
            elif s.candidate is not None:
                console.print(
                    f"[red]DISAGREEMENT {p.id}: exhaustive found ({s.n}, {s.m}) below the finder's n[/red]"
                )
                return 1
            else:
                cross[p.id] = f"exhaustive geng scan: no solution up to {args.cross_check} vertices"
        console.print(
            f"exhaustive cross-check up to {args.cross_check} vertices: all agree "
            f"({time.perf_counter() - t0:.1f} s)"
        )
        if args.cross_check_ten and args.cross_check == 9:
            ten = [p for p in problems if results[p.id].n == 10]
            t0 = time.perf_counter()
            scanned = exhaustive_minimums(
                ten,
                10,
                jobs=args.jobs,
                min_vertices={p.id: 10 for p in ten},
                max_edges={p.id: results[p.id].m for p in ten},
            )
            for p in ten:
                s = scanned[p.id]
                if (s.n, s.m) != (10, results[p.id].m):
                    console.print(
                        f"[red]DISAGREEMENT {p.id} on 10 vertices: exhaustive ({s.n}, {s.m})[/red]"
                    )
                    return 1
                cross[p.id] = (
                    "exhaustive geng scan: no solution up to 9 vertices; on 10 vertices the first "
                    f"solution has {s.m} edges (agrees)"
                )
            console.print(
                f"exhaustive cross-check on 10 vertices: agrees ({time.perf_counter() - t0:.1f} s)"
            )

    if args.beyond:
        solve_beyond()

    if args.write_solutions:
        command = "python bench/solve_all.py " + " ".join(sys.argv[1:])
        path = write_solutions(
            [solution_record(results[p.id], cross.get(p.id)) for p in problems], command=command
        )
        console.print(f"wrote {path}")
    return 0


#: Pairs outside the catalog whose minimal gadgets need 11 to 13 vertices.
BEYOND = (
    ("P3", "K6", "red-determiner"),
    ("K1,4", "K4", "variable-gadget"),
    ("K1,4", "K4", "blue-determiner"),
    ("K1,4", "K4", "positive-sender"),
    ("K1,3", "K5", "red-determiner"),
    ("K1,3", "K5", "blue-determiner"),
)


def solve_beyond() -> None:
    table = Table(title="beyond the paper (one process each)")
    for column in ("problem", "n", "m", "proof", "seconds"):
        table.add_column(column)
    for F, H, gadget in BEYOND:
        r = solve(Problem.make(F, H, gadget), SearchOptions(max_vertices=13, timeout=600))
        proof = f"none on {r.lower_bound - 1} vertices" + (
            f"; none with {r.m - 1} edges" if r.edges_minimal else ""
        )
        table.add_row(
            r.problem.title,
            str(r.n),
            str(r.m),
            proof if r.found else r.describe(),
            f"{r.seconds:.1f}",
        )
    console.print(table)


def compare_engines(problems: list[Problem]) -> None:
    """Every engine on the 70 in this one process: same (n, m), CPU seconds per engine."""
    cpu: dict[str, dict[str, float]] = {}
    sizes: dict[str, set[tuple[int | None, int | None]]] = {p.id: set() for p in problems}
    for engine in ENGINES:
        cpu[engine] = {}
        for p in problems:
            t0 = time.process_time()
            r = solve(p, SearchOptions(engine=engine))
            cpu[engine][p.id] = time.process_time() - t0
            sizes[p.id].add((r.n, r.m))
    disagree = [pid for pid, found in sizes.items() if len(found) != 1]
    if disagree:
        console.print(f"[red]ENGINES DISAGREE on {', '.join(disagree)}[/red]")
    lazy, eager = cpu["lazy"], cpu["eager"]
    console.print(
        f"[bold]70 problems, CPU seconds in one process: lazy {sum(lazy.values()):.2f}, eager "
        f"{sum(eager.values()):.2f}; same (n, m) on all: {not disagree}[/bold]"
    )
    table = Table(title="per problem, slowest first (CPU seconds)")
    for column in ("problem", "lazy", "eager", "eager / lazy"):
        table.add_column(column)
    for pid in sorted(lazy, key=lambda pid: -max(lazy[pid], eager[pid]))[:12]:
        table.add_row(pid, f"{lazy[pid]:.3f}", f"{eager[pid]:.3f}", f"{eager[pid] / lazy[pid]:.2f}")
    console.print(table)


def compare_subset() -> None:
    """Finder vs exhaustive enumeration on SUBSET, problem by problem, in this one process."""
    total_finder = total_scan = 0.0
    table = Table(title="finder vs exhaustive enumeration (one process)")
    for column in (
        "problem",
        "finder (n, m)",
        "exhaustive (n, m)",
        "finder s",
        "exhaustive s",
        "ratio",
    ):
        table.add_column(column)
    for pid in SUBSET:
        p = get_problem(pid)
        t0 = time.perf_counter()
        f = solve(p)
        t_finder = time.perf_counter() - t0
        t0 = time.perf_counter()
        s = exhaustive_minimums([p], f.n)[p.id]
        t_scan = time.perf_counter() - t0
        total_finder += t_finder
        total_scan += t_scan
        same = (f.n, f.m) == (s.n, s.m)
        table.add_row(
            pid,
            f"({f.n}, {f.m})",
            f"({s.n}, {s.m})" if same else f"[red]({s.n}, {s.m})[/red]",
            f"{t_finder:.3f}",
            f"{t_scan:.2f}",
            f"{t_scan / t_finder:.0f}x",
        )
    console.print(table)
    console.print(
        f"[bold]subset of {len(SUBSET)}: finder {total_finder:.2f} s, exhaustive {total_scan:.2f} s: "
        f"the finder is {total_scan / total_finder:.0f}x faster[/bold]"
    )


if __name__ == "__main__":
    sys.exit(main())
