"""What re-deriving every grade costs a report over 10^4 samples.

    .venv/bin/python bench/report_regrade.py [--runs 144] [--json]

Two genuine run folders are written with the offline backends (``eval``), each over the
paper's 70 problems in the zero-shot setting with ``--runs`` runs (144: 10,080 samples each):
the reference solver (the shipped minimal solution: the same 70 answers in every run, the case
the cache is for) and the random baseline (random graphs: nearly every answer different and
wrong, the worst case).  For each, in one process:

* **verifier alone**: :func:`ramseygadgets.verification.verifier.verify` of every sample's recorded candidate,
  one call per sample, no cache (what grading every sample again costs without the cache);
* **re-grading**: :func:`ramseygadgets.report.regrade.regrade_runs` (the run's problem set,
  every grade re-derived, verification cached per problem and answer);
* **report**: :func:`~ramseygadgets.report.build_report` (tables, figures, HTML without
  drawings, 200 bootstrap resamples), and the same report with the re-grading replaced by a
  pass-through (the report as it was before it re-derived grades); after one warm-up report,
  the faster of two of each (of three for the verifier and the re-grading).

Printed: samples per second of each, and the ratios (report with / without re-grading;
re-grading / verifier alone).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ramseygadgets.core.gadgets import Candidate
from ramseygadgets.harness.runner import EvalOptions, run_eval
from ramseygadgets.problems.catalog import all_problems
from ramseygadgets.report import ReportOptions, build_report, load_runs
from ramseygadgets.report import build as report_build
from ramseygadgets.report.regrade import Regraded, regrade_runs
from ramseygadgets.runs.samples import Run
from ramseygadgets.verification.verifier import verify

OPTIONS = ReportOptions(resamples=200, drawings=False)


def write_run(base: Path, model: str, runs: int) -> Path:
    """A run folder of ``model`` over the 70 problems."""
    out = base / model
    run_eval(EvalOptions(model=model, out=out, runs=runs, settings=["zero-shot"], progress=False))
    return out


def timed(action: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    value = action()
    return time.perf_counter() - start, value


def best_of(times: int, action: Callable[[], Any]) -> tuple[float, Any]:
    """The fastest of ``times`` timed runs (the machine is shared: the minimum is the cost)."""
    return min((timed(action) for _ in range(times)), key=lambda pair: pair[0])


def verifier_alone(runs: list[Run]) -> int:
    """Verify every recorded candidate once per sample (no cache); returns how many."""
    problems = {p.id: p for p in all_problems()}
    count = 0
    for run in runs:
        for sample in run.samples:
            problem = problems[sample.problem_id]
            data = sample.record.get("candidate")
            if data is None:
                continue
            verify(problem, Candidate.from_json(data, problem.kind))
            count += 1
    return count


def report_without_regrading(runs: list[Run], out: Path) -> float:
    """The report with its re-grading replaced by a pass-through."""
    original = report_build.regrade
    report_build.regrade = lambda runs, options: Regraded(list(runs))
    try:
        seconds, _ = timed(lambda: build_report(runs, out, OPTIONS))
    finally:
        report_build.regrade = original
    return seconds


def measure(folder: Path, base: Path) -> dict[str, Any]:
    """The figures of one run folder (module docstring)."""
    runs = load_runs([folder])
    samples = sum(len(r.samples) for r in runs)
    verify_s, verified = best_of(3, lambda: verifier_alone(runs))
    regrade_s, regraded = best_of(3, lambda: regrade_runs(runs))
    plain_s = min(report_without_regrading(runs, base / f"plain{i}") for i in range(2))
    report_s, result = min(
        (timed(lambda: build_report(runs, base / f"report{i}", OPTIONS)) for i in range(2)),
        key=lambda pair: pair[0],
    )
    assert not result.disputes, result.disputes[:3]
    return {
        "samples": samples,
        "candidates_verified_alone": verified,
        "distinct_answers_verified": regraded.verified,
        "verifier_alone_s": round(verify_s, 3),
        "regrade_s": round(regrade_s, 3),
        "report_without_regrading_s": round(plain_s, 3),
        "report_s": round(report_s, 3),
        "verifier_alone_samples_per_s": round(verified / verify_s),
        "regrade_samples_per_s": round(samples / regrade_s),
        "report_without_regrading_samples_per_s": round(samples / plain_s),
        "report_samples_per_s": round(samples / report_s),
        "regrade_over_verifier_alone": round(regrade_s / verify_s, 3),
        "report_with_over_without": round(report_s / plain_s, 3),
    }


def measure_all(runs: int) -> dict[str, dict[str, Any]]:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        folders = {model: write_run(base / "runs", model, runs) for model in ("solver", "random")}
        build_report(load_runs([folders["solver"]]), base / "warm-up", OPTIONS)
        return {model: measure(folder, base / model) for model, folder in folders.items()}


def show(model: str, r: dict[str, Any]) -> None:
    print(
        f"{model}: {r['samples']} samples, {r['distinct_answers_verified']} distinct answers\n"
        f"  verifier alone       {r['verifier_alone_s']:7.2f} s {r['verifier_alone_samples_per_s']:>7}/s\n"
        f"  re-grading (cached)  {r['regrade_s']:7.2f} s {r['regrade_samples_per_s']:>7}/s"
        f"  ({r['regrade_over_verifier_alone']:.2f} x the verifier alone)\n"
        f"  report, no re-grade  {r['report_without_regrading_s']:7.2f} s"
        f" {r['report_without_regrading_samples_per_s']:>7}/s\n"
        f"  report               {r['report_s']:7.2f} s {r['report_samples_per_s']:>7}/s"
        f"  ({r['report_with_over_without']:.2f} x without re-grading)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=144, help="runs per folder (70 problems each)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    results = measure_all(args.runs)
    if args.json:
        print(json.dumps(results))
        return
    for model, result in results.items():
        show(model, result)


if __name__ == "__main__":
    main()
