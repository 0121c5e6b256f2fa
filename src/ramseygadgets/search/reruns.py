"""Re-runs of a cube proof's none-cubes, one logged line per cube, so they go on in sittings.

:func:`~.cubeproof.rerun_cubes` re-runs a proof's cubes in one call, and a call stopped after
hours keeps nothing.  Here each re-run cube is appended to a re-run log (``DIR/cubes.jsonl``,
the same checkpoint log as a search's, :class:`~.cubelog.CubeLog`: one ``fsync``-ed line per
cube, a torn last line cut off) as a record of kind ``rerun``: the problem, level, layout, bits
and edge cap of the cube, the outcome of searching it again, and the configuration it was
searched with (:class:`RerunConfig`).  :func:`rerun_to_log` skips every cube the log already
holds, so a killed sitting loses only the cube in progress.

What a re-run record shows.  Searching the cube (layout, bits) of level n again with the same
engine (the same symmetry breaking, so the cube holds the same graphs) and finding none
confirms the logged outcome; it does not depend on which log the cube came from.  With
``degree_rules`` off the search keeps every lex-maximal graph of the cube instead of the
reduced ones of :mod:`.degrees` (no degree, edge, floor or through clauses): a "none" then holds
without those rules, so a proof all of whose cubes were re-run that way does not rest on them.
A record with an edge cap c confirms a cube of "none with at most m edges" when c ≥ m
(:func:`~.cubeproof.cap_holds`).

:func:`logged_rerun` reads such a log back into the :class:`~.cubeproof.Rerun` record a fact of
the atlas carries (:class:`LoggedRerun`: the configurations used and the log's sha256 with it);
a record of a proof cube whose re-run found a solution refuses the proof
(:class:`~.cubeproof.CubeLogRefused`).
"""

from __future__ import annotations

import hashlib
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ramseygadgets.search import cegar
from ramseygadgets.search.cegar import DEFAULT_SEARCH_SOLVER
from ramseygadgets.search.cubelog import CUBES_FILE, CubeLog, read_log
from ramseygadgets.search.cubeproof import (
    CubeLogRefused,
    CubeProof,
    Rerun,
    cap_holds,
    problem_tag,
)
from ramseygadgets.search.cubes import Cube, CubeTask, clear_finders, run_cube
from ramseygadgets.search.spec import layouts

__all__ = [
    "RERUN_KIND",
    "LoggedRerun",
    "RerunConfig",
    "logged_rerun",
    "pending",
    "rerun_record",
    "rerun_to_log",
]

#: The ``kind`` of a re-run record (a search's records are ``cube`` and ``level``).
RERUN_KIND = "rerun"


@dataclass(frozen=True)
class RerunConfig:
    """How cubes are searched again: the degree, edge, floor and through rules of
    :mod:`.degrees` on or off, the exists solver and its seed."""

    degree_rules: bool = False
    seed: int | None = None
    solver: str = DEFAULT_SEARCH_SOLVER

    def to_json(self) -> dict[str, Any]:
        return {
            "degree_rules": self.degree_rules,
            "seed": self.seed,
            "solver": self.solver,
            "extensions": cegar.EXTENSIONS_TRIED,
        }

    @staticmethod
    def words(config: Any) -> str:
        """A logged configuration in words, e.g. "degree rules off, cadical153, seed none"."""
        if not isinstance(config, dict):
            return "configuration not recorded"
        rules = "on" if config.get("degree_rules") else "off"
        return f"degree rules {rules}, {config.get('solver')}, seed {config.get('seed')}"


def rerun_record(proof: CubeProof, result: dict[str, Any], config: RerunConfig) -> dict[str, Any]:
    """The log line of one re-run cube of ``proof`` (``result``: :func:`~.cubes.run_cube`'s)."""
    record = {
        **problem_tag(proof.problem),
        "kind": RERUN_KIND,
        "n": proof.n,
        "layout": result["layout"],
        "bits": result["bits"],
        "engine": result["engine"],
        "outcome": result["outcome"],
        "cpu_seconds": result["cpu_seconds"],
        "wall_seconds": result["wall_seconds"],
        "candidates": result["candidates"],
        "config": config.to_json(),
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    if proof.max_edges is not None:
        record["max_edges"] = proof.max_edges
    if result["outcome"] == "found":
        record["edges"] = result["edges"]
    return record


def _about(record: dict[str, Any], proof: CubeProof) -> bool:
    """Whether a re-run record is about a cube of ``proof``: its problem, level, engine and a
    cap that holds for the proof's."""
    tag = problem_tag(proof.problem)
    return (
        record.get("kind") == RERUN_KIND
        and all(record.get(k) == v for k, v in tag.items())
        and record.get("n") == proof.n
        and record.get("engine") == proof.engine
        and isinstance(record.get("layout"), str)
        and isinstance(record.get("bits"), str)
        and record["bits"] in proof.decided.get(record["layout"], frozenset())
        and cap_holds(record.get("max_edges"), proof.max_edges)
    )


def _reruns_of(records: Iterable[dict[str, Any]], proof: CubeProof) -> dict[tuple[str, str], dict]:
    """The last re-run record of each cube of ``proof`` among ``records``."""
    return {(r["layout"], r["bits"]): r for r in records if _about(r, proof)}


def pending(records: Iterable[dict[str, Any]], proof: CubeProof) -> list[tuple[str, str]]:
    """The proof's cubes (layout, bits) without a finished re-run record, in proof order."""
    done = {k for k, r in _reruns_of(records, proof).items() if r["outcome"] in ("none", "found")}
    return [cube for cube in proof.cube_list() if cube not in done]


def rerun_to_log(
    proof: CubeProof,
    directory: Path,
    config: RerunConfig,
    *,
    timeout: float | None = None,
    order: Callable[[list[tuple[str, str]]], list[tuple[str, str]]] | None = None,
    progress: Callable[[dict[str, Any], int, int], None] | None = None,
) -> int:
    """Search every cube of ``proof`` that ``directory``'s re-run log has not finished again
    with ``config`` (in ``order``'s order; default the proof's), appending one record each; the
    number of cubes re-run now.  A cube that finds a solution is logged and then refuses the
    proof (:class:`~.cubeproof.CubeLogRefused`); one past ``timeout`` is logged ``timeout`` and
    stays pending.  ``progress(record, done, total)`` hears of each cube."""
    index = {lay.name: i for i, lay in enumerate(layouts(proof.problem.gadget, proof.n))}
    with CubeLog(directory) as log:
        todo = pending(log.read(), proof)
        todo = order(todo) if order is not None else todo
        try:
            for done, (name, bits) in enumerate(todo, 1):
                task = CubeTask(
                    problem=proof.problem,
                    cube=Cube(proof.n, index[name], name, bits),
                    engine=proof.engine,
                    solver=config.solver,
                    seed=config.seed,
                    timeout=timeout,
                    share=False,
                    degree_bound=config.degree_rules,
                    max_edges=proof.max_edges,
                )
                record = rerun_record(proof, run_cube(task), config)
                log.append(record)
                if progress is not None:
                    progress(record, done, len(todo))
                if record["outcome"] == "found":
                    raise CubeLogRefused(
                        f"{log.path}: cube {proof.n}|{name}|{bits} of the proof re-runs to a "
                        "solution; the proof does not hold"
                    )
        finally:
            clear_finders()
    return len(todo)


@dataclass(frozen=True)
class LoggedRerun(Rerun):
    """A :class:`~.cubeproof.Rerun` read from a re-run log: how many cubes each configuration
    re-ran, and the log (path, sha256)."""

    configs: dict[str, int] = field(default_factory=dict)
    source: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {**super().to_json(), "configs": dict(self.configs), "rerun_log": dict(self.source)}


def logged_rerun(proof: CubeProof, path: Path) -> LoggedRerun:
    """The cubes of ``proof`` that the re-run log ``path`` (a file or its directory) re-ran to
    none, with their configurations; :class:`~.cubeproof.CubeLogRefused` if one re-ran to a
    solution."""
    path = path / CUBES_FILE if path.is_dir() else path
    if not path.is_file():
        raise CubeLogRefused(f"{path} is not a re-run log (no such file)")
    reruns = _reruns_of(read_log(path), proof)
    found = sorted(k for k, r in reruns.items() if r["outcome"] == "found")
    if found:
        name, bits = found[0]
        raise CubeLogRefused(
            f"{path}: cube {proof.n}|{name}|{bits} is logged none, but its re-run found a "
            "solution; the proof does not hold"
        )
    agree = {k: r for k, r in reruns.items() if r["outcome"] == "none"}
    cubes: dict[str, set[str]] = {}
    for name, bits in agree:
        cubes.setdefault(name, set()).add(bits)
    configs = Counter(RerunConfig.words(r.get("config")) for r in agree.values())
    cpu = sum(r.get("cpu_seconds", 0.0) for r in agree.values())
    source = {"source": str(path), "sha256": hashlib.sha256(path.read_bytes()).hexdigest()}
    return LoggedRerun(
        proof.cubes,
        {name: frozenset(bits) for name, bits in cubes.items()},
        None,
        float(cpu),
        dict(sorted(configs.items())),
        source,
    )
