"""A ``verifiers`` environment (the classic ``SingleTurnEnv`` / ``MultiTurnEnv`` API, verifiers
0.2.x): ``load_environment(**kwargs)`` for ``vf-eval`` and for RL trainers.

* single-turn settings (``zero-shot``, ``structural-hint``, ``size-hint``, ``example-hint``):
  a ``SingleTurnEnv``;
* ``multiround``: a ``MultiTurnEnv`` with the coloring tool in the text protocol of ``eval``
  (at most :data:`~ramseygadgets.prompts.MULTIROUND_ROUNDS` rounds; a reply asking the tool in
  rounds 1 and 2 gets :func:`~ramseygadgets.prompts.multiround_step`'s follow-up, the same tool
  output ``eval`` sends; any other reply, and the reply of the last round, is final);
* ``python`` (not one of the paper's five): a ``MultiTurnEnv`` in which the model runs Python
  programs in the project's sandbox, in the text protocol of ``eval``: a reply with a
  ```` ```python run ```` block (:func:`~ramseygadgets.tools.python.extract_program`) has its
  program run by the rollout's :class:`~ramseygadgets.tools.python.PythonTool` (in a worker
  thread; the per-program and per-problem limits of ``eval``) and the next round opens with
  :func:`~ramseygadgets.prompts.python_followup_message` and its output; a reply without a
  program, and the reply of the last round, is final.  The limits are keyword arguments,
  ``python_rounds``, ``python_total_seconds``, ``python_wall_s``, ``python_cpu_s`` and
  ``python_memory_mb`` (as the Inspect task's options; defaults
  :class:`~ramseygadgets.tools.python.PythonLimits`), stated in the prompt.  Where the sandbox
  cannot run, ``load_environment`` raises
  :class:`~ramseygadgets.sandbox.SandboxUnavailableError` (one line) before any request.  A
  finished rollout's state holds ``programs`` (each program's record) and ``tool_seconds``
  (``state_columns=["programs", "tool_seconds"]`` puts them in the outputs); a rollout that
  ends early (timeout) kills its running program.

The rubric is the exact reward (:func:`ramseygadgets.training.exact_reward`, i.e. ``eval``'s
``judge`` on the last assistant message), weight 1; ``load_environment(shaped=True)`` makes it
the size-shaped reward (:func:`ramseygadgets.training.shaped_reward`: 1 for a correct answer on
the proven minimal vertex count, ``1 / (1 + excess vertices)`` for a larger correct one, 0 for
a wrong one, the exact reward where no optimum is proven).  Rows: ``prompt`` (the project's
messages), ``answer`` (empty: the verifier needs no reference answer) and ``info``
(``problem_id``, the problem's fields, :meth:`~ramseygadgets.problems.problem.Problem.fields`:
``colors``, ``F``, ``H``, ``gadget``, and ``optimum_vertices``, the proven minimal vertex count
or null), from which the reward rebuilds the problem with any number of colours and any
(generated) pattern names; a row it cannot read raises an error the caller sees, never a 0.  The evaluation split is the benchmark selection (``problems``: ``all``,
``easy``, ``hard`` or ids; ``dataset``: a problem-set file); a training split comes from
``train_data`` (a ``ramseygadgets train-data`` directory, single-turn settings only), checked
against the leakage rule: a directory holding a problem equivalent to one of the 70 or to an
extended problem (one written before ``train-data`` left out the extended set, or with
``--include-extended``) is refused unless ``include_extended=True`` (the 70 are refused always).

    vf-eval ramseygadgets.integrations.verifiers_env -a '{"setting": "zero-shot"}' \\
        -m MODEL -b http://127.0.0.1:8000/v1 -k OPENAI_API_KEY -n 5 -r 1
"""

from __future__ import annotations

import asyncio
from typing import Any

from ramseygadgets.harness.multiround import multiround_step
from ramseygadgets.integrations.common import split_problem_selection
from ramseygadgets.problems.leakage import PAPER_SET
from ramseygadgets.problems.problem import Problem
from ramseygadgets.prompts import (
    ALL_SETTINGS,
    MULTIROUND_ROUNDS,
    build_prompt,
    python_followup_message,
    settings_for,
)
from ramseygadgets.sandbox import require_sandbox
from ramseygadgets.tools.python import (
    PYTHON_SETTING,
    PythonLimits,
    PythonTool,
    extract_program,
    python_limits,
)
from ramseygadgets.training.data import leaked_problems
from ramseygadgets.training.rewards import (
    OPTIMUM_COLUMN,
    PROBLEM_COLUMNS,
    completion_reply,
    exact_reward,
    optimum_value,
    shaped_reward,
)
from ramseygadgets.verification.selection import Optimum, select_problems

__all__ = [
    "benchmark_rows",
    "training_split",
    "ramsey_exact_reward",
    "ramsey_shaped_reward",
    "load_environment",
]


#: The ``info`` key with the proven minimal vertex count (null: none proven).
OPTIMUM_KEY = "optimum_vertices"


def _info(problem: Problem, optimum: Optimum | None) -> dict[str, Any]:
    vertices = None if optimum is None else optimum.vertices
    return {"problem_id": problem.id, **problem.fields(), OPTIMUM_KEY: vertices}


def benchmark_rows(
    setting: str,
    problems: Any = None,
    dataset: str | None = None,
    profile: str | None = None,
    python: PythonLimits | None = None,
) -> list[dict[str, Any]]:
    """One row per selected problem for which ``setting`` exists (``python``: the python
    setting's limits, which its prompt states)."""

    ids, tier = split_problem_selection(problems)
    problem_set = select_problems(ids, tier, dataset)
    rows = []
    for problem in problem_set.problems:
        size = problem_set.min_vertices(problem)
        if setting not in settings_for(problem, min_vertices=size, extra=True):
            continue
        prompt = build_prompt(problem, setting, profile, min_vertices=size, python=python)
        info = _info(problem, problem_set.optimum(problem))
        rows.append({"prompt": prompt.messages, "answer": "", "info": info})
    return rows


def training_split(path: str, include_extended: bool = False) -> Any:
    """A ``train-data`` directory as verifiers rows (``prompt``, ``answer``, ``info``; the
    optimum is the row's ``min_vertices``, proven by ``train-data``).  A ``ValueError`` when a
    row's problem is equivalent to one of the 70 or, unless ``include_extended``, to an
    extended problem (:func:`~ramseygadgets.training.data.leaked_problems`)."""
    from datasets import load_from_disk

    data = load_from_disk(path)
    columns = [c for c in ("problem_id", *PROBLEM_COLUMNS) if c in data.column_names]
    leaked = leaked_problems(data.select_columns(columns).to_list(), include_extended)
    if leaked:
        first, where = leaked[0]
        sets = {name for _, name in leaked}
        hint = (
            "write it again with 'ramseygadgets train-data' (it leaves out the 70 and the "
            "extended set)"
            if PAPER_SET in sets
            else "write it again with 'ramseygadgets train-data' (without --include-extended), "
            "or pass include_extended=True if you never evaluate on --set extended"
        )
        raise ValueError(
            f"train_data {path} holds {len(leaked)} problem(s) equivalent to a published "
            f"problem (first: {first}, of the {where} set); {hint}"
        )
    return data.map(
        lambda row: {
            "answer": "",
            "info": {
                "problem_id": row["problem_id"],
                **{k: row[k] for k in PROBLEM_COLUMNS if k in row},
                OPTIMUM_KEY: row.get(OPTIMUM_COLUMN),
            },
        },
        remove_columns=[c for c in data.column_names if c != "prompt"],
    )


async def ramsey_exact_reward(completion: Any, info: dict[str, Any], **_: Any) -> float:
    """The exact reward: ``eval``'s verdict on the last assistant message."""
    return exact_reward(Problem.from_json(info), completion)


async def ramsey_shaped_reward(completion: Any, info: dict[str, Any], **_: Any) -> float:
    """The size-shaped reward (module docs) against ``info``'s ``optimum_vertices``."""
    optimum = optimum_value(info.get(OPTIMUM_KEY))
    return shaped_reward(Problem.from_json(info), completion, optimum)


def _multiround_env_class() -> type:
    import verifiers as vf

    class RamseyMultiroundEnv(vf.MultiTurnEnv):
        """Rounds 1..3 with the coloring tool (text protocol of ``eval``)."""

        async def env_response(self, messages: Any, state: Any, **kwargs: Any) -> Any:

            problem = Problem.from_json(state["info"])
            reply, _ = completion_reply(messages)
            round_no = sum(1 for m in messages if m.get("role") == "assistant")
            step = multiround_step(problem, round_no, reply)
            if step.final:
                state["final_env_response"] = []
                return []
            return [step.followup]

    return RamseyMultiroundEnv


#: The rollout state's key of its :class:`PythonTool` (removed when the rollout ends).
TOOL_KEY = "python_tool"


def _python_env_class() -> type:
    import verifiers as vf

    class RamseyPythonEnv(vf.MultiTurnEnv):
        """Rounds 1..``limits.rounds`` with Python programs run in the sandbox (text protocol
        of ``eval``); one :class:`PythonTool` per rollout."""

        def __init__(self, limits: PythonLimits, **kwargs: Any) -> None:
            super().__init__(max_turns=limits.rounds, **kwargs)
            self.limits = limits

        async def setup_state(self, state: Any, **kwargs: Any) -> Any:
            state[TOOL_KEY] = PythonTool(self.limits)
            state["programs"], state["tool_seconds"] = [], 0.0
            return state

        async def env_response(self, messages: Any, state: Any, **kwargs: Any) -> Any:
            reply, _ = completion_reply(messages)
            round_no = sum(1 for m in messages if m.get("role") == "assistant")
            request = extract_program(reply) if round_no < self.limits.rounds else None
            if request is None:
                state["final_env_response"] = []
                return []
            tool: PythonTool = state[TOOL_KEY]
            text = await asyncio.to_thread(tool.run, request)
            state["programs"] = [dict(r) for r in tool.runs]
            state["tool_seconds"] = tool.seconds
            return [python_followup_message(round_no + 1, self.limits.rounds, text)]

        @vf.cleanup
        async def stop_python_tool(self, state: Any) -> None:
            """Kill a program still running (a rollout that timed out) and drop the tool."""
            tool = state.pop(TOOL_KEY, None)
            if tool is not None:
                tool.stop()

    return RamseyPythonEnv


def load_environment(
    setting: str = "zero-shot",
    problems: Any = None,
    dataset: str | None = None,
    train_data: str | None = None,
    profile: str | None = None,
    shaped: bool = False,
    include_extended: bool = False,
    python_rounds: int | None = None,
    python_total_seconds: float | None = None,
    python_wall_s: float | None = None,
    python_cpu_s: int | None = None,
    python_memory_mb: int | None = None,
    **kwargs: Any,
) -> Any:
    """The environment of ``setting`` (module docs); ``shaped``: the size-shaped reward instead
    of the exact one; ``include_extended``: accept a ``train_data`` directory holding extended
    problems (:func:`training_split`); ``python_*``: the python setting's limits
    (:func:`~ramseygadgets.tools.python.python_limits`; ``None`` keeps a default); extra
    ``kwargs`` go to the environment."""
    import verifiers as vf
    from datasets import Dataset

    if setting not in ALL_SETTINGS:
        raise ValueError(f"unknown setting {setting!r}; expected one of {', '.join(ALL_SETTINGS)}")
    limits = None
    if setting == PYTHON_SETTING:
        limits = python_limits(
            python_rounds, python_total_seconds, python_wall_s, python_cpu_s, python_memory_mb
        )
        require_sandbox()  # one line where the sandbox cannot run, before any request
    reward = ramsey_shaped_reward if shaped else ramsey_exact_reward
    rubric = vf.Rubric(funcs=[reward], weights=[1.0])
    eval_rows = benchmark_rows(setting, problems, dataset, profile, limits)
    splits: dict[str, Any] = {"eval_dataset": Dataset.from_list(eval_rows)}
    if train_data is not None:
        if setting in ("multiround", PYTHON_SETTING):
            raise ValueError("train_data holds single-turn rows; use a single-turn setting")
        splits["dataset"] = training_split(train_data, include_extended)
    if limits is not None:
        env_class = _python_env_class()
        return env_class(limits, rubric=rubric, **splits, **kwargs)
    if setting == "multiround":
        env_class = _multiround_env_class()
        return env_class(max_turns=MULTIROUND_ROUNDS, rubric=rubric, **splits, **kwargs)
    return vf.SingleTurnEnv(rubric=rubric, **splits, **kwargs)
