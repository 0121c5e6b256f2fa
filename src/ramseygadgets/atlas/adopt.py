"""Adopt the facts of cube logs into the atlas (``ramseygadgets atlas adopt LOG...``).

A cube log (``solve --jobs K --out DIR``: ``DIR/cubes.jsonl``, :mod:`ramseygadgets.search.cubelog`)
of an atlas problem can prove two kinds of fact.  First its records are checked
(:func:`~ramseygadgets.search.cubeproof.read_checked`): a cube record under an atlas problem's id
that names another problem or two levels refuses the whole log in one line naming
``file:line`` (nothing is written).  Then:

* **a lower bound n + 1**: the UNSAT cubes of level n, with the prefixes unit propagation
  refutes, cover the level (:class:`~ramseygadgets.search.cubeproof.CubeProof`, coverage
  re-derived here), no solution is logged on level n, and a seeded random share of its cubes
  (``recheck``, default :data:`DEFAULT_RECHECK`; ``1``: all) is run again and agrees — any
  disagreement refuses the log.  The fact carries the proof itself (the cubes by layout) and
  the re-run record (which cubes, the seed), so ``atlas table`` re-derives the coverage wherever
  the atlas is read, without the log, and says what the bound rests on ("none on 13: cube log,
  64 cubes, 7 re-run (agree)").  The outcomes of the cubes not re-run are the log's word;
* **a solution on n vertices**: a ``found`` cube record, verified by
  :func:`~ramseygadgets.verify.verify` and by the independent
  :func:`~ramseygadgets.verification.recheck.recheck` (brute force, or the second SAT encoding); edge
  minimality is not claimed by the record;
* **edge minimality of the atlas' solution** (n vertices, m edges): the cubes of level n decided
  none with an edge cap of at least m − 1 (``solve --max-edges``, or a cube run's edge
  minimisation) cover the level — "none on n vertices with at most m − 1 edges" — checked and
  re-run (under the cap) as for a lower bound; the solution then carries the proof
  (``edges_cubes``), which ``atlas table`` re-derives.

Levels whose cubes do not cover them (a run still going) and problems outside the atlas are
reported and left out.  Facts merge as every atlas fact does (:mod:`.entries`): the largest
lower bound and the best solution win, and a solution below a proven bound is an error.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ramseygadgets.core.errors import RamseyGadgetsError
from ramseygadgets.problems.atlas_entries import Atlas, AtlasError, Entry, rerun_count
from ramseygadgets.search.cubelog import read_numbered
from ramseygadgets.search.cubeproof import (
    CubeProof,
    Rerun,
    check_records,
    evidence,
    found_line,
    is_found,
    log_path,
    logged_candidate,
    rerun_cubes,
    rests_on,
)
from ramseygadgets.search.solve import SearchError
from ramseygadgets.verification.recheck import Recheck, recheck
from ramseygadgets.verification.verdict import Verdict
from ramseygadgets.verification.verifier import verify

__all__ = [
    "CUBE_METHOD",
    "DEFAULT_RECHECK",
    "Adopted",
    "CubeRecheck",
    "adopt_cube_log",
    "cube_bound_fact",
    "cube_edge_fact",
]

#: The share of a level's none-cubes ``atlas adopt`` runs again unless told otherwise: a sample
#: of s = ⌈N/10⌉ of N cubes catches a log with k false cubes with probability
#: 1 − C(N − k, s)/C(N, s) (N = 64, s = 7: 10.9 % for k = 1, 52 % for k = 6, 91 % for k = 18),
#: at about a tenth of the level's CPU time.
DEFAULT_RECHECK = 0.1

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


@dataclass(frozen=True)
class CubeRecheck:
    """How many of a level's none-cubes to run again: ``share`` (1: all), the sample drawn with
    ``seed`` (``None``: a fresh random seed, recorded), each within ``timeout`` seconds;
    ``progress(what, done, total)`` hears of each re-run cube (``what`` names the fact)."""

    share: float = DEFAULT_RECHECK
    seed: int | None = None
    timeout: float | None = None
    progress: Callable[[str, int, int], None] | None = None

    def rerun(self, proof: CubeProof, where: str | Path, what: str) -> Rerun:
        """:func:`~ramseygadgets.search.cubeproof.rerun_cubes` of ``proof`` as asked."""
        report = self.progress
        hook = None if report is None else lambda done, total: report(what, done, total)
        return rerun_cubes(
            proof, self.share, seed=self.seed, timeout=self.timeout, where=where, progress=hook
        )


def adopt_cube_log(
    atlas: Atlas, path: str | Path, recheck: CubeRecheck | None = None
) -> list[Adopted]:
    """Add to ``atlas`` every fact the cube log ``path`` (a file or its ``--out`` directory)
    proves; what was found, adopted or left out, in log order of problems.  A log whose
    records name another problem or level, or whose re-run cubes disagree, is refused
    (:class:`~ramseygadgets.search.cubeproof.CubeLogRefused`, ``file:line``)."""
    path = log_path(path)
    if not path.is_file():
        raise AtlasError(f"{path} is not a cube log (no such file)")
    numbered = read_numbered(path)
    source = {"source": str(path), "sha256": hashlib.sha256(path.read_bytes()).hexdigest()}
    records = [r for _, r in numbered]
    report: list[Adopted] = []
    for pid in dict.fromkeys(str(r.get("problem_id")) for r in records if r.get("kind") == "cube"):
        entry = atlas.entries.get(pid)
        if entry is None:
            report.append(Adopted(pid, "not an atlas problem", "left out"))
            continue
        check_records(path, numbered, entry.problem)
        report += _adopt_solutions(entry, records, source)
        report += _adopt_bounds(entry, numbered, source, recheck or CubeRecheck())
        report += _adopt_edge_proof(entry, numbered, source, recheck or CubeRecheck())
    return report


def cube_bound_fact(
    proof: CubeProof, source: dict[str, Any], rerun: Rerun | None = None
) -> dict[str, Any]:
    """The lower-bound fact of a checked proof of "none on n": n + 1, with the proof, the
    cubes run again and what the fact rests on."""
    return {
        "n": proof.n + 1,
        "proof": (
            f"no solution on {proof.n} vertices ({proof.cubes} UNSAT cubes cover the level, "
            f"{proof.engine} engine; monotone in n)"
        ),
        "levels": [
            {
                "n": proof.n,
                "outcome": "none",
                "engine": proof.engine,
                "cubes": proof.cubes,
                "seconds": round(proof.cpu_seconds, 3),
            }
        ],
        **_cube_provenance(proof, source, rerun),
    }


def _cube_provenance(
    proof: CubeProof, source: dict[str, Any], rerun: Rerun | None
) -> dict[str, Any]:
    """What every fact a cube log proves carries: the engine, method and CPU time, the log it
    came from, the cubes themselves, what it rests on and the cubes run again."""
    out = {
        "engine": f"{proof.engine} cubes",
        "method": CUBE_METHOD.format(engine=proof.engine),
        "seconds": round(proof.cpu_seconds, 3),
        **source,
        "cubes": proof.to_json(),
        "rests_on": rests_on(proof, rerun),
    }
    if rerun is not None and rerun.count:
        out["rerun"] = rerun.to_json()
    return out


def _adopt_bounds(
    entry: Entry,
    numbered: list[tuple[int, dict[str, Any]]],
    source: dict[str, Any],
    recheck: CubeRecheck,
) -> list[Adopted]:
    """The strongest level the log decides none (lower ones follow from it), its cubes re-run
    as ``recheck`` asks, and the levels above it that it leaves undecided; a level with a
    logged solution is never a bound."""
    out = []
    path = source["source"]
    for proof in sorted(CubeProof.from_numbered(numbered, entry.problem), key=lambda p: -p.n):
        line = found_line(numbered, entry.problem, proof.n)
        if line is not None:
            why = f"level {proof.n}: the log records a solution there ({path}:{line})"
            out.append(Adopted(entry.id, why, "left out"))
            continue
        try:
            proof.check()
        except SearchError as exc:
            out.append(Adopted(entry.id, f"level {proof.n} undecided: {exc}", "left out"))
            continue
        fact = f"no solution on {proof.n} vertices"
        if not improves(entry, proof, recheck.share):
            out.append(Adopted(entry.id, fact, "known"))
            break
        rerun = recheck.rerun(proof, path, f"{entry.id}: {fact}")
        entry.add_lower_bound(cube_bound_fact(proof, source, rerun))
        out.append(Adopted(entry.id, f"{fact} ({evidence(proof, rerun)})", "adopted"))
        break
    return out


def _adopt_edge_proof(
    entry: Entry,
    numbered: list[tuple[int, dict[str, Any]]],
    source: dict[str, Any],
    recheck: CubeRecheck,
) -> list[Adopted]:
    """Edge minimality of the entry's solution from the log's capped none-cubes (module
    docstring), re-run under the cap as ``recheck`` asks."""
    s = entry.solution
    if s is None or not _has_capped_cubes(numbered, entry.id, s["n"]):
        return []
    n, cap = s["n"], s["m"] - 1
    for proof in CubeProof.from_numbered(numbered, entry.problem, max_edges=cap):
        if proof.n != n:
            continue
        if s.get("edges_minimal") and not _more_edge_reruns(s, proof, recheck.share):
            return []
        fact = f"no solution on {n} vertices with at most {cap} edges"
        try:
            proof.check()
        except SearchError as exc:
            return [Adopted(entry.id, f"{fact} undecided: {exc}", "left out")]
        rerun = recheck.rerun(proof, source["source"], f"{entry.id}: {fact}")
        entry.add_edge_proof(cube_edge_fact(proof, source, rerun))
        return [Adopted(entry.id, f"{fact} ({evidence(proof, rerun)})", "adopted")]
    return []


def _more_edge_reruns(solution: dict[str, Any], proof: CubeProof, share: float) -> bool:
    """Whether re-running ``share`` of ``proof`` would re-run more cubes than the edge proof the
    solution rests on (a cube-log proof of the same cap; another proof is never replaced)."""
    old = solution.get("edges_cubes")
    if not isinstance(old, dict) or old.get("max_edges") != proof.max_edges:
        return False
    planned = proof.cubes if share >= 1 else math.ceil(share * proof.cubes)
    return rerun_count(old) < planned


def _has_capped_cubes(numbered: list[tuple[int, dict[str, Any]]], problem_id: str, n: int) -> bool:
    """Whether the log searched the problem's level n under an edge cap (else it speaks of no
    edge count, and nothing is reported)."""
    return any(
        r.get("problem_id") == problem_id and r.get("n") == n and "max_edges" in r
        for _, r in numbered
    )


def cube_edge_fact(
    proof: CubeProof, source: dict[str, Any], rerun: Rerun | None = None
) -> dict[str, Any]:
    """The edge-minimality fact of a checked proof of "none on n with at most M edges"."""
    assert proof.max_edges is not None
    return {
        "n": proof.n,
        "max_edges": proof.max_edges,
        "proof": f"{proof.claim} ({proof.cubes} UNSAT cubes cover the level, {proof.engine} "
        "engine)",
        **_cube_provenance(proof, source, rerun),
    }


def improves(entry: Entry, proof: CubeProof, share: float) -> bool:
    """Whether the bound of ``proof`` re-run at ``share`` would change ``entry``: a larger bound,
    or the same one where the entry's rests on a cube log with fewer cubes re-run."""
    bound = proof.n + 1
    if bound != entry.bound:
        return bound > entry.bound
    planned = proof.cubes if share >= 1 else math.ceil(share * proof.cubes)
    return "cubes" in entry.lower_bound and rerun_count(entry.lower_bound) < planned


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
        old = entry.solution
        entry.add_solution(fact)
        if entry.solution is fact and _refutes_edges(old, fact):
            assert old is not None
            what += f" (refutes the atlas' claim that {old['m']} edges on {old['n']} are fewest)"
        out.append(Adopted(entry.id, what, "adopted" if entry.solution is fact else "known"))
    return out


def _refutes_edges(old: dict[str, Any] | None, new: dict[str, Any]) -> bool:
    """Whether a verified solution refutes the edge minimality an older one claimed."""
    return (
        old is not None
        and old.get("edges_minimal") is True
        and (new["n"], new["m"]) < (old["n"], old["m"])
        and new["n"] == old["n"]
    )
