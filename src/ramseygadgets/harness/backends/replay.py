"""``replay:<file>``: re-score recorded responses without calling any model.

The file is a ``samples.jsonl`` of another run (or its run directory), or any JSON Lines file
of ``{"problem_id", "setting", "run"?, "response", "reasoning"?, "usage"?, "finish_reason"?,
"messages"?}`` (for example converted from another harness's logs; ``run`` defaults to the
record's position among those of the same problem and setting).  Each sample's recorded final
response goes through today's parser and verifier; its recorded conversation, usage and
finish reason are kept.  Samples missing from the file end with an error naming them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ramseygadgets.catalog import get_problem
from ramseygadgets.errors import RamseyGadgetsError
from ramseygadgets.harness.backends.base import BackendError
from ramseygadgets.harness.types import ChatRequest, Completion, SampleKey, Usage


@dataclass
class ReplayData:
    path: Path
    records: dict[SampleKey, dict[str, Any]]

    def settings(self) -> list[str]:
        from ramseygadgets.prompts import SETTINGS

        found = {k.setting for k in self.records}
        return [s for s in SETTINGS if s in found] + sorted(found - set(SETTINGS))

    def runs(self) -> int:
        return max(k.run for k in self.records) + 1

    def problem_ids(self) -> list[str]:
        return list(dict.fromkeys(k.problem_id for k in self.records))


def _canonical_id(raw: Any) -> str:
    text = str(raw)
    try:
        return get_problem(text).id
    except RamseyGadgetsError:
        return text


def load_replay(path: str) -> ReplayData:
    source = Path(path)
    if source.is_dir():
        source = source / "samples.jsonl"
    try:
        text = source.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise BackendError(
            f"cannot read replay file {source}: {getattr(exc, 'strerror', None) or exc}"
        ) from None
    records: dict[SampleKey, dict[str, Any]] = {}
    counters: dict[tuple[str, str], int] = {}
    lines = text.split("\n")
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            if number == len(lines):  # a torn last line of a killed run
                continue
            raise BackendError(f"replay file {source} line {number} is not valid JSON") from None
        if not isinstance(record, dict) or "problem_id" not in record or "setting" not in record:
            raise BackendError(f"replay file {source} line {number} needs problem_id and setting")
        problem_id, setting = _canonical_id(record["problem_id"]), str(record["setting"])
        run = record.get("run")
        if run is None:
            run = counters.get((problem_id, setting), 0)
        counters[(problem_id, setting)] = int(run) + 1
        records.setdefault(SampleKey(problem_id, setting, int(run)), record)
    if not records:
        raise BackendError(f"replay file {source} holds no responses")
    return ReplayData(source, records)


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
        """The recorded conversation and round counts, kept in the re-scored sample."""
        record = self.data.records.get(key) or {}
        kept: dict[str, Any] = {}
        if isinstance(record.get("messages"), list) and record["messages"]:
            kept["messages"] = record["messages"]
        for name in ("rounds", "tool_calls"):
            if isinstance(record.get(name), int):
                kept[name] = record[name]
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
            usage=Usage.from_json(record.get("usage")),
            latency_s=float(record.get("latency_s") or 0.0),
            retries=int(record.get("retries") or 0),
        )
