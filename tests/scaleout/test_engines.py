"""fanout's engine registry names the search's own engines: ``lazy`` and ``eager`` reach
``search.solve`` in its options, ``cegar`` lets the search choose."""

from __future__ import annotations

import pytest

from ramseygadgets.infra.executors import ScaleoutError
from ramseygadgets.problems.catalog import Problem
from ramseygadgets.scaleout.fanout import ENGINES, engine_function
from ramseygadgets.search.options import SearchOptions


def test_lazy_and_eager_reach_the_search_with_their_engine(monkeypatch) -> None:
    import ramseygadgets.search as search

    seen: list[str] = []

    def spy(problem, options):
        seen.append(options.engine)
        return options.engine

    monkeypatch.setattr(search, "solve", spy)
    problem = Problem.make("K3", "P4", "red-determiner")
    options = SearchOptions(max_vertices=7)
    assert [engine_function(name)(problem, options) for name in ("lazy", "eager")] == [
        "lazy",
        "eager",
    ]
    assert engine_function("cegar")(problem, SearchOptions()) == "auto"
    assert seen == ["lazy", "eager", "auto"]


def test_both_engines_find_the_same_minimum() -> None:
    problem = Problem.make("K3", "P4", "red-determiner")
    options = SearchOptions(max_vertices=8)
    lazy, eager = (engine_function(name)(problem, options) for name in ("lazy", "eager"))
    assert lazy.found and eager.found
    assert (lazy.n, lazy.lower_bound) == (eager.n, eager.lower_bound) == (7, 7)


def test_an_unknown_engine_is_named_with_the_known_ones() -> None:
    with pytest.raises(ScaleoutError, match="unknown search engine 'sms'.*cegar, eager, lazy"):
        engine_function("sms")
    assert set(ENGINES) == {"cegar", "lazy", "eager"}
