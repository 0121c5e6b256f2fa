"""Several evaluations (models × settings) as parallel tasks, each resumable in its own directory."""

from __future__ import annotations

import json

import pytest

from ramseygadgets.core.errors import RamseyGadgetsError
from ramseygadgets.harness.evals import run_evaluations
from ramseygadgets.scaleout import LocalExecutor

PROBLEMS = ["p3_k3_red_determiner", "p3_k3_positive_sender", "k13_k3_clause_gadget"]


def test_two_models_and_two_settings_fan_out_over_processes(tmp_path):
    configs = [
        {
            "out": str(tmp_path / f"{model}-{setting}"),
            "model": model,
            "settings": [setting],
            "runs": 2,
            "problems": PROBLEMS,
        }
        for model in ("solver", "random")
        for setting in ("zero-shot", "size-hint")
    ]
    summaries = run_evaluations(configs, LocalExecutor(2))
    assert [s["out"] for s in summaries] == [c["out"] for c in configs]
    for config, summary in zip(configs, summaries):
        assert summary["recorded"] == summary["total"] == 6
        [row] = summary["settings"]
        assert row["setting"] == config["settings"][0] and row["samples"] == 6
        lines = (tmp_path / config["out"] / "samples.jsonl").read_text().splitlines()
        assert len(lines) == 6
        if config["model"] == "solver":  # the reference solver answers every problem correctly
            assert row["accuracy"] == 1.0 and all(json.loads(line)["correct"] for line in lines)
    again = run_evaluations(configs[:1], LocalExecutor(1))  # resumes: nothing to run
    assert again[0]["recorded"] == 6


def test_each_evaluation_needs_its_own_directory(tmp_path):
    with pytest.raises(RamseyGadgetsError, match="distinct"):
        run_evaluations([{"out": str(tmp_path)}, {"out": str(tmp_path)}])
