"""Model profiles: recommended sampling settings and prompt quirks per model.

A :class:`ModelProfile` says how to sample (temperature, top-p, top-k, repetition penalty,
max tokens) and how to shape the prompt for one model family:

* ``system_prompt = false``: the model takes no system prompt, so system and user text are
  merged into one user turn, marked ``Instructions:`` and ``Task:`` (the paper's convention);
* ``system_prefix`` / ``system_suffix``: lines put before / after the system prompt (Gemma's
  ``<|think|>`` tag, gpt-oss's ``Reasoning: high``);
* ``assistant_prefix``: text the reply is forced to start with (DeepSeek-R1's ``<think>``);
* ``reasoning_effort``, ``chat_template_kwargs``, ``extra_body``: request parameters for
  OpenAI-compatible servers.

Built-in profiles (``data/profiles.toml``): the paper's five models and ``default``.  Users add
or override profiles with a TOML or YAML file (:func:`load_profiles`); a profile may start from
another with ``base = "name"``.
"""

from __future__ import annotations

import difflib
import fnmatch
import tomllib
from collections.abc import Mapping
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ramseygadgets.core.errors import RamseyGadgetsError

__all__ = [
    "DEFAULT_PROFILE",
    "DEFAULT_MAX_TOKENS",
    "ProfileError",
    "ModelProfile",
    "profiles_from_mapping",
    "BUILTIN_PROFILES",
    "load_profiles",
    "all_profiles",
    "get_profile",
    "profile_for_model",
]


DEFAULT_PROFILE = "default"
DEFAULT_MAX_TOKENS = 32768


class ProfileError(RamseyGadgetsError, ValueError):
    """A profile is unknown, or a profiles file cannot be read or validated."""


class ModelProfile(BaseModel):
    """Sampling settings and prompt quirks of one model family."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    description: str = ""
    models: tuple[str, ...] = Field(
        default=(), description="model ids or glob patterns (case-insensitive)"
    )
    temperature: float | None = Field(default=None, ge=0)
    top_p: float | None = Field(default=None, gt=0, le=1)
    top_k: int | None = Field(default=None, ge=-1)
    min_p: float | None = Field(default=None, ge=0, le=1)
    repetition_penalty: float | None = Field(default=None, gt=0)
    max_tokens: int = Field(default=DEFAULT_MAX_TOKENS, gt=0)
    system_prompt: bool = True
    system_prefix: tuple[str, ...] = ()
    system_suffix: tuple[str, ...] = ()
    assistant_prefix: str | None = None
    reasoning_effort: str | None = None
    chat_template_kwargs: dict[str, Any] = Field(default_factory=dict)
    extra_body: dict[str, Any] = Field(default_factory=dict)

    def matches(self, model_id: str) -> bool:
        """Whether a model id matches one of the profile's patterns (case-insensitive globs)."""
        key = model_id.strip().lower()
        return any(fnmatch.fnmatchcase(key, pattern.lower()) for pattern in self.models)

    def apply_system(self, system: str) -> str:
        """The system text with the profile's prefix and suffix lines."""
        return "\n".join([*self.system_prefix, system, *self.system_suffix])

    def sampling_params(self) -> dict[str, Any]:
        """Keyword arguments for ``vllm.SamplingParams`` (unset values left out)."""
        params = {
            "temperature": self.temperature,
            "top_p": self.top_p,
            "top_k": self.top_k,
            "min_p": self.min_p,
            "repetition_penalty": self.repetition_penalty,
            "max_tokens": self.max_tokens,
        }
        return {k: v for k, v in params.items() if v is not None}

    def request_params(self) -> dict[str, Any]:
        """Keyword arguments for ``client.chat.completions.create`` of the ``openai`` SDK.

        Parameters outside the OpenAI API (top-k, min-p, repetition penalty, chat-template
        arguments) go into ``extra_body``, which vLLM and similar servers read.
        """
        params: dict[str, Any] = {"max_tokens": self.max_tokens}
        if self.temperature is not None:
            params["temperature"] = self.temperature
        if self.top_p is not None:
            params["top_p"] = self.top_p
        if self.reasoning_effort is not None:
            params["reasoning_effort"] = self.reasoning_effort
        extra: dict[str, Any] = {
            k: v
            for k, v in (
                ("top_k", self.top_k),
                ("min_p", self.min_p),
                ("repetition_penalty", self.repetition_penalty),
            )
            if v is not None
        }
        if self.chat_template_kwargs:
            extra["chat_template_kwargs"] = dict(self.chat_template_kwargs)
        extra.update(self.extra_body)
        if extra:
            params["extra_body"] = extra
        return params


def _validate(name: str, fields: Mapping[str, Any], where: str) -> ModelProfile:
    try:
        return ModelProfile(name=name, **fields)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(x) for x in first["loc"]) or "profile"
        raise ProfileError(f"{where}: profile {name!r}: {field}: {first['msg']}") from None
    except TypeError as exc:
        raise ProfileError(f"{where}: profile {name!r}: {exc}") from None


def profiles_from_mapping(
    data: Any, *, where: str, known: Mapping[str, ModelProfile] | None = None
) -> dict[str, ModelProfile]:
    """Profiles from decoded TOML/YAML: ``{"profiles": {name: fields}}`` or ``{name: fields}``.

    ``base = "other"`` starts from another profile (one of ``known`` or earlier in the file).
    """
    if isinstance(data, Mapping) and isinstance(data.get("profiles"), Mapping):
        data = data["profiles"]
    if not isinstance(data, Mapping):
        raise ProfileError(f"{where}: expected a table of profiles ([profiles.NAME] sections)")
    out: dict[str, ModelProfile] = {}
    pool: dict[str, ModelProfile] = dict(known or {})
    for name, fields in data.items():
        if not isinstance(fields, Mapping):
            raise ProfileError(f"{where}: profile {name!r} must be a table of settings")
        fields = dict(fields)
        fields.pop("name", None)
        base_name = fields.pop("base", None)
        if base_name is not None:
            base = pool.get(str(base_name))
            if base is None:
                raise ProfileError(f"{where}: profile {name!r}: unknown base profile {base_name!r}")
            fields = {**base.model_dump(exclude={"name"}), **fields}
        profile = _validate(str(name), fields, where)
        out[profile.name] = profile
        pool[profile.name] = profile
    return out


@lru_cache(maxsize=1)
def _builtin() -> dict[str, ModelProfile]:
    text = (
        resources.files("ramseygadgets.data").joinpath("profiles.toml").read_text(encoding="utf-8")
    )
    return profiles_from_mapping(tomllib.loads(text), where="built-in profiles")


BUILTIN_PROFILES: Mapping[str, ModelProfile] = _builtin()


def load_profiles(path: str | Path) -> dict[str, ModelProfile]:
    """Read user profiles from a ``.toml``, ``.yaml`` or ``.yml`` file (bases may be built-ins)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ProfileError(f"cannot read profiles file {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ProfileError(f"profiles file {path} is not UTF-8 text") from None
    try:
        if path.suffix.lower() == ".toml":
            data = tomllib.loads(text)
        elif path.suffix.lower() in (".yaml", ".yml"):
            data = yaml.safe_load(text)
        else:
            raise ProfileError(f"profiles file {path} must end in .toml, .yaml or .yml")
    except RecursionError:
        raise ProfileError(f"profiles file {path}: nested too deeply") from None
    except tomllib.TOMLDecodeError as exc:
        raise ProfileError(f"profiles file {path} is not valid TOML: {exc}") from None
    except yaml.YAMLError as exc:
        raise ProfileError(
            f"profiles file {path} is not valid YAML: {str(exc).splitlines()[0]}"
        ) from None
    return profiles_from_mapping(data, where=f"profiles file {path}", known=BUILTIN_PROFILES)


def all_profiles(profiles_file: str | Path | None = None) -> dict[str, ModelProfile]:
    """Built-in profiles, overridden and extended by a user file."""
    profiles = dict(BUILTIN_PROFILES)
    if profiles_file is not None:
        profiles.update(load_profiles(profiles_file))
    return profiles


def get_profile(
    name: str | ModelProfile | None = None,
    *,
    profiles_file: str | Path | None = None,
    extra: Mapping[str, ModelProfile] | None = None,
) -> ModelProfile:
    """A profile by name (case-insensitive), or the profile whose model patterns match ``name``.

    ``None`` gives ``default``.  Unknown names raise :class:`ProfileError` with suggestions.
    """
    if isinstance(name, ModelProfile):
        return name
    profiles = all_profiles(profiles_file)
    if extra:
        profiles.update(extra)
    if name is None or not str(name).strip():
        return profiles[DEFAULT_PROFILE]
    key = str(name).strip()
    by_lower = {k.lower(): p for k, p in profiles.items()}
    if key.lower() in by_lower:
        return by_lower[key.lower()]
    for profile in reversed(list(profiles.values())):  # user profiles win
        if profile.matches(key):
            return profile
    close = difflib.get_close_matches(key.lower(), list(by_lower), n=3, cutoff=0.5)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    raise ProfileError(f"unknown model profile {key!r} (known: {', '.join(profiles)}){hint}")


def profile_for_model(model_id: str, *, profiles_file: str | Path | None = None) -> ModelProfile:
    """The profile whose patterns match a model id, else ``default``."""
    profiles = all_profiles(profiles_file)
    for profile in reversed(list(profiles.values())):
        if profile.matches(model_id):
            return profile
    return profiles[DEFAULT_PROFILE]
