"""``solve … --out DIR --status``: what a cube log has decided, what a rerun would search and
what a search running on it has in flight (:mod:`ramseygadgets.search.cubestatus`), as text or
JSON."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from rich.table import Table

from ramseygadgets.cli.app import console, print_json
from ramseygadgets.problems.catalog import Problem

if TYPE_CHECKING:
    from ramseygadgets.search.cubestatus import LevelStatus, Sitting, StoppedView
    from ramseygadgets.search.inflight import InFlight

#: Open parts listed per layout at most (the rest are counted).
MAX_PARTS_SHOWN = 40


def print_status(problem: Problem, statuses: list[LevelStatus], as_json: bool) -> None:
    """Each level's planned cubes decided, its open cubes and parts, and its sittings."""
    if as_json:
        print_json({"problem_id": problem.id, "levels": [s.to_json() for s in statuses]})
        return
    for status in statuses:
        _print_level(problem, status)


def _print_level(problem: Problem, status: LevelStatus) -> None:
    from ramseygadgets.search.options import cap_words

    solution = (
        "a solution in the log (a rerun verifies it)" if status.found else "no solution in the log"
    )
    console.print(
        f"{problem.title}, level {status.n}{cap_words(status.max_edges)} ({status.engine} "
        f"engine, --cubes {status.target}): {status.decided} of {status.planned} planned cubes "
        f"decided, {solution} (the log's outcomes, not run again)",
        highlight=False,
    )
    for lay in status.layouts:
        line = (
            f"  {lay.name}: {lay.decided} of {lay.planned} planned cubes decided (at least "
            f"{percent(lay.share)} of its prefix assignments)"
        )
        if lay.open_planned:
            shown = [compact_bits(b) for b in lay.open_parts[:MAX_PARTS_SHOWN]]
            more = len(lay.open_parts) - len(shown)
            line += (
                f"; open: {', '.join(compact_bits(b) for b in lay.open_planned)}, in "
                f"{len(lay.open_parts)} parts a rerun searches: {', '.join(shown)}"
                + (f" and {more} more" if more else "")
            )
        console.print(line, highlight=False)
    if status.in_flight is not None:
        console.print(_in_flight_line(status.in_flight), highlight=False)
    if status.stopped is not None:
        console.print(_stopped_line(status.stopped), highlight=False, soft_wrap=True)
    console.print(_sittings_table(status), highlight=False)


def _in_flight_line(running: InFlight) -> str:
    """The cubes a running search has in flight on this level, for how long, and the lemmas
    each has sent so far (as of the file's writing)."""
    cubes = [
        f"{c.layout} {compact_bits(c.bits)} for {_clock(c.running_for())}"
        + ("" if c.lemmas is None else f", {c.lemmas:,} lemmas learned")
        for c in running.cubes
    ]
    what = "; ".join(cubes) if cubes else "no cube of this level"
    line = f"  in flight now (pid {running.pid}, not in the log until it ends or splits): {what}"
    if running.written is not None and any(c.lemmas is not None for c in running.cubes):
        line += (
            f" (lemma counts as of {time.strftime('%H:%M %Z', time.localtime(running.written))})"
        )
    return line


def _stopped_line(stopped: StoppedView) -> str:
    """What the stopped cubes' file gives a rerun on this level, and when it was written."""
    when = time.strftime("%Y-%m-%d %H:%M %Z", time.localtime(stopped.written))
    if stopped.refused is not None:
        return f"  stopped cubes: {stopped.refused}"
    cubes = "; ".join(
        f"{layout} {compact_bits(bits)} ({lemmas:,} lemmas)"
        for layout, bits, lemmas in stopped.cubes
    )
    return (
        f"  stopped cubes a rerun starts with ({stopped.path.name}, written {when}; each lemma is "
        f"derived again first): {cubes}"
    )


def _sittings_table(status: LevelStatus) -> Table:
    table = Table(
        title=f"sittings of level {status.n} (one per run, from the log's cube records)",
        title_justify="left",
    )
    for column in ("#", "wall", "none", "split", "found", "CPU s", "candidates"):
        table.add_column(column, justify="left" if column == "#" else "right")
    for i, sitting in enumerate(status.sittings, 1):
        table.add_row(str(i), *sitting_cells(sitting))
    table.add_section()
    table.add_row("all", *sitting_cells(status.total))
    return table


def sitting_cells(s: Sitting) -> list[str]:
    """A sitting's row as ``--status`` prints it: wall, none, split, found, CPU s, candidates."""
    return [
        _clock(s.wall_seconds),
        str(s.none),
        str(s.splits),
        str(s.found),
        f"{round(s.cpu_seconds):,}",
        f"{s.candidates:,}",
    ]


def _clock(seconds: float | None) -> str:
    """``h:mm:ss``; a sitting no level record closes (killed, or still running): ``—``."""
    if seconds is None:
        return "—"
    s = round(seconds)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"


def percent(share: float) -> str:
    """A share as a percentage, with two significant digits below 0.1 % (never a false 0.0 %)."""
    if share == 0 or share >= 0.001:
        return f"{share:.1%}"
    return f"{share * 100:.2g}%"


_SUPERSCRIPTS = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def compact_bits(bits: str) -> str:
    """A cube's bits with each run of three or more equal bits as a power: "1111100" → "1⁵00";
    the empty cube (a whole layout) as "(all)"."""
    if not bits:
        return "(all)"
    out, i = [], 0
    while i < len(bits):
        j = i
        while j < len(bits) and bits[j] == bits[i]:
            j += 1
        run = j - i
        out.append(bits[i] + str(run).translate(_SUPERSCRIPTS) if run >= 3 else bits[i:j])
        i = j
    return "".join(out)
