"""The public entry point: :func:`parse_answer` reads the final answer of a reply (rules: the
package docs of :mod:`ramseygadgets.answers`)."""

from __future__ import annotations

from dataclasses import replace

from ramseygadgets.answers.containers import Container, collect_containers, strip_reasoning
from ramseygadgets.answers.formats import (
    MALFORMED,
    MISSING_ITEM,
    NO_ANSWER,
    SNIPPET_CHARS,
    TOO_LARGE,
    TRUNCATED,
    AnswerError,
    GadgetLike,
    ParsedAnswer,
    as_gadget,
    failure,
)
from ramseygadgets.answers.labelled import boxed_dict, labelled_dict, labelled_text
from ramseygadgets.answers.objects import (
    check_present,
    normalize_keys,
    object_dict,
    structured_fields,
)
from ramseygadgets.answers.relabel import relabel
from ramseygadgets.core.errors import DesignatedItemError, GraphFormatError, GraphTooLargeError
from ramseygadgets.core.gadgets import Candidate, GadgetForm
from ramseygadgets.core.graphs import DEFAULT_MAX_VERTICES

__all__ = [
    "parse_answer",
]


def _read(
    container: Container, gadget: GadgetForm, max_vertices: int | None
) -> tuple[Candidate, dict[str, int] | None, list[str]]:
    """The candidate a container holds, or :class:`AnswerError` saying why it has none."""
    max_pairs = None if max_vertices is None else max_vertices * (max_vertices - 1) // 2
    if container.kind == "json":
        data = normalize_keys(object_dict(container.text), gadget)
    elif container.kind == "boxed":
        data = boxed_dict(container.text, gadget, max_pairs)
    else:
        data = labelled_dict(labelled_text(container.text, whole=True), gadget, max_pairs)
    raw = structured_fields(data, gadget, max_pairs)
    check_present(raw, gadget)
    fields, label_map, notes = relabel(raw, gadget)
    if max_vertices is not None and fields.get("n", 0) > max_vertices:
        raise AnswerError(
            TOO_LARGE, f"graph has {fields['n']} vertices, more than the limit of {max_vertices}"
        )
    try:
        candidate = Candidate.from_json(fields, gadget, max_vertices=max_vertices)
    except GraphTooLargeError as exc:
        raise AnswerError(TOO_LARGE, str(exc)) from None
    except DesignatedItemError as exc:
        raise AnswerError(MISSING_ITEM if "missing" in str(exc) else MALFORMED, str(exc)) from None
    except GraphFormatError as exc:
        raise AnswerError(MALFORMED, str(exc)) from None
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
    gadget: GadgetLike,
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
    gadget = as_gadget(gadget)
    try:
        parsed = _parse(text, gadget, reasoning, max_vertices)
    except RecursionError:
        return failure(MALFORMED, "the answer is nested too deeply to read")
    except (
        Exception
    ) as exc:  # a bug must not stop an evaluation run; tests assert this never happens
        return failure(MALFORMED, f"internal parser error ({type(exc).__name__}: {exc})")
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
        return failure(NO_ANSWER, why)
    final, notes = strip_reasoning(text)
    if final is None:
        return failure(
            TRUNCATED,
            f"the reply ends inside its reasoning ({notes[-1]}), before any final answer",
            notes=notes,
        )
    if not final.strip():
        return failure(NO_ANSWER, "the reply has no text after its reasoning", notes=notes)
    max_pairs = None if max_vertices is None else max_vertices * (max_vertices - 1) // 2
    containers, truncated = collect_containers(final, gadget, max_pairs)
    if truncated:
        notes.append("an unfinished answer at the end of the reply was skipped (truncated output?)")
    if not containers:
        if truncated:
            return failure(
                TRUNCATED,
                "the reply ends inside an unfinished answer (truncated output); "
                "no complete answer was given",
                notes=notes,
            )
        return failure(
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
    except AnswerError as exc:
        return failure(
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
        chosen.text[:SNIPPET_CHARS],
        label_map,
        tuple(notes + label_notes),
    )
