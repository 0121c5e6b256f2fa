"""Regenerate ``src/ramseygadgets/data/three_colour.json``: the three-colour problems of the
extended benchmark (``--set extended``), each with its minimal solution and proof.

1. ``ramseygadgets generate`` solves every spec with one forbidden pattern per colour, the
   patterns a multiset of three from P3, K1,3, K3, P4, C4 (colours identified up to renaming;
   determiners only for a colour without a twin), each problem within 8 s and 10 vertices, then
   the unsolved ones again within 30 s and 13 vertices (:data:`PASSES`), and cross-checks
   every result against the exhaustive census of all graphs on at most ``--cross-check``
   vertices.  The work folder is resumable.
2. This script keeps every problem whose minimal vertex count is proven (a solution on n
   vertices, UNSAT on n − 1), verifies each solution again with ``verify`` and, where
   3^m ≤ 2^22, with the brute force over all colourings, drops any disagreement (and says so),
   and writes the data file.

Usage: ``python scripts/build_three_colour.py [--work DIR] [--cross-check N]`` (about 30 minutes
on one core; the work folder resumes).
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
from itertools import combinations_with_replacement
from pathlib import Path
from typing import Any

from ramseygadgets.bruteforce_multi import MAX_BRUTE_FORCE_COLORINGS, brute_force_verify_multi
from ramseygadgets.core.gadgets import Candidate
from ramseygadgets.infra.files import atomic_write
from ramseygadgets.problems.problem import Problem
from ramseygadgets.problemsets import problem_of_record, read_results
from ramseygadgets.verifier import verify

PATTERNS = ("P3", "K1,3", "K3", "P4", "C4")
DATA_FILE = Path(__file__).resolve().parents[1] / "src/ramseygadgets/data/three_colour.json"


def specs() -> list[str]:
    """Every multiset of three patterns, as ``generate --spec`` text."""
    return [" | ".join(group) for group in combinations_with_replacement(PATTERNS, 3)]


#: The two passes: every problem with a short budget, then the unsolved ones with a larger one.
PASSES = (
    ["--max-vertices", "10", "--timeout", "8"],
    ["--max-vertices", "13", "--timeout", "30", "--retry-unsolved"],
)


def generate(work: Path, cross_check: int) -> list[list[str]]:
    """Run (or resume) ``ramseygadgets generate`` into ``work``, pass by pass; the commands."""
    program = str(Path(sys.executable).parent / "ramseygadgets")
    base = ["generate", *(arg for spec in specs() for arg in ("--spec", spec))]
    common = ["--cross-check", str(cross_check), "--jobs", "1", "--extend", "--out", str(work)]
    commands = []
    for limits in PASSES:
        command = [*base, *limits, *common, "--json"]
        done = subprocess.run([program, *command], stdout=subprocess.DEVNULL, check=False)
        if done.returncode not in (0, 1):  # 1: some problems not solved within the limits
            raise SystemExit(f"generate failed with exit code {done.returncode}")
        commands.append(command)
    return commands


def brute_force(problem: Problem, candidate: Candidate) -> dict[str, Any]:
    """The independent check over all 3^m colourings, where it is small enough."""
    colorings = problem.spec.c**candidate.graph.m
    if colorings > MAX_BRUTE_FORCE_COLORINGS:
        return {"checked": False, "why": f"{problem.spec.c}^{candidate.graph.m} colourings"}
    ok = brute_force_verify_multi(problem, candidate.graph, candidate.designated)
    return {"checked": True, "agree": ok, "colourings": colorings}


def entry(record: dict[str, Any], census: dict[str, Any]) -> dict[str, Any] | None:
    """The data-file entry of a proven-minimal record, or ``None`` when a check disagrees."""
    problem = problem_of_record(record)
    candidate = Candidate.from_json(record["solution"], problem.kind, max_vertices=None)
    n, m = candidate.graph.n, candidate.graph.m
    verdict = verify(problem, candidate)
    brute = brute_force(problem, candidate)
    check = census_check(record, census)
    if not verdict.correct or brute.get("agree") is False or not check["agree"]:
        print(f"dropped {problem.id}: a check disagrees ({verdict.reason}; {brute}; {check})")
        return None
    proof = {
        "statement": f"no solution on {n - 1} vertices (UNSAT; monotone in n)",
        "no_solution_up_to": n - 1,
        "prover": record["engine"],
        "method": record["method"],
        "seconds": record["seconds"],
        "levels": record["levels"],
        "edges_minimal": record["edges_minimal"],
        "verified": {"verify_multi": True, "brute_force": brute},
        "cross_check": check,
    }
    return {**problem.to_json(), "n": n, "m": m, "solution": record["solution"], "proof": proof}


def census_check(record: dict[str, Any], census: dict[str, Any]) -> dict[str, Any]:
    """What the exhaustive census of every graph on at most N vertices says of this record:
    its least (n, m) there (``None``: no solution within N vertices) and whether it agrees (the
    same n, and the same m where the search proved m minimal; nothing found when n > N)."""
    up_to, n, m = census["max_vertices"], record["n"], record["m"]
    listed = {
        d["id"]: d["census"]
        for d in (*census.get("decided_by_census_only", []), *census.get("disagree", []))
    }
    # listed: the census' own answer (a disagreement, or a record whose m is not proven minimal);
    # otherwise the cross-check found exactly the search's answer
    seen = listed.get(record["id"], [n, m] if n <= up_to else None)
    agree = seen is None if n > up_to else seen is not None and seen[0] == n
    if agree and seen is not None and record["edges_minimal"]:
        agree = seen[1] == m
    return {
        "method": "exhaustive census (geng: every graph with minimum degree ≥ 1 on at most N "
        "vertices; ramseygadgets.scaleout.census)",
        "up_to": up_to,
        "census": seen,
        "agree": agree,
        "confirms_lower_bound": agree and n - 1 <= up_to,
    }


def build(work: Path, commands: list[list[str]]) -> dict[str, Any]:
    results = read_results(work / "results.jsonl")
    census = json.loads((work / "manifest.json").read_text())["options"]["cross_check"]
    entries, not_solved = [], []
    for record in results.values():
        if record.get("solution") and record.get("lower_bound") == record.get("n"):
            made = entry(record, census)
            if made is not None:
                entries.append(made)
        else:
            not_solved.append(
                {k: record.get(k) for k in ("id", "status", "n", "lower_bound", "seconds")}
            )
    return {
        "description": "Three-colour problems of the extended benchmark: each with a minimal "
        "solution (fewest vertices, then fewest edges where edges_minimal) and the proof that no "
        "solution has fewer vertices.",
        "commands": ["ramseygadgets " + shlex.join(c) for c in commands],
        "census_graphs": census.get("graphs"),
        "not_solved": not_solved,
        "entries": entries,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, default=Path("runs/three_colour_generate"))
    parser.add_argument("--cross-check", type=int, default=7)
    args = parser.parse_args()
    commands = generate(args.work, args.cross_check)
    data = build(args.work, commands)
    write_data(data)


def write_data(data: dict[str, Any]) -> None:
    """The data file: the header, then one entry per line (diff-friendly)."""
    head = json.dumps({k: v for k, v in data.items() if k != "entries"}, indent=1)[:-2]
    body = ",\n".join("  " + json.dumps(e) for e in data["entries"])
    atomic_write(DATA_FILE, f'{head},\n "entries": [\n{body}\n ]\n}}\n')
    print(f"wrote {len(data['entries'])} problems to {DATA_FILE}")


if __name__ == "__main__":
    main()
