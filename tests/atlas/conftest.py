"""What the atlas tests share: one cube log of the (P3, K3)-red-determiner, solved once per
worker (none on 2..4 with 4 cubes each, found on 5; the tests read it and write copies only)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ramseygadgets.problems.catalog import Problem
from ramseygadgets.search.options import SearchOptions
from ramseygadgets.search.parallel import solve_cubes

#: Minimal with 5 vertices and 7 edges.
P3_K3_RED = Problem.make("P3", "K3", "red-determiner")


@pytest.fixture(scope="session")
def p3_k3_log(tmp_path_factory) -> Path:
    """Every level of the (P3, K3)-red-determiner, edges not minimised: ``cubes.jsonl``."""
    out = tmp_path_factory.mktemp("p3_k3_cubes") / "run"
    solve_cubes(P3_K3_RED, SearchOptions(max_vertices=6, cubes=4, out=out, minimize_edges=False))
    return out / "cubes.jsonl"
