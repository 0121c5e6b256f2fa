"""Prompt builders: the five settings, definitions, hints, profiles' quirks, multiround."""

from __future__ import annotations

import json
import re

import pytest

from ramseygadgets.answers import format_answer, parse_answer
from ramseygadgets.core.errors import RamseyGadgetsError
from ramseygadgets.harness.multiround import multiround_step
from ramseygadgets.problems.catalog import Problem, all_problems, get_problem
from ramseygadgets.prompts import (
    MULTIROUND_ROUNDS,
    SETTINGS,
    PromptError,
    SettingUnavailableError,
    UnknownSettingError,
    build_prompt,
    example_problem,
    followup_message,
    settings_for,
    tool_result_message,
)
from ramseygadgets.tools.coloring import TOOL_NAME
from ramseygadgets.verification.verifier import verify


def text_of(prompt) -> str:
    return "\n".join(m["content"] for m in prompt.messages)


def test_settings_constant_and_example_hint_count():
    assert SETTINGS == ("zero-shot", "structural-hint", "size-hint", "example-hint", "multiround")
    with_example = [p for p in all_problems() if "example-hint" in settings_for(p)]
    assert len(with_example) == 30
    for problem in with_example:
        counterpart = example_problem(problem)
        assert problem.F.name == "K1,3" and counterpart.F.name == "P3"
        assert (counterpart.H.name, counterpart.gadget) == (problem.H.name, problem.gadget)
    assert all(
        settings_for(p) == [s for s in SETTINGS if s != "example-hint"]
        for p in all_problems()
        if p not in with_example
    )


@pytest.mark.parametrize("problem", all_problems(), ids=lambda p: p.id)
def test_every_problem_in_every_setting_renders(problem, solutions):
    for setting in settings_for(problem):
        prompt = build_prompt(problem, setting)
        assert [m["role"] for m in prompt.messages] == ["system", "user"]
        system, user = (m["content"] for m in prompt.messages)
        assert "{{" not in system + user and "{%" not in system + user
        assert f"F = {problem.F.name}" in system and f"H = {problem.H.name}" in system
        assert f"({problem.F.name}, {problem.H.name})-{problem.gadget.value}" in system
        assert "0, 1, ..., n-1" in system and "```json" in system  # labels and the answer format
        assert f"Construct a ({problem.F.name}, {problem.H.name})-{problem.gadget.value}" in user
        for name in (*problem.gadget.edge_names, *problem.gadget.vertex_names):
            assert f'"{name}"' in system
        if problem.gadget.is_hardness:
            word = "enforced" if problem.gadget.value == "clause-gadget" else "enforcer"
            assert f"*{word}*" in system
        assert (prompt.tools is None) and prompt.rounds == (3 if setting == "multiround" else 1)


def test_system_prompt_format_example_is_parsable_but_not_a_solution():
    problem = get_problem("p3_k3_red_determiner")
    system = build_prompt(problem, "zero-shot").messages[0]["content"]
    example = parse_answer(system.split("# Answer format", 1)[1], problem.kind)
    assert example.ok and not verify(problem, example.candidate).correct


def test_hints(solutions):
    problem = get_problem("k13_k4_red_determiner")
    zero = text_of(build_prompt(problem, "zero-shot"))
    structural = text_of(build_prompt(problem, "structural-hint"))
    assert "Hint" not in zero
    assert "lies in no copy of K4" in structural and "colored blue" in structural
    size = text_of(build_prompt(problem, "size-hint"))
    n = solutions[problem.id].n
    assert re.search(rf"exactly {n} vertices", size)


@pytest.mark.parametrize(
    "problem", [p for p in all_problems() if example_problem(p)], ids=lambda p: p.id
)
def test_example_hint_shows_a_correct_p3_solution(problem, solutions):
    user = build_prompt(problem, "example-hint").messages[1]["content"]
    counterpart = example_problem(problem)
    assert f"({counterpart.F.name}, {counterpart.H.name})-{counterpart.gadget.value}" in user
    shown = parse_answer(user.split("Hint:", 1)[1], counterpart.kind)
    assert shown.candidate == solutions[counterpart.id].candidate
    assert verify(counterpart, shown.candidate).correct


def test_unknown_and_unavailable_settings_raise_clear_errors():
    with pytest.raises(UnknownSettingError, match="unknown setting 'few-shot'"):
        build_prompt("p3_k3_red_determiner", "few-shot")
    with pytest.raises(SettingUnavailableError, match="example-hint does not apply"):
        build_prompt("p3_k3_red_determiner", "example-hint")
    with pytest.raises(PromptError, match="tool mode"):
        build_prompt("p3_k3_red_determiner", "multiround", tool_mode="smoke")
    assert issubclass(UnknownSettingError, RamseyGadgetsError)


def test_problems_outside_the_catalog_get_prompts():
    problem = Problem.make("K1,4", "C5", "variable-gadget")
    assert settings_for(problem) == [
        "zero-shot",
        "structural-hint",
        "multiround",
    ]  # no solution, no P3 twin
    assert "example-hint" in settings_for(
        Problem.make("K1,4", "K4", "red-determiner")
    )  # (P3, K4) is one
    system = build_prompt(problem, "zero-shot").messages[0]["content"]
    assert "K1,4, the star with 4 leaves" in system and "C5, the cycle on 5 vertices" in system
    assert "exactly k-1 = 3 of the edges at it are red" in system
    custom = Problem.make("0-1,1-2,2-0,2-3,3-4", "K3", "red-determiner")
    assert custom.F.name == "co-banner"  # named from the table, whatever the input format
    assert (
        "It has 5 vertices and 5 edges: on the vertices 0..4 its edges are [0, 1], [0, 2], "
        "[1, 2], [2, 3], [3, 4]." in build_prompt(custom, "zero-shot").messages[0]["content"]
    )


def test_profile_quirks():
    problem = get_problem("p3_c4_clause_gadget")
    plain = build_prompt(problem, "zero-shot")
    r1 = build_prompt(problem, "zero-shot", "deepseek-r1")
    assert len(r1.messages) == 1 and r1.messages[0]["role"] == "user"
    merged = r1.messages[0]["content"]
    assert merged.startswith("Instructions:\n" + plain.messages[0]["content"])
    assert merged.endswith("Task:\n" + plain.messages[1]["content"])
    assert r1.assistant_prefix == "<think>\n"
    assert r1.messages_with_prefix()[-1] == {"role": "assistant", "content": "<think>\n"}
    gemma = build_prompt(problem, "zero-shot", "gemma-4-31b")
    assert gemma.messages[0]["content"].startswith("<|think|>\n")
    oss = build_prompt(problem, "zero-shot", "gpt-oss-120b")
    assert (
        oss.messages[0]["content"].endswith("\nReasoning: high")
        and oss.sampling["reasoning_effort"] == "high"
    )
    qwen = build_prompt(
        problem, "zero-shot", "Qwen/Qwen3-235B-A22B"
    )  # a model id picks its profile
    assert qwen.profile == "qwen3-235b" and qwen.sampling["extra_body"] == {
        "top_k": 20,
        "repetition_penalty": 1.05,
    }


def test_multiround_text_and_native():
    problem = get_problem("k13_k4_red_determiner")
    text = build_prompt(problem, "multiround")
    assert text.tools is None and "```coloring_tool" in text.messages[0]["content"]
    assert "round 1 of 3" in text.messages[1]["content"] and text.rounds == MULTIROUND_ROUNDS == 3
    native = build_prompt(problem, "multiround", tool_mode="native")
    assert native.tools[0]["function"]["name"] == TOOL_NAME
    assert (
        "```coloring_tool" not in native.messages[0]["content"]
        and TOOL_NAME in native.messages[0]["content"]
    )
    json.dumps(native.to_json())  # serialisable


def test_followup_messages():
    problem = get_problem("p3_k3_red_determiner")
    second = followup_message(problem, 2, "TOOL OUTPUT")
    assert (
        second["role"] == "user"
        and "TOOL OUTPUT" in second["content"]
        and "round 2 of 3" in second["content"]
    )
    third = followup_message(problem, 3, "TOOL OUTPUT")
    assert "round 3 of 3" in third["content"] and "final answer now" in third["content"]
    native = followup_message(problem, 3, None, tool_mode="native")
    assert "TOOL OUTPUT" not in native["content"] and "final answer now" in native["content"]
    assert tool_result_message("call_1", "x") == {
        "role": "tool",
        "tool_call_id": "call_1",
        "content": "x",
    }
    for bad in (1, 4):
        with pytest.raises(PromptError):
            followup_message(problem, bad, "x")


def test_multiround_step_runs_the_text_protocol(solutions):
    problem = get_problem("p3_k3_red_determiner")
    request = 'Let me look.\n```coloring_tool\n{"edges": [[0,1],[0,2],[1,2]]}\n```'
    step = multiround_step(problem, 1, request)
    assert not step.final and step.request.ok
    assert (
        "3 (P3, K3)-good colorings" in step.tool_text
        and step.followup["content"].count("round 2 of 3") == 1
    )
    bad = multiround_step(problem, 2, '```coloring_tool\n{"edges": [[0,0]]}\n```')
    assert (
        not bad.final
        and bad.tool_text.startswith("Tool error:")
        and "round 3 of 3" in bad.followup["content"]
    )
    assert multiround_step(problem, 3, request).final  # round 3 is always final
    answer = format_answer(solutions[problem.id].candidate, problem.kind)
    assert multiround_step(problem, 1, answer).final


def test_size_hint_outside_the_catalog_needs_a_known_size():
    problem = Problem.make("P3", "C5", "red-determiner")
    assert "size-hint" not in settings_for(problem)
    with pytest.raises(SettingUnavailableError):
        build_prompt(problem, "size-hint")
    assert "size-hint" in settings_for(problem, min_vertices=6)
    assert re.search(
        r"exactly 6 vertices", text_of(build_prompt(problem, "size-hint", min_vertices=6))
    )
