"""Report speed on many problems outside the catalog and on many settings.

    .venv/bin/python bench/report.py [--problems 5000] [--settings 300] [--json]

Two synthetic run directories (written to a temporary folder, in the run-directory format of
docs/eval.md): one with ``--problems`` problems outside the catalog (ids such as
``q17_k4_red_determiner``) in one setting and two runs, one with the 10 first catalog problems
in ``--settings`` settings.  Samples are parse failures, backend errors and truncations (no
drawings), so the time is the report's own bookkeeping.  Each is also run at half size: the
ratio full/half is ≈ 2 for linear work (4 for quadratic).  The baseline, in the same process,
is ``load_runs`` of the same directory (reading and decoding every sample once).
Target: each full-size report in seconds.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from ramseygadgets.problems.catalog import all_problems
from ramseygadgets.report import ReportOptions, build_report, load_runs

OUTCOMES = ("parse-failure", "error", "truncated")


def record(problem_id: str, setting: str, run: int, index: int) -> dict[str, object]:
    outcome = OUTCOMES[index % len(OUTCOMES)]
    return {
        "problem_id": problem_id,
        "setting": setting,
        "run": run,
        "model": "bench/model",
        "correct": False,
        "usage": {"total_tokens": 1000 + index % 97},
        "finish_reason": "length" if outcome == "truncated" else "stop",
        "error": "HTTP 500" if outcome == "error" else None,
        "parse_error": "no answer found" if outcome == "parse-failure" else None,
        "response": "no graph here",
    }


def write_run_dir(path: Path, problems: list[str], settings: list[str], runs: int) -> Path:
    path.mkdir(parents=True)
    config = {"model": "bench/model", "settings": settings, "runs": runs, "problems": problems}
    (path / "config.json").write_text(json.dumps(config))
    with open(path / "samples.jsonl", "w") as fh:
        index = 0
        for setting in settings:
            for problem in problems:
                for run in range(runs):
                    fh.write(json.dumps(record(problem, setting, run, index)) + "\n")
                    index += 1
    return path


def time_report(run_dir: Path, out: Path) -> tuple[float, float]:
    """Seconds to load the runs (baseline) and to build the whole report (HTML included)."""
    start = time.perf_counter()
    runs = load_runs([run_dir])
    loaded = time.perf_counter()
    build_report(runs, out, ReportOptions(resamples=200))
    return loaded - start, time.perf_counter() - loaded


def scenarios(problems: int, settings: int) -> dict[str, tuple[list[str], list[str], int]]:
    outside = [f"q{i}_k4_red_determiner" for i in range(problems)]
    catalog = [p.id for p in all_problems()[:10]]
    many = ["zero-shot"] + [f"variant-{i}" for i in range(settings - 1)]
    return {
        f"{problems} problems outside the catalog": (outside, ["zero-shot"], 2),
        f"{problems // 2} problems outside the catalog": (
            outside[: problems // 2],
            ["zero-shot"],
            2,
        ),
        f"{settings} settings x 10 problems": (catalog, many, 1),
        f"{settings // 2} settings x 10 problems": (catalog, many[: settings // 2], 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--problems", type=int, default=5000)
    parser.add_argument("--settings", type=int, default=300)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, (name, (problems, settings, runs)) in enumerate(
            scenarios(args.problems, args.settings).items()
        ):
            run_dir = write_run_dir(Path(tmp) / f"run{i}", problems, settings, runs)
            load_s, report_s = time_report(run_dir, Path(tmp) / f"report{i}")
            samples = len(problems) * len(settings) * runs
            rows.append({"input": name, "samples": samples, "load_s": load_s, "report_s": report_s})
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print(f"{'input':40} {'samples':>8} {'load s':>8} {'report s':>9} {'ratio':>6}")
    for r in rows:
        ratio = r["report_s"] / max(r["load_s"], 1e-9)
        print(
            f"{r['input']:40} {r['samples']:8d} {r['load_s']:8.2f} {r['report_s']:9.2f} {ratio:6.1f}"
        )
    for full, half in ((rows[0], rows[1]), (rows[2], rows[3])):
        print(f"{full['input']}: full/half time {full['report_s'] / half['report_s']:.1f}")


if __name__ == "__main__":
    main()
