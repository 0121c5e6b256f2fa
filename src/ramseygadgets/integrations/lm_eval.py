"""lm-evaluation-harness glue: the dataset builder and ``process_results`` behind the task YAMLs.

The task folder ships inside the package (``ramseygadgets/integrations/lm_eval_tasks/``; print
it with ``python -m ramseygadgets.integrations.lm_eval``) and holds one YAML per single-turn
setting (``ramsey_gadgets_zero_shot``, ``…_structural_hint``, ``…_size_hint``,
``…_example_hint``; all four under the tag ``ramsey_gadgets``) and a ``utils.py`` that
re-exports the functions below.  The multiround setting needs a tool loop between model calls,
which lm-eval's single-request ``generate_until`` cannot express; use Inspect or
``ramseygadgets eval`` for it.

* :func:`load_dataset` builds a ``datasets.DatasetDict`` with one ``test`` row per problem (the
  YAML's ``custom_dataset``).  Rows hold the project's prompt split into ``system`` (the YAML's
  ``description``) and ``user`` (``doc_to_text``), plus the problem fields.  Options come from
  ``lm_eval --metadata '{"profile": "qwen3-235b", "problems": "easy"}'``: ``profile``,
  ``profiles_file``, ``problems`` (``all``, a tier or ids), ``problem_set`` (``paper`` or
  ``extended``, as ``eval --set``) or ``dataset`` (a problem-set file).  A task whose setting
  no selected problem has (example-hint for three-colour problems, size-hint for a file
  without solutions) stops the run with :class:`NoDocumentsError`, which names the tasks to
  run instead: lm-eval refuses a task without documents (``ConfigurableTask`` reads the first
  document when it is built, and ``build_all_requests`` raises on none) and has no way to leave
  one out of a tag.
* :func:`process_results` parses the generation with the project's parser and verifies it
  exactly: ``acc`` (1 when correct) and ``parse_failure`` (1 when no answer could be read); for
  a correct answer on a problem with a proven optimum (the row's ``optimum_vertices`` and
  ``optimum_edges``, :meth:`~ramseygadgets.verification.selection.Selection.optimum`) also ``minimal`` (1
  when it has the optimum's vertex count) and ``excess_vertices`` (its vertices above it), the
  size grade of ``eval``'s samples (:class:`~ramseygadgets.runs.sizes.SizeGrade`).  Other
  documents leave these two keys out: lm-eval averages each metric over the documents that
  return it (and warns that the counts differ), so a wrong answer or a problem without a proof
  is never counted as 0; a run without any such document has no ``minimal`` at all.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from ramseygadgets.integrations import lm_eval_include_path
from ramseygadgets.integrations.common import (
    no_problems_message,
    select_for_framework,
)
from ramseygadgets.problems.problem import Problem
from ramseygadgets.prompts import build_prompt, settings_for
from ramseygadgets.prompts.profiles import get_profile
from ramseygadgets.runs.grading import grade
from ramseygadgets.runs.sizes import SizeGrade, optimum_of
from ramseygadgets.verification.selection import Selection

__all__ = [
    "LM_EVAL_SETTINGS",
    "task_name",
    "NoDocumentsError",
    "dataset_rows",
    "tasks_with_documents",
    "load_dataset",
    "process_results",
    "main",
]


#: The settings lm-eval can run (one model call per sample), with their task names.
LM_EVAL_SETTINGS = ("zero-shot", "structural-hint", "size-hint", "example-hint")


def task_name(setting: str) -> str:
    return "ramsey_gadgets_" + setting.replace("-", "_")


def _split_prompt(messages: Sequence[dict[str, Any]]) -> tuple[str, str]:
    """(system text, user text) of a single-turn prompt; later user turns are joined to the first."""
    system = [str(m.get("content") or "") for m in messages if m.get("role") == "system"]
    other = [m for m in messages if m.get("role") != "system"]
    if not other or any(m.get("role") != "user" for m in other):
        roles = ", ".join(str(m.get("role")) for m in messages)
        raise ValueError(f"lm-eval needs a system + user prompt, got roles {roles}")
    return "\n\n".join(system), "\n\n".join(str(m.get("content") or "") for m in other)


def dataset_rows(
    setting: str,
    problems: str | Sequence[str] | None = None,
    *,
    profile: str | None = None,
    profiles_file: str | None = None,
    dataset: str | None = None,
    problem_set: str | None = None,
) -> list[dict[str, Any]]:
    """One row per selected problem for which ``setting`` exists (see module docs); none when
    no selected problem has it."""

    _check_setting(setting)
    chosen = None
    if profile is not None:
        chosen = get_profile(profile, profiles_file=profiles_file)
    selected = select_for_framework(problems, dataset, problem_set)
    return _rows(selected, setting, chosen)


def _check_setting(setting: str) -> None:
    if setting not in LM_EVAL_SETTINGS:
        raise ValueError(
            f"lm-eval runs the settings {', '.join(LM_EVAL_SETTINGS)}; got {setting!r}"
            + (
                " (multiround needs a tool loop: use Inspect or ramseygadgets eval)"
                if setting == "multiround"
                else ""
            )
        )


def _rows(selected: Selection, setting: str, chosen: Any) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for problem in selected.problems:
        size = selected.min_vertices(problem)
        if setting not in settings_for(problem, min_vertices=size):
            continue
        prompt = build_prompt(problem, setting, chosen, min_vertices=size)
        system, user = _split_prompt(prompt.messages)
        optimum = selected.optimum(problem)
        rows.append(
            {
                "problem_id": problem.id,
                "setting": setting,
                **problem.fields(),
                "tier": problem.tier,
                "min_vertices": size,
                "optimum_vertices": None if optimum is None else optimum.vertices,
                "optimum_edges": None if optimum is None else optimum.edges,
                "optimum_rests_on": None if optimum is None else optimum.basis.phrase(),
                "system": system,
                "user": user,
            }
        )
    return rows


def tasks_with_documents(selected: Selection) -> list[str]:
    """The task names whose setting at least one problem of ``selected`` has."""
    found = {
        s
        for problem in selected.problems
        for s in settings_for(problem, min_vertices=selected.min_vertices(problem))
    }
    return [task_name(s) for s in LM_EVAL_SETTINGS if s in found]


class NoDocumentsError(ValueError):
    """A task whose setting no selected problem has (lm-eval needs at least one document)."""


def load_dataset(
    setting: str = "zero-shot",
    problems: str | Sequence[str] | None = None,
    profile: str | None = None,
    profiles_file: str | None = None,
    dataset: str | None = None,
    problem_set: str | None = None,
    **_ignored: Any,
) -> Any:
    """The YAML's ``custom_dataset``: a ``DatasetDict`` with a ``test`` split.

    lm-eval calls it with the task's ``metadata`` (``version`` and whatever ``--metadata`` adds)
    and ``dataset_kwargs`` (the setting) as keyword arguments; unknown ones are ignored.  A
    selection without a problem of this setting raises :class:`NoDocumentsError` naming the
    tasks that have documents (lm-eval cannot run a task without documents, nor leave one out
    of the tag ``ramsey_gadgets``).
    """
    import datasets

    _check_setting(setting)
    chosen = None if profile is None else get_profile(profile, profiles_file=profiles_file)
    selected = select_for_framework(problems, dataset, problem_set)
    rows = _rows(selected, setting, chosen)
    if not rows:
        raise NoDocumentsError(_no_documents(setting, selected))
    return datasets.DatasetDict({"test": datasets.Dataset.from_list(rows)})


def _no_documents(setting: str, selected: Selection) -> str:
    others = tasks_with_documents(selected)
    advice = (
        f"; lm-eval cannot run a task without documents, so name the tasks that have them "
        f"instead of the tag ramsey_gadgets: --tasks {','.join(others)}"
        if others
        else ""
    )
    return f"{task_name(setting)}: {no_problems_message(setting)}{advice}"


def process_results(doc: dict[str, Any], results: Sequence[str]) -> dict[str, float]:
    """lm-eval's per-document scoring: parse the (first) generation and verify it exactly;
    ``minimal`` and ``excess_vertices`` only where they are defined (module docs)."""

    reply = results[0] if results else ""
    verdict = grade(Problem.from_json(doc), reply if isinstance(reply, str) else str(reply), None)
    out = {
        "acc": 1.0 if verdict.correct else 0.0,
        "parse_failure": 1.0 if verdict.parse_error is not None else 0.0,
    }
    sizes = SizeGrade.of(verdict, optimum_of(doc))
    if sizes.minimal is not None and sizes.excess_vertices is not None:
        out["minimal"] = 1.0 if sizes.minimal else 0.0
        out["excess_vertices"] = float(sizes.excess_vertices)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m ramseygadgets.integrations.lm_eval``: print the ``--include_path`` folder."""
    print(lm_eval_include_path())
    return 0


if __name__ == "__main__":
    sys.exit(main())
