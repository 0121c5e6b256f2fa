"""Read Inspect AI logs of the ``ramseygadgets/ramsey_gadgets`` task as report runs.

One log file (``.eval``, or Inspect's older ``.json`` format) is one model on one setting; its
epochs are the runs (epoch ``e`` → run ``e − 1``).  Each log sample becomes one record of the
run-directory format (docs/eval.md): the verdict, parse error, reason, candidate and witness
come from the score metadata our scorer writes (with the size grade: the candidate's size, the
proven optimum, ``minimal`` and the excess, in logs of task version 2 and later; the tool
uses as ``tool_calls``; the python setting's ``tool_seconds`` and ``programs``), the token usage
from the sample's model usage (summed over models and rounds), a failed sample's error from the sample error.  The problem
set the log ran (``problem_set``, ``dataset``) and its ``dataset_hash`` come from the task's
metadata (:func:`problem_set_of`), so the report labels the log as it labels a run directory.

Importing this module registers the reader with :func:`ramseygadgets.report.runs.register_reader`
under the name ``inspect-eval``; reading needs the ``inspect`` extra (``inspect-ai``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ramseygadgets.integrations.common import reasoning_text
from ramseygadgets.problems.catalog import find_problem
from ramseygadgets.report.runs import (
    Run,
    RunFormatError,
    Sample,
    Usage,
    register_reader,
    setting_sort_key,
)
from ramseygadgets.runs.records import drop_hostile_numbers
from ramseygadgets.runs.sizes import SIZE_FIELDS
from ramseygadgets.verification.selection import named_problem_set

if TYPE_CHECKING:
    from inspect_ai.log import EvalSample
    from inspect_ai.model import ModelOutput, ModelUsage
    from inspect_ai.scorer import Score

__all__ = [
    "TASK_NAME",
    "SCORER_NAME",
    "FINISH_REASONS",
    "READER_NAME",
    "is_inspect_log",
    "read_inspect_log",
    "problem_set_of",
    "sample_record",
    "usage_json",
]


#: The registry name of our task as Inspect records it in a log.
TASK_NAME = "ramseygadgets/ramsey_gadgets"
#: The name of our scorer in a sample's ``scores``.
SCORER_NAME = "ramsey_scorer"
#: Inspect's stop reasons mapped to OpenAI ``finish_reason`` values (docs/eval.md).
FINISH_REASONS = {
    "stop": "stop",
    "max_tokens": "length",
    "model_length": "length",
    "tool_calls": "tool_calls",
    "content_filter": "content_filter",
}
READER_NAME = "inspect-eval"
_LOG_SUFFIXES = (".eval", ".json")
#: Sample fields the reader never needs (large): skipped when the log is read.
_SKIPPED_FIELDS = {"events", "timelines", "store", "attachments"}


def is_inspect_log(path: Path) -> bool:
    """An ``.eval`` file, or a ``.json`` file that holds an Inspect log header."""
    if not path.is_file() or path.suffix not in _LOG_SUFFIXES:
        return False
    if path.suffix == ".eval":
        return True
    try:
        with path.open("rb") as handle:
            head = handle.read(4096)
    except OSError:
        return False
    return head.lstrip().startswith(b"{") and b'"eval"' in head and b'"version"' in head


def _load_log(path: Path) -> Any:
    """The Inspect log at ``path`` (attachments resolved), refused with one line when inspect-ai
    is missing, the file is damaged or the log is of another task."""
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        raise RunFormatError(
            f"{path}: reading Inspect logs needs inspect-ai; install it with "
            "pip install 'ramseygadgets[inspect]'"
        ) from None
    try:
        log = read_eval_log(str(path), resolve_attachments=True, exclude_fields=_SKIPPED_FIELDS)
    except Exception as exc:  # Inspect raises many types for damaged files
        raise RunFormatError(
            f"{path}: not a readable Inspect log ({type(exc).__name__}: {exc})"
        ) from None
    task = log.eval.task
    if task not in (TASK_NAME, TASK_NAME.split("/")[-1]):
        raise RunFormatError(f"{path}: an Inspect log of task {task!r}, not {TASK_NAME}")
    return log


def read_inspect_log(path: Path) -> list[Run]:
    """The run set one Inspect log holds (see the module docstring for the mapping)."""
    log = _load_log(path)
    warnings: list[str] = []
    if log.status != "success":
        warnings.append(
            f"{path}: the Inspect run ended with status {log.status!r}; "
            "unfinished samples count as missing"
        )
    model = log.eval.model
    task_args = log.eval.task_args or {}
    label = str(task_args.get("profile") or model)
    samples = list(_samples(log.samples or [], model, path, warnings))
    settings = tuple(
        sorted(
            {s.setting for s in samples} | {str(task_args.get("setting") or "zero-shot")},
            key=setting_sort_key,
        )
    )
    runs = log.eval.config.epochs or max((s.run for s in samples), default=0) + 1
    problems = tuple(str(i) for i in (log.eval.dataset.sample_ids or [])) or tuple(
        dict.fromkeys(s.problem_id for s in samples)
    )
    config = {
        **problem_set_of(log.eval.metadata or {}, task_args, problems),
        "model": model,
        "model_label": label,
        "profile": task_args.get("profile"),
        "settings": list(settings),
        "runs": runs,
        "problems": list(problems),
        "source": "inspect",
        "inspect_task_args": task_args,
        "inspect_run_id": log.eval.run_id,
        "created": log.eval.created,
        "tool_mode": task_args.get("tool_mode", "text"),
    }
    return [
        Run(
            label=label,
            model=model,
            settings=settings,
            runs=runs,
            problems=problems,
            samples=samples,
            config=config,
            source=str(path),
            warnings=warnings,
        )
    ]


def problem_set_of(
    metadata: dict[str, Any], task_args: dict[str, Any], problems: Iterable[str]
) -> dict[str, Any]:
    """The ``problem_set``, ``dataset`` and ``dataset_hash`` of a log, in the keys of a run's
    ``config.json``: as the task recorded them in its metadata (:func:`~ramseygadgets.
    integrations.common.problem_set_record`), else (logs written before it did) the task's
    ``dataset`` argument, or the set its ``problem_set`` argument or its problem ids name, and
    no hash (— in the report: not recorded)."""
    if "dataset_hash" in metadata:
        return {key: metadata.get(key) for key in ("problem_set", "dataset", "dataset_hash")}
    dataset = task_args.get("dataset")
    if dataset:
        return {"problem_set": None, "dataset": str(dataset), "dataset_hash": None}
    name = task_args.get("problem_set")
    return {
        "problem_set": str(name) if name else _set_of_ids(problems),
        "dataset": None,
        "dataset_hash": None,
    }


def _set_of_ids(problems: Iterable[str]) -> str | None:
    """``paper``, ``extended`` or the sources of a mixed selection (``paper+extended``), by id
    (:func:`~ramseygadgets.integrations.common.problem_set_name`)."""
    ids = list(problems)
    if all(find_problem(pid) is not None for pid in ids):
        return "paper" if ids else None
    extended = set(named_problem_set("extended").ids)
    sources = {
        "paper" if find_problem(pid) is not None else "extended" if pid in extended else "other"
        for pid in ids
    }
    return "+".join(name for name in ("paper", "extended", "other") if name in sources)


def _samples(
    log_samples: Iterable[EvalSample], model: str, path: Path, warnings: list[str]
) -> Iterable[Sample]:
    for sample in log_samples:
        try:
            # Inspect records a count its provider did not report as 0: a total of 0 is
            # unknown (zeros_unknown, the default)
            record = sample_record(sample, model)
            where = f"{path}: sample {sample.id} epoch {sample.epoch}"
            warnings.extend(drop_hostile_numbers(record, where))  # read as missing, warned
            yield Sample.from_record(record)
        except RunFormatError as exc:
            warnings.append(f"{path}: sample {sample.id} epoch {sample.epoch} skipped ({exc})")


def sample_record(sample: EvalSample, model: str) -> dict[str, Any]:
    """One Inspect ``EvalSample`` as a run-directory record (docs/eval.md)."""
    meta = dict(sample.metadata or {})
    score = _our_score(sample.scores or {})
    verdict = dict(score.metadata or {}) if score is not None else {}
    error = _sample_error(sample, score)
    response, reasoning, finish_reason = _output_fields(sample.output, verdict)
    record: dict[str, Any] = {
        "problem_id": str(meta.get("problem_id") or sample.id),
        "setting": str(meta.get("setting") or verdict.get("setting") or "zero-shot"),
        "run": int(sample.epoch) - 1,
        "model": model,
        "messages": [_message_json(m) for m in sample.messages],
        "response": response,
        "reasoning": reasoning,
        "rounds": verdict.get("rounds") or meta.get("rounds"),
        "usage": usage_json(sample.model_usage or {}),
        "finish_reason": finish_reason,
        "latency_s": sample.total_time,
        "retries": 0,
        "error": error,
        "parse_error": verdict.get("parse_error"),
        "candidate": verdict.get("candidate"),
        "correct": verdict.get("correct") is True,
        "reason": _reason(verdict, score, error),
        "witness": verdict.get("witness"),
        "finished_at": sample.completed_at,
    }
    for key in ("tier", "gadget", "min_vertices"):
        if key in meta:
            record[key] = meta[key]
    for key in SIZE_FIELDS:  # the size grade (logs of task version 2 and later)
        if key in verdict:
            record[key] = verdict[key]
    if "tool_uses" in verdict:  # multiround and python: the tool uses, as eval counts them
        record["tool_calls"] = verdict["tool_uses"]
    for key in ("tool_seconds", "programs"):  # the python setting's programs
        if key in verdict:
            record[key] = verdict[key]
    return record


def _sample_error(sample: EvalSample, score: Score | None) -> str | None:
    """The sample's error message; an unscored sample without one is an error too."""
    error: str | None = sample.error.message if sample.error is not None else None
    if error is None and score is None:
        error = "the sample was not scored"
    return error


def _output_fields(
    output: ModelOutput | None, verdict: dict[str, Any]
) -> tuple[str | None, str | None, str | None]:
    """The response, reasoning and finish reason of the sample's model output (the scorer's
    finish reason first, else Inspect's stop reason in OpenAI terms)."""
    answered = output if output is not None and output.choices else None
    stop_reason = answered.stop_reason if answered is not None else None
    finish_reason = verdict.get("finish_reason") or FINISH_REASONS.get(
        str(stop_reason), stop_reason
    )
    response = answered.completion if answered is not None else None
    return response, reasoning_text(output), finish_reason


def _reason(verdict: dict[str, Any], score: Score | None, error: str | None) -> str:
    """Why the sample is correct or not: the verdict's reason, the score's explanation, the
    error, or nothing."""
    explanation = score.explanation if score is not None else None
    return verdict.get("reason") or explanation or error or ""


def _our_score(scores: dict[str, Score]) -> Score | None:
    if SCORER_NAME in scores:
        return scores[SCORER_NAME]
    for name, score in scores.items():
        if name.endswith("/" + SCORER_NAME):
            return score
    return None


def usage_json(model_usage: dict[str, ModelUsage]) -> dict[str, int | None]:
    """Inspect ``ModelUsage`` per model, summed, in the run-directory ``usage`` shape
    (docs/eval.md); no model usage at all: every count unknown (null)."""
    if not model_usage:
        return Usage().to_json()
    prompt = completion = total = 0
    reasoning: int | None = None
    for usage in model_usage.values():
        prompt += usage.input_tokens or 0
        completion += usage.output_tokens or 0
        total += usage.total_tokens or 0
        if usage.reasoning_tokens is not None:
            reasoning = (reasoning or 0) + usage.reasoning_tokens
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "reasoning_tokens": reasoning,
        "total_tokens": total or prompt + completion,
    }


def _message_json(message: Any) -> dict[str, Any]:
    """An Inspect chat message as an OpenAI-style message dict (text content only)."""
    out: dict[str, Any] = {"role": message.role, "content": message.text}
    tool_calls = getattr(message, "tool_calls", None)
    if tool_calls:
        out["tool_calls"] = [
            {
                "id": c.id,
                "type": "function",
                "function": {"name": c.function, "arguments": json.dumps(c.arguments)},
            }
            for c in tool_calls
        ]
    if message.role == "tool":
        out["tool_call_id"] = getattr(message, "tool_call_id", None)
    return out


register_reader(READER_NAME, is_inspect_log, read_inspect_log)
