"""What a cube log proves, layout by layout, held to the CLI's rules (``atlas adopt``).

    .venv/bin/python bench/cube_coverage.py --F K3 --H K4 --gadget negative-sender \\
        [--recheck 0.1|all|none] [--seed S] bench/results/cubes/k3_k4_negative_sender-13.jsonl

The log is read as the CLI reads it (:func:`ramseygadgets.search.cubeproof.read_checked`): a
cube record of the problem that names another problem, two levels, or lacks an identity key is
refused in one ``error:`` line naming ``file:line`` (exit 2).  A logged solution is verified
(:func:`ramseygadgets.verification.verifier.verify`) before it is reported.  Then, for every level n and
every engine that decided cubes there: per layout, the cubes decided none, the share of the
layout's prefix assignments they hold (Σ 2^−depth, a lower bound) and whether they and the
prefixes unit propagation refutes cover the layout (coverage re-derived, never read from the
log).  A level every layout of which is covered, that holds no logged solution, is "none" only
as far as the log holds: a ``--recheck`` share of its cubes (default 0.1, as ``atlas adopt``) is
run again at that level, and the line says what the statement rests on, e.g. ``none on 9: cube
log, 12 cubes, 2 re-run (agree)`` — the level a record names is the log's word until its cubes
are re-run.  A re-run that disagrees refuses the log (exit 2).  Exit 0 otherwise.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ramseygadgets.core.errors import RamseyGadgetsError
from ramseygadgets.problems.catalog import Problem
from ramseygadgets.search.cubeproof import (
    CubeProof,
    found_line,
    is_found,
    layout_covered,
    log_path,
    logged_candidate,
    parse_recheck,
    read_checked,
    rerun_cubes,
    rests_on,
)
from ramseygadgets.search.spec import layouts
from ramseygadgets.verification.verifier import verify


def layout_lines(proof: CubeProof) -> tuple[list[str], bool]:
    """One line per layout of the proof's level (cubes, share, covered) and whether all are."""
    problem, n, engine = proof.problem, proof.n, proof.engine
    decided = {name: set(bits) for name, bits in proof.decided.items()}
    out, every = [], True
    for i, lay in enumerate(layouts(problem.gadget, n)):
        bits = decided.get(lay.name, set())
        share = sum(2.0 ** -len(b) for b in bits)
        ok = layout_covered(problem, n, engine, i, decided)
        every &= ok
        verdict = "covered: no solution in this layout" if ok else "not covered"
        out.append(
            f"n = {n}, {engine}, '{lay.name}': {len(bits)} cubes, {share * 100:.3g}%; {verdict}"
        )
    return out, every


def coverage(path: Path, problem: Problem, share: float, seed: int | None) -> list[str]:
    """The report's lines (:class:`RamseyGadgetsError` when the log is refused)."""
    numbered = read_checked(path, problem)
    out = []
    for _, r in numbered:
        if is_found(r, problem.id) and r.get("edges"):
            ok = verify(problem, logged_candidate(problem, r)).correct
            out.append(f"n = {r['n']}: a logged solution ({len(r['edges'])} edges), verify: {ok}")
    for proof in CubeProof.from_numbered(numbered, problem):
        lines, every = layout_lines(proof)
        out += lines
        if not every:
            continue
        found = found_line(numbered, problem, proof.n)
        if found is not None:
            out.append(f"n = {proof.n}: every layout covered, but {path}:{found} logs a solution")
            continue
        rerun = rerun_cubes(proof, share, seed=seed, where=path)
        out.append(
            f"n = {proof.n}, {proof.engine}: {rests_on(proof, rerun)} (every layout covered)"
        )
    return out


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("log", type=Path, help="a cube log (cubes.jsonl) or its directory")
    parser.add_argument("--F", required=True)
    parser.add_argument("--H", required=True)
    parser.add_argument("--gadget", required=True)
    parser.add_argument("--recheck", default="0.1", help="all, none or a fraction (0.1)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the --recheck sample")
    args = parser.parse_args()
    try:
        problem = Problem.make(args.F, args.H, args.gadget)
        lines = coverage(log_path(args.log), problem, parse_recheck(args.recheck), args.seed)
    except RamseyGadgetsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
