"""Several evaluations (models × settings × datasets) fanned out as tasks, one run directory each.

Each configuration is the keyword arguments of :class:`ramseygadgets.harness.options.EvalOptions`
(plain JSON: ``out``, ``model``, ``settings``, ``runs``, ``dataset``, ...).  A task runs one
evaluation with :func:`ramseygadgets.harness.runner.run_eval`, which is itself resumable, so
re-running the batch after a crash or on a different cluster continues every evaluation where it
stopped.  ``run_evaluations(configs, make_executor(jobs=2))`` with the configurations
``{"out": "runs/a", "model": "solver"}`` and ``{"out": "runs/b", "model": "random"}`` runs the
two evaluations in two worker processes; docs/generate.md (section "Scale-out") shows a batch.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ramseygadgets.core.errors import RamseyGadgetsError
from ramseygadgets.harness.runner import EvalOptions, run_eval
from ramseygadgets.harness.summary import summarize
from ramseygadgets.infra.executors import Executor, LocalExecutor
from ramseygadgets.runs.folder import SAMPLES_FILE, read_samples

__all__ = [
    "run_one_evaluation",
    "run_evaluations",
]


def run_one_evaluation(config: dict[str, Any]) -> dict[str, Any]:
    """Run one evaluation from its options; a JSON summary (per-setting accuracy, counts)."""

    options = dict(config)
    options["out"] = Path(options["out"])
    options.setdefault("progress", False)
    outcome = run_eval(EvalOptions(**options))
    records, _ = read_samples(Path(options["out"]) / SAMPLES_FILE)
    rows = summarize(records, outcome.config, outcome.keys)
    return {
        "out": str(options["out"]),
        "model": outcome.config["model"],
        "total": outcome.total,
        "recorded": outcome.stats.recorded,
        "interrupted": outcome.interrupted,
        "aborted": outcome.aborted,
        "settings": [r.to_json() for r in rows],
    }


def run_evaluations(
    configs: Iterable[dict[str, Any]],
    executor: Executor | None = None,
    *,
    on_result: Callable[[dict[str, Any]], None] | None = None,
) -> list[dict[str, Any]]:
    """Run every configuration (in parallel on ``executor``); summaries in input order."""
    configs = list(configs)
    outs = [str(c.get("out", "")) for c in configs]
    if any(not o for o in outs) or len(set(outs)) != len(outs):
        raise RamseyGadgetsError("every evaluation needs its own distinct 'out' directory")
    results: list[dict[str, Any] | None] = [None] * len(configs)
    executor = executor or LocalExecutor(1)
    for index, summary in executor.run(
        run_one_evaluation, configs, describe=lambda c: str(c.get("out"))
    ):
        results[index] = summary
        if on_result is not None:
            on_result(summary)
    return [r for r in results if r is not None]
