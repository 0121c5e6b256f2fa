"""Export the dataset (problems, prompts for every setting, minimal solutions) as JSONL or Parquet.

``export_dataset(out_dir, fmt)`` writes ``problems.<ext>`` (one row per problem; the paper's 70,
or any :class:`~ramseygadgets.verification.selection.Selection` such as ``--set extended``, whose rows
add ``size_tier``),
``prompts.<ext>`` (one row per problem and applicable setting: by default the paper's five,
:data:`~ramseygadgets.prompts.SETTINGS`; ``settings`` chooses others, e.g. ``python``, whose
rows hold the prompt that describes the sandboxed Python tool) and a dataset card
``README.md`` describing every field.  Both tables load with
``datasets.load_dataset("json" | "parquet", data_files=...)``.  Files are written to a temporary
name and renamed, so an interrupted export never leaves a half-written file.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ramseygadgets import __version__
from ramseygadgets.answers import format_answer
from ramseygadgets.core.errors import RamseyGadgetsError
from ramseygadgets.core.gadgets import GadgetType
from ramseygadgets.infra.files import make_output_dir, staged_directory
from ramseygadgets.problems.catalog import Problem, all_problems, in_catalog
from ramseygadgets.problems.solutions import Solution, get_solution
from ramseygadgets.prompts import ALL_SETTINGS, SETTINGS, build_prompt, settings_for
from ramseygadgets.prompts.builder import format_example, render
from ramseygadgets.prompts.profiles import ModelProfile, get_profile
from ramseygadgets.tools.python import PYTHON_SETTING, PythonLimits
from ramseygadgets.verification.basis import PROVEN, Basis

if TYPE_CHECKING:
    from ramseygadgets.problems.solutions import Solution
    from ramseygadgets.verification.selection import Selection

FORMATS = ("jsonl", "parquet")


class ExportError(RamseyGadgetsError):
    """The export cannot be written."""


@dataclass(frozen=True)
class ExportResult:
    out_dir: Path
    files: dict[str, Path]
    counts: dict[str, int]

    def to_json(self) -> dict[str, Any]:
        return {
            "out_dir": str(self.out_dir),
            "files": {k: str(v) for k, v in self.files.items()},
            "counts": self.counts,
        }


def _solution(problem: Problem, problem_set: Selection | None = None) -> Solution:
    """The minimal solution ``problem_set`` holds (method: the set's name), else the shipped one
    (the paper's 70 in the paper's set)."""

    if problem_set is not None and (problem_set.source != "catalog" or not in_catalog(problem)):
        candidate = problem_set.solution(problem)
        if candidate is None:
            raise ExportError(f"cannot export: {problem.id} has no minimal solution in the set")
        return Solution(problem.id, candidate, f"{problem_set.source} set", {})
    try:
        return get_solution(problem.id)
    except RamseyGadgetsError:
        raise ExportError(f"cannot export: no shipped minimal solution for {problem.id}") from None


def optimum_basis(problem: Problem, problem_set: Selection | None = None) -> Basis | None:
    """What the exported solution's minimality rests on (:mod:`ramseygadgets.verification.basis`): proven for
    the paper's 70, the set's re-checked basis otherwise; ``None``: only the best known
    solution (no proven optimum, or a disputed one)."""
    if problem_set is None or (problem_set.source == "catalog" and in_catalog(problem)):
        return PROVEN
    optimum = problem_set.optimum(problem)
    return None if optimum is None else optimum.basis


def chosen_settings(settings: Sequence[str] | None = None) -> tuple[str, ...]:
    """The settings an export holds, in :data:`ALL_SETTINGS` order: the paper's five by default."""
    if settings is None:
        return SETTINGS
    unknown = [s for s in settings if s not in ALL_SETTINGS]
    if unknown:
        raise ExportError(
            f"unknown setting {unknown[0]!r}; expected one of {', '.join(ALL_SETTINGS)}"
        )
    if not settings:
        raise ExportError("no setting to export")
    return tuple(s for s in ALL_SETTINGS if s in settings)


def _settings_of(problem: Problem, size: int, settings: Sequence[str] | None) -> list[str]:
    """The chosen settings that apply to ``problem`` (example-hint needs a counterpart)."""
    chosen = chosen_settings(settings)
    return [s for s in settings_for(problem, min_vertices=size, extra=True) if s in chosen]


def problem_row(
    problem: Problem,
    problem_set: Selection | None = None,
    settings: Sequence[str] | None = None,
) -> dict[str, Any]:
    """One row of ``problems``: the problem (:meth:`Problem.fields`), every colour's pattern as
    an edge list, and its minimal solution (fixed schema; ``F``, ``H``, ``F_edges``, ``H_edges``
    are null unless the problem is a pair; sets with size tiers add ``size_tier``);
    ``settings``: those of the export that apply (default: of the paper's five)."""
    solution = _solution(problem, problem_set)
    basis = optimum_basis(problem, problem_set)
    designated = solution.candidate.designated
    kind = problem.kind
    names = (*kind.edge_names, *kind.vertex_names)
    edges = dict(zip(kind.edge_names, designated.edges))
    pair = problem.is_pair
    row = {
        "id": problem.id,
        "title": problem.title,
        **problem.fields(),
        "tier": problem.tier,
        "F_edges": [list(e) for e in problem.F.graph.edges] if pair else None,
        "H_edges": [list(e) for e in problem.H.graph.edges] if pair else None,
        "colors_edges": [[list(e) for e in p.graph.edges] for p in problem.patterns],
        "designated": list(names),
        "settings": _settings_of(problem, solution.n, settings),
        "min_vertices": solution.n,
        "min_edges": solution.m if basis is not None and basis.edges_proven else None,
        "optimum_rests_on": "not proven (best known)" if basis is None else basis.phrase(),
        "solution_edges": [list(e) for e in solution.candidate.graph.edges],
        "solution_e": list(edges["e"]) if "e" in edges else None,
        "solution_f": list(edges["f"]) if "f" in edges else None,
        "solution_vertices": list(designated.vertices) if designated.vertices else None,
        "solution_method": solution.method,
    }
    if problem_set is not None and problem_set.size_tiers:
        row["size_tier"] = problem_set.size_tiers.get(problem.id)
    return row


def prompt_rows(
    problem: Problem,
    profile: ModelProfile,
    problem_set: Selection | None = None,
    settings: Sequence[str] | None = None,
) -> list[dict[str, Any]]:
    """The rows of ``prompts`` for one problem: one per applicable setting of ``settings``
    (default: the paper's five), text tool mode (python: the default :class:`PythonLimits`)."""
    solution = _solution(problem, problem_set)
    reference = format_answer(solution.candidate, problem.kind)
    rows = []
    for setting in _settings_of(problem, solution.n, settings):
        prompt = build_prompt(problem, setting, profile, min_vertices=solution.n)
        by_role = {m["role"]: m["content"] for m in prompt.messages}
        rows.append(
            {
                "id": f"{problem.id}/{setting}",
                "problem_id": problem.id,
                "setting": setting,
                **problem.fields(),
                "tier": problem.tier,
                "messages": [{"role": m["role"], "content": m["content"]} for m in prompt.messages],
                "system": by_role.get("system"),
                "user": by_role["user"],
                "assistant_prefix": prompt.assistant_prefix,
                "rounds": prompt.rounds,
                "min_vertices": solution.n,
                "reference_answer": reference,
            }
        )
    return rows


def _write_jsonl(rows: Sequence[dict[str, Any]], path: Path) -> None:
    """A new file of the staging folder (:func:`export_dataset`)."""
    with path.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")


def _write_parquet(rows: Sequence[dict[str, Any]], path: Path) -> None:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise ExportError(
            "Parquet export needs pyarrow: pip install 'ramseygadgets[parquet]'"
        ) from None
    table = pa.Table.from_pylist(list(rows))
    pq.write_table(table, path)


def export_dataset(
    out_dir: str | Path,
    fmt: str = "jsonl",
    *,
    profile: ModelProfile | str | None = None,
    problems: Sequence[Problem] | None = None,
    problem_set: Selection | None = None,
    progress: Callable[[int, int], None] | None = None,
    settings: Sequence[str] | None = None,
) -> ExportResult:
    """Write ``problems``, ``prompts`` and ``README.md`` to ``out_dir`` (created if needed).

    ``problems`` default to all of ``problem_set``, else the paper's 70; each needs a minimal
    solution, from ``problem_set`` or shipped.  Every row has ``colors`` (problem rows also
    ``colors_edges``), with ``F`` and ``H`` for two-colour problems.  ``settings``: the
    settings whose prompts are exported (default: the paper's five; ``python`` is one of
    :data:`ALL_SETTINGS`)."""
    if fmt not in FORMATS:
        raise ExportError(f"unknown export format {fmt!r}; expected jsonl or parquet")
    chosen = chosen_settings(settings)
    profile = get_profile(profile)
    if problems is None:
        problems = problem_set.problems if problem_set is not None else all_problems()
    problems = list(problems)
    out = make_output_dir(out_dir, "the export directory", ExportError)
    problem_table, prompt_table = _tables(problems, profile, problem_set, chosen, progress)
    files = {
        "problems": out / f"problems.{fmt}",
        "prompts": out / f"prompts.{fmt}",
        "card": out / "README.md",
    }
    counts = _card_counts(problem_table, len(prompt_table))
    card = _card(fmt, files, counts, chosen, profile)
    writer = _write_jsonl if fmt == "jsonl" else _write_parquet
    try:
        with staged_directory(out) as stage:  # every file or none replaces the old export
            writer(problem_table, stage / files["problems"].name)
            writer(prompt_table, stage / files["prompts"].name)
            (stage / files["card"].name).write_text(card + "\n", encoding="utf-8")
    except OSError as exc:
        raise ExportError(
            f"cannot write the export to {out}: {exc.strerror or exc}; the files there before "
            "(if any) are unchanged"
        ) from None
    return ExportResult(out, files, counts)


def _tables(
    problems: list[Problem],
    profile: ModelProfile,
    problem_set: Selection | None,
    settings: Sequence[str],
    progress: Callable[[int, int], None] | None,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The ``problems`` table (one row per problem) and the ``prompts`` table (one row per
    problem and setting)."""
    problem_table: list[dict[str, Any]] = []
    prompt_table: list[dict[str, Any]] = []
    for index, problem in enumerate(problems):
        problem_table.append(problem_row(problem, problem_set, settings))
        prompt_table.extend(prompt_rows(problem, profile, problem_set, settings))
        if progress is not None:
            progress(index + 1, len(problems))
    return problem_table, prompt_table


def _card_counts(problem_table: list[dict[str, Any]], prompts: int) -> dict[str, int]:
    """The dataset card's figures, counted from the rows written beside it."""
    sizes = [row["min_vertices"] for row in problem_table]
    return {
        "problems": len(problem_table),
        "prompts": prompts,
        "easy": sum(r["tier"] == "easy" for r in problem_table),
        "hard": sum(r["tier"] == "hard" for r in problem_table),
        "example": sum("example-hint" in r["settings"] for r in problem_table),
        "proven": sum(r["optimum_rests_on"] == "proven" for r in problem_table),
        "min_n": min(sizes, default=0),
        "max_n": max(sizes, default=0),
    }


def _card(
    fmt: str,
    files: dict[str, Path],
    counts: dict[str, int],
    settings: Sequence[str],
    profile: ModelProfile,
) -> str:
    """The dataset card (``README.md``) from its template."""
    return render(
        "dataset_card.md.j2",
        files={k: v.name for k, v in files.items()},
        fmt=fmt,
        loader="json" if fmt == "jsonl" else "parquet",
        version=__version__,
        counts=counts,
        settings=settings,
        python_rounds=PythonLimits().rounds if PYTHON_SETTING in settings else None,
        profile=profile.name,
        profile_note=profile.description.strip().rstrip("."),
        format_example=format_example(GadgetType.RED_DETERMINER),
    )


__all__ = [
    "FORMATS",
    "ExportError",
    "ExportResult",
    "chosen_settings",
    "export_dataset",
    "problem_row",
    "prompt_rows",
]
