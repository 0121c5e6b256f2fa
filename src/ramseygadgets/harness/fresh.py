"""Fresh problems (``eval --fresh N``): N distinct problems drawn from the procedural stream
(:mod:`ramseygadgets.problemsets.stream`), none equivalent to a published problem — the paper's
70 or the extended set, up to isomorphism of the patterns and renaming the colours
(:func:`ramseygadgets.leakage.published_keys`) — each solved with its proof of minimality before
the first request.

A draw keeps a problem only when its search proves the minimum: a solution on n vertices, none
on fewer (``lower_bound`` = n) and none with fewer edges on n vertices (``proven_minimal``);
the record is checked again (:func:`ramseygadgets.problemsets.check_record`: the solution passes
the exact verifier) before it becomes a row of ``DIR/problems.jsonl``, in the schema ``generate``
writes (:func:`~ramseygadgets.problemsets.export_row`).  ``DIR/fresh.json`` records the request
and the sha256 of that file; both are written (atomically, Ctrl-C held off) only when all N are
solved, so an interrupted draw leaves nothing behind.  A resumed run (same ``--out``, same
options) reads the same problems back without solving; another request in that folder is
refused.  The stream is seeded, and its searches are deterministic, so the same request draws
the same problems anywhere — unless a search hits ``solve_timeout`` on one machine and not on
another (such a problem is left out of the draw).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ramseygadgets.errors import RamseyGadgetsError
from ramseygadgets.extended import size_tier
from ramseygadgets.files import atomic_write, make_output_dir, parse_json
from ramseygadgets.leakage import published_keys
from ramseygadgets.problemsets import PROBLEMS_FILE, check_record, export_row
from ramseygadgets.problemsets.stream import (
    DEFAULT_POOL,
    ProblemStream,
    StreamConfig,
    TrainingItem,
)
from ramseygadgets.runs.folder import CONFIG_FILE, read_config
from ramseygadgets.scaleout.fanout import result_record
from ramseygadgets.selection import ProblemSet, load_problem_file
from ramseygadgets.workers import sigint_gate

__all__ = [
    "FRESH_FILE",
    "FRESH_SET",
    "MAX_FRESH",
    "FreshError",
    "FreshRequest",
    "describe_request",
    "draw_fresh",
    "recorded_fresh",
    "write_fresh",
    "fresh_row",
    "load_fresh",
    "fresh_problem_set",
]

#: The run folder's record of its fresh draw (the request and the sha256 of problems.jsonl).
FRESH_FILE = "fresh.json"
#: ``problem_set`` of a fresh run's ``config.json``.
FRESH_SET = "fresh"
#: The most problems one ``--fresh`` draws (each one is solved with its proof).
MAX_FRESH = 1000

#: Called with (problems drawn so far, the last one) as each problem is solved.
OnProblem = Callable[[int, TrainingItem], None]


class FreshError(RamseyGadgetsError):
    """The fresh draw cannot be made, or the run folder holds another one."""


@dataclass(frozen=True)
class FreshRequest:
    """``--fresh COUNT`` with the stream's options (``--seed``, ``--colors``, sizes, pool,
    gadgets, solve timeout)."""

    count: int
    stream: StreamConfig

    def __post_init__(self) -> None:
        if self.count < 1:
            raise FreshError(f"--fresh must be at least 1 problem, got {self.count}")
        if self.count > MAX_FRESH:
            raise FreshError(
                f"--fresh {self.count:,} is above {MAX_FRESH:,} problems (each one is solved "
                f"with its proof); draw at most {MAX_FRESH:,}"
            )

    def to_json(self) -> dict[str, Any]:
        """The request as ``config.json`` and ``fresh.json`` record it."""
        cfg = self.stream
        gadgets = [g.strip().lower() for g in (cfg.gadgets or "all").split(",") if g.strip()]
        return {
            "count": self.count,
            "seed": cfg.seed,
            "colors": cfg.colors,
            "min_size": cfg.min_size,
            "max_size": cfg.max_size,
            "pool": list(cfg.pool),
            "gadgets": gadgets or ["all"],
            "solve_timeout": cfg.solve_timeout,
            "polynomial_pairs": cfg.polynomial_pairs,
        }

    def describe(self) -> str:
        """The options of this draw, as given on the command line."""
        return describe_request(self.to_json())


def describe_request(data: dict[str, Any]) -> str:
    """``--fresh 30 --seed 7 --colors 2 --min-size 3 --max-size 8`` from a recorded request
    (``--pool`` and ``--gadgets`` too when they are not the defaults)."""
    text = " ".join(
        f"--{name.replace('_', '-')} {data.get(key)}"
        for name, key in (
            ("fresh", "count"),
            ("seed", "seed"),
            ("colors", "colors"),
            ("min_size", "min_size"),
            ("max_size", "max_size"),
        )
    )
    pool, gadgets = data.get("pool"), data.get("gadgets")
    if isinstance(pool, list) and pool != list(DEFAULT_POOL):
        text += f" --pool {','.join(map(str, pool))}"
    if isinstance(gadgets, list) and gadgets != ["all"]:
        text += f" --gadgets {','.join(map(str, gadgets))}"
    return text


def fresh_row(item: TrainingItem, config: StreamConfig) -> dict[str, Any] | None:
    """The ``problems.jsonl`` row of a stream item whose search proved its minimum (vertices and
    edges), checked again; ``None`` when the search proved less."""
    if item.result is None:
        raise FreshError(f"{item.problem.id} carries no search result (not a stream item)")
    record = result_record(
        item.problem,
        item.result,
        max_vertices=config.max_size,
        timeout=config.solve_timeout,
        seconds=item.result.seconds,
    )
    if not record["proven_minimal"]:
        return None
    why = check_record(record)
    if why is not None:  # the search verifies what it returns: this is a bug
        raise FreshError(f"the search's record of {item.problem.id} does not check: {why}")
    return export_row(record)


def draw_fresh(request: FreshRequest, on_problem: OnProblem | None = None) -> list[dict[str, Any]]:
    """The rows of ``request.count`` distinct fresh problems, in draw order (module docs)."""
    stream = ProblemStream(request.stream, exclude=published_keys())
    rows: list[dict[str, Any]] = []
    for item in stream.distinct():
        row = fresh_row(item, request.stream)
        if row is None:
            continue
        rows.append(row)
        if on_problem is not None:
            on_problem(len(rows), item)
        if len(rows) == request.count:
            return rows
    cfg = request.stream
    raise FreshError(
        f"the pool holds only {len(rows)} fresh problems (none equivalent to the 70 or the "
        f"extended set) with a proven minimal size in {cfg.min_size}..{cfg.max_size}; ask for "
        f"fewer, or widen --pool or --max-size"
    )


def _sha256(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise FreshError(f"cannot read {path}: {exc.strerror or exc}") from None


def _recorded(directory: Path) -> dict[str, Any] | None:
    """The folder's ``fresh.json`` (``None`` when absent)."""
    path = directory / FRESH_FILE
    if not path.exists():
        return None
    try:
        data = parse_json(path.read_bytes())
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "strerror", None) or exc
        raise FreshError(
            f"{path} is unreadable ({reason}); move it away or choose another --out"
        ) from None
    if not isinstance(data, dict) or not isinstance(data.get("fresh"), dict):
        raise FreshError(
            f"{path} is not a record of a fresh draw; move it away or choose another --out"
        )
    return data


def recorded_fresh(directory: str | Path, request: FreshRequest) -> Path | None:
    """``DIR/problems.jsonl`` when the folder holds the fresh problems of ``request`` (drawn by
    an earlier run: nothing to solve), ``None`` when it holds none yet.

    Refused (before any solving): a folder whose ``fresh.json`` records another request, whose
    ``problems.jsonl`` is not the one recorded, or that holds a run of other problems."""
    directory = Path(directory)
    path = directory / PROBLEMS_FILE
    recorded = _recorded(directory)
    if recorded is not None:
        if recorded["fresh"] != request.to_json():
            raise FreshError(
                f"{directory} holds the fresh problems of another draw "
                f"({describe_request(recorded['fresh'])}); repeat those options to resume that "
                f"run, or choose another --out"
            )
        if _sha256(path) != recorded.get("sha256"):
            raise FreshError(
                f"{path} is not the file {directory / FRESH_FILE} records (changed or removed); "
                f"choose another --out"
            )
        return path
    if path.exists():
        raise FreshError(
            f"{path} exists but is not a fresh draw (no {FRESH_FILE}); move it away or choose "
            f"another --out"
        )
    config = read_config(directory / CONFIG_FILE, FreshError, writing=True)
    if config is not None:
        held = config.get("problem_set") or config.get("dataset") or "other problems"
        raise FreshError(
            f"{directory} holds a run of other problems ({held}); choose another --out for "
            f"the fresh problems"
        )
    return None


def write_fresh(
    directory: str | Path, request: FreshRequest, on_problem: OnProblem | None = None
) -> Path:
    """Draw the fresh problems of ``request`` (:func:`draw_fresh`) and write them to
    ``DIR/problems.jsonl`` with ``DIR/fresh.json``, both whole (nothing on Ctrl-C while
    solving; a Ctrl-C during the writes waits for them).  Check the folder with
    :func:`recorded_fresh` first."""
    directory = Path(directory)
    rows = draw_fresh(request, on_problem)
    make_output_dir(directory, "run directory", FreshError)
    text = "".join(json.dumps(row) + "\n" for row in rows)
    manifest = {
        "fresh": request.to_json(),
        "problems": [row["id"] for row in rows],
        "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
        "excluded": "every problem equivalent to one of the 70 or to an extended problem "
        "(isomorphism of the patterns, renaming the colours)",
    }
    with sigint_gate() as gate:
        gate.close()
        try:
            atomic_write(directory / PROBLEMS_FILE, text)
            atomic_write(directory / FRESH_FILE, json.dumps(manifest, indent=2) + "\n")
        except OSError as exc:
            raise FreshError(f"cannot write to {directory}: {exc.strerror or exc}") from None
    return directory / PROBLEMS_FILE


def load_fresh(path: str | Path) -> ProblemSet:
    """The fresh problems of ``path`` (a ``problems.jsonl`` :func:`fresh_problems` wrote) with
    their size tiers; each one must come with its proof (it is in ``proven``)."""
    loaded = load_problem_file(path)
    unproven = [pid for pid in loaded.ids if pid not in loaded.proven]
    if unproven:
        raise FreshError(
            f"{path}: {len(unproven)} problems without a proof of minimality (first: "
            f"{unproven[0]}); choose another --out"
        )
    tiers = {p.id: size_tier(n) for p in loaded.problems if (n := loaded.min_vertices(p))}
    return dataclasses.replace(loaded, size_tiers=tiers)


def fresh_problem_set(
    directory: str | Path, request: FreshRequest, line: Callable[[str], None]
) -> tuple[ProblemSet, Path]:
    """The fresh problems of a run folder and their file: read back when the folder holds this
    draw, else drawn, solved and written (:func:`write_fresh`); ``line`` gets one progress line
    per step and per solved problem, with the time since the start."""
    started = time.monotonic()

    def say(text: str) -> None:
        seconds = int(time.monotonic() - started)
        line(f"fresh [{seconds // 60:3d}:{seconds % 60:02d}] {text}")

    def solved(drawn: int, item: TrainingItem) -> None:
        graph = item.solution.graph
        seconds = item.result.seconds if item.result else 0
        say(
            f"{drawn}/{request.count} {item.problem.id}: minimal n = {graph.n}, m = {graph.m} "
            f"(proven; {seconds:.2f} s)"
        )

    where = f"{request.count} fresh problems ({request.describe()})"
    path = recorded_fresh(directory, request)
    if path is not None:
        say(f"{where}: read back from {path}, nothing to solve")
    else:
        say(f"drawing {where}, each solved with its proof of minimality")
        path = write_fresh(directory, request, solved)
        say(f"{where} written to {path}")
    return load_fresh(path), path
