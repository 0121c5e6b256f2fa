"""``ramseygadgets eval --model openai/...`` end to end against the loopback server."""

from __future__ import annotations

import json
import zlib
from pathlib import Path

from openai_mock import Drop, Fail, Garbage, Reply, answer_script, expected_kind, tool_call
from typer.testing import CliRunner

from ramseygadgets.cli import app
from ramseygadgets.prompts import settings_for

PROBLEMS = ["p3_k3_red_determiner", "k13_c4_negative_sender", "k13_k3_clause_gadget"]


def run_eval(*args: str):
    return CliRunner().invoke(app, ["eval", "--no-progress", *args])


def records(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]


def expected_keys(problems=PROBLEMS, settings=None, runs=2) -> set[tuple[str, str, int]]:
    return {
        (p, s, r)
        for p in problems
        for s in settings_for(p)
        if settings is None or s in settings
        for r in range(runs)
    }


def check_outcome(record: dict) -> None:
    """Each sample's verdict is what the scripted model meant it to be."""
    kind = expected_kind(f"{record['problem_id']}/{record['setting']}/{record['run']}")
    assert record["error"] is None
    if kind in ("correct", "reasoning"):
        assert record["correct"] is True and record["parse_error"] is None, record["reason"]
    elif kind == "wrong":
        assert (
            record["correct"] is False
            and record["parse_error"] is None
            and record["candidate"] is not None
        )
    elif kind == "unparsed":
        assert (
            record["correct"] is False
            and record["parse_error"]
            and record["reason"] == record["parse_error"]
        )
    else:
        assert (
            kind == "truncated"
            and record["finish_reason"] == "length"
            and record["correct"] is False
        )
    if kind == "reasoning":
        assert record["reasoning"] == "Let me think about the forced edges..."


def test_every_setting_end_to_end_with_the_text_tool_protocol(mock_server, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-never-logged")
    server = mock_server(answer_script())
    out = tmp_path / "run"
    result = run_eval(
        "--model",
        "openai/mock-model",
        "--base-url",
        server.base_url,
        "--problems",
        ",".join(PROBLEMS),
        "--runs",
        "2",
        "--out",
        str(out),
        "--temperature",
        "0.6",
        "--top-k",
        "20",
        "--seed",
        "7",
        "--max-tokens",
        "1000",
    )
    assert result.exit_code == 0, result.output
    recs = records(out)
    assert {(r["problem_id"], r["setting"], r["run"]) for r in recs} == expected_keys()
    assert len(recs) == len(expected_keys())
    for r in recs:
        check_outcome(r)
        assert r["model"] == "openai/mock-model" and r["retries"] == 0 and r["latency_s"] >= 0
        assert r["min_vertices"] is not None and r["tier"] in ("easy", "hard")
    multiround = [r for r in recs if r["setting"] == "multiround"]
    for r in multiround:
        assert r["rounds"] == 2 and r["tool_calls"] == 1
        roles = [m["role"] for m in r["messages"]]
        assert roles == ["system", "user", "assistant", "user", "assistant"]
        assert "```coloring_tool" in r["messages"][2]["content"]
        assert r["messages"][3]["content"].startswith(
            "Coloring tool output for the graph you sent in round 1"
        )
        assert "This is round 2 of 3" in r["messages"][3]["content"]
        assert r["usage"]["prompt_tokens"] == 50 + 100  # summed over both rounds
    # sampling reached the server; run r is sent seed + r
    bodies = [q.body for q in server.chat_requests()]
    assert all(
        b["temperature"] == 0.6 and b["top_k"] == 20 and b["max_tokens"] == 1000 for b in bodies
    )
    assert {b["seed"] for b in bodies} == {7, 8}
    config = json.loads((out / "config.json").read_text())
    assert (
        config["sampling"]["temperature"] == 0.6
        and config["runs"] == 2
        and config["tool_mode"] == "text"
    )
    assert config["backend"]["base_url"] == server.base_url
    for path in out.iterdir():
        assert "sk-secret-never-logged" not in path.read_text()
    assert "accuracy" in result.output and "multiround" in result.output


def test_native_tool_calls_and_the_last_round(mock_server, tmp_path):
    def script(info):
        if info.round_no < 3:  # asks the tool in rounds 1 and 2, then answers
            return Reply(
                None,
                tool_calls=[
                    tool_call("color_graph", {"edges": [[0, 1], [1, 2]]}, f"c{info.round_no}")
                ],
            )
        return answer_script()(info)

    server = mock_server(script)
    out = tmp_path / "run"
    result = run_eval(
        "--model",
        "openai/mock-model",
        "--base-url",
        server.base_url,
        "--problems",
        PROBLEMS[0],
        "--setting",
        "multiround",
        "--runs",
        "1",
        "--tool-mode",
        "native",
        "--out",
        str(out),
    )
    assert result.exit_code == 0, result.output
    (r,) = records(out)
    assert r["rounds"] == 3 and r["tool_calls"] == 2
    assert [m["role"] for m in r["messages"]] == [
        "system",
        "user",
        "assistant",
        "tool",
        "user",
        "assistant",
        "tool",
        "user",
        "assistant",
    ]
    tool_message = r["messages"][3]
    assert (
        tool_message["tool_call_id"] == "c1"
        and "Graph with 3 vertices and 2 edges" in tool_message["content"]
    )
    assert "This is round 3 of 3, the last round" in r["messages"][7]["content"]
    bodies = [q.body for q in server.chat_requests()]
    assert [b["tool_choice"] for b in bodies] == ["auto", "auto", "none"]
    assert all(b["tools"][0]["function"]["name"] == "color_graph" for b in bodies)
    assert bodies[1]["messages"][3] == {
        "role": "tool",
        "tool_call_id": "c1",
        "content": tool_message["content"],
    }
    check_outcome(r)


def test_a_tool_call_in_the_last_round_is_not_an_answer(mock_server, tmp_path):
    server = mock_server(
        lambda info: Reply(None, tool_calls=[tool_call("color_graph", {"edges": [[0, 1]]})])
    )
    out = tmp_path / "run"
    result = run_eval(
        "--model",
        "openai/mock-model",
        "--base-url",
        server.base_url,
        "--problems",
        PROBLEMS[0],
        "--setting",
        "multiround",
        "--runs",
        "1",
        "--tool-mode",
        "native",
        "--out",
        str(out),
    )
    assert result.exit_code == 0, result.output
    (r,) = records(out)
    assert (
        r["rounds"] == 3
        and r["correct"] is False
        and r["parse_error"].startswith("the reply is empty")
    )


def _fault(sample: str, attempt: int):
    """Injected faults by sample: most fail on early attempts, one never recovers."""
    if sample.startswith("k13_c4_negative_sender/zero-shot/1"):
        return Fail(503, "overloaded")
    faults = [
        Fail(429, "rate limited", retry_after=0),
        Fail(500, "internal"),
        Drop(),
        Garbage(),
        Reply("slow", delay=1.5),
        None,
    ]
    fault = faults[zlib.crc32(sample.encode()) % len(faults)]
    return fault if attempt < 1 + zlib.crc32(sample.encode()) % 2 else None


def test_injected_failures_every_sample_recorded_with_its_retries(mock_server, tmp_path):
    script = answer_script()

    def faulty(info):
        return _fault(info.sample, info.attempt) or script(info)

    server = mock_server(faulty)
    out = tmp_path / "run"
    args = (
        "--model",
        "openai/mock-model",
        "--base-url",
        server.base_url,
        "--problems",
        ",".join(PROBLEMS[:2]),
        "--setting",
        "zero-shot,size-hint,multiround",
        "--runs",
        "2",
        "--out",
        str(out),
        "--max-retries",
        "3",
        "--retry-delay",
        "0.01",
        "--request-timeout",
        "0.7",
        "--max-concurrency",
        "8",
    )
    result = run_eval(*args)
    assert result.exit_code == 0, result.output
    recs = records(out)
    keys = expected_keys(PROBLEMS[:2], ("zero-shot", "size-hint", "multiround"))
    assert (
        len(recs) == len(keys) and {(r["problem_id"], r["setting"], r["run"]) for r in recs} == keys
    )
    attempts: dict[str, int] = {}
    for q in server.chat_requests():
        attempts[q.sample] = attempts.get(q.sample, 0) + 1
    for r in recs:
        sample = f"{r['problem_id']}/{r['setting']}/{r['run']}"
        # Every failed attempt the server saw is counted.  (A retry can also follow a request the
        # server never saw: one sent on a keep-alive connection the server had just closed after
        # a dropped/garbled reply, a race that shows up under load.)
        assert attempts[sample] - r["rounds"] <= r["retries"] <= 3 * r["rounds"], sample
        if sample == "k13_c4_negative_sender/zero-shot/1":
            assert (
                r["error"] == "HTTP 503: overloaded (gave up after 3 retries)" and r["retries"] == 3
            )
            assert r["correct"] is False and r["reason"] == r["error"]
        else:
            check_outcome(r)
    assert sum(r["retries"] for r in recs) > 5
    assert "1 samples ended with a backend error" in result.output

    # Re-running the same command retries only the failed sample (now answered) and archives the error.
    server.script = script
    before = len(server.chat_requests())
    result = run_eval(*args)
    assert result.exit_code == 0, result.output
    assert len(server.chat_requests()) - before == 1
    again = records(out)
    assert len(again) == len(keys) and all(r["error"] is None for r in again)
    archived = [json.loads(x) for x in (out / "errors.jsonl").read_text().splitlines()]
    assert [a["error"] for a in archived] == ["HTTP 503: overloaded (gave up after 3 retries)"]


def test_wrong_model_name_is_one_clear_line(mock_server, tmp_path):
    server = mock_server()
    result = run_eval(
        "--model",
        "openai/no-such-model",
        "--base-url",
        server.base_url,
        "--problems",
        PROBLEMS[0],
        "--out",
        str(tmp_path / "run"),
    )
    assert result.exit_code == 2
    assert result.output == (
        f"error: model 'no-such-model' is not served at {server.base_url}; it serves: mock-model\n"
    )


def test_every_request_failing_the_same_way_aborts(mock_server, tmp_path):
    server = mock_server(serve_models=False)  # no /models route: the failure shows up per request
    out = tmp_path / "run"
    result = run_eval(
        "--model",
        "openai/no-such-model",
        "--base-url",
        server.base_url,
        "--problems",
        ",".join(PROBLEMS),
        "--runs",
        "5",
        "--out",
        str(out),
        "--max-concurrency",
        "2",
    )
    assert result.exit_code == 2
    lines = [x for x in result.output.splitlines() if x.startswith("error:")]
    assert len(lines) == 1 and "Traceback" not in result.output
    assert lines[0].startswith(
        "error: every request failed the same way (3 samples): HTTP 404: "
        "The model `no-such-model` does not exist."
    )
    assert len(server.chat_requests()) <= 4  # stopped at once, not after every sample
    assert len(records(out)) <= 4


def test_server_down_is_one_clear_line(mock_server, tmp_path):
    server = mock_server()
    url = server.base_url
    server.stop()
    result = run_eval(
        "--model",
        "openai/mock-model",
        "--base-url",
        url,
        "--problems",
        PROBLEMS[0],
        "--out",
        str(tmp_path / "run"),
    )
    assert result.exit_code == 2
    assert result.output.startswith(f"error: cannot reach the model server at {url}")
    assert result.output.count("\n") == 1


def test_config_mismatch_is_refused_naming_the_fields(mock_server, tmp_path):
    server = mock_server(answer_script())
    out = tmp_path / "run"
    common = (
        "--model",
        "openai/mock-model",
        "--base-url",
        server.base_url,
        "--problems",
        PROBLEMS[0],
        "--setting",
        "zero-shot",
        "--out",
        str(out),
    )
    assert run_eval(*common, "--runs", "1").exit_code == 0
    result = run_eval(*common, "--runs", "2", "--temperature", "0.3")
    assert result.exit_code == 2
    assert "holds a run with a different configuration" in result.output
    assert "runs: 1 -> 2" in result.output and "sampling.temperature: null -> 0.3" in result.output
    # operational options may change between resumes
    result = run_eval(*common, "--runs", "1", "--max-concurrency", "3", "--max-retries", "1")
    assert result.exit_code == 0, result.output
    assert "resumed: 1 samples were already recorded, ran 0" in result.output


def test_model_profile_is_detected_from_the_model_id(mock_server, tmp_path):
    """DeepSeek-R1: no system prompt (merged into the user turn), reply forced to start with <think>."""
    model = "deepseek-ai/DeepSeek-R1"
    script = answer_script()

    def r1(info):
        reply = script(info)
        reply.content = "the forced edges... </think>\n\n" + (reply.content or "")
        return reply

    server = mock_server(r1, models=(model,))
    out = tmp_path / "run"
    result = run_eval(
        "--model",
        f"openai/{model}",
        "--base-url",
        server.base_url,
        "--problems",
        PROBLEMS[0],
        "--setting",
        "zero-shot",
        "--runs",
        "3",
        "--out",
        str(out),
    )
    assert result.exit_code == 0, result.output
    body = server.chat_requests()[0].body
    assert [m["role"] for m in body["messages"]] == ["user", "assistant"]
    assert body["messages"][0]["content"].startswith("Instructions:")
    assert body["messages"][1] == {"role": "assistant", "content": "<think>\n"}
    assert (
        body["continue_final_message"] is True
        and body["temperature"] == 0.6
        and body["top_p"] == 0.95
    )
    config = json.loads((out / "config.json").read_text())
    assert config["profile"] == "deepseek-r1" and config["model_label"] == "deepseek-r1"
    for r in records(out):
        kind = expected_kind(f"{r['problem_id']}/{r['setting']}/{r['run']}")
        if (
            kind != "reasoning"
        ):  # the server gave no reasoning field: the reply carries the forced start
            assert r["response"].startswith("<think>\nthe forced edges... </think>")
        check_outcome(r)


def test_profile_options_and_user_profiles_file(mock_server, tmp_path):
    server = mock_server(answer_script())
    common = (
        "--model",
        "openai/mock-model",
        "--base-url",
        server.base_url,
        "--problems",
        PROBLEMS[0],
        "--setting",
        "zero-shot",
        "--runs",
        "1",
    )
    result = run_eval(
        *common,
        "--model-profile",
        "qwen3-235b",
        "--temperature",
        "0.1",
        "--out",
        str(tmp_path / "a"),
    )
    assert result.exit_code == 0, result.output
    body = server.chat_requests()[-1].body
    assert (body["temperature"], body["top_p"], body["top_k"], body["repetition_penalty"]) == (
        0.1,
        0.8,
        20,
        1.05,
    )
    profiles = tmp_path / "profiles.yaml"
    profiles.write_text(
        "profiles:\n  mine:\n    base: qwen3-235b\n    top_k: 5\n"
        "    chat_template_kwargs: {enable_thinking: false}\n"
    )
    result = run_eval(
        *common,
        "--model-profile",
        "mine",
        "--profiles-file",
        str(profiles),
        "--out",
        str(tmp_path / "b"),
    )
    assert result.exit_code == 0, result.output
    body = server.chat_requests()[-1].body
    assert body["top_k"] == 5 and body["chat_template_kwargs"] == {"enable_thinking": False}
    assert json.loads((tmp_path / "b" / "config.json").read_text())["model_label"] == "mine"
