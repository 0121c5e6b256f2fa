"""The output folder of a generation run (:class:`ProblemSetWriter`): its plan, its
checkpoint and the files written from it (see :mod:`ramseygadgets.problemsets`)."""

from __future__ import annotations

import json
import os
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from ramseygadgets.infra.files import (
    atomic_write,
    lock_directory,
    make_output_dir,
    staged_directory,
)
from ramseygadgets.problems.problem import PROBLEM_SCHEMA_VERSION
from ramseygadgets.problemsets.base import (
    LEGACY_MULTICOLOR_FILE,
    MANIFEST_FILE,
    PLAN_FILE,
    PROBLEMS_FILE,
    RESULTS_FILE,
    SOLUTIONS_FILE,
    ProblemSetError,
)
from ramseygadgets.problemsets.plan import ProblemSetPlan
from ramseygadgets.problemsets.records import (
    PARSE_ERRORS,
    check_record,
    export_row,
    problem_json,
    problem_of_record,
    strongest,
)
from ramseygadgets.problemsets.results import append_record, read_results_file, repair_torn_tail

__all__ = ["ProblemSetWriter"]


def _plan_json(plan: ProblemSetPlan, requests: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "schema_version": PROBLEM_SCHEMA_VERSION,
        "requests": requests,
        "problems": [problem_json(p) for p in plan.problems],
        "skipped": plan.skipped,
    }


def _describe_difference(folder: ProblemSetPlan, plan: ProblemSetPlan) -> str:
    mine, theirs = set(folder.ids), set(plan.ids)
    new = [pid for pid in plan.ids if pid not in mine]
    gone = [pid for pid in folder.ids if pid not in theirs]
    parts = []
    if new:
        parts.append(f"{len(new)} not in the folder (first: {new[0]})")
    if gone:
        parts.append(f"{len(gone)} of the folder's not planned (first: {gone[0]})")
    return "; ".join(parts)


def _merged(folder: ProblemSetPlan, plan: ProblemSetPlan) -> ProblemSetPlan:
    """The folder's problems, then the new ones of ``plan`` (``--extend``)."""
    known = set(folder.ids)
    skipped = folder.skipped + [s for s in plan.skipped if s not in folder.skipped]
    return ProblemSetPlan(
        problems=folder.problems + [p for p in plan.problems if p.id not in known],
        skipped=skipped,
    )


def _jsonl(rows: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(r) + "\n" for r in rows)


class ProblemSetWriter:
    """The output directory of a generation run (see :mod:`ramseygadgets.problemsets`), locked
    for this process while open (``with ProblemSetWriter(out) as writer``)."""

    def __init__(self, out_dir: str | Path) -> None:
        self.dir = make_output_dir(out_dir, "the problem-set directory", ProblemSetError)
        self.results_path = self.dir / RESULTS_FILE
        self.plan_path = self.dir / PLAN_FILE
        self._lock_fd: int | None = lock_directory(self.dir, "generate run", ProblemSetError)
        try:
            self._check_writable()
            repair_torn_tail(self.results_path)
            self.results_path.touch(exist_ok=True)
            self._start = self.results_path.stat().st_size
        except OSError as exc:
            self.close()
            raise ProblemSetError(f"cannot write to {self.dir}: {exc.strerror or exc}") from None
        except BaseException:
            self.close()
            raise
        self._verdicts: dict[bytes, str | None] = {}
        self.results: dict[str, dict[str, Any]] = {}
        self.new: list[dict[str, Any]] = []
        self._rejected_lines: list[str] = []
        self.notes: list[str] = []  # records left out for other reasons than their line
        self.requests: list[dict[str, Any]] = []
        self._open = True
        self.reload()

    # -- lifecycle --------------------------------------------------------------------------
    def close(self) -> None:
        self._open = False
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    def __enter__(self) -> ProblemSetWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _check_writable(self) -> None:
        """Fail before any solving when the folder cannot take new files (read-only, full)."""
        fd, name = tempfile.mkstemp(prefix=".write-check.", dir=self.dir)
        os.close(fd)
        os.unlink(name)

    # -- the plan ---------------------------------------------------------------------------
    def adopt_plan(
        self, plan: ProblemSetPlan, request: dict[str, Any], *, extend: bool = False
    ) -> ProblemSetPlan:
        """The folder's plan, written to ``plan.json`` before any solving: ``plan`` on a new
        folder; on a used one the same problems are required (another set is refused, naming
        the difference) unless ``extend`` adds the new problems to the folder's."""
        folder = self._read_plan()
        if folder is None:  # a new folder, or one written before plans were kept
            folder = ProblemSetPlan(problems=[problem_of_record(r) for r in self.results.values()])
            same = set(folder.ids) <= set(plan.ids)
        else:
            same = set(folder.ids) == set(plan.ids)
        if not same and not extend:
            made_by = f", made by `{self.requests[0].get('command')}`" if self.requests else ""
            raise ProblemSetError(
                f"{self.dir} holds another problem set ({len(folder.ids)} problems{made_by}); "
                f"this command plans {len(plan.ids)}: {_describe_difference(folder, plan)}; "
                f"repeat the folder's options, add --extend to add the new problems to it, or "
                f"choose another --out"
            )
        if not same or not self.plan_path.exists():
            plan = plan if same else _merged(folder, plan)
            self.requests = [*self.requests, request]
            self._write(self.plan_path, json.dumps(_plan_json(plan, self.requests)) + "\n")
        return plan

    def _read_plan(self) -> ProblemSetPlan | None:
        if not self.plan_path.exists():
            return None
        try:
            data = json.loads(self.plan_path.read_text(encoding="utf-8"))
            plan = ProblemSetPlan(
                problems=[problem_of_record(r) for r in data["problems"]],
                skipped=[dict(x) for x in data["skipped"]],
            )
            self.requests = [dict(r) for r in data["requests"]]
        except (OSError, *PARSE_ERRORS) as exc:
            raise ProblemSetError(
                f"{self.plan_path} is not a problem-set plan ({exc}); move it away or choose "
                f"another --out"
            ) from None
        return plan

    # -- records ----------------------------------------------------------------------------
    def reload(self) -> None:
        """Re-read ``results.jsonl`` (the durable truth): ``results`` gets the strongest
        checked record of each problem, ``new`` the records appended since this writer opened,
        ``rejected`` every line that failed the check."""
        read = read_results_file(self.results_path, self._verdicts)
        self.results = read.by_id()
        self.new = read_results_file(self.results_path, self._verdicts, start=self._start).records
        self._rejected_lines = read.rejected

    def checked_records(self) -> list[dict[str, Any]]:
        """Every checked record of ``results.jsonl`` in file order (all of each problem's,
        not only the strongest: each may prove something the others do not)."""
        return read_results_file(self.results_path, self._verdicts).records

    @property
    def rejected(self) -> list[str]:
        """Every record left out: lines that fail :func:`check_record` (file and line),
        records outside the plan, solver records that did not check."""
        return self._rejected_lines + self.notes

    def done(
        self, problem_id: str, retry_unsolved: bool = False, max_vertices: int | None = None
    ) -> bool:
        """Whether a problem needs no (more) solving: it has a solution, or a record and no
        retry is asked, or its proven lower bound is already above ``max_vertices``."""
        record = self.results.get(problem_id)
        if record is None:
            return False
        if record.get("solution") is not None or not retry_unsolved:
            return True
        return max_vertices is not None and record["lower_bound"] > max_vertices

    def record(self, record: dict[str, Any]) -> bool:
        """Append one finished problem to ``results.jsonl`` (durable before returning) when it
        passes :func:`check_record`; a record that does not is listed in ``rejected``."""
        why = check_record(record)
        if why is not None:
            self.notes.append(f"the solver's record of {record.get('id')}: {why} (a bug)")
            return False
        if not self._open:
            raise ProblemSetError(f"{self.results_path} is not open")
        append_record(self.results_path, record)
        self._verdicts[json.dumps(record).encode("utf-8")] = None
        self.results[record["id"]] = strongest(self.results.get(record["id"]), record)
        self.new.append(record)
        return True

    # -- the output files -------------------------------------------------------------------
    def _write(self, path: Path, text: str) -> None:
        try:
            atomic_write(path, text)
        except OSError as exc:
            raise ProblemSetError(f"cannot write {path}: {exc.strerror or exc}") from None

    def finish(self, plan: ProblemSetPlan, options: dict[str, Any]) -> dict[str, Any]:
        """Write problems.jsonl (every solved problem, any number of colours), solutions.json
        and manifest.json (all three or none: a full disk leaves the old ones) from the strongest checked record of each planned
        problem; a ``multicolor.jsonl`` of an older release is removed (its rows are in
        problems.jsonl now)."""
        records = [self.results[pid] for pid in plan.ids if pid in self.results]
        solved = [r for r in records if r.get("solution")]
        solutions = {
            "description": "Minimal solutions of a generated RamseyGadgets problem set (two colours).",
            "minimal": "fewest vertices n (no solution on n-1 vertices), then fewest edges m",
            "generator": options.get("command", "ramseygadgets generate"),
            "solutions": [r["shipped"] for r in solved if r.get("shipped")],
        }
        manifest = self.manifest(plan, records, options)
        files = {
            PROBLEMS_FILE: _jsonl([export_row(r) for r in solved]),
            SOLUTIONS_FILE: json.dumps(solutions, indent=1) + "\n",
            MANIFEST_FILE: json.dumps(manifest, indent=2) + "\n",
        }
        try:
            with staged_directory(self.dir) as stage:  # the three together, or none of them
                for name, text in files.items():
                    (stage / name).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise ProblemSetError(
                f"cannot write {self.dir}: {exc.strerror or exc}; its problems.jsonl, "
                f"solutions.json and manifest.json are as they were (results.jsonl keeps every "
                f"finished problem: a rerun writes them)"
            ) from None
        legacy = self.dir / LEGACY_MULTICOLOR_FILE
        try:
            legacy.unlink(missing_ok=True)
        except OSError as exc:
            raise ProblemSetError(f"cannot remove {legacy}: {exc.strerror or exc}") from None
        return manifest

    def manifest(
        self, plan: ProblemSetPlan, records: list[dict[str, Any]], options: dict[str, Any]
    ) -> dict[str, Any]:
        """The manifest of exactly the planned problems (``records``: theirs, in plan order)."""
        status = Counter(r["status"] for r in records)
        sizes = Counter(r["n"] for r in records if r.get("proven_minimal"))
        return {
            "schema_version": PROBLEM_SCHEMA_VERSION,
            "options": options,
            "requests": self.requests,
            "planned": len(plan.problems),
            "finished": len(records),
            "unfinished": [pid for pid in plan.ids if pid not in self.results],
            "status": dict(sorted(status.items())),
            "minimal_sizes": {str(n): sizes[n] for n in sorted(sizes)},
            "not_solved": [
                {
                    "id": r["id"],
                    "status": r["status"],
                    "lower_bound": r.get("lower_bound"),
                    "max_vertices": r.get("max_vertices"),
                }
                for r in records
                if not r.get("solution")
            ],
            "not_proven_minimal": [
                r["id"] for r in records if r.get("solution") and not r.get("proven_minimal")
            ],
            "skipped": plan.skipped,
            "rejected_records": self.rejected,
            "outside_plan": sorted(set(self.results) - set(plan.ids)),
            "search_seconds": round(sum(r.get("seconds", 0.0) for r in records), 3),
            "files": {
                "problems": PROBLEMS_FILE,
                "solutions": SOLUTIONS_FILE,
                "results": RESULTS_FILE,
                "plan": PLAN_FILE,
            },
        }
