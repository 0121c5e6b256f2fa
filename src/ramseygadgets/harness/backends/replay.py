"""``replay:<file>``: re-score recorded responses without calling any model.

The file is a ``samples.jsonl`` of another run (or its run directory), or any JSON Lines file
of ``{"problem_id", "setting", "run"?, "response", "reasoning"?, "usage"?, "finish_reason"?,
"messages"?}`` (for example converted from another harness's logs; ``run`` defaults to the
record's position among those of the same problem and setting).  Each sample's recorded final
response goes through today's parser and verifier; its recorded conversation, usage and
finish reason are kept (and the python setting's programs: replay runs none).  Samples missing from the file end with an error naming them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ramseygadgets.core.errors import RamseyGadgetsError
from ramseygadgets.harness.backends.base import BackendError
from ramseygadgets.harness.types import ChatRequest, Completion, SampleKey, Usage
from ramseygadgets.infra.files import JSONTooDeepError, read_capped
from ramseygadgets.problems.catalog import get_problem
from ramseygadgets.prompts import SETTINGS
from ramseygadgets.runs.folder import CONFIG_FILE, read_config
from ramseygadgets.runs.records import (
    FieldError,
    check_run,
    check_sample_fields,
    parse_json,
)
from ramseygadgets.runs.samples import unknown_usage_as_zero

__all__ = [
    "ReplayData",
    "MAX_REPLAY_BYTES",
    "load_replay",
    "ReplayBackend",
]

__all__ = [
    "ReplayData",
    "MAX_REPLAY_BYTES",
    "load_replay",
    "ReplayBackend",
]


@dataclass
class ReplayData:
    path: Path
    records: dict[SampleKey, dict[str, Any]]
    #: The file is a run's whose config.json says unknown token counts were recorded as 0.
    zeros_unknown: bool = False

    def settings(self) -> list[str]:
        found = {k.setting for k in self.records}
        return [s for s in SETTINGS if s in found] + sorted(found - set(SETTINGS))

    def runs(self) -> int:
        return max(k.run for k in self.records) + 1

    def problem_ids(self) -> list[str]:
        return list(dict.fromkeys(k.problem_id for k in self.records))


#: Largest replay file read (a run's samples.jsonl with long reasoning traces fits easily).
MAX_REPLAY_BYTES = 1024 * 2**20


def _canonical_id(raw: Any) -> str:
    text = str(raw)
    try:
        return get_problem(text).id
    except RamseyGadgetsError:
        return text


def load_replay(path: str) -> ReplayData:
    """The responses of a replay file (at most :data:`MAX_REPLAY_BYTES`), every field checked:
    a bad line is an error naming the file, the line and the field."""
    source = Path(path)
    if source.is_dir():
        source = source / "samples.jsonl"
    raw = read_capped(source, MAX_REPLAY_BYTES, "replay file", BackendError)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise BackendError(f"replay file {source} is not UTF-8 text") from None
    records: dict[SampleKey, dict[str, Any]] = {}
    counters: dict[tuple[str, str], int] = {}
    lines = text.split("\n")
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = parse_json(line)
        except JSONTooDeepError as exc:
            raise BackendError(f"replay file {source} line {number}: {exc}") from None
        except ValueError:
            if number == len(lines):  # a torn last line of a killed run
                continue
            raise BackendError(f"replay file {source} line {number} is not valid JSON") from None
        try:
            key = _replay_key(record, counters)
        except FieldError as exc:
            raise BackendError(f"replay file {source} line {number}: {exc}") from None
        counters[(key.problem_id, key.setting)] = key.run + 1
        records.setdefault(key, record)
    if not records:
        raise BackendError(f"replay file {source} holds no responses")
    return ReplayData(source, records, _zeros_unknown(source.parent / CONFIG_FILE))


def _zeros_unknown(config_path: Path) -> bool:
    """Whether the replay file belongs to a run that recorded unknown token counts as 0 (its
    ``config.json`` predates :data:`~ramseygadgets.runs.samples.USAGE_NULLS`); a file without
    a run's config holds the counts as given."""
    try:
        config = read_config(config_path, BackendError)
    except BackendError:
        return False
    return config is not None and unknown_usage_as_zero(config)


def _replay_key(record: Any, counters: dict[tuple[str, str], int]) -> SampleKey:
    """The sample a replay record answers, its fields checked (:mod:`..records`)."""
    if not isinstance(record, dict):
        raise FieldError("problem_id", "is missing: the line is not a JSON object")
    for name in ("problem_id", "setting"):
        if not isinstance(record.get(name), str):
            raise FieldError(name, "must be a string (problem_id and setting are required)")
    check_sample_fields(record)
    problem_id, setting = _canonical_id(record["problem_id"]), record["setting"]
    run = record.get("run")
    if run is None:
        run = counters.get((problem_id, setting), 0)
    return SampleKey(problem_id, setting, check_run(run))


class ReplayBackend:
    name = "replay"

    def __init__(self, data: ReplayData):
        self.data = data

    def describe(self) -> dict[str, Any]:
        return {"kind": "replay", "file": str(self.data.path), "responses": len(self.data.records)}

    async def start(self) -> None:
        return None

    async def close(self) -> None:
        return None

    def recorded_fields(self, key: SampleKey) -> dict[str, Any]:
        """The recorded conversation and round counts, kept in the re-scored sample (the python
        setting's ``programs`` and ``tool_seconds`` too: replay runs nothing)."""
        record = self.data.records.get(key) or {}
        kept: dict[str, Any] = {}
        if isinstance(record.get("messages"), list) and record["messages"]:
            kept["messages"] = record["messages"]
        for name in ("rounds", "tool_calls"):
            if isinstance(record.get(name), int):
                kept[name] = record[name]
        programs = record.get("programs")
        if isinstance(programs, list) and all(isinstance(p, dict) for p in programs):
            kept["programs"] = programs
        seconds = record.get("tool_seconds")
        if isinstance(seconds, (int, float)) and not isinstance(seconds, bool):
            if math.isfinite(seconds) and seconds >= 0:
                kept["tool_seconds"] = seconds
        return kept

    async def complete(self, request: ChatRequest) -> Completion:
        record = self.data.records.get(request.key)
        if record is None:
            return Completion(
                error=f"{self.data.path} has no response for {request.key.label()}",
                error_kind="replay-missing",
            )
        if record.get("error"):
            return Completion(
                error=f"recorded backend error: {record['error']}",
                error_kind="replay-missing",
                retries=int(record.get("retries") or 0),
            )
        return Completion(
            content=record.get("response"),
            reasoning=record.get("reasoning"),
            finish_reason=record.get("finish_reason"),
            usage=Usage.from_json(record.get("usage"), zeros_unknown=self.data.zeros_unknown),
            latency_s=float(record.get("latency_s") or 0.0),
            retries=int(record.get("retries") or 0),
        )
