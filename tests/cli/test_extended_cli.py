"""``--set`` and ``--dataset`` on every command that takes problems; eval, report and export of
the extended set."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ramseygadgets.answers import format_answer
from ramseygadgets.cli import app
from ramseygadgets.problems.extended import SIZE_TIERS, three_color_entries
from ramseygadgets.verification.selection import extended_problem_set

runner = CliRunner()


def run(*args: str, stdin: str | None = None):
    return runner.invoke(app, list(args), input=stdin)


def assert_one_line_error(result, *words: str) -> None:
    assert result.exit_code == 2, (result.exit_code, result.output)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    for word in words:
        assert word in lines[0], lines[0]


def tier_sample(per_tier: int) -> list[str]:
    """The first ``per_tier`` problems of every size tier of the extended set."""
    problem_set = extended_problem_set()
    chosen: list[str] = []
    for tier in SIZE_TIERS:
        chosen += [p for p in problem_set.ids if problem_set.size_tiers[p] == tier][:per_tier]
    return chosen


def smallest_problem() -> str:
    """The smallest two-colour problem of the set (``solve`` searches two colours)."""
    problem_set = extended_problem_set()
    two = [p for p in problem_set.problems if p.c == 2]
    return min(two, key=lambda p: (problem_set.min_vertices(p), p.id)).id


def dataset_file(tmp_path: Path, problem_id: str) -> Path:
    """A problem-set file with one extended problem and its minimal solution."""
    problem_set = extended_problem_set()
    problem = problem_set.get(problem_id)
    record = {
        **problem.to_json(),
        "solution": problem_set.solution(problem).to_json(problem.kind),  # type: ignore[union-attr]
    }
    path = tmp_path / "set.jsonl"
    path.write_text(json.dumps(record) + "\n")
    return path


# ---------------------------------------------------------------------------------------------
# eval: the solver scores 100 %, the random baseline near 0
# ---------------------------------------------------------------------------------------------
def _eval(out: Path, model: str, *extra: str) -> dict:
    result = run("eval", "--set", "extended", "-m", model, "-s", "zero-shot", "-n", "1",
                 "--out", str(out), "--no-progress", "--json", *extra)  # fmt: skip
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_eval_records_the_set_and_the_chosen_problems(tmp_path: Path) -> None:
    ids = ",".join(tier_sample(2))
    _eval(tmp_path / "solver", "solver", "--problems", ids)
    config = json.loads((tmp_path / "solver" / "config.json").read_text())
    assert config["problem_set"] == "extended" and config["dataset"] is None
    assert config["problems"] == ids.split(",")


@pytest.mark.slow
def test_eval_solver_100_and_random_near_0_on_the_whole_set(tmp_path: Path) -> None:
    solver = _eval(tmp_path / "solver", "solver")
    assert solver["total"] == len(extended_problem_set().problems) >= 200
    assert solver["settings"][0]["accuracy"] == 1.0
    assert _eval(tmp_path / "random", "random")["settings"][0]["accuracy"] <= 0.05


def test_eval_solver_100_and_random_near_0_on_every_tier(tmp_path: Path) -> None:
    """The default suite's share of the whole-set run (slow): 15 problems of every size tier
    (all of ≥11), two and three colours."""
    ids = ",".join(tier_sample(15))
    solver = _eval(tmp_path / "solver", "solver", "--problems", ids)
    assert solver["total"] == len(ids.split(",")) >= 50
    assert solver["settings"][0]["accuracy"] == 1.0
    random = _eval(tmp_path / "random", "random", "--problems", ids)
    assert random["settings"][0]["accuracy"] <= 0.1


def test_eval_size_tier_filter(tmp_path: Path) -> None:
    data = _eval(tmp_path / "run", "solver", "--tier", "9-10", "--limit", "3")
    config = json.loads((tmp_path / "run" / "config.json").read_text())
    problem_set = extended_problem_set()
    assert data["total"] == 3
    assert all(problem_set.size_tiers[p] == "9-10" for p in config["problems"])
    wrong = run("eval", "--set", "extended", "--tier", "12+", "--out", str(tmp_path / "x"))
    assert_one_line_error(wrong, "--tier must be easy, hard or a size tier", "9-10")


def test_eval_resumes_with_the_recorded_set(tmp_path: Path) -> None:
    ids = ",".join(tier_sample(2))
    _eval(tmp_path / "run", "solver", "--problems", ids)
    again = _eval(tmp_path / "run", "solver", "--problems", ids)
    assert again["ran"] == 0 and again["recorded"] == again["total"]


def test_paper_eval_records_the_paper_set(tmp_path: Path) -> None:
    result = run("eval", "-m", "solver", "-s", "zero-shot", "-n", "1", "--limit", "2",
                 "--out", str(tmp_path / "run"), "--no-progress", "--json")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "run" / "config.json").read_text())["problem_set"] == "paper"


# ---------------------------------------------------------------------------------------------
# report: accuracy by size tier
# ---------------------------------------------------------------------------------------------
def test_report_shows_accuracy_by_size_tier_for_the_extended_set(tmp_path: Path) -> None:
    ids = ",".join(tier_sample(3))
    _eval(tmp_path / "solver", "solver", "--problems", ids)
    _eval(tmp_path / "random", "random", "--problems", ids)
    out = tmp_path / "report"
    result = run("report", str(tmp_path / "solver"), str(tmp_path / "random"), "--out", str(out),
                 "--bootstrap", "0", "--no-drawings")  # fmt: skip
    assert result.exit_code == 0, result.output
    rows = (out / "by_size_tier.csv").read_text(encoding="utf-8").splitlines()
    solver_rows = [r for r in rows if r.startswith("solver,")]
    assert len(solver_rows) == len(SIZE_TIERS)  # ≥11 holds three-colour problems
    assert all(",100.0," in r or ",100," in r for r in solver_rows), solver_rows
    assert "Accuracy by size tier" in (out / "report.md").read_text(encoding="utf-8")
    assert "Accuracy by size tier" in (out / "report.html").read_text(encoding="utf-8")


def test_report_of_paper_runs_has_no_size_tier_table(tmp_path: Path) -> None:
    run("eval", "-m", "solver", "-s", "zero-shot", "-n", "1", "--limit", "3",
        "--out", str(tmp_path / "run"), "--no-progress", "--json")  # fmt: skip
    out = tmp_path / "report"
    result = run(
        "report", str(tmp_path / "run"), "--out", str(out), "--bootstrap", "0", "--no-html"
    )
    assert result.exit_code == 0, result.output
    assert not (out / "by_size_tier.md").exists()
    forced = run("report", str(tmp_path / "run"), "--out", str(out), "--bootstrap", "0",
                 "--no-html", "--set", "extended")  # fmt: skip
    assert forced.exit_code == 0 and (out / "by_size_tier.md").exists()
    assert_one_line_error(
        run("report", str(tmp_path / "run"), "--out", str(out), "--set", "huge"), "huge"
    )


# ---------------------------------------------------------------------------------------------
# show, prompt, check, verify, solve with --set and --dataset
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("use_file", [False, True])
def test_problem_commands_reach_an_extended_problem(tmp_path: Path, use_file: bool) -> None:
    problem_id = tier_sample(1)[1]  # a 7-8 vertex problem
    problem_set = extended_problem_set()
    problem = problem_set.get(problem_id)
    candidate = problem_set.solution(problem)
    assert candidate is not None
    where = (
        ["--dataset", str(dataset_file(tmp_path, problem_id))]
        if use_file
        else ["--set", "extended"]
    )

    prompt = run("prompt", problem_id, "-s", "size-hint", "--json", *where)
    assert prompt.exit_code == 0, prompt.output
    text = json.dumps(json.loads(prompt.stdout)["messages"])
    assert f"{candidate.graph.n} vertices" in text

    reply = "<think>done</think>\n" + format_answer(candidate, problem.kind)
    check = run("check", problem_id, "-", "--json", *where, stdin=reply)
    assert check.exit_code == 0 and json.loads(check.stdout)["correct"], check.output

    answer = json.dumps(candidate.to_json(problem.kind))
    verify = run("verify", problem_id, "-", "--json", *where, stdin=answer)
    assert verify.exit_code == 0, verify.output

    out = tmp_path / "g.svg"
    show = run("show", problem_id, "--out", str(out), "--json", *where)
    assert show.exit_code == 0, show.output
    shown = json.loads(show.stdout)
    assert shown["correct"] and (shown["n"], shown["m"]) == (candidate.graph.n, candidate.graph.m)
    assert out.read_text(encoding="utf-8").lstrip().startswith("<?xml")


@pytest.mark.parametrize("use_file", [False, True])
def test_solve_reaches_an_extended_problem(tmp_path: Path, use_file: bool) -> None:
    problem_id = smallest_problem()
    where = (
        ["--dataset", str(dataset_file(tmp_path, problem_id))]
        if use_file
        else ["--set", "extended"]
    )
    result = run("solve", problem_id, "--json", "--timeout", "30", *where)
    assert result.exit_code == 0, result.output
    found = json.loads(result.stdout)["results"][0]
    problem_set = extended_problem_set()
    assert found["n"] == problem_set.min_vertices(problem_set.get(problem_id))


@pytest.mark.parametrize("command", ["prompt", "check", "show", "solve", "verify"])
def test_problem_id_errors_are_one_line(tmp_path: Path, command: str) -> None:
    extra = ["-"] if command in ("check", "verify") else []
    typo = tier_sample(1)[0][:-1]  # one letter short: a close match exists
    assert_one_line_error(
        run(command, typo, *extra, "--set", "extended"), "extended", "did you mean"
    )
    assert_one_line_error(
        run(command, "k13_k4_red_determiner", *extra, "--set", "nope"), "unknown problem set 'nope'"
    )
    both = ["--set", "extended", "--dataset", str(dataset_file(tmp_path, smallest_problem()))]
    assert_one_line_error(run(command, smallest_problem(), *extra, *both), "not both")


@pytest.mark.parametrize("command", ["prompt", "show"])
def test_a_three_color_problem_of_the_set_is_reachable(command: str) -> None:
    three = three_color_entries()[0]
    result = run(command, three.id, "--set", "extended")
    assert result.exit_code == 0, result.output
    assert "green" in result.output or "positive-sender" in result.output


def test_a_three_color_problem_of_the_set_checks_its_own_solution() -> None:
    from ramseygadgets.answers import format_answer

    three = three_color_entries()[0]
    answer = format_answer(three.candidate, three.problem.kind)
    result = run("check", three.id, "-", "--set", "extended", stdin=answer)
    assert result.exit_code == 0, result.output


def test_a_paper_id_in_the_extended_set_points_to_the_paper_set() -> None:
    result = run("prompt", "k13_k4_red_determiner", "--set", "extended")
    assert_one_line_error(result, "not in the problem set extended", "--set paper")


def test_problems_set_errors_and_table(tmp_path: Path) -> None:
    assert_one_line_error(run("problems", "--set", "nope"), "unknown problem set 'nope'")
    path = str(dataset_file(tmp_path, smallest_problem()))
    assert_one_line_error(run("problems", "--set", "extended", "--dataset", path), "not both")
    listed = json.loads(run("problems", "--dataset", path, "--json").stdout)
    assert [r["id"] for r in listed] == [smallest_problem()] and listed[0]["solution"]
    table = run("problems", "--set", "extended")
    assert table.exit_code == 0 and "size tier" in table.stdout


def test_solve_all_of_a_dataset(tmp_path: Path) -> None:
    path = dataset_file(tmp_path, smallest_problem())
    result = run("solve", "--all", "--dataset", str(path), "--json")
    assert result.exit_code == 0, result.output
    assert len(json.loads(result.stdout)["results"]) == 1


# ---------------------------------------------------------------------------------------------
# export
# ---------------------------------------------------------------------------------------------
def test_export_of_extended_problems_carries_solutions_and_tiers(tmp_path: Path) -> None:
    from ramseygadgets.training.export import export_dataset
    from ramseygadgets.verification.selection import select_problems

    chosen = select_problems(tier_sample(2), set_name="extended")
    result = export_dataset(tmp_path, "jsonl", problem_set=chosen)
    rows = [json.loads(line) for line in result.files["problems"].read_text().splitlines()]
    assert [r["id"] for r in rows] == chosen.ids
    for row in rows:
        assert row["size_tier"] == chosen.size_tiers[row["id"]]
        assert row["min_vertices"] == chosen.min_vertices(chosen.get(row["id"]))
        assert "size-hint" in row["settings"]
    prompts = result.files["prompts"].read_text().splitlines()
    assert len(prompts) >= 4 * len(rows)


def test_export_command_takes_the_set(tmp_path: Path) -> None:
    result = run("export", "--set", "nope", "--out", str(tmp_path))
    assert_one_line_error(result, "unknown problem set")
