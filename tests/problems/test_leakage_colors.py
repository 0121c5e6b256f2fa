"""Leakage rule for problems with three or more colours: none is one of the (two-colour) 70,
and renaming the colours gives an equivalent problem."""

from __future__ import annotations

import itertools

from ramseygadgets.core.gadgets import GadgetKind
from ramseygadgets.problems.catalog import Problem, get_problem
from ramseygadgets.problems.extended import extended_problems
from ramseygadgets.problems.leakage import is_benchmark_equivalent, is_published, problem_key


def test_three_color_problems_never_match_the_benchmark():
    # red and blue as in the catalog's (P3, K3)-red-determiner, plus a green colour
    three = Problem.of_colors("P3 | K3 | K3", "red-determiner")
    assert is_benchmark_equivalent(get_problem("p3_k3_red_determiner"))
    assert not is_benchmark_equivalent(three)
    assert problem_key(three) != problem_key(Problem.of_colors("P3 | K3 | C4", "red-determiner"))


def test_color_permuted_three_color_problems_are_published() -> None:
    """The leakage rule with three colours: renaming the colours of an extended problem (a
    determiner's colour moves with its pattern) gives a published problem; another pattern does
    not."""
    three = [e.problem for e in extended_problems() if e.problem.c == 3]
    assert three
    for problem in three:
        patterns = [p.spec for p in problem.patterns]
        for order in itertools.permutations(range(3)):
            colors = [patterns[i] for i in order]
            if problem.kind is GadgetKind.DETERMINER:
                color = ("red", "blue", "green")[order.index(problem.color)]
                gadget = f"{color}-determiner"
            else:
                gadget = problem.gadget_name
            assert is_published(Problem.of_colors(colors, gadget)), (problem.id, order)
    assert not is_published(Problem.of_colors(["P3", "P3", "C6"], "green-determiner"))
