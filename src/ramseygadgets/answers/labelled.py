"""Labelled text: ``Edges: 0-1, 0-2``, ``e = (0,1)``, ``(i1, i2, i3) = (0, 3, 5)``, in code blocks,
in ``\\boxed{}`` and in prose, turned into answer fields."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ramseygadgets.answers.formats import MALFORMED, AnswerError
from ramseygadgets.answers.objects import EDGES_KEY, normalize_keys, object_dict
from ramseygadgets.answers.values import parse_edge_value, parse_label_list, parse_label_pairs
from ramseygadgets.core.gadgets import GadgetForm

__all__ = [
    "ASSIGNMENT_START",
    "clean_line",
    "label_lines_start",
    "labelled_text",
    "labelled_dict",
    "boxed_dict",
]

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
ASSIGNMENT_START = re.compile(r"(?:" + _LABEL_WORDS + r")[ \t]*(?::|=(?!=))", re.X)
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


def clean_line(line: str) -> str:
    return _DECORATION.sub("", _normalize_latex(line), count=1).strip()


def label_lines_start(body: str) -> bool:
    """Whether a code block begins with a labelled line."""
    for line in body.splitlines():
        if line.strip():
            return bool(ASSIGNMENT_START.match(clean_line(line)))
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


def labelled_text(body: str, *, whole: bool) -> str:
    """Clean the lines of a labelled block; continuation lines belong to the previous label."""
    lines = [line for line in (clean_line(raw) for raw in body.splitlines()) if line]
    if whole and lines and not ASSIGNMENT_START.match(lines[0]):
        raise AnswerError(MALFORMED, "the answer does not start with a label such as 'edges:'")
    return "\n".join(lines)


def labelled_dict(text: str, gadget: GadgetForm, max_pairs: int | None = None) -> dict[str, Any]:
    """Turn ``label = value`` assignments into the answer dict ``{"edges": ..., "e": ...}``."""
    data: dict[str, Any] = {}

    def put(key: str, value: Any) -> None:
        if key in data:
            raise AnswerError(MALFORMED, f"the answer gives {key!r} twice")
        data[key] = value

    for group, label, value in _assignments(text):
        if group == "edges":
            put("edges", [list(p) for p in parse_label_pairs(value, max_pairs)])
        elif group == "n":
            count = parse_label_list(value)
            if len(count) != 1 or not isinstance(count[0], int):
                raise AnswerError(
                    MALFORMED, f"the vertex count must be one integer, got {value[:80]!r}"
                )
            put("n", count[0])
        elif group == "triple":
            labels = parse_label_list(value)
            if not gadget.vertex_names or len(labels) != 3:
                raise AnswerError(MALFORMED, f"{label} must be three vertices, got {value[:80]!r}")
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
                raise AnswerError(
                    MALFORMED, "'designated edge' does not say which edge it is; name them e and f"
                )
            if key in ("e", "f"):
                put(key, list(parse_edge_value(value)))
            else:
                labels = parse_label_list(value)
                if len(labels) != 1:
                    raise AnswerError(
                        MALFORMED, f"designated vertex {key} must be one vertex, got {value[:80]!r}"
                    )
                put(key, labels[0])
    if "edges" not in data:
        raise AnswerError(MALFORMED, "the answer has no edge list")
    return data


def boxed_dict(content: str, gadget: GadgetForm, max_pairs: int | None = None) -> dict[str, Any]:
    """A ``\\boxed{}`` answer: labelled assignments, an escaped JSON object or a bare edge list."""
    text = labelled_text(content, whole=False)
    if ASSIGNMENT_START.match(text):
        return labelled_dict(text, gadget, max_pairs)
    if text.startswith("{") and EDGES_KEY.search(text):
        return normalize_keys(object_dict(text), gadget)
    try:
        return {"edges": [list(p) for p in parse_label_pairs(text, max_pairs)]}
    except AnswerError as exc:
        raise AnswerError(MALFORMED, f"the \\boxed{{}} answer is not a graph: {exc}") from None
