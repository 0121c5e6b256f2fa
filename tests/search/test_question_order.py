"""Which question the lazy engine asks a candidate first (``LayoutFinder._witnesses_first``):
its witnesses where candidates miss them, its bad conditions where none does — and the same
verdicts either way."""

from __future__ import annotations

import pytest

from ramseygadgets.problems.problem import Problem
from ramseygadgets.search import cegar
from ramseygadgets.search.cegar import (
    WITNESS_MISSING,
    WITNESS_SAMPLE,
    WITNESS_WARMUP,
    FinderStats,
    LayoutFinder,
)
from ramseygadgets.search.spec import layouts


def _decide(problem: Problem, n: int) -> list[tuple[bool, FinderStats]]:
    """Every layout of level n searched whole: (solution found, the finder's counts)."""
    out = []
    for layout in layouts(problem.gadget, n):
        with LayoutFinder(problem, n, layout, engine="lazy") as finder:
            out.append((finder.find() is not None, finder.stats))
    return out


def test_where_no_candidate_misses_a_witness_they_are_asked_first_only_on_a_sample():
    problem = Problem.make("K3", "K4", "positive-sender")
    results = _decide(problem, 11)  # none on 11: 1,000 candidates or so, no arrowing lemma
    assert not any(found for found, _ in results)
    big = [stats for _, stats in results if stats.candidates > 200]
    assert big
    for stats in big:
        assert stats.arrowing == stats.witness_missing == 0
        # the warm-up, then one candidate in WITNESS_SAMPLE: not two oracle calls each
        assert stats.witnesses_first <= WITNESS_WARMUP + stats.candidates // WITNESS_SAMPLE + 1
        assert stats.witnesses_first < stats.candidates / 4


def test_where_candidates_miss_witnesses_they_are_asked_for_them_first():
    problem = Problem.make("K3", "K4-e", "red-determiner")
    (found, stats), *_ = _decide(problem, 9)  # none on 9; many candidates have no good colouring
    assert not found and stats.candidates > WITNESS_WARMUP
    assert stats.witness_missing >= WITNESS_MISSING * stats.witnesses_first
    assert stats.witnesses_first > stats.candidates / 2


@pytest.mark.parametrize(
    "F,H,gadget,n",
    [("K3", "K4-e", "red-determiner", 9), ("K3", "K4-e", "blue-determiner", 10)],
)
def test_either_order_finds_the_same_verdict(monkeypatch, F, H, gadget, n):
    problem = Problem.make(F, H, gadget)
    verdicts = []
    for first in (True, False, None):  # witnesses always, bad always, the engine's rule
        if first is not None:
            monkeypatch.setattr(cegar.LayoutFinder, "_witnesses_first", lambda self, f=first: f)
        else:
            monkeypatch.undo()
        verdicts.append(any(found for found, _ in _decide(problem, n)))
    assert verdicts in ([False] * 3, [True] * 3)
    assert verdicts[0] == (gadget == "blue-determiner")  # none on 9, found on 10


def test_the_rule_asks_witnesses_over_the_warm_up_on_the_sample_and_while_they_pay():
    finder = LayoutFinder.__new__(LayoutFinder)
    finder.stats = FinderStats(candidates=5, witnesses_first=5)
    assert finder._witnesses_first()  # warm-up
    finder.stats = FinderStats(candidates=1001, witnesses_first=WITNESS_WARMUP + 60)
    assert not finder._witnesses_first()  # none missed: bad conditions first
    finder.stats.candidates = 1008
    assert WITNESS_SAMPLE == 16 and finder._witnesses_first()  # the sample
    finder.stats.candidates, finder.stats.witness_missing = 1001, 5
    assert finder._witnesses_first()  # 5 of 92 missed one: above WITNESS_MISSING
