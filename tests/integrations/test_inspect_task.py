"""The Inspect AI task run with Inspect's real ``eval`` on the built-in ``mockllm/model``."""

from __future__ import annotations

import asyncio
import json
import math
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("inspect_ai", reason="the inspect extra is not installed")
pytestmark = pytest.mark.filterwarnings(
    "ignore:The .initial. parameter is deprecated:DeprecationWarning"
)

from inspect_ai.tool import ToolError  # noqa: E402
from inspect_scripted import (  # noqa: E402
    WRONG_SENDER,
    ZERO_SHOT_CORRECT,
    ZERO_SHOT_MIXED,
    ZERO_SHOT_UNPARSABLE,
    Calls,
    ScriptedModel,
    Text,
    run_task,
    solution_answer,
    solution_edges,
)

from ramseygadgets.answers import format_answer, parse_answer  # noqa: E402
from ramseygadgets.core.gadgets import Candidate  # noqa: E402
from ramseygadgets.core.graphs import Graph  # noqa: E402
from ramseygadgets.integrations.inspect_task import (  # noqa: E402
    build_samples,
    coloring_tool,
    generate_config,
    ramsey_gadgets,
)
from ramseygadgets.problems.catalog import Problem, all_problems, get_problem  # noqa: E402
from ramseygadgets.problems.solutions import get_solution  # noqa: E402
from ramseygadgets.prompts import MULTIROUND_ROUNDS, build_prompt  # noqa: E402
from ramseygadgets.prompts.profiles import all_profiles, get_profile  # noqa: E402
from ramseygadgets.search.options import SearchOptions  # noqa: E402
from ramseygadgets.tools.coloring import TOOL_MAX_VERTICES, TOOL_NAME, run_coloring_tool  # noqa: E402
from ramseygadgets.verification.verifier import verify  # noqa: E402


def metrics_of(log: Any) -> dict[str, float]:
    return {name: m.value for s in log.results.scores for name, m in s.metrics.items()}


# -- dataset ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "setting,count",
    [
        ("zero-shot", 70),
        ("structural-hint", 70),
        ("size-hint", 70),
        ("example-hint", 30),
        ("multiround", 70),
    ],
)
def test_dataset_has_one_sample_per_problem_with_the_projects_prompt(
    setting: str, count: int
) -> None:
    samples = build_samples(setting)
    assert len(samples) == count
    assert len({s.id for s in samples}) == count
    first = samples[0]
    expected = build_prompt(first.id, setting).messages
    assert [(m.role, m.text) for m in first.input] == [(m["role"], m["content"]) for m in expected]
    problem = get_problem(str(first.id))
    assert first.metadata["problem_id"] == problem.id and first.metadata["setting"] == setting
    assert (
        first.metadata["gadget"] == problem.gadget.value and first.metadata["tier"] == problem.tier
    )
    # the target is the shipped minimal solution, which the parser and verifier accept
    parsed = parse_answer(first.target, problem.kind)
    assert parsed.ok and verify(problem, parsed.candidate).correct
    assert parsed.candidate.graph.n == first.metadata["min_vertices"]


def test_problem_selection_by_tier_and_ids() -> None:
    assert {s.metadata["tier"] for s in build_samples("zero-shot", "hard")} == {"hard"}
    assert len(build_samples("zero-shot", "easy")) == 26
    assert [
        s.id for s in build_samples("zero-shot", ["p3_k3_red_determiner", "k13_k4_blue_determiner"])
    ] == ["p3_k3_red_determiner", "k13_k4_blue_determiner"]
    # example-hint leaves out problems without a P3 counterpart
    with pytest.raises(ValueError, match="no selected problem has the example-hint setting"):
        build_samples("example-hint", "p3_k3_red_determiner")


def test_problem_set_option_and_the_set_the_task_records() -> None:
    """``-T problem_set=extended`` selects from the extended set (as ``eval --set``); the task's
    metadata records the set and the hash ``eval`` computes for the same problems and setting."""
    from ramseygadgets.runs.config import dataset_hash
    from ramseygadgets.verification.selection import select_problems

    pair = "p3_p3_negative_sender"  # a two-colour problem of the extended set
    task = ramsey_gadgets(problems=pair, problem_set="extended", setting="size-hint")
    assert [s.id for s in task.dataset] == [pair]
    expected = dataset_hash(select_problems([pair], set_name="extended"), ["size-hint"])
    assert task.metadata == {
        "setting": "size-hint",
        "tool_mode": "text",
        "profile": None,
        "problem_set": "extended",
        "dataset": None,
        "dataset_hash": expected,
    }
    assert ramsey_gadgets(problems=ZERO_SHOT_CORRECT).metadata["problem_set"] == "paper"
    with pytest.raises(Exception, match="is one of the paper's 70"):
        build_samples("zero-shot", ZERO_SHOT_CORRECT, problem_set="extended")
    with pytest.raises(Exception, match="unknown problem set 'bogus'"):
        build_samples("zero-shot", problem_set="bogus")
    # with the extended set, ``problems`` also takes a size tier
    tier = {s.id for s in build_samples("zero-shot", "9-10", problem_set="extended")}
    extended = select_problems(set_name="extended").size_tiers
    assert tier == {pid for pid, t in extended.items() if t == "9-10"}


def test_task_declares_its_version() -> None:
    """Inspect records Task.version in every log (default 0): the task declares its own."""
    from ramseygadgets.integrations import inspect_task

    task = ramsey_gadgets(problems="p3_k3_red_determiner")
    assert task.version == inspect_task.TASK_VERSION == 2  # 2: the size grade


def test_bad_task_arguments_name_the_problem() -> None:
    with pytest.raises(ValueError, match="unknown setting 'one-shot'"):
        build_samples("one-shot")
    with pytest.raises(ValueError, match="unknown tool_mode 'json'"):
        build_samples("multiround", tool_mode="json")
    with pytest.raises(Exception, match="unknown problem id"):
        build_samples("zero-shot", "p3_k9_red_determiner")


@pytest.mark.parametrize("name", sorted(all_profiles()))
def test_profile_sets_prompt_shape_and_sampling(name: str) -> None:
    profile = get_profile(name)
    task = ramsey_gadgets(problems="p3_k3_red_determiner", profile=name)
    params = profile.request_params()
    assert task.config.temperature == params.get("temperature")
    assert task.config.top_p == params.get("top_p")
    assert task.config.reasoning_effort == params.get("reasoning_effort")
    assert task.config.max_tokens == profile.max_tokens
    extra = dict(params.get("extra_body") or {})
    assert task.config.top_k == extra.pop("top_k", None)
    assert (task.config.extra_body or {}) == extra
    [sample] = task.dataset
    expected = build_prompt("p3_k3_red_determiner", "zero-shot", profile).messages
    assert [(m.role, m.text) for m in sample.input] == [(m["role"], m["content"]) for m in expected]
    assert generate_config(None).max_tokens == 32768


# -- zero-shot: correct, wrong and unparsable replies over two epochs ------------------------------
def test_zero_shot_scores(zero_shot_run: tuple[ScriptedModel, Any], score_of: Any) -> None:
    script, log = zero_shot_run
    assert log.eval.task == "ramseygadgets/ramsey_gadgets"
    assert log.eval.config.epochs == 2 and len(log.samples) == 6
    problem = get_problem(ZERO_SHOT_MIXED)
    wrong = parse_answer(WRONG_SENDER.text, problem.kind)
    assert (
        wrong.ok and not verify(problem, wrong.candidate).correct
    )  # the scripted wrong answer is wrong
    verdicts = {}
    for sample in log.samples:
        score = sample.scores["ramsey_scorer"]
        assert score.metadata["epoch"] == sample.epoch
        assert score.metadata["problem_id"] == sample.id
        verdicts[(sample.id, score.metadata["correct"])] = (
            verdicts.get((sample.id, score.metadata["correct"]), 0) + 1
        )
        assert score.value == ("C" if score.metadata["correct"] else "I")
        assert score.explanation == score.metadata["reason"]
    assert verdicts == {
        (ZERO_SHOT_CORRECT, True): 2,
        (ZERO_SHOT_MIXED, True): 1,
        (ZERO_SHOT_MIXED, False): 1,
        (ZERO_SHOT_UNPARSABLE, False): 2,
    }
    for epoch in (1, 2):
        unparsable = score_of(log, ZERO_SHOT_UNPARSABLE, epoch).scores["ramsey_scorer"]
        assert unparsable.metadata["parse_error"].startswith("no answer found")
        assert unparsable.metadata["candidate"] is None
        good = score_of(log, ZERO_SHOT_CORRECT, epoch).scores["ramsey_scorer"]
        assert good.metadata["parse_error"] is None and good.metadata["candidate"]["e"]
        assert good.metadata["finish_reason"] == "stop" and good.metadata["rounds"] == 1
    mixed = [score_of(log, ZERO_SHOT_MIXED, e).scores["ramsey_scorer"] for e in (1, 2)]
    wrong_score = next(s for s in mixed if not s.metadata["correct"])
    assert wrong_score.metadata["parse_error"] is None
    assert wrong_score.metadata["reason"] == verify(problem, wrong.candidate).reason
    # single-turn settings declare no tools
    assert all(call.tools == [] for call in script.calls) and len(script.calls) == 6


def test_zero_shot_metrics(zero_shot_run: tuple[ScriptedModel, Any]) -> None:
    _, log = zero_shot_run
    metrics = metrics_of(log)
    # epoch accuracies are 2/3 and 1/3 (in some order): mean 1/2, sample sd sqrt(2)/6
    assert metrics["accuracy"] == pytest.approx(0.5)
    assert metrics["accuracy_std"] == pytest.approx(math.sqrt(2) / 6)
    assert metrics["pass@2"] == pytest.approx(2 / 3)  # solved in at least one of 2 epochs
    assert metrics["pass@1"] == pytest.approx(0.5)  # unbiased pass@1 = mean accuracy


def test_every_shipped_solution_scores_correct_through_inspect(tmp_path: Path) -> None:
    """All 70 problems (all six gadget types) through the whole Inspect pipeline."""
    ids = [p.id for p in all_problems()]
    script = ScriptedModel({pid: [[solution_answer(pid)]] for pid in ids}, setting="size-hint")
    log = run_task(script, tmp_path, setting="size-hint", problems="all")
    assert len(log.samples) == 70
    failed = [s.id for s in log.samples if s.scores["ramsey_scorer"].value != "C"]
    assert failed == []
    assert metrics_of(log)["accuracy"] == 1.0


def test_truncated_reply_is_recorded_as_length(tmp_path: Path) -> None:
    problem_id = "p3_k3_blue_determiner"
    script = ScriptedModel(
        {problem_id: [[Text("<think>I will try the triangle and then", stop_reason="max_tokens")]]}
    )
    log = run_task(script, tmp_path)
    score = log.samples[0].scores["ramsey_scorer"]
    assert score.value == "I" and score.metadata["finish_reason"] == "length"
    assert score.metadata["parse_error"] and "reasoning" in score.metadata["parse_error"]
    assert "accuracy_std" not in metrics_of(log)  # undefined for one epoch


# -- multiround, plain-text protocol ---------------------------------------------------------------
def tool_block(edges: list[list[int]]) -> Text:
    return Text(
        'Let me check this graph first.\n```coloring_tool\n{"edges": ' + str(edges) + "}\n```"
    )


def test_multiround_text_protocol(tmp_path: Path) -> None:
    asks_then_answers = "k13_k4_red_determiner"
    keeps_asking = "p3_k3_blue_determiner"
    answers_at_once = "p3_k3_red_determiner"
    ask = tool_block(solution_edges(asks_then_answers))
    script = ScriptedModel(
        {
            asks_then_answers: [[ask, solution_answer(asks_then_answers)]],
            keeps_asking: [
                [
                    tool_block([[0, 1]]),
                    tool_block([[0, 1], [1, 2]]),
                    tool_block([[0, 1], [1, 2], [0, 2]]),
                ]
            ],
            answers_at_once: [[solution_answer(answers_at_once)]],
        },
        setting="multiround",
        tool_mode="text",
    )
    log = run_task(script, tmp_path, setting="multiround", tool_mode="text")
    scores = {s.id: s.scores["ramsey_scorer"] for s in log.samples}

    # round 2 opens with the tool's report on the submitted graph
    problem = get_problem(asks_then_answers)
    calls = script.for_problem(asks_then_answers)
    assert [c.round_no for c in calls] == [1, 2]
    opening = calls[1].input[-1]
    assert opening.role == "user"
    assert (
        run_coloring_tool(problem, Graph.from_edges(solution_edges(asks_then_answers)))
        in opening.text
    )
    assert scores[asks_then_answers].value == "C"
    assert (
        scores[asks_then_answers].metadata["rounds"] == 2
        and scores[asks_then_answers].metadata["tool_uses"] == 1
    )

    # three rounds at most: the round-3 tool request is not answered and is no answer
    calls = script.for_problem(keeps_asking)
    assert [c.round_no for c in calls] == [1, 2, 3]
    assert "round 3" in calls[2].input[-1].text.lower()
    assert scores[keeps_asking].value == "I"
    assert scores[keeps_asking].metadata["parse_error"] is not None
    assert scores[keeps_asking].metadata["rounds"] == MULTIROUND_ROUNDS
    assert scores[keeps_asking].metadata["tool_uses"] == 2

    # a reply without a tool request is final
    assert len(script.for_problem(answers_at_once)) == 1 and scores[answers_at_once].value == "C"
    assert all(c.tools == [] for c in script.calls)  # the text protocol declares no tools


# -- multiround, native tool calls ---------------------------------------------------------------
def test_multiround_native_tool_calls(tmp_path: Path) -> None:
    problem_id = "k13_k4_red_determiner"
    direct = "p3_k3_red_determiner"
    edges = solution_edges(problem_id)
    too_big = [[0, TOOL_MAX_VERTICES + 5]]
    script = ScriptedModel(
        {
            problem_id: [
                [
                    Calls(({"edges": edges}, {"edges": [[0, 1]]})),
                    Calls(({"edges": too_big},)),
                    solution_answer(problem_id),
                ]
            ],
            direct: [[solution_answer(direct)]],
        },
        setting="multiround",
        tool_mode="native",
    )
    log = run_task(script, tmp_path, setting="multiround", tool_mode="native")
    sample = next(s for s in log.samples if s.id == problem_id)
    score = sample.scores["ramsey_scorer"]
    assert score.value == "C"
    assert score.metadata["rounds"] == 3 and score.metadata["tool_uses"] == 2

    calls = script.for_problem(problem_id)
    assert [c.round_no for c in calls] == [1, 2, 3]
    assert [t.name for t in calls[0].tools] == [TOOL_NAME]
    assert [c.tool_choice for c in calls] == ["auto", "auto", "none"]  # round 3 must answer
    tool_messages = [m for m in sample.messages if m.role == "tool"]
    assert len(tool_messages) == 3
    problem = get_problem(problem_id)
    first, ignored, bad = tool_messages
    assert first.error is None
    assert first.text == run_coloring_tool(problem, {"edges": edges})
    assert ignored.error is not None and "only one coloring-tool call" in ignored.error.message
    assert bad.error is not None and str(TOOL_MAX_VERTICES) in bad.error.message
    # each tool round is followed by the prompts' round message
    assert "round 3" in calls[2].input[-1].text.lower() and calls[2].input[-1].role == "user"

    direct_sample = next(s for s in log.samples if s.id == direct)
    assert direct_sample.scores["ramsey_scorer"].metadata["rounds"] == 1
    assert direct_sample.scores["ramsey_scorer"].value == "C"


def test_problem_set_file_outside_the_catalog(tmp_path: Path) -> None:
    # (P3, C6): in no shipped set (a file keeps the proof of a problem that has one: the atlas
    # has (P3, K5))
    problem = Problem.make("P3", "C6", "red-determiner")
    problem_set = tmp_path / "problems.jsonl"
    problem_set.write_text('{"F": "P3", "H": "C6", "gadget": "red-determiner"}\n')
    asked = [[0, 1], [1, 2], [0, 2]]
    answer = Text('```json\n{"edges": [[0, 1], [1, 2], [0, 2]], "e": [0, 1]}\n```')
    script = ScriptedModel(
        {problem.id: [[Calls(({"edges": asked},)), answer]]},
        setting="multiround",
        tool_mode="native",
        problems={problem.id: problem},
    )
    log = run_task(
        script,
        tmp_path / "logs",
        setting="multiround",
        tool_mode="native",
        dataset=str(problem_set),
    )
    [sample] = log.samples
    assert (
        sample.metadata["F"] == "P3"
        and sample.metadata["H"] == "C6"
        and sample.metadata["min_vertices"] is None
    )
    [tool_message] = [m for m in sample.messages if m.role == "tool"]
    assert tool_message.text == run_coloring_tool(problem, {"edges": asked})
    score = sample.scores["ramsey_scorer"]
    verdict = verify(problem, parse_answer(answer.text, problem.kind).candidate)
    assert (
        score.metadata["correct"] is verdict.correct and score.metadata["reason"] == verdict.reason
    )


def unshipped() -> tuple[Problem, Candidate]:
    """A problem with no shipped proof (not one of the 70, not in the extended set or the atlas)
    and its minimal solution (6 vertices; found in under a second): a problem-set file's word is
    all there is about it, whereas a file keeps the shipped proof of any other."""
    from ramseygadgets.search.minimal import solve_minimal
    from ramseygadgets.verification.proofs import shipped_proof

    problem = Problem.make("P3", "P6", "blue-determiner")
    found = solve_minimal(problem, SearchOptions(max_vertices=7, timeout=60))
    assert shipped_proof(problem) is None and found.candidate is not None
    return problem, found.candidate


def test_minimal_and_excess_metrics_over_proven_optima_only(tmp_path: Path) -> None:
    """A problem-set file with a proven problem and one whose solution has no proof, each
    answered minimally in one epoch and padded (one edge on two new vertices) in the other:
    the scores carry the size grade of ``eval``; ``minimal`` and ``excess_vertices`` average the
    proven problem's two correct answers only, the unproven one is left out (not counted as 0),
    and the log reader hands the size grade to the report."""
    from ramseygadgets.integrations.inspect_log import sample_record
    from ramseygadgets.runs import Sample

    proven = get_problem("p3_k3_red_determiner")
    unproven, unproven_solution = unshipped()
    solutions = {proven.id: get_solution(proven.id).candidate, unproven.id: unproven_solution}
    lines = []
    for problem, claim in ((proven, True), (unproven, False)):
        solution = solutions[problem.id]
        record = {**problem.to_json(), "solution": solution.to_json(problem.kind)}
        if claim:
            record.update(proven_minimal=True, lower_bound=solution.graph.n)
        lines.append(json.dumps(record) + "\n")
    problem_set = tmp_path / "problems.jsonl"
    problem_set.write_text("".join(lines))

    def replies(problem: Problem) -> list[list[Text]]:
        minimal = solutions[problem.id]
        n = minimal.graph.n
        padded = Candidate(Graph(n + 2, (*minimal.graph.edges, (n, n + 1))), minimal.designated)
        return [[Text(format_answer(c, problem.kind))] for c in (minimal, padded)]

    script = ScriptedModel(
        {p.id: replies(p) for p in (proven, unproven)}, problems={unproven.id: unproven}
    )
    log = run_task(script, tmp_path / "logs", epochs=2, dataset=str(problem_set))
    metrics = metrics_of(log)
    assert metrics["accuracy"] == 1.0 and metrics["size_graded"] == 2
    assert metrics["minimal"] == pytest.approx(0.5)
    assert metrics["excess_vertices"] == pytest.approx(1.0)
    grades = {}
    for sample in log.samples:
        meta = sample.scores["ramsey_scorer"].metadata
        grades[sample.id, meta["candidate_vertices"]] = (meta["minimal"], meta["excess_vertices"])
        as_run = Sample.from_record(sample_record(sample, "mock")).sizes
        assert (as_run.minimal, as_run.excess_vertices) == (
            meta["minimal"],
            meta["excess_vertices"],
        )
    n, m = solutions[proven.id].graph.n, unproven_solution.graph.n
    assert grades == {
        (proven.id, n): (True, 0),
        (proven.id, n + 2): (False, 2),
        (unproven.id, m): (None, None),
        (unproven.id, m + 2): (None, None),
    }


def test_without_a_proven_optimum_there_is_no_minimal_metric(tmp_path: Path) -> None:
    problem, solution = unshipped()
    record = {**problem.to_json(), "solution": solution.to_json(problem.kind)}
    problem_set = tmp_path / "problems.jsonl"
    problem_set.write_text(json.dumps(record) + "\n")
    answer = Text(format_answer(solution, problem.kind))
    script = ScriptedModel({problem.id: [[answer]]}, problems={problem.id: problem})
    log = run_task(script, tmp_path / "logs", dataset=str(problem_set))
    metrics = metrics_of(log)
    assert metrics["accuracy"] == 1.0 and metrics["size_graded"] == 0
    assert "minimal" not in metrics and "excess_vertices" not in metrics


def test_coloring_tool_standalone() -> None:
    problem = get_problem("p3_k3_red_determiner")
    tool = coloring_tool(problem_id=problem.id)
    text = asyncio.run(tool(edges=[[0, 1], [1, 2], [0, 2]]))
    assert text == run_coloring_tool(problem, {"edges": [[0, 1], [1, 2], [0, 2]]})
    with pytest.raises(ToolError, match="vertices"):
        asyncio.run(tool(edges=[[0, TOOL_MAX_VERTICES + 1]]))
    with pytest.raises(ValueError, match="problem_id, or F and H"):
        coloring_tool()
    by_pair = coloring_tool(F="K1,3", H="K4")
    assert "K4" in asyncio.run(by_pair(edges=[[0, 1]]))


# -- the documented command line, with Inspect's vLLM provider -------------------------------------
@pytest.mark.integration
def test_inspect_cli_with_vllm_provider_against_a_loopback_server(tmp_path: Path) -> None:
    """``inspect eval ramseygadgets/ramsey_gadgets -T setting=multiround --model vllm/... --epochs 2``
    against a loopback server speaking vLLM's OpenAI protocol (reasoning field, tool calls)."""
    import json
    import os
    import subprocess
    import sys

    from inspect_ai.log import read_eval_log

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "harness"))
    try:
        from openai_mock import MockOpenAIServer, Reply, tool_call
    finally:
        sys.path.pop(0)
    problem, other = get_problem("k13_c4_red_determiner"), get_problem("p3_k3_red_determiner")
    edges = solution_edges(problem.id)

    def script(info: Any) -> Any:
        asked = other if other.title in info.body["messages"][1]["content"] else problem
        if not any(m["role"] == "tool" for m in info.body["messages"]):
            return Reply(
                None,
                reasoning="Let me test a graph.",
                tool_calls=[tool_call(TOOL_NAME, {"edges": solution_edges(asked.id)})],
            )
        return Reply(
            solution_answer(asked.id).text, reasoning="The tool confirms it.", reasoning_tokens=5
        )

    inspect_cli = Path(sys.executable).with_name("inspect")
    with MockOpenAIServer(script, models=("mock-model",)) as server:
        env = {**os.environ, "VLLM_BASE_URL": server.base_url}
        done = subprocess.run(
            [
                str(inspect_cli),
                "eval",
                "ramseygadgets/ramsey_gadgets",
                "-T",
                "setting=multiround",
                "-T",
                "tool_mode=native",
                "-T",
                f"problems={problem.id},{other.id}",
                "--model",
                "vllm/mock-model",
                "--epochs",
                "2",
                "--log-dir",
                str(tmp_path),
                "--display",
                "none",
            ],
            capture_output=True,
            text=True,
            timeout=240,
            env=env,
            cwd=tmp_path,
        )
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        bodies = [r.body for r in server.chat_requests()]
    assert len(bodies) == 8  # 2 problems x 2 epochs x 2 rounds
    assert all(
        b["tools"][0]["function"]["name"] == TOOL_NAME and b["max_tokens"] == 32768 for b in bodies
    )
    second_round = [
        b
        for b in bodies
        if any(m["role"] == "tool" for m in b["messages"])
        and problem.title in b["messages"][1]["content"]
    ]
    tool_text = next(m["content"] for m in second_round[0]["messages"] if m["role"] == "tool")
    assert json.dumps(run_coloring_tool(problem, {"edges": edges}))[1:-1] in json.dumps(tool_text)
    [log_file] = tmp_path.glob("*.eval")
    log = read_eval_log(str(log_file))
    metrics = metrics_of(log)
    assert (
        metrics["accuracy"] == 1.0 and metrics["pass@2"] == 1.0 and metrics["accuracy_std"] == 0.0
    )
    assert len(log.samples) == 4
    assert all(s.scores["ramsey_scorer"].metadata["rounds"] == 2 for s in log.samples)
