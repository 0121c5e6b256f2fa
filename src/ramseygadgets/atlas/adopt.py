"""Adopt the facts of cube logs into the atlas (``ramseygadgets atlas adopt LOG...``).

A cube log (``solve --jobs K --out DIR``: ``DIR/cubes.jsonl``, :mod:`ramseygadgets.search.cubelog`)
of an atlas problem can prove two kinds of fact, and neither is taken on the log's word:

* **a lower bound n + 1**: the UNSAT cubes of level n, with the prefixes unit propagation
  refutes, cover the level (:class:`~ramseygadgets.search.cubeproof.CubeProof`, coverage
  re-derived here).  The fact carries the proof itself (the cubes by layout), so ``atlas table``
  re-derives it again wherever the atlas is read, without the log;
* **a solution on n vertices**: a ``found`` cube record, verified by
  :func:`~ramseygadgets.verify.verify` and by the independent
  :func:`~ramseygadgets.recheck.recheck` (brute force, or the second SAT encoding); edge
  minimality is not claimed.

Levels whose cubes do not cover them (a run still going) and problems outside the atlas are
reported and left out.  Facts merge as every atlas fact does (:mod:`.entries`): the largest
lower bound and the best solution win, and a solution below a proven bound is an error.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ramseygadgets.atlas.entries import Atlas, AtlasError, Entry
from ramseygadgets.errors import RamseyGadgetsError
from ramseygadgets.recheck import Recheck, recheck
from ramseygadgets.search.cubelog import read_log
from ramseygadgets.search.cubeproof import CubeProof, is_found, log_path, logged_candidate
from ramseygadgets.search.solve import SearchError
from ramseygadgets.verdict import Verdict
from ramseygadgets.verify import verify

__all__ = ["CUBE_METHOD", "Adopted", "adopt_cube_log", "cube_bound_fact"]

CUBE_METHOD = (
    "cube-and-conquer (ramseygadgets.search.parallel), engine {engine}; coverage re-derived "
    "(ramseygadgets.search.cubeproof)"
)


@dataclass(frozen=True)
class Adopted:
    """What one log said about one problem and what became of it: ``adopted`` (the atlas
    holds it now), ``known`` (checked, but the atlas knew as much or more) or ``left out``
    (not proven; ``fact`` says why)."""

    problem_id: str
    fact: str
    outcome: Literal["adopted", "known", "left out"]

    def __str__(self) -> str:
        return f"{self.problem_id}: {self.fact} ({self.outcome})"


def adopt_cube_log(atlas: Atlas, path: str | Path) -> list[Adopted]:
    """Add to ``atlas`` every fact the cube log ``path`` (a file or its ``--out`` directory)
    proves; what was found, adopted or left out, in log order of problems."""
    path = log_path(path)
    if not path.is_file():
        raise AtlasError(f"{path} is not a cube log (no such file)")
    records = read_log(path)
    source = {"source": str(path), "sha256": hashlib.sha256(path.read_bytes()).hexdigest()}
    report: list[Adopted] = []
    for pid in dict.fromkeys(str(r.get("problem_id")) for r in records if r.get("kind") == "cube"):
        entry = atlas.entries.get(pid)
        if entry is None:
            report.append(Adopted(pid, "not an atlas problem", "left out"))
            continue
        report += _adopt_solutions(entry, records, source)
        report += _adopt_bounds(entry, records, source)
    return report


def cube_bound_fact(proof: CubeProof, source: dict[str, Any]) -> dict[str, Any]:
    """The lower-bound fact of a checked proof of "none on n": n + 1, with the proof."""
    return {
        "n": proof.n + 1,
        "proof": (
            f"no solution on {proof.n} vertices ({proof.cubes} UNSAT cubes cover the level, "
            f"{proof.engine} engine; monotone in n)"
        ),
        "engine": f"{proof.engine} cubes",
        "method": CUBE_METHOD.format(engine=proof.engine),
        "seconds": round(proof.cpu_seconds, 3),
        **source,
        "levels": [
            {
                "n": proof.n,
                "outcome": "none",
                "engine": proof.engine,
                "cubes": proof.cubes,
                "seconds": round(proof.cpu_seconds, 3),
            }
        ],
        "cubes": proof.to_json(),
    }


def _adopt_bounds(
    entry: Entry, records: list[dict[str, Any]], source: dict[str, Any]
) -> list[Adopted]:
    """The strongest level the log decides none (lower ones follow from it), and the levels
    above it that it leaves undecided; levels with a logged solution are not bounds."""
    solved = {r.get("n") for r in records if is_found(r, entry.id)}
    proofs = [p for p in CubeProof.from_records(records, entry.problem) if p.n not in solved]
    out = []
    for proof in sorted(proofs, key=lambda p: -p.n):
        try:
            proof.check()
        except SearchError as exc:
            out.append(Adopted(entry.id, f"level {proof.n} undecided: {exc}", "left out"))
            continue
        known = entry.bound > proof.n
        entry.add_lower_bound(cube_bound_fact(proof, source))
        fact = f"no solution on {proof.n} vertices"
        out.append(Adopted(entry.id, fact, "known" if known else "adopted"))
        break
    return out


def _rejection(verdict: Verdict, second: Recheck | None) -> str | None:
    """Why a logged solution is not taken (``None``: the verifier and an independent second
    method both accept it)."""
    if not verdict.correct:
        return f"the verifier rejects it ({verdict.reason})"
    if second is None or second.agrees is None:
        return "no independent second check applies to it"
    return None if second.agrees else f"the {second.method} check rejects it"


def _adopt_solutions(
    entry: Entry, records: list[dict[str, Any]], source: dict[str, Any]
) -> list[Adopted]:
    problem = entry.problem
    out = []
    for r in records:
        if not is_found(r, entry.id):
            continue
        try:
            candidate = logged_candidate(problem, r)
        except (RamseyGadgetsError, KeyError, ValueError, TypeError) as exc:
            out.append(Adopted(entry.id, f"an unreadable solution record: {exc}", "left out"))
            continue
        graph = candidate.graph
        what = f"a solution on {graph.n} vertices, {graph.m} edges"
        verdict = verify(problem, candidate)
        second = recheck(problem, candidate) if verdict.correct else None
        why = _rejection(verdict, second)
        if why is not None or second is None:
            out.append(Adopted(entry.id, f"{what} that does not check: {why}", "left out"))
            continue
        fact = {
            "n": graph.n,
            "m": graph.m,
            **candidate.to_json(problem.gadget),
            "graph6": graph.to_graph6(),
            "edges_minimal": False,
            "engine": f"{r.get('engine')} cubes",
            "method": CUBE_METHOD.format(engine=r.get("engine")),
            "seconds": cpu if isinstance(cpu := r.get("cpu_seconds"), (int, float)) else None,
            "recheck": second.to_json(),
            **source,
        }
        entry.add_solution(fact)
        out.append(Adopted(entry.id, what, "adopted" if entry.solution is fact else "known"))
    return out
