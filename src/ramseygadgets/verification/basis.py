"""What a proven optimum rests on (issue 45): one small model, computed in one place, shown by
every output that shows an optimum.

An optimum (n*, m*) is two facts, each with its own footing:

* the **vertex bound** "no solution on n* − 1 vertices" is *proven* (a CEGAR UNSAT record of
  this project's prover, the shipped paper proofs, or a cube log whose every cube was run again),
  holds *as far as the cube log holds* (a cube log with k cubes whose "none" is the log's word,
  not re-run), or is *disputed* (a re-check of the atlas entry failed; then it is no optimum);
* the **edge count** m* is *proven* (UNSAT with m* − 1 edges on n*, or a cube log all re-run),
  holds as far as a cube log holds, or is *not proven* (only a solution with m* edges is known).

:func:`entry_basis` computes it from an atlas entry (counting the cubes the entry lists, never
the counts it states); :meth:`Basis.phrase` renders it ("proven"; "vertex count as far as the
cube log holds (338 cubes not re-run); edge count not proven").  Grades follow it
(:mod:`ramseygadgets.runs.sizes`): an answer above n* is *not minimal* whatever is known of
edges (the solution on n* is verified); one on n* is *minimal* only when both facts are proven,
else *minimal in vertices*.

The re-checks every reader of the atlas makes (:func:`reader_dispute`) are the ones that need no
search: the solution's sizes and (``exact``) the exact verifier, the bound against the solution,
a vertex bound's cube proof without an edge cap, the scan's census against the proven sizes,
and re-run records against the cubes they name (a seeded sample must be its seed's draw).
The cube coverage (that the decided cubes and the prefixes propagation refutes cover every
graph) needs the search's encoding, a layer above: ``atlas table`` re-derives it
(:func:`ramseygadgets.atlas.table.dispute`), and the test suite does so for the shipped atlas
and pins its hash (:data:`AUDITED_ATLAS_SHA256`).  A shipped atlas that differs from the
audited one is read with every cube proof's coverage *taken from the file*: such a fact is
never "proven" (:attr:`Basis.coverage_rederived`).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

from ramseygadgets.core.errors import RamseyGadgetsError
from ramseygadgets.problems.atlas_entries import Atlas, Entry, load_atlas, shipped_sha256
from ramseygadgets.verification.verifier import verify

__all__ = [
    "Basis",
    "PROVEN",
    "EDGES_UNPROVEN",
    "VertexFooting",
    "EdgeFooting",
    "entry_basis",
    "reader_dispute",
    "solution_dispute",
    "cross_check_dispute",
    "cube_fact_dispute",
    "rerun_taken_from_file",
    "shipped_atlas",
    "shipped_entry_basis",
    "shipped_atlas_audited",
    "AUDITED_ATLAS_SHA256",
]

VertexFooting = Literal["proven", "cube log", "disputed"]
EdgeFooting = Literal["proven", "cube log", "not proven"]
#: The phrase for facts resting on cube outcomes not all re-run.
ON_TRUST_WORDS = "as far as the cube log holds"
#: The SHA-256 of the shipped atlas whose every cube proof's coverage ``atlas table``
#: re-derived with no dispute.  ``tests/atlas/test_atlas_data.py::test_the_shipped_atlas_is_the_audited_one`` re-derives it on
#: every run and fails, printing the new hash, when the file and this constant part (after an
#: adoption: audit, then set it).
AUDITED_ATLAS_SHA256 = "cca1ca078f7fc5f84b88b99020109e915180785e6e6bc07bd3c0ec5e73bd9a6f"


@dataclass(frozen=True)
class Basis:
    """What an optimum rests on: the vertex bound's footing (with the cubes not re-run), the
    edge count's (likewise), and why the entry is disputed (``None``: it is not)."""

    vertices: VertexFooting = "proven"
    vertices_not_rerun: int = 0
    edges: EdgeFooting = "proven"
    edges_not_rerun: int = 0
    dispute: str | None = None
    #: False: the cube proofs' coverage was taken from the atlas file, not re-derived
    coverage_rederived: bool = True

    @property
    def disputed(self) -> bool:
        return self.vertices == "disputed"

    @property
    def vertices_proven(self) -> bool:
        return self.vertices == "proven"

    @property
    def edges_proven(self) -> bool:
        return self.edges == "proven"

    @property
    def proven(self) -> bool:
        """Both facts proven: an answer on n* vertices is fully minimal."""
        return self.vertices_proven and self.edges_proven

    def vertex_phrase(self) -> str:
        """``proven``, ``as far as the cube log holds (338 cubes not re-run)``, ``disputed: …``."""
        if self.vertices == "disputed":
            return f"disputed: {self.dispute}"
        if self.vertices == "cube log":
            return _on_trust(self.vertices_not_rerun, self.coverage_rederived)
        return "proven"

    def edge_phrase(self) -> str:
        """``proven``, ``as far as the cube log holds (256 cubes not re-run)``, ``not proven``."""
        if self.edges == "cube log":
            return _on_trust(self.edges_not_rerun, self.coverage_rederived)
        return self.edges

    def phrase(self) -> str:
        """The whole statement in a few words ("proven" when both facts are)."""
        if self.disputed:
            return self.vertex_phrase()
        if self.proven:
            return "proven"
        return f"vertex count {self.vertex_phrase()}; edge count {self.edge_phrase()}"

    def describe(self, vertices: int) -> str:
        """The optimum as a clause: "the proven optimum has 15 vertices", "the optimum has 15
        vertices as far as the cube log holds (338 cubes not re-run), its edge count not
        proven"."""
        if self.disputed:
            return f"the atlas' optimum of {vertices} vertices is {self.vertex_phrase()}"
        if self.proven:
            return f"the proven optimum has {vertices} vertices"
        head = "the proven vertex count" if self.vertices_proven else "the vertex count"
        text = f"{head} is {vertices}"
        if not self.vertices_proven:
            text += f" {self.vertex_phrase()}"
        return f"{text}, its edge count {self.edge_phrase()}"

    def to_json(self) -> dict[str, Any]:
        return {
            "vertices": self.vertices,
            "vertices_not_rerun": self.vertices_not_rerun,
            "edges": self.edges,
            "edges_not_rerun": self.edges_not_rerun,
            "dispute": self.dispute,
            "coverage_rederived": self.coverage_rederived,
            "rests_on": self.phrase(),
        }

    @classmethod
    def from_json(cls, data: Any) -> Basis | None:
        """The basis a record holds (``None``: absent or unreadable, never a guess)."""
        if not isinstance(data, Mapping):
            return None
        v, e = data.get("vertices"), data.get("edges")
        vn, en = data.get("vertices_not_rerun", 0), data.get("edges_not_rerun", 0)
        dispute = data.get("dispute")
        if v not in ("proven", "cube log", "disputed") or e not in (
            "proven",
            "cube log",
            "not proven",
        ):
            return None
        if not (_count(vn) and _count(en)) or not (dispute is None or isinstance(dispute, str)):
            return None
        rederived = data.get("coverage_rederived", True)
        if not isinstance(rederived, bool):
            return None
        return cls(v, vn, e, en, dispute, rederived)


#: Both facts proven (the paper's 70, a CEGAR proof with edges).
PROVEN = Basis()
#: The vertex count proven, the edge count not.
EDGES_UNPROVEN = Basis(edges="not proven")


def _on_trust(not_rerun: int, coverage_rederived: bool = True) -> str:
    why = []
    if not_rerun:
        why.append(("1 cube" if not_rerun == 1 else f"{not_rerun} cubes") + " not re-run")
    if not coverage_rederived:
        why.append("coverage as the atlas file records")
    return f"{ON_TRUST_WORDS} ({', '.join(why)})"


def _count(value: Any) -> bool:
    return type(value) is int and value >= 0


# -- what a fact of an atlas entry rests on ------------------------------------------------------
def _listed(cubes: Any) -> set[tuple[str, str]] | None:
    """The (layout, bits) pairs a ``{layout: [bits]}`` object lists (``None``: malformed)."""
    if not isinstance(cubes, Mapping):
        return None
    out: set[tuple[str, str]] = set()
    for name, bits in cubes.items():
        if not isinstance(bits, list) or not all(isinstance(b, str) for b in bits):
            return None
        out.update((str(name), b) for b in bits)
    return out


def _not_rerun(fact: Mapping[str, Any]) -> int:
    """How many of a cube-log fact's listed cubes its re-run record does not list (every listed
    cube when the record is missing or malformed)."""
    proof = fact.get("cubes")
    decided = _listed(proof.get("cubes")) if isinstance(proof, Mapping) else None
    if decided is None:
        return 0
    rerun = fact.get("rerun")
    again = _listed(rerun.get("cubes")) if isinstance(rerun, Mapping) else None
    if again is None or rerun.get("agree") is not True:  # type: ignore[union-attr]
        return len(decided)
    return len(decided - again)


def entry_basis(
    entry: Entry, dispute: str | None = None, *, coverage_rederived: bool = True
) -> Basis:
    """What the optimum of ``entry`` rests on; ``dispute``: why a re-check of it failed
    (:func:`reader_dispute`, or ``atlas table``'s fuller one), which makes it disputed;
    ``coverage_rederived`` False: its cube proofs' coverage is the file's word, so a fact
    resting on one holds only as far as the cube log does, whatever was re-run."""
    if dispute is not None:
        return Basis("disputed", 0, "not proven", 0, dispute)
    bound, s = entry.lower_bound, entry.solution or {}
    vertices: VertexFooting = "proven"
    cube_bound = isinstance(bound, Mapping) and "cubes" in bound
    v_left = _not_rerun(bound) if cube_bound else 0
    if v_left or (cube_bound and not coverage_rederived):
        vertices = "cube log"
    edges: EdgeFooting = "proven" if s.get("edges_minimal") is True else "not proven"
    e_left = 0
    fact = s.get("edges_cubes")
    if edges == "proven" and isinstance(fact, Mapping):
        e_left = _not_rerun(fact)
        edges = "cube log" if e_left or not coverage_rederived else "proven"
    on_file = not coverage_rederived and (vertices == "cube log" or edges == "cube log")
    return Basis(vertices, v_left, edges, e_left, coverage_rederived=not on_file)


def rerun_taken_from_file(fact: Any) -> bool:
    """Whether a cube fact's re-run record claims what no reader can check without running the
    cubes again: every cube re-run, or a sample without a seed (a seeded sample is checked as
    its seed's draw, :func:`cube_fact_dispute`)."""
    if not isinstance(fact, Mapping) or not isinstance(fact.get("rerun"), Mapping):
        return False
    return _not_rerun(fact) == 0 or type(fact["rerun"].get("seed")) is not int


# -- the re-checks every reader makes ------------------------------------------------------------
def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def solution_dispute(entry: Entry, *, exact: bool = True) -> str | None:
    """Why the entry's solution is not what it says (``exact``: decided by the exact verifier
    too, which takes up to seconds for the largest; else its sizes and the bound only)."""
    s = entry.solution
    if not isinstance(s, dict):
        return f"the solution is not a JSON object ({type(s).__name__})"
    n, m = s.get("n"), s.get("m")
    if not (_is_int(n) and _is_int(m)):
        return f"the solution lacks integer sizes (n = {n!r}, m = {m!r})"
    try:
        candidate = entry.candidate()
        verdict = verify(entry.problem, candidate) if exact else None
    except (RamseyGadgetsError, ValueError, TypeError, KeyError) as exc:
        return f"the solution is unreadable: {exc}"
    if verdict is not None and not verdict.correct:
        return f"the solution fails the verifier: {verdict.reason}"
    graph = candidate.graph
    if (graph.n, graph.m) != (n, m):
        return f"recorded (n, m) = ({n}, {m}) but the solution has ({graph.n}, {graph.m})"
    bound = entry.lower_bound.get("n", 0) if isinstance(entry.lower_bound, dict) else None
    if not _is_int(bound):
        return f"the lower bound is not an integer ({bound!r})"
    if bound > n:
        return f"the lower bound {bound} exceeds the solution's {n} vertices"
    return None


def cross_check_dispute(entry: Entry) -> str | None:
    """Why the scan record does not hold against the solution: another (n, m), a census that
    does not say what ``agree`` claims, or a census below the proven sizes (fewer vertices than
    the proven bound; fewer edges on n than a proven edge count)."""
    check = entry.cross_check
    if check is None:
        return None
    if not isinstance(check, dict) or entry.solution is None:
        return "a cross-check without a solution to check"
    s = entry.solution
    if (check.get("n"), check.get("m")) != (s["n"], s["m"]):
        return (
            f"the cross-check concerns (n, m) = ({check.get('n')}, {check.get('m')}), "
            f"the solution is ({s['n']}, {s['m']})"
        )
    census, up_to = check.get("census"), check.get("up_to")
    if not (isinstance(census, list) and len(census) == 2 and all(map(_is_int, census))):
        return f"the cross-check shows no census ({census!r})"
    agree = census[0] == s["n"] and census[1] <= s["m"]
    if check.get("agree") is not agree:
        return f"the cross-check claims agree = {check.get('agree')!r} for census {census}"
    if not _is_int(up_to) or up_to < census[0]:
        return f"the cross-check claims a scan up to {up_to!r} below its census {census}"
    if census[0] < entry.bound:
        return f"the scan's census {census} has fewer vertices than the proven {entry.bound}"
    if census[0] == s["n"] and census[1] < s["m"] and s.get("edges_minimal") is True:
        return f"the scan's census {census} has fewer edges than the proven minimum {s['m']}"
    return None


def cube_fact_dispute(fact: Any, *, vertex_bound: bool) -> str | None:
    """Why a cube-log fact's own record does not hold, checked without searching: a vertex
    bound's proof must carry no edge cap ("none on 14 with at most 75 edges" bounds no vertex
    count), its re-run record must name cubes the proof lists, count them right, and — where it
    is a seeded sample — be that seed's draw (:func:`ramseygadgets.search.cubeproof.sample_cubes`
    draws ``random.Random(seed).sample`` of the sorted cubes)."""
    if not isinstance(fact, Mapping) or not isinstance(fact.get("cubes"), Mapping):
        return "its cube proof is not a JSON object"
    proof = fact["cubes"]
    if vertex_bound and proof.get("max_edges") is not None:
        return (
            f"its cube proof is capped at {proof.get('max_edges')!r} edges, which bounds no "
            f"vertex count"
        )
    decided = _listed(proof.get("cubes"))
    if decided is None:
        return "its cube proof lists no cubes by layout"
    rerun = fact.get("rerun")
    if rerun is None:
        return None
    if not isinstance(rerun, Mapping) or rerun.get("agree") is not True:
        return "its re-run record is not one of re-runs that agree"
    again = _listed(rerun.get("cubes"))
    if again is None:
        return "its re-run record lists no cubes by layout"
    if not again <= decided:
        return "its re-run record names cubes the proof does not hold"
    if rerun.get("of") != len(decided) or rerun.get("rerun") != len(again):
        return (
            f"its re-run record counts {rerun.get('rerun')!r} of {rerun.get('of')!r} cubes; it "
            f"lists {len(again)} of the proof's {len(decided)}"
        )
    seed = rerun.get("seed")
    if type(seed) is int and len(again) < len(decided):
        drawn = set(random.Random(seed).sample(sorted(decided), len(again)))
        if drawn != again:
            return f"its re-run record's cubes are not the draw of its seed {seed}"
    return None


def reader_dispute(entry: Entry, *, exact: bool = True) -> str | None:
    """Why an atlas entry is not what it says, by every re-check that needs no search (module
    docs); ``None``: all hold."""
    if entry.impossible:
        return None if entry.F == entry.H else "claimed impossible but F ≠ H"
    if entry.solution is not None:
        why = solution_dispute(entry, exact=exact) or cross_check_dispute(entry)
        if why is not None:
            return why
        edges = entry.solution.get("edges_cubes")
        if edges is not None:
            why = cube_fact_dispute(edges, vertex_bound=False)
            if why is not None:
                return f"the solution's edge proof does not hold: {why}"
    elif entry.cross_check is not None:
        return "a cross-check without a solution"
    bound = entry.lower_bound
    if isinstance(bound, Mapping) and "cubes" in bound:
        why = cube_fact_dispute(bound, vertex_bound=True)
        if why is not None:
            return f"the lower bound's cube proof does not hold: {why}"
    return None


@cache
def shipped_atlas() -> Atlas:
    """The shipped atlas, read once (readers never change it)."""
    return load_atlas()


@cache
def shipped_atlas_audited() -> bool:
    """Whether the shipped atlas is the one whose cube coverage was re-derived
    (:data:`AUDITED_ATLAS_SHA256`)."""
    return shipped_sha256() == AUDITED_ATLAS_SHA256


@cache
def shipped_entry_basis(entry_id: str, *, exact: bool = True) -> Basis | None:
    """What the optimum of the shipped atlas entry ``entry_id`` rests on, re-checked by
    :func:`reader_dispute` the first time it is asked for (``exact``: with the exact verifier,
    as grading needs; a listing of a whole set passes ``False``, the sizes only), its cube
    coverage re-derived only if the file is the audited one (``None``: no such entry)."""
    entry = shipped_atlas().entries.get(entry_id)
    if entry is None:
        return None
    dispute = reader_dispute(entry, exact=exact)
    return entry_basis(entry, dispute, coverage_rederived=shipped_atlas_audited())
