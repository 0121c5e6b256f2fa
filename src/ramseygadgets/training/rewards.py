"""Verifiable rewards for RL on RamseyGadgets problems.

The **exact reward** of a completion is ``1.0`` when the reply parses and the verifier accepts
the candidate, else ``0.0``.  It is computed by :func:`ramseygadgets.runs.grading.judge`, the
function that scores every ``eval`` sample, so a completion earns reward 1 exactly when ``eval``
would record it as correct (same parser, same ``<think>`` handling, same verifier, same vertex
limit).

:func:`ramsey_reward` has the signature TRL's ``GRPOTrainer(reward_funcs=...)`` calls:
``prompts`` and ``completions`` (strings, or conversational message lists) plus the dataset's
columns as keyword lists; the problem of each completion comes from the ``colors`` and
``gadget`` columns (as written by ``ramseygadgets train-data``; datasets of earlier releases
without ``colors`` give ``F`` and ``H``): :meth:`Problem.from_json`.

The **size-shaped reward** (opt-in: :func:`shaped_reward`, :data:`ramsey_shaped_reward`,
``reward(..., shaped=True)``, ``reward_function(shaped=True)``) also grades the size of a correct
answer against the problem's proven minimal vertex count n* (the ``min_vertices`` column that
``train-data`` writes): 0 for a wrong answer, 1 for a correct one on n* vertices, ``1 / (1 + n −
n*)`` for a correct one on n > n* vertices; with no proven n* (null) it is the exact reward.  The
formula is :func:`ramseygadgets.runs.sizes.size_reward`, the one the verifiers environment and
the reasoning-gym dataset use too.  The default path (:func:`exact_reward`) does not change.

Shaped rewards (:func:`shaped_parseable_reward`, :func:`shaped_good_graph_reward`) give partial
credit for an answer that can be read, or whose graph is (F,H)-good.  They are for reward
shaping only: ``eval``, the reports and the integrations' scores never use them.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ramseygadgets.answers import parse_answer
from ramseygadgets.core.errors import RamseyGadgetsError
from ramseygadgets.core.graphs import DEFAULT_MAX_VERTICES
from ramseygadgets.problems.problem import Problem
from ramseygadgets.runs.grading import grade, judge
from ramseygadgets.runs.sizes import size_reward
from ramseygadgets.verification.verifier import good_coloring

__all__ = [
    "Completion",
    "completion_reply",
    "exact_reward",
    "shaped_reward",
    "reward",
    "optimum_value",
    "PROBLEM_COLUMNS",
    "OPTIMUM_COLUMN",
    "BatchReward",
    "ramsey_reward",
    "ramsey_shaped_reward",
    "reward_function",
    "shaped_parseable_reward",
    "shaped_good_graph_reward",
]

#: A completion as TRL passes it: a string, or a list of chat messages (conversational data).
Completion = str | Sequence[Mapping[str, Any]]


def completion_reply(completion: Completion) -> tuple[str, str | None]:
    """(final reply text, separate reasoning or ``None``) of a completion.

    A conversational completion's reply is its last assistant message; a ``reasoning`` or
    ``reasoning_content`` field of that message is the separate reasoning (never searched for
    answers, as in ``eval``).
    """
    if isinstance(completion, str):
        return completion, None
    replies = [m for m in completion if m.get("role", "assistant") == "assistant"]
    if not replies:
        return "", None
    last = replies[-1]
    content = last.get("content")
    if isinstance(content, list):  # content parts: keep the text parts
        content = "".join(
            str(part.get("text", "")) for part in content if isinstance(part, Mapping)
        )
    reasoning = last.get("reasoning") or last.get("reasoning_content")
    return str(content or ""), (str(reasoning) if reasoning else None)


def exact_reward(
    problem: Problem, completion: Completion, *, max_vertices: int = DEFAULT_MAX_VERTICES
) -> float:
    """1.0 when ``eval`` would score the completion correct for ``problem``, else 0.0."""

    reply, reasoning = completion_reply(completion)
    return 1.0 if judge(problem, reply, reasoning, max_vertices)["correct"] else 0.0


def shaped_reward(
    problem: Problem,
    completion: Completion,
    optimum_vertices: int | None,
    *,
    max_vertices: int = DEFAULT_MAX_VERTICES,
) -> float:
    """The size-shaped reward (module docs): :func:`exact_reward`'s verdict, graded by
    :func:`~ramseygadgets.runs.sizes.size_reward` against the proven minimal vertex count
    ``optimum_vertices`` (``None``: no proven optimum, the exact reward)."""
    reply, reasoning = completion_reply(completion)
    verdict = grade(problem, reply, reasoning, max_vertices)
    return size_reward(verdict.correct, verdict.vertex_count, optimum_vertices)


def reward(
    problem: Problem,
    completion: Completion,
    *,
    shaped: bool = False,
    optimum_vertices: int | None = None,
    max_vertices: int = DEFAULT_MAX_VERTICES,
) -> float:
    """The exact reward, or with ``shaped=True`` the size-shaped one (module docs)."""
    if shaped:
        return shaped_reward(problem, completion, optimum_vertices, max_vertices=max_vertices)
    return exact_reward(problem, completion, max_vertices=max_vertices)


def optimum_value(value: Any) -> int | None:
    """A proven minimal vertex count as a dataset holds it: ``None`` (or a NaN, as pandas reads a
    null) for none, else a whole number ≥ 1; anything else is a clear ``ValueError``."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    try:
        count = None if isinstance(value, bool) else operator.index(value)
    except TypeError:
        count = None
    if count is None or count < 1:
        raise ValueError(f"a proven minimal vertex count must be a whole number ≥ 1, got {value!r}")
    return count


#: The columns that name a row's problem (:meth:`Problem.fields`).
PROBLEM_COLUMNS = ("colors", "F", "H", "gadget")
#: The column with a row's proven minimal vertex count (null: none), as ``train-data`` writes it.
OPTIMUM_COLUMN = "min_vertices"


def _column_problems(n: int, columns: Mapping[str, Any]) -> list[Problem]:
    """The problem of each of ``n`` rows, from the ``colors`` (or ``F`` and ``H``) and ``gadget``
    columns; a column that is missing or too short is a clear error, never a reward of 0."""
    given = {name: list(columns[name]) for name in PROBLEM_COLUMNS if name in columns}
    if "gadget" not in given or not ("colors" in given or {"F", "H"} <= given.keys()):
        raise ValueError(
            f"the reward needs the dataset columns colors (or F and H) and gadget (got: "
            f"{', '.join(sorted(columns)) or 'none'}); build the dataset with 'ramseygadgets train-data'"
        )
    short = {name: len(values) for name, values in given.items() if len(values) != n}
    if short:
        counts = ", ".join(f"{k} has {v}" for k, v in short.items())
        raise ValueError(f"{n} completions but the problem columns differ in length: {counts}")
    return [
        Problem.from_json({name: values[i] for name, values in given.items()}) for i in range(n)
    ]


def _column_optima(n: int, columns: Mapping[str, Any]) -> list[int | None]:
    """The proven minimal vertex count of each of ``n`` rows (:data:`OPTIMUM_COLUMN`)."""
    if OPTIMUM_COLUMN not in columns:
        raise ValueError(
            f"the size-shaped reward needs the dataset column {OPTIMUM_COLUMN} (the proven minimal "
            f"vertex count, null where none is proven); build the dataset with 'ramseygadgets train-data'"
        )
    values = list(columns[OPTIMUM_COLUMN])
    if len(values) != n:
        raise ValueError(f"{n} completions but {OPTIMUM_COLUMN} has {len(values)} values")
    return [optimum_value(v) for v in values]


class BatchReward:
    """A TRL reward function: ``reward(prompts, completions, **columns) -> list[float]``,
    scoring each completion against the problem its row's ``F``/``H``/``gadget`` columns name.

    An object rather than a closure so that it pickles (multiprocessing data loaders, Ray,
    ``accelerate`` launches); ``__name__`` and ``__qualname__`` are set because TRL logs each
    reward function under its ``__name__``. ``score`` must be a module-level function:
    ``score(problem, completion)``, or with ``sized`` ``score(problem, completion, optimum)``
    where ``optimum`` is the row's :data:`OPTIMUM_COLUMN` (a column the dataset must have).
    """

    def __init__(
        self, score: Callable[..., float], name: str, doc: str, *, sized: bool = False
    ) -> None:
        self.score = score
        self.sized = sized
        self.__name__ = name
        self.__qualname__ = name
        self.__doc__ = doc

    def __call__(
        self,
        prompts: Sequence[Any] | None = None,
        completions: Sequence[Completion] | None = None,
        **columns: Any,
    ) -> list[float]:
        completions = list(completions or [])
        problems = _column_problems(len(completions), columns)
        if not self.sized:
            return [self.score(p, c) for p, c in zip(problems, completions)]
        optima = _column_optima(len(completions), columns)
        return [self.score(p, c, o) for p, c, o in zip(problems, completions, optima)]

    def __repr__(self) -> str:
        return f"<reward {self.__name__}>"


def _parseable(problem: Problem, completion: Completion) -> float:

    reply, reasoning = completion_reply(completion)
    return 1.0 if parse_answer(reply, problem.kind, reasoning=reasoning).ok else 0.0


def _good_graph(problem: Problem, completion: Completion) -> float:

    reply, reasoning = completion_reply(completion)
    parsed = parse_answer(reply, problem.kind, reasoning=reasoning)
    if parsed.candidate is None:
        return 0.0
    try:
        return 1.0 if good_coloring(problem, parsed.candidate.graph) is not None else 0.0
    except RamseyGadgetsError:  # too large to check
        return 0.0


ramsey_reward = BatchReward(
    exact_reward,
    "ramsey_reward",
    """TRL reward function: the exact reward of each completion (module docs).""",
)

ramsey_shaped_reward = BatchReward(
    shaped_reward,
    "ramsey_shaped_reward",
    """TRL reward function: the size-shaped reward of each completion against its row's proven
    minimal vertex count (column ``min_vertices``; module docs).""",
    sized=True,
)


def reward_function(shaped: bool = False) -> BatchReward:
    """The TRL reward function: :data:`ramsey_reward` (exact 0/1), or with ``shaped=True``
    :data:`ramsey_shaped_reward` (module docs)."""
    return ramsey_shaped_reward if shaped else ramsey_reward


shaped_parseable_reward = BatchReward(
    _parseable,
    "shaped_parseable_reward",
    """Shaping only: 1.0 when the reply holds a readable answer.""",
)

shaped_good_graph_reward = BatchReward(
    _good_graph,
    "shaped_good_graph_reward",
    """Shaping only: 1.0 when the answer's graph has an (F,H)-good coloring.""",
)
