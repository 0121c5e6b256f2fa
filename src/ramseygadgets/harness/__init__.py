"""The evaluation harness: run a model on the benchmark, resumably, and record every sample.

>>> from ramseygadgets.harness import EvalOptions, run_eval
>>> outcome = run_eval(EvalOptions(out=Path("runs/solver")))          # doctest: +SKIP

See docs/eval.md for the command line, the backends and the run-directory format.
"""

from __future__ import annotations

from ramseygadgets.harness.backends import SPEC_HELP, BackendError, make_backend
from ramseygadgets.harness.conversation import Conversation
from ramseygadgets.harness.retry import RetryPolicy
from ramseygadgets.harness.runner import EvalOptions, EvalOutcome, Evaluation, run_eval
from ramseygadgets.harness.summary import SettingSummary, summarize
from ramseygadgets.harness.types import ChatRequest, Completion, SampleKey, Sampling, Usage
from ramseygadgets.runs.config import ConfigMismatchError, check_compatible, dataset_hash
from ramseygadgets.runs.folder import RunLog, RunLogError, read_samples
from ramseygadgets.selection import ProblemSet, load_problem_file, select_problems

__all__ = [
    "SPEC_HELP",
    "BackendError",
    "make_backend",
    "ConfigMismatchError",
    "check_compatible",
    "dataset_hash",
    "Conversation",
    "ProblemSet",
    "load_problem_file",
    "select_problems",
    "RetryPolicy",
    "RunLog",
    "RunLogError",
    "read_samples",
    "EvalOptions",
    "EvalOutcome",
    "Evaluation",
    "run_eval",
    "SettingSummary",
    "summarize",
    "ChatRequest",
    "Completion",
    "SampleKey",
    "Sampling",
    "Usage",
]
