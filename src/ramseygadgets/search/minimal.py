"""The minimal solution of any problem: the two-colour search for (F,H) pairs, the c-colour
search otherwise.  Both prove what they report: UNSAT on n − 1 vertices (and on n vertices with
m − 1 edges when ``edges_minimal``)."""

from __future__ import annotations

from ramseygadgets.problems.problem import Problem
from ramseygadgets.search.multi import solve_multi
from ramseygadgets.search.options import SearchOptions
from ramseygadgets.search.solve import SearchResult, solve

__all__ = ["solve_minimal"]


def solve_minimal(problem: Problem, options: SearchOptions = SearchOptions()) -> SearchResult:
    """Search ``problem`` within ``options`` (:func:`.solve.solve` for a pair, else
    :func:`.multi.solve_multi`)."""
    if problem.is_pair:
        return solve(problem, options)
    return solve_multi(problem, options)
