"""``report`` with the python setting (issue 33): the setting in every table and figure that lists
settings, after the paper's five; no tool, the coloring tool and Python side by side per size
tier (table and figure); tool calls and tool seconds per sample; and a report of runs without
the python setting as it was (no new table, no new figure).

The run folders are hand-made in the run-directory format (conftest): every reply holds its
answer, so the report's re-grading agrees with the records; one more is made by ``eval`` with
the reference solver (it answers the python setting at once, running no program)."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
from sandbox_helpers import need_sandbox
from typer.testing import CliRunner

from ramseygadgets.cli import app
from ramseygadgets.report.runs import SETTINGS_ORDER, setting_sort_key

#: One problem per size tier: ≤6 (5 vertices), 7-8 (7), 9-10 (9).
PROBLEMS = ["p3_k3_red_determiner", "k13_k3_red_determiner", "k13_k4_variable_gadget"]
TIERS = dict(zip(PROBLEMS, ("≤6", "7-8", "9-10")))
PLAN = {  # setting -> problem -> outcomes of runs 0, 1
    "zero-shot": {
        "p3_k3_red_determiner": ["correct", "wrong"],
        "k13_k3_red_determiner": ["wrong", "wrong"],
        "k13_k4_variable_gadget": ["wrong", "wrong"],
    },
    "multiround": {
        "p3_k3_red_determiner": ["correct", "correct"],
        "k13_k3_red_determiner": ["correct", "wrong"],
        "k13_k4_variable_gadget": ["wrong", "wrong"],
    },
    "python": {
        "p3_k3_red_determiner": ["correct", "correct"],
        "k13_k3_red_determiner": ["correct", "correct"],
        "k13_k4_variable_gadget": ["correct", "wrong"],
    },
}
PAPER_FILES = {
    "table1",
    "table1_wide",
    "table2",
    "outcomes",
    "by_tier",
    "by_size",
    "by_gadget",
    "by_pair",
    "optimum",
    "discoveries",
    "disputed",
    "per_problem",
    "leaderboard",
}
PAPER_FIGURES = {
    "accuracy_vs_tokens",
    "accuracy_vs_size",
    "accuracy_by_tier",
    "outcomes",
    "excess_vertices",
}


def program(seconds: float, *, timed_out: bool = False) -> dict[str, Any]:
    """One program's record as a python sample holds it (``SandboxResult.to_json``)."""
    return {
        "exit_status": -9 if timed_out else 0,
        "timed_out": timed_out,
        "memory_exceeded": False,
        "cpu_exceeded": False,
        "killed_by_signal": False,
        "output_truncated": False,
        "seconds": seconds,
    }


def tool_fields(setting: str, run: int) -> dict[str, Any]:
    """multiround: one coloring-tool call, two rounds; python: run + 1 programs of 0.5 s each
    (the second of run 1 stopped at its time limit), one round more than programs."""
    if setting == "multiround":
        return {"tool_calls": 1, "rounds": 2}
    if setting == "python":
        programs = [program(0.5, timed_out=i == 1) for i in range(run + 1)]
        return {
            "tool_calls": run + 1,
            "rounds": run + 2,
            "tool_seconds": 0.5 * (run + 1),
            "programs": programs,
        }
    return {}


def write_runs(base: Path, helpers: Any, settings: list[str], label: str) -> Path:
    samples = [
        helpers.make_sample(problem, setting, run, outcome, **tool_fields(setting, run))
        for setting in settings
        for problem, outcomes in PLAN[setting].items()
        for run, outcome in enumerate(outcomes)
    ]
    return helpers.write_run_dir(
        base / label,
        problems=PROBLEMS,
        settings=settings,
        runs=2,
        samples=samples,
        model_label=label,
    )


def build(dirs: list[Path], out: Path) -> Path:
    result = CliRunner().invoke(
        app,
        ["report", *map(str, dirs), "--out", str(out), "--bootstrap", "50", "--no-drawings"],
    )
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, report_helpers: Any) -> Path:
    """alpha: zero-shot, multiround and python; beta: the paper's zero-shot and multiround."""
    base = tmp_path_factory.mktemp("python-report")
    alpha = write_runs(base, report_helpers, ["zero-shot", "multiround", "python"], "alpha")
    beta = write_runs(base, report_helpers, ["zero-shot", "multiround"], "beta")
    return build([alpha, beta], base / "report")


@pytest.fixture(scope="module")
def without_python(tmp_path_factory: pytest.TempPathFactory, report_helpers: Any) -> Path:
    base = tmp_path_factory.mktemp("paper-report")
    alpha = write_runs(base, report_helpers, ["zero-shot", "multiround"], "alpha")
    return build([alpha], base / "report")


def rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_python_sorts_after_the_paper_five() -> None:
    assert SETTINGS_ORDER[-1] == "python" and len(SETTINGS_ORDER) == 6
    assert sorted(["python", "a-new-one", "multiround", "zero-shot"], key=setting_sort_key) == [
        "zero-shot",
        "multiround",
        "python",
        "a-new-one",
    ]


def test_python_in_every_table_that_lists_settings(built: Path) -> None:
    for name in ("table1", "outcomes", "by_tier", "by_size", "optimum", "leaderboard"):
        settings = [(r["model"], r["setting"]) for r in rows(built / f"{name}.csv")]
        assert ("alpha", "python") in settings, name
        assert ("beta", "python") not in settings, name
    table1 = {(r["model"], r["setting"]): r for r in rows(built / "table1.csv")}
    assert float(table1["alpha", "python"]["mean_accuracy_pct"]) == pytest.approx(
        100 * 5 / 6, abs=1e-3
    )
    header = (built / "table1_wide.md").read_text().splitlines()[4]
    assert header.index("multiround") < header.index("python")
    per_problem = rows(built / "per_problem.csv")
    assert sum(1 for r in per_problem if r["setting"] == "python") == len(PROBLEMS)
    assert any(
        r["setting"] == "python" for r in json.loads((built / "summary.json").read_text())["table1"]
    )


def test_tools_by_size_tier_table(built: Path) -> None:
    records = rows(built / "tools_by_size_tier.csv")
    assert {r["model"] for r in records} == {"alpha"}  # beta has no python run
    accuracy = {(r["setting"], r["size_tier"]): float(r["mean_accuracy_pct"]) for r in records}
    expected = {}
    for setting, plan in PLAN.items():
        for problem, outcomes in plan.items():
            expected[setting, TIERS[problem]] = 100 * outcomes.count("correct") / 2
        solved = sum(o.count("correct") for o in plan.values())
        expected[setting, "all"] = 100 * solved / 6
    assert accuracy == pytest.approx(expected, abs=1e-3)  # the CSV rounds to 4 decimals
    tools = {r["setting"]: r["tool"] for r in records}
    assert tools == {"zero-shot": "no tool", "multiround": "coloring tool", "python": "Python"}
    # per tier, the three side by side; the tiers in order, then all
    tiers = [r["size_tier"] for r in records]
    assert tiers == [t for t in ("≤6", "7-8", "9-10", "all") for _ in range(3)]
    assert [r["setting"] for r in records[:3]] == ["zero-shot", "multiround", "python"]


def test_tool_use_table(built: Path) -> None:
    records = {(r["model"], r["setting"]): r for r in rows(built / "tool_use.csv")}
    assert set(records) == {(m, "multiround") for m in ("alpha", "beta")} | {("alpha", "python")}
    python = records["alpha", "python"]
    assert float(python["mean_tool_calls"]) == pytest.approx(1.5)
    assert float(python["mean_tool_seconds"]) == pytest.approx(0.75)
    assert float(python["total_tool_seconds"]) == pytest.approx(4.5)
    assert float(python["mean_programs"]) == pytest.approx(1.5)
    assert int(python["programs_stopped"]) == len(PROBLEMS)
    assert float(python["mean_rounds"]) == pytest.approx(2.5)
    coloring = records["alpha", "multiround"]
    assert float(coloring["mean_tool_calls"]) == 1.0 and coloring["mean_tool_seconds"] == ""
    markdown = (built / "tool_use.md").read_text()
    assert (
        "Tool seconds / sample" in markdown
        and "| alpha | python | Python | 6 | 1.50 | 0.75 |" in markdown
    )


def test_the_figures_show_python(built: Path) -> None:
    figures = built / "figures"
    for name in (*PAPER_FIGURES, "tools_by_size_tier"):
        assert (figures / f"{name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    svg = (figures / "tools_by_size_tier.svg").read_text()
    for text in ("no tool (zero-shot)", "coloring tool (multiround)", "Python (python)"):
        assert text in svg
    assert "alpha" in svg and "beta" not in svg and "all tiers" in svg
    assert ">python<" in (figures / "accuracy_vs_size.svg").read_text()  # its panel
    assert ">python<" in (figures / "accuracy_by_tier.svg").read_text()


def test_report_md_and_html_name_the_setting(built: Path) -> None:
    markdown = (built / "report.md").read_text()
    assert "### No tool, coloring tool and Python by size tier" in markdown
    assert "### Tool use per sample" in markdown
    assert "figures/tools_by_size_tier.png" in markdown
    html = (built / "report.html").read_text()
    for anchor in ('id="table-tools_by_size_tier"', 'id="table-tool_use"'):
        assert anchor in html
    assert 'id="figure-tools_by_size_tier"' in html
    assert html.count(">python<") >= 3  # table cells of Table 1, the leaderboard, the tool tables


def test_a_report_without_python_is_unchanged(without_python: Path) -> None:
    names = {p.stem for p in without_python.glob("*.csv")}
    assert names == PAPER_FILES
    assert {p.stem for p in (without_python / "figures").glob("*.png")} == PAPER_FIGURES
    markdown = (without_python / "report.md").read_text()
    assert "Tool use" not in markdown and "tools_by_size_tier" not in markdown
    html = (without_python / "report.html").read_text()
    assert "tools_by_size_tier" not in html and "table-tool_use" not in html


def test_eval_with_the_solver_then_report(tmp_path: Path) -> None:
    need_sandbox()  # eval refuses the python setting where the sandbox cannot run
    out = tmp_path / "run"
    result = CliRunner().invoke(
        app,
        [
            "eval", "--no-progress", "--problems", "p3_k3_red_determiner,k13_k3_red_determiner",
            "--setting", "zero-shot,multiround,python", "--runs", "1", "--out", str(out),
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    report = build([out], tmp_path / "report")
    table1 = {r["setting"]: r for r in rows(report / "table1.csv")}
    assert list(table1) == ["zero-shot", "multiround", "python"]
    assert all(float(r["mean_accuracy_pct"]) == 100 for r in table1.values())
    use = {r["setting"]: r for r in rows(report / "tool_use.csv")}
    assert (
        float(use["python"]["mean_tool_calls"]) == 0
        and float(use["python"]["mean_tool_seconds"]) == 0
    )
    assert float(use["multiround"]["mean_tool_calls"]) == 1
    tiers = {(r["setting"], r["size_tier"]) for r in rows(report / "tools_by_size_tier.csv")}
    assert ("python", "≤6") in tiers and ("multiround", "7-8") in tiers
    assert (report / "figures" / "tools_by_size_tier.svg").is_file()
