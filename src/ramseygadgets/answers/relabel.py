"""Relabelling: arbitrary vertex labels (1-based integers, names) mapped exactly to ``0..n-1``."""

from __future__ import annotations

import re
from typing import Any

from ramseygadgets.answers.formats import MALFORMED, AnswerError
from ramseygadgets.answers.values import Label
from ramseygadgets.core.gadgets import GadgetForm

__all__ = [
    "relabel",
]


def _natural_key(name: str) -> tuple[Any, ...]:
    return tuple((0, int(p)) if p.isdigit() else (1, p) for p in re.split(r"(\d+)", name) if p) + (
        (2, name),
    )


def relabel(
    data: dict[str, Any], gadget: GadgetForm
) -> tuple[dict[str, Any], dict[str, int] | None, list[str]]:
    """Apply the label rules (1-based shift, named labels); return input for ``from_json``, the
    map from named labels to vertices (``None`` for integer labels) and notes on what was done."""
    labels = _answer_labels(data, gadget)
    n = data.get("n")
    mapping, label_map, notes = _label_mapping(labels, n)
    out = _mapped_answer(data, gadget, mapping)
    if "vertex_set" in data:
        out["n"] = _vertex_set_size(data["vertex_set"], labels, mapping)
    if n is not None:
        out["n"] = max(n, out.get("n", 0))
    return out, label_map, notes


def _answer_labels(data: dict[str, Any], gadget: GadgetForm) -> list[Label]:
    """Every vertex label the answer uses: in its edges, its designated edges and vertices, and
    its listed vertex set."""
    item_edges = [data[name] for name in gadget.edge_names if name in data]
    labels: list[Label] = [x for pair in (*data["edges"], *item_edges) for x in pair]
    labels += [data[name] for name in gadget.vertex_names if name in data]
    labels += list(data.get("vertex_set", ()))
    return labels


def _label_mapping(
    labels: list[Label], n: int | None
) -> tuple[dict[Label, int], dict[str, int] | None, list[str]]:
    """Labels to vertices 0, 1, ...: names in natural order; integers shifted down by one when
    they are 1-based (1 used, 0 not, and no ``n`` saying otherwise); else integers as given."""
    ints = {x for x in labels if isinstance(x, int)}
    names = {x for x in labels if isinstance(x, str)}
    if ints and names:
        raise AnswerError(
            MALFORMED,
            f"the answer mixes integer and named vertex labels "
            f"(e.g. {min(ints)} and {sorted(names)[0]!r})",
        )
    if names:
        return _named_label_mapping(names, n)
    if ints and 0 not in ints and 1 in ints and (n is None or n == max(ints)):
        return {x: x - 1 for x in ints}, None, ["1-based vertex labels shifted down by one"]
    if n is not None and ints and max(ints) >= n:
        raise AnswerError(
            MALFORMED,
            f"n = {n} but the answer uses vertex {max(ints)} (vertices are 0..{n - 1})",
        )
    return {x: x for x in ints}, None, []


def _named_label_mapping(
    names: set[str], n: int | None
) -> tuple[dict[Label, int], dict[str, int], list[str]]:
    """Named labels numbered in natural order (``v2`` before ``v10``)."""
    ordered = sorted(names, key=_natural_key)
    if n is not None and n < len(ordered):
        raise AnswerError(MALFORMED, f"n = {n} but the answer names {len(ordered)} vertices")
    mapping: dict[Label, int] = {name: i for i, name in enumerate(ordered)}
    label_map = {name: i for i, name in enumerate(ordered)}
    shown = ", ".join(ordered[:4]) + (", ..." if len(ordered) > 4 else "")
    note = f"named vertex labels numbered in natural order ({shown} -> 0, 1, ...)"
    return mapping, label_map, [note]


def _mapped_answer(
    data: dict[str, Any], gadget: GadgetForm, mapping: dict[Label, int]
) -> dict[str, Any]:
    """The edges and designated items with every label replaced by its vertex."""
    out: dict[str, Any] = {"edges": [[mapping[u], mapping[v]] for u, v in data["edges"]]}
    for name in gadget.edge_names:
        if name in data:
            out[name] = [mapping[x] for x in data[name]]
    for name in gadget.vertex_names:
        if name in data:
            out[name] = mapping[data[name]]
    return out


def _vertex_set_size(listed: list[Label], labels: list[Label], mapping: dict[Label, int]) -> int:
    """The vertex count of an answer that lists its vertices (isolated ones included); every
    label used must be listed."""
    listed_set = set(listed)
    unlisted = [x for x in labels if x not in listed_set]
    if unlisted:
        raise AnswerError(
            MALFORMED, f"vertex {unlisted[0]} is used but not in the listed vertex set"
        )
    return max(mapping[x] for x in listed) + 1
