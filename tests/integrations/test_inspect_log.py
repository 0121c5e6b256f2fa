"""Inspect ``.eval`` logs of our task read by ``ramseygadgets report`` as runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("inspect_ai", reason="the inspect extra is not installed")
pytestmark = pytest.mark.filterwarnings(
    "ignore:The .initial. parameter is deprecated:DeprecationWarning"
)

from inspect_scripted import (  # noqa: E402
    MOCK,
    ZERO_SHOT_CORRECT,
    ZERO_SHOT_MIXED,
    ZERO_SHOT_UNPARSABLE,
    ScriptedModel,
    Text,
    run_task,
    solution_answer,
)
from typer.testing import CliRunner  # noqa: E402

from ramseygadgets.cli import app  # noqa: E402
from ramseygadgets.integrations.inspect_log import is_inspect_log  # noqa: E402
from ramseygadgets.problems.catalog import get_problem  # noqa: E402
from ramseygadgets.report import RunFormatError, load_runs  # noqa: E402
from ramseygadgets.runs.config import dataset_hash  # noqa: E402
from ramseygadgets.verification.selection import select_problems  # noqa: E402

ZERO_SHOT_IDS = [ZERO_SHOT_CORRECT, ZERO_SHOT_MIXED, ZERO_SHOT_UNPARSABLE]  # as run_task asks them
THREE_COLOR = (
    "p3__p3__k13_negative_sender"  # of the extended set (ramseygadgets problems --set extended)
)
EXTENDED_PAIR = "p3_p3_negative_sender"  # a two-colour problem of the extended set


def test_epochs_become_runs(zero_shot_run: tuple[ScriptedModel, Any]) -> None:
    _, log = zero_shot_run
    [run] = load_runs([log.location])
    assert run.model == MOCK and run.label == MOCK
    assert run.settings == ("zero-shot",) and run.runs == 2
    assert set(run.problems) == {ZERO_SHOT_CORRECT, ZERO_SHOT_MIXED, ZERO_SHOT_UNPARSABLE}
    assert run.missing_keys() == set() and not run.warnings
    by_key = {s.key: s for s in run.samples}
    assert len(by_key) == 6
    for sample in log.samples:  # epoch e is run e - 1, with the scorer's verdict
        record = by_key[(sample.id, "zero-shot", sample.epoch - 1)]
        assert record.correct == sample.scores["ramsey_scorer"].metadata["correct"]
        assert record.reason == sample.scores["ramsey_scorer"].explanation
        assert record.response == sample.output.completion
    outcomes = sorted(s.outcome for s in run.samples)
    assert outcomes == ["correct"] * 3 + ["parse-failure"] * 2 + ["wrong"]
    unparsable = by_key[(ZERO_SHOT_UNPARSABLE, "zero-shot", 0)]
    assert unparsable.parse_error and unparsable.candidate is None
    good = by_key[(ZERO_SHOT_CORRECT, "zero-shot", 1)]
    assert good.candidate is not None and good.candidate["e"] and good.finish_reason == "stop"
    assert good.tier == "easy" and good.gadget == "red-determiner" and good.min_vertices is not None
    # token usage: the scripted model reports 101 prompt + 10 completion tokens per single call
    assert (good.usage.prompt_tokens, good.usage.completion_tokens, good.usage.total_tokens) == (
        101,
        10,
        111,
    )
    assert good.rounds == 1


def test_report_cli_reads_inspect_log_and_agrees_with_inspect_metrics(
    zero_shot_run: tuple[ScriptedModel, Any], tmp_path: Path
) -> None:
    _, log = zero_shot_run
    inspect_metrics = {name: m.value for s in log.results.scores for name, m in s.metrics.items()}
    result = CliRunner().invoke(
        app,
        [
            "report",
            log.location,
            "--out",
            str(tmp_path / "report"),
            "--no-html",
            "--bootstrap",
            "0",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    [row] = json.loads(result.stdout)["table1"]
    assert row["model"] == MOCK and row["setting"] == "zero-shot" and row["runs"] == 2
    assert row["mean_accuracy_pct"] == pytest.approx(100 * inspect_metrics["accuracy"], abs=0.01)
    assert row["std_pct"] == pytest.approx(100 * inspect_metrics["accuracy_std"], abs=0.01)
    assert row["pass_at_k_pct"] == pytest.approx(100 * inspect_metrics["pass@2"], abs=0.01)
    assert row["avg_total_tokens"] == pytest.approx(111)
    assert row["n_parse_failure"] == 2 and row["n_wrong"] == 1 and row["n_correct"] == 3


def test_a_folder_of_logs_is_read(zero_shot_run: tuple[ScriptedModel, Any]) -> None:
    _, log = zero_shot_run
    folder = Path(log.location).parent
    [run] = load_runs([folder])
    assert run.source == log.location


def test_sample_errors_are_recorded_as_errors(tmp_path: Path) -> None:
    from inspect_ai import eval as inspect_eval

    ok, broken = "p3_k3_red_determiner", "p3_k3_blue_determiner"
    script = ScriptedModel({ok: [[solution_answer(ok)]], broken: [[solution_answer(broken)]]})

    def outputs(input: list[Any], tools: list[Any], tool_choice: Any, config: Any) -> Any:
        output = script(input, tools, tool_choice, config)
        if script.calls[-1].problem_id == broken:
            raise RuntimeError("backend exploded")
        return output

    from inspect_ai.model import get_model

    [log] = inspect_eval(
        "ramseygadgets/ramsey_gadgets",
        model=get_model(MOCK, custom_outputs=outputs),
        task_args={"problems": f"{ok},{broken}"},
        log_dir=str(tmp_path),
        display="none",
        fail_on_error=False,
    )
    [run] = load_runs([log.location])
    by_problem = {s.problem_id: s for s in run.samples}
    assert by_problem[ok].outcome == "correct"
    assert by_problem[broken].outcome == "error" and "backend exploded" in (
        by_problem[broken].error or ""
    )


def test_logs_of_other_tasks_and_damaged_files_are_refused(tmp_path: Path) -> None:
    from inspect_ai import Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    reply = ModelOutput.from_content(MOCK, "hello")
    reply.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    [log] = inspect_eval(
        Task(dataset=[Sample(input="hi")], name="other_task"),
        model=get_model(MOCK, custom_outputs=[reply]),
        log_dir=str(tmp_path / "other"),
        display="none",
    )
    with pytest.raises(
        RunFormatError,
        match="an Inspect log of task 'other_task', not ramseygadgets/ramsey_gadgets",
    ):
        load_runs([log.location])
    damaged = tmp_path / "damaged.eval"
    damaged.write_bytes(b"PK\x03\x04 not really a zip")
    assert is_inspect_log(damaged)
    with pytest.raises(RunFormatError, match="damaged.eval: not a readable Inspect log"):
        load_runs([damaged])
    # the CLI reports it in one line (exit 2), no traceback
    result = CliRunner().invoke(app, ["report", str(damaged), "--out", str(tmp_path / "r")])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "not a readable Inspect log" in result.output
    assert not is_inspect_log(tmp_path / "notes.txt")


# -- the problem set and its hash: what the log ran, as a run directory's config.json has them ---
def leaderboard(paths: list[str], out: Path) -> list[dict[str, Any]]:
    result = CliRunner().invoke(
        app, ["report", *paths, "--out", str(out), "--no-html", "--bootstrap", "0", "--json"]
    )
    assert result.exit_code == 0, result.output
    rows: list[dict[str, Any]] = json.loads(result.stdout)["leaderboard"]
    return rows


def test_report_labels_a_paper_log_with_its_set_and_hash(
    zero_shot_run: tuple[ScriptedModel, Any], tmp_path: Path
) -> None:
    """The hash is the one ``eval`` records for the same problems and setting."""
    _, log = zero_shot_run
    [row] = leaderboard([log.location], tmp_path / "report")
    assert row["problem_set"] == "paper"
    assert row["dataset_hash"] == dataset_hash(select_problems(ZERO_SHOT_IDS), ["zero-shot"])


def _no_answer(problems: list[Any]) -> ScriptedModel:
    return ScriptedModel(
        {p.id: [[Text("I do not know.")]] for p in problems}, problems={p.id: p for p in problems}
    )


@pytest.mark.parametrize(
    "task_args,label",
    [
        ({"problems": THREE_COLOR}, "extended"),  # an extended id without problem_set
        ({"problems": EXTENDED_PAIR, "problem_set": "extended"}, "extended"),
        ({"problems": f"{ZERO_SHOT_CORRECT},{THREE_COLOR}"}, "paper+extended"),
        ({"dataset": "problems.jsonl"}, "file"),
    ],
    ids=["three-colour", "extended-set", "mixed", "dataset-file"],
)
def test_report_labels_every_selection_with_the_set_and_hash_it_ran(
    task_args: dict[str, Any], label: str, tmp_path: Path
) -> None:
    if "dataset" in task_args:  # a problem-set file with a three-colour problem
        path = tmp_path / task_args["dataset"]
        path.write_text(json.dumps(get_problem(THREE_COLOR).to_json()) + "\n")
        task_args = {"dataset": str(path), "problems": THREE_COLOR}
    selected = select_problems(
        task_args["problems"].split(","),
        None,
        task_args.get("dataset"),
        task_args.get("problem_set"),
    )
    log = run_task(_no_answer(selected.problems), tmp_path / "logs", **task_args)
    [row] = leaderboard([log.location], tmp_path / "report")
    assert row["problem_set"] == label
    assert row["dataset_hash"] == dataset_hash(selected, ["zero-shot"])
    [run] = load_runs([log.location])
    assert run.config["dataset"] == task_args.get("dataset")


def test_logs_written_before_the_task_recorded_its_set(
    zero_shot_run: tuple[ScriptedModel, Any], tmp_path: Path
) -> None:
    """Older logs: the set from the task arguments or the problem ids; no hash recorded (the
    report shows the hash of the problems it graded against, re-derived)."""
    from inspect_ai.log import read_eval_log, write_eval_log

    from ramseygadgets.integrations.inspect_log import problem_set_of

    _, log = zero_shot_run
    old = read_eval_log(log.location)
    old.eval.metadata = {"setting": "zero-shot", "tool_mode": "text", "profile": None}
    write_eval_log(old, str(tmp_path / "old.eval"))
    [run] = load_runs([tmp_path / "old.eval"])
    assert (run.config["problem_set"], run.config["dataset_hash"]) == ("paper", None)
    [row] = leaderboard([str(tmp_path / "old.eval")], tmp_path / "report")
    assert row["problem_set"] == "paper" and len(row["dataset_hash"]) == 64
    none = {"dataset": None, "dataset_hash": None}
    assert problem_set_of({}, {}, [THREE_COLOR]) == {"problem_set": "extended", **none}
    assert problem_set_of({}, {}, [ZERO_SHOT_CORRECT, EXTENDED_PAIR]) == {
        "problem_set": "paper+extended",
        **none,
    }
    assert problem_set_of({}, {"problem_set": "extended"}, [EXTENDED_PAIR])["problem_set"] == (
        "extended"
    )
    assert problem_set_of({}, {"dataset": "set.jsonl"}, [THREE_COLOR]) == {
        "problem_set": None,
        "dataset": "set.jsonl",
        "dataset_hash": None,
    }
