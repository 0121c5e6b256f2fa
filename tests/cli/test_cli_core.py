"""CLI: ``problems``, ``verify``, ``colorings`` -- output, exit codes, and one-line errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ramseygadgets.cli import app
from ramseygadgets.problems.problem import Problem
from ramseygadgets.runs.sizes import SIZE_FIELDS
from ramseygadgets.search.minimal import solve_minimal
from ramseygadgets.search.options import SearchOptions

runner = CliRunner()
K4_EDGES = [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]]


def run(*args: str, stdin: str | bytes | None = None):
    return runner.invoke(app, list(args), input=stdin)


def assert_one_line_error(result, *words: str) -> None:
    assert result.exit_code == 2, (result.exit_code, result.output)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.stdout == ""
    for word in words:
        assert word in lines[0], lines[0]


# ---------------------------------------------------------------------------------------------
# problems
# ---------------------------------------------------------------------------------------------
def test_problems_json() -> None:
    result = run("problems", "--json")
    assert result.exit_code == 0
    records = json.loads(result.stdout)
    assert len(records) == 70
    assert all({"id", "F", "H", "gadget", "tier"} <= set(r) for r in records)
    assert (
        sum(r["tier"] == "easy" for r in records) == 26
        and sum(r["tier"] == "hard" for r in records) == 44
    )
    assert len({r["id"] for r in records}) == 70
    assert {r["gadget"] for r in records} == {
        "red-determiner",
        "blue-determiner",
        "positive-sender",
        "negative-sender",
        "clause-gadget",
        "variable-gadget",
    }


def test_problems_table() -> None:
    result = run("problems")
    assert (
        result.exit_code == 0
        and "k13_k4_red_determiner" in result.stdout
        and "70 problems" in result.stdout
    )


# ---------------------------------------------------------------------------------------------
# verify
# ---------------------------------------------------------------------------------------------
def test_verify_json_answer_correct_exit_0(tmp_path: Path) -> None:
    answer = tmp_path / "answer.json"
    answer.write_text(json.dumps({"edges": K4_EDGES, "vertices": [0, 1, 2]}))
    result = run("verify", "k13_k4_clause_gadget", str(answer), "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (
        data["correct"] is True
        and data["problem_id"] == "k13_k4_clause_gadget"
        and data["witness"] is None
    )
    assert isinstance(data["reason"], str) and data["check"] == "ok"
    text = run("verify", "k13_k4_clause_gadget", str(answer))
    assert text.exit_code == 0 and text.stdout.startswith("CORRECT (K1,3, K4)-clause-gadget:")


def test_verify_edge_list_with_options_incorrect_exit_1() -> None:
    result = run(
        "verify", "k13_k3_red_determiner", "-", "--e", "0-1", "--json", stdin="0 1\n1 2\n0 2\n"
    )
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert data["correct"] is False and "0-1 is blue in some good coloring" in data["reason"]
    assert [0, 1] in data["witness"]["blue"]
    text = run("verify", "k13_k3_red_determiner", "--e", "1,0", stdin="0-1, 1-2, 0-2")
    assert (
        text.exit_code == 1
        and "INCORRECT" in text.stdout
        and "witness coloring: red:" in text.stdout
    )


def test_verify_sender_and_hardness_options_and_graph6() -> None:
    sender = run(
        "verify", "k13_k3_positive_sender", "--e", "0-1", "--f", "1-2", "--json", stdin="Bw"
    )  # graph6 K3
    assert sender.exit_code == 1 and json.loads(sender.stdout)["check"] == "gadget"
    clause = run(
        "verify", "k13_k4_clause_gadget", "--vertices", "0,1,2", stdin="0-1,0-2,0-3,1-2,1-3,2-3"
    )
    assert clause.exit_code == 0
    spaced = run("verify", "k13_k4_clause_gadget", "--vertices", "0 1 2", stdin="C~")
    assert spaced.exit_code == 0
    isolated = run("verify", "k13_k4_clause_gadget", "--vertices", "0,1,6", "--json", stdin="C~")
    assert isolated.exit_code == 1  # vertex 6 added as an isolated vertex: always enforced


def test_verify_options_override_json_items() -> None:
    answer = json.dumps({"edges": K4_EDGES, "vertices": [0, 0, 0]})
    assert run("verify", "k13_k4_clause_gadget", "--vertices", "0,1,2", stdin=answer).exit_code == 0


def test_verify_reads_designated_vertices_by_name() -> None:
    answer = json.dumps({"edges": K4_EDGES, "i1": 2, "i2": 1, "i3": 0})
    assert run("verify", "k13_k4_clause_gadget", stdin=answer).exit_code == 0


@pytest.mark.parametrize(
    "args, stdin, words",
    [
        (("k13_k4_red_determiner", "--e", "0-1"), "0 0\n0 1", ("self-loop",)),
        (("k13_k4_red_determiner", "--e", "0-1"), "0 1\n1 2\n0 1", ("listed more than once",)),
        (("k13_k4_red_determiner", "--e", "0-1"), "0 1\n-1 2", ("negative vertex label",)),
        (("k13_k4_red_determiner", "--e", "0-1"), "0 1\n1 2.5", ("integers",)),
        (
            ("k13_k4_red_determiner",),
            '{"edges": [[0, 1], [1, "a"]], "e": [0, 1]}',
            ("non-negative integer",),
        ),
        (
            ("k13_k4_red_determiner",),
            '{"edges": [[0, 1], [1, 2]], "e": [0, -1]}',
            ("designated edge 'e'",),
        ),
        (("no_such_problem", "--e", "0-1"), "0 1", ("unknown problem id", "no_such_problem")),
        (("k13_k4_red_determiner_", "--e", "0-1"), "0 1", ("did you mean k13_k4_red_determiner",)),
        (
            ("k13_k4_red_determiner", "--e", "0-5"),
            "0 1\n1 2",
            ("designated edge e = 0-5 is not an edge",),
        ),
        (("k13_k4_red_determiner",), "0 1\n1 2", ("needs 1 designated edge",)),
        (("k13_k4_red_determiner",), '{"edges": [[0, 1]]}', ("missing the designated edge 'e'",)),
        (("k13_k4_positive_sender", "--e", "0-1", "--f", "1-0"), "0 1\n1 2", ("must be distinct",)),
        (("k13_k4_clause_gadget", "--vertices", "0,1,1"), "0 1\n1 2", ("must be distinct",)),
        (
            ("k13_k4_clause_gadget", "--vertices", "0,1"),
            "0 1\n1 2",
            ("needs 3 designated vertices",),
        ),
        (("k13_k4_clause_gadget", "--vertices", "0,1,-2"), "0 1\n1 2", ("non-negative",)),
        (("k13_k4_clause_gadget", "--vertices", "0,1,99999999999"), "0 1\n1 2", ("limit of 64",)),
        (("k13_k4_red_determiner", "--e", "a-b"), "0 1\n1 2", ("--e",)),
        (("k13_k4_red_determiner", "--e", "0-1"), "0 99999999999999999999", ("far too large",)),
        (("k13_k4_red_determiner", "--e", "0-1"), "0 1000", ("limit of 64",)),
        (
            ("k13_k4_red_determiner",),
            '{"edges": [[0, 1]], "e": [0, 1], "n": 100000}',
            ("limit of 64",),
        ),
        (("k13_k4_red_determiner", "--e", "0-1"), "", ("empty input",)),
        (("k13_k4_red_determiner", "--e", "0-1"), b"\xff\xfe\xfa garbage \xc3", ("not UTF-8",)),
        (("k13_k4_red_determiner", "--e", "0-1"), b"\x00\x01\x02", ("binary data",)),
        (
            ("k13_k4_red_determiner", "--e", "0-1"),
            "%%% this is not a graph %%%",
            ("unexpected character",),
        ),
        (("k13_k4_red_determiner",), '{"edges": [[0, 1]], "e": [0, 1]', ("malformed JSON",)),
    ],
)
def test_bad_input_exits_2_with_one_clear_line(
    args: tuple[str, ...], stdin, words: tuple[str, ...]
) -> None:
    assert_one_line_error(run("verify", *args, stdin=stdin), *words)


def test_missing_file_exits_2(tmp_path: Path) -> None:
    assert_one_line_error(
        run("verify", "k13_k4_red_determiner", str(tmp_path / "nope.txt"), "--e", "0-1"),
        "no such file",
    )


@pytest.mark.parametrize("command", ["verify", "colorings", "check", "show"])
def test_a_directory_as_input_file_is_named_as_such(tmp_path: Path, command: str) -> None:
    head = ("K1,3", "K4") if command == "colorings" else ("k13_k4_red_determiner",)
    assert_one_line_error(run(command, *head, str(tmp_path)), "is a directory, not a file")


@pytest.mark.parametrize("command", ["check", "show"])
@pytest.mark.parametrize("value", ["0", "-5"])
def test_max_vertices_below_one_is_refused(tmp_path: Path, command: str, value: str) -> None:
    answer = tmp_path / "answer.json"
    answer.write_text('{"edges": [[0, 1], [1, 2]], "e": [0, 1]}')
    out = ("--out", str(tmp_path / "x.png")) if command == "show" else ()
    result = run(command, "k13_k4_red_determiner", str(answer), "--max-vertices", value, *out)
    assert (
        result.exit_code == 2 and "Invalid value for '--max-vertices'" in result.output
    )  # usage error
    assert not (tmp_path / "x.png").exists()


def test_a_million_edges_exit_2_fast() -> None:
    text = "\n".join(f"{i % 1000} {1000 + i // 1000}" for i in range(1_000_000))
    start = time.process_time()
    result = run("verify", "k13_k4_red_determiner", "--e", "0-1", stdin=text)
    assert_one_line_error(result, "limit of 64")
    payload = json.dumps({"edges": [[i % 63, 63] for i in range(1_000_000)], "e": [0, 63]})
    assert_one_line_error(run("verify", "k13_k4_red_determiner", stdin=payload), "more than once")
    assert time.process_time() - start < 30.0  # a guard against a hang, not a benchmark


def test_dense_64_vertex_answer_is_refused_not_hung() -> None:
    edges = [[u, v] for u in range(64) for v in range(u + 1, 64)]
    start = time.process_time()
    result = run("verify", "k13_p4_red_determiner", stdin=json.dumps({"edges": edges, "e": [0, 1]}))
    assert_one_line_error(result, "too large to check exactly")
    assert time.process_time() - start < 5.0


# ---------------------------------------------------------------------------------------------
# colorings
# ---------------------------------------------------------------------------------------------
def test_colorings_json_lists_count_forced_free_and_colorings() -> None:
    # triangle 0-1-2 with pendant 2-3 and a separate edge 4-5, for (P3, K3)
    result = run("colorings", "P3", "K3", "--json", "--limit", "2", stdin="0-1,0-2,1-2,2-3,4-5")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (
        data["good"] is True and data["count_exact"] is True and data["n"] == 6 and data["m"] == 5
    )
    assert data["free_edges"] == [[4, 5]] and len(data["colorings"]) == 2
    # brute force by hand: red edges form a matching, the triangle has a red edge, 4-5 free
    # triangle red edge: 0-1 (then 2-3 red or blue), 0-2, or 1-2 (then 2-3 blue): 2 + 1 + 1 = 4, times 2
    assert data["count"] == 8
    assert data["forced_red"] == [] and data["forced_blue"] == []
    for coloring in data["colorings"]:
        assert sorted(coloring["red"] + coloring["blue"]) == [
            [0, 1],
            [0, 2],
            [1, 2],
            [2, 3],
            [4, 5],
        ]


def test_colorings_forced_edges_and_text_output() -> None:
    # (K1,3, K3) on a bowtie: triangles 0-1-2 and 2-3-4 sharing vertex 2
    result = run("colorings", "K1,3", "K3", "--limit", "3", stdin="0-1,0-2,1-2,2-3,2-4,3-4")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0].startswith("G: 5 vertices, 6 edges; (K1,3, K3)-good colorings:")
    assert any(line.startswith("forced red:") for line in lines) and any(
        line.startswith("free edges:") for line in lines
    )
    assert sum(1 for line in lines if line.strip().startswith(("1.", "2.", "3."))) == 3
    assert "more" in lines[-1]


def test_colorings_not_good_and_cap() -> None:
    k6 = ",".join(f"{u}-{v}" for u in range(6) for v in range(u + 1, 6))
    result = run("colorings", "K3", "K3", "--json", stdin=k6)
    data = json.loads(result.stdout)
    assert (
        result.exit_code == 0
        and data["good"] is False
        and data["count"] == 0
        and data["colorings"] == []
    )
    capped = json.loads(
        run("colorings", "P3", "K3", "--json", "--count-cap", "3", stdin="0-1,2-3,4-5").stdout
    )
    assert capped["count"] == 3 and capped["count_exact"] is False


@pytest.mark.parametrize(
    "args, stdin, words",
    [
        (("Q7", "K3"), "0 1", ("unknown pattern",)),
        (("K1,3", "0-1,2-3"), "0 1", ("must be connected",)),
        (("K1,3", "K3"), "0 0", ("self-loop",)),
        (("K1,3", "K3"), "", ("empty input",)),
    ],
)
def test_colorings_bad_input(args: tuple[str, ...], stdin: str, words: tuple[str, ...]) -> None:
    assert_one_line_error(run("colorings", *args, stdin=stdin), *words)


# ---------------------------------------------------------------------------------------------
# help and the real console script
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "command, words",
    [
        ((), ("problems", "verify", "colorings")),
        (("problems",), ("--json",)),
        (("verify",), ("--e", "--f", "--vertices", "--json", "Exit 0")),
        (("colorings",), ("--limit", "--count-cap", "--json")),
    ],
)
def test_help_everywhere(command: tuple[str, ...], words: tuple[str, ...]) -> None:
    result = run(*command, "--help")
    assert result.exit_code == 0
    for word in words:
        assert word in result.stdout


def console_script() -> list[str]:
    script = Path(sys.executable).with_name("ramseygadgets")
    return [str(script)] if script.exists() else [sys.executable, "-m", "ramseygadgets.cli"]


def test_console_script_end_to_end() -> None:
    env = dict(os.environ, COLUMNS="200")
    ok = subprocess.run(
        [*console_script(), "verify", "k13_k4_clause_gadget", "-", "--vertices", "0,1,2"],
        input=b"0-1,0-2,0-3,1-2,1-3,2-3",
        capture_output=True,
        env=env,
        timeout=60,
    )
    assert ok.returncode == 0 and ok.stdout.startswith(b"CORRECT")
    bad = subprocess.run(
        [*console_script(), "verify", "k13_k4_red_determiner", "--e", "0-1"],
        input=bytes(range(1, 256)) * 8,
        capture_output=True,
        env=env,
        timeout=60,
    )
    assert bad.returncode == 2 and bad.stdout == b""
    assert bad.stderr.decode().count("\n") == 1 and b"Traceback" not in bad.stderr


# ---------------------------------------------------------------------------------------------
# one grade on every path: check --json and verify --json grade sizes as eval records them
# ---------------------------------------------------------------------------------------------
GRADE_KEYS = (*SIZE_FIELDS, "discovery", "recheck")


def eval_grade(folder: Path, problem_id: str, answer: dict, *options: str) -> dict:
    """The size grade ``eval`` records for one reply giving ``answer`` (``folder``: new)."""
    folder.mkdir()
    replies = folder / "replies.jsonl"
    text = "```json\n" + json.dumps(answer) + "\n```"
    row = {"problem_id": problem_id, "setting": "zero-shot", "run": 0, "response": text}
    replies.write_text(json.dumps(row) + "\n")
    out = folder / "run"
    result = run("eval", "-m", f"replay:{replies}", "--runs", "1", "--out", str(out), *options)
    assert result.exit_code == 0, result.output
    (sample,) = [json.loads(x) for x in (out / "samples.jsonl").read_text().splitlines()]
    return {key: sample.get(key) for key in GRADE_KEYS}


def cli_grades(problem_id: str, answer: dict, *options: str) -> tuple[dict, dict]:
    """The size grade of ``check --json`` (the reply) and ``verify --json`` (the answer)."""
    reply = "```json\n" + json.dumps(answer) + "\n```"
    checked = run("check", problem_id, "-", "--json", *options, stdin=reply)
    verified = run("verify", problem_id, "-", "--json", *options, stdin=json.dumps(answer))
    assert checked.exit_code == verified.exit_code == 0, (checked.output, verified.output)
    check_json, verify_json = json.loads(checked.stdout), json.loads(verified.stdout)
    return (
        {key: check_json.get(key) for key in GRADE_KEYS},
        {key: verify_json.get(key) for key in GRADE_KEYS},
    )


def test_check_and_verify_grade_sizes_as_eval_records_them(tmp_path: Path) -> None:
    problem_id = "p3_k3_red_determiner"  # the paper's: 5 vertices, 7 edges
    minimal = {"edges": [[0, 1], [0, 2], [0, 3], [0, 4], [1, 2], [1, 3], [1, 4]], "e": [0, 1]}
    padded = {**minimal, "edges": [*minimal["edges"], [5, 6]]}
    for answer, expected in ((minimal, (True, 0, 0)), (padded, (False, 2, 1))):
        folder = tmp_path / str(expected[1])
        recorded = eval_grade(folder, problem_id, answer, "--problems", problem_id)
        assert (recorded["minimal"], recorded["excess_vertices"], recorded["excess_edges"]) == (
            expected
        )
        assert cli_grades(problem_id, answer) == (recorded, recorded)


def test_check_and_verify_grade_a_file_problem_as_eval_does(tmp_path: Path) -> None:
    """A problem-set file with a padded solution and no proof: the minimal answer has no
    ``minimal`` grade and is a rechecked new-best-known discovery, on every path."""
    problem = Problem.make("P3", "P6", "blue-determiner")  # in no shipped set
    found = solve_minimal(problem, SearchOptions(max_vertices=7, timeout=60))
    assert found.candidate is not None
    minimal = found.candidate.to_json(problem.kind)
    n = found.candidate.graph.n
    padded = {**minimal, "edges": [*minimal["edges"], [n, n + 1]]}
    dataset = tmp_path / "set.jsonl"
    dataset.write_text(json.dumps({**problem.to_json(), "solution": padded}) + "\n")
    recorded = eval_grade(tmp_path / "eval", problem.id, minimal, "--dataset", str(dataset))
    assert recorded["minimal"] is None and recorded["discovery"] == "new-best-known"
    assert recorded["recheck"] == {"method": "brute-force", "agrees": True}
    assert cli_grades(problem.id, minimal, "--dataset", str(dataset)) == (recorded, recorded)
    text = run("check", problem.id, "-", "--dataset", str(dataset), stdin=json.dumps(minimal))
    assert "no proven optimum to compare with; new-best-known" in text.stdout
