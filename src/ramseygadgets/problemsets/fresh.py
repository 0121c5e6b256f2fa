"""Fresh problems (``eval --fresh N``): N distinct problems drawn from the procedural stream
(:mod:`ramseygadgets.problemsets.stream`), none equivalent to a published problem — the paper's
70 or the extended set, up to isomorphism of the patterns and renaming the colours
(:func:`ramseygadgets.problems.leakage.published_keys`) — each solved with its proof of minimality before
the first request.

A draw keeps a problem only when its search proves the minimum: a solution on n vertices, none
on fewer (``lower_bound`` = n) and none with fewer edges on n vertices (``proven_minimal``);
the record is checked again (:func:`ramseygadgets.problemsets.check_record`: the solution passes
the exact verifier) before it becomes a row of ``DIR/problems.jsonl``, in the schema ``generate``
writes (:func:`~ramseygadgets.problemsets.export_row`).  ``DIR/fresh.json`` records the request
and the sha256 of that file; both are written (atomically, Ctrl-C held off) only when all N are
solved, so an interrupted draw leaves nothing behind.

Nothing read back is trusted: a resumed run (same ``--out``, same options) first refuses a
folder whose ``fresh.json`` records another request or whose ``problems.jsonl`` is not the file
it records; then runs the published-problem check again on every row; then draws the problems
again from the recorded seed and options — solving each one again, with its proof — and
requires exactly the rows of the file (:func:`check_fresh`).  A hash its forger can recompute
proves nothing; the draw does.  The stream is seeded and its searches are deterministic, so the
same request draws the same problems anywhere — unless a search hits ``solve_timeout`` on one
machine and not on another (such a problem is left out of the draw): then the folder is refused
and a new ``--out`` draws afresh.  Another request in that folder is refused.
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

from ramseygadgets.core.errors import RamseyGadgetsError
from ramseygadgets.infra.files import atomic_write, make_output_dir, parse_json
from ramseygadgets.infra.workers import sigint_gate
from ramseygadgets.problems.extended import size_tier
from ramseygadgets.problems.leakage import is_published, published_keys
from ramseygadgets.problemsets import PROBLEMS_FILE, check_record, export_row
from ramseygadgets.problemsets.stream import (
    DEFAULT_POOL,
    ProblemStream,
    StreamConfig,
    TrainingItem,
)
from ramseygadgets.runs.folder import CONFIG_FILE, read_config
from ramseygadgets.scaleout.fanout import result_record
from ramseygadgets.verification.problemfile import read_problem_set
from ramseygadgets.verification.selection import Selection, load_selection

__all__ = [
    "FRESH_FILE",
    "FRESH_SET",
    "MAX_FRESH",
    "FreshError",
    "FreshRequest",
    "check_fresh",
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
    an earlier run, to be checked by drawing it again), ``None`` when it holds none yet.

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


def load_fresh(path: str | Path) -> Selection:
    """The fresh problems of ``path`` (a ``problems.jsonl`` :func:`fresh_problems` wrote) with
    their size tiers; each one must come with its proof (it is in ``proven``)."""
    loaded = load_selection(path)
    unproven = [pid for pid in loaded.ids if pid not in loaded.proven]
    if unproven:
        raise FreshError(
            f"{path}: {len(unproven)} problems without a proof of minimality (first: "
            f"{unproven[0]}); choose another --out"
        )
    tiers = {p.id: size_tier(n) for p in loaded.problems if (n := loaded.min_vertices(p))}
    return dataclasses.replace(loaded, size_tiers=tiers)


def _check_unpublished(path: Path) -> None:
    """The leakage check again: no row of a fresh file is equivalent to a published problem."""
    for entry in read_problem_set(path).records:
        if is_published(entry.problem):
            raise FreshError(
                f"{entry.where}: {entry.problem.id} is equivalent to a published problem (one of "
                f"the 70 or of the extended set), which a fresh draw never holds: this folder's "
                f"problems were changed; move it away or choose another --out"
            )


def _difference(row: dict[str, Any], drawn: dict[str, Any]) -> str:
    """How a row of the file differs from the row the draw gives at its place."""
    if row.get("id") != drawn["id"]:
        return f"the draw gives {drawn['id']} there"
    size = ("min_vertices", "min_edges")
    if tuple(row.get(k) for k in size) != tuple(drawn[k] for k in size):
        return (
            f"drawn again, its minimum is n = {drawn['min_vertices']}, m = {drawn['min_edges']}; "
            f"the file says n = {row.get('min_vertices')}, m = {row.get('min_edges')}"
        )
    keys = sorted(k for k in drawn.keys() | row.keys() if row.get(k) != drawn.get(k))
    return f"drawn again, it differs in {', '.join(keys)}"


def check_fresh(path: Path, request: FreshRequest, rows: list[dict[str, Any]]) -> None:
    """Refuse (one line naming ``file:line``, and what to do) a fresh file whose rows are not
    ``rows``, the problems ``request`` draws again (:func:`draw_fresh`)."""
    try:
        lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    except (OSError, UnicodeDecodeError) as exc:
        raise FreshError(f"cannot read {path}: {exc}") from None
    advice = "this folder's problems were changed: move it away or choose another --out"
    for number, (line, again) in enumerate(zip(lines, rows), 1):
        drawn = json.loads(json.dumps(again))  # as written: lists, not tuples
        try:
            row = parse_json(line)
        except ValueError:
            raise FreshError(f"{path}:{number}: not valid JSON; {advice}") from None
        if row != drawn:
            what = row.get("id", "?") if isinstance(row, dict) else "?"
            how = _difference(row, drawn) if isinstance(row, dict) else "not a row"
            raise FreshError(
                f"{path}:{number}: {what} is not what {request.describe()} draws ({how}); {advice}"
            )
    if len(lines) != len(rows):
        raise FreshError(
            f"{path} holds {len(lines)} problems, {request.describe()} draws {len(rows)}; {advice}"
        )


def fresh_problem_set(
    directory: str | Path, request: FreshRequest, line: Callable[[str], None]
) -> tuple[Selection, Path]:
    """The fresh problems of a run folder and their file: drawn, solved and written
    (:func:`write_fresh`); or, when the folder holds this draw already, checked (module docs:
    the leakage check again, then drawn again and compared row by row).  ``line`` gets one
    progress line per step and per solved problem, with the time since the start."""
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
        _check_unpublished(path)
        say(f"{where}: read back from {path}; drawing them again to check them")
        check_fresh(path, request, draw_fresh(request, solved))
        say(f"{where}: the file holds exactly the problems drawn again, each proof found again")
    else:
        say(f"drawing {where}, each solved with its proof of minimality")
        path = write_fresh(directory, request, solved)
        say(f"{where} written to {path}")
    return load_fresh(path), path


def request_of(data: dict[str, Any], where: str) -> FreshRequest:
    """The request a ``fresh.json`` records (:meth:`FreshRequest.to_json`), or why not."""
    try:
        gadgets = ",".join(data["gadgets"])
        stream = StreamConfig(
            seed=data["seed"],
            colors=data["colors"],
            min_size=data["min_size"],
            max_size=data["max_size"],
            pool=tuple(data["pool"]),
            gadgets=None if gadgets == "all" else gadgets,
            solve_timeout=data["solve_timeout"],
            polynomial_pairs=data["polynomial_pairs"],
        )
        return FreshRequest(data["count"], stream)
    except (KeyError, TypeError, ValueError) as exc:
        raise FreshError(f"{where}: not a record of a fresh draw ({exc})") from None


def checked_fresh_problems(directory: str | Path) -> Selection:
    """The fresh problems of a run folder read back by a reader that did not draw them
    (``report``): the request its ``fresh.json`` records, the file's sha256, the leakage check
    and the problems drawn again and compared row by row, as a resumed run checks them
    (:func:`fresh_problem_set`); :class:`FreshError` names what does not match."""
    directory = Path(directory)
    recorded = _recorded(directory)
    if recorded is None:
        raise FreshError(f"{directory} has no {FRESH_FILE}: its problems cannot be checked")
    request = request_of(recorded["fresh"], str(directory / FRESH_FILE))
    path = recorded_fresh(directory, request)
    if path is None:
        raise FreshError(f"{directory / PROBLEMS_FILE} is missing")
    _check_unpublished(path)
    check_fresh(path, request, draw_fresh(request))
    return load_fresh(path)
