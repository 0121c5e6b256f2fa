"""Train on RamseyGadgets: exact verifiable rewards, leakage-free training data, and a seeded
procedural problem stream (docs/training.md).  The stream and the leakage rule live lower down
(:mod:`ramseygadgets.problemsets.stream`, :mod:`ramseygadgets.leakage`: ``eval --fresh`` uses
them too); their names are exported here as well.

>>> from ramseygadgets.training import ramsey_reward          # TRL: GRPOTrainer(reward_funcs=...)
>>> from ramseygadgets.training import ramsey_shaped_reward   # opt-in: graded by size
>>> from ramseygadgets.training import ProblemStream, StreamConfig

Nothing here imports TRL, ``datasets`` or the search engine at package import time.
"""

from __future__ import annotations

from ramseygadgets.leakage import (
    COLOUR_SWAP,
    benchmark_keys,
    is_benchmark_equivalent,
    problem_key,
)
from ramseygadgets.problemsets.stream import (
    DEFAULT_POOL,
    ProblemStream,
    StreamConfig,
    StreamExhausted,
    TrainingDataError,
    TrainingItem,
)
from ramseygadgets.training.data import TRAINING_SETTINGS, training_rows, write_dataset
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
    "COLOUR_SWAP",
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
    "is_benchmark_equivalent",
    "problem_key",
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
