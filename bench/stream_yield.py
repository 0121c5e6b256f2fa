"""Yield of the procedural stream: how many problems apart from every published one (the 70 and
the extended set) it holds per size tier, and what drawing them costs, for today's stream against
the stream before issue 36, in the same run.

    .venv/bin/python bench/stream_yield.py [--colors 2 3] [--max-size 7] [--sample 1500]
        [--count 30] [--budget 600] [--seed 5] [--pool P3,...] [--json]

Three streams, published problems left out as ``train-data`` leaves them out:

* ``old``: the stream before issue 36, its pool (the paper's eight + K1,4, P5, C5) drawn
  uniformly over the pool's pairs (or multisets);
* ``new``: today's default (:data:`DEFAULT_POOL`: the paper's eight + every connected 5-vertex
  graph, each colour's pattern drawn by
  :func:`~ramseygadgets.problemsets.stream.pattern_weights`);
* ``new, uniform``: the new pool drawn the old way (stream figures only), to tell the pool's
  share from the weights'.

Per colour count and stream:

* census (``old`` and ``new``): a seeded uniform sample of ``--sample`` of the pool's problems
  (the whole pool when it holds fewer), each solved as the stream solves it
  (:meth:`ProblemStream.solve`: minimal size proven, within ``3..--max-size``, 10 s): how many
  are kept, per size tier, scaled to the pool's size — the number of distinct problems the pool
  holds per tier (exact when the sample is the whole pool) — and CPU seconds per search;
* stream: :meth:`ProblemStream.distinct` with ``--seed``, as ``train-data --stream`` draws, until
  ``--count`` distinct problems (or the pool is exhausted, or ``--budget`` CPU seconds are spent):
  draws per accepted problem (:attr:`ProblemStream.draws`: every problem drawn, solved or not),
  searches per accepted problem and CPU seconds per accepted problem.

Ratios are new over old, both measured in this process (CPU seconds of this single-threaded
process, so a busy machine changes wall time, not the ratios much).  ``--pool`` measures another
pool in place of the default one.  About 9 CPU minutes with the defaults (half of it the
three-colour new pool drawn uniformly); ``--sample 25000`` makes every census exact (about 25).
"""

from __future__ import annotations

import argparse
import collections
import json
import random
import time
from typing import Any

from ramseygadgets.problems.extended import SIZE_TIERS, size_tier
from ramseygadgets.problems.leakage import problem_key
from ramseygadgets.problemsets.stream import DEFAULT_POOL, ProblemStream, StreamConfig

#: The default pool before issue 36: the paper's eight patterns plus K1,4, P5 and C5.
OLD_POOL = ("P3", "K1,3", "K3", "P4", "TK3", "C4", "K4-e", "K4", "K1,4", "P5", "C5")

#: The streams measured: name → (new pool?, uniform draws?, census?).
STREAMS = {"old": (False, True, True), "new": (True, False, True), "new, uniform": (True, True, False)}  # fmt: skip


def make_stream(config: StreamConfig, uniform: bool) -> ProblemStream:
    """The stream of ``config``; ``uniform``: every pair (multiset) of the pool equally likely,
    as the stream drew before issue 36."""
    stream = ProblemStream(config)
    if uniform:
        stream.cum_weights = [float(i) for i in range(1, len(stream.pairs) + 1)]
    return stream


def census(config: StreamConfig, sample: int, seed: int) -> dict[str, Any]:
    """Kept problems per tier in a seeded sample of the pool, scaled to the pool's size."""
    stream = ProblemStream(config)
    pool = sorted({problem_key(p): p for group in stream.pairs for p in group}.items())
    chosen = pool if len(pool) <= sample else random.Random(seed).sample(pool, sample)
    start = time.process_time()
    kept: collections.Counter[int] = collections.Counter()
    for _, problem in chosen:
        item = stream.solve(problem)
        if item is not None:
            kept[item.min_vertices] += 1
    seconds = time.process_time() - start
    scale = len(pool) / len(chosen)
    tiers: collections.Counter[str] = collections.Counter()
    for n, c in kept.items():
        tiers[size_tier(n)] += c
    return {
        "pool_problems": len(pool),
        "searched": len(chosen),
        "exact": len(chosen) == len(pool),
        "kept_by_size": dict(sorted(kept.items())),
        "problems": round(sum(kept.values()) * scale),
        "problems_by_tier": {t: round(tiers[t] * scale) for t in SIZE_TIERS if tiers[t]},
        "cpu_s_per_search": seconds / len(chosen),
    }


def stream_run(config: StreamConfig, uniform: bool, count: int, budget: float) -> dict[str, Any]:
    """Draw distinct problems as train-data does until ``count``, exhaustion or the budget."""
    start = time.process_time()
    stream = make_stream(config, uniform)
    sizes: collections.Counter[int] = collections.Counter()
    ended = "count"
    items = stream.distinct()
    while sum(sizes.values()) < count:
        if time.process_time() - start > budget:
            ended = "budget"
            break
        item = next(items, None)
        if item is None:
            ended = "exhausted"
            break
        sizes[item.min_vertices] += 1
    seconds = time.process_time() - start
    accepted = sum(sizes.values())
    searches = len(stream.solved) + len(stream.dropped)
    per = (lambda x: x / accepted) if accepted else (lambda x: float("nan"))
    return {
        "accepted": accepted,
        "ended": ended,
        "by_size": dict(sorted(sizes.items())),
        "draws": stream.draws,
        "searches": searches,
        "cpu_s": seconds,
        "draws_per_problem": per(stream.draws),
        "searches_per_problem": per(searches),
        "cpu_s_per_problem": per(seconds),
    }


def measure(colors: int, new_pool: tuple[str, ...], args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, (new, uniform, with_census) in STREAMS.items():
        pool = new_pool if new else OLD_POOL
        config = StreamConfig(seed=args.seed, colors=colors, pool=pool, max_size=args.max_size)
        out[name] = {"stream": stream_run(config, uniform, args.count, args.budget)}
        if with_census:
            out[name]["census"] = census(config, args.sample, args.seed)
    return out


def ratio(new: float, old: float) -> str:
    if old == 0:
        return "new" if new else "-"
    return f"{new / old:.1f}×"


def table(results: dict[str, Any]) -> str:
    lines = [
        "| colours | figure | old | new | new / old | new pool, uniform draws |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for colors, streams in results["colors"].items():
        old, new, ablation = streams["old"], streams["new"], streams["new, uniform"]
        oc, nc = old["census"], new["census"]
        estimate = (
            ""
            if oc["exact"] and nc["exact"]
            else f" (est.: {oc['searched']:,} / {nc['searched']:,} searched)"
        )
        rows: list[tuple[str, float, float, str, str]] = [
            ("problems in the pool, published left out", oc["pool_problems"], nc["pool_problems"], ",.0f", ""),
            (f"kept: minimal size 3..{results['options']['max_size']}{estimate}", oc["problems"], nc["problems"], ",.0f", ""),
        ]  # fmt: skip
        for tier in SIZE_TIERS:
            o, n = oc["problems_by_tier"].get(tier, 0), nc["problems_by_tier"].get(tier, 0)
            if o or n:
                rows.append((f"  tier {tier}", o, n, ",.0f", ""))
        rows.append(("CPU s per search", oc["cpu_s_per_search"], nc["cpu_s_per_search"], ".3f", ""))
        for key, name, fmt in (
            ("accepted", "stream: distinct problems drawn", ",.0f"),
            ("draws_per_problem", "stream: draws per problem", ".1f"),
            ("searches_per_problem", "stream: searches per problem", ".1f"),
            ("cpu_s_per_problem", "stream: CPU s per problem", ".2f"),
        ):
            extra = f"{ablation['stream'][key]:{fmt}}"
            rows.append((name, old["stream"][key], new["stream"][key], fmt, extra))
        for name, o, n, fmt, extra in rows:
            lines.append(f"| {colors} | {name} | {o:{fmt}} | {n:{fmt}} | {ratio(n, o)} | {extra} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--colors", type=int, nargs="+", default=[2, 3])
    parser.add_argument("--max-size", type=int, default=7)
    parser.add_argument("--sample", type=int, default=1500, help="problems searched per census")
    parser.add_argument("--count", type=int, default=30, help="distinct problems per stream run")
    parser.add_argument("--budget", type=float, default=600.0, help="CPU s per stream run")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument(
        "--pool", help="comma list measured as the new pool (default: DEFAULT_POOL)"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    from ramseygadgets.colorings.spec import split_pattern_list

    new_pool = tuple(split_pattern_list(args.pool)) if args.pool else DEFAULT_POOL
    results: dict[str, Any] = {
        "options": {k: v for k, v in vars(args).items() if k != "json"},
        "old_pool": list(OLD_POOL),
        "new_pool": list(new_pool),
        "colors": {colors: measure(colors, new_pool, args) for colors in args.colors},
    }
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(
        f"old: pool {','.join(OLD_POOL)}, uniform draws; new: pool {','.join(new_pool)}, "
        f"weighted draws; sizes 3..{args.max_size}; the 70 and the extended set left out\n"
    )
    print(table(results))


if __name__ == "__main__":
    main()
