"""Evaluation-harness throughput and overhead against a loopback OpenAI-compatible server.

    .venv/bin/python bench/harness.py [--latency 0.2] [--levels 1,8,64] [--json]

A scripted server (tests/harness/openai_mock.py, in its own process so that its CPU is not
counted) answers every request after ``latency`` seconds with the problem's minimal solution in
the answer format.  For each concurrency c the harness runs zero-shot samples through the real
``openai/`` backend and reports:

* samples/s, and the ratio to the latency-bound ideal c / latency (1.0 = no harness overhead);
* harness CPU per sample: this process's CPU time (all threads) minus the CPU spent parsing
  and verifying answers (measured per call with ``time.thread_time``), divided by samples.
  Target ≤ 5 ms.  It includes the openai SDK, HTTP, JSON, the run log (write + fsync), the
  conversation and record building.

Baseline, same process: the same samples with the in-process ``solver`` backend (no HTTP), whose
CPU per sample is the harness's own share without the network client.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

from ramseygadgets.harness import scoring  # noqa: E402
from ramseygadgets.harness.runner import EvalOptions, Evaluation  # noqa: E402
from ramseygadgets.problems.catalog import all_problems  # noqa: E402


class JudgeTimer:
    """Accumulates the CPU time spent in ``scoring.grade`` (parse + verify; the name ``sample_record`` calls), in any thread."""

    def __init__(self) -> None:
        self.cpu = 0.0
        self._lock = threading.Lock()
        self._original = scoring.grade

    def __enter__(self) -> JudgeTimer:
        def timed(*args, **kwargs):
            start = time.thread_time()
            try:
                return self._original(*args, **kwargs)
            finally:
                with self._lock:
                    self.cpu += time.thread_time() - start

        scoring.grade = timed
        return self

    def __exit__(self, *exc: object) -> None:
        scoring.grade = self._original


def start_server(latency: float) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(
        [
            sys.executable,
            str(ROOT / "tests" / "harness" / "openai_mock.py"),
            "--latency",
            str(latency),
        ],
        stdout=subprocess.PIPE,
        text=True,
        # the mock imports tests/helpers (as tests/conftest.py puts it on sys.path)
        env={**os.environ, "PYTHONPATH": str(ROOT / "tests" / "helpers")},
    )
    line = proc.stdout.readline() if proc.stdout else ""
    if not line.startswith("PORT "):
        proc.kill()
        raise SystemExit(f"mock server did not start: {line!r}")
    return proc, f"http://127.0.0.1:{int(line.split()[1])}/v1"


def process_cpu(pid: int | None) -> float:
    """CPU seconds (user + system) used so far by another process (Linux /proc)."""
    if pid is None:
        return 0.0

    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure(
    model: str,
    base_url: str | None,
    problems: list[str],
    runs: int,
    concurrency: int,
    out: Path,
    server_pid: int | None = None,
) -> dict[str, float]:
    options = EvalOptions(
        out=out,
        model=model,
        base_url=base_url,
        problems=problems,
        runs=runs,
        settings=["zero-shot"],
        max_concurrency=concurrency,
        progress=False,
    )
    evaluation = Evaluation(options)
    evaluation.prepare()
    evaluation.prompt(evaluation.problem_set.problems[0], "zero-shot")
    with JudgeTimer() as judge:
        server0, cpu0, wall0 = process_cpu(server_pid), time.process_time(), time.perf_counter()
        outcome = evaluation.run()
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
        server_cpu = process_cpu(server_pid) - server0
    samples = outcome.stats.done
    if samples != len(problems) * runs or outcome.stats.errors:
        raise SystemExit(
            f"{model} at concurrency {concurrency}: {samples} samples, {outcome.stats.errors} errors"
        )
    return {
        "samples": samples,
        "wall_s": wall,
        "samples_per_s": samples / wall,
        "cpu_ms_per_sample": 1000 * cpu / samples,
        "verify_ms_per_sample": 1000 * judge.cpu / samples,
        "harness_cpu_ms_per_sample": 1000 * (cpu - judge.cpu) / samples,
        "server_cpu_ms_per_sample": 1000 * server_cpu / samples,
        "accuracy": outcome.stats.correct / samples,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--latency", type=float, default=0.2, help="server latency per reply (s)")
    parser.add_argument("--levels", default="1,8,64", help="concurrency levels")
    parser.add_argument("--min-seconds", type=float, default=2.0, help="ideal duration per level")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    ids = [p.id for p in all_problems()]
    server, base_url = start_server(args.latency)
    rows = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            # warm-up (imports, SAT solver) outside the measurement; then the fixed cost of one run
            # (client and TLS context creation, /models check, run directory, event loop) from a 1-sample run
            measure("openai/mock-model", base_url, ids[:4], 1, 4, Path(tmp) / "warmup")
            single = measure(
                "openai/mock-model", base_url, ids[:1], 1, 1, Path(tmp) / "single", server.pid
            )
            for level in (int(x) for x in args.levels.split(",")):
                wanted = max(level * 2, math.ceil(args.min_seconds * level / args.latency))
                problems = ids[:wanted] if wanted < len(ids) else ids
                runs = max(1, math.ceil(wanted / len(problems)))
                served = measure(
                    "openai/mock-model",
                    base_url,
                    problems,
                    runs,
                    level,
                    Path(tmp) / f"openai-{level}",
                    server.pid,
                )
                local = measure(
                    "solver", None, problems, runs, level, Path(tmp) / f"solver-{level}"
                )
                ideal = level / args.latency
                rows.append(
                    {
                        "concurrency": level,
                        "ideal_samples_per_s": ideal,
                        "ratio_to_ideal": served["samples_per_s"] / ideal,
                        "openai": served,
                        "solver": local,
                    }
                )
    finally:
        server.terminate()
        server.wait(timeout=10)
    if args.json:
        print(
            json.dumps(
                {"latency_s": args.latency, "single_sample_run": single, "levels": rows}, indent=2
            )
        )
        return
    print(
        f"loopback server latency {1000 * args.latency:.0f} ms; zero-shot samples; CPU in ms per sample"
    )
    print(
        f"{'conc':>4} {'samples':>7} {'samples/s':>9} {'ideal':>6} {'ratio':>6} {'harness cpu':>11} "
        f"{'verify cpu':>10} {'server cpu':>10} {'solver-backend cpu':>18}"
    )
    for r in rows:
        s, b = r["openai"], r["solver"]
        print(
            f"{r['concurrency']:>4} {s['samples']:>7} {s['samples_per_s']:>9.1f} {r['ideal_samples_per_s']:>6.1f} "
            f"{r['ratio_to_ideal']:>6.2f} {s['harness_cpu_ms_per_sample']:>11.2f} {s['verify_ms_per_sample']:>10.2f} "
            f"{s['server_cpu_ms_per_sample']:>10.2f} "
            f"{b['harness_cpu_ms_per_sample']:>18.2f}"
        )
    print(
        f"a run of a single sample costs {single['harness_cpu_ms_per_sample']:.1f} ms harness CPU "
        f"(fixed start-up cost, amortised over the samples of each level above)"
    )


if __name__ == "__main__":
    main()
