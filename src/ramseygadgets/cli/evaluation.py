"""CLI command ``eval`` (issue 5): run a model on the benchmark, resumably, with a summary."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from ramseygadgets.cli.app import (
    Terminated,
    app,
    console,
    err_console,
    fail,
    guarded,
    print_json,
    signals_stop_solvers,
    sigterm_raises,
)
from ramseygadgets.cli.options import (
    DatasetOption,
    JsonOption,
    PanelCommand,
    ProfilesFileOption,
    SetOption,
    ToolModeOption,
    in_panel,
)
from ramseygadgets.cli.python_limits import (
    CPU_SECONDS_OPTION,
    MEMORY_MB_OPTION,
    NO_CGROUP_OPTION,
    PYTHON_SETTING_HELP,
    ROUNDS_OPTION,
    TOTAL_SECONDS_OPTION,
    WALL_SECONDS_OPTION,
    limits_from_options,
)
from ramseygadgets.cli.training import (
    COLORS_HELP,
    GADGETS_HELP,
    MAX_SIZE_HELP,
    MIN_SIZE_HELP,
    POOL_HELP,
    SOLVE_TIMEOUT_HELP,
    stream_config,
)
from ramseygadgets.core.errors import RamseyGadgetsError
from ramseygadgets.infra.terminal import terminal_text
from ramseygadgets.problems.catalog import split_problem_ids

__all__ = [
    "EVAL_HELP",
    "invoked_command",
    "resume_hint",
    "eval_command",
]


EVAL_HELP = """Run a model on the benchmark: every (problem, setting, run) is one sample, appended to OUT/samples.jsonl when it finishes; the same command resumes (backend errors are retried). With no options the reference solver runs the 70 problems in the paper's five settings, offline.

\b
  ramseygadgets eval -m openai/Qwen/Qwen3-8B --base-url http://host:8000/v1
  ramseygadgets eval --model vllm/Qwen/Qwen3-8B --setting multiround --runs 5
  ramseygadgets report runs/ --out report/

Settings: zero-shot, structural-hint, size-hint, example-hint, multiround (the paper's five, the default) and python (by name only; its limits: the --python-* options). Details: docs/eval.md.
"""


#: ``eval --help``'s panels, in the order they are shown: what a first run needs comes first.
MODEL_PANEL = "Model and server"
SETTINGS_PANEL = "Settings"
OUTPUT_PANEL = "Runs and output"
PROBLEMS_PANEL = "Problems"
FRESH_PANEL = "Fresh problems (--fresh N)"
SAMPLING_PANEL = "Sampling"
PYTHON_PANEL = "The python setting (--setting python)"
REQUESTS_PANEL = "Requests, retries, vLLM"


#: ``eval --fresh``'s default ``--max-size`` (``train-data``'s is 7): room for a larger tier than
#: training draws from (the default pool holds 99 two-colour problems of minimal size 3..7 apart
#: from the published sets, bench/stream_yield.py; each solved in seconds).
DEFAULT_FRESH_MAX_SIZE = 8


def _split(values: list[str] | None) -> list[str] | None:
    """Comma-separated option values (commas in brackets, as in three-colour titles, stay)."""
    if not values:
        return None
    items = [item for value in values for item in split_problem_ids(value)]
    return items or None


def _key_values(pairs: list[str] | None, option: str) -> dict[str, Any]:
    """``KEY=VALUE`` options; values are read as JSON when they parse (numbers, true, lists)."""
    out: dict[str, Any] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise RamseyGadgetsError(f"{option} takes KEY=VALUE, got {pair!r}")
        try:
            out[key.strip()] = json.loads(value)
        except RecursionError:
            raise RamseyGadgetsError(f"{option} {key.strip()}: JSON nested too deeply") from None
        except ValueError:
            out[key.strip()] = value
    return out


def _extra_body(text: str | None) -> dict[str, Any]:
    from ramseygadgets.runs.records import parse_json

    if not text:
        return {}
    try:
        data = parse_json(text)
    except ValueError as exc:
        raise RamseyGadgetsError(f"--extra-body must be a JSON object: {exc}") from None
    if not isinstance(data, dict):
        raise RamseyGadgetsError(
            "--extra-body must be a JSON object, e.g. '{\"chat_template_kwargs\": {...}}'"
        )
    return data


def _fresh_request(count: int | None, seed: int | None, stream_options: dict[str, Any]) -> Any:
    """``--fresh N`` with the stream's options, read and checked as ``train-data`` reads them
    (:func:`~ramseygadgets.cli.training.stream_config`); ``None`` without ``--fresh``."""
    from ramseygadgets.problemsets.fresh import FreshRequest

    if count is None:
        given = [f"--{k.replace('_', '-')}" for k, v in stream_options.items() if v is not None]
        if given:
            verb = "goes" if len(given) == 1 else "go"
            raise RamseyGadgetsError(f"{', '.join(given)} {verb} with --fresh N only")
        return None
    if stream_options["max_size"] is None:
        stream_options["max_size"] = DEFAULT_FRESH_MAX_SIZE
    config = stream_config(seed=0 if seed is None else seed, **stream_options)
    return FreshRequest(count, config)


def _prepare(evaluation: Any) -> None:
    """:meth:`Evaluation.prepare`; while fresh problems are solved, Ctrl-C and SIGTERM stop the
    search at once and leave nothing written."""
    if evaluation.options.fresh is None:
        evaluation.prepare()
        return
    try:
        with sigterm_raises(), signals_stop_solvers():
            evaluation.prepare()
    except KeyboardInterrupt as exc:
        err_console.print(
            "interrupted while solving the fresh problems: nothing written; the same command "
            "draws them again",
            highlight=False,
        )
        raise typer.Exit(143 if isinstance(exc, Terminated) else 130) from None


def invoked_command() -> str | None:
    """The command line as typed, shlex-joined with the program named ``ramseygadgets`` (URL
    credentials and the API key redacted); ``None`` when the program is not ``ramseygadgets``
    (the app called from Python)."""
    from ramseygadgets.harness.backends.base import redact

    program = Path(sys.argv[0]).name if sys.argv else ""
    if program in ("ramseygadgets", "__main__.py"):
        return redact("ramseygadgets " + shlex.join(sys.argv[1:]))
    return None


def resume_hint(out: Path) -> str:
    """The command that resumes this run (URL credentials redacted)."""
    return invoked_command() or f"the same command (its --out {out} holds the configuration)"


@app.command("eval", help=EVAL_HELP, cls=PanelCommand)
@guarded
def eval_command(
    model: str = typer.Option(
        "solver",
        "--model",
        "-m",
        help="openai/<model> (any OpenAI-compatible server: --base-url or $OPENAI_BASE_URL, the "
        "key from $OPENAI_API_KEY), vllm/<model> (vLLM offline), solver, random or "
        "replay:<samples.jsonl>.",
        rich_help_panel=MODEL_PANEL,
    ),
    base_url: str | None = typer.Option(
        None,
        "--base-url",
        help="OpenAI-compatible server URL; default $OPENAI_BASE_URL.",
        rich_help_panel=MODEL_PANEL,
    ),
    setting: list[str] | None = typer.Option(
        None,
        "--setting",
        "-s",
        help=f"Settings, comma-separated (default: the paper's five; also {PYTHON_SETTING_HELP}).",
        rich_help_panel=SETTINGS_PANEL,
    ),
    runs: int | None = typer.Option(
        None,
        "--runs",
        "-n",
        help="Runs per (problem, setting); default 5.",
        rich_help_panel=SETTINGS_PANEL,
    ),
    out: Path | None = typer.Option(
        None,
        "--out",
        "-o",
        help="Run directory; default runs/<model label>.",
        rich_help_panel=OUTPUT_PANEL,
    ),
    problems: list[str] | None = typer.Option(
        None,
        "--problems",
        "-p",
        help="Problem ids, comma-separated (default: all).",
        rich_help_panel=PROBLEMS_PANEL,
    ),
    tier: str | None = typer.Option(
        None,
        "--tier",
        help="Only the easy or the hard tier (--set extended: also a size tier, e.g. 9-10).",
        rich_help_panel=PROBLEMS_PANEL,
    ),
    limit: int | None = typer.Option(
        None,
        "--limit",
        help="Only the first N problems (after --problems/--tier).",
        rich_help_panel=PROBLEMS_PANEL,
    ),
    set_name: Annotated[str | None, in_panel(SetOption, PROBLEMS_PANEL)] = None,
    dataset: Annotated[str | None, in_panel(DatasetOption, PROBLEMS_PANEL)] = None,
    fresh: int | None = typer.Option(
        None,
        "--fresh",
        help="Draw N fresh problems from the procedural stream (none equivalent to the 70 or "
        "the extended set), each solved with its proof first; --seed seeds the draw.",
        rich_help_panel=FRESH_PANEL,
    ),
    colors: int | None = typer.Option(
        None, "--colors", help=f"--fresh: {COLORS_HELP}", rich_help_panel=FRESH_PANEL
    ),
    min_size: int | None = typer.Option(
        None, "--min-size", help=f"--fresh: {MIN_SIZE_HELP} Default 3.", rich_help_panel=FRESH_PANEL
    ),
    max_size: int | None = typer.Option(
        None,
        "--max-size",
        help=f"--fresh: {MAX_SIZE_HELP} Default {DEFAULT_FRESH_MAX_SIZE}.",
        rich_help_panel=FRESH_PANEL,
    ),
    pool: list[str] | None = typer.Option(
        None, "--pool", help=f"--fresh: {POOL_HELP}", rich_help_panel=FRESH_PANEL
    ),
    gadgets: str | None = typer.Option(
        None, "--gadgets", help=f"--fresh: {GADGETS_HELP}", rich_help_panel=FRESH_PANEL
    ),
    solve_timeout: float | None = typer.Option(
        None,
        "--solve-timeout",
        help=f"--fresh: {SOLVE_TIMEOUT_HELP} Default 10.",
        rich_help_panel=FRESH_PANEL,
    ),
    max_concurrency: int | None = typer.Option(
        None,
        "--max-concurrency",
        "-c",
        help="Samples in flight; default 32 (vllm/: conversations per batch, default 1024).",
        rich_help_panel=MODEL_PANEL,
    ),
    max_tokens: int | None = typer.Option(
        None,
        "--max-tokens",
        help="Max tokens per reply; default the profile's (32768).",
        rich_help_panel=SAMPLING_PANEL,
    ),
    temperature: float | None = typer.Option(
        None, "--temperature", help="Sampling temperature.", rich_help_panel=SAMPLING_PANEL
    ),
    top_p: float | None = typer.Option(
        None, "--top-p", help="Nucleus sampling.", rich_help_panel=SAMPLING_PANEL
    ),
    top_k: int | None = typer.Option(
        None, "--top-k", help="Top-k sampling (sent in extra_body).", rich_help_panel=SAMPLING_PANEL
    ),
    min_p: float | None = typer.Option(
        None, "--min-p", help="Min-p sampling (sent in extra_body).", rich_help_panel=SAMPLING_PANEL
    ),
    repetition_penalty: float | None = typer.Option(
        None,
        "--repetition-penalty",
        help="Repetition penalty (extra_body).",
        rich_help_panel=SAMPLING_PANEL,
    ),
    seed: int | None = typer.Option(
        None, "--seed", help="Base seed; run r is sent seed + r.", rich_help_panel=SAMPLING_PANEL
    ),
    extra_body: str | None = typer.Option(
        None,
        "--extra-body",
        help="JSON object merged into every request body.",
        rich_help_panel=SAMPLING_PANEL,
    ),
    model_profile: str | None = typer.Option(
        None,
        "--model-profile",
        help="Model profile (prompt quirks + sampling).",
        rich_help_panel=MODEL_PANEL,
    ),
    profiles_file: Annotated[str | None, in_panel(ProfilesFileOption, MODEL_PANEL)] = None,
    tool_mode: Annotated[str, in_panel(ToolModeOption, SETTINGS_PANEL)] = "text",
    python_rounds: int | None = in_panel(ROUNDS_OPTION, PYTHON_PANEL),
    python_total_seconds: float | None = in_panel(TOTAL_SECONDS_OPTION, PYTHON_PANEL),
    python_wall_seconds: float | None = in_panel(WALL_SECONDS_OPTION, PYTHON_PANEL),
    python_cpu_seconds: int | None = in_panel(CPU_SECONDS_OPTION, PYTHON_PANEL),
    python_memory_mb: int | None = in_panel(MEMORY_MB_OPTION, PYTHON_PANEL),
    python_no_cgroup: bool = in_panel(NO_CGROUP_OPTION, PYTHON_PANEL),
    max_retries: int = typer.Option(
        8,
        "--max-retries",
        min=0,
        help="Retries per call on 429, 5xx, timeouts, drops.",
        rich_help_panel=REQUESTS_PANEL,
    ),
    retry_delay: float = typer.Option(
        1.0,
        "--retry-delay",
        min=0.0,
        help="Base backoff delay in seconds (doubles per retry).",
        rich_help_panel=REQUESTS_PANEL,
    ),
    request_timeout: float = typer.Option(
        1800.0,
        "--request-timeout",
        min=0.001,
        help="Seconds before a call times out.",
        rich_help_panel=REQUESTS_PANEL,
    ),
    keep_errors: bool = typer.Option(
        False,
        "--keep-errors",
        help="Do not retry samples that ended with a backend error.",
        rich_help_panel=REQUESTS_PANEL,
    ),
    engine_arg: list[str] | None = typer.Option(
        None,
        "--engine-arg",
        help="vllm/: LLM(...) argument KEY=VALUE (repeatable).",
        rich_help_panel=REQUESTS_PANEL,
    ),
    no_progress: bool = typer.Option(
        False, "--no-progress", help="Hide the live progress bar.", rich_help_panel=OUTPUT_PANEL
    ),
    as_json: Annotated[bool, in_panel(JsonOption, OUTPUT_PANEL)] = False,
) -> None:
    from ramseygadgets.harness.retry import RetryPolicy
    from ramseygadgets.harness.runner import (
        EvalOptions,
        Evaluation,
        default_out,
        model_label,
        resolve_profile,
    )
    from ramseygadgets.harness.summary import summarize
    from ramseygadgets.runs.folder import SAMPLES_FILE, read_samples

    stream_options = {
        "colors": colors,
        "min_size": min_size,
        "max_size": max_size,
        "pool": pool,
        "gadgets": gadgets,
        "solve_timeout": solve_timeout,
    }
    request = _fresh_request(fresh, seed, stream_options)
    if out is None:
        out = default_out(model_label(model, resolve_profile(model_profile, profiles_file, model)))
    options = EvalOptions(
        out=out,
        model=model,
        settings=_split(setting),
        runs=runs,
        problems=_split(problems),
        tier=tier,
        limit=limit,
        dataset=dataset,
        problem_set=set_name,
        fresh=request,
        max_concurrency=max_concurrency,
        temperature=temperature,
        top_p=top_p,
        top_k=top_k,
        min_p=min_p,
        repetition_penalty=repetition_penalty,
        max_tokens=max_tokens,
        seed=seed,
        extra_body=_extra_body(extra_body),
        profile=model_profile,
        profiles_file=profiles_file,
        base_url=base_url,
        tool_mode=tool_mode,
        python=limits_from_options(
            python_rounds,
            python_total_seconds,
            python_wall_seconds,
            python_cpu_seconds,
            python_memory_mb,
            python_no_cgroup,
        ),
        retry=RetryPolicy(max_retries, retry_delay, max(60.0, retry_delay), request_timeout),
        retry_errors=not keep_errors,
        engine_args=_key_values(engine_arg, "--engine-arg"),
        progress=not no_progress and err_console.is_terminal,
        command=invoked_command(),
    )
    evaluation = Evaluation(options, err_console)
    _prepare(evaluation)
    outcome = evaluation.run()
    records, _ = read_samples(Path(options.out) / SAMPLES_FILE)
    rows = summarize(records, outcome.config, outcome.keys)
    if as_json:
        print_json(_outcome_json(outcome, rows, options.out))
    else:
        _print_outcome(outcome, rows, options.out, model)
    _end_run(outcome, rows, options.out, as_json)


def _outcome_json(outcome: Any, rows: list[Any], where: Path) -> dict[str, Any]:
    """``eval --json``: the run's counts and its per-setting summary."""
    return {
        "out": str(where),
        "model": outcome.config["model"],
        "total": outcome.total,
        "recorded": outcome.stats.recorded,
        "ran": outcome.stats.done,
        "skipped": outcome.skipped,
        "retried_errors": outcome.moved_errors,
        "interrupted": outcome.interrupted,
        "aborted": outcome.aborted,
        "settings": [r.to_json() for r in rows],
    }


def _print_outcome(outcome: Any, rows: list[Any], where: Path, model: str) -> None:
    """The title line, the per-setting tables and, on a resume, how much was already there."""
    from ramseygadgets.harness.summary import summary_tables

    label = outcome.config.get("model_label", model)
    title = f"{label}: {outcome.stats.recorded}/{outcome.total} samples in {where}"
    console.print(
        terminal_text(title, markup=False), markup=False, highlight=False, soft_wrap=False
    )
    for table in summary_tables(rows, console.width):
        console.print(table)
    if outcome.skipped:
        err_console.print(
            f"resumed: {outcome.skipped} samples were already recorded, ran {outcome.stats.done}",
            highlight=False,
            soft_wrap=True,
        )


def _end_run(outcome: Any, rows: list[Any], where: Path, as_json: bool) -> None:
    """Exit as the run ended: interrupted (130/143 with the resume command), aborted (one error
    line) or finished (with a note on samples that ended with a backend error)."""
    if outcome.interrupted:
        err_console.print(
            f"interrupted: {outcome.stats.recorded}/{outcome.total} samples recorded in {where}; "
            f"resume with: {resume_hint(where)}",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
        raise typer.Exit(outcome.exit_code)
    if outcome.aborted:
        fail(
            f"{outcome.aborted.rstrip('.')}. Stopped after {outcome.stats.recorded}/{outcome.total} samples; "
            f"fix the cause and re-run the same command to continue"
        )
    errors = sum(r.errors for r in rows)
    if errors and not as_json:
        err_console.print(
            f"{errors} samples ended with a backend error; re-run the same command to retry them",
            highlight=False,
            soft_wrap=True,
        )
