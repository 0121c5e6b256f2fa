"""Grades beyond pass/fail: how far a correct answer is from the proven optimum.

For a problem with a proven optimum (n*, m*) — no solution on fewer than n* vertices, and none
on n* vertices with fewer than m* edges (:meth:`Selection.optimum
<ramseygadgets.verification.selection.Selection.optimum>`) — a correct candidate on n vertices and m edges has

* ``excess_vertices`` = n − n* ≥ 0 and ``excess_edges`` = m − m* (negative only when n > n*: a
  larger graph may have fewer edges; ``null`` where m* is not proven);
* ``minimality`` (what the optimum rests on decides it, :class:`~ramseygadgets.verification.basis.Basis`):
  ``not minimal`` when n > n*, whatever is known of edges (a verified solution has n*
  vertices); ``minimal`` when n = n* and both the vertex bound and the edge count are proven;
  ``minimal in vertices`` when n = n* otherwise (the edge count not proven, or the bound only as
  far as a cube log holds) — never counted as fully minimal;
* ``minimal`` = (``minimality`` is ``minimal``), ``false`` for the other two;
* ``optimum_basis``: the basis as JSON, with its phrase (``rests_on``).

Where no optimum is proven these are ``null``, never a guess; a wrong answer has them ``null``
too.  A correct answer smaller than the best known solution of a problem without a proven
optimum is a *new best known* construction; one below a proven optimum (n < n*, or n = n* and
m < m*) *contradicts the proof*.  Both are :attr:`SizeGrade.discovery` kinds.

In ``samples.jsonl`` the fields follow the grade's (:data:`SIZE_FIELDS`).

The **size-shaped reward** (:func:`size_reward`, opt-in for RL: the TRL, verifiers and
reasoning-gym rewards are the exact 0/1 by default) is ``0`` for a wrong answer, ``1`` for a
correct minimal one and ``1 / (1 + excess_vertices)`` for a larger correct one (½ for one vertex
too many, ⅓ for two); where no optimum is proven it is the exact reward (1 for any correct
answer).  It depends on the vertex count only, the quantity ``minimal`` is about.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ramseygadgets.runs.grade import Grade
from ramseygadgets.verification.basis import EDGES_UNPROVEN, PROVEN, Basis
from ramseygadgets.verification.selection import Optimum

__all__ = [
    "DISCOVERY_KINDS",
    "MINIMALITY",
    "SIZE_FIELDS",
    "SizeGrade",
    "optimum_of",
    "size_reward",
]

#: The record fields a size grade owns, in the order they are written.
SIZE_FIELDS = (
    "candidate_vertices",
    "candidate_edges",
    "optimum_vertices",
    "optimum_edges",
    "minimal",
    "minimality",
    "excess_vertices",
    "excess_edges",
    "optimum_basis",
)
#: :attr:`SizeGrade.minimality`: the grades of a correct answer against an optimum.
MINIMALITY = ("minimal", "minimal in vertices", "not minimal")
#: :attr:`SizeGrade.discovery`: a new best known construction, or one that refutes a proof.
DISCOVERY_KINDS = ("new-best-known", "contradicts-proof")


@dataclass(frozen=True)
class SizeGrade:
    """A candidate's size and, for a correct one with a proven optimum, its distance to it."""

    correct: bool
    vertices: int | None = None
    edges: int | None = None
    optimum: Optimum | None = None

    @classmethod
    def of(cls, grade: Grade, optimum: Optimum | None) -> SizeGrade:
        """The size grade of a graded answer against the problem's proven optimum (if any)."""
        return cls(grade.correct, grade.vertex_count, grade.edge_count, optimum)

    # -- the distance ---------------------------------------------------------------------------
    @property
    def graded(self) -> bool:
        """Whether the distance is defined: a correct answer of known size, a proven optimum."""
        return (
            self.correct
            and self.optimum is not None
            and not self.optimum.basis.disputed
            and self.vertices is not None
            and self.edges is not None
        )

    @property
    def excess_vertices(self) -> int | None:
        if not self.graded:
            return None
        assert self.optimum is not None and self.vertices is not None
        return self.vertices - self.optimum.vertices

    @property
    def excess_edges(self) -> int | None:
        """Edges above the proven edge count (``None`` too where only the vertex count is
        proven: an unproven edge count is no measure of distance)."""
        if not self.graded:
            return None
        assert self.optimum is not None and self.edges is not None
        if self.optimum.edges is None:
            return None
        return self.edges - self.optimum.edges

    @property
    def minimality(self) -> str | None:
        """``minimal``, ``minimal in vertices`` or ``not minimal`` (module docs); ``None``: not
        graded."""
        excess = self.excess_vertices
        if excess is None:
            return None
        if excess > 0:
            return "not minimal"
        assert self.optimum is not None
        return "minimal" if self.optimum.basis.proven else "minimal in vertices"

    @property
    def minimal(self) -> bool | None:
        """``True``: fully minimal (both facts proven, as few vertices); ``None``: not graded."""
        grade = self.minimality
        return None if grade is None else grade == "minimal"

    @property
    def reward(self) -> float:
        """The size-shaped reward of this answer (:func:`size_reward`)."""
        optimum = None if self.optimum is None else self.optimum.vertices
        return size_reward(self.correct, self.vertices, optimum)

    def discovery(self, best_known: tuple[int, int] | None) -> str | None:
        """``contradicts-proof``: smaller than what is proven (fewer vertices than the proven
        vertex count, or fewer edges than a proven edge count on as many vertices);
        ``new-best-known``: smaller than ``best_known`` (n, m), or no solution known, where no
        proof bounds it (no proven optimum, or the optimum's edge count is not proven); else
        None."""
        if not self.correct or self.vertices is None or self.edges is None:
            return None
        size, optimum = (self.vertices, self.edges), self.optimum
        if optimum is not None:
            if self.vertices < optimum.vertices:
                return "contradicts-proof"
            if optimum.edges is not None:
                return "contradicts-proof" if size < (optimum.vertices, optimum.edges) else None
            if self.vertices > optimum.vertices:
                return None
            # on the proven vertex count, below an edge count nobody proved minimal
        return "new-best-known" if best_known is None or size < best_known else None

    # -- JSON -----------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """The record fields (:data:`SIZE_FIELDS`, in that order)."""
        optimum = self.optimum
        return {
            "candidate_vertices": self.vertices,
            "candidate_edges": self.edges,
            "optimum_vertices": None if optimum is None else optimum.vertices,
            "optimum_edges": None if optimum is None else optimum.edges,
            "minimal": self.minimal,
            "minimality": self.minimality,
            "excess_vertices": self.excess_vertices,
            "excess_edges": self.excess_edges,
            "optimum_basis": None if optimum is None else optimum.basis.to_json(),
        }

    @classmethod
    def from_json(cls, record: Mapping[str, Any]) -> SizeGrade:
        """The size grade of a sample record; a record written before these fields existed has
        its candidate's size and no optimum (so no distance)."""
        return cls.of(Grade.from_json(record), optimum_of(record))


def size_reward(correct: bool, vertices: int | None, optimum_vertices: int | None) -> float:
    """The size-shaped reward (module docs): 0 wrong; 1 correct and minimal, or correct with no
    proven optimum (``optimum_vertices`` ``None``) or no known size; ``1 / (1 + excess)`` for a
    correct answer ``excess = vertices − optimum_vertices > 0`` vertices above the optimum."""
    if not correct:
        return 0.0
    if vertices is None or optimum_vertices is None or vertices <= optimum_vertices:
        return 1.0
    return 1.0 / (1 + vertices - optimum_vertices)


def optimum_of(record: Mapping[str, Any]) -> Optimum | None:
    """The proven optimum a sample record was graded against, with what it rests on (``None``:
    none, or an old record; a record without ``optimum_basis`` has the vertex count proven and
    the edge count as ``optimum_edges`` says)."""
    n, m = _count(record.get("optimum_vertices")), _count(record.get("optimum_edges"))
    if n is None:
        return None
    basis = Basis.from_json(record.get("optimum_basis"))
    if basis is None:
        basis = PROVEN if m is not None else EDGES_UNPROVEN
    return Optimum(n, m if basis.edges_proven else None, basis)


def _count(value: Any) -> int | None:
    ok = isinstance(value, int) and not isinstance(value, bool) and value >= 0
    return value if ok else None
