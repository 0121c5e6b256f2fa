"""Leakage rule for problems with three or more colours: none is one of the (two-colour) 70."""

from __future__ import annotations

from ramseygadgets.catalog import Problem, get_problem
from ramseygadgets.training.leakage import is_benchmark_equivalent, problem_key


def test_three_colour_problems_never_match_the_benchmark():
    # red and blue as in the catalog's (P3, K3)-red-determiner, plus a green colour
    three = Problem.of_colors("P3 | K3 | K3", "red-determiner")
    assert is_benchmark_equivalent(get_problem("p3_k3_red_determiner"))
    assert not is_benchmark_equivalent(three)
    assert problem_key(three) != problem_key(Problem.of_colors("P3 | K3 | C4", "red-determiner"))
