"""The Hugging Face export as the frameworks see it: the export folder loads by its dataset card
(as it would from the Hub), and its prompts are exactly what the lm-eval and Inspect tasks send."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from ramseygadgets.integrations import lm_eval as glue
from ramseygadgets.problems.catalog import get_problem
from ramseygadgets.training.export import export_dataset

datasets = pytest.importorskip("datasets")

PROBLEMS = ("p3_k3_red_determiner", "k13_k3_positive_sender", "k13_c4_variable_gadget")


@pytest.fixture(scope="module")
def export_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("export")
    export_dataset(out, "jsonl", problems=[get_problem(p) for p in PROBLEMS])
    return out


def load(export_dir: Path, config: str) -> datasets.Dataset:
    # the folder itself, read through the `configs` of its dataset card: what load_dataset("user/repo", config) does
    return datasets.load_dataset(
        str(export_dir), config, split="train", cache_dir=str(export_dir / ".cache")
    )


def test_export_folder_loads_by_its_card_configs(export_dir: Path) -> None:
    problems = load(export_dir, "problems")
    prompts = load(export_dir, "prompts")
    assert sorted(problems["id"]) == sorted(PROBLEMS)
    # every problem in its settings; the example hint exists for the two K1,3 problems here
    assert prompts.num_rows == 3 * 4 + 2
    for column in (
        "problem_id",
        "setting",
        "messages",
        "system",
        "user",
        "min_vertices",
        "reference_answer",
    ):
        assert column in prompts.column_names


def test_export_prompts_equal_the_lm_eval_documents(export_dir: Path) -> None:
    prompts = load(export_dir, "prompts")
    for setting in glue.LM_EVAL_SETTINGS:
        docs = {d["problem_id"]: d for d in glue.dataset_rows(setting, list(PROBLEMS))}
        exported = {r["problem_id"]: r for r in prompts if r["setting"] == setting}
        assert set(docs) == set(exported)
        for problem_id, doc in docs.items():
            assert doc["system"] == (exported[problem_id]["system"] or "")
            assert doc["user"] == exported[problem_id]["user"]
            assert doc["min_vertices"] == exported[problem_id]["min_vertices"]


def test_export_prompts_equal_the_inspect_inputs(export_dir: Path) -> None:
    if importlib.util.find_spec("inspect_ai") is None:
        pytest.skip("the inspect extra is not installed")
    from ramseygadgets.integrations.inspect_task import build_samples

    prompts = load(export_dir, "prompts")
    for setting in ("zero-shot", "example-hint", "multiround"):
        exported = {r["problem_id"]: r["messages"] for r in prompts if r["setting"] == setting}
        samples = {s.id: s for s in build_samples(setting, list(PROBLEMS))}
        assert set(samples) == set(exported)
        for problem_id, messages in exported.items():
            assert [(m.role, m.text) for m in samples[problem_id].input] == [
                (m["role"], m["content"]) for m in messages
            ]
