"""A ``verifiers`` environment (the classic ``SingleTurnEnv`` / ``MultiTurnEnv`` API, verifiers
0.2.x): ``load_environment(**kwargs)`` for ``vf-eval`` and for RL trainers.

* single-turn settings (``zero-shot``, ``structural-hint``, ``size-hint``, ``example-hint``):
  a ``SingleTurnEnv``;
* ``multiround``: a ``MultiTurnEnv`` with the coloring tool in the text protocol of ``eval``
  (at most :data:`~ramseygadgets.prompts.MULTIROUND_ROUNDS` rounds; a reply asking the tool in
  rounds 1 and 2 gets :func:`~ramseygadgets.prompts.multiround_step`'s follow-up, the same tool
  output ``eval`` sends; any other reply, and the reply of the last round, is final).

The rubric is the exact reward (:func:`ramseygadgets.training.exact_reward`, i.e. ``eval``'s
``judge`` on the last assistant message), weight 1.  Rows: ``prompt`` (the project's messages),
``answer`` (empty: the verifier needs no reference answer) and ``info`` (``problem_id`` and the
problem's fields, :meth:`~ramseygadgets.problem.Problem.fields`: ``colors``, ``F``, ``H``,
``gadget``), from which the reward rebuilds the problem with any number of colours and any
(generated) pattern names; a row it cannot read raises an error the caller sees, never a 0.  The evaluation split is the benchmark selection (``problems``: ``all``,
``easy``, ``hard`` or ids; ``dataset``: a problem-set file); a training split comes from
``train_data`` (a ``ramseygadgets train-data`` directory, single-turn settings only).

    vf-eval ramseygadgets.integrations.verifiers_env -a '{"setting": "zero-shot"}' \\
        -m MODEL -b http://127.0.0.1:8000/v1 -k OPENAI_API_KEY -n 5 -r 1
"""

from __future__ import annotations

from typing import Any

from ramseygadgets.integrations.common import split_problem_selection
from ramseygadgets.problem import Problem
from ramseygadgets.prompts import (
    MULTIROUND_ROUNDS,
    SETTINGS,
    build_prompt,
    multiround_step,
    settings_for,
)
from ramseygadgets.selection import select_problems
from ramseygadgets.training.rewards import PROBLEM_COLUMNS, completion_reply, exact_reward

__all__ = [
    "benchmark_rows",
    "training_split",
    "ramsey_exact_reward",
    "load_environment",
]


def _info(problem: Problem) -> dict[str, Any]:
    return {"problem_id": problem.id, **problem.fields()}


def benchmark_rows(
    setting: str, problems: Any = None, dataset: str | None = None, profile: str | None = None
) -> list[dict[str, Any]]:
    """One row per selected problem for which ``setting`` exists."""

    ids, tier = split_problem_selection(problems)
    problem_set = select_problems(ids, tier, dataset)
    rows = []
    for problem in problem_set.problems:
        size = problem_set.min_vertices(problem)
        if setting not in settings_for(problem, min_vertices=size):
            continue
        prompt = build_prompt(problem, setting, profile, min_vertices=size)
        rows.append({"prompt": prompt.messages, "answer": "", "info": _info(problem)})
    return rows


def training_split(path: str) -> Any:
    """A ``train-data`` directory as verifiers rows (``prompt``, ``answer``, ``info``)."""
    from datasets import load_from_disk

    data = load_from_disk(path)
    return data.map(
        lambda row: {
            "answer": "",
            "info": {
                "problem_id": row["problem_id"],
                **{k: row[k] for k in PROBLEM_COLUMNS if k in row},
            },
        },
        remove_columns=[c for c in data.column_names if c != "prompt"],
    )


async def ramsey_exact_reward(completion: Any, info: dict[str, Any], **_: Any) -> float:
    """The exact reward: ``eval``'s verdict on the last assistant message."""
    return exact_reward(Problem.from_json(info), completion)


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


def load_environment(
    setting: str = "zero-shot",
    problems: Any = None,
    dataset: str | None = None,
    train_data: str | None = None,
    profile: str | None = None,
    **kwargs: Any,
) -> Any:
    """The environment of ``setting`` (module docs); extra ``kwargs`` go to the environment."""
    import verifiers as vf
    from datasets import Dataset

    if setting not in SETTINGS:
        raise ValueError(f"unknown setting {setting!r}; expected one of {', '.join(SETTINGS)}")
    rubric = vf.Rubric(funcs=[ramsey_exact_reward], weights=[1.0])
    eval_rows = benchmark_rows(setting, problems, dataset, profile)
    splits: dict[str, Any] = {"eval_dataset": Dataset.from_list(eval_rows)}
    if train_data is not None:
        if setting == "multiround":
            raise ValueError("train_data holds single-turn rows; use a single-turn setting")
        splits["dataset"] = training_split(train_data)
    if setting == "multiround":
        env_class = _multiround_env_class()
        return env_class(max_turns=MULTIROUND_ROUNDS, rubric=rubric, **splits, **kwargs)
    return vf.SingleTurnEnv(rubric=rubric, **splits, **kwargs)
