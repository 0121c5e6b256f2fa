"""The final-answer format models are asked for, and the parser that reads their replies.

Format (what :func:`format_answer` writes and every prompt asks for): a JSON object in a
```` ```json ```` block, vertices labelled ``0..n-1``::

    {"edges": [[0, 1], [0, 2], [1, 2]], "e": [0, 1]}                  # determiners
    {"edges": [...], "e": [0, 1], "f": [1, 2]}                        # senders
    {"edges": [...], "i1": 0, "i2": 3, "i3": 5}                       # clause gadget
    {"edges": [...], "u1": 0, "u2": 3, "n1": 5}                       # variable gadget

The parser (:func:`parse_answer`) is lenient about *syntax* and strict about *meaning*: it
reads every exact rendering of an answer that models commonly produce and fails, with a stated
reason, on anything it cannot read exactly.  Its rules, in order:

1. **Reasoning is skipped.**  Text up to the last ``</think>`` is ignored (also the
   gpt-oss ``<|channel|>final<|message|>`` marker); a ``<think>`` without ``</think>`` means
   the reply ended while reasoning (``truncated``).  A separate reasoning field is never read.
2. **Answer containers** in the remaining text, in order of appearance:
   a JSON object with an ``"edges"`` key (anywhere: in a code block, inline, inside
   ``\\boxed{}``), a ``\\boxed{...}`` holding a labelled answer (``E = \\{(0,1),(1,2)\\},
   e = (0,1)``), or a code block that consists entirely of labelled lines (``edges = [...]``,
   ``e = (0, 1)``).  The **last complete** container is the answer; a container cut off by
   the end of the reply is skipped.  The last container is final even if it is unreadable:
   the parser never falls back to an earlier one.  ``coloring_tool`` requests are not answers.
3. **Labelled prose** (``Edges: 0-1, 0-2, 1-2`` / ``e = (0, 1)`` on consecutive lines, markdown
   bullets and bold allowed) is read only when the reply has no container at all.
4. **Edge lists** may be ``[[0,1],...]``, ``(0,1), (1,2)``, ``0-1, 1-2``, ``{0,1}``, LaTeX
   ``\\{(0,1),(1,2)\\}``, strings ``"0-1"``; an ellipsis (``...``) is never expanded.
   Duplicate edges, loops, non-pairs are malformed (validated by :meth:`Candidate.from_json`).
5. **Labels.**  Integer labels are read as written, except that an answer using label 1 but
   never label 0 (and, if it states ``n``, with largest label ``n``) is read as 1-based and
   shifted down by one.  Named labels (``a, b, c`` / ``v1, v2``) are accepted when *every*
   label of the answer is a name; they are numbered in natural order (``v2 < v10``).  Both
   mappings are exact: the verdict of :func:`~ramseygadgets.verify.verify` is invariant under
   relabelling and under deleting an isolated vertex, so they can never change correctness,
   only the reported vertex count.  Mixed integer/name labels are malformed.
6. **Failures** have a kind: ``no_answer``, ``truncated``, ``malformed``, ``missing_item``
   (designated edge/vertex absent), ``too_large`` (more than ``max_vertices`` vertices).

The scan is linear in the reply length (no backtracking regexes, one pass over the braces).
"""

from __future__ import annotations

import ast
import json
import re
from bisect import bisect_left
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any

from ramseygadgets.errors import DesignatedItemError, GraphFormatError, GraphTooLargeError
from ramseygadgets.gadgets import Candidate, GadgetForm, GadgetKind, GadgetType
from ramseygadgets.graphs import DEFAULT_MAX_VERTICES

#: Failure kinds of :class:`ParsedAnswer`.
NO_ANSWER, TRUNCATED, MALFORMED, MISSING_ITEM, TOO_LARGE = (
    "no_answer",
    "truncated",
    "malformed",
    "missing_item",
    "too_large",
)
ERROR_KINDS = (NO_ANSWER, TRUNCATED, MALFORMED, MISSING_ITEM, TOO_LARGE)

#: Containers larger than this are not handed to Python's literal parser.
_MAX_LITERAL_CHARS = 200_000
_SNIPPET_CHARS = 4000


@dataclass(frozen=True)
class ParsedAnswer:
    """The outcome of reading a reply: a candidate, or the reason there is none."""

    candidate: Candidate | None
    error: str | None = None
    error_kind: str | None = None
    source: str | None = None
    answer_text: str | None = None
    label_map: dict[str, int] | None = None
    notes: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.candidate is not None

    def to_json(self, gadget: GadgetForm | None = None) -> dict[str, Any]:
        out: dict[str, Any] = {
            "parsed": self.ok,
            "parse_error": self.error,
            "error_kind": self.error_kind,
            "source": self.source,
            "notes": list(self.notes),
        }
        if self.candidate is not None and gadget is not None:
            out["answer"] = self.candidate.to_json(gadget)
        if self.label_map is not None:
            out["label_map"] = self.label_map
        return out


def _failure(
    kind: str,
    message: str,
    *,
    source: str | None = None,
    text: str | None = None,
    notes: Iterable[str] = (),
) -> ParsedAnswer:
    snippet = None if text is None else text[:_SNIPPET_CHARS]
    return ParsedAnswer(None, message, kind, source, snippet, None, tuple(notes))


class _AnswerError(Exception):
    """Internal: an answer container was found but cannot be read exactly."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


# =============================================================================================
# Formatting
# =============================================================================================
def answer_object(candidate: Candidate, gadget: GadgetForm) -> dict[str, Any]:
    """The answer as the documented JSON object (designated vertices by name)."""
    out: dict[str, Any] = {"edges": [list(e) for e in candidate.graph.edges]}
    for name, (u, v) in zip(gadget.edge_names, candidate.designated.edges):
        out[name] = [u, v]
    for name, x in zip(gadget.vertex_names, candidate.designated.vertices):
        out[name] = x
    return out


def format_answer(candidate: Candidate, gadget: GadgetForm) -> str:
    """The final answer exactly as a perfect model writes it: a fenced JSON object."""
    return "```json\n" + json.dumps(answer_object(candidate, _gadget(gadget))) + "\n```"


def _gadget(gadget: Any) -> GadgetForm:
    if isinstance(gadget, (GadgetType, GadgetKind)):
        return gadget
    if isinstance(getattr(gadget, "kind", None), GadgetKind):  # a Problem
        return gadget.kind
    return GadgetType.parse(str(gadget))


# =============================================================================================
# Step 1: reasoning
# =============================================================================================
_HARMONY_FINAL = "<|channel|>final<|message|>"
_HARMONY_END = re.compile(r"<\|(?:return|end|call)\|>\s*$")


def strip_reasoning(text: str) -> tuple[str | None, list[str]]:
    """The part of a reply after its reasoning; ``None`` when the reply ends inside it."""
    notes: list[str] = []
    close = text.rfind("</think>")
    if close >= 0:
        notes.append("reasoning (<think>...</think>) skipped")
        return text[close + len("</think>") :], notes
    final = text.rfind(_HARMONY_FINAL)
    if final >= 0:
        notes.append("reasoning (analysis channel) skipped")
        return _HARMONY_END.sub("", text[final + len(_HARMONY_FINAL) :]), notes
    if "<think>" in text:
        notes.append("<think> without </think>")
        return None, notes
    if "<|channel|>analysis" in text:
        notes.append("analysis channel without a final channel")
        return None, notes
    return text, notes


# =============================================================================================
# Step 2: containers
# =============================================================================================
@dataclass
class _Container:
    start: int
    end: int  # exclusive
    kind: str  # "json" | "boxed" | "fenced-text" | "labelled"
    text: str


@dataclass
class _Fence:
    start: int  # offset of the opening fence line
    body_start: int
    body_end: int
    end: int
    info: str
    closed: bool


_FENCE_LINE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})([^\n`]*)$", re.M)
_TOOL_TAG = re.compile(r"<coloring[_-]tool>.*?(?:</coloring[_-]tool>|\Z)", re.S | re.I)
_BRACE_TOKEN = re.compile(r"\\([A-Za-z]+)[ \t]*\{|\\[{}]|[{}]")
#: An ``edges`` key (only ever searched for, never spanned): ``(?<!\w)`` instead of a leading
#: ``["']?\b`` finds the same keys 2.4× faster on long reasoning text.
_EDGES_KEY = re.compile(r"""(?<!\w)(?:edges|edge_list|edgelist)\b["']?\s*:""", re.I)
_BOX_COMMANDS = frozenset({"boxed", "fbox"})


def _find_fences(text: str) -> list[_Fence]:
    """Markdown code blocks (``` or ~~~); an unclosed one runs to the end of the text."""
    fences: list[_Fence] = []
    opening: tuple[int, int, str, str] | None = None
    for match in _FENCE_LINE.finditer(text):
        marker, info = match.group(1, 2)
        start, end = match.span()
        if opening is None:
            opening = (start, end, marker, info)
            continue
        o_start, o_end, o_marker, o_info = opening
        if marker[0] == o_marker[0] and len(marker) >= len(o_marker) and not info.strip():
            fences.append(
                _Fence(o_start, min(o_end + 1, start), start, end, o_info.strip().lower(), True)
            )
            opening = None
    if opening is not None:
        o_start, o_end, _marker, o_info = opening
        fences.append(
            _Fence(
                o_start,
                min(o_end + 1, len(text)),
                len(text),
                len(text),
                o_info.strip().lower(),
                False,
            )
        )
    return fences


def _is_tool_fence(info: str) -> bool:
    return info.replace("-", "_") in ("coloring_tool", "coloring_request")


def _mask(text: str, spans: Iterable[tuple[int, int]]) -> str:
    """Blank out spans (same length, newlines kept) so later scans ignore them."""
    out, last = [], 0
    for a, b in sorted(spans):
        a = max(a, last)
        if a >= b:
            continue
        out.append(text[last:a])
        out.append(re.sub(r"[^\n]", " ", text[a:b]))
        last = b
    out.append(text[last:])
    return "".join(out)


def _contains(spans_sorted: list[tuple[int, int]], start: int, end: int) -> bool:
    """Whether some span of the sorted, disjoint list lies inside [start, end)."""
    i = bisect_left(spans_sorted, (start, -1))
    return i < len(spans_sorted) and spans_sorted[i][1] <= end


def _brace_containers(text: str) -> tuple[list[_Container], bool]:
    """JSON objects with an edges key and outermost ``\\boxed{}`` groups, in linear time.

    Braces are matched with one stack (an unmatched ``{`` is ignored).  ``{`` opened by a
    LaTeX command (``\\boxed{``, ``\\text{``) is transparent for JSON: an object inside it is
    outermost.  ``\\{`` / ``\\}`` are LaTeX set braces, not groups.  Also reports whether an
    unterminated ``\\boxed{`` or edges object runs into the end of the text (truncation).
    """
    has_key = _EDGES_KEY.search(text) is not None
    if not has_key and "\\boxed" not in text and "\\fbox" not in text:
        return [], False
    stack: list[tuple[int, int, str | None]] = []
    groups: list[tuple[int, int, int, str | None]] = []  # (start, content_start, end, command)
    push, pop, add = stack.append, stack.pop, groups.append
    for match in _BRACE_TOKEN.finditer(text):
        start, end = match.span()
        if end - start == 1:
            if text[start] == "{":
                push((start, end, None))
            elif stack:
                first, content, command = pop()
                add((first, content, end, command))
        elif end - start > 2:  # "\\command{"; the escaped "\\{" and "\\}" are skipped
            push((start, end, match.group(1)))
    groups.sort()
    objects: list[_Container] = []
    boxes: list[_Container] = []
    object_end = box_end = -1
    for start, content, end, command in groups:
        if command is None and start >= object_end:
            object_end = end
            body = text[start:end]
            if _EDGES_KEY.search(body):
                objects.append(_Container(start, end, "json", body))
        elif command in _BOX_COMMANDS and start >= box_end:
            box_end = end
            boxes.append(_Container(start, end, "boxed", text[content : end - 1]))
    spans = [(c.start, c.end) for c in objects]
    containers = objects + [b for b in boxes if not _contains(spans, b.start, b.end)]
    truncated = False
    if stack:
        last_plain = next((s for s, _c, cmd in reversed(stack) if cmd is None), None)
        truncated = any(cmd in _BOX_COMMANDS for _s, _c, cmd in stack) or (
            last_plain is not None and _EDGES_KEY.search(text, last_plain) is not None
        )
    return containers, truncated


def _collect(text: str, gadget: GadgetForm, max_pairs: int | None) -> tuple[list[_Container], bool]:
    """The answer containers of the final text in order, and whether one was cut off."""
    fences = _find_fences(text)
    tool_spans = [(f.start, f.end) for f in fences if _is_tool_fence(f.info)]
    tool_spans += [(m.start(), m.end()) for m in _TOOL_TAG.finditer(text)]
    scan = _mask(text, tool_spans) if tool_spans else text
    containers, truncated = _brace_containers(scan)
    spans = sorted((c.start, c.end) for c in containers)
    for fence in fences:
        if _is_tool_fence(fence.info) or _contains(spans, fence.body_start, fence.body_end):
            continue  # a JSON / boxed answer inside the block represents it
        body = scan[fence.body_start : fence.body_end]
        if not _label_lines_start(body):
            continue
        if not fence.closed:
            truncated = True
            continue
        try:  # a code block is an answer only when all of it is a labelled answer
            _labelled_dict(_labelled_text(body, whole=True), gadget, max_pairs)
        except _AnswerError:
            continue
        containers.append(_Container(fence.start, fence.end, "fenced-text", body))
    if not containers:
        containers = _prose_groups(scan, fences)
    containers.sort(key=lambda c: c.end)
    return containers, truncated


# =============================================================================================
# Labelled text: "Edges: 0-1, 0-2", "e = (0,1)", "(i1, i2, i3) = (0, 3, 5)"
# =============================================================================================
_LABEL_WORDS = r"""
    (?P<edges>(?i:edges|edge\ list|edge\ set|list\ of\ edges|set\ of\ edges)|E\(G\)|E)
  | (?P<n>(?i:number\ of\ vertices)|\|V\(G\)\||\|V\||n)
  | (?P<triple>\(\s*(?:i_?1\s*,\s*i_?2\s*,\s*i_?3|u_?1\s*,\s*u_?2\s*,\s*n_?1)\s*\))
  | (?P<vertices>(?i:(?:designated\ )?vertices|vertex\ set)|V\(G\)|V)
  | (?P<item>(?i:(?:designated\ )?(?:vertex\ )?)(?:i_?[123]|u_?[12]|n_?1)
        |(?i:(?:designated\ )?(?:edge\ )?)[ef]
        |(?i:designated\ edge))
"""
_LABEL = re.compile(r"(?<![A-Za-z0-9_|])(?:" + _LABEL_WORDS + r")[ \t]*(?::|=(?!=))", re.X)
_ASSIGNMENT_START = re.compile(r"(?:" + _LABEL_WORDS + r")[ \t]*(?::|=(?!=))", re.X)
_DECORATION = re.compile(r"^[ \t>#*+•-]*(?:\d+[.)][ \t]+)?")
_ITEM_NAME = re.compile(r"i_?[123]|u_?[12]|n_?1|[ef]")


_LATEX_TEXT = re.compile(r"\\(?:text|mathrm|textbf|mathbf|mathit|operatorname|textit)\{([^{}]*)\}")
_LATEX_SIZE = re.compile(r"\\(?:left|right|bigl|bigr|Bigl|Bigr|big|Big)(?![A-Za-z])")
_LATEX_DOTS = re.compile(r"\\(?:ldots|cdots|dots)(?![A-Za-z])")
_LATEX_ARROW = re.compile(r"\\(?:to|rightarrow|leftrightarrow|longleftrightarrow|sim)(?![A-Za-z])")
_LATEX_SPACE = re.compile(r"\\(?:quad|qquad)(?![A-Za-z])|\\[,;:! ]|~")
_LATEX_MATH = re.compile(r"\\\(|\\\)|\\\[|\\\]|\$")
_LATEX_SUB = re.compile(r"_\{(\w+)\}")


def _normalize_latex(text: str) -> str:
    """Rewrite the LaTeX and markdown that models wrap around labels and edge lists."""
    text = text.replace("**", "").replace("__", "").replace("`", "")
    if "\\" in text:
        text = _LATEX_TEXT.sub(r"\1", text)
        text = _LATEX_SIZE.sub("", text)
        text = (
            text.replace("\\{", "{")
            .replace("\\}", "}")
            .replace("\\lbrace", "{")
            .replace("\\rbrace", "}")
        )
        text = _LATEX_DOTS.sub("...", text)
        text = _LATEX_ARROW.sub("-", text)
    if "\\" in text or "~" in text:
        text = _LATEX_SPACE.sub(" ", text)
    if "\\" in text or "$" in text:
        text = _LATEX_MATH.sub(" ", text)
    if "_{" in text:
        text = _LATEX_SUB.sub(r"_\1", text)
    return text


def _clean_line(line: str) -> str:
    return _DECORATION.sub("", _normalize_latex(line), count=1).strip()


def _label_lines_start(body: str) -> bool:
    """Whether a code block begins with a labelled line."""
    for line in body.splitlines():
        if line.strip():
            return bool(_ASSIGNMENT_START.match(_clean_line(line)))
    return False


def _assignments(text: str) -> Iterator[tuple[str, str, str]]:
    """``(group, label, value)`` for every ``label = value`` in ``text``, lazily.

    A value runs to the next label.  A label with an empty value ("Designated edge: e = (0, 1)")
    only introduces the next one and is skipped.
    """
    previous: re.Match[str] | None = None
    for match in _LABEL.finditer(text):
        if previous is not None:
            found = _assignment(text, previous, match.start())
            if found is not None:
                yield found
        previous = match
    if previous is not None:
        found = _assignment(text, previous, len(text))
        if found is not None:
            yield found


def _assignment(text: str, match: re.Match[str], end: int) -> tuple[str, str, str] | None:
    value = text[match.end() : end].strip().rstrip(",;.").strip()
    if value.lower().endswith(" and"):
        value = value[:-4].rstrip(",; ")
    if not value:
        return None
    return match.lastgroup or "", match.group(0).rstrip(":= \t"), value


def _labelled_text(body: str, *, whole: bool) -> str:
    """Clean the lines of a labelled block; continuation lines belong to the previous label."""
    lines = [line for line in (_clean_line(raw) for raw in body.splitlines()) if line]
    if whole and lines and not _ASSIGNMENT_START.match(lines[0]):
        raise _AnswerError(MALFORMED, "the answer does not start with a label such as 'edges:'")
    return "\n".join(lines)


def _prose_groups(text: str, fences: list[_Fence]) -> list[_Container]:
    """Runs of consecutive labelled lines outside code blocks that include an edge list."""
    groups: list[_Container] = []
    current: list[tuple[int, int, str, str]] = []

    def flush() -> None:
        if not current:
            return
        if any(group == "edges" for _, _, _, group in current):
            groups.append(
                _Container(
                    current[0][0],
                    current[-1][1],
                    "labelled",
                    "\n".join(line for _, _, line, _ in current),
                )
            )
        current.clear()

    offset, fence_index = 0, 0
    for raw in text.splitlines(keepends=True):
        start, offset = offset, offset + len(raw)
        while fence_index < len(fences) and fences[fence_index].end <= start:
            fence_index += 1
        if fence_index < len(fences) and fences[fence_index].start <= start:
            flush()
            continue
        if not raw.strip():
            continue  # blank lines do not end a group
        if ":" not in raw and "=" not in raw:
            flush()
            continue
        line = _clean_line(raw)
        if not line:
            continue
        match = _ASSIGNMENT_START.match(line)
        if match is None:
            flush()
        else:
            current.append((start, offset, line, match.lastgroup or ""))
    flush()
    return groups


# =============================================================================================
# Values: edge lists, pairs, labels
# =============================================================================================
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
            raise _AnswerError(
                MALFORMED, "the answer contains an ellipsis ('...'); every edge must be listed"
            )
        elif kind == "other":
            if text == "." and match.end() == tail:
                continue
            raise _AnswerError(MALFORMED, f"unexpected character {text!r} in {value[:80]!r}")
        out.append((kind, text))
        if cap is not None and len(out) > cap:
            raise _AnswerError(
                TOO_LARGE,
                f"the edge list is longer than any simple graph within the vertex limit "
                f"allows (at most {max_pairs} edges)",
            )
    return out


def _label(token: tuple[str, str]) -> Label:
    kind, text = token
    if kind == "num":
        if len(text) > 9:
            raise _AnswerError(TOO_LARGE, f"vertex label {text[:12]}... is far too large")
        return int(text)
    if kind == "name":
        return text
    raise _AnswerError(MALFORMED, f"expected a vertex label, found {text!r}")


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


def parse_edge_list(value: str, max_pairs: int | None = None) -> list[tuple[Label, Label]]:
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
                raise _AnswerError(
                    MALFORMED, f"unbalanced brackets in the edge list {value[:80]!r}"
                )
            inner = [t for t in tokens[i + 1 : close] if t[0] != "comma"]
            if len(inner) == 3 and inner[1][0] == "dash":
                inner = [inner[0], inner[2]]
            if len(inner) != 2:
                shown = " ".join(t[1] for t in tokens[i : close + 1])[:80]
                raise _AnswerError(MALFORMED, f"{shown} is not an edge (a pair of vertices)")
            pairs.append((_label(inner[0]), _label(inner[1])))
            i = close + 1
        elif i + 2 < len(tokens) and tokens[i + 1][0] == "dash":
            pairs.append((_label(tokens[i]), _label(tokens[i + 2])))
            i += 3
        else:
            raise _AnswerError(MALFORMED, f"cannot read {text!r} in the edge list {value[:80]!r}")
    if not pairs:
        raise _AnswerError(MALFORMED, "the edge list is empty")
    return pairs


def parse_edge_value(value: str) -> tuple[Label, Label]:
    """One designated edge: ``(0, 1)`` / ``0-1`` / ``[0, 1]`` / ``{0,1}``."""
    pairs = parse_edge_list(value)
    if len(pairs) != 1:
        raise _AnswerError(
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
                raise _AnswerError(MALFORMED, f"cannot read the vertex list {value[:80]!r}")
            pending_range = True
            continue
        label = _label((kind, text))
        if pending_range:
            start = out[-1]  # an int: checked when the range mark was read
            if not isinstance(label, int) or not isinstance(start, int):
                raise _AnswerError(MALFORMED, f"cannot read the vertex range in {value[:80]!r}")
            if label < start or label - start > 10_000:
                raise _AnswerError(MALFORMED, f"cannot read the vertex range in {value[:80]!r}")
            out.extend(range(start + 1, label + 1))
            pending_range = False
        else:
            out.append(label)
    if pending_range or not out:
        raise _AnswerError(MALFORMED, f"cannot read the vertex list {value[:80]!r}")
    return out


# =============================================================================================
# Containers -> answer fields
# =============================================================================================
def _labelled_dict(text: str, gadget: GadgetForm, max_pairs: int | None = None) -> dict[str, Any]:
    """Turn ``label = value`` assignments into the answer dict ``{"edges": ..., "e": ...}``."""
    data: dict[str, Any] = {}

    def put(key: str, value: Any) -> None:
        if key in data:
            raise _AnswerError(MALFORMED, f"the answer gives {key!r} twice")
        data[key] = value

    for group, label, value in _assignments(text):
        if group == "edges":
            put("edges", [list(p) for p in parse_edge_list(value, max_pairs)])
        elif group == "n":
            count = parse_label_list(value)
            if len(count) != 1 or not isinstance(count[0], int):
                raise _AnswerError(
                    MALFORMED, f"the vertex count must be one integer, got {value[:80]!r}"
                )
            put("n", count[0])
        elif group == "triple":
            labels = parse_label_list(value)
            if not gadget.vertex_names or len(labels) != 3:
                raise _AnswerError(MALFORMED, f"{label} must be three vertices, got {value[:80]!r}")
            for name, x in zip(gadget.vertex_names, labels):
                put(name, x)
        elif group == "vertices":
            put("vertices", parse_label_list(value))
        else:  # a designated item, named by the last word of its label
            last = label.split()[-1]
            if _ITEM_NAME.fullmatch(last):
                key = last.replace("_", "")
            elif len(gadget.edge_names) == 1:  # "designated edge" of a determiner
                key = "e"
            else:
                raise _AnswerError(
                    MALFORMED, "'designated edge' does not say which edge it is; name them e and f"
                )
            if key in ("e", "f"):
                put(key, list(parse_edge_value(value)))
            else:
                labels = parse_label_list(value)
                if len(labels) != 1:
                    raise _AnswerError(
                        MALFORMED, f"designated vertex {key} must be one vertex, got {value[:80]!r}"
                    )
                put(key, labels[0])
    if "edges" not in data:
        raise _AnswerError(MALFORMED, "the answer has no edge list")
    return data


def _boxed_dict(content: str, gadget: GadgetForm, max_pairs: int | None = None) -> dict[str, Any]:
    """A ``\\boxed{}`` answer: labelled assignments, an escaped JSON object or a bare edge list."""
    text = _labelled_text(content, whole=False)
    if _ASSIGNMENT_START.match(text):
        return _labelled_dict(text, gadget, max_pairs)
    if text.startswith("{") and _EDGES_KEY.search(text):
        return _normalize_keys(_object_dict(text), gadget)
    try:
        return {"edges": [list(p) for p in parse_edge_list(text, max_pairs)]}
    except _AnswerError as exc:
        raise _AnswerError(MALFORMED, f"the \\boxed{{}} answer is not a graph: {exc}") from None


_BARE_KEY = re.compile(r"([{,][ \t\n]*)([A-Za-z_][A-Za-z0-9_]*)([ \t]*:)")
_LINE_COMMENT = re.compile(r"(?m)(?:^|(?<=[\s,\[\]{}]))//[^\n]*$")


def _object_dict(text: str) -> dict[str, Any]:
    """Decode a JSON object; Python dict literals, unquoted keys and ``//`` comments are exact variants."""
    error: Exception | None = None
    data: Any = None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        error = exc
    if error is not None and len(text) <= _MAX_LITERAL_CHARS:
        attempts = (
            lambda: ast.literal_eval(text),
            lambda: json.loads(_BARE_KEY.sub(r'\1"\2"\3', text)),
            lambda: json.loads(_LINE_COMMENT.sub("", text)),
        )
        for attempt in attempts:
            try:
                data = attempt()
                error = None
                break
            except (ValueError, SyntaxError, TypeError, RecursionError, MemoryError):
                continue
    if error is not None:
        detail = (
            f": {error.msg} at line {error.lineno} column {error.colno}"
            if isinstance(error, json.JSONDecodeError)
            else ""
        )
        raise _AnswerError(MALFORMED, f"the JSON answer is malformed{detail}")
    if not isinstance(data, dict):
        raise _AnswerError(MALFORMED, "the answer is not a JSON object")
    return data


_EDGE_KEYS = ("edges", "edge_list", "edgelist", "edge list")


def _merge(into: dict[str, Any], extra: Mapping[Any, Any]) -> None:
    for k, v in extra.items():
        if str(k) in into:
            raise _AnswerError(MALFORMED, f"the answer gives {str(k)!r} twice")
        into[str(k)] = v


def _normalize_keys(data: Mapping[Any, Any], gadget: GadgetForm) -> dict[str, Any]:
    """Canonical keys: one edges key; a wrapper object and a ``designated`` object flattened."""
    data = {str(k): v for k, v in data.items()}
    if not any(k.lower() in _EDGE_KEYS for k in data):
        wrappers = [
            k
            for k, v in data.items()
            if isinstance(v, dict) and any(str(x).lower() in _EDGE_KEYS for x in v)
        ]
        if len(wrappers) == 1:
            inner = {str(k): v for k, v in data.pop(wrappers[0]).items()}
            _merge(inner, data)
            data = inner
    if isinstance(data.get("designated"), dict):
        _merge(data, data.pop("designated"))
    edge_keys = [k for k in data if k.lower() in _EDGE_KEYS]
    if len(edge_keys) != 1:
        raise _AnswerError(
            MALFORMED,
            "the answer has no edges field"
            if not edge_keys
            else "the answer has more than one edges field",
        )
    out: dict[str, Any] = {"edges": data[edge_keys[0]]}
    wanted = set(gadget.edge_names) | set(gadget.vertex_names) | {"n", "vertices"}
    for k, v in data.items():
        key = k.replace("_", "") if re.fullmatch(r"[iun]_\d", k) else k
        if key in wanted:
            if key in out:
                raise _AnswerError(MALFORMED, f"the answer gives {key!r} twice")
            out[key] = v
    return out


def _raw_label(x: Any, what: str) -> Label:
    if type(x) is int and 0 <= x < 10**9:  # the common case first (bool is not int here)
        return x
    if isinstance(x, bool):
        raise _AnswerError(MALFORMED, f"{what}: {x!r} is not a vertex label")
    if isinstance(x, float) and x.is_integer() and 0 <= x < 1e9:
        return int(x)
    if isinstance(x, int):
        if x < 0:
            raise _AnswerError(
                MALFORMED, f"{what}: negative vertex label {x} (labels are 0, 1, 2, ...)"
            )
        if x >= 10**9:
            raise _AnswerError(TOO_LARGE, f"{what}: vertex label {str(x)[:12]} is far too large")
        return x
    if isinstance(x, str):
        s = x.strip()
        if s.isdigit():
            return _label(("num", s))
        if re.fullmatch(r"[A-Za-z][A-Za-z0-9_']*", s):
            return s
    raise _AnswerError(MALFORMED, f"{what}: {str(x)[:40]!r} is not a vertex label")


def _pair_of(raw: Any, what: str) -> list[Label]:
    """A JSON pair ``[u, v]`` or a string ``"u-v"`` as two raw labels."""
    if isinstance(raw, str):
        return list(parse_edge_value(raw))
    if isinstance(raw, (list, tuple)) and len(raw) == 2:
        return [_raw_label(x, what) for x in raw]
    if isinstance(raw, (list, tuple)) and len(raw) == 1 and isinstance(raw[0], (list, tuple, str)):
        return _pair_of(raw[0], what)
    raise _AnswerError(MALFORMED, f"{what} must be a pair [u, v] of vertices, got {str(raw)[:80]}")


def _structured(
    data: dict[str, Any], gadget: GadgetForm, max_pairs: int | None = None
) -> dict[str, Any]:
    """Read every field into raw labels (ints or names), checking shapes.

    ``"vertices"`` is the designated triple of a hardness gadget given without names (the
    compact form of :meth:`Candidate.to_json`), a count when it is a single integer, and
    otherwise the vertex set.
    """
    edges = data["edges"]
    if isinstance(edges, str):
        edge_pairs = [list(p) for p in parse_edge_list(edges, max_pairs)]
    elif isinstance(edges, (list, tuple)):
        if max_pairs is not None and len(edges) > max_pairs:
            raise _AnswerError(
                TOO_LARGE,
                f"the answer lists {len(edges)} edges, more than any simple graph "
                f"within the vertex limit has (at most {max_pairs})",
            )
        edge_pairs = [_pair_of(raw, f"edge {i + 1}") for i, raw in enumerate(edges)]
    else:
        raise _AnswerError(
            MALFORMED, f'"edges" must be a list of pairs, got {type(edges).__name__}'
        )
    out: dict[str, Any] = {"edges": edge_pairs}
    for name in gadget.edge_names:
        if name in data:
            out[name] = _pair_of(data[name], f"designated edge {name}")
    named = [name for name in gadget.vertex_names if name in data]
    for name in named:
        value = data[name]
        if isinstance(value, (list, tuple)) and len(value) == 1:
            value = value[0]
        out[name] = _raw_label(value, f"designated vertex {name}")
    if "n" in data:
        out["n"] = _raw_label(data["n"], "the vertex count n")
        if not isinstance(out["n"], int):
            raise _AnswerError(
                MALFORMED, f"the vertex count n must be an integer, got {str(data['n'])[:40]!r}"
            )
    vertices = data.get("vertices")
    if vertices is None:
        return out
    if isinstance(vertices, str):
        vertices = parse_label_list(vertices)
    elif isinstance(vertices, (int, float)) and not isinstance(vertices, bool):
        vertices = [vertices]
    if not isinstance(vertices, (list, tuple)):
        raise _AnswerError(
            MALFORMED, f'"vertices" must be a list of vertices, got {str(vertices)[:80]}'
        )
    labels = [_raw_label(x, "vertices") for x in vertices]
    if gadget.vertex_names and not named:
        if len(labels) != 3:
            names = ", ".join(gadget.vertex_names)
            raise _AnswerError(
                MALFORMED,
                f'"vertices" must list exactly the three designated vertices ({names}), '
                f"got {len(labels)}",
            )
        out.update(zip(gadget.vertex_names, labels))
    elif len(labels) == 1 and isinstance(labels[0], int) and labels[0] > 1 and "n" not in out:
        out["n"] = labels[0]  # "vertices: 8" is a count: a one-vertex set cannot hold any edge
    else:
        out["vertex_set"] = labels
    return out


def _check_present(data: dict[str, Any], gadget: GadgetForm) -> None:
    names = (*gadget.edge_names, *gadget.vertex_names)
    missing = [name for name in names if name not in data]
    if missing:
        if missing[0] in ("e", "f"):
            what = "designated edges" if len(missing) > 1 else "designated edge"
        else:
            what = "designated vertices" if len(missing) > 1 else "designated vertex"
        raise _AnswerError(
            MISSING_ITEM,
            f"the answer is missing the {what} {', '.join(missing)} "
            f"(a {gadget.value} answer needs {', '.join(names)})",
        )


def _natural_key(name: str) -> tuple[Any, ...]:
    return tuple((0, int(p)) if p.isdigit() else (1, p) for p in re.split(r"(\d+)", name) if p) + (
        (2, name),
    )


def _relabel(
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
        raise _AnswerError(
            MALFORMED,
            f"the answer mixes integer and named vertex labels "
            f"(e.g. {min(ints)} and {sorted(names)[0]!r})",
        )
    if names:
        return _named_label_mapping(names, n)
    if ints and 0 not in ints and 1 in ints and (n is None or n == max(ints)):
        return {x: x - 1 for x in ints}, None, ["1-based vertex labels shifted down by one"]
    if n is not None and ints and max(ints) >= n:
        raise _AnswerError(
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
        raise _AnswerError(MALFORMED, f"n = {n} but the answer names {len(ordered)} vertices")
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
        raise _AnswerError(
            MALFORMED, f"vertex {unlisted[0]} is used but not in the listed vertex set"
        )
    return max(mapping[x] for x in listed) + 1


def _read(
    container: _Container, gadget: GadgetForm, max_vertices: int | None
) -> tuple[Candidate, dict[str, int] | None, list[str]]:
    """The candidate a container holds, or :class:`_AnswerError` saying why it has none."""
    max_pairs = None if max_vertices is None else max_vertices * (max_vertices - 1) // 2
    if container.kind == "json":
        data = _normalize_keys(_object_dict(container.text), gadget)
    elif container.kind == "boxed":
        data = _boxed_dict(container.text, gadget, max_pairs)
    else:
        data = _labelled_dict(_labelled_text(container.text, whole=True), gadget, max_pairs)
    raw = _structured(data, gadget, max_pairs)
    _check_present(raw, gadget)
    fields, label_map, notes = _relabel(raw, gadget)
    if max_vertices is not None and fields.get("n", 0) > max_vertices:
        raise _AnswerError(
            TOO_LARGE, f"graph has {fields['n']} vertices, more than the limit of {max_vertices}"
        )
    try:
        candidate = Candidate.from_json(fields, gadget, max_vertices=max_vertices)
    except GraphTooLargeError as exc:
        raise _AnswerError(TOO_LARGE, str(exc)) from None
    except DesignatedItemError as exc:
        raise _AnswerError(MISSING_ITEM if "missing" in str(exc) else MALFORMED, str(exc)) from None
    except GraphFormatError as exc:
        raise _AnswerError(MALFORMED, str(exc)) from None
    return candidate, label_map, notes


_SOURCE_NAMES = {
    "json": "the JSON answer",
    "boxed": "the \\boxed{} answer",
    "fenced-text": "the code-block answer",
    "labelled": "the labelled answer lines",
}


# =============================================================================================
# Public entry point
# =============================================================================================
def parse_answer(
    text: str | None,
    gadget: GadgetForm | Any,
    *,
    reasoning: str | None = None,
    max_vertices: int | None = DEFAULT_MAX_VERTICES,
) -> ParsedAnswer:
    """Read the final answer of a model reply; never raises, never guesses (rules: module docs).

    ``gadget`` is a :class:`GadgetType`, a problem or a gadget name.  ``reasoning`` is a
    separate reasoning field: it is never searched for answers.  Errors name the problem's
    gadget (``green-determiner`` for a determiner of a colour beyond blue).
    """
    name = getattr(gadget, "gadget_name", None)
    gadget = _gadget(gadget)
    try:
        parsed = _parse(text, gadget, reasoning, max_vertices)
    except RecursionError:
        return _failure(MALFORMED, "the answer is nested too deeply to read")
    except (
        Exception
    ) as exc:  # a bug must not stop an evaluation run; tests assert this never happens
        return _failure(MALFORMED, f"internal parser error ({type(exc).__name__}: {exc})")
    if name is not None and name != gadget.value and parsed.error is not None:
        return replace(parsed, error=parsed.error.replace(gadget.value, name))
    return parsed


def _parse(
    text: str | None, gadget: GadgetForm, reasoning: str | None, max_vertices: int | None
) -> ParsedAnswer:
    if not isinstance(text, str) or not text.strip():
        why = "the reply is empty"
        if reasoning:
            why += " (it has only reasoning; answers inside the reasoning are not read)"
        return _failure(NO_ANSWER, why)
    final, notes = strip_reasoning(text)
    if final is None:
        return _failure(
            TRUNCATED,
            f"the reply ends inside its reasoning ({notes[-1]}), before any final answer",
            notes=notes,
        )
    if not final.strip():
        return _failure(NO_ANSWER, "the reply has no text after its reasoning", notes=notes)
    max_pairs = None if max_vertices is None else max_vertices * (max_vertices - 1) // 2
    containers, truncated = _collect(final, gadget, max_pairs)
    if truncated:
        notes.append("an unfinished answer at the end of the reply was skipped (truncated output?)")
    if not containers:
        if truncated:
            return _failure(
                TRUNCATED,
                "the reply ends inside an unfinished answer (truncated output); "
                "no complete answer was given",
                notes=notes,
            )
        return _failure(
            NO_ANSWER,
            'no answer found: the reply has no JSON object with "edges", no '
            "\\boxed{} answer and no 'edges:' line",
            notes=notes,
        )
    chosen = containers[-1]
    if len(containers) > 1:
        notes.append(f"{len(containers)} answers found; the last one was read")
    try:
        candidate, label_map, label_notes = _read(chosen, gadget, max_vertices)
    except _AnswerError as exc:
        return _failure(
            exc.kind,
            f"{exc} (in {_SOURCE_NAMES[chosen.kind]})",
            source=chosen.kind,
            text=chosen.text,
            notes=notes,
        )
    return ParsedAnswer(
        candidate,
        None,
        None,
        chosen.kind,
        chosen.text[:_SNIPPET_CHARS],
        label_map,
        tuple(notes + label_notes),
    )
