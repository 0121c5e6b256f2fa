"""Helpers shared by the framework integrations (no framework imports here)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ramseygadgets.problems.catalog import in_catalog, split_problem_ids
from ramseygadgets.problems.extended import parse_size_tier
from ramseygadgets.runs.config import dataset_hash
from ramseygadgets.verification.selection import GADGET_TIERS, Selection, select_problems

__all__ = [
    "split_problem_selection",
    "select_for_framework",
    "no_problems_message",
    "problem_set_name",
    "problem_set_record",
    "reasoning_text",
]


def split_problem_selection(
    problems: str | Sequence[str] | None,
) -> tuple[list[str] | None, str | None]:
    """A framework's ``problems`` option as (ids, tier) for :func:`~ramseygadgets.verification.selection.select_problems`.

    ``None``, ``""`` or ``all`` → every problem; ``easy`` / ``hard``, or a size tier such as
    ``9-10`` (of a set that has them: ``extended``) → that tier; otherwise problem ids, as a list
    or one comma-separated string.
    """
    if problems is None:
        return None, None
    items = [problems] if isinstance(problems, str) else list(problems)
    ids = [part for item in items for part in split_problem_ids(str(item))]
    if ids in (["all"], []):
        return None, None
    if len(ids) == 1 and (ids[0] in GADGET_TIERS or parse_size_tier(ids[0]) is not None):
        return None, ids[0]
    return ids, None


def select_for_framework(
    problems: str | Sequence[str] | None = None,
    dataset: str | None = None,
    problem_set: str | None = None,
) -> Selection:
    """The problems a framework task runs: its ``problems`` option (ids or a tier) from the
    problem-set file ``dataset`` or the named set ``problem_set`` (default ``paper``; an id of
    the extended set is found without it, as in ``eval``)."""
    ids, tier = split_problem_selection(problems)
    return select_problems(ids, tier, dataset, problem_set)


def no_problems_message(setting: str) -> str:
    """Why a framework task of ``setting`` has no samples (shared by Inspect and lm-eval)."""
    return (
        f"no selected problem has the {setting} setting (example-hint exists only for K1,3 "
        "problems with a P3 counterpart, size-hint only for problems with a known minimal solution)"
    )


def problem_set_name(selected: Selection, dataset: str | None = None) -> str | None:
    """The problem set a framework run asked, as ``eval`` records it in ``config.json``
    (``problem_set``): ``None`` for a problem-set file (its ``dataset`` names it), else
    ``paper`` (all of the paper's 70), ``extended`` (all of the extended set) or the sources of
    a mixed selection joined by ``+`` (``paper+extended``; ``other`` for problems named by id
    that are in neither set, e.g. a three-colour id outside the extended set)."""
    if dataset is not None:
        return None
    sources: dict[str, None] = {}
    for problem in selected.problems:
        if in_catalog(problem):
            sources["paper"] = None
        elif problem.id in selected.size_tiers:  # every extended problem has a size tier
            sources["extended"] = None
        else:
            sources["other"] = None
    return "+".join(sorted(sources, key=["paper", "extended", "other"].index)) or None


def problem_set_record(
    selected: Selection, settings: Iterable[str], dataset: str | None = None
) -> dict[str, Any]:
    """What a framework task records about its problems for ``ramseygadgets report``, in the
    keys of a run's ``config.json``: ``problem_set`` (:func:`problem_set_name`), ``dataset``
    (the problem-set file, or ``None``) and ``dataset_hash`` (the same hash ``eval`` records
    for these problems and settings: :func:`~ramseygadgets.runs.config.dataset_hash`)."""
    return {
        "problem_set": problem_set_name(selected, dataset),
        "dataset": dataset,
        "dataset_hash": dataset_hash(selected, list(settings)),
    }


def reasoning_text(output: Any) -> str | None:
    """The separate reasoning of an Inspect ``ModelOutput``'s reply (its reasoning content
    blocks, e.g. vLLM's reasoning field), or ``None``."""
    if output is None or not output.choices or isinstance(output.message.content, str):
        return None
    parts = [
        getattr(c, "reasoning", "")
        for c in output.message.content
        if getattr(c, "type", None) == "reasoning"
    ]
    return "\n".join(p for p in parts if p) or None
