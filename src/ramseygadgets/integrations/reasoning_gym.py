"""A ``reasoning_gym`` procedural dataset: ``ramsey_gadgets``.

Importing this module registers the dataset with reasoning-gym's factory, so that::

    import ramseygadgets.integrations.reasoning_gym  # noqa: F401
    import reasoning_gym
    data = reasoning_gym.create_dataset("ramsey_gadgets", seed=1, size=100, max_size=6)
    entry = data[0]
    data.score_answer(model_reply, entry)          # the exact reward

works, and RG composites (``DatasetSpec(name="ramsey_gadgets", ...)``) and the curriculum
(:class:`RamseyGadgetsCurriculum`, difficulty = the largest minimal size) can mix it in.

``num_colors`` (2 by default) chooses two-colour problems or, with 3, three-colour problems
(every colour avoids one pattern of the pool; determiners of each colour and both senders).

Entry ``idx`` is drawn from the procedural stream (:mod:`ramseygadgets.problemsets.stream`) with
an RNG seeded by ``(seed, idx)``, so it is the same whatever the access order.  The question is
the project's full prompt (definitions, task, answer format) in one user message; ``answer`` is
a proven-minimal solution in the answer format (a reference: any correct gadget earns 1);
``score_answer`` is :func:`ramseygadgets.training.exact_reward`, never a string comparison;
with ``shaped=True`` in the config it is the size-shaped reward
(:func:`ramseygadgets.training.shaped_reward` against the entry's proven ``min_vertices``: 1
for a correct minimal answer, ``1 / (1 + excess vertices)`` for a larger correct one, 0 for a
wrong one).  Published problems never occur (the leakage rule,
:mod:`ramseygadgets.problems.leakage`): none is equivalent to one of the 70 or, unless
``include_extended=True`` in the config, to a problem of the extended set (``--set extended``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from reasoning_gym.coaching import BaseCurriculum, ScalarAttributeDefinition
from reasoning_gym.dataset import ProceduralDataset
from reasoning_gym.factory import DATASETS, register_dataset

from ramseygadgets.problems.problem import Problem
from ramseygadgets.problemsets.stream import (
    DEFAULT_POOL,
    ProblemStream,
    StreamConfig,
    TrainingDataError,
)
from ramseygadgets.prompts.builder import render
from ramseygadgets.training.data import check_settings, training_row
from ramseygadgets.training.rewards import PROBLEM_COLUMNS, optimum_value, reward

DATASET_NAME = "ramsey_gadgets"
__all__ = [
    "DATASET_NAME",
    "RamseyGadgetsConfig",
    "RamseyGadgetsCurriculum",
    "RamseyGadgetsDataset",
    "TrainingDataError",
]


@dataclass
class RamseyGadgetsConfig:
    """Options of the ``ramsey_gadgets`` dataset (see :class:`StreamConfig` for the pool rules)."""

    seed: int | None = None
    size: int = 500
    pool: tuple[str, ...] = DEFAULT_POOL
    gadgets: str | None = None
    min_size: int = 3
    max_size: int = 7
    solve_timeout: float = 10.0
    setting: str = "zero-shot"
    num_colors: int = 2
    shaped: bool = False
    include_extended: bool = False

    def validate(self) -> None:

        assert self.size > 0, "size must be positive"
        check_settings([self.setting])
        self.stream_config()  # raises on bad limits

    def stream_config(self) -> StreamConfig:
        return StreamConfig(
            seed=self.seed or 0,
            pool=tuple(self.pool),
            gadgets=self.gadgets,
            min_size=self.min_size,
            max_size=self.max_size,
            solve_timeout=self.solve_timeout,
            colors=self.num_colors,
            include_extended=self.include_extended,
        )


class RamseyGadgetsDataset(ProceduralDataset):
    """Procedural RamseyGadgets problems scored by the exact verifier (module docs)."""

    def __init__(self, config: RamseyGadgetsConfig):
        super().__init__(config=config, seed=config.seed, size=config.size)

    @cached_property
    def stream(self) -> ProblemStream:
        return ProblemStream(self.config.stream_config())

    def __getitem__(self, idx: int) -> dict[str, Any]:

        item = self.stream.draw(random.Random(f"{self.seed}:{idx}"))
        row = training_row(item, self.config.setting)
        system, user = (m["content"] for m in row["prompt"])
        return {
            "question": render("merged.md.j2", system=system, user=user),
            "answer": row["solution"],
            "metadata": {
                "source_dataset": DATASET_NAME,
                "source_index": idx,
                **{k: row[k] for k in ("problem_id", *PROBLEM_COLUMNS, "tier", "setting")},
                "min_vertices": item.min_vertices,
                "difficulty": {"max_size": self.config.max_size},
            },
        }

    def score_answer(self, answer: str | None, entry: dict[str, Any]) -> float:
        """The exact reward of ``answer`` for the entry's problem (the size-shaped reward with
        ``shaped=True``)."""
        meta = entry["metadata"]
        problem = Problem.from_json(meta)
        if not self.config.shaped:
            return reward(problem, answer or "")
        optimum = optimum_value(meta.get("min_vertices"))
        return reward(problem, answer or "", shaped=True, optimum_vertices=optimum)


class RamseyGadgetsCurriculum(BaseCurriculum):
    """Difficulty levels by the largest minimal size of the problems (6, 7, 8, 9 vertices).

    They start at 6: apart from the published problems the default pool holds only three
    two-colour problems of minimal size at most 5 (the (K1,4, TK3/K4−e/K4)-clause gadgets,
    docs/training.md), so levels 4 and 5 would repeat those three."""

    def __init__(self) -> None:
        super().__init__(RamseyGadgetsCurriculum.__name__, RamseyGadgetsConfig)
        self._define_attributes(
            ScalarAttributeDefinition(
                name="max_size",
                field_name="max_size",
                levels=[6, 7, 8, 9],
                description="Largest minimal solution size (vertices)",
            )
        )


if DATASET_NAME not in DATASETS:
    register_dataset(
        DATASET_NAME, RamseyGadgetsDataset, RamseyGadgetsConfig, RamseyGadgetsCurriculum
    )
