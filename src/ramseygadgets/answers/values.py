"""Values inside an answer: edge lists (``(0,1), (1,2)`` / ``0-1`` / ``[[0,1]]``), single edges and
vertex-label lists, read exactly (an ellipsis is never expanded)."""

from __future__ import annotations

import re

from ramseygadgets.answers.formats import MALFORMED, TOO_LARGE, AnswerError

__all__ = [
    "Label",
    "read_label",
    "parse_label_pairs",
    "parse_edge_value",
    "parse_label_list",
]

_TOKEN_TAIL = (
    r"(?P<num>\d+)|(?P<name>[A-Za-z][A-Za-z0-9_']*)|(?P<open>[(\[{])|(?P<close>[)\]}])"
    r"|(?P<dash><?-+>?|[–—−→↔])|(?P<comma>,)|(?P<semi>;)|(?P<ws>\s+)|(?P<quote>[\"'])|(?P<other>.)"
)
_EDGE_TOKEN = re.compile(r"(?P<ellipsis>\.\.\.+|…)|" + _TOKEN_TAIL, re.S)
_LIST_TOKEN = re.compile(r"(?P<ellipsis>\.\.+|…)|" + _TOKEN_TAIL, re.S)
_PAIRS = {"(": ")", "[": "]", "{": "}"}
Label = int | str


def _tokens(
    value: str, pattern: re.Pattern[str], *, ranges: bool, max_pairs: int | None = None
) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    cap = None if max_pairs is None else 6 * max_pairs + 16  # a pair "(u, v)," is at most 6 tokens
    tail = len(value.rstrip())
    for match in pattern.finditer(value):
        kind = match.lastgroup or "other"
        text = match.group(0)
        if kind in ("ws", "quote"):
            continue
        if kind == "name" and text.lower() == "and":
            kind = "comma"
        elif kind == "ellipsis" and not ranges:
            raise AnswerError(
                MALFORMED, "the answer contains an ellipsis ('...'); every edge must be listed"
            )
        elif kind == "other":
            if text == "." and match.end() == tail:
                continue
            raise AnswerError(MALFORMED, f"unexpected character {text!r} in {value[:80]!r}")
        out.append((kind, text))
        if cap is not None and len(out) > cap:
            raise AnswerError(
                TOO_LARGE,
                f"the edge list is longer than any simple graph within the vertex limit "
                f"allows (at most {max_pairs} edges)",
            )
    return out


def read_label(token: tuple[str, str]) -> Label:
    kind, text = token
    if kind == "num":
        if len(text) > 9:
            raise AnswerError(TOO_LARGE, f"vertex label {text[:12]}... is far too large")
        return int(text)
    if kind == "name":
        return text
    raise AnswerError(MALFORMED, f"expected a vertex label, found {text!r}")


def _closing(tokens: list[tuple[str, str]]) -> list[int]:
    """Index of the matching close for every open token (-1 when unmatched), by one stack."""
    match = [-1] * len(tokens)
    stack: list[int] = []
    for i, (kind, _text) in enumerate(tokens):
        if kind == "open":
            stack.append(i)
        elif kind == "close" and stack:
            match[stack.pop()] = i
    return match


def _strip_outer(tokens: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Drop enclosing brackets around a *list* of edges (not around a single pair)."""
    while tokens and tokens[0][0] == "open" and _closing(tokens)[0] == len(tokens) - 1:
        inner = tokens[1:-1]
        if not (inner and (inner[0][0] == "open" or (len(inner) > 1 and inner[1][0] == "dash"))):
            break
        tokens = inner
    return tokens


def parse_label_pairs(value: str, max_pairs: int | None = None) -> list[tuple[Label, Label]]:
    """Read ``(0,1), (1,2)`` / ``0-1, 1-2`` / ``[[0,1],[1,2]]`` / ``{a,b}`` exactly."""
    tokens = _strip_outer(_tokens(value, _EDGE_TOKEN, ranges=False, max_pairs=max_pairs))
    closing = _closing(tokens)
    pairs: list[tuple[Label, Label]] = []
    i = 0
    while i < len(tokens):
        kind, text = tokens[i]
        if kind in ("comma", "semi"):
            i += 1
        elif kind == "open":
            close = closing[i]
            if close < 0 or _PAIRS[text] != tokens[close][1]:
                raise AnswerError(MALFORMED, f"unbalanced brackets in the edge list {value[:80]!r}")
            inner = [t for t in tokens[i + 1 : close] if t[0] != "comma"]
            if len(inner) == 3 and inner[1][0] == "dash":
                inner = [inner[0], inner[2]]
            if len(inner) != 2:
                shown = " ".join(t[1] for t in tokens[i : close + 1])[:80]
                raise AnswerError(MALFORMED, f"{shown} is not an edge (a pair of vertices)")
            pairs.append((read_label(inner[0]), read_label(inner[1])))
            i = close + 1
        elif i + 2 < len(tokens) and tokens[i + 1][0] == "dash":
            pairs.append((read_label(tokens[i]), read_label(tokens[i + 2])))
            i += 3
        else:
            raise AnswerError(MALFORMED, f"cannot read {text!r} in the edge list {value[:80]!r}")
    if not pairs:
        raise AnswerError(MALFORMED, "the edge list is empty")
    return pairs


def parse_edge_value(value: str) -> tuple[Label, Label]:
    """One designated edge: ``(0, 1)`` / ``0-1`` / ``[0, 1]`` / ``{0,1}``."""
    pairs = parse_label_pairs(value)
    if len(pairs) != 1:
        raise AnswerError(
            MALFORMED, f"a designated edge must be one pair of vertices, got {value[:80]!r}"
        )
    return pairs[0]


def parse_label_list(value: str) -> list[Label]:
    """Labels separated by commas/spaces, optionally bracketed; ``0, ..., 7`` / ``0..7`` ranges."""
    tokens = _tokens(value, _LIST_TOKEN, ranges=True)
    if tokens and tokens[0][0] == "open" and _closing(tokens)[0] == len(tokens) - 1:
        tokens = tokens[1:-1]
    out: list[Label] = []
    pending_range = False
    for kind, text in tokens:
        if kind in ("comma", "semi"):
            continue
        if kind in ("ellipsis", "dash"):
            if pending_range or not out or not isinstance(out[-1], int):
                raise AnswerError(MALFORMED, f"cannot read the vertex list {value[:80]!r}")
            pending_range = True
            continue
        label = read_label((kind, text))
        if pending_range:
            start = out[-1]  # an int: checked when the range mark was read
            if not isinstance(label, int) or not isinstance(start, int):
                raise AnswerError(MALFORMED, f"cannot read the vertex range in {value[:80]!r}")
            if label < start or label - start > 10_000:
                raise AnswerError(MALFORMED, f"cannot read the vertex range in {value[:80]!r}")
            out.extend(range(start + 1, label + 1))
            pending_range = False
        else:
            out.append(label)
    if pending_range or not out:
        raise AnswerError(MALFORMED, f"cannot read the vertex list {value[:80]!r}")
    return out
