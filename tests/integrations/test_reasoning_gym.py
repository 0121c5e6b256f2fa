"""The reasoning-gym dataset ``ramsey_gadgets``: factory registration, deterministic entries,
``score_answer`` = the exact reward, composites and the curriculum."""

from __future__ import annotations

import pytest

reasoning_gym = pytest.importorskip("reasoning_gym", reason="the train extra is not installed")

import ramseygadgets.integrations.reasoning_gym as rg_glue  # noqa: E402
from ramseygadgets.problems.problem import Problem  # noqa: E402
from ramseygadgets.runs.grading import judge  # noqa: E402
from ramseygadgets.training import is_published  # noqa: E402

#: Unpublished problems of minimal size 6 (P5 and the fork against P4 and each other), quick.
SMALL = {"pool": ("P4", "P5", "fork", "K3"), "max_size": 6}


def test_create_dataset_after_import_and_entries_are_deterministic() -> None:
    data = reasoning_gym.create_dataset("ramsey_gadgets", seed=4, size=6, **SMALL)
    entries = [data[i] for i in range(6)]
    again = reasoning_gym.create_dataset("ramsey_gadgets", seed=4, size=6, **SMALL)
    assert [again[i] for i in reversed(range(6))] == entries[::-1]  # any access order
    for entry in entries:
        meta = entry["metadata"]
        problem = Problem.from_json(meta)
        assert meta["source_dataset"] == "ramsey_gadgets" and not is_published(problem)
        assert problem.title in entry["question"] and "# Definitions" in entry["question"]
        assert meta["min_vertices"] <= SMALL["max_size"]


def test_score_answer_is_the_exact_reward() -> None:
    data = reasoning_gym.create_dataset("ramsey_gadgets", seed=1, size=3, **SMALL)
    entry = data[0]
    problem = Problem.from_json(entry["metadata"])
    assert data.score_answer(entry["answer"], entry) == 1.0
    assert data.score_answer(f"<think>{entry['answer']}", entry) == 0.0  # cut off while thinking
    assert data.score_answer(None, entry) == 0.0
    other = data[1]
    reply = other["answer"]
    assert data.score_answer(reply, entry) == float(judge(problem, reply, None)["correct"])


def test_composite_mixes_it_in_and_curriculum_raises_the_size() -> None:
    from reasoning_gym.composite import CompositeConfig, CompositeDataset, DatasetSpec
    from reasoning_gym.factory import create_curriculum

    mixed = CompositeDataset(
        CompositeConfig(
            size=8,
            seed=2,
            datasets=[
                DatasetSpec("ramsey_gadgets", 1.0, dict(SMALL)),
                DatasetSpec("leg_counting", 1.0, {}),
            ],
        )
    )
    ours = [
        mixed[i] for i in range(8) if mixed[i]["metadata"]["source_dataset"] == "ramsey_gadgets"
    ]
    assert ours and all(mixed.score_answer(e["answer"], e) == 1.0 for e in ours)
    curriculum = create_curriculum("ramsey_gadgets")
    sizes = []
    for _ in range(3):
        sizes.append(curriculum.generate_configuration({"seed": 0}).max_size)
        curriculum.increment_attr_level("max_size")
    assert sizes == [6, 7, 8]  # from 6: below it nearly every problem is published


def test_bad_config_is_refused() -> None:
    with pytest.raises((AssertionError, rg_glue.TrainingDataError)):
        reasoning_gym.create_dataset("ramsey_gadgets", setting="example-hint")
    with pytest.raises((AssertionError, rg_glue.TrainingDataError)):
        reasoning_gym.create_dataset("ramsey_gadgets", min_size=6, max_size=4)
