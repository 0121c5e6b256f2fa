"""The lm-evaluation-harness task folder: YAML wiring, dataset builder, ``process_results``, and an
end-to-end ``lm_eval`` run against a loopback OpenAI-compatible server (when lm-eval is installed)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import jinja2
import pytest
import yaml

from ramseygadgets.answers import format_answer
from ramseygadgets.catalog import get_problem
from ramseygadgets.gadgets import Candidate
from ramseygadgets.graphs import Graph
from ramseygadgets.integrations import lm_eval as glue
from ramseygadgets.integrations import lm_eval_include_path
from ramseygadgets.prompts import build_prompt
from ramseygadgets.solutions import get_solution

TASK_DIR = lm_eval_include_path() / "ramseygadgets"
HARNESS_TESTS = Path(__file__).resolve().parents[1] / "harness"


class _Function(str):
    """A ``!function module.name`` reference as lm-eval's YAML loader sees it."""


class TaskLoader(yaml.SafeLoader):
    pass


TaskLoader.add_constructor(
    "!function", lambda loader, node: _Function(loader.construct_scalar(node))
)


def load_task_yaml(path: Path) -> dict[str, Any]:
    """A task YAML with its ``include`` resolved (included keys first, the task's own keys win)."""
    data = yaml.load(path.read_text(), Loader=TaskLoader)
    if "include" in data:
        base = load_task_yaml(path.parent / data.pop("include"))
        data = {**base, **data}
    return data


def load_utils() -> Any:
    spec = importlib.util.spec_from_file_location("ramsey_lm_eval_utils", TASK_DIR / "utils.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


def task_files() -> list[Path]:
    return sorted(TASK_DIR.glob("ramsey_gadgets_*.yaml"))


# -- wiring ---------------------------------------------------------------------------------
def test_one_task_per_single_turn_setting_and_no_multiround() -> None:
    tasks = {load_task_yaml(p)["task"]: load_task_yaml(p) for p in task_files()}
    assert set(tasks) == {glue.task_name(s) for s in glue.LM_EVAL_SETTINGS}
    for name, config in tasks.items():
        assert config["dataset_kwargs"]["setting"] in glue.LM_EVAL_SETTINGS
        assert name == glue.task_name(config["dataset_kwargs"]["setting"])
        assert config["tag"] == "ramsey_gadgets" and config["output_type"] == "generate_until"
        assert config["test_split"] == "test"
        # long reasoning must not be cut at the default stop sequence (a blank line)
        assert config["generation_kwargs"]["until"] == []
        assert config["generation_kwargs"]["max_gen_toks"] == 32768
    assert not any("multiround" in p.name for p in task_files())


def test_function_references_resolve_to_the_package_glue() -> None:
    utils = load_utils()
    config = load_task_yaml(task_files()[0])
    functions = {key: value for key, value in config.items() if isinstance(value, _Function)}
    assert set(functions) == {"custom_dataset", "process_results"}
    for ref in functions.values():
        module, name = ref.split(".")
        assert module == "utils"
        assert getattr(utils, name) is getattr(glue, name)
    metrics = {m["metric"] for m in config["metric_list"]}
    doc = glue.dataset_rows("zero-shot", "p3_k3_red_determiner")[0]
    assert set(glue.process_results(doc, ["no answer"])) == {"acc", "parse_failure"}
    problem = get_problem(doc["problem_id"])
    correct = format_answer(get_solution(problem.id).candidate, problem.kind)
    assert set(glue.process_results(doc, [correct])) == metrics


def test_dataset_rows_render_to_the_projects_prompt() -> None:
    config = load_task_yaml(task_files()[0])
    for setting, count in (
        ("zero-shot", 70),
        ("structural-hint", 70),
        ("size-hint", 70),
        ("example-hint", 30),
    ):
        dataset = glue.load_dataset(
            setting=setting, version=1.0
        )  # lm-eval passes metadata as kwargs
        rows = dataset["test"]
        assert rows.num_rows == count
        row = rows[count - 1]
        system, user = [m["content"] for m in build_prompt(row["problem_id"], setting).messages]
        # lm-eval renders `description` as the system turn and `doc_to_text` as the user turn
        assert jinja2.Template(config["description"]).render(**row) == system
        assert jinja2.Template(config["doc_to_text"]).render(**row) == user
        assert row["min_vertices"] == get_solution(row["problem_id"]).n


def test_dataset_options_from_metadata() -> None:
    assert len(glue.dataset_rows("zero-shot", "easy")) == 26
    rows = glue.dataset_rows(
        "size-hint", ["k13_k4_red_determiner", "p3_k3_red_determiner"], profile="deepseek-r1"
    )
    assert [r["problem_id"] for r in rows] == ["k13_k4_red_determiner", "p3_k3_red_determiner"]
    merged = build_prompt("k13_k4_red_determiner", "size-hint", "deepseek-r1").messages
    assert [m["role"] for m in merged] == ["user"]  # this profile takes no system prompt
    assert rows[0]["system"] == "" and rows[0]["user"] == merged[0]["content"]
    with pytest.raises(ValueError, match="multiround needs a tool loop"):
        glue.dataset_rows("multiround")


# -- process_results ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "problem_id", ["p3_k3_red_determiner", "k13_c4_negative_sender", "k13_k4e_variable_gadget"]
)
def test_process_results_accepts_the_minimal_solution(problem_id: str) -> None:
    problem = get_problem(problem_id)
    [doc] = glue.dataset_rows("zero-shot", problem_id)
    reply = "<think>some reasoning</think>\nFinal answer:\n" + format_answer(
        get_solution(problem_id).candidate, problem.gadget
    )
    scores = {"acc": 1.0, "parse_failure": 0.0, "minimal": 1.0, "excess_vertices": 0.0}
    assert glue.process_results(doc, [reply]) == scores


def padded(candidate: Candidate) -> Candidate:
    """The solution plus one edge on two new vertices: still correct, two vertices too many."""
    n = candidate.graph.n
    return Candidate(Graph(n + 2, (*candidate.graph.edges, (n, n + 1))), candidate.designated)


def test_process_results_grades_the_size_against_a_proven_optimum(tmp_path: Path) -> None:
    """A padded answer: correct, minimal 0, excess 2; on a problem without a proven optimum (a
    problem-set record with a solution but no proof) neither key is returned, so lm-eval's
    mean leaves it out instead of counting it as 0."""
    problem = get_problem("p3_k3_red_determiner")
    solution = get_solution(problem.id)
    [doc] = glue.dataset_rows("zero-shot", problem.id)
    assert (doc["optimum_vertices"], doc["optimum_edges"]) == (solution.n, solution.m)
    reply = format_answer(padded(solution.candidate), problem.kind)
    scores = {"acc": 1.0, "parse_failure": 0.0, "minimal": 0.0, "excess_vertices": 2.0}
    assert glue.process_results(doc, [reply]) == scores
    unproven = tmp_path / "set.jsonl"
    record = {**problem.to_json(), "solution": solution.candidate.to_json(problem.kind)}
    unproven.write_text(json.dumps(record) + "\n")
    [doc] = glue.dataset_rows("zero-shot", None, dataset=str(unproven))
    assert doc["min_vertices"] == solution.n and doc["optimum_vertices"] is None
    minimal = format_answer(solution.candidate, problem.kind)
    for answer in (minimal, reply):
        assert glue.process_results(doc, [answer]) == {"acc": 1.0, "parse_failure": 0.0}


def test_process_results_wrong_and_unparsable() -> None:
    [doc] = glue.dataset_rows("zero-shot", "p3_k3_red_determiner")
    wrong = (
        '```json\n{"edges": [[0, 1], [1, 2]], "e": [0, 1]}\n```'  # e can be blue: not a determiner
    )
    assert glue.process_results(doc, [wrong]) == {"acc": 0.0, "parse_failure": 0.0}
    assert glue.process_results(doc, ["I cannot construct this."]) == {
        "acc": 0.0,
        "parse_failure": 1.0,
    }
    assert glue.process_results(doc, [""]) == {"acc": 0.0, "parse_failure": 1.0}
    # a reply that is still reasoning when it was cut off is no answer either
    assert glue.process_results(doc, ["<think>" + wrong]) == {"acc": 0.0, "parse_failure": 1.0}


def test_include_path_is_printed() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "ramseygadgets.integrations.lm_eval"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert (
        Path(out) == lm_eval_include_path() and (Path(out) / "ramseygadgets" / "utils.py").is_file()
    )


# -- end to end -----------------------------------------------------------------------------------
def test_lm_eval_end_to_end_against_a_loopback_server(tmp_path: Path) -> None:
    if importlib.util.find_spec("lm_eval") is None:
        pytest.skip("lm-eval is not installed (pip install 'ramseygadgets[lm-eval]')")
    sys.path.insert(0, str(HARNESS_TESTS))
    try:
        from openai_mock import MockOpenAIServer, Reply
    finally:
        sys.path.remove(str(HARNESS_TESTS))
    solved, unsolved = get_problem("p3_k3_red_determiner"), get_problem("k13_k4_red_determiner")
    larger = get_problem("k13_c4_negative_sender")  # answered correctly, two vertices too many
    expected = {p.id: build_prompt(p, "zero-shot").messages for p in (solved, unsolved, larger)}

    def script(info: Any) -> Any:
        user = info.body["messages"][-1]["content"]
        if user == expected[solved.id][-1]["content"]:
            return Reply(format_answer(get_solution(solved.id).candidate, solved.kind))
        if user == expected[larger.id][-1]["content"]:
            return Reply(format_answer(padded(get_solution(larger.id).candidate), larger.kind))
        return Reply("I could not find one.")

    lm_eval = Path(sys.executable).with_name("lm_eval")
    command = [
        str(lm_eval) if lm_eval.exists() else "lm_eval",
        "--include_path",
        str(lm_eval_include_path()),
        "--tasks",
        "ramsey_gadgets_zero_shot",
        "--model",
        "local-chat-completions",
        "--apply_chat_template",
        "--metadata",
        json.dumps({"problems": f"{solved.id},{unsolved.id},{larger.id}"}),
        "--output_path",
        str(tmp_path / "out"),
        "--log_samples",
    ]
    with MockOpenAIServer(script, models=("mock-model",)) as server:
        command += [
            "--model_args",
            f"model=mock-model,base_url={server.base_url}/chat/completions,"
            "num_concurrent=1,max_retries=1,tokenized_requests=False",
        ]
        env = {
            **os.environ,
            "HF_DATASETS_OFFLINE": "1",
            "HF_HUB_OFFLINE": "1",
            "TOKENIZERS_PARALLELISM": "false",
            # lm-eval's process imports the package under test (not another installed copy)
            "PYTHONPATH": os.pathsep.join(
                [str(Path(glue.__file__).resolve().parents[2]), os.environ.get("PYTHONPATH", "")]
            ),
        }
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=240, cwd=tmp_path, env=env
        )
        assert done.returncode == 0, done.stderr[-3000:]
        bodies = [r.body for r in server.chat_requests()]
    # the model saw exactly the project's prompts, with the task's generation settings
    assert sorted((b["messages"] for b in bodies), key=str) == sorted(expected.values(), key=str)
    assert all(b["max_tokens"] == 32768 and b["stop"] == [] for b in bodies)
    [results_file] = (tmp_path / "out").rglob("results_*.json")
    results = json.loads(results_file.read_text())["results"]["ramsey_gadgets_zero_shot"]
    assert results["acc,none"] == pytest.approx(2 / 3)
    assert results["parse_failure,none"] == pytest.approx(1 / 3)
    # over the two correct answers only: the unanswered problem is left out, not counted as 0
    assert results["minimal,none"] == pytest.approx(0.5)
    assert results["excess_vertices,none"] == pytest.approx(1.0)
    [samples_file] = (tmp_path / "out").rglob("samples_ramsey_gadgets_zero_shot_*.jsonl")
    per_doc = {
        json.loads(line)["doc"]["problem_id"]: json.loads(line)["acc"]
        for line in samples_file.read_text().splitlines()
    }
    assert per_doc == {solved.id: 1.0, unsolved.id: 0.0, larger.id: 1.0}
