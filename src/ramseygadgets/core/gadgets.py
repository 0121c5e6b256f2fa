"""The six gadget types and the designated items a candidate answer carries.

* red-/blue-determiner: one edge ``e``;
* positive-/negative-sender: two distinct edges ``e``, ``f``;
* clause-gadget: vertices ``(i1, i2, i3)``; variable-gadget: vertices ``(u1, u2, n1)``
  (both only for ``F = K1,k``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from ramseygadgets.core.errors import DesignatedItemError, GraphFormatError, InputError
from ramseygadgets.core.graphs import DEFAULT_MAX_VERTICES, Edge, Graph, _check_label, _edge_pair

__all__ = [
    "COLOR_NAMES",
    "GadgetType",
    "Designated",
    "Candidate",
    "designated_from_json",
]


#: Colour names in order: colour 0 is red (it avoids F), colour 1 blue (it avoids H), as in the
#: paper; colours 2, 3, … of problems with more colours are green, yellow, ….
COLOR_NAMES = ("red", "blue", "green", "yellow", "purple", "orange", "cyan", "magenta")


class GadgetKind(str, Enum):
    """What a gadget forces, for any number of colours; the designated items follow from it.

    A determiner also names the colour it forces (:attr:`ramseygadgets.problems.problem.Problem.color`);
    clause and variable gadgets exist for two colours only (F = K1,k).
    """

    DETERMINER = "determiner"
    POSITIVE_SENDER = "positive-sender"
    NEGATIVE_SENDER = "negative-sender"
    CLAUSE = "clause-gadget"
    VARIABLE = "variable-gadget"

    @property
    def edge_names(self) -> tuple[str, ...]:
        """Names of the designated edges (``e``, ``f``)."""
        if self is GadgetKind.DETERMINER:
            return ("e",)
        if self in (GadgetKind.POSITIVE_SENDER, GadgetKind.NEGATIVE_SENDER):
            return ("e", "f")
        return ()

    @property
    def vertex_names(self) -> tuple[str, ...]:
        """Names of the designated vertices, in order."""
        if self is GadgetKind.CLAUSE:
            return ("i1", "i2", "i3")
        if self is GadgetKind.VARIABLE:
            return ("u1", "u2", "n1")
        return ()

    @property
    def is_hardness(self) -> bool:
        return self in (GadgetKind.CLAUSE, GadgetKind.VARIABLE)

    @property
    def tier(self) -> str:
        """``easy`` for determiners, ``hard`` for the rest (the paper's difficulty tiers)."""
        return "easy" if self is GadgetKind.DETERMINER else "hard"


class GadgetType(str, Enum):
    """The paper's six gadget names (two colours); :attr:`kind` is the form any colour count shares."""

    RED_DETERMINER = "red-determiner"
    BLUE_DETERMINER = "blue-determiner"
    POSITIVE_SENDER = "positive-sender"
    NEGATIVE_SENDER = "negative-sender"
    CLAUSE = "clause-gadget"
    VARIABLE = "variable-gadget"

    @property
    def slug(self) -> str:
        return self.value.replace("-", "_")

    @property
    def kind(self) -> GadgetKind:
        """The gadget's form: a red- or blue-determiner is a determiner (of colour 0 or 1)."""
        if self in (GadgetType.RED_DETERMINER, GadgetType.BLUE_DETERMINER):
            return GadgetKind.DETERMINER
        return GadgetKind(self.value)

    @property
    def determined_color(self) -> int | None:
        """0 for the red-determiner, 1 for the blue-determiner, ``None`` otherwise."""
        return {GadgetType.RED_DETERMINER: 0, GadgetType.BLUE_DETERMINER: 1}.get(self)

    @property
    def edge_names(self) -> tuple[str, ...]:
        return self.kind.edge_names

    @property
    def vertex_names(self) -> tuple[str, ...]:
        return self.kind.vertex_names

    @property
    def is_hardness(self) -> bool:
        return self.kind.is_hardness

    @property
    def tier(self) -> str:
        return self.kind.tier

    @classmethod
    def parse(cls, text: str) -> GadgetType:
        key = text.strip().lower().replace("_", "-").replace(" ", "-")
        for g in cls:
            if key in (g.value, g.value.removesuffix("-gadget")):
                return g
        names = ", ".join(g.value for g in cls)
        raise InputError(f"unknown gadget type {text!r}; expected one of {names}")


#: Anything that names a gadget's designated items: its kind, or one of the six names.
GadgetForm = GadgetKind | GadgetType


@dataclass(frozen=True)
class Designated:
    """Designated edges (``e``, ``f``) and/or vertices of a candidate."""

    edges: tuple[Edge, ...] = ()
    vertices: tuple[int, ...] = ()

    def to_json(self, gadget: GadgetForm) -> dict[str, Any]:
        out: dict[str, Any] = {name: list(e) for name, e in zip(gadget.edge_names, self.edges)}
        if gadget.vertex_names:
            out["vertices"] = list(self.vertices)
        return out

    def describe(self, gadget: GadgetForm) -> str:
        parts = [f"{name} = {u}-{v}" for name, (u, v) in zip(gadget.edge_names, self.edges)]
        parts += [f"{name} = {x}" for name, x in zip(gadget.vertex_names, self.vertices)]
        return ", ".join(parts)


@dataclass(frozen=True)
class Candidate:
    """A proposed solution: a graph plus its designated items."""

    graph: Graph
    designated: Designated = field(default_factory=Designated)

    @classmethod
    def from_json(
        cls, data: Any, gadget: GadgetForm, *, max_vertices: int | None = DEFAULT_MAX_VERTICES
    ) -> Candidate:
        """Read ``{"edges": [[u, v], ...], "e": [u, v], "f": [u, v], "vertices": [a, b, c]}``.

        Designated vertices may also be given by name (``"i1": 0, ...`` or ``"u1": 0, ...``).
        The vertex count is one more than the largest label used anywhere (or ``"n"``).
        """
        if not isinstance(data, Mapping):
            raise GraphFormatError(
                f'answer must be a JSON object with an "edges" field, got {type(data).__name__}'
            )
        if "edges" not in data:
            raise GraphFormatError('answer has no "edges" field')
        designated = designated_from_json(data, gadget)
        labels = [x for e in designated.edges for x in e] + list(designated.vertices)
        n = data.get("n")
        edges = data["edges"]
        if not isinstance(edges, list):
            raise GraphFormatError(
                f'"edges" must be a list of [u, v] pairs, got {type(edges).__name__}'
            )
        graph = Graph.from_edges(edges, n, max_vertices=max_vertices)
        top = max(labels, default=-1)
        if top >= graph.n:
            if n is not None:
                raise DesignatedItemError(
                    f"designated vertex {top} is not a vertex of the graph (n = {graph.n})"
                )
            if max_vertices is not None and top >= max_vertices:
                raise DesignatedItemError(
                    f"designated vertex {top} exceeds the limit of {max_vertices} vertices"
                )
            graph = Graph(top + 1, graph.edges)
        return cls(graph, designated)

    def to_json(self, gadget: GadgetForm) -> dict[str, Any]:
        return {"edges": [list(e) for e in self.graph.edges], **self.designated.to_json(gadget)}


def designated_from_json(data: Mapping[str, Any], gadget: GadgetForm) -> Designated:
    """Read the designated items a gadget type needs from a decoded JSON answer."""
    edges: list[Edge] = []
    for name in gadget.edge_names:
        if name not in data:
            raise DesignatedItemError(
                f"answer is missing the designated edge {name!r} (a pair [u, v])"
            )
        raw = data[name]
        try:
            edges.append(_edge_pair(raw, 0))
        except GraphFormatError:
            raise DesignatedItemError(
                f"designated edge {name!r} must be a pair [u, v] of vertex labels, got {raw!r}"
            ) from None
    vertices: list[int] = []
    if gadget.vertex_names:
        if "vertices" in data:
            raw = data["vertices"]
            if not isinstance(raw, list) or len(raw) != len(gadget.vertex_names):
                names = ", ".join(gadget.vertex_names)
                raise DesignatedItemError(
                    f'"vertices" must list exactly three vertices ({names}), got {raw!r}'
                )
        elif all(name in data for name in gadget.vertex_names):
            raw = [data[name] for name in gadget.vertex_names]
        else:
            names = ", ".join(gadget.vertex_names)
            raise DesignatedItemError(
                f'answer is missing the designated vertices ({names}): give "vertices": [a, b, c]'
            )
        for name, value in zip(gadget.vertex_names, raw):
            try:
                vertices.append(_check_label(value, f"designated vertex {name}"))
            except GraphFormatError as exc:
                raise DesignatedItemError(str(exc)) from None
    return Designated(tuple((min(u, v), max(u, v)) for u, v in edges), tuple(vertices))
