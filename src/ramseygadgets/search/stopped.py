"""The lemmas of cubes that were in flight when a cube search stopped, ``DIR/stopped-cubes.jsonl``.

The cube log (:mod:`.cubelog`) keeps every finished cube; a cube still running when the search
stops (Ctrl-C, SIGTERM, ``--timeout``) finishes nothing, but what it learned is not lost: the
driver holds every lemma its workers stream (:class:`.cubes.LemmaExchange`), and at the stop
it writes, for each cube in flight, the lemmas that cube started with (its split ancestors'
inheritance) and learned, and for each cube it split with a half still waiting, what the halves
inherit; the newest :data:`.cubes.MAX_INHERITED_LEMMAS` each.  A rerun with the same
``--out`` hands them to the cube again, or to the parts of it still open, as the halves of a
split cube inherit their parent's (``CubeTask.inherited``).  Ray tasks stream nothing: only the
lemmas a stopped cube inherited are kept there.

A lemma only restricts the search, so a false one could hide a solution: none is taken from the
file on trust.  Each is derived again for the problem, level and layout of the rerun
(:class:`LemmaCheck`):

* a counterexample lemma ``("c", red)`` — *G contains a copy of F red under* ``red`` *or of H
  blue* — holds when the colouring ``red`` of K_n meets a bad condition of the layout (the
  designated edge colours, or red degrees at most k): a graph with no such copy is coloured
  well by ``red`` restricted to it, and that colouring is bad;
* an arrowing lemma ``("a", edges)`` — *not all of* ``edges`` — holds when the graph of those
  edges has no good colouring meeting some witness condition (one oracle query each): no graph
  containing it has one either.

A lemma that does not hold refuses the file, with its line and the lemma named: the run does not
start (deleting the file only costs what it saved).  One line per stopped
cube (JSON: the problem's tag, ``n``, ``layout``, ``bits``, ``lemmas`` as ``["c", hex]`` or
``["a", [edge ids]]``); the file is rewritten atomically when a level run ends with cubes
in flight or with entries no rerun would use, else left alone, and every
:data:`.parallel.SNAPSHOT_SECONDS` while local workers' cubes are in flight (a driver killed
outright keeps what they learned until then).  A rerun hands each open part the entry nearest
it (:func:`nearest_entry`), so an entry is kept only while it is the nearest of some open part:
one whose parts are all decided, or all nearer to other entries (a split parent both of whose
halves stopped in turn), is dropped.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Container, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ramseygadgets.infra.files import atomic_path
from ramseygadgets.problems.catalog import Problem
from ramseygadgets.search.cubecheck import is_bits, is_level, problem_tag
from ramseygadgets.search.cubes import MAX_INHERITED_LEMMAS, Cube
from ramseygadgets.search.options import SearchError
from ramseygadgets.search.oracle import ColoringOracle, KnCopies
from ramseygadgets.search.spec import Condition, EdgeColor, Layout, RedDegree, gadget_spec

__all__ = [
    "STOPPED_FILE",
    "LemmaCheck",
    "StoppedCube",
    "StoppedCubes",
    "StoppedLemmaRefused",
    "nearest_entry",
]

#: The file's name inside the ``--out`` directory.
STOPPED_FILE = "stopped-cubes.jsonl"

Lemma = tuple[str, object]
#: How a refusal ends: the run does not start with a file it cannot trust.
REFUSED = "refused (delete the file to search those cubes without what they learned)"


class StoppedLemmaRefused(SearchError):
    """A stopped cube's lemma that does not hold, or a malformed line (``file:line`` named)."""


@dataclass(frozen=True)
class StoppedCube:
    """What a cube in flight had learned when the search stopped."""

    n: int
    layout: str
    bits: str
    lemmas: tuple[Lemma, ...]

    @property
    def key(self) -> tuple[int, str, str]:
        return self.n, self.layout, self.bits


class LemmaCheck:
    """Derive a level's lemmas again (module docstring) for one problem, level and layout."""

    def __init__(self, problem: Problem, n: int, layout: Layout) -> None:
        self.copies = KnCopies(problem, n)
        kn = self.copies.kn
        self.m = kn.m
        spec = gadget_spec(problem, layout.designated)
        self.bad = spec.bad
        self.witnesses = spec.witnesses
        self.edge_id = kn.edge_id
        self.at_vertex = [sum(1 << kn.edge_id(u, v) for u in range(n) if u != v) for v in range(n)]
        self._oracle: ColoringOracle | None = None

    def why_not(self, lemma: Any) -> str | None:
        """Why ``lemma`` does not hold on this level and layout (``None``: it holds)."""
        if not isinstance(lemma, (list, tuple)) or len(lemma) != 2:
            return "not a [kind, value] pair"
        kind, value = lemma
        if kind == "c":
            if type(value) is not int or not 0 <= value < 1 << self.m:
                return "a counterexample lemma that is no colouring of K_n"
            if not any(self._meets(condition, value) for condition in self.bad):
                return "a colouring that meets no bad condition"
            return None
        if kind == "a":
            if not _edge_ids(value, self.m):
                return "an arrowing lemma that is no set of K_n edges"
            if not self._arrows(value):
                return "an edge set with a good colouring for every witness condition"
            return None
        return f"an unknown lemma kind {kind!r}"

    def _meets(self, condition: Condition, red: int) -> bool:
        for atom in condition:
            if isinstance(atom, EdgeColor):
                if bool(red >> self.edge_id(*atom.edge) & 1) != atom.red:
                    return False
            elif isinstance(atom, RedDegree):
                degree = (red & self.at_vertex[atom.vertex]).bit_count()
                if atom.at_most is not None and degree > atom.at_most:
                    return False
                if atom.at_least is not None and degree < atom.at_least:
                    return False
        return True

    def _arrows(self, edges: Sequence[int]) -> bool:
        """Whether the graph of ``edges`` has no good colouring meeting some witness condition
        (only edge-colour witnesses: the lazy engine's, the one that learns arrowing lemmas)."""
        if not all(isinstance(a, EdgeColor) for w in self.witnesses for a in w):
            return False
        if self._oracle is None:
            self._oracle = ColoringOracle(self.copies)
        oracle, mask = self._oracle, sum(1 << t for t in edges)
        return any(
            oracle.red_mask(mask, oracle.condition_literals(w)) is None for w in self.witnesses
        )

    def close(self) -> None:
        if self._oracle is not None:
            self._oracle.close()


def _edge_ids(value: Any, m: int) -> bool:
    return (
        isinstance(value, list)
        and len(set(value)) == len(value)
        and all(type(t) is int and 0 <= t < m for t in value)
    )


class StoppedCubes:
    """``DIR/stopped-cubes.jsonl`` of one problem (module docstring)."""

    def __init__(self, directory: Path, problem: Problem) -> None:
        self.path = Path(directory) / STOPPED_FILE
        self.problem = problem

    def read(self) -> list[tuple[int, dict[str, Any]]]:
        """The file's entries of this problem with their line numbers (malformed lines refused)."""
        return [(ln, e) for ln, e in self._entries() if e.get("problem_id") == self.problem.id]

    def _entries(self) -> list[tuple[int, dict[str, Any]]]:
        if not self.path.exists():
            return []
        try:
            with open(self.path, encoding="utf-8") as fh:
                return [(line, self._parse(line, text)) for line, text in enumerate(fh, 1)]
        except (OSError, UnicodeDecodeError) as exc:
            raise StoppedLemmaRefused(f"{self.path}: cannot be read ({exc}); {REFUSED}") from None

    def _parse(self, line: int, text: str) -> dict[str, Any]:
        try:
            entry = json.loads(text)
        except ValueError as exc:
            raise self._refused(line, f"not JSON ({exc})") from None
        if not isinstance(entry, dict):
            raise self._refused(line, "not a JSON object")
        n, lemmas = entry.get("n"), entry.get("lemmas")
        if entry.get("problem_id") == self.problem.id and not (
            is_level(n)
            and isinstance(entry.get("layout"), str)
            and is_bits(entry.get("bits"), n)
            and isinstance(lemmas, list)
        ):
            raise self._refused(line, "a stopped cube without its n, layout, bits or lemmas")
        if isinstance(lemmas, list) and len(lemmas) > MAX_INHERITED_LEMMAS:
            raise self._refused(line, f"{len(lemmas)} lemmas, more than {MAX_INHERITED_LEMMAS}")
        return entry

    def _refused(self, line: int, why: str) -> StoppedLemmaRefused:
        return StoppedLemmaRefused(f"{self.path}:{line}: {why}; {REFUSED}")

    def for_cubes(
        self, n: int, cubes: Iterable[Cube], layout_of: Mapping[str, Layout]
    ) -> dict[str, list[Lemma]]:
        """Per cube key, the checked lemmas of the stopped cube that contains it most closely
        (itself or its nearest stopped ancestor), for the ``cubes`` about to run on level ``n``."""
        entries: dict[tuple[str, str], tuple[int, dict[str, Any]]] = {}
        for line, entry in self.read():
            if entry["n"] == n:
                entries[entry["layout"], entry["bits"]] = (line, entry)  # the newest wins
        checked: dict[tuple[str, str], list[Lemma]] = {}
        out: dict[str, list[Lemma]] = {}
        for cube in cubes:
            found = nearest_entry(cube.layout_name, cube.bits, entries)
            if found is None:
                continue
            if found not in checked:
                line, entry = entries[found]
                checked[found] = self._checked(line, entry, layout_of[found[0]])
            out[cube.key] = checked[found]
        return out

    def _checked(self, line: int, entry: dict[str, Any], layout: Layout) -> list[Lemma]:
        """The lemmas of one entry, each derived again (:class:`LemmaCheck`)."""
        check = LemmaCheck(self.problem, entry["n"], layout)
        lemmas: list[Lemma] = []
        try:
            for i, raw in enumerate(entry["lemmas"]):
                lemma = _decoded(raw)
                why = check.why_not(lemma)
                if why is not None:
                    raise self._refused(line, f"lemma {i} ({_shown(raw)}): {why}")
                kind, value = lemma
                lemmas.append((kind, tuple(value) if kind == "a" else value))
        finally:
            check.close()
        return lemmas

    def write(self, stopped: Sequence[StoppedCube], open_parts: OpenPartsOf) -> None:
        """Rewrite the file with ``stopped`` and the older entries (not stopped again now) that
        are the nearest entry of some part in ``open_parts(n, layout)`` — all of a level or
        layout it does not know (``None``), and other problems' — atomically."""
        new = {s.key for s in stopped}
        old: dict[tuple[int, str, str], dict[str, Any]] = {}
        others: list[dict[str, Any]] = []
        entries = [entry for _, entry in self._entries()]
        for entry in entries:
            if entry.get("problem_id") != self.problem.id:
                others.append(entry)
                continue
            key = (entry["n"], entry["layout"], entry["bits"])
            if key not in new:
                old.pop(key, None)
                old[key] = entry  # the newest of a repeated cube, last
        useful = _nearest_of_open_parts(set(old) | new, open_parts)
        kept = [entry for key, entry in old.items() if key in useful]
        if not stopped and len(others) + len(kept) == len(entries):
            return  # nothing stopped, nothing dropped since: the file stays as it is
        tag = problem_tag(self.problem)
        lines = [json.dumps(e, separators=(",", ":")) for e in others + kept]
        lines += [json.dumps({**tag, **_encoded(s)}, separators=(",", ":")) for s in stopped]
        with atomic_path(self.path) as tmp:
            tmp.write_text("".join(line + "\n" for line in lines), encoding="utf-8")


#: ``open_parts(n, layout name)``: the bit strings of the parts of that level and layout a rerun
#: would search, or ``None`` where the caller does not know them (another level's cubes).
OpenPartsOf = Callable[[int, str], Collection[str] | None]


def nearest_entry(
    layout: str, bits: str, entries: Container[tuple[str, str]]
) -> tuple[str, str] | None:
    """The key ``(layout, prefix)`` in ``entries`` with the longest prefix of ``bits`` (``bits``
    itself included): the stopped cube that contains the cube ``bits`` most closely."""
    return next(
        ((layout, bits[:k]) for k in range(len(bits), -1, -1) if (layout, bits[:k]) in entries),
        None,
    )


def _nearest_of_open_parts(
    keys: set[tuple[int, str, str]], open_parts: OpenPartsOf
) -> set[tuple[int, str, str]]:
    """The ``keys`` (n, layout, bits) a rerun would hand to some open part, and those of levels
    or layouts whose open parts are not known."""
    useful: set[tuple[int, str, str]] = set()
    for n, layout in {(n, layout) for n, layout, _ in keys}:
        parts = open_parts(n, layout)
        level = {(name, bits) for m, name, bits in keys if (m, name) == (n, layout)}
        if parts is None:
            useful |= {(n, name, bits) for name, bits in level}
            continue
        for part in parts:
            found = nearest_entry(layout, part, level)
            if found is not None:
                useful.add((n, *found))
    return useful


def _encoded(stopped: StoppedCube) -> dict[str, Any]:
    lemmas = [_encoded_lemma(kind, value) for kind, value in stopped.lemmas]
    return {"n": stopped.n, "layout": stopped.layout, "bits": stopped.bits, "lemmas": lemmas}


def _encoded_lemma(kind: str, value: object) -> list[Any]:
    """``["c", hex]`` (a colouring of K_n as its red mask) or ``["a", [edge ids]]``."""
    if isinstance(value, int):
        return [kind, format(value, "x")]
    assert isinstance(value, (list, tuple))
    return [kind, list(value)]


def _decoded(raw: Any) -> Any:
    """A lemma as :class:`LemmaCheck` takes it (a hex counterexample as its int)."""
    if isinstance(raw, list) and len(raw) == 2 and raw[0] == "c" and isinstance(raw[1], str):
        try:
            return ["c", int(raw[1], 16)]
        except ValueError:
            return ["c", raw[1]]
    return raw


def _shown(raw: Any) -> str:
    text = json.dumps(raw)
    return text if len(text) <= 60 else text[:57] + "..."
