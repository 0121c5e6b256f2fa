"""CLI command ``train-data``: write a leakage-free training dataset; see docs/training.md."""

from __future__ import annotations

import itertools
import shlex
import sys
import time
from pathlib import Path
from typing import Any

import typer

from ramseygadgets.cli.app import (
    Terminated,
    app,
    console,
    err_console,
    guarded,
    print_json,
    signals_stop_solvers,
    sigterm_raises,
)
from ramseygadgets.cli.options import (
    JsonOption,
    ModelProfileOption,
)
from ramseygadgets.core.errors import RamseyGadgetsError

__all__ = [
    "COLORS_HELP",
    "GADGETS_HELP",
    "INCLUDE_EXTENDED_HELP",
    "MAX_SIZE_HELP",
    "MIN_SIZE_HELP",
    "POOL_HELP",
    "SOLVE_TIMEOUT_HELP",
    "TRAIN_DATA_HELP",
    "stream_config",
    "train_data",
]


TRAIN_DATA_HELP = """Write a Hugging Face training dataset (prompt messages plus the problem's columns) for RL on verifiable rewards.

Sources: generated problem sets (--from DIR, output of 'ramseygadgets generate') and/or --stream N problems drawn from a seeded procedural stream (pairs from --pool, gadget types by the spec's rules, difficulty by proven minimal size in --min-size..--max-size).

Leakage rule: every problem equivalent to a published one — one of the 70 benchmark problems or of the extended set (--set extended) — is left out (equivalent: isomorphic patterns, or renamed colours: an (F,H) red-determiner is an (H,F) blue-determiner); manifest.json lists the sets left out and every problem of --from left out. --include-extended leaves out only the 70 (then never evaluate on --set extended).

OUT gets the dataset (datasets.load_from_disk(OUT)), rows.jsonl and manifest.json. Reward: ramseygadgets.training.ramsey_reward (TRL GRPOTrainer reward_funcs; exact 0/1), or opt-in ramsey_shaped_reward (graded by size against the min_vertices column: 1 minimal, 1/(1 + excess vertices) larger, 0 wrong).
"""


#: Largest ``--stream`` without ``--force`` (each problem is solved with a proof).
MAX_STREAM = 10**6

#: Help of the stream's options, shared by ``train-data --stream`` and ``eval --fresh``.
POOL_HELP = (
    "Pattern pool of the stream (comma list, K1,4 stays one name; connected:k for every "
    "connected graph on k vertices; repeatable; default: paper's 8 + connected:5)."
)
GADGETS_HELP = "all, or a comma list: determiners, senders, hardness, red-determiner, ..."
MIN_SIZE_HELP = "Smallest minimal size (stream)."
MAX_SIZE_HELP = "Largest minimal size (stream)."
SOLVE_TIMEOUT_HELP = "Seconds to solve one stream problem."
COLORS_HELP = "Colours of the stream's problems: 2 (pairs F, H) or 3."
INCLUDE_EXTENDED_HELP = (
    "Keep problems equivalent to an extended problem (--set extended); the 70 stay left out. "
    "Only for models never evaluated on --set extended."
)


def _comma_list(values: list[str] | None) -> list[str]:
    return [part.strip() for value in values or [] for part in value.split(",") if part.strip()]


def _pool(values: list[str] | None) -> tuple[str, ...]:
    """``--pool`` names: commas separate patterns except inside names such as ``K1,4``, ``K2,3``
    (:func:`~ramseygadgets.colorings.spec.split_pattern_list`); the option may repeat.  No
    option is the default pool; an option that names nothing is an error."""
    from ramseygadgets.colorings.spec import split_pattern_list
    from ramseygadgets.training import DEFAULT_POOL

    if values is None:
        return DEFAULT_POOL
    names = tuple(name for value in values for name in split_pattern_list(value))
    if not names:
        raise RamseyGadgetsError(f"--pool names no pattern (got {', '.join(map(repr, values))})")
    return names


def stream_config(
    *,
    seed: int | None = None,
    pool: list[str] | None = None,
    gadgets: str | None = None,
    min_size: int | None = None,
    max_size: int | None = None,
    solve_timeout: float | None = None,
    colors: int | None = None,
    include_extended: bool | None = None,
) -> Any:
    """The stream's options as ``train-data`` and ``eval --fresh`` read them (``None``: the
    stream's default), every one checked before any work: the limits and colours
    (:class:`~ramseygadgets.problemsets.stream.StreamConfig`), the pool's pattern names and the
    gadget names."""
    from ramseygadgets.problemsets import expand_patterns, parse_gadgets
    from ramseygadgets.problemsets.stream import StreamConfig

    given: dict[str, Any] = {
        "seed": seed,
        "gadgets": gadgets,
        "min_size": min_size,
        "max_size": max_size,
        "solve_timeout": solve_timeout,
        "colors": colors,
        "include_extended": include_extended,
    }
    config = StreamConfig(
        pool=_pool(pool), **{name: value for name, value in given.items() if value is not None}
    )
    expand_patterns(config.pool)
    parse_gadgets(config.gadgets)
    return config


@app.command("train-data", help=TRAIN_DATA_HELP)
@guarded
def train_data(
    out: Path = typer.Option(..., "--out", "-o", help="Output directory (replaced atomically)."),
    sources: list[Path] | None = typer.Option(
        None, "--from", help="Generated problem set (directory or problems.jsonl; repeatable)."
    ),
    stream: int = typer.Option(
        0, "--stream", min=0, help="Number of problems drawn from the procedural stream."
    ),
    seed: int = typer.Option(0, "--seed", help="Seed of the procedural stream."),
    pool: list[str] | None = typer.Option(None, "--pool", help=POOL_HELP),
    gadgets: str = typer.Option("all", "--gadgets", help=GADGETS_HELP),
    min_size: int = typer.Option(3, "--min-size", help=MIN_SIZE_HELP),
    max_size: int = typer.Option(7, "--max-size", help=MAX_SIZE_HELP),
    solve_timeout: float = typer.Option(10.0, "--solve-timeout", help=SOLVE_TIMEOUT_HELP),
    colors: int = typer.Option(2, "--colors", help=COLORS_HELP),
    include_extended: bool = typer.Option(False, "--include-extended", help=INCLUDE_EXTENDED_HELP),
    settings: list[str] | None = typer.Option(
        None,
        "--settings",
        help="zero-shot, structural-hint, size-hint (comma list; default zero-shot).",
    ),
    profile: ModelProfileOption = None,
    force: bool = typer.Option(
        False, "--force", help=f"Allow --stream above {MAX_STREAM:,} problems."
    ),
    as_json: JsonOption = False,
) -> None:
    from ramseygadgets.prompts.profiles import get_profile
    from ramseygadgets.training import (
        TrainingDataError,
        training_rows,
        write_dataset,
    )
    from ramseygadgets.training.data import check_replaceable, check_settings

    # every option is checked before any work: one line and exit code 2
    chosen = check_settings(_comma_list(settings) or ["zero-shot"])
    if not sources and stream == 0:
        raise TrainingDataError("nothing to write: give --from PROBLEM_SET and/or --stream N")
    if stream > MAX_STREAM and not force:
        raise TrainingDataError(
            f"--stream {stream:,} is above {MAX_STREAM:,} problems (each one is solved); "
            f"add --force to draw that many"
        )
    get_profile(profile)
    check_replaceable(out)
    config = stream_config(
        seed=seed,
        pool=pool,
        gadgets=gadgets,
        min_size=min_size,
        max_size=max_size,
        solve_timeout=solve_timeout,
        colors=colors,
        include_extended=include_extended,
    )
    started = None if as_json else time.monotonic()
    try:
        with sigterm_raises(), signals_stop_solvers():
            selection, items = _collect(list(sources or []), stream, config, started)
            if not items:
                reasons = sorted({e["reason"] for e in selection.excluded})
                raise TrainingDataError(
                    "no training problem is left"
                    + (f" (left out: {'; '.join(reasons)})" if reasons else "")
                )
            _step(started, f"writing {len(items)} problems × {len(chosen)} settings to {out}")
            rows = list(training_rows(items, chosen, profile))
            manifest = _manifest(rows, items, chosen, sources, stream, config, selection)
            write_dataset(rows, out, manifest)
    except KeyboardInterrupt as exc:
        err_console.print(
            f"interrupted: nothing written; {out} is as it was (a dataset there is kept whole)",
            highlight=False,
        )
        raise typer.Exit(143 if isinstance(exc, Terminated) else 130) from None
    if as_json:
        print_json(manifest)
    else:
        console.print(
            f"wrote {len(rows)} rows ({len(items)} problems, settings {', '.join(chosen)}) to {out}; "
            f"{len(selection.excluded)} problems left out (manifest.json)",
            highlight=False,
        )


def _step(started: float | None, text: str) -> None:
    """One progress line on stderr with the elapsed time (``train-data [ 0:03] ...``); none
    with ``--json`` (``started`` is ``None``)."""
    if started is None:
        return
    seconds = int(time.monotonic() - started)
    err_console.print(
        f"train-data [{seconds // 60:3d}:{seconds % 60:02d}] {text}", markup=False, highlight=False
    )


def _collect(
    sources: list[Path], stream: int, config: Any, started: float | None
) -> tuple[Any, list[Any]]:
    """The training problems: those of the problem sets, then ``stream`` from the stream (a
    progress line per tenth)."""
    from ramseygadgets.training import ProblemStream, problem_set_problems

    if sources:
        _step(started, f"reading {len(sources)} problem set(s), verifying every solution")
    selection = problem_set_problems(sources, include_extended=config.include_extended)
    items = list(selection.problems)
    if stream:
        _step(started, f"drawing {stream:,} problems from the stream (each solved with its proof)")
        every = max(1, stream // 10)
        for index, item in enumerate(itertools.islice(ProblemStream(config), stream), 1):
            items.append(item)
            if index % every == 0 or index == stream:
                _step(started, f"  {index:,}/{stream:,} stream problems")
    return selection, items


def _manifest(
    rows: list[dict[str, Any]],
    items: list[Any],
    chosen: list[str],
    sources: list[Path] | None,
    stream: int,
    config: Any,
    selection: Any,
) -> dict[str, Any]:
    from ramseygadgets.problems.leakage import excluded_sets, exclusion_rule

    return {
        "command": "ramseygadgets " + shlex.join(sys.argv[1:]),
        "rows": len(rows),
        "problems": len(items),
        "distinct_problems": len({it.problem.id for it in items}),
        "settings": chosen,
        "sources": [str(s) for s in sources or []],
        "stream": {
            "count": stream,
            **{k: v for k, v in vars(config).items() if k != "pool"},
            "pool": list(config.pool),
        },
        "excluded": selection.excluded,
        "min_vertices": sorted({it.min_vertices for it in items}),
        "excluded_sets": list(excluded_sets(config.include_extended)),
        "leakage_rule": exclusion_rule(config.include_extended),
    }
