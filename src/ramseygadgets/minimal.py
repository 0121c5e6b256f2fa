"""The minimal solution of any problem: the two-colour search for (F,H) pairs, the c-colour
search otherwise.  Both prove what they report: UNSAT on n − 1 vertices (and on n vertices with
m − 1 edges when ``edges_minimal``)."""

from __future__ import annotations

from ramseygadgets.problem import Problem
from ramseygadgets.search.multi import MultiSearchResult, solve_multi
from ramseygadgets.search.solve import DEFAULT_MAX_VERTICES, SearchResult, solve

__all__ = ["MinimalResult", "solve_minimal"]

#: What :func:`solve_minimal` returns: both carry candidate, status, lower_bound, edges_minimal.
MinimalResult = SearchResult | MultiSearchResult


def solve_minimal(
    problem: Problem,
    *,
    max_vertices: int = DEFAULT_MAX_VERTICES,
    timeout: float | None = None,
    seed: int | None = None,
) -> MinimalResult:
    """Search ``problem`` up to ``max_vertices`` vertices within ``timeout`` seconds."""
    if problem.is_pair:
        return solve(problem, max_vertices=max_vertices, timeout=timeout, seed=seed)
    return solve_multi(problem, max_vertices=max_vertices, timeout=timeout, seed=seed)
