"""Finding the answer in a reply: reasoning skipped, code blocks, JSON objects with an edges key,
``\\boxed{}`` groups and labelled prose, in one linear scan."""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable
from dataclasses import dataclass

from ramseygadgets.answers.formats import AnswerError
from ramseygadgets.answers.labelled import (
    ASSIGNMENT_START,
    clean_line,
    label_lines_start,
    labelled_dict,
    labelled_text,
)
from ramseygadgets.answers.objects import EDGES_KEY
from ramseygadgets.core.gadgets import GadgetForm

__all__ = [
    "strip_reasoning",
    "Container",
    "collect_containers",
]

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
class Container:
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


_Open = tuple[int, int, str | None]  # (start, content_start, command) of an open group
_Group = tuple[int, int, int, str | None]  # (start, content_start, end, command)


def _brace_containers(text: str) -> tuple[list[Container], bool]:
    """JSON objects with an edges key and outermost ``\\boxed{}`` groups, in linear time.

    Braces are matched with one stack (an unmatched ``{`` is ignored).  ``{`` opened by a
    LaTeX command (``\\boxed{``, ``\\text{``) is transparent for JSON: an object inside it is
    outermost.  ``\\{`` / ``\\}`` are LaTeX set braces, not groups.  Also reports whether an
    unterminated ``\\boxed{`` or edges object runs into the end of the text (truncation).
    """
    has_key = EDGES_KEY.search(text) is not None
    if not has_key and "\\boxed" not in text and "\\fbox" not in text:
        return [], False
    groups, unclosed = _brace_groups(text)
    return _outermost_containers(text, groups), _runs_to_end(text, unclosed)


def _brace_groups(text: str) -> tuple[list[_Group], list[_Open]]:
    """The closed brace groups in order of their start, and the groups left open at the end."""
    stack: list[_Open] = []
    groups: list[_Group] = []
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
    return groups, stack


def _outermost_containers(text: str, groups: list[_Group]) -> list[Container]:
    """Outermost plain groups holding an edges key, then outermost boxes not around one."""
    objects: list[Container] = []
    boxes: list[Container] = []
    object_end = box_end = -1
    for start, content, end, command in groups:
        if command is None and start >= object_end:
            object_end = end
            body = text[start:end]
            if EDGES_KEY.search(body):
                objects.append(Container(start, end, "json", body))
        elif command in _BOX_COMMANDS and start >= box_end:
            box_end = end
            boxes.append(Container(start, end, "boxed", text[content : end - 1]))
    spans = [(c.start, c.end) for c in objects]
    return objects + [b for b in boxes if not _contains(spans, b.start, b.end)]


def _runs_to_end(text: str, unclosed: list[_Open]) -> bool:
    """Whether an unclosed ``\\boxed{`` or an unclosed object with an edges key after it runs
    into the end of the text."""
    if not unclosed:
        return False
    last_plain = next((s for s, _c, cmd in reversed(unclosed) if cmd is None), None)
    return any(cmd in _BOX_COMMANDS for _s, _c, cmd in unclosed) or (
        last_plain is not None and EDGES_KEY.search(text, last_plain) is not None
    )


def collect_containers(
    text: str, gadget: GadgetForm, max_pairs: int | None
) -> tuple[list[Container], bool]:
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
        if not label_lines_start(body):
            continue
        if not fence.closed:
            truncated = True
            continue
        try:  # a code block is an answer only when all of it is a labelled answer
            labelled_dict(labelled_text(body, whole=True), gadget, max_pairs)
        except AnswerError:
            continue
        containers.append(Container(fence.start, fence.end, "fenced-text", body))
    if not containers:
        containers = _prose_groups(scan, fences)
    containers.sort(key=lambda c: c.end)
    return containers, truncated


def _prose_groups(text: str, fences: list[_Fence]) -> list[Container]:
    """Runs of consecutive labelled lines outside code blocks that include an edge list."""
    groups: list[Container] = []
    current: list[tuple[int, int, str, str]] = []

    def flush() -> None:
        if not current:
            return
        if any(group == "edges" for _, _, _, group in current):
            groups.append(
                Container(
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
        line = clean_line(raw)
        if not line:
            continue
        match = ASSIGNMENT_START.match(line)
        if match is None:
            flush()
        else:
            current.append((start, offset, line, match.lastgroup or ""))
    flush()
    return groups
