"""What ``ramseygadgets eval`` accepts (:class:`EvalOptions`) and how the options resolve: the
model profile, the sampling settings (the profile's recommendation ← explicit options), the
option checks, the model label and the default run directory."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ramseygadgets.core.errors import RamseyGadgetsError
from ramseygadgets.core.graphs import DEFAULT_MAX_VERTICES
from ramseygadgets.harness.retry import RetryPolicy
from ramseygadgets.harness.types import Sampling
from ramseygadgets.problemsets.fresh import FreshRequest
from ramseygadgets.prompts.profiles import get_profile, profile_for_model
from ramseygadgets.tools.python import PythonLimits

__all__ = [
    "DEFAULT_BATCH",
    "DEFAULT_CONCURRENCY",
    "SAMPLING_RANGES",
    "TOOL_MODES",
    "EvalOptions",
    "check_options",
    "check_sampling_options",
    "default_out",
    "model_label",
    "resolve_profile",
    "resolve_sampling",
]

TOOL_MODES = ("text", "native")
DEFAULT_CONCURRENCY = 32
DEFAULT_BATCH = 1024
_SAMPLING = ("temperature", "top_p", "top_k", "min_p", "repetition_penalty", "max_tokens")
#: Profile fields that are sampling settings.
_PROFILE_SAMPLING = (*_SAMPLING, "reasoning_effort")
#: Options that override the profile's sampling settings.
_OPTION_SAMPLING = (*_SAMPLING, "seed")


@dataclass
class EvalOptions:
    """Everything ``ramseygadgets eval`` accepts (``None``: the default or the profile's value)."""

    out: Path
    model: str = "solver"
    settings: list[str] | None = None
    runs: int | None = None
    problems: list[str] | None = None
    tier: str | None = None
    limit: int | None = None
    dataset: str | None = None
    problem_set: str | None = None  # a named set (--set); None: paper
    fresh: FreshRequest | None = None  # --fresh N: problems drawn from the stream instead
    max_concurrency: int | None = (
        None  # default: DEFAULT_CONCURRENCY, or DEFAULT_BATCH for batch backends
    )
    temperature: float | None = None
    top_p: float | None = None
    top_k: int | None = None
    min_p: float | None = None
    repetition_penalty: float | None = None
    max_tokens: int | None = None
    seed: int | None = None
    extra_body: dict[str, Any] = field(default_factory=dict)
    profile: str | None = None
    profiles_file: str | None = None
    base_url: str | None = None
    tool_mode: str = "text"
    #: The python setting's limits (``--python-*``); ``None``: the defaults.  Refused when the
    #: settings have no ``python``.
    python: PythonLimits | None = None
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    retry_errors: bool = True
    abort_after: int = 3
    max_vertices: int = DEFAULT_MAX_VERTICES
    engine_args: dict[str, Any] = field(default_factory=dict)
    progress: bool = True
    command: str | None = None  # the command line, recorded in config.json (the CLI sets it)


def model_label(model: str, profile: Any | None) -> str:
    """Short display name: the profile's name (unless ``default``), else the model's last part."""
    if profile is not None and profile.name != "default":
        return str(profile.name)
    if model.startswith("replay:"):
        return "replay:" + Path(model.split(":", 1)[1]).stem
    return model.rstrip("/").split("/")[-1] or model


def default_out(label: str) -> Path:
    """``runs/<label>`` with the label made one safe path component: characters other than
    letters, digits and ``._+-`` become ``_``, and a name of dots (``..``) cannot climb out."""
    name = re.sub(r"[^A-Za-z0-9._+-]", "_", label).lstrip(".")[:120] or "model"
    return Path("runs") / name


def resolve_profile(name: str | None, profiles_file: str | None, model: str) -> Any:
    """The named profile, else the one whose model patterns match the model id, else ``default``."""
    if name is not None:
        return get_profile(name, profiles_file=profiles_file)
    model_id = model.split("/", 1)[1] if model.startswith(("openai/", "vllm/")) else model
    return profile_for_model(model_id, profiles_file=profiles_file)


def resolve_sampling(options: EvalOptions, profile: Any | None) -> Sampling:
    """The profile's recommended settings (``ModelProfile.request_params``) ← explicit options."""
    values: dict[str, Any] = Sampling().to_json()
    if profile is not None:
        for name in _PROFILE_SAMPLING:
            if getattr(profile, name, None) is not None:
                values[name] = getattr(profile, name)
        extra = dict(getattr(profile, "extra_body", None) or {})
        if getattr(profile, "chat_template_kwargs", None):
            extra["chat_template_kwargs"] = dict(profile.chat_template_kwargs)
        values["extra_body"] = extra
    for name in _OPTION_SAMPLING:
        if getattr(options, name) is not None:
            values[name] = getattr(options, name)
    values["extra_body"] = {**values["extra_body"], **options.extra_body}
    return Sampling(**values)


#: Valid ranges of the sampling options: (option, attribute, test, what the test asks for).
SAMPLING_RANGES = (
    ("--max-tokens", "max_tokens", lambda x: x >= 1, "at least 1"),
    ("--temperature", "temperature", lambda x: x >= 0, "at least 0"),
    ("--top-p", "top_p", lambda x: 0 < x <= 1, "in (0, 1]"),
    ("--min-p", "min_p", lambda x: 0 <= x <= 1, "in [0, 1]"),
    ("--repetition-penalty", "repetition_penalty", lambda x: x > 0, "positive"),
)


def check_sampling_options(options: EvalOptions) -> None:
    """Refuse out-of-range sampling options before any request is sent (a server would reject every sample)."""
    for option, name, valid, what in SAMPLING_RANGES:
        value = getattr(options, name)
        if value is not None and not valid(value):
            raise RamseyGadgetsError(f"{option} must be {what}, got {value}")


def check_options(options: EvalOptions) -> None:
    """Refuse a bad tool mode, concurrency, sampling option or limit, and a problem selection
    given with ``--fresh``, before anything runs."""
    if options.tool_mode not in TOOL_MODES:
        raise RamseyGadgetsError(f"--tool-mode must be text or native, got {options.tool_mode!r}")
    if options.max_concurrency is not None and options.max_concurrency < 1:
        raise RamseyGadgetsError(
            f"--max-concurrency must be at least 1, got {options.max_concurrency}"
        )
    check_sampling_options(options)
    if options.limit is not None and options.limit < 1:
        raise RamseyGadgetsError(f"--limit must be at least 1, got {options.limit}")
    if options.fresh is not None:
        chosen = [
            option
            for option, value in (
                ("--set", options.problem_set),
                ("--dataset", options.dataset),
                ("--problems", options.problems),
                ("--tier", options.tier),
            )
            if value
        ]
        if chosen:
            raise RamseyGadgetsError(
                f"--fresh draws its own problems: leave out {', '.join(chosen)}"
            )
