"""The summary printed at the end of ``eval``: one row per setting.

Outcomes follow the reports (:attr:`ramseygadgets.runs.samples.Sample.outcome`): correct, wrong,
parse failure, truncated (``finish_reason`` length), backend error.  Accuracy is the mean over
runs of (correct / samples in the run) ± the sample standard deviation over runs; Pass@k is the
share of problems solved in at least one of the k runs.  ``ramseygadgets report`` gives the
full tables, confidence intervals and figures.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from typing import Any

from rich import box
from rich.console import Console
from rich.measure import Measurement
from rich.table import Table

from ramseygadgets.infra.terminal import terminal_text
from ramseygadgets.runs.records import SampleKey
from ramseygadgets.runs.samples import Sample, example_hint_applies, unknown_usage_as_zero
from ramseygadgets.runs.stats import mean, sample_std

__all__ = [
    "ACCURACY_COLUMNS",
    "OUTCOME_COLUMNS",
    "SettingSummary",
    "summarize",
    "summary_tables",
]


@dataclass
class SettingSummary:
    setting: str
    samples: int
    expected: int
    correct: int
    accuracy: float | None
    accuracy_std: float | None
    pass_at_k: float | None
    k: int
    avg_tokens: float | None
    parse_failures: int
    truncated: int
    errors: int
    retries: int

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def summarize(
    records: Iterable[dict[str, Any]],
    config: dict[str, Any],
    keys: Iterable[SampleKey] | None = None,
) -> list[SettingSummary]:
    """One row per setting of ``config`` that has samples to run.

    ``keys``: the run's samples (:func:`~ramseygadgets.harness.runner.sample_keys`, which
    knows each problem's settings: a fresh or file problem's example hint, a size hint only
    where the minimal size is known); each setting counts exactly the problems its keys name.
    Without them, the paper's rule (:func:`~ramseygadgets.runs.samples.example_hint_applies`)
    decides, which knows catalog problems only."""
    runs = int(config["runs"])
    expected = _expected_problems(config, keys)
    by_setting: dict[str, list[tuple[Sample, int]]] = {s: [] for s in expected}
    legacy = unknown_usage_as_zero(config)
    for record in records:
        setting = record.get("setting")
        if (
            setting in by_setting
            and record.get("problem_id") in expected[setting]
            and record["run"] < runs
        ):
            by_setting[setting].append(
                (Sample.from_record(record, zeros_unknown=legacy), int(record.get("retries") or 0))
            )
    return [
        _setting_row(setting, samples, len(expected[setting]), runs)
        for setting, samples in by_setting.items()
    ]


def _expected_problems(
    config: dict[str, Any], keys: Iterable[SampleKey] | None
) -> dict[str, set[str]]:
    """The problems each setting runs (settings without any left out), in config order."""
    problems = list(config["problems"])
    if keys is not None:
        named: dict[str, set[str]] = {}
        for key in keys:
            named.setdefault(key.setting, set()).add(key.problem_id)
        expected = {s: named.get(s, set()) & set(problems) for s in config["settings"]}
    else:
        expected = {
            s: {p for p in problems if s != "example-hint" or example_hint_applies(p)}
            for s in config["settings"]
        }
    return {setting: pids for setting, pids in expected.items() if pids}


def _setting_row(
    setting: str, samples: list[tuple[Sample, int]], problems: int, runs: int
) -> SettingSummary:
    """One setting's row from its samples (with their retries) over ``problems`` × ``runs``."""
    outcomes = [s.outcome for s, _ in samples]
    per_run = [
        sum(1 for s, _ in samples if s.run == r and s.correct) / problems for r in range(runs)
    ]
    solved = {s.problem_id for s, _ in samples if s.correct}
    # counts the backend did not report (the reference solver, a server without usage) are
    # unknown: "—" when no sample has one, as in the report (runs.stats); a 0 is a 0
    tokens = [
        s.usage.total_tokens for s, _ in samples if s.usage.total_tokens is not None and not s.error
    ]
    return SettingSummary(
        setting=setting,
        samples=len(samples),
        expected=problems * runs,
        correct=outcomes.count("correct"),
        accuracy=mean(per_run) if samples else None,
        accuracy_std=sample_std(per_run) if samples else None,
        pass_at_k=len(solved) / problems if samples else None,
        k=runs,
        avg_tokens=mean(tokens) if tokens else None,
        parse_failures=outcomes.count("parse-failure"),
        truncated=outcomes.count("truncated"),
        errors=outcomes.count("error"),
        retries=sum(r for _, r in samples),
    )


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}"


def _accuracy(r: SettingSummary) -> str:
    return _pct(r.accuracy) + ("" if r.accuracy_std is None else f" ± {100 * r.accuracy_std:.1f}")


def _wrong(r: SettingSummary) -> int:
    return r.samples - r.correct - r.parse_failures - r.truncated - r.errors


#: (header, cell) of the accuracy columns; ``{k}`` in a header is the number of runs.
ACCURACY_COLUMNS: tuple[tuple[str, Callable[[SettingSummary], str]], ...] = (
    ("samples", lambda r: f"{r.samples}/{r.expected}"),
    ("accuracy %", _accuracy),
    ("pass@{k} %", lambda r: _pct(r.pass_at_k)),
    ("tokens", lambda r: "—" if r.avg_tokens is None else f"{r.avg_tokens:,.0f}"),
)
#: The outcome columns; the last three appear only when some setting has any.
OUTCOME_COLUMNS: tuple[tuple[str, Callable[[SettingSummary], str]], ...] = (
    ("wrong", lambda r: str(_wrong(r))),
    ("unparsed", lambda r: str(r.parse_failures)),
    ("truncated", lambda r: str(r.truncated)),
    ("errors", lambda r: str(r.errors)),
    ("retries", lambda r: str(r.retries)),
)


def _table(
    rows: list[SettingSummary], columns: Iterable[tuple[str, Callable[[SettingSummary], str]]]
) -> Table:
    k = rows[0].k if rows else 5
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False)
    table.add_column("setting", no_wrap=True)
    columns = list(columns)
    for header, _ in columns:
        table.add_column(header.format(k=k), justify="right", no_wrap=True)
    for r in rows:
        table.add_row(terminal_text(r.setting), *(cell(r) for _, cell in columns))
    return table


def summary_tables(rows: list[SettingSummary], width: int = 80) -> list[Table]:
    """Setting, samples, accuracy ± sd over runs, pass@k, tokens per sample, then the outcome
    counts (truncated, errors and retries only when there are any): one table when it fits
    ``width`` columns, else an accuracy table and an outcome table."""
    outcomes = [
        (header, cell)
        for header, cell in OUTCOME_COLUMNS
        if header in ("wrong", "unparsed") or any(cell(r) != "0" for r in rows)
    ]
    whole = _table(rows, [*ACCURACY_COLUMNS, *outcomes])
    if _width(whole) <= width:
        return [whole]
    return [_table(rows, ACCURACY_COLUMNS), _table(rows, outcomes)]


def _width(table: Table) -> int:
    console = Console(width=10_000)
    return Measurement.get(console, console.options, table).maximum
