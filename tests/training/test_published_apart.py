"""Training data apart from every published problem (issue 36, item 3): no ``train-data`` row and
no reasoning-gym item is equivalent to one of the 70 or to a problem of the extended set, by the
leakage rule (:func:`ramseygadgets.problems.leakage.problem_key`) and, independently of nauty and of the
rule's canonical forms, by networkx's isomorphism of the patterns under every renaming of the
colours the definitions allow; ``--include-extended`` (``include_extended=True``) lets the
extended set in and still keeps the 70 out, and the manifest says which sets were left out.

Before the fix, 47 of the 60 rows of ``train-data --stream 60 --seed 5`` and 21 of 40
three-colour rows were extended problems; the samples below held 14 of 19 distinct problems
(two colours, 20 rows), 8 of 17 (three colours), and 8 of 12 and 5 of 10 reasoning-gym items."""

from __future__ import annotations

import itertools
import json
import math
from functools import cache
from pathlib import Path

import networkx as nx
import pytest
from typer.testing import CliRunner

from ramseygadgets.cli import app
from ramseygadgets.core.graphs import Graph
from ramseygadgets.problems.catalog import all_problems
from ramseygadgets.problems.extended import extended_problems
from ramseygadgets.problems.leakage import (
    benchmark_keys,
    extended_keys,
    is_benchmark_equivalent,
    is_published,
    problem_key,
    published_keys,
)
from ramseygadgets.problems.problem import Problem
from ramseygadgets.problemsets.patterns import expand_patterns
from ramseygadgets.problemsets.stream import (
    DEFAULT_POOL,
    StreamConfig,
    StreamExhausted,
    pattern_weights,
    pool_groups,
    pool_problems,
)

pytest.importorskip("datasets")
runner = CliRunner()


# -- equivalence decided from the definitions (networkx, no canonical forms) ------------------
def nx_graph(graph: Graph) -> nx.Graph:
    g = nx.Graph()
    g.add_nodes_from(range(graph.n))
    g.add_edges_from(graph.edges)
    return g


NxForm = tuple[int, str, "int | None", tuple[nx.Graph, ...]]


def nx_form(problem: Problem) -> NxForm:
    """Colour count, kind of gadget, determined colour and each colour's pattern (networkx)."""
    graphs = tuple(nx_graph(p.graph) for p in problem.patterns)
    return (problem.c, problem.kind.value, problem.color, graphs)


def nx_equivalent_forms(a: NxForm, b: NxForm) -> bool:
    """Whether renaming the colours of ``a`` (and relabelling each colour's pattern) gives ``b``:
    the same kind of gadget, colour i's pattern isomorphic to colour π(i)'s, a determiner's
    colour carried along; clause and variable gadgets (two colours, F = K1,k) are not symmetric
    in the colours, so only the identity is allowed for them."""
    c, kind, color, graphs_a = a
    if (c, kind) != b[:2]:
        return False
    hardness = kind in ("clause-gadget", "variable-gadget")
    for perm in [tuple(range(c))] if hardness else itertools.permutations(range(c)):
        if color is not None and perm[color] != b[2]:
            continue
        if all(nx.is_isomorphic(graphs_a[i], b[3][perm[i]]) for i in range(c)):
            return True
    return False


def nx_equivalent(a: Problem, b: Problem) -> bool:
    return nx_equivalent_forms(nx_form(a), nx_form(b))


@cache
def published() -> dict[str, list[NxForm]]:
    """Every published problem (the 70 and the extended set), by set, as networkx forms."""
    return {
        "paper": [nx_form(p) for p in all_problems()],
        "extended": [nx_form(entry.problem) for entry in extended_problems()],
    }


def published_match(problem: Problem) -> str | None:
    """The published set (``paper``/``extended``) with a problem networkx finds equivalent."""
    form = nx_form(problem)
    for name, forms in published().items():
        if any(nx_equivalent_forms(form, other) for other in forms):
            return name
    return None


def row_problems(out: Path) -> list[Problem]:
    """The distinct problems of a ``train-data`` folder's rows."""
    rows = [json.loads(line) for line in (out / "rows.jsonl").read_text().splitlines()]
    return list({r["problem_id"]: Problem.from_json(r) for r in rows}.values())


def test_the_networkx_check_finds_disguised_published_problems() -> None:
    """The independent check is not vacuous: it finds every published problem, relabelled and
    with its colours renamed, and passes an unpublished one."""
    three = next(
        e.problem
        for e in extended_problems()
        if e.problem.c == 3 and e.problem.color == 0 and len(set(e.problem.patterns)) == 3
    )
    reverse = [p.spec for p in reversed(three.patterns)]
    # the colours in reverse order, the determined colour (red) moving with its pattern
    renamed = Problem.of_colors(reverse, "green-determiner")
    assert published_match(renamed) == "extended" and is_published(renamed)
    assert not nx_equivalent(Problem.of_colors(reverse, "red-determiner"), three)
    swapped = Problem.make("K3", "P3", "blue-determiner")  # the 70's (P3, K3)-red-determiner
    assert published_match(swapped) == "paper" and is_benchmark_equivalent(swapped)
    star_clause = Problem.make("K1,4", "K4", "clause-gadget")
    assert published_match(star_clause) is None and not is_published(star_clause)
    atlas = Problem.make("C5", "P3", "blue-determiner")  # the stars' (P3, C5)-red-determiner
    assert published_match(atlas) == "extended"


# -- the rows: by default apart from both sets ------------------------------------------------
def train_data(out: Path, *args: str) -> dict:
    result = runner.invoke(app, ["train-data", "--out", str(out), "--seed", "5", "--json", *args])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def assert_apart(problems: list[Problem]) -> None:
    """None of ``problems`` is published: by the leakage rule, and by networkx (each list shows
    what its check found)."""
    assert problems
    by_rule = [p.title for p in problems if problem_key(p) in published_keys()]
    by_networkx = [(p.title, where) for p in problems if (where := published_match(p))]
    assert (by_rule, by_networkx) == ([], [])


def test_two_color_train_data_holds_no_published_problem(tmp_path: Path) -> None:
    manifest = train_data(tmp_path / "two", "--stream", "20")
    problems = row_problems(tmp_path / "two")
    assert all(p.c == 2 for p in problems) and len(problems) >= 12
    assert_apart(problems)
    assert manifest["excluded_sets"] == ["paper", "extended"]
    assert "--set extended" in manifest["leakage_rule"]
    assert manifest["stream"]["include_extended"] is False


@pytest.mark.slow
def test_three_color_train_data_holds_no_published_problem(tmp_path: Path) -> None:
    train_data(tmp_path / "three", "--stream", "20", "--colors", "3")
    problems = row_problems(tmp_path / "three")
    assert all(p.c == 3 for p in problems) and len(problems) >= 10
    assert_apart(problems)


@pytest.mark.parametrize("num_colors, size", [(2, 12), (3, 12)])
def test_reasoning_gym_items_are_no_published_problem(num_colors: int, size: int) -> None:
    reasoning_gym = pytest.importorskip("reasoning_gym")
    import ramseygadgets.integrations.reasoning_gym  # noqa: F401

    data = reasoning_gym.create_dataset("ramsey_gadgets", seed=5, size=size, num_colors=num_colors)
    problems = [Problem.from_json(entry["metadata"]) for entry in data]
    assert all(p.c == num_colors for p in problems)
    assert_apart(problems)


# -- --include-extended: the extended set may come in, the 70 never ----------------------------
#: Small patterns: nearly every problem of theirs with a small minimal size is published.
SMALL = ("--pool", "P3,K1,3,K3,P4", "--max-size", "6")


def test_include_extended_lets_extended_problems_in_but_never_the_seventy(tmp_path: Path) -> None:
    manifest = train_data(tmp_path / "with", "--stream", "12", *SMALL, "--include-extended")
    assert manifest["excluded_sets"] == ["paper"]
    assert manifest["stream"]["include_extended"] is True
    assert "--set extended" not in manifest["leakage_rule"]
    problems = row_problems(tmp_path / "with")
    assert any(published_match(p) == "extended" for p in problems)  # the option does something
    assert not any(published_match(p) == "paper" or is_benchmark_equivalent(p) for p in problems)
    # without the option the same small pool has no problem to give: all of it is published
    result = runner.invoke(
        app, ["train-data", "--out", str(tmp_path / "without"), "--stream", "1", *SMALL]
    )
    assert result.exit_code == 2 and "paper and extended" in result.output


def test_reasoning_gym_include_extended() -> None:
    reasoning_gym = pytest.importorskip("reasoning_gym")
    import ramseygadgets.integrations.reasoning_gym  # noqa: F401

    options = {"seed": 2, "size": 8, "pool": ("P3", "K1,3", "K3", "P4"), "max_size": 6}
    data = reasoning_gym.create_dataset("ramsey_gadgets", include_extended=True, **options)
    problems = [Problem.from_json(entry["metadata"]) for entry in data]
    assert any(published_match(p) == "extended" for p in problems)
    assert not any(is_benchmark_equivalent(p) for p in problems)
    default = reasoning_gym.create_dataset("ramsey_gadgets", **options)
    with pytest.raises(StreamExhausted, match="paper and extended"):
        default[0]


def extended_pair_record(problem: Problem, entry_candidate) -> dict:  # noqa: ANN001
    proof = {"proven_minimal": True, "lower_bound": entry_candidate.graph.n}
    return {
        "id": problem.id,
        **problem.to_json(),
        "solution": entry_candidate.to_json(problem.kind),
        **proof,
    }


def test_from_a_problem_set_extended_problems_are_left_out_unless_asked(tmp_path: Path) -> None:
    """``--from``: an extended problem (relabelled, colours exchanged) is left out as
    ``extended-equivalent``; with ``--include-extended`` it is kept."""
    entry = next(
        e
        for e in extended_problems()
        if e.problem.is_pair and e.problem.gadget_name == "red-determiner"
    )
    p = entry.problem
    disguised = Problem.make(p.H.graph.to_graph6(), p.F.graph.to_graph6(), "blue-determiner")
    assert published_match(disguised) == "extended"
    source = tmp_path / "problems.jsonl"
    source.write_text(json.dumps(extended_pair_record(disguised, entry.candidate)) + "\n")
    result = runner.invoke(app, ["train-data", "--out", str(tmp_path / "a"), "--from", str(source)])
    assert result.exit_code == 2 and "extended-equivalent" in result.output, result.output
    manifest = train_data(tmp_path / "b", "--from", str(source), "--include-extended")
    assert manifest["excluded"] == [] and manifest["problems"] == 1


# -- the pool: exactly the published problems are left out; the draws' weights ----------------
@pytest.mark.parametrize("colors", [2, 3])
def test_the_pool_leaves_out_exactly_the_published_problems(colors: int) -> None:
    pool = (
        ("P3", "K1,3", "K3", "P4", "C4", "K1,4", "P5")
        if colors == 2
        else ("P3", "K1,3", "K3", "P4", "C4")
    )
    config = StreamConfig(colors=colors, pool=pool)
    everything = {problem_key(p) for g in pool_problems(config, exclude=set()) for p in g}
    default = {problem_key(p) for g in pool_problems(config) for p in g}
    with_extended = {
        problem_key(p)
        for g in pool_problems(StreamConfig(colors=colors, pool=pool, include_extended=True))
        for p in g
    }
    assert everything - default == everything & published_keys()
    assert everything - with_extended == everything & benchmark_keys()
    assert everything & extended_keys() - benchmark_keys()  # the pool does meet the extended set


def test_each_color_draws_a_vertex_count_uniformly_then_a_pattern() -> None:
    patterns = expand_patterns(DEFAULT_POOL)
    weights = pattern_weights(patterns)
    by_n: dict[int, float] = {}
    for pattern, w in zip(patterns, weights, strict=True):
        by_n[pattern.graph.n] = by_n.get(pattern.graph.n, 0) + w
    assert by_n == pytest.approx({3: 1 / 3, 4: 1 / 3, 5: 1 / 3})
    for colors in (2, 3):  # before the exclusion the groups' weights are a distribution
        groups = pool_groups(
            StreamConfig(colors=colors, pool=("P3", "K3", "P4", "C5", "K1,4")), exclude=set()
        )
        assert math.isclose(sum(w for w, _ in groups), 1.0)
