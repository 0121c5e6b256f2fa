"""Benchmark: which PySAT backend :func:`ramseygadgets.verification.verifier.verify` should ask.

Two workloads, every backend over both in the same process (rounds alternate the backends, each
case keeps its fastest round):

* ``atlas``: every solved atlas entry (up to 15 vertices and 89 edges), as its own problem and,
  for determiners and senders, as its colour-swap twin, plus the three-colour solutions: mostly
  correct gadgets, so the questions are the hard, unsatisfiable ones;
* ``answers``: the shipped solutions of the catalog's problems and each with one edge removed
  (the sizes and the mix of right and wrong that a model's answers have).

Every backend must give the same verdicts (exit 1 otherwise).  Prints per workload the total
seconds, the slowest case and the ratio to ``minisat22`` (the default before), and appends the
figures to ``bench/results/verify_solver.jsonl``.

Usage: ``.venv/bin/python bench/verify_solver.py [--solvers minisat22,glucose4,cadical195]
[--rounds 2]``
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from benchlog import append_run

from ramseygadgets.atlas import load_atlas
from ramseygadgets.core.gadgets import Candidate, GadgetType
from ramseygadgets.core.graphs import Graph
from ramseygadgets.problems.catalog import get_problem
from ramseygadgets.problems.extended import three_color_entries
from ramseygadgets.problems.problem import Problem
from ramseygadgets.problems.solutions import load_solutions
from ramseygadgets.verification.verifier import verify

BASELINE = "minisat22"
TWIN = {
    GadgetType.RED_DETERMINER: GadgetType.BLUE_DETERMINER,
    GadgetType.BLUE_DETERMINER: GadgetType.RED_DETERMINER,
    GadgetType.POSITIVE_SENDER: GadgetType.POSITIVE_SENDER,
    GadgetType.NEGATIVE_SENDER: GadgetType.NEGATIVE_SENDER,
}


@dataclass(frozen=True)
class Case:
    title: str
    problem: Problem
    candidate: Candidate


def atlas_cases() -> list[Case]:
    cases = []
    for entry in load_atlas().entries.values():
        if entry.solution is None:
            continue
        problem, candidate = entry.problem, entry.candidate()
        cases.append(Case(entry.title, problem, candidate))
        if problem.gadget in TWIN:
            twin = Problem.make(problem.H, problem.F, TWIN[problem.gadget])
            cases.append(Case(f"{entry.title} as its twin", twin, candidate))
    cases += [Case(e.id, e.problem, e.candidate) for e in three_color_entries()]
    return cases


def answer_cases() -> list[Case]:
    cases = []
    for pid, solution in load_solutions().items():
        problem, candidate = get_problem(pid), solution.candidate
        cases.append(Case(pid, problem, candidate))
        graph = candidate.graph
        kept = [e for e in graph.edges if e not in candidate.designated.edges]
        if kept:
            fewer = Graph(graph.n, [e for e in graph.edges if e != kept[len(kept) // 2]])
            cases.append(
                Case(f"{pid} less an edge", problem, Candidate(fewer, candidate.designated))
            )
    return cases


def timed(cases: list[Case], solver: str) -> tuple[list[float], list[bool]]:
    seconds, verdicts = [], []
    for case in cases:
        start = time.perf_counter()
        verdict = verify(case.problem, case.candidate, solver=solver)
        seconds.append(time.perf_counter() - start)
        verdicts.append(verdict.correct)
    return seconds, verdicts


def measure(cases: list[Case], solvers: list[str], rounds: int) -> dict[str, dict]:
    best = {s: [float("inf")] * len(cases) for s in solvers}
    verdicts: dict[str, list[bool]] = {}
    for _ in range(rounds):
        for solver in solvers:
            seconds, verdicts[solver] = timed(cases, solver)
            best[solver] = [min(a, b) for a, b in zip(best[solver], seconds)]
    if len({tuple(v) for v in verdicts.values()}) != 1:
        sys.exit("the backends disagree on a verdict")
    base = sum(best[BASELINE]) if BASELINE in best else None
    figures = {}
    for solver, seconds in best.items():
        slowest = max(range(len(cases)), key=seconds.__getitem__)
        figures[solver] = {
            "total_s": round(sum(seconds), 3),
            "slowest": cases[slowest].title,
            "slowest_s": round(seconds[slowest], 3),
            "speedup_vs_minisat22": round(base / sum(seconds), 2) if base else None,
        }
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--solvers", default="minisat22,glucose4,cadical153,cadical195")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--out", type=Path, default=Path("bench/results/verify_solver.jsonl"))
    args = parser.parse_args()
    solvers = args.solvers.split(",")
    results = {}
    for workload, cases in (("atlas", atlas_cases()), ("answers", answer_cases())):
        results[workload] = {"cases": len(cases), **measure(cases, solvers, args.rounds)}
        print(f"{workload}: {len(cases)} cases, best of {args.rounds} rounds")
        for solver in solvers:
            f = results[workload][solver]
            print(
                f"  {solver:<11} {f['total_s']:8.2f} s   x{f['speedup_vs_minisat22']} vs "
                f"{BASELINE}   slowest {f['slowest_s']:.2f} s ({f['slowest']})"
            )
    append_run(args.out, "verify_solver", results, args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
