"""Grades by distance to the optimum in the report: the minimal rate and the mean excess per
model, setting and tier (table ``optimum``), and the discoveries (table ``discoveries`` and
``discoveries.jsonl``).

* **Minimal rate**: among the correct samples graded against a *proven* optimum (``graded``, the
  denominator, shown beside every rate), the share with as few vertices as the optimum; 95 %
  interval: the percentile bootstrap over problems the accuracy uses
  (:func:`~ramseygadgets.runs.stats.size_stats`).  **Mean excess**: vertices and edges above the
  optimum, over the same samples.  Both are re-derived by the report (:mod:`.regrade`) against
  the proven optimum of the run's problem set, never read from the records.  Nothing graded (no
  proven optimum) shows "—", never 0.
* **Discoveries**: every sample whose re-derived ``discovery`` is set (a correct answer smaller
  than the best known solution of a problem without a proven optimum, ``new-best-known``, or
  below a proven optimum, ``contradicts-proof``).  Its status is ``discovery`` only when the
  independent recheck, run again by the report (:mod:`.regrade`), agrees; otherwise (it
  disagrees, or no second method applied) it is ``disputed``.  What ``samples.jsonl`` claims
  is never taken: a recorded discovery or recheck that disagrees is in the table ``disputed``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ramseygadgets.report.metrics import CellStats, problem_sort_key, row_label
from ramseygadgets.report.runs import Run, Sample, setting_sort_key
from ramseygadgets.report.tables import Column, Record, Table, fmt_ci, fmt_number, stats_record
from ramseygadgets.verification.selection import Selection

__all__ = [
    "DISCOVERIES_FILE",
    "DISPUTED",
    "CONFIRMED",
    "Discovery",
    "find_discoveries",
    "discoveries_jsonl",
    "discoveries_table",
    "optimum_table",
]

#: Written next to the report: one JSON object per discovery (confirmed or disputed).
DISCOVERIES_FILE = "discoveries.jsonl"
#: A discovery's status: its recheck agrees, or not (disagrees, or no second method applied).
CONFIRMED, DISPUTED = "discovery", "disputed"


#: The label of answers on the vertex optimum whose optimum is not proven in full.
MINIMAL_IN_VERTICES = "minimal in vertices only"


def _text(title: str, key: str) -> Column:
    return Column(title, lambda r: str(r.get(key, "")), lambda r: r.get(key), numeric=False)


def _minimal_text(record: Record) -> str:
    rate = record.get("minimal_pct")
    if rate is None:
        return "—"
    text = f"{rate:.2f} ({record['n_minimal']}/{record['graded']})"
    in_vertices = record.get("n_minimal_in_vertices")
    if in_vertices:
        text += f"; {in_vertices} {MINIMAL_IN_VERTICES}"
    return text


#: The columns of the grades, shared with the leaderboard.
SIZE_COLUMNS = (
    Column("Minimal % (of graded)", _minimal_text, lambda r: r.get("minimal_pct")),
    Column(
        "Minimal 95% CI", lambda r: fmt_ci(r, "minimal_ci"), lambda r: r.get("minimal_ci_low_pct")
    ),
    Column(
        "Mean excess vertices",
        lambda r: fmt_number(r.get("mean_excess_vertices")),
        lambda r: r.get("mean_excess_vertices"),
    ),
    Column(
        "Mean excess edges",
        lambda r: fmt_number(r.get("mean_excess_edges")),
        lambda r: r.get("mean_excess_edges"),
    ),
)


def optimum_table(
    stats: Sequence[CellStats], by_tier: Sequence[Sequence[tuple[object, CellStats]]]
) -> Table:
    """One row per model and setting (tier ``all``) and per tier; ``by_tier`` holds, per cell
    of ``stats``, its statistics per tier (:func:`~ramseygadgets.report.metrics.breakdown`)."""
    records: list[Record] = []
    for st, tiers in zip(stats, by_tier, strict=True):
        records.append(stats_record(st, tier="all"))
        for tier, sub in tiers:
            records.append(stats_record(sub, tier="unknown" if tier is None else str(tier)))
    columns = [
        _text("Model", "model"),
        _text("Setting", "setting"),
        _text("Tier", "tier"),
        Column("Correct", lambda r: str(r["n_correct"]), lambda r: r["n_correct"]),
        Column("Graded", lambda r: str(r["graded"]), lambda r: r["graded"]),
        *SIZE_COLUMNS,
    ]
    caption = (
        "Per model, setting and tier, over the correct answers graded against an optimum "
        "(Graded: the denominator, every one of them, whatever is known of the optimum's edges). "
        "Minimal: as few vertices as an optimum proven in full (vertex bound and edge count); an "
        f"answer on the vertex optimum of one that is not (edge count unproven, or a bound that "
        f"holds as far as its cube log does) is counted as '{MINIMAL_IN_VERTICES}', never as "
        "minimal; an answer above it is not minimal, with its vertex excess. 95% CI: percentile "
        "bootstrap over problems, as for accuracy. Mean excess: vertices above the optimum, edges "
        "above a proven edge count (of the run's problem set, re-derived by this report). — : "
        "nothing graded (no optimum)."
    )
    return Table("optimum", "Grades by distance to the optimum", caption, columns, records)


# ---------------------------------------------------------------------------------------------
# Discoveries
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Discovery:
    """One sample whose correct answer is below the best known solution or a proven optimum."""

    problem_id: str
    model: str
    setting: str
    run: int
    source: str
    kind: str
    candidate: tuple[int | None, int | None]
    best_known: tuple[int, int] | None
    optimum: tuple[int, int | None] | None
    recheck_method: str | None
    recheck_agrees: bool | None
    answer: dict[str, Any] | None

    @property
    def status(self) -> str:
        return CONFIRMED if self.recheck_agrees is True else DISPUTED

    def to_json(self) -> dict[str, Any]:
        recheck = (
            None
            if self.recheck_method is None
            else {"method": self.recheck_method, "agrees": self.recheck_agrees}
        )
        best, optimum = self.best_known, self.optimum
        return {
            "problem_id": self.problem_id,
            "model": self.model,
            "setting": self.setting,
            "run": self.run,
            "source": self.source,
            "status": self.status,
            "discovery": self.kind,
            "candidate_vertices": self.candidate[0],
            "candidate_edges": self.candidate[1],
            "best_known_vertices": None if best is None else best[0],
            "best_known_edges": None if best is None else best[1],
            "optimum_vertices": None if optimum is None else optimum[0],
            "optimum_edges": None if optimum is None else optimum[1],
            "recheck": recheck,
            "candidate": self.answer,
        }


def _recheck(sample: Sample) -> tuple[str | None, bool | None]:
    data = sample.record.get("recheck")
    if not isinstance(data, dict):
        return None, None
    method, agrees = data.get("method"), data.get("agrees")
    return (
        method if isinstance(method, str) else None,
        agrees if isinstance(agrees, bool) else None,
    )


def _best_known(problem_id: str, sets: Sequence[Selection]) -> tuple[int, int] | None:
    """The best known solution's size in the first set that has the problem."""
    for problems in sets:
        problem = problems.by_id.get(problem_id)
        if problem is not None:
            solution = problems.solution(problem)
            return None if solution is None else (solution.graph.n, solution.graph.m)
    return None


def find_discoveries(runs: Sequence[Run], problems: Selection | None) -> list[Discovery]:
    """Every sample of ``runs`` with a ``discovery`` (as the report re-derived it,
    :mod:`.regrade`); the best known sizes are those of the problem set the run was asked from
    (``run.problem_set``), else of ``problems`` (the report's problem set)."""
    found: list[Discovery] = []
    for run in runs:
        model = row_label(run)
        sets = [s for s in (run.problem_set, problems) if s is not None]
        for sample in run.samples:
            kind = sample.discovery
            if kind is None:
                continue
            sizes = sample.sizes
            optimum = sizes.optimum
            method, agrees = _recheck(sample)
            found.append(
                Discovery(
                    problem_id=sample.problem_id,
                    model=model,
                    setting=sample.setting,
                    run=sample.run,
                    source=run.source,
                    kind=kind,
                    candidate=(sizes.vertices, sizes.edges),
                    best_known=_best_known(sample.problem_id, sets),
                    optimum=None if optimum is None else (optimum.vertices, optimum.edges),
                    recheck_method=method,
                    recheck_agrees=agrees,
                    answer=sample.candidate,
                )
            )
    found.sort(
        key=lambda d: (problem_sort_key(d.problem_id), d.model, setting_sort_key(d.setting), d.run)
    )
    return found


def discoveries_jsonl(discoveries: Sequence[Discovery]) -> str:
    """The ``discoveries.jsonl`` text: one object per discovery (:meth:`Discovery.to_json`)."""
    return "".join(json.dumps(d.to_json(), allow_nan=False) + "\n" for d in discoveries)


def _size(n: int | None, m: int | None) -> str:
    return "—" if n is None or m is None else f"{n} vertices, {m} edges"


def _recheck_text(record: Record) -> str:
    method, agrees = record.get("recheck_method"), record.get("recheck_agrees")
    if method is None:
        return "— (not rechecked)"
    verdict = "agrees" if agrees is True else "DISAGREES" if agrees is False else "not decided"
    return f"{method}: {verdict}"


def discoveries_table(discoveries: Sequence[Discovery]) -> Table:
    """One row per discovery; a disputed one is shown as disputed, never as a discovery."""
    records: list[Record] = []
    for d in discoveries:
        data = d.to_json()
        records.append(
            {
                "problem": d.problem_id,
                "model": d.model,
                "setting": d.setting,
                "run": d.run,
                "status": d.status,
                "discovery": d.kind if d.status == CONFIRMED else f"{d.kind} (claimed)",
                **{k: v for k, v in data.items() if k.endswith(("_vertices", "_edges"))},
                "recheck_method": d.recheck_method,
                "recheck_agrees": d.recheck_agrees,
                "source": d.source,
            }
        )

    def size(prefix: str) -> Column:
        return Column(
            prefix.replace("_", " ").capitalize(),
            lambda r: _size(r.get(f"{prefix}_vertices"), r.get(f"{prefix}_edges")),
            lambda r: r.get(f"{prefix}_vertices"),
            numeric=False,
        )

    columns = [
        _text("Problem", "problem"),
        _text("Model", "model"),
        _text("Setting", "setting"),
        Column("Run", lambda r: str(r["run"]), lambda r: r["run"]),
        _text("Status", "status"),
        _text("Kind", "discovery"),
        size("candidate"),
        size("best_known"),
        size("optimum"),
        Column("Recheck", _recheck_text, lambda r: r.get("recheck_method"), numeric=False),
    ]
    confirmed = sum(1 for d in discoveries if d.status == CONFIRMED)
    caption = (
        f"{confirmed} discovery(ies), {len(discoveries) - confirmed} disputed. A correct answer "
        "smaller (fewer vertices, then fewer edges) than the best known solution of a problem "
        "without a proven optimum (new-best-known), or than a proven optimum (contradicts-proof), "
        "re-verified by this report with an independent method (brute force, else the other SAT "
        "encoding). Disputed: the recheck did not agree or none applied. Every one, with its "
        "graph, is in "
        f"{DISCOVERIES_FILE}."
    )
    if not discoveries:
        caption = "None: no correct answer is smaller than the best known solution or optimum."
    return Table("discoveries", "Discoveries", caption, columns, records)
