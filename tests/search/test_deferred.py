"""Inherited lemmas kept out of the solver until a candidate breaks one
(:mod:`ramseygadgets.search.deferred`): the same lemmas hold for every candidate that reaches
the oracle as when every one was a clause."""

from __future__ import annotations

import random

import pytest

from ramseygadgets.problems.catalog import Problem
from ramseygadgets.search import cegar
from ramseygadgets.search.cubes import CubeTask, clear_finders, generate_cubes, run_cube
from ramseygadgets.search.deferred import DeferredLemmas
from ramseygadgets.search.oracle import KnCopies

K3_K4E_RED = Problem.make("K3", "K4-e", "red-determiner")


@pytest.fixture(autouse=True)
def _fresh_finders():
    yield
    clear_finders()


def _learned(problem: Problem, n: int) -> list[int]:
    """Counterexample lemmas a real cube of level ``n`` learns."""
    cube = generate_cubes(problem, n, 4).cubes[0]
    record = run_cube(CubeTask(problem=problem, cube=cube))
    clear_finders()
    return [value for kind, value in record["learned"] if kind == "c"]


def _mono(copies: KnCopies, red: int) -> tuple[list[int], list[int]]:
    """The copies of F all red and of H all blue under the colouring ``red`` of K_n."""
    f_idx = [i for i, mask in enumerate(copies.f_masks) if mask & red == mask]
    h_idx = [i for i, mask in enumerate(copies.h_masks) if mask & red == 0]
    return f_idx, h_idx


def _breaks(copies: KnCopies, mono: tuple[list[int], list[int]], edge_mask: int) -> bool:
    """Whether the graph ``edge_mask`` contains none of the lemma's copies (listed directly)."""
    masks = [copies.f_masks[i] for i in mono[0]] + [copies.h_masks[i] for i in mono[1]]
    return not any(mask & edge_mask == mask for mask in masks)


def test_the_broken_lemmas_are_those_with_no_copy_inside_the_candidate():
    """Candidates one after another (each a few edges off the last, as a solver's models are):
    what is reported broken equals a direct look at every copy, and a lemma reported once is
    gone (its clause was added)."""
    n, rng = 9, random.Random(9)
    values = _learned(K3_K4E_RED, n)
    assert len(values) > 20
    copies = KnCopies(K3_K4E_RED, n)
    monos = [_mono(copies, v) for v in values]
    keep = [i for i, mono in enumerate(monos) if mono[0] or mono[1]]
    values, monos = [values[i] for i in keep], [monos[i] for i in keep]
    deferred = DeferredLemmas(copies, values, monos)
    alive = set(range(len(values)))
    m, graph = n * (n - 1) // 2, rng.getrandbits(n * (n - 1) // 2)
    held = 0  # checks of a live lemma the candidate satisfied
    for _ in range(300):
        for t in rng.sample(range(m), 2):
            graph ^= 1 << t
        broken = {value for value, _ in deferred.broken(graph)}
        expected = {values[i] for i in alive if _breaks(copies, monos[i], graph)}
        assert broken == expected
        held += len(alive) - len(broken)
        alive = {i for i in alive if values[i] not in broken}
    assert deferred.left == len(alive) and held > len(values)


@pytest.mark.parametrize("defer", [True, False])
def test_every_candidate_the_oracle_sees_satisfies_every_inherited_lemma(monkeypatch, defer):
    """A cube resumed with what it learned before a stop: each candidate checked by the oracle
    contains a copy of every inherited lemma, deferred or not; the verdict is the one without
    them."""
    monkeypatch.setattr("ramseygadgets.search.cubes.DEFER_INHERITED", defer)
    n = 9
    second = max(generate_cubes(K3_K4E_RED, n, 2).cubes, key=lambda c: c.bits.count("1"))
    stopped = run_cube(CubeTask(problem=K3_K4E_RED, cube=second, split_after=0.2))
    assert stopped["outcome"] == "split"
    learned = stopped["learned"]
    clear_finders()
    alone = run_cube(CubeTask(problem=K3_K4E_RED, cube=second, share=False))["outcome"]
    clear_finders()
    copies = KnCopies(K3_K4E_RED, n)
    checked: list[int] = []
    real = cegar.LayoutFinder._check_lazily

    def spy(finder, edge_mask, deadline=None):
        checked.append(edge_mask)
        return real(finder, edge_mask, deadline)

    monkeypatch.setattr(cegar.LayoutFinder, "_check_lazily", spy)
    monkeypatch.setattr("ramseygadgets.search.cubes.MAX_KEPT_LEMMAS", 0)
    record = run_cube(CubeTask(problem=K3_K4E_RED, cube=second, inherited=learned, share=True))
    assert record["outcome"] == alone
    monos = [_mono(copies, v) for kind, v in learned if kind == "c"]
    assert checked
    for edge_mask in checked:
        assert not any(_breaks(copies, mono, edge_mask) for mono in monos)
    assert (record["dropped_by_inherited"] > 0) == defer
