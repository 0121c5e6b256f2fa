"""The multiround conversation state machine and the batch merge, without any server."""

from __future__ import annotations

import json

from ramseygadgets.harness.conversation import Conversation
from ramseygadgets.harness.runner import merge_first_round
from ramseygadgets.harness.types import Completion, SampleKey, Sampling, Usage
from ramseygadgets.problems.catalog import get_problem
from ramseygadgets.prompts import build_prompt

PROBLEM = get_problem("p3_k3_red_determiner")


def conversation(
    setting: str = "multiround", tool_mode: str = "text", run: int = 0
) -> Conversation:
    return Conversation(
        SampleKey(PROBLEM.id, setting, run),
        PROBLEM,
        build_prompt(PROBLEM, setting, tool_mode=tool_mode),
        Sampling(),
        tool_mode=tool_mode,
    )


def call(name: str, arguments: str, call_id: str = "c") -> dict:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def test_single_round_settings_finish_after_one_reply():
    c = conversation("zero-shot")
    request = c.request()
    assert request.round_no == 1 and request.last_round and request.tools is None
    c.feed(
        Completion(
            content='```coloring_tool\n{"edges": [[0, 1]]}\n```', usage=Usage(5, 7, None, 12)
        )
    )
    assert c.finished and c.request() is None and c.calls == 1 and c.tool_uses == 0


def test_text_protocol_three_rounds_at_most():
    c = conversation()
    ask = '```coloring_tool\n{"edges": [[0, 1], [1, 2]]}\n```'
    for round_no in (1, 2):
        request = c.request()
        assert request.round_no == round_no and not request.last_round
        c.feed(Completion(content=ask, usage=Usage(10, 5, 2, 15), retries=1, latency_s=0.5))
        assert "Coloring tool output" in c.messages[-1]["content"]
    assert c.request().last_round
    assert c.usage.to_json() == {
        "prompt_tokens": 20,
        "completion_tokens": 10,
        "reasoning_tokens": 4,
        "total_tokens": 30,
    }
    c.feed(Completion(content=ask))  # round 3: a tool request is not answered
    assert c.finished and c.calls == 3 and c.tool_uses == 2 and c.response == ask
    # round 3 reported no counts: the sample's are unknown, not an undercount of 30
    assert c.usage.to_json() == dict.fromkeys(
        ("prompt_tokens", "completion_tokens", "reasoning_tokens", "total_tokens")
    )
    assert c.retries == 2


def test_answering_early_ends_the_conversation():
    c = conversation()
    c.feed(
        Completion(content='```json\n{"edges": [[0, 1]], "e": [0, 1]}\n```', reasoning="thought")
    )
    assert c.finished and c.calls == 1 and c.reasoning == "thought"
    assert c.transcript()[-1] == {
        "role": "assistant",
        "content": c.response,
        "reasoning": "thought",
    }


def test_native_tool_call_mistakes_are_answered_as_tool_errors():
    c = conversation(tool_mode="native")
    assert c.request().tools[0]["function"]["name"] == "color_graph"
    c.feed(
        Completion(
            tool_calls=[
                call("color_graph", "{not json", "a"),
                call("color_graph", '{"edges": [[0, 1]]}', "b"),
            ]
        )
    )
    tool_a, tool_b, followup = c.messages[-3:]
    assert tool_a["tool_call_id"] == "a" and tool_a["content"].startswith(
        "Tool error: the request is not valid JSON"
    )
    assert (
        tool_b["tool_call_id"] == "b"
        and "only one coloring-tool call is answered per round" in tool_b["content"]
    )
    assert followup["role"] == "user" and "This is round 2 of 3" in followup["content"]
    c.feed(Completion(tool_calls=[call("python", "{}", "x")]))
    assert "unknown tool 'python'" in c.messages[-2]["content"]
    assert c.request().last_round


def test_backend_error_ends_the_sample():
    c = conversation()
    c.feed(Completion(error="HTTP 500: boom", error_kind="http-500", retries=8))
    assert c.finished and c.error == "HTTP 500: boom" and c.retries == 8


def test_merge_first_round_groups_runs_into_n():
    convs = [conversation("zero-shot", run=r) for r in range(3)] + [
        conversation("multiround", run=0)
    ]
    convs[3].feed(
        Completion(content='```coloring_tool\n{"edges": [[0, 1]]}\n```')
    )  # now in round 2
    convs.append(conversation("multiround", run=1))
    batch, owners = merge_first_round([c.request() for c in convs], convs)
    assert [(r.key.setting, r.round_no, r.n) for r in batch] == [
        ("zero-shot", 1, 3),
        ("multiround", 2, 1),
        ("multiround", 1, 1),
    ]
    assert [len(o) for o in owners] == [3, 1, 1] and owners[0] == convs[:3]
    assert json.dumps(batch[0].messages) == json.dumps(convs[1].request().messages)
