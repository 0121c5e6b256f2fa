"""The outcome of a verification, and the check of a candidate's designated items."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ramseygadgets.core.gadgets import Designated, GadgetForm
from ramseygadgets.core.graphs import Graph

if TYPE_CHECKING:
    from ramseygadgets.colorings.multi import MultiColoring
    from ramseygadgets.colorings.red_blue import Coloring

__all__ = ["Verdict", "check_designated", "edge_text"]


@dataclass(frozen=True)
class Verdict:
    """Outcome of a verification.

    ``check`` names the clause of the definition that decided: ``ok``, ``designated``
    (designated items malformed, absent or not distinct), ``good`` (G has no good coloring) or
    ``gadget`` (the gadget property fails).
    """

    correct: bool
    reason: str
    check: str = "ok"
    witness: Coloring | MultiColoring | None = None
    details: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"correct": self.correct, "reason": self.reason, "check": self.check}
        out["witness"] = self.witness.to_json() if self.witness is not None else None
        out.update(self.details)
        return out


def edge_text(e: tuple[int, int]) -> str:
    """``u-v``."""
    return f"{e[0]}-{e[1]}"


def check_designated(
    graph: Graph, gadget: GadgetForm, designated: Designated, name: str | None = None
) -> str | None:
    """The reason the designated items are unusable, or ``None`` when they are fine; ``name`` is
    the gadget's name in the message (default: ``gadget``'s)."""
    name = name or gadget.value
    names = gadget.edge_names
    if len(designated.edges) != len(names):
        return f"the {name} needs {len(names)} designated edge(s) ({', '.join(names)}), got {len(designated.edges)}"
    for edge_name, (u, v) in zip(names, designated.edges):
        if u == v or not graph.has_edge(u, v):
            return f"designated edge {edge_name} = {u}-{v} is not an edge of the graph"
    if len(set(designated.edges)) != len(designated.edges):
        return "designated edges e and f must be distinct edges, but they are the same edge"
    vnames = gadget.vertex_names
    if len(designated.vertices) != len(vnames):
        return f"the {name} needs {len(vnames)} designated vertices ({', '.join(vnames)}), got {len(designated.vertices)}"
    for vertex_name, x in zip(vnames, designated.vertices):
        if not 0 <= x < graph.n:
            return f"designated vertex {vertex_name} = {x} is not a vertex of the graph (vertices 0..{graph.n - 1})"
    if len(set(designated.vertices)) != len(designated.vertices):
        return f"designated vertices {', '.join(vnames)} must be distinct, got {list(designated.vertices)}"
    return None
