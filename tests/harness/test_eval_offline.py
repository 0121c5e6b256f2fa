"""Offline backends: the embedded solver default, the random baseline, replay, vLLM's batch path
(with its missing-install message), problem-set files, and the progress display."""

from __future__ import annotations

import io
import json
import sys
import types
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from ramseygadgets.cli import app
from ramseygadgets.harness.runner import EvalOptions, Evaluation
from ramseygadgets.problems.catalog import all_problems, get_problem
from ramseygadgets.problems.solutions import get_solution
from ramseygadgets.prompts import settings_for
from ramseygadgets.search.options import SearchOptions


def run_eval(*args: str):
    return CliRunner().invoke(app, ["eval", "--no-progress", *args])


def records(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]


def test_no_arguments_runs_the_solver_on_all_70_problems_in_every_setting(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["eval"])
    assert result.exit_code == 0, result.output
    out = tmp_path / "runs" / "solver"
    recs = records(out)
    expected = sum(len(settings_for(p)) for p in all_problems()) * 5
    assert expected == (70 * 4 + 30) * 5 and len(recs) == expected
    assert all(r["correct"] for r in recs), [r["reason"] for r in recs if not r["correct"]][:3]
    assert {r["setting"] for r in recs} == {
        "zero-shot",
        "structural-hint",
        "size-hint",
        "example-hint",
        "multiround",
    }
    multiround = [r for r in recs if r["setting"] == "multiround"]
    assert all(r["rounds"] == 2 and r["tool_calls"] == 1 for r in multiround)
    assert all("good colorings" in r["messages"][-2]["content"] for r in multiround)
    for r in recs[:5]:
        assert r["min_vertices"] == get_solution(r["problem_id"]).n
    config = json.loads((out / "config.json").read_text())
    assert config["model"] == "solver" and config["runs"] == 5 and len(config["problems"]) == 70
    for setting in ("zero-shot", "example-hint", "multiround"):
        assert setting in result.output
    assert "100.0 ± 0.0" in result.output and "pass@5 %" in result.output
    again = CliRunner().invoke(app, ["eval"])  # the same command again: nothing left to run
    assert again.exit_code == 0 and "already recorded, ran 0" in again.output


def test_solver_native_tool_mode_and_json_summary(tmp_path):
    out = tmp_path / "run"
    result = run_eval(
        "--problems",
        "k13_k4_red_determiner",
        "--setting",
        "multiround",
        "--runs",
        "1",
        "--tool-mode",
        "native",
        "--out",
        str(out),
        "--json",
    )
    assert result.exit_code == 0, result.output
    (r,) = records(out)
    assert r["correct"] and [m["role"] for m in r["messages"]][2:] == [
        "assistant",
        "tool",
        "user",
        "assistant",
    ]
    assert r["messages"][2]["tool_calls"][0]["function"]["name"] == "color_graph"
    summary = json.loads(result.output)
    assert summary["settings"][0]["accuracy"] == 1.0 and summary["recorded"] == 1


def test_random_baseline_is_seeded_honest_and_parseable(tmp_path):
    args = (
        "--model",
        "random",
        "--problems",
        "p3_k3_red_determiner,k13_k4_variable_gadget,p3_c4_positive_sender",
        "--setting",
        "zero-shot,multiround",
        "--runs",
        "5",
    )
    assert run_eval(*args, "--out", str(tmp_path / "a")).exit_code == 0
    assert run_eval(*args, "--out", str(tmp_path / "b")).exit_code == 0
    a, b = records(tmp_path / "a"), records(tmp_path / "b")

    def responses(recs):
        return {(r["problem_id"], r["setting"], r["run"]): r["response"] for r in recs}  # noqa: E731

    assert responses(a) == responses(b) and len(responses(a)) == 30  # same seed, same answers
    assert all(r["parse_error"] is None and r["error"] is None for r in a)
    sizes = {len({v for e in r["candidate"]["edges"] for v in e}) for r in a}
    assert max(sizes) <= 10 and len(sizes) > 2
    assert len({r["response"] for r in a}) == len(a)  # runs differ
    assert sum(r["correct"] for r in a) < len(a) / 2
    c = tmp_path / "c"
    assert run_eval(*args, "--seed", "1", "--out", str(c)).exit_code == 0
    assert responses(records(c)) != responses(a)


def test_replay_rescoring_gives_the_same_verdicts(tmp_path):
    source = tmp_path / "source"
    assert (
        run_eval(
            "--model",
            "random",
            "--tier",
            "easy",
            "--setting",
            "zero-shot,multiround",
            "--runs",
            "2",
            "--out",
            str(source),
        ).exit_code
        == 0
    )
    out = tmp_path / "replayed"
    result = run_eval("--model", f"replay:{source / 'samples.jsonl'}", "--out", str(out))
    assert result.exit_code == 0, result.output
    original = {(r["problem_id"], r["setting"], r["run"]): r for r in records(source)}
    replayed = records(out)
    assert len(replayed) == len(original)
    for r in replayed:
        o = original[(r["problem_id"], r["setting"], r["run"])]
        assert (r["correct"], r["reason"], r["candidate"], r["messages"]) == (
            o["correct"],
            o["reason"],
            o["candidate"],
            o["messages"],
        )
    config = json.loads((out / "config.json").read_text())
    assert (
        config["settings"] == ["zero-shot", "multiround"]
        and config["runs"] == 2
        and len(config["problems"]) == 26
    )


def test_replay_of_a_plain_jsonl_from_another_harness(tmp_path):
    answer = json.dumps({"edges": [[0, 1]], "e": [0, 1]})
    solution = get_solution("p3_k3_red_determiner").candidate
    good = json.dumps(
        {"edges": [list(e) for e in solution.graph.edges], "e": list(solution.designated.edges[0])}
    )
    lines = [
        {
            "problem_id": "P3-K3-red-determiner",
            "setting": "zero-shot",
            "response": f"```json\n{good}\n```",
        },
        {
            "problem_id": "p3_k3_red_determiner",
            "setting": "zero-shot",
            "response": f"```json\n{answer}\n```",
            "usage": {"prompt_tokens": 10, "completion_tokens": 5},
        },
        {
            "problem_id": "p3_k3_red_determiner",
            "setting": "zero-shot",
            "response": "no idea",
            "reasoning": "hmm",
            "finish_reason": "stop",
        },
    ]
    file = tmp_path / "other.jsonl"
    file.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    out = tmp_path / "out"
    result = run_eval("--model", f"replay:{file}", "--out", str(out))
    assert result.exit_code == 0, result.output
    recs = sorted(records(out), key=lambda r: r["run"])
    assert [r["run"] for r in recs] == [0, 1, 2]
    assert [r["correct"] for r in recs] == [True, False, False]
    assert recs[1]["usage"]["total_tokens"] == 15 and recs[2]["parse_error"] is not None
    assert recs[2]["reasoning"] == "hmm"
    # a requested sample the file does not hold ends with a clear error, not a crash
    out2 = tmp_path / "out2"
    result = run_eval("--model", f"replay:{file}", "--runs", "4", "--out", str(out2))
    assert result.exit_code == 0
    missing = [r for r in records(out2) if r["run"] == 3]
    assert missing[0]["error"] == f"{file} has no response for p3_k3_red_determiner/zero-shot/3"


def test_vllm_not_installed_is_one_clear_line(tmp_path, monkeypatch):
    monkeypatch.setitem(
        sys.modules, "vllm", None
    )  # an import of vllm fails as when it is not installed
    result = run_eval("--model", "vllm/Qwen/Qwen3-8B", "--out", str(tmp_path / "run"))
    assert result.exit_code == 2
    assert result.output.startswith(
        "error: the vllm/ backend needs vLLM, which is not installed here"
    )
    assert "pip install 'ramseygadgets[vllm]'" in result.output and result.output.count("\n") == 1


class FakeLLM:
    """Stands in for ``vllm.LLM`` (vLLM needs a GPU): answers like the scripted server's model and
    records each ``chat`` call, so the batching can be checked."""

    calls: list[dict] = []

    def __init__(self, model: str, **engine_args):
        self.model, self.engine_args = model, engine_args

    def chat(self, messages, sampling_params, use_tqdm=True, **kwargs):
        from openai_mock import RequestInfo, answer_script

        FakeLLM.calls.append({"messages": messages, "params": sampling_params, "kwargs": kwargs})
        script = answer_script()
        outputs = []
        for conversation, params in zip(messages, sampling_params):
            problem_id = _problem_from_prompt(conversation)
            round_no = 1 + sum(m["role"] == "assistant" for m in conversation)
            choices = []
            for i in range(params.n):
                reply = script(
                    RequestInfo(
                        "/v1/chat/completions", {}, f"{problem_id}/multiround/{i}/{round_no}", 0, 0
                    )
                )
                text = reply.content or ""
                choices.append(
                    types.SimpleNamespace(
                        text=text,
                        token_ids=[0] * (len(text) // 4),
                        finish_reason=reply.finish_reason or "stop",
                    )
                )
            outputs.append(types.SimpleNamespace(prompt_token_ids=[0] * 100, outputs=choices))
        return outputs


def _problem_from_prompt(conversation) -> str:
    for p in all_problems():
        if conversation[1]["content"].startswith(f"Construct a {p.title}:"):
            return p.id
    raise AssertionError(conversation[1]["content"][:200])


class FakeSamplingParams:
    def __init__(self, n=1, **kwargs):
        self.n, self.kwargs = n, kwargs


def test_vllm_offline_batches_runs_as_n_and_multiround_in_waves(tmp_path, monkeypatch):
    fake = types.ModuleType("vllm")
    fake.LLM, fake.SamplingParams, fake.__version__ = FakeLLM, FakeSamplingParams, "fake"
    monkeypatch.setitem(sys.modules, "vllm", fake)
    FakeLLM.calls = []
    out = tmp_path / "run"
    result = run_eval(
        "--model",
        "vllm/some/model",
        "--problems",
        "p3_k3_red_determiner,k13_c4_negative_sender",
        "--setting",
        "multiround",
        "--runs",
        "5",
        "--engine-arg",
        "tensor_parallel_size=2",
        "--temperature",
        "0.6",
        "--out",
        str(out),
    )
    assert result.exit_code == 0, result.output
    first, second = FakeLLM.calls
    assert [p.n for p in first["params"]] == [
        5,
        5,
    ]  # one request per (problem, setting) with n = runs
    assert len(second["params"]) == 10 and all(
        p.n == 1 for p in second["params"]
    )  # round 2, per conversation
    assert first["params"][0].kwargs["temperature"] == 0.6
    recs = records(out)
    assert len(recs) == 10 and all(r["rounds"] == 2 and r["tool_calls"] == 1 for r in recs)
    assert all(r["usage"]["prompt_tokens"] == 200 for r in recs)
    config = json.loads((out / "config.json").read_text())
    assert config["backend"]["engine_args"] == {"tensor_parallel_size": 2}
    result = run_eval(
        "--model", "vllm/some/model", "--tool-mode", "native", "--out", str(tmp_path / "x")
    )
    assert result.exit_code == 2 and "supports --tool-mode text only" in result.output


def test_problem_set_file(tmp_path):
    solution = get_solution("k13_k4_red_determiner").candidate
    dataset = tmp_path / "set.jsonl"
    rows = [
        {
            "F": "K1,3",
            "H": "K4",
            "gadget": "red-determiner",
            "solution": solution.to_json(get_problem("k13_k4_red_determiner").gadget),
        },
        {"id": "p3_k3_blue_determiner"},
    ]
    dataset.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    out = tmp_path / "run"
    result = run_eval(
        "--dataset",
        str(dataset),
        "--setting",
        "zero-shot,size-hint",
        "--runs",
        "1",
        "--out",
        str(out),
    )
    assert result.exit_code == 0, result.output
    recs = records(out)
    assert {r["problem_id"] for r in recs} == {"k13_k4_red_determiner", "p3_k3_blue_determiner"}
    assert all(r["correct"] for r in recs)
    config = json.loads((out / "config.json").read_text())
    assert config["dataset"] == str(dataset)
    catalog = tmp_path / "catalog"
    assert (
        run_eval(
            "--problems",
            "k13_k4_red_determiner,p3_k3_blue_determiner",
            "--setting",
            "zero-shot,size-hint",
            "--runs",
            "1",
            "--out",
            str(catalog),
        ).exit_code
        == 0
    )
    assert (
        json.loads((catalog / "config.json").read_text())["dataset_hash"] != config["dataset_hash"]
    )
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"F": "K1,3", "H": "K4"}\n')
    result = run_eval("--dataset", str(bad), "--out", str(tmp_path / "x"))
    assert result.exit_code == 2 and "record 1 needs F, H and gadget" in result.output


@pytest.mark.parametrize(
    "args,message",
    [
        (("--setting", "zero-shot,bogus"), "unknown setting 'bogus'"),
        (("--problems", "k13_k4_red_determinr"), "did you mean k13_k4_red_determiner"),
        (("--tier", "medium"), "--tier must be easy or hard"),
        (("--runs", "0"), "--runs must be an integer in 1..1000"),
        (("--tool-mode", "json"), "--tool-mode must be text or native"),
        (("--model-profile", "qwen9"), "unknown model profile 'qwen9'"),
        (("--extra-body", "[1]"), "--extra-body must be a JSON object"),
        (("--model", "gpt4"), "unknown model 'gpt4'"),
        (("--max-tokens", "0"), "--max-tokens must be at least 1, got 0"),
        (("--temperature", "-1"), "--temperature must be at least 0"),
        (("--top-p", "5"), "--top-p must be in (0, 1]"),
        (("--min-p", "2"), "--min-p must be in [0, 1]"),
        (("--repetition-penalty", "0"), "--repetition-penalty must be positive"),
        (
            ("--model", "openai/m", "--base-url", "http://127.0.0.1:99999"),
            "invalid server URL 'http://127.0.0.1:99999'",
        ),
        (
            ("--model", "openai/m", "--base-url", "localhost:8000/v1"),
            "expected http(s)://host[:port]",
        ),
    ],
)
def test_bad_options_are_one_clear_line(tmp_path, args, message):
    result = run_eval(*args, "--out", str(tmp_path / "run"))
    assert result.exit_code == 2, result.output
    assert (
        result.output.startswith("error: ")
        and message in result.output
        and result.output.count("\n") == 1
    )


def test_progress_display_shows_counts_accuracy_tokens_retries(tmp_path):
    stream = io.StringIO()
    console = Console(file=stream, force_terminal=True, width=160)
    evaluation = Evaluation(
        EvalOptions(
            out=tmp_path / "run",
            problems=["p3_k3_red_determiner"],
            runs=2,
            settings=["zero-shot"],
            progress=True,
        ),
        console,
    )
    evaluation.prepare()
    outcome = evaluation.run()
    text = stream.getvalue()
    assert outcome.stats.recorded == 2 and "2/2" in text
    assert "acc 100.0%" in text and "retries 0" in text and "ETA" in text
    assert "tokens —" in text  # the solver reports no counts: unknown, not 0


def test_a_disk_error_stops_the_run_with_one_line(tmp_path, monkeypatch):
    import os

    real_fsync, calls = os.fsync, []

    def failing_fsync(fd):
        calls.append(fd)
        if (
            len(calls) > 2
        ):  # config.json (file and directory) gets through, the first samples do not
            raise OSError(28, "No space left on device")
        return real_fsync(fd)

    monkeypatch.setattr(os, "fsync", failing_fsync)
    out = tmp_path / "run"
    args = (
        "--problems",
        "p3_k3_red_determiner,k13_k4_red_determiner",
        "--runs",
        "3",
        "--out",
        str(out),
    )
    result = run_eval(*args)
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert (
        result.output == f"error: cannot write {out / 'samples.jsonl'}: No space left on device\n"
    )
    monkeypatch.setattr(os, "fsync", real_fsync)
    result = run_eval(*args)
    assert result.exit_code == 0, result.output
    recs = records(out)
    expected = 3 * (
        len(settings_for("p3_k3_red_determiner")) + len(settings_for("k13_k4_red_determiner"))
    )
    assert len(recs) == len({(r["problem_id"], r["setting"], r["run"]) for r in recs}) == expected


def test_solver_searches_problems_without_a_shipped_solution(tmp_path):
    dataset = tmp_path / "new.jsonl"
    # (P3, C6): in no shipped set (P3, C5 is in the extended set, whose proof a file keeps)
    dataset.write_text(json.dumps({"F": "P3", "H": "C6", "gadget": "red-determiner"}) + "\n")
    out = tmp_path / "run"
    result = run_eval(
        "--dataset",
        str(dataset),
        "--setting",
        "zero-shot,multiround",
        "--runs",
        "2",
        "--out",
        str(out),
    )
    assert result.exit_code == 0, result.output
    recs = records(out)
    assert len(recs) == 4 and all(r["correct"] for r in recs)
    assert {r["problem_id"] for r in recs} == {"p3_c6_red_determiner"} and recs[0][
        "min_vertices"
    ] is None


def test_problem_set_outside_the_catalog_gets_its_size_hint(tmp_path):
    from ramseygadgets.problems.catalog import Problem
    from ramseygadgets.search import solve

    problem = Problem.make("P3", "C5", "red-determiner")
    found = solve(problem, SearchOptions(max_vertices=8))
    assert found.candidate is not None
    dataset = tmp_path / "set.jsonl"
    dataset.write_text(
        json.dumps(
            {
                "F": "P3",
                "H": "C5",
                "gadget": "red-determiner",
                "solution": found.candidate.to_json(problem.kind),
            }
        )
        + "\n"
    )
    out = tmp_path / "run"
    result = run_eval(
        "--dataset", str(dataset), "--setting", "size-hint", "--runs", "1", "--out", str(out)
    )
    assert result.exit_code == 0, result.output
    (rec,) = records(out)
    assert rec["setting"] == "size-hint" and rec["correct"]
    assert f"exactly {found.n} vertices" in json.dumps(rec["messages"])
