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

Modules, one concern each: :mod:`~ramseygadgets.answers.formats` (the answer format, failure
kinds, :class:`ParsedAnswer`), :mod:`~ramseygadgets.answers.containers` (finding the answer in a
reply: rules 1-3), :mod:`~ramseygadgets.answers.labelled` (labelled text),
:mod:`~ramseygadgets.answers.objects` (JSON objects and their fields),
:mod:`~ramseygadgets.answers.values` (edge lists and labels: rule 4),
:mod:`~ramseygadgets.answers.relabel` (rule 5) and :mod:`~ramseygadgets.answers.parse` (the
entry point, rule 6).
"""

from __future__ import annotations

from ramseygadgets.answers.containers import strip_reasoning
from ramseygadgets.answers.formats import (
    ERROR_KINDS,
    MALFORMED,
    MISSING_ITEM,
    NO_ANSWER,
    TOO_LARGE,
    TRUNCATED,
    ParsedAnswer,
    answer_object,
    format_answer,
)
from ramseygadgets.answers.parse import parse_answer
from ramseygadgets.answers.values import (
    Label,
    parse_edge_value,
    parse_label_list,
    parse_label_pairs,
)

__all__ = [
    "ERROR_KINDS",
    "Label",
    "MALFORMED",
    "MISSING_ITEM",
    "NO_ANSWER",
    "ParsedAnswer",
    "TOO_LARGE",
    "TRUNCATED",
    "answer_object",
    "format_answer",
    "parse_answer",
    "parse_label_pairs",
    "parse_edge_value",
    "parse_label_list",
    "strip_reasoning",
]
