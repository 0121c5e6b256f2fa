"""Run the benchmark from frameworks evaluators already use.

* :mod:`ramseygadgets.integrations.inspect_task` — the Inspect AI task ``ramseygadgets/ramsey_gadgets``
  (registered through the ``inspect_ai`` entry point; needs the ``inspect`` extra);
* :mod:`ramseygadgets.integrations.inspect_log` — a reader that lets ``ramseygadgets report`` take
  Inspect ``.eval`` logs of that task as runs;
* :mod:`ramseygadgets.integrations.lm_eval` — the lm-evaluation-harness task logic; the task folder
  itself (YAML files + ``utils.py``) ships as package data, see :func:`lm_eval_include_path`;
* :mod:`ramseygadgets.integrations.verifiers_env` — a ``verifiers`` environment (``load_environment``)
  and :mod:`ramseygadgets.integrations.reasoning_gym` — the reasoning-gym dataset ``ramsey_gadgets``
  (both need the ``train`` extra; docs/training.md).

Nothing here imports Inspect, lm-eval, verifiers or reasoning-gym at package import time.
"""

from __future__ import annotations

from pathlib import Path

__all__ = [
    "LM_EVAL_TASKS_DIR",
    "lm_eval_include_path",
]


#: The lm-eval task folder shipped inside the package (pass it to ``lm_eval --include_path``).
LM_EVAL_TASKS_DIR = Path(__file__).resolve().parent / "lm_eval_tasks"


def lm_eval_include_path() -> Path:
    """The folder to give ``lm_eval --include_path`` (holds ``ramseygadgets/*.yaml`` + ``utils.py``)."""
    return LM_EVAL_TASKS_DIR
