"""The Inspect AI task ``ramseygadgets/ramsey_gadgets`` (needs the ``inspect`` extra).

Run it with Inspect's own CLI, for example::

    inspect eval ramseygadgets/ramsey_gadgets -T setting=multiround --model vllm/Qwen/Qwen3-8B --epochs 5

* **Dataset**: one :class:`~inspect_ai.dataset.Sample` per problem (id = problem id) whose input is
  exactly the project's prompt (:func:`ramseygadgets.prompts.build_prompt`) for the setting; the
  problem (id, F, H, gadget, tier, minimal size) is in the sample metadata.  The example-hint
  setting exists for 30 problems only; other problems are left out of it.
* **Solver** (:func:`ramsey_solver`): ``generate()`` once; in the multiround setting up to three
  rounds as in the project's harness: a reply in round 1 or 2 that asks the coloring tool about a
  graph gets the tool's answer and the next round starts, a reply without a request is the final
  answer; in round 3 tools stay declared but ``tool_choice`` is ``none``.  ``tool_mode=text``:
  the request is a ```` ```coloring_tool ```` block and the answer comes back as the prompts'
  follow-up message; ``tool_mode=native``: the model calls the Inspect tool
  :func:`coloring_tool` (one call answered per round).  ``-T setting=python``: up to
  ``python_rounds`` rounds in which the model runs Python programs in the project's sandbox
  (:mod:`~ramseygadgets.integrations.inspect_python`: the same
  :class:`~ramseygadgets.tools.python.PythonTool` as ``eval``; limits as task options; refused in
  one line where the sandbox cannot run).
* **Scorer** (:func:`ramsey_scorer`): the project's parser and exact verifier
  (:func:`ramseygadgets.runs.grading.grade`, run off the event loop); value ``C``/``I``, the
  verifier's reason as explanation, and in the metadata the epoch, parse error, candidate,
  witness, finish reason, rounds, tool uses (python: also ``programs`` and ``tool_seconds``)
  and the size grade of ``eval``'s samples
  (:class:`~ramseygadgets.runs.sizes.SizeGrade`: ``candidate_vertices``, ``candidate_edges``,
  ``optimum_vertices``, ``optimum_edges``, ``minimal``, ``excess_vertices``, ``excess_edges``;
  null without a proven optimum, or for a wrong answer).
* **Metrics**: ``accuracy`` (mean over samples and epochs), ``accuracy_std`` (sample standard
  deviation, ddof = 1, of the per-epoch accuracies; the paper's "± sd over 5 runs"),
  ``pass@k`` (k = epochs: the fraction of problems solved in at least one epoch; with
  ``-T pass_k=K`` for K < epochs the unbiased estimator ``1 − C(n−c, K)/C(n, K)``) and
  :func:`size_grades`: ``minimal`` (the share of correct answers on a problem with a proven
  optimum that have its vertex count), ``excess_vertices`` (their mean excess) and
  ``size_graded`` (how many answers these two are over; the first two are absent when it is 0).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import anyio
from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import GenerateConfig
from inspect_ai.scorer import (
    CORRECT,
    INCORRECT,
    Metric,
    SampleScore,
    Score,
    Scorer,
    Target,
    Value,
    accuracy,
    metric,
    scorer,
    value_to_float,
)
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.tool import Tool, ToolDef, ToolError, ToolParams, tool
from inspect_ai.util import store

from ramseygadgets.answers import format_answer
from ramseygadgets.harness.multiround import multiround_step
from ramseygadgets.integrations.common import (
    no_problems_message,
    problem_set_record,
    reasoning_text,
    select_for_framework,
)
from ramseygadgets.integrations.inspect_python import (
    LIMITS_KEY,
    program_record,
    python_limits,
    python_rounds,
    require_python_sandbox,
)
from ramseygadgets.integrations.inspect_state import (
    CALLS_LEFT_KEY,
    ROUNDS_KEY,
    TOOL_USES_KEY,
    chat_message,
)
from ramseygadgets.problems.catalog import Problem, get_problem, in_catalog
from ramseygadgets.prompts import (
    ALL_SETTINGS,
    MULTIROUND_ROUNDS,
    build_prompt,
    followup_message,
    settings_for,
)
from ramseygadgets.prompts.profiles import get_profile
from ramseygadgets.report.metrics import pass_at_k, sample_std
from ramseygadgets.runs.grading import grade
from ramseygadgets.runs.sizes import SizeGrade, optimum_of
from ramseygadgets.tools.coloring import TOOL_NAME, run_coloring_tool, tool_spec
from ramseygadgets.tools.python import PYTHON_SETTING, PythonLimits
from ramseygadgets.verification.selection import Selection

MULTIROUND = "multiround"
TOOL_MODES = ("text", "native")
#: Inspect stop reasons → OpenAI ``finish_reason`` (the run-directory format's vocabulary).
FINISH_REASONS = {
    "stop": "stop",
    "max_tokens": "length",
    "model_length": "length",
    "tool_calls": "tool_calls",
    "content_filter": "content_filter",
}
#: Default completion budget (the paper's 32K tokens); ``--max-tokens`` overrides it.
DEFAULT_MAX_TOKENS = 32768


# =============================================================================================
# Dataset
# =============================================================================================
def build_samples(
    setting: str = "zero-shot",
    problems: str | Sequence[str] | None = None,
    *,
    dataset: str | None = None,
    problem_set: str | None = None,
    profile: Any = None,
    tool_mode: str = "text",
    python: PythonLimits | None = None,
) -> list[Sample]:
    """One Inspect sample per selected problem for which ``setting`` exists (``python``: the
    python setting's limits, default :class:`PythonLimits`)."""

    _check_options(setting, tool_mode)
    selected = select_for_framework(problems, dataset, problem_set)
    return samples_of(selected, setting, profile=profile, tool_mode=tool_mode, python=python)


def _check_options(setting: str, tool_mode: str) -> None:
    if setting not in ALL_SETTINGS:
        raise ValueError(f"unknown setting {setting!r}; expected one of {', '.join(ALL_SETTINGS)}")
    if tool_mode not in TOOL_MODES:
        raise ValueError(f"unknown tool_mode {tool_mode!r}; expected text or native")


def samples_of(
    selected: Selection,
    setting: str,
    *,
    profile: Any = None,
    tool_mode: str = "text",
    python: PythonLimits | None = None,
) -> list[Sample]:
    """The samples of the problems of ``selected`` for which ``setting`` exists (at least one)."""
    samples: list[Sample] = []
    limits = (python or PythonLimits()) if setting == PYTHON_SETTING else None
    for problem in selected.problems:
        size = selected.min_vertices(problem)
        if setting not in settings_for(problem, min_vertices=size, extra=True):
            continue
        prompt = build_prompt(
            problem, setting, profile, tool_mode=tool_mode, min_vertices=size, python=limits
        )
        solution = selected.solution(problem)
        optimum = selected.optimum(problem)
        samples.append(
            Sample(
                id=problem.id,
                input=[chat_message(m) for m in prompt.messages],
                target=format_answer(solution, problem.kind) if solution is not None else "",
                metadata={
                    "problem_id": problem.id,
                    "title": problem.title,
                    **problem.fields(),
                    "tier": problem.tier,
                    "setting": setting,
                    "tool_mode": tool_mode,
                    "min_vertices": size,
                    "optimum_vertices": None if optimum is None else optimum.vertices,
                    "optimum_edges": None if optimum is None else optimum.edges,
                    "optimum_basis": None if optimum is None else optimum.basis.to_json(),
                    "profile": getattr(profile, "name", None),
                    **({LIMITS_KEY: limits.to_json()} if limits is not None else {}),
                },
            )
        )
    if not samples:
        raise ValueError(no_problems_message(setting))
    return samples


# =============================================================================================
# The coloring tool
# =============================================================================================
async def answer_tool_request(problem: Problem, request: Any) -> str:
    """The coloring tool's text for a request (graph, arguments or request text), computed in a
    worker thread so the SAT work never blocks the event loop."""

    return await anyio.to_thread.run_sync(run_coloring_tool, problem, request)


@tool(name="coloring_tool")
def coloring_tool(
    problem_id: str | None = None, F: str | None = None, H: str | None = None
) -> Tool:
    """The multiround coloring tool for one problem's pair (F, H), as an Inspect tool.

    Give a ``problem_id`` (a catalog id, or the id of a problem with three or more colours, whose
    tool shows the good k-colorings), or ``F`` and ``H`` (pattern names).  The model-facing name,
    description and parameters are the project's :func:`~ramseygadgets.tools.coloring.tool_spec`.
    Unusable requests raise :class:`~inspect_ai.tool.ToolError` (the model sees the message).
    Inside :func:`ramsey_solver` only the first call of a round is answered.
    """

    if problem_id is not None:
        problem = get_problem(problem_id)
    elif F is not None and H is not None:
        problem = Problem.make(F, H, "red-determiner")
    else:
        raise ValueError("coloring_tool needs a problem_id, or F and H")

    async def execute(**kwargs: Any) -> str:
        calls_left = store().get(CALLS_LEFT_KEY)
        if calls_left is not None:
            if calls_left <= 0:
                raise ToolError(
                    "only one coloring-tool call is answered per round; this call was ignored"
                )
            store().set(CALLS_LEFT_KEY, calls_left - 1)
        text = await answer_tool_request(problem, dict(kwargs))
        if text.startswith("Tool error:"):
            raise ToolError(text.removeprefix("Tool error:").strip())
        return text

    function = tool_spec(problem)["function"]
    return ToolDef(
        execute,
        name=TOOL_NAME,
        description=function["description"],
        parameters=ToolParams.model_validate(function["parameters"]),
    ).as_tool()


# =============================================================================================
# Solver
# =============================================================================================
@solver
def ramsey_solver() -> Solver:
    """The project's prompt (already the sample input) + ``generate()``; multiround and python:
    see module docs."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        if state.metadata.get("setting") == PYTHON_SETTING:
            return await python_rounds(state, generate)
        if state.metadata.get("setting") != MULTIROUND:
            state = await generate(state, tool_calls="none")
            store().set(ROUNDS_KEY, 1)
            return state
        return await _multiround(state, generate)

    return solve


async def _multiround(state: TaskState, generate: Generate) -> TaskState:

    problem = Problem.from_json(state.metadata)
    native = state.metadata.get("tool_mode") == "native"
    if native:
        state.tools = [
            coloring_tool(problem_id=problem.id)
            if in_catalog(problem) or not problem.is_pair
            else coloring_tool(F=problem.F.spec, H=problem.H.spec)
        ]
    tool_uses = 0
    for round_no in range(1, MULTIROUND_ROUNDS + 1):
        last = round_no == MULTIROUND_ROUNDS
        store().set(ROUNDS_KEY, round_no)
        if native:
            state.tool_choice = "none" if last else "auto"
            store().set(CALLS_LEFT_KEY, 0 if last else 1)
            state = await generate(state, tool_calls="none" if last else "single")
            if last or not state.output.message.tool_calls:
                break
            followup = followup_message(problem, round_no + 1, None, tool_mode="native")
        else:
            state = await generate(state, tool_calls="none")
            step = await anyio.to_thread.run_sync(
                multiround_step, problem, round_no, state.output.completion
            )
            if step.final or step.followup is None:
                break
            followup = step.followup
        state.messages.append(chat_message(followup))
        tool_uses += 1
        store().set(TOOL_USES_KEY, tool_uses)
        if state.completed:
            break
    return state


# =============================================================================================
# Scorer and metrics
# =============================================================================================
_to_float = value_to_float()


def _epoch_values(scores: list[SampleScore]) -> dict[int, list[float]]:
    per_epoch: dict[int, list[float]] = defaultdict(list)
    for s in scores:
        per_epoch[int((s.score.metadata or {}).get("epoch", 1))].append(_to_float(s.score.value))
    return per_epoch


@metric(scores="unreduced")
def accuracy_std() -> Metric:
    """Sample standard deviation (ddof = 1) over epochs of the per-epoch accuracy; omitted for one epoch."""

    def compute(scores: list[SampleScore]) -> Value:

        per_epoch = _epoch_values(scores)
        std = sample_std([sum(v) / len(v) for _, v in sorted(per_epoch.items())])
        return {"accuracy_std": std}

    return compute


@metric(scores="unreduced")
def pass_at(k: int | None = None) -> Metric:
    """``pass@k`` over problems: with k = epochs (default) the fraction solved in at least one
    epoch; with k < epochs the unbiased estimator ``1 − C(n−c, k) / C(n, k)`` (Chen et al. 2021)
    averaged over the problems with at least k scored epochs."""

    def compute(scores: list[SampleScore]) -> Value:

        per_problem: dict[str, list[float]] = defaultdict(list)
        for s in scores:
            per_problem[str(s.sample_id)].append(_to_float(s.score.value))
        epochs = max((len(v) for v in per_problem.values()), default=0)
        kk = epochs if k is None else k
        values = [
            pass_at_k(len(v), sum(1 for x in v if x >= 1.0), kk)
            for v in per_problem.values()
            if kk >= 1 and len(v) >= kk
        ]
        return {f"pass@{kk}": sum(values) / len(values) if values else None}

    return compute


@metric(scores="unreduced")
def size_grades() -> Metric:
    """Over the correct answers (all epochs) on problems with a proven optimum: ``minimal`` (the
    share with the optimum's vertex count), ``excess_vertices`` (the mean excess) and
    ``size_graded`` (how many there are).  Wrong answers and problems without a proven optimum
    are left out, never counted as 0; with none left only ``size_graded`` = 0 is reported."""

    def compute(scores: list[SampleScore]) -> Value:

        graded = [
            meta
            for s in scores
            if (meta := s.score.metadata or {}).get("minimal") is not None
            and meta.get("excess_vertices") is not None
        ]
        out: dict[str, float | int] = {"size_graded": len(graded)}
        if graded:
            out["minimal"] = sum(1 for m in graded if m["minimal"] is True) / len(graded)
            out["excess_vertices"] = sum(m["excess_vertices"] for m in graded) / len(graded)
        return out

    return compute


@scorer(metrics=[accuracy(), accuracy_std(), pass_at(), size_grades()])
def ramsey_scorer() -> Scorer:
    """Parse the final reply with the project's parser and verify it exactly (see module docs)."""

    async def score(state: TaskState, target: Target) -> Score:
        problem = Problem.from_json(state.metadata)
        output = state.output
        text = output.completion if output.choices else ""
        graded = await anyio.to_thread.run_sync(grade, problem, text, reasoning_text(output))
        verdict = graded.to_json()
        sizes = SizeGrade.of(graded, optimum_of(state.metadata))
        stop_reason = output.stop_reason if output.choices else None
        metadata = {
            "problem_id": problem.id,
            "setting": state.metadata.get("setting"),
            "epoch": state.epoch,
            "correct": verdict["correct"] is True,
            "reason": verdict["reason"],
            "parse_error": verdict["parse_error"],
            "parse_error_kind": verdict.get("parse_error_kind"),
            "check": verdict.get("check"),
            "candidate": verdict["candidate"],
            "witness": verdict["witness"],
            "finish_reason": FINISH_REASONS.get(str(stop_reason), stop_reason),
            "rounds": store().get(ROUNDS_KEY),
            "tool_uses": store().get(TOOL_USES_KEY, 0),
            **sizes.to_json(),
            **(program_record() if state.metadata.get("setting") == PYTHON_SETTING else {}),
        }
        return Score(
            value=CORRECT if verdict["correct"] is True else INCORRECT,
            answer=json.dumps(verdict["candidate"]) if verdict["candidate"] is not None else None,
            explanation=verdict["reason"],
            metadata=metadata,
        )

    return score


# =============================================================================================
# Task
# =============================================================================================
def _profile(name: str | None, profiles_file: str | None = None) -> Any:
    if name is None:
        return None

    return get_profile(name, profiles_file=profiles_file)


def generate_config(profile: Any) -> GenerateConfig:
    """The profile's recommended sampling and the 32K completion budget, as Inspect config.

    OpenAI-API fields map to :class:`GenerateConfig` fields (temperature, top-p, top-k, max
    tokens, reasoning effort); the rest (min-p, repetition penalty, chat-template arguments,
    extra body) go into ``extra_body``, which vLLM reads.  Inspect's CLI options override it.
    """
    if profile is None:
        return GenerateConfig(max_tokens=DEFAULT_MAX_TOKENS)
    params = profile.request_params()
    values: dict[str, Any] = {"max_tokens": params.get("max_tokens", DEFAULT_MAX_TOKENS)}
    for name in ("temperature", "top_p", "reasoning_effort"):
        if name in params:
            values[name] = params[name]
    extra = dict(params.get("extra_body") or {})
    if "top_k" in extra:
        values["top_k"] = extra.pop("top_k")
    if extra:
        values["extra_body"] = extra
    return GenerateConfig(**values)


#: The task's version in Inspect logs (``Task(version=...)``): raise it whenever the samples, the
#: solver or the scoring change so that logs of different task definitions are not compared.
TASK_VERSION = 2


@task
def ramsey_gadgets(
    setting: str = "zero-shot",
    problems: str | list[str] | None = None,
    tool_mode: str = "text",
    profile: str | None = None,
    profiles_file: str | None = None,
    dataset: str | None = None,
    pass_k: int | None = None,
    problem_set: str | None = None,
    python_rounds: int | None = None,
    python_total_seconds: float | None = None,
    python_wall_s: float | None = None,
    python_cpu_s: int | None = None,
    python_memory_mb: int | None = None,
) -> Task:
    """RamseyGadgets: construct (F,H)-gadget graphs; answers verified exactly.

    Args:
        setting: zero-shot, structural-hint, size-hint, example-hint, multiround or python
            (the model runs Python programs in the sandbox; refused, in one line, where the
            sandbox cannot run).
        problems: ``all`` (default), a tier (``easy``/``hard``, or a size tier of the extended
            set such as ``9-10``) or problem ids (comma-separated).
        tool_mode: the multiround coloring tool or the python setting's ``run_python`` as a text
            protocol (``text``) or native tool calls (``native``).
        profile: a model profile (system-prompt handling and recommended sampling), e.g. ``qwen3-235b``.
        profiles_file: a TOML/YAML file with more model profiles.
        dataset: a problem-set file (JSON Lines of F, H, gadget) instead of the 70-problem catalog.
        pass_k: also report the unbiased pass@k for this k (k ≤ epochs).
        problem_set: the named problem set, ``paper`` (default, the 70) or ``extended`` (as
            ``eval --set``); not with ``dataset``.
        python_rounds: the python setting's rounds per problem (default 6; the last answers).
        python_total_seconds: its program seconds per problem (default 300).
        python_wall_s, python_cpu_s, python_memory_mb: its limits per program (default 60 s
            wall clock, 60 s CPU, 2048 MB).

    The task's metadata (the log's ``eval.metadata``) records the problem set the samples come
    from (``problem_set``, ``dataset``) and its ``dataset_hash`` as ``eval`` computes it, which
    ``ramseygadgets report`` shows for the log.
    """
    _check_options(setting, tool_mode)
    limits = None
    if setting == PYTHON_SETTING:
        limits = python_limits(
            python_rounds, python_total_seconds, python_wall_s, python_cpu_s, python_memory_mb
        )
        require_python_sandbox()  # refuses in one line before the first request
    chosen = _profile(profile, profiles_file)
    selected = select_for_framework(problems, dataset, problem_set)
    samples = samples_of(selected, setting, profile=chosen, tool_mode=tool_mode, python=limits)
    metrics: list[Any] = [accuracy(), accuracy_std(), pass_at(), size_grades()]
    if pass_k is not None:
        metrics.append(pass_at(int(pass_k)))
    return Task(
        dataset=MemoryDataset(samples, name=f"ramseygadgets-{setting}"),
        solver=ramsey_solver(),
        scorer=ramsey_scorer(),
        metrics=metrics,
        config=generate_config(chosen),
        metadata={
            "setting": setting,
            "tool_mode": tool_mode,
            "profile": profile,
            **problem_set_record(selected, [setting], dataset),
            **({LIMITS_KEY: limits.to_json()} if limits is not None else {}),
        },
        version=TASK_VERSION,
    )


__all__ = [
    "ramsey_gadgets",
    "ramsey_solver",
    "ramsey_scorer",
    "coloring_tool",
    "chat_message",
    "accuracy_std",
    "pass_at",
    "size_grades",
    "build_samples",
    "samples_of",
    "generate_config",
]
