"""The lm-evaluation-harness task folder: YAML wiring, dataset builder, ``process_results``, and an
end-to-end ``lm_eval`` run against a loopback OpenAI-compatible server (when lm-eval is installed)."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import jinja2
import pytest
import yaml

from ramseygadgets.answers import format_answer
from ramseygadgets.core.gadgets import Candidate
from ramseygadgets.core.graphs import Graph
from ramseygadgets.integrations import lm_eval as glue
from ramseygadgets.integrations import lm_eval_include_path
from ramseygadgets.integrations.common import select_for_framework
from ramseygadgets.problems.catalog import Problem, get_problem
from ramseygadgets.problems.solutions import get_solution
from ramseygadgets.prompts import build_prompt
from ramseygadgets.search.minimal import solve_minimal
from ramseygadgets.search.options import SearchOptions
from ramseygadgets.verification.proofs import shipped_proof

TASK_DIR = lm_eval_include_path() / "ramseygadgets"
HARNESS_TESTS = Path(__file__).resolve().parents[1] / "harness"
# six lm_eval runs in child processes (about 20 s each): start this module first under xdist
pytestmark = pytest.mark.long
DOCS = (Path(__file__).resolve().parents[2] / "docs" / "integrations.md", TASK_DIR / "README.md")


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
    # a problem with no shipped proof (a file keeps the proof of one that has: commit 8539cb3)
    unshipped = Problem.make("P3", "P6", "blue-determiner")
    found = solve_minimal(unshipped, SearchOptions(max_vertices=7, timeout=60))
    assert shipped_proof(unshipped) is None and found.candidate is not None
    unproven = tmp_path / "set.jsonl"
    record = {**unshipped.to_json(), "solution": found.candidate.to_json(unshipped.kind)}
    unproven.write_text(json.dumps(record) + "\n")
    [doc] = glue.dataset_rows("zero-shot", None, dataset=str(unproven))
    assert doc["min_vertices"] == found.n and doc["optimum_vertices"] is None
    for answer in (found.candidate, padded(found.candidate)):
        reply = format_answer(answer, unshipped.kind)
        assert glue.process_results(doc, [reply]) == {"acc": 1.0, "parse_failure": 0.0}


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


# -- end to end ---------------------------------------------------------------------------------
def mock_server() -> Any:
    """The loopback OpenAI-compatible server of the harness tests (tests/harness/openai_mock.py)."""
    if importlib.util.find_spec("lm_eval") is None:
        pytest.skip("lm-eval is not installed (pip install 'ramseygadgets[lm-eval]')")
    sys.path.insert(0, str(HARNESS_TESTS))
    try:
        import openai_mock
    finally:
        sys.path.remove(str(HARNESS_TESTS))
    return openai_mock


#: lm-eval's CLI (its ``lm_eval`` entry point) with its own ~14,000 task files left out of the
#: task index: indexing them takes 6-15 s of every run and decides nothing about the project's
#: tasks, which ``--include_path`` still brings in whole (the end-to-end test keeps them all).
_CLI_WITHOUT_BUILTIN_TASKS = """
import functools, sys
from lm_eval.tasks import TaskManager
TaskManager.__init__ = functools.partialmethod(TaskManager.__init__, include_defaults=False)
from lm_eval.__main__ import cli_evaluate
sys.argv[0] = "lm_eval"
cli_evaluate()
"""


def run_lm_eval(
    arguments: list[str], cwd: Path, *, builtin_tasks: bool = True
) -> subprocess.CompletedProcess[str]:
    """lm-eval's own CLI in a child process, offline, importing the package under test
    (``builtin_tasks=False``: lm-eval's own tasks left out of its index)."""
    lm_eval = Path(sys.executable).with_name("lm_eval")
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
    command = [str(lm_eval) if lm_eval.exists() else "lm_eval", *arguments]
    if not builtin_tasks:
        command = [sys.executable, "-c", _CLI_WITHOUT_BUILTIN_TASKS, *arguments]
    return subprocess.run(command, capture_output=True, text=True, timeout=240, cwd=cwd, env=env)


@pytest.mark.integration
def test_lm_eval_end_to_end_against_a_loopback_server(tmp_path: Path) -> None:
    openai_mock = mock_server()
    MockOpenAIServer, Reply = openai_mock.MockOpenAIServer, openai_mock.Reply
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

    command = [
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
        done = run_lm_eval(command, tmp_path)
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


# -- a task without documents, and the documented commands on every kind of selection ------------
NO_EXAMPLE_HINT = "p3_k3_red_determiner,p3_k13_negative_sender"  # paper problems without one
THREE_COLOR = "p3__p3__k13_negative_sender"  # of the extended set (problems --set extended)
WITH_EXAMPLE_HINT = "p3_k3_red_determiner,k13_k3_red_determiner"
SINGLE_TURN_TASKS = (
    "ramsey_gadgets_zero_shot,ramsey_gadgets_structural_hint,ramsey_gadgets_size_hint"
)


def test_a_task_without_documents_stops_with_a_clear_message(tmp_path: Path) -> None:
    """No IndexError from lm-eval: the task names the setting no problem has (Inspect's message)
    and the tasks that do have documents."""
    for problems in (NO_EXAMPLE_HINT, THREE_COLOR):
        assert glue.dataset_rows("example-hint", problems) == []
        with pytest.raises(glue.NoDocumentsError) as raised:
            glue.load_dataset("example-hint", problems, version=2.0)
        assert str(raised.value) == (
            "ramsey_gadgets_example_hint: no selected problem has the example-hint setting "
            "(example-hint exists only for K1,3 problems with a P3 counterpart, size-hint only "
            "for problems with a known minimal solution); lm-eval cannot run a task without "
            "documents, so name the tasks that have them instead of the tag ramsey_gadgets: "
            f"--tasks {SINGLE_TURN_TASKS}"
        )
    # a problem-set file of a problem without a known solution (in no shipped set) has neither
    # example-hint nor size-hint documents
    unsolved = tmp_path / "set.jsonl"
    generated = Problem.of_colors("P3 | P3 | K5", "green-determiner")
    unsolved.write_text(json.dumps(generated.to_json()) + "\n")
    with pytest.raises(glue.NoDocumentsError, match="the size-hint setting.*structural_hint$"):
        glue.load_dataset("size-hint", dataset=str(unsolved))
    [row] = glue.load_dataset("zero-shot", problem_set="extended", problems=THREE_COLOR)["test"]
    assert row["problem_id"] == THREE_COLOR and row["colors"] == ["P3", "P3", "K1,3"]


def documented_commands() -> dict[str, list[str]]:
    """Every ``lm_eval`` command of the docs (docs/integrations.md, the task folder's README), as
    arguments, by the tasks it runs; commands that differ only in the values the test replaces
    (server, selection, output folder, concurrency) are one."""
    found: dict[str, list[str]] = {}
    for doc in DOCS:
        for block in re.findall(r"```bash\n(.*?)```", doc.read_text(), re.S):
            for line in block.replace("\\\n", " ").splitlines():
                if not line.strip().startswith("lm_eval "):
                    continue
                words = shlex.split(line)[1:]
                include = words.index("--include_path") + 1
                assert words[include] == "$(python -m ramseygadgets.integrations.lm_eval)"
                words[include] = str(lm_eval_include_path())
                tasks = words[words.index("--tasks") + 1]
                if tasks in found:
                    assert _replaced(words) == _replaced(found[tasks]), line
                found.setdefault(tasks, words)
    return found


#: What the test replaces in a documented command (the server, the selection, the output folder).
_MODEL_ARGS = ("model", "base_url", "num_concurrent")
_SELECTION = ("problems", "problem_set", "dataset")


def _model_args(words: list[str]) -> dict[str, str]:
    value = words[words.index("--model_args") + 1]
    return dict(item.split("=", 1) for item in value.split(","))


def _replaced(words: list[str]) -> list[Any]:
    """The command without the values the test replaces."""
    out: list[Any] = list(words)
    out[out.index("--model_args") + 1] = {
        k: v for k, v in _model_args(words).items() if k not in _MODEL_ARGS
    }
    metadata = json.loads(out[out.index("--metadata") + 1])
    out[out.index("--metadata") + 1] = {k: v for k, v in metadata.items() if k not in _SELECTION}
    out[out.index("--output_path") + 1] = None
    return out


def test_the_docs_document_the_tag_and_the_single_turn_tasks() -> None:
    assert set(documented_commands()) == {"ramsey_gadgets", SINGLE_TURN_TASKS}


def _option(words: list[str], name: str, value: str) -> list[str]:
    out = list(words)
    out[out.index(name) + 1] = value
    return out


@pytest.mark.parametrize(
    "tasks,problems",
    [
        ("ramsey_gadgets", WITH_EXAMPLE_HINT),
        ("ramsey_gadgets", NO_EXAMPLE_HINT),
        ("ramsey_gadgets", THREE_COLOR),
        (SINGLE_TURN_TASKS, NO_EXAMPLE_HINT),
        (SINGLE_TURN_TASKS, THREE_COLOR),
    ],
    ids=[
        "tag-with-example-hint",
        "tag-no-example-hint",
        "tag-three-colour",
        "tasks-no-example-hint",
        "tasks-three-colour",
    ],
)
@pytest.mark.integration
def test_documented_command_on_a_selection(tasks: str, problems: str, tmp_path: Path) -> None:
    """The documented command against a loopback server with the selection in ``--metadata``:
    it runs every task that has documents on exactly the project's prompts, or, where one of
    its tasks has none (the tag on a selection without example-hint problems), stops before any
    model call with the clear message instead of lm-eval's IndexError."""
    openai_mock = mock_server()
    words = documented_commands()[tasks]
    assert words[words.index("--model") + 1] == "local-chat-completions"
    metadata = json.loads(words[words.index("--metadata") + 1])
    metadata = {k: v for k, v in metadata.items() if k not in _SELECTION} | {"problems": problems}
    profile = metadata.get("profile")
    selected = select_for_framework(problems)
    expected: dict[str, dict[tuple[str, ...], str]] = {}  # task → prompt → problem id
    for setting in glue.LM_EVAL_SETTINGS:
        rows = glue.dataset_rows(setting, problems, profile=profile)
        if rows:
            expected[glue.task_name(setting)] = {
                tuple(t for t in (r["system"], r["user"]) if t): r["problem_id"] for r in rows
            }
    answers = {}
    for problem in selected.problems:
        solution = selected.solution(problem)
        assert solution is not None
        answers[problem.id] = format_answer(solution, problem.kind)
    by_prompt = {prompt: pid for per_task in expected.values() for prompt, pid in per_task.items()}

    def script(info: Any) -> Any:
        prompt = tuple(m["content"] for m in info.body["messages"])
        return openai_mock.Reply(answers[by_prompt[prompt]])

    model_args = _model_args(words)
    with openai_mock.MockOpenAIServer(script, models=("mock-model",)) as server:
        model_args.update(
            model="mock-model", base_url=f"{server.base_url}/chat/completions", num_concurrent="1"
        )
        arguments = _option(
            words, "--model_args", ",".join(f"{k}={v}" for k, v in model_args.items())
        )
        arguments = _option(arguments, "--metadata", json.dumps(metadata))
        arguments = _option(arguments, "--output_path", str(tmp_path / "out"))
        done = run_lm_eval(arguments, tmp_path, builtin_tasks=False)
        prompts = [tuple(m["content"] for m in r.body["messages"]) for r in server.chat_requests()]
    wanted = (
        [glue.task_name(s) for s in glue.LM_EVAL_SETTINGS]
        if tasks == "ramsey_gadgets"
        else tasks.split(",")
    )
    if set(wanted) - set(expected):
        assert done.returncode != 0 and prompts == []
        assert "IndexError" not in done.stderr
        assert "NoDocumentsError: ramsey_gadgets_example_hint: no selected problem has the " in (
            done.stderr
        )
        assert done.stderr.rstrip().endswith(f"--tasks {SINGLE_TURN_TASKS}")
        return
    assert done.returncode == 0, done.stderr[-3000:]
    assert "NoDocumentsError" not in done.stderr
    assert sorted(prompts) == sorted(p for task in wanted for p in expected[task])
    [results_file] = (tmp_path / "out").rglob("results_*.json")
    results = json.loads(results_file.read_text())["results"]
    for task in wanted:  # every reply is the minimal solution
        assert results[task]["acc,none"] == 1.0 and results[task]["minimal,none"] == 1.0
