"""The run configuration written to ``DIR/config.json`` and checked when a run resumes.

A run directory holds samples of exactly one configuration.  These fields must match to add
samples to it: model, profile, settings, runs, problems, sampling, tool mode, the python
setting's limits, package version and dataset hash.  ``python_limits`` is
:meth:`~ramseygadgets.tools.python.PythonLimits.to_json` when ``python`` is among the settings,
else ``null``; a configuration written before the field existed reads as ``null``, which
matches a run without ``python`` (the limits do not apply) and refuses one with it (its limits
are unknown).  Operational knobs (concurrency, retries, base URL) may change between
resumes; they are recorded for information only, as is ``command``: the command line that
made the run (``ramseygadgets eval ...``, credentials redacted; ``null`` from the Python API).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from ramseygadgets import __version__
from ramseygadgets.core.errors import RamseyGadgetsError
from ramseygadgets.prompts import build_prompt, settings_for
from ramseygadgets.runs.samples import USAGE_NULLS
from ramseygadgets.verification.selection import Selection

__all__ = [
    "FORMAT_VERSION",
    "IDENTITY_FIELDS",
    "ConfigMismatchError",
    "dataset_hash",
    "make_config",
    "differences",
    "check_compatible",
]

FORMAT_VERSION = 1
#: Fields that define the experiment: a resumed run must match them exactly.
IDENTITY_FIELDS = (
    "format_version",
    "model",
    "profile",
    "settings",
    "runs",
    "problems",
    "sampling",
    "tool_mode",
    "python_limits",
    "package_version",
    "dataset_hash",
)


class ConfigMismatchError(RamseyGadgetsError):
    """A run directory holds samples of a different configuration."""


def _digest(parts: Iterable[Any]) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(json.dumps(part, sort_keys=True, separators=(",", ":"), default=str).encode())
        h.update(b"\n")
    return h.hexdigest()


def dataset_hash(problem_set: Selection, settings: Iterable[str]) -> str:
    """sha256 over the problem list, their minimal solutions and the prompt texts.

    The prompts are rendered (default profile, text tool protocol, the python setting's
    default limits: the limits a run chose are an identity field of their own) for every problem
    and setting, so any change in a template, a hint or a shipped solution changes the hash.
    """
    parts: list[Any] = [problem_set.content_hash]
    wanted = list(settings)
    for problem in problem_set.problems:
        solution = problem_set.solution(problem)
        parts.append(problem.to_json())
        parts.append(solution.to_json(problem.kind) if solution is not None else None)
        for setting in wanted:
            size = problem_set.min_vertices(problem)
            if setting in settings_for(problem, min_vertices=size, extra=True):
                parts.append(build_prompt(problem, setting, min_vertices=size).messages)
    return _digest(parts)


def make_config(
    *,
    model: str,
    model_label: str,
    profile: str | None,
    settings: list[str],
    runs: int,
    problems: list[str],
    sampling: dict[str, Any],
    tool_mode: str,
    dataset_hash: str,
    python_limits: dict[str, Any] | None = None,
    dataset: str | None = None,
    problem_set: str | None = None,
    backend: dict[str, Any] | None = None,
    command: str | None = None,
    fresh: dict[str, Any] | None = None,
    sandbox: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The run's configuration; ``problem_set``: the named set (``--set``) it ran, ``dataset``:
    the problem-set file instead; ``command``: the command line; ``fresh``: the request of a
    fresh draw (``eval --fresh``); ``python_limits``: the python setting's limits (``None``
    without that setting); ``sandbox``: which of the sandbox's protections held (python
    only).  ``command``, ``fresh`` and ``sandbox`` are information, not identity: the
    problems and the dataset hash identify the run."""
    config: dict[str, Any] = {
        "format_version": FORMAT_VERSION,
        "model": model,
        "model_label": model_label,
        "profile": profile,
        "settings": list(settings),
        "runs": runs,
        "problems": list(problems),
        "sampling": sampling,
        "tool_mode": tool_mode,
        "python_limits": python_limits,
        "package_version": __version__,
        "dataset_hash": dataset_hash,
        "dataset": dataset,
        "problem_set": problem_set,
        "backend": backend or {},
        "command": command,
        USAGE_NULLS: True,  # an unreported token count is null, a 0 was measured
        "created": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
    if fresh is not None:
        config["fresh"] = fresh
    if sandbox is not None:
        config["sandbox"] = sandbox
    return config


def _show(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def _flat(data: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested dicts as one level of dotted keys."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, dict):
            out.update(_flat(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


def differences(recorded: dict[str, Any], current: dict[str, Any]) -> list[str]:
    """Human-readable differences in the identity fields (empty when the configs agree)."""
    diffs: list[str] = []
    for name in IDENTITY_FIELDS:
        old, new = recorded.get(name), current.get(name)
        if old == new:
            continue
        if name == "python_limits" and isinstance(old, dict) and isinstance(new, dict):
            old, new = _flat(old), _flat(new)  # python_limits.program.wall_s: 60.0 -> 5.0
        if isinstance(old, dict) and isinstance(new, dict):
            keys = sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))
            diffs.extend(f"{name}.{k}: {_show(old.get(k))} -> {_show(new.get(k))}" for k in keys)
        elif name == "problems" and isinstance(old, list) and isinstance(new, list):
            added, removed = len(set(new) - set(old)), len(set(old) - set(new))
            diffs.append(
                f"problems: {len(old)} recorded, {len(new)} now ({added} added, {removed} removed)"
            )
        else:
            diffs.append(f"{name}: {_show(old)} -> {_show(new)}")
    return diffs


def check_compatible(recorded: dict[str, Any], current: dict[str, Any], directory: str) -> None:
    """Refuse to mix samples of two configurations in one run directory."""
    diffs = differences(recorded, current)
    if diffs:
        raise ConfigMismatchError(
            f"{directory} holds a run with a different configuration ({'; '.join(diffs)}); "
            f"use another --out, or repeat the original options to resume it"
        )
