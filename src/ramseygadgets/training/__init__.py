"""Train on RamseyGadgets: exact verifiable rewards, leakage-free training data (none
equivalent to one of the 70 or, by default, to the extended set), and a seeded procedural problem
stream (docs/training.md).  The stream and the leakage rule live lower down
(:mod:`ramseygadgets.problemsets.stream`, :mod:`ramseygadgets.problems.leakage`: ``eval --fresh`` uses
them too); their names are exported here as well.

>>> from ramseygadgets.training import ramsey_reward          # TRL: GRPOTrainer(reward_funcs=...)
>>> from ramseygadgets.training import ramsey_shaped_reward   # opt-in: graded by size
>>> from ramseygadgets.training import ProblemStream, StreamConfig

Nothing here imports TRL, ``datasets`` or the search engine at package import time.
"""

from __future__ import annotations

from ramseygadgets.problems.leakage import (
    COLOR_SWAP,
    benchmark_keys,
    excluded_keys,
    excluded_sets,
    is_benchmark_equivalent,
    is_published,
    problem_key,
    published_keys,
)
from ramseygadgets.problemsets.stream import (
    DEFAULT_POOL,
    ProblemStream,
    StreamConfig,
    StreamExhausted,
    TrainingDataError,
    TrainingItem,
)
from ramseygadgets.training.data import (
    TRAINING_SETTINGS,
    leaked_problems,
    training_rows,
    write_dataset,
)
from ramseygadgets.training.rewards import (
    completion_reply,
    exact_reward,
    ramsey_reward,
    ramsey_shaped_reward,
    reward_function,
    shaped_good_graph_reward,
    shaped_parseable_reward,
    shaped_reward,
)
from ramseygadgets.training.sets import problem_set_problems

__all__ = [
    "COLOR_SWAP",
    "DEFAULT_POOL",
    "ProblemStream",
    "StreamConfig",
    "StreamExhausted",
    "TRAINING_SETTINGS",
    "TrainingDataError",
    "TrainingItem",
    "benchmark_keys",
    "completion_reply",
    "exact_reward",
    "excluded_keys",
    "excluded_sets",
    "is_benchmark_equivalent",
    "is_published",
    "leaked_problems",
    "problem_key",
    "published_keys",
    "problem_set_problems",
    "ramsey_reward",
    "ramsey_shaped_reward",
    "reward_function",
    "shaped_good_graph_reward",
    "shaped_parseable_reward",
    "shaped_reward",
    "training_rows",
    "write_dataset",
]
