"""The exact reward is ``eval``'s verdict: same parser, same verifier, same code path."""

from __future__ import annotations

import random

import pytest

from ramseygadgets.answers import format_answer
from ramseygadgets.core.gadgets import Candidate
from ramseygadgets.core.graphs import Graph
from ramseygadgets.problems.catalog import all_problems, get_problem
from ramseygadgets.problems.solutions import get_solution
from ramseygadgets.runs import grading
from ramseygadgets.training import (
    completion_reply,
    exact_reward,
    ramsey_reward,
    ramsey_shaped_reward,
    reward_function,
    rewards,
    shaped_good_graph_reward,
    shaped_parseable_reward,
    shaped_reward,
)
from ramseygadgets.verification.bruteforce import brute_force_verify


def columns(problems: list) -> dict[str, list[str]]:
    return {
        "F": [p.F.name for p in problems],
        "H": [p.H.name for p in problems],
        "gadget": [p.gadget.value for p in problems],
    }


def answer(problem_id: str) -> str:
    problem = get_problem(problem_id)
    return format_answer(get_solution(problem_id).candidate, problem.kind)


def near_miss(problem, rng: random.Random) -> Candidate:
    """The minimal solution with one edge removed (never a designated one when avoidable)."""
    cand = get_solution(problem.id).candidate
    designated = set(cand.designated.edges)
    removable = [e for e in cand.graph.edges if e not in designated]
    drop = rng.choice(removable)
    graph = Graph(cand.graph.n, tuple(e for e in cand.graph.edges if e != drop))
    return Candidate(graph, cand.designated)


def test_every_shipped_solution_earns_one_in_every_completion_shape() -> None:
    problems = list(all_problems())
    replies = [answer(p.id) for p in problems]
    as_text = ramsey_reward(prompts=["?"] * 70, completions=replies, **columns(problems))
    thinking = [f'<think>\nMaybe {{"edges": [[0, 1]]}}?\n</think>\n{r}' for r in replies]
    as_messages = [[{"role": "assistant", "content": r}] for r in thinking]
    as_chat = ramsey_reward(prompts=[[]] * 70, completions=as_messages, **columns(problems))
    assert as_text == as_chat == [1.0] * 70


def test_reward_equals_evals_verdict_and_brute_force_on_near_misses() -> None:
    rng = random.Random(13)
    problems = [p for p in all_problems() if get_solution(p.id).candidate.graph.m <= 16]
    replies = [format_answer(near_miss(p, rng), p.kind) for p in problems]
    rewards = ramsey_reward(completions=replies, **columns(problems))
    for problem, reply, reward in zip(problems, replies, rewards):
        verdict = grading.judge(problem, reply, None)
        assert reward == (1.0 if verdict["correct"] else 0.0)
        parsed = Candidate.from_json(verdict["candidate"], problem.kind)
        brute = brute_force_verify(
            parsed.graph, problem.F, problem.H, problem.gadget, parsed.designated
        )
        assert brute == verdict["correct"], problem.id
    assert 0.0 in rewards  # near misses are mostly wrong


def test_reward_goes_through_evals_judge(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []

    def fake_judge(problem, response, reasoning, max_vertices):  # noqa: ANN001
        calls.append((problem.id, response, reasoning))
        return {"correct": True}

    monkeypatch.setattr(rewards, "judge", fake_judge)
    problem = get_problem("p3_k3_red_determiner")
    message = {"role": "assistant", "content": "no answer", "reasoning_content": "thinking"}
    assert ramsey_reward(completions=[[message]], **columns([problem])) == [1.0]
    assert calls == [(problem.id, "no answer", "thinking")]


def test_failures_earn_zero_and_truncated_thinking_is_not_read() -> None:
    problem = get_problem("k13_k4_red_determiner")
    good = answer(problem.id)
    assert exact_reward(problem, good) == 1.0
    assert exact_reward(problem, f"<think>{good}") == 0.0  # reply ended while reasoning
    assert exact_reward(problem, "I give up.") == 0.0
    assert exact_reward(problem, [{"role": "user", "content": good}]) == 0.0  # not a reply
    assert exact_reward(problem, good.replace('"e"', '"x"')) == 0.0


def test_trl_keyword_arguments_and_column_errors() -> None:
    problem = get_problem("p3_c4_positive_sender")
    extra = {"trainer_state": object(), "completion_ids": [[1, 2]], "problem_id": [problem.id]}
    got = ramsey_reward(
        prompts=["p"], completions=[answer(problem.id)], **columns([problem]), **extra
    )
    assert got == [1.0] and all(isinstance(x, float) for x in got)
    with pytest.raises(
        ValueError, match=r"needs the dataset columns colors \(or F and H\) and gadget"
    ):
        ramsey_reward(prompts=["p"], completions=["x"], F=["P3"], H=["C4"])
    with pytest.raises(
        ValueError, match="2 completions but the problem columns differ.*gadget has 1"
    ):
        ramsey_reward(completions=["x", "y"], **columns([problem]))


def test_completion_reply_reads_content_parts() -> None:
    parts = [
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
        }
    ]
    assert completion_reply(parts) == ("ab", None)
    assert completion_reply([]) == ("", None)


def test_shaped_rewards_are_partial_credit_only() -> None:
    problem = get_problem("p3_k3_red_determiner")
    cand = get_solution(problem.id).candidate
    wrong_edge = Candidate(cand.graph, type(cand.designated)((cand.graph.edges[-1],)))
    complete7 = Candidate(Graph.complete(7), cand.designated)  # not (P3, K3)-good
    replies = [
        format_answer(cand, problem.kind),
        format_answer(wrong_edge, problem.kind),
        format_answer(complete7, problem.kind),
        "no answer",
    ]
    cols = columns([problem] * 4)
    exact = ramsey_reward(completions=replies, **cols)
    parseable = shaped_parseable_reward(completions=replies, **cols)
    good = shaped_good_graph_reward(completions=replies, **cols)
    assert parseable == [1.0, 1.0, 1.0, 0.0]
    assert good == [1.0, 1.0, 0.0, 0.0]
    assert exact[0] == 1.0 and exact[2:] == [0.0, 0.0]
    assert exact[1] == (1.0 if grading.judge(problem, replies[1], None)["correct"] else 0.0)


@pytest.mark.parametrize(
    "reward", [ramsey_reward, shaped_parseable_reward, shaped_good_graph_reward]
)
def test_rewards_pickle_and_score_the_same(reward) -> None:
    """The rewards are objects, not closures: they survive pickling (multiprocessing, Ray,
    accelerate) with TRL's __name__ and the same scores."""
    import pickle

    problem = get_problem("p3_k3_red_determiner")
    good = answer(problem.id)
    completions = [good, "no answer here", [{"role": "assistant", "content": good}]]
    cols = columns([problem] * len(completions))
    copy = pickle.loads(pickle.dumps(reward))
    assert copy.__name__ == reward.__name__ == copy.__qualname__
    assert copy(prompts=["q"] * 3, completions=completions, **cols) == reward(
        prompts=["q"] * 3, completions=completions, **cols
    )
    assert reward(prompts=["q"] * 3, completions=completions, **cols) == [1.0, 0.0, 1.0]


def padded(candidate: Candidate) -> Candidate:
    """The solution plus one edge on two new vertices: still correct, two vertices too many."""
    n = candidate.graph.n
    graph = Graph(n + 2, (*candidate.graph.edges, (n, n + 1)))
    return Candidate(graph, candidate.designated)


def test_the_size_shaped_reward_is_opt_in_and_grades_the_size() -> None:
    """Default: exact 0/1 (the padded answer is correct: 1.0).  Shaped: 1 minimal, 1/(1 + 2)
    padded, 0 wrong, and the exact reward where the row has no proven optimum (null)."""
    problem = get_problem("p3_k3_red_determiner")
    solution = get_solution(problem.id)
    replies = [answer(problem.id), format_answer(padded(solution.candidate), problem.kind), "no"]
    cols = columns([problem] * 3)
    assert ramsey_reward(completions=replies, **cols) == [1.0, 1.0, 0.0]
    assert reward_function() is ramsey_reward and reward_function(shaped=True) is not ramsey_reward
    optimum = {"min_vertices": [solution.n] * 3}
    shaped = reward_function(shaped=True)(completions=replies, **cols, **optimum)
    assert shaped == pytest.approx([1.0, 1 / 3, 0.0])
    unproven = ramsey_shaped_reward(completions=replies, **cols, min_vertices=[None] * 3)
    assert unproven == [1.0, 1.0, 0.0]
    assert shaped_reward(problem, replies[1], solution.n) == pytest.approx(1 / 3)
    as_pandas = {"min_vertices": [float(solution.n), float("nan")]}  # pandas' int with a null
    assert ramsey_shaped_reward(
        completions=replies[1:2] * 2, **columns([problem] * 2), **as_pandas
    ) == pytest.approx([1 / 3, 1.0])
    assert rewards.reward(problem, replies[1]) == exact_reward(problem, replies[1]) == 1.0
    with pytest.raises(ValueError, match="needs the dataset column min_vertices"):
        ramsey_shaped_reward(completions=replies, **cols)
    with pytest.raises(ValueError, match="whole number"):
        ramsey_shaped_reward(completions=replies[:1], **columns([problem]), min_vertices=["5"])
    with pytest.raises(ValueError, match="1 completions but min_vertices has 2"):
        ramsey_shaped_reward(completions=replies[:1], **columns([problem]), min_vertices=[5, 5])
    copy = __import__("pickle").loads(__import__("pickle").dumps(ramsey_shaped_reward))
    assert copy.__name__ == "ramsey_shaped_reward"
    assert copy(completions=replies, **cols, **optimum) == shaped
