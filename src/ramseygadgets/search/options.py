"""The settings of a search, one frozen value for every entry point.

:func:`.solve.solve`, :func:`.solve.find_solution`, :func:`.parallel.solve_cubes`,
:func:`.batch.solve_many`, :func:`.multi.solve_multi` and :func:`.minimal.solve_minimal` take
``(problem(s), options)``; each reads the fields it uses (the k-colour search: the vertex
bounds, ``timeout``, ``minimize_edges``, ``max_edges``, ``seed`` and ``solver``).  Every value is checked
once, here, with a one-line :class:`SearchError`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ramseygadgets.core.errors import RamseyGadgetsError
from ramseygadgets.search.cegar import DEFAULT_ENGINE, ENGINES
from ramseygadgets.search.oracle import DEFAULT_SEARCH_SOLVER

__all__ = ["DEFAULT_MAX_VERTICES", "SearchError", "SearchOptions", "check_engine", "cap_words"]

#: Default largest vertex count a search tries.
DEFAULT_MAX_VERTICES = 12


class SearchError(RamseyGadgetsError):
    """The search was asked something it cannot answer (bad limits, unsupported problem)."""


def cap_words(max_edges: int | None) -> str:
    """How a statement names an edge cap: " with at most M edges" (empty without one)."""
    return f" with at most {max_edges} edges" if max_edges is not None else ""


def check_engine(engine: str) -> None:
    """Refuse an engine name that is not one of :data:`.cegar.ENGINES`."""
    if engine not in ENGINES:
        raise SearchError(f"unknown search engine {engine!r}; choose one of {', '.join(ENGINES)}")


@dataclass(frozen=True, kw_only=True)
class SearchOptions:
    """What a search may do.

    Levels n = ``min_vertices`` (default: the fewest the designated items fit on) …
    ``max_vertices``; ``timeout``: seconds for the whole search (per problem in a batch);
    ``minimize_edges``: at the first level with a solution, prove the fewest edges;
    ``max_edges``: only graphs with at most this many edges count (a level's "none" then reads
    "none with at most ``max_edges`` edges", which with a solution of ``max_edges`` + 1 edges on
    that level proves it edge-minimal).
    Cube-and-conquer (:mod:`.parallel`; a batch uses ``jobs`` and ``ray`` only): ``jobs``
    workers or a ``ray`` address, at least ``cubes`` cubes per level, a cube still running after
    ``split_after`` seconds split in two, the checkpoint directory ``out``, lemma ``share`` between
    cubes, and ``assume_none_below``: a cube log proving level ``min_vertices − 1`` none, its
    none-cubes re-run by the share ``recheck`` (``all``, ``none`` or a fraction; drawn with
    ``seed``), each within ``recheck_timeout`` seconds.
    """

    max_vertices: int = DEFAULT_MAX_VERTICES
    min_vertices: int | None = None
    timeout: float | None = None
    minimize_edges: bool = True
    max_edges: int | None = None
    seed: int | None = None
    solver: str = DEFAULT_SEARCH_SOLVER
    engine: str = DEFAULT_ENGINE
    jobs: int = 1
    ray: str | None = None
    cubes: int | None = None
    split_after: float | None = None
    share: bool = True
    out: str | Path | None = None
    assume_none_below: str | Path | None = None
    recheck: float | str | None = None
    recheck_timeout: float | None = None

    def __post_init__(self) -> None:
        check_engine(self.engine)
        if self.max_vertices < 1:
            raise SearchError(f"--max-vertices must be positive, got {self.max_vertices}")
        if self.min_vertices is not None and self.min_vertices > self.max_vertices:
            raise SearchError(
                f"--min-vertices {self.min_vertices} is above --max-vertices {self.max_vertices}"
            )
        if self.max_edges is not None and self.max_edges < 0:
            raise SearchError(f"--max-edges must be at least 0, got {self.max_edges}")
        _positive("timeout", self.timeout)
        _positive("split_after", self.split_after)
        _positive("recheck_timeout", self.recheck_timeout)
        if self.jobs < 1:
            raise SearchError(f"jobs must be at least 1, got {self.jobs}")
        if self.cubes is not None and self.cubes < 1:
            raise SearchError(f"cubes must be at least 1, got {self.cubes}")


def _positive(name: str, value: float | None) -> None:
    if value is not None and value <= 0:
        raise SearchError(f"{name} must be positive, got {value}")
