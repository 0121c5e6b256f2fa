"""Benchmark the run log's batch append: time per record from 1k to 100k records.

    .venv/bin/python bench/runlog.py                     # batches of 1,000 and single batches
    .venv/bin/python bench/runlog.py --sizes 1000 10000 100000 --batch 500
    .venv/bin/python bench/runlog.py --dir /dev/shm      # without the disk (fsync is free)

For each size N a fresh run directory gets N sample records (about 1 KB each, like a short
reply) through :meth:`RunLog.append_many`: once in batches of ``--batch`` records (group
commits: one write + fsync per batch) and once as a single batch of all N (what a large replay
or a vLLM wave hands over).  The time per record should not grow with N; the script prints the
ratio of the largest to the smallest per-record time per mode and exits with status 1 when it
exceeds ``--max-ratio`` (1.5).  The best of ``--repeat`` runs is kept for each size.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from ramseygadgets.runs.folder import RunFolder as RunLog

RESPONSE = "The gadget is the graph with edges " + ", ".join(f"{i}-{i + 1}" for i in range(120))


def records(count: int) -> list[dict]:
    return [
        {
            "problem_id": f"problem_{i % 70}",
            "setting": f"setting_{i // 70 % 5}",
            "run": i // 350,
            "model": "bench",
            "response": RESPONSE,
            "correct": i % 3 == 0,
            "usage": {"prompt_tokens": 900, "completion_tokens": 300, "total_tokens": 1200},
        }
        for i in range(count)
    ]


def append_time(count: int, batch: int, workdir: Path) -> float:
    """Seconds to append ``count`` records in batches of ``batch`` to a fresh run log."""
    data = records(count)
    directory = Path(tempfile.mkdtemp(dir=workdir))
    with RunLog(directory) as log:
        started = time.perf_counter()
        for start in range(0, count, batch):
            log.append_many(data[start : start + batch])
        elapsed = time.perf_counter() - started
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000, 100_000])
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--max-ratio", type=float, default=1.5)
    parser.add_argument(
        "--dir", default=None, help="Where the run logs go (default: the system temp dir)."
    )
    args = parser.parse_args()
    ok = True
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        for mode, batch_of in (
            (f"batches of {args.batch:,}", lambda n: args.batch),
            ("one batch", lambda n: n),
        ):
            per_record = {}
            for size in args.sizes:
                best = min(append_time(size, batch_of(size), Path(tmp)) for _ in range(args.repeat))
                per_record[size] = best / size
                print(
                    f"{mode:>18}  {size:>8,} records  {best:8.3f} s  {1e6 * best / size:7.2f} µs/record"
                )
            ratio = max(per_record.values()) / min(per_record.values())
            ok &= ratio <= args.max_ratio
            print(
                f"{mode:>18}  largest/smallest per-record time: {ratio:.2f} (limit {args.max_ratio})"
            )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
