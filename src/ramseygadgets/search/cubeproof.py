"""What a cube log proves, as a self-contained fact that anyone can check again.

A :class:`CubeProof` of "no solution on n vertices" is the set of cubes (prefixes of the
symmetry-broken adjacency of one layout, :mod:`.cubes`) that one engine decided UNSAT on level
n.  It proves the level none when, for every layout L of level n,

    covered(L) :⇔ every prefix p is decided, refuted by unit propagation on L's static
                  clauses, or both p·1 and p·0 are covered (from the empty prefix),

with that engine's refuter (:func:`.cubes.covered`): the cubes and the refuted prefixes then
contain every graph the level's search would have to consider.  The cubes must come from one
engine, because the two engines' symmetry breaking keeps different representatives.  None on
n proves none on fewer vertices (add an isolated vertex to a solution).

What is re-derived and what is taken from the log.  The *coverage* is re-derived wherever a
proof is read — ``solve --assume-none-below``, ``atlas adopt``, ``atlas table`` — by
:meth:`CubeProof.check` (about a second for a level of 100 cubes).  But coverage is a statement
about bit prefixes, and the prefix tree is much the same at every level: that a cube was
searched *at level n* and found *none* is the log's word.  So, before a log proves anything:

* every cube record of the problem asked must name that problem (id, title, and — in logs
  written since, which is every log where one record has them — patterns, gadget and
  colours: a record whose keys were deleted is refused) and its own level consistently (``n`` equals
  the level its ``key`` names, and the key names its layout and bits), or the log is refused
  in one line naming ``file:line`` (:class:`CubeLogRefused`, :func:`read_checked`);
* a level with a logged solution is never proven none;
* the outcomes are evidence, not proof, until the cubes are run again: :func:`rerun_cubes`
  re-runs all or a seeded random sample of a proof's none-cubes at the proof's level with its
  engine and refuses on any disagreement (a solution found, or a re-run that does not finish
  in its time limit).  The statement a proof gives (:func:`rests_on`) says how far it was
  re-run: "none on 13: cube log, 64 cubes, 6 re-run (agree)", or "taken on trust (not
  re-run)".  A sample of s of N cubes catches a log with k false none-cubes with probability
  1 − C(N − k, s)/C(N, s).
"""

from __future__ import annotations

import math
import random
import secrets
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ramseygadgets.core.gadgets import Candidate
from ramseygadgets.core.graphs import Graph
from ramseygadgets.infra import numbers
from ramseygadgets.problems.catalog import Problem
from ramseygadgets.search.cegar import ENGINES
from ramseygadgets.search.cubecheck import (
    MAX_PROOF_VERTICES,
    CubeLogRefused,
    check_records,
    found_line,
    is_bits,
    is_cube,
    is_found,
    is_level,
    problem_tag,
    read_checked,
)
from ramseygadgets.search.cubelog import CUBES_FILE
from ramseygadgets.search.cubes import Cube, CubeTask, Refuter, clear_finders, covered, run_cube
from ramseygadgets.search.options import cap_words
from ramseygadgets.search.solve import SearchError
from ramseygadgets.search.spec import layouts

__all__ = [
    "CubeLogRefused",
    "CubeProof",
    "Rerun",
    "check_none_below",
    "cap_holds",
    "check_records",
    "evidence",
    "found_line",
    "is_found",
    "layout_covered",
    "log_path",
    "logged_candidate",
    "none_below",
    "none_cubes",
    "parse_recheck",
    "problem_tag",
    "read_checked",
    "rerun_cubes",
    "rests_on",
]

#: The engines that decide cubes (``auto`` is resolved to one of them before any cube runs).
RUNNING_ENGINES = tuple(e for e in ENGINES if e != "auto")


@dataclass(frozen=True)
class CubeProof:
    """The UNSAT cubes of one engine on level ``n`` of ``problem``, by layout name
    (``lines``: the log line of each (layout, bits), where the proof came from a log)."""

    problem: Problem
    n: int
    engine: str
    decided: dict[str, frozenset[str]]
    cpu_seconds: float = 0.0
    lines: Mapping[tuple[str, str], int] = field(default_factory=dict, compare=False)
    #: a proof of "none with at most this many edges" (``solve --max-edges``), else ``None``
    max_edges: int | None = None

    @property
    def claim(self) -> str:
        """What the proof shows: "none on n vertices", with its edge cap if it has one."""
        return f"none on {self.n} vertices{cap_words(self.max_edges)}"

    @property
    def cubes(self) -> int:
        return sum(map(len, self.decided.values()))

    def cube_list(self) -> list[tuple[str, str]]:
        """Every (layout name, bits), sorted."""
        return sorted((name, bits) for name, bs in self.decided.items() for bits in bs)

    def uncovered_layouts(self) -> list[str]:
        """The layouts of level n these cubes leave (partly) open (empty: the level is none)."""
        decided = {name: set(bits) for name, bits in self.decided.items()}
        return [
            lay.name
            for i, lay in enumerate(layouts(self.problem.gadget, self.n))
            if not layout_covered(self.problem, self.n, self.engine, i, decided)
        ]

    def check(self) -> str:
        """The statement "none on n vertices" re-derived, or :class:`SearchError` naming the
        layouts left open."""
        if self.engine not in RUNNING_ENGINES:
            raise SearchError(f"a cube proof by an unknown engine {self.engine!r}")
        open_layouts = self.uncovered_layouts()
        if open_layouts:
            raise SearchError(
                f"the {self.cubes} UNSAT cubes ({self.engine} engine) do not cover level "
                f"{self.n} of {self.problem.title} (open layouts: {', '.join(open_layouts)})"
            )
        return f"{self.claim} ({self.cubes} UNSAT cubes, {self.engine} engine, coverage re-derived)"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"n": self.n, "engine": self.engine}
        if self.max_edges is not None:
            out["max_edges"] = self.max_edges
        out["cubes"] = {name: sorted(bits) for name, bits in sorted(self.decided.items())}
        return out

    @classmethod
    def from_json(cls, problem: Problem, data: Any) -> CubeProof:
        """The proof a :meth:`to_json` record holds (``ValueError`` naming what is malformed)."""
        if not isinstance(data, dict):
            raise ValueError(f"a cube proof is a JSON object, not {type(data).__name__}")
        n, engine, cubes = data.get("n"), data.get("engine"), data.get("cubes")
        if not (is_level(n) and isinstance(engine, str) and isinstance(cubes, dict)):
            raise ValueError(
                f"a cube proof needs a level n in 1..{MAX_PROOF_VERTICES}, an engine and cubes "
                "by layout"
            )
        cap = data.get("max_edges")
        if cap is not None and not (type(cap) is int and cap >= 0):
            raise ValueError(f"a cube proof's edge cap is a count of edges, not {cap!r}")
        return cls(problem, n, engine, _cubes_by_layout(cubes, n), max_edges=cap)

    @classmethod
    def from_records(
        cls, records: Iterable[dict[str, Any]], problem: Problem, max_edges: int | None = None
    ) -> list[CubeProof]:
        """One proof attempt per (level, engine) of ``problem``'s cubes decided none (checked
        by nobody yet: call :meth:`check`); with ``max_edges``, of "none with at most that many
        edges" (:func:`none_cubes`)."""
        return cls.from_numbered(enumerate(records, 1), problem, max_edges)

    @classmethod
    def from_numbered(
        cls,
        numbered: Iterable[tuple[int, dict[str, Any]]],
        problem: Problem,
        max_edges: int | None = None,
    ) -> list[CubeProof]:
        """As :meth:`from_records`, from (line, record) pairs: each proof knows its cubes' lines."""
        mine = [(ln, r) for ln, r in numbered if r.get("problem_id") == problem.id and is_cube(r)]
        seconds: dict[tuple[int, str], float] = {}
        lines: dict[tuple[int, str], dict[tuple[str, str], int]] = {}
        for ln, r in mine:
            key = (r["n"], str(r.get("engine")))
            seconds[key] = seconds.get(key, 0.0) + (numbers.seconds(r.get("cpu_seconds")) or 0.0)
            lines.setdefault(key, {}).setdefault((r["layout"], r["bits"]), ln)
        return [
            cls(
                problem,
                n,
                engine,
                {k: frozenset(v) for k, v in cubes.items()},
                seconds[n, engine],
                lines[n, engine],
                max_edges,
            )
            for (n, engine), cubes in sorted(none_cubes((r for _, r in mine), max_edges).items())
        ]


def _cubes_by_layout(cubes: dict[Any, Any], n: int) -> dict[str, frozenset[str]]:
    """Cubes by layout name from JSON (``ValueError`` unless every one is a bit string)."""
    decided = {}
    for name, bits in cubes.items():
        if not isinstance(bits, list) or not all(is_bits(b, n) for b in bits):
            raise ValueError(
                f"the cubes of layout {name!r} are not bit strings of at most one bit per pair "
                f"of {n} vertices"
            )
        decided[str(name)] = frozenset(bits)
    return decided


def cap_holds(logged_cap: Any, max_edges: int | None) -> bool:
    """Whether "none with at most ``logged_cap`` edges" (``None``: no cap) shows "none with at
    most ``max_edges`` edges" (``None``: none at all): a cap holds for every smaller one."""
    if logged_cap is None:
        return True
    return type(logged_cap) is int and max_edges is not None and max_edges <= logged_cap


def none_cubes(
    records: Iterable[dict[str, Any]], max_edges: int | None = None
) -> dict[tuple[int, str], dict[str, set[str]]]:
    """The cubes decided none among cube records: {(n, engine): {layout name: bit strings}}.
    A cube decided with an edge cap (``max_edges`` in its record) counts only towards "none with
    at most ``max_edges`` edges" for a ``max_edges`` at or below its cap (:func:`cap_holds`):
    it says nothing of the graphs with more edges."""
    out: dict[tuple[int, str], dict[str, set[str]]] = {}
    for r in records:
        if (
            is_cube(r)
            and r.get("outcome") == "none"
            and r.get("engine") in RUNNING_ENGINES
            and cap_holds(r.get("max_edges"), max_edges)
        ):
            by_layout = out.setdefault((r["n"], r["engine"]), {})
            by_layout.setdefault(r["layout"], set()).add(r["bits"])
    return out


def layout_covered(
    problem: Problem, n: int, engine: str, layout: int, decided: dict[str, set[str]]
) -> bool:
    """Whether the cubes ``decided`` (by layout name) of one engine and the prefixes that
    engine's refuter refutes cover layout ``layout`` of level n (:func:`.cubes.covered`): that
    layout then holds no solution on n vertices."""
    lay = layouts(problem.gadget, n)[layout]
    refuter = Refuter(problem, n, lay, engine)
    try:
        return covered(refuter, decided.get(lay.name, set()))
    finally:
        refuter.close()


# -- re-running cubes -------------------------------------------------------------------------


def parse_recheck(text: str | float | None) -> float:
    """The share of none-cubes to re-run: ``all`` (1), ``none`` (0) or a fraction in [0, 1]."""
    if text is None:
        return 0.0
    if isinstance(text, str) and text.strip().lower() in ("all", "none"):
        return 1.0 if text.strip().lower() == "all" else 0.0
    try:
        share = float(text)
    except ValueError:
        share = math.nan
    if not 0.0 <= share <= 1.0:
        raise SearchError(f"--recheck takes all, none or a fraction in [0, 1], not {text!r}")
    return share


@dataclass(frozen=True)
class Rerun:
    """Which of a proof's ``of`` none-cubes were run again (all agreed: none), by layout."""

    of: int
    cubes: dict[str, frozenset[str]]
    seed: int | None = None
    cpu_seconds: float = 0.0

    @property
    def count(self) -> int:
        return sum(map(len, self.cubes.values()))

    def to_json(self) -> dict[str, Any]:
        return {
            "of": self.of,
            "rerun": self.count,
            "agree": True,
            "seed": self.seed,
            "cpu_seconds": round(self.cpu_seconds, 3),
            "cubes": {name: sorted(bits) for name, bits in sorted(self.cubes.items()) if bits},
        }

    @classmethod
    def from_json(cls, proof: CubeProof, data: Any) -> Rerun:
        """The re-run record of ``proof`` (``ValueError`` unless it is a record of agreeing
        re-runs of cubes the proof holds)."""
        if not isinstance(data, dict) or data.get("agree") is not True:
            raise ValueError("the re-run record is not one of re-runs that agree")
        cubes = data.get("cubes")
        if not isinstance(cubes, dict):
            raise ValueError("the re-run record lists no cubes by layout")
        rerun = _cubes_by_layout(cubes, proof.n)
        if any(not bits <= proof.decided.get(name, frozenset()) for name, bits in rerun.items()):
            raise ValueError("the re-run record names cubes the proof does not hold")
        if data.get("of") != proof.cubes or data.get("rerun") != sum(map(len, rerun.values())):
            raise ValueError(
                f"the re-run record counts {data.get('rerun')!r} of {data.get('of')!r} cubes; "
                f"it lists {sum(map(len, rerun.values()))} of the proof's {proof.cubes}"
            )
        seed, cpu = data.get("seed"), data.get("cpu_seconds", 0.0)
        cpu = numbers.seconds(cpu) or 0.0  # a hostile number: not recorded
        return cls(proof.cubes, rerun, seed if type(seed) is int else None, cpu)


def rests_on(proof: CubeProof, rerun: Rerun | None) -> str:
    """What "none on n" rests on, e.g. "none on 13: cube log, 64 cubes, 6 re-run (agree)"."""
    return f"none on {proof.n}{cap_words(proof.max_edges)}: {evidence(proof, rerun)}"


def evidence(proof: CubeProof, rerun: Rerun | None) -> str:
    """The evidence of a proof, e.g. "cube log, 64 cubes, 6 re-run (agree)"."""
    count = 0 if rerun is None else rerun.count
    if count == 0:
        how = "taken on trust (not re-run)"
    elif count == proof.cubes:
        how = "all re-run (agree)"
    else:
        how = f"{count} re-run (agree)"
    return f"cube log, {proof.cubes} cubes, {how}"


def sample_cubes(proof: CubeProof, share: float, seed: int) -> list[tuple[str, str]]:
    """``ceil(share × N)`` of the proof's N cubes, drawn with ``random.Random(seed)``."""
    cubes = proof.cube_list()
    if share >= 1.0:
        return cubes
    return sorted(random.Random(seed).sample(cubes, math.ceil(share * len(cubes))))


def rerun_cubes(
    proof: CubeProof,
    share: float,
    *,
    seed: int | None = None,
    timeout: float | None = None,
    where: Path | str = "the proof",
    progress: Callable[[int, int], None] | None = None,
) -> Rerun:
    """Run a seeded random ``share`` of the proof's none-cubes again, at its level with its
    engine, in this process; :class:`CubeLogRefused` naming ``where:line`` when one finds a
    solution or does not finish within ``timeout`` seconds.  ``seed`` ``None``: a fresh random
    one (a forger cannot know which cubes will be drawn), recorded in the result.
    ``progress(done, total)``: called before the first cube and after each."""
    seed = secrets.randbelow(2**32) if seed is None else seed
    chosen = sample_cubes(proof, share, seed)
    index = {lay.name: i for i, lay in enumerate(layouts(proof.problem.gadget, proof.n))}
    cpu = time.process_time()
    try:
        for count, (name, bits) in enumerate(chosen):
            if progress is not None:
                progress(count, len(chosen))
            _rerun_one(proof, name, bits, index, timeout, where)
        if progress is not None:
            progress(len(chosen), len(chosen))
    finally:
        clear_finders()
    done: dict[str, set[str]] = {}
    for name, bits in chosen:
        done.setdefault(name, set()).add(bits)
    cubes = {name: frozenset(bits) for name, bits in done.items()}
    return Rerun(proof.cubes, cubes, seed, time.process_time() - cpu)


def _rerun_one(
    proof: CubeProof,
    name: str,
    bits: str,
    index: dict[str, int],
    timeout: float | None,
    where: Path | str,
) -> None:
    """Run one logged none-cube again; :class:`CubeLogRefused` unless it is none again."""
    line = proof.lines.get((name, bits))
    at = f"{where}:{line}" if line is not None else str(where)
    key = f"{proof.n}|{name}|{bits}"
    if name not in index:
        raise CubeLogRefused(f"{at}: cube {key}: no layout {name!r} on {proof.n} vertices")
    cube = Cube(proof.n, index[name], name, bits)
    task = CubeTask(
        problem=proof.problem,
        cube=cube,
        engine=proof.engine,
        timeout=timeout,
        share=False,
        max_edges=proof.max_edges,
    )
    result = run_cube(task)
    if result["outcome"] == "found":
        m = len(result["edges"] or ())
        raise CubeLogRefused(
            f"{at}: cube {key} is logged none, but its re-run finds a solution on {proof.n} "
            f"vertices ({m} edges); the log is not used"
        )
    if result["outcome"] != "none":
        raise CubeLogRefused(
            f"{at}: cube {key} was not confirmed: its re-run did not finish within {timeout} s "
            f"(raise --recheck-timeout)"
        )


# -- reading logs ---------------------------------------------------------------------------


def logged_candidate(problem: Problem, record: dict[str, Any]) -> Candidate:
    """The solution a found cube record holds (its graph and its layout's designated items),
    not yet verified (``ValueError``/``KeyError``: the record is malformed)."""
    n = record.get("n")
    if not is_level(n):
        raise ValueError(f"a solution record needs a vertex count in 1..{MAX_PROOF_VERTICES}")
    layout = next((lay for lay in layouts(problem.gadget, n) if lay.name == record["layout"]), None)
    if layout is None:
        raise ValueError(f"no layout {record['layout']!r} of {problem.title} on {n} vertices")
    graph = Graph(n, tuple((int(u), int(v)) for u, v in record["edges"]))
    return Candidate(graph, layout.designated)


def log_path(path: str | Path) -> Path:
    """The log file of ``path`` (a file, or a directory holding ``cubes.jsonl``)."""
    path = Path(path)
    return path / CUBES_FILE if path.is_dir() else path


def check_none_below(
    path: str | Path,
    problem: Problem,
    n: int,
    *,
    recheck: float | str | None = None,
    seed: int | None = None,
    timeout: float | None = None,
) -> str:
    """Check that the cube log ``path`` (a file, or a directory holding ``cubes.jsonl``) proves
    "no solution on ``n`` vertices" for ``problem``, re-running a ``recheck`` share of its
    none-cubes (:func:`rerun_cubes`; ``all``, ``none`` or a fraction, :func:`parse_recheck`);
    the statement and what it rests on, or
    :class:`SearchError` (:class:`CubeLogRefused` naming ``file:line``)."""
    return none_below(path, problem, n, recheck=recheck, seed=seed, timeout=timeout)[0]


def none_below(
    path: str | Path,
    problem: Problem,
    n: int,
    *,
    recheck: float | str | None = None,
    seed: int | None = None,
    timeout: float | None = None,
) -> tuple[str, bool]:
    """:func:`check_none_below`'s statement, and whether every none-cube was run again.

    The UNSAT cubes of each engine are checked apart, with that engine's refuter: a level is
    proven only by cubes that all searched under the same symmetry breaking."""
    path = log_path(path)
    if not path.is_file():
        raise SearchError(f"--assume-none-below: {path} is not a cube log (no such file)")
    numbered = read_checked(path, problem)
    line = found_line(numbered, problem, n)
    if line is not None:
        raise CubeLogRefused(
            f"{path}:{line}: records a solution of {problem.title} on {n} vertices, so the log "
            f"cannot prove that level none"
        )
    for proof in CubeProof.from_numbered(numbered, problem):
        if proof.n == n and not proof.uncovered_layouts():
            share = parse_recheck(recheck)
            rerun = rerun_cubes(proof, share, seed=seed, timeout=timeout, where=path)
            statement = (
                f"{rests_on(proof, rerun)} ({path}: {proof.engine} engine, coverage re-derived"
                f"{_seed_note(rerun)})"
            )
            return statement, rerun.count == proof.cubes
    raise SearchError(
        f"--assume-none-below: {path} does not prove that {problem.title} has no solution on {n} "
        f"vertices (its UNSAT cubes of that level do not cover it; run that level first)"
    )


def _seed_note(rerun: Rerun) -> str:
    return f", sample seed {rerun.seed}" if 0 < rerun.count < rerun.of else ""
