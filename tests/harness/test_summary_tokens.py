"""The token column of ``eval``'s end summary: "—" when no counts were recorded, the mean of
the recorded counts otherwise."""

from __future__ import annotations

from typing import Any

from ramseygadgets.harness.summary import ACCURACY_COLUMNS, summarize

PROBLEM = "k13_k4_red_determiner"


def record(run: int, usage: dict[str, Any] | None) -> dict[str, Any]:
    row: dict[str, Any] = {
        "problem_id": PROBLEM,
        "setting": "zero-shot",
        "run": run,
        "correct": True,
        "finish_reason": "stop",
        "error": None,
    }
    if usage is not None:
        row["usage"] = usage
    return row


def tokens_cell(records: list[dict[str, Any]]) -> str:
    config = {"runs": 2, "problems": [PROBLEM], "settings": ["zero-shot"]}
    (row,) = summarize(records, config)
    cell = dict(ACCURACY_COLUMNS)["tokens"]
    return cell(row)


def test_no_token_counts_recorded_is_unknown_not_zero() -> None:
    zeros = {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
    assert tokens_cell([record(0, zeros), record(1, zeros)]) == "—"
    assert tokens_cell([record(0, None), record(1, None)]) == "—"


def test_recorded_token_counts_are_averaged() -> None:
    assert (
        tokens_cell([record(0, {"total_tokens": 100}), record(1, {"total_tokens": 300})]) == "200"
    )
    assert tokens_cell([record(0, {"total_tokens": 100}), record(1, None)]) == "100"
