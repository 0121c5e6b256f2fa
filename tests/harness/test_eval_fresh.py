"""``eval --fresh N --seed S``: N problems of the procedural stream, none equivalent to one of
the 70 or to an extended problem (checked here with networkx's isomorphism, not the nauty
canonical forms of the leakage rule), each with its proof of minimality, solved before the
first request and kept in the run folder: a resumed run draws them again and requires the same
rows (a forged folder is refused), the same seed draws the same problems, bad options are one
line and exit code 2, Ctrl-C while solving writes nothing."""

from __future__ import annotations

import hashlib
import itertools
import json
from pathlib import Path

import networkx as nx
import pytest
from typer.testing import CliRunner

from ramseygadgets.cli import app
from ramseygadgets.core.graphs import Graph
from ramseygadgets.problems.catalog import Problem, all_problems, get_problem
from ramseygadgets.problems.extended import extended_problems, size_tier
from ramseygadgets.problems.leakage import is_published, problem_key
from ramseygadgets.problems.solutions import get_solution
from ramseygadgets.problemsets import export_row
from ramseygadgets.problemsets import stream as stream_module
from ramseygadgets.report import ReportOptions, build_report, load_runs
from ramseygadgets.verification.selection import load_selection
from ramseygadgets.verification.verifier import verify

#: 32 fresh problems of minimal size ≤ 7 (6 and 7 vertices), all solved in a few seconds.
SMALL_POOL = "P3,K1,3,K3,P4,P6,C6"
SMALL = ["--pool", SMALL_POOL, "--max-size", "7"]
QUICK = ["-m", "solver", "--runs", "1", "-s", "zero-shot", "--no-progress"]


def run_eval(*args: str | Path):
    return CliRunner().invoke(app, ["eval", *map(str, args)])


def rows(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "problems.jsonl").read_text().splitlines()]


def samples(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]


def nx_graph(graph: Graph) -> nx.Graph:
    g = nx.Graph()
    g.add_nodes_from(range(graph.n))
    g.add_edges_from(graph.edges)
    return g


#: Exchanging red and blue, by the definitions: determiners swap, senders stay, the hardness
#: gadgets have no twin.
SWAP = {
    "red-determiner": "blue-determiner",
    "blue-determiner": "red-determiner",
    "positive-sender": "positive-sender",
    "negative-sender": "negative-sender",
}


def published_pairs() -> list[tuple[nx.Graph, nx.Graph, str]]:
    found = [p for p in all_problems()] + [e.problem for e in extended_problems()]
    return [(nx_graph(p.F.graph), nx_graph(p.H.graph), p.gadget_name) for p in found if p.is_pair]


def equivalent_to_published(problem: Problem, published: list) -> bool:
    """Decided from the definitions: same gadget and isomorphic F, H; or the colours exchanged."""
    F, H = nx_graph(problem.F.graph), nx_graph(problem.H.graph)
    for F2, H2, gadget in published:
        if gadget == problem.gadget_name and nx.is_isomorphic(F, F2) and nx.is_isomorphic(H, H2):
            return True
        if SWAP.get(problem.gadget_name) == gadget and (
            nx.is_isomorphic(F, H2) and nx.is_isomorphic(H, F2)
        ):
            return True
    return False


@pytest.fixture(scope="module")
def fresh_run(tmp_path_factory) -> tuple[Path, float]:
    """One ``eval --fresh 30 --seed 7`` run (small sizes) and the seconds it took."""
    import time

    out = tmp_path_factory.mktemp("fresh") / "run"
    started = time.monotonic()
    result = run_eval("--fresh", "30", "--seed", "7", *SMALL, *QUICK, "--out", out)
    assert result.exit_code == 0, result.output
    return out, time.monotonic() - started


def test_fresh_30_asks_30_unpublished_problems_each_with_its_proof(fresh_run) -> None:
    out, _ = fresh_run
    config = json.loads((out / "config.json").read_text())
    drawn = rows(out)
    assert len(drawn) == 30 == len(config["problems"]) == len({r["id"] for r in drawn})
    assert config["problems"] == [r["id"] for r in drawn]
    assert config["problem_set"] == "fresh" and config["dataset"] == str(out / "problems.jsonl")
    assert config["fresh"] == {
        "count": 30,
        "seed": 7,
        "colors": 2,
        "min_size": 3,
        "max_size": 7,
        "pool": ["P3", "K1,3", "K3", "P4", "P6", "C6"],
        "gadgets": ["all"],
        "solve_timeout": 10.0,
        "polynomial_pairs": "builtin",
    }
    published = published_pairs()
    problems = load_selection(out / "problems.jsonl")
    for row, problem in zip(drawn, problems.problems, strict=True):
        assert not equivalent_to_published(problem, published), problem.id
        assert not is_published(problem)
        # the proof: found, proven minimal (vertices and edges), the solution verified again
        assert row["status"] == "found" and row["proven_minimal"] is True
        assert row["lower_bound"] == row["min_vertices"] == problems.min_vertices(problem)
        assert 3 <= row["min_vertices"] <= 7
        assert problem.id in problems.proven
        assert verify(problem, problems.solutions[problem.id]).correct
    # no two of them are equivalent either
    keys = {problem_key(p) for p in problems.problems}
    assert len(keys) == 30
    # every sample is graded against the proven optimum
    recs = samples(out)
    assert len(recs) == 30 and all(r["correct"] and r["minimal"] is True for r in recs)
    assert {r["optimum_vertices"] for r in recs} <= {6, 7}
    tiers = {size_tier(r["min_vertices"]) for r in drawn}
    assert tiers <= {"≤6", "7-8"}


def test_the_same_seed_draws_the_same_30_and_another_seed_others(fresh_run, tmp_path) -> None:
    out, _ = fresh_run
    again = tmp_path / "again"
    result = run_eval("--fresh", "30", "--seed", "7", *SMALL, *QUICK, "--out", again)
    assert result.exit_code == 0, result.output
    first, second = rows(out), rows(again)
    assert [r["id"] for r in first] == [r["id"] for r in second]
    assert [(r["colors"], r["gadget"], r["solution"]) for r in first] == [
        (r["colors"], r["gadget"], r["solution"]) for r in second
    ]
    assert (out / "problems.jsonl").read_bytes() == (again / "problems.jsonl").read_bytes()
    assert (
        json.loads((out / "config.json").read_text())["dataset_hash"]
        == json.loads((again / "config.json").read_text())["dataset_hash"]
    )
    other = tmp_path / "other"
    result = run_eval("--fresh", "5", "--seed", "8", *SMALL, *QUICK, "--out", other)
    assert result.exit_code == 0, result.output
    assert [r["id"] for r in rows(other)] != [r["id"] for r in first[:5]]


def test_a_resumed_run_draws_the_problems_again_and_asks_the_same(fresh_run, monkeypatch) -> None:
    """A resume trusts nothing it reads back: it draws the problems again from the recorded
    seed (each one solved again, with its proof) and finds the file's rows; the samples
    already recorded are kept."""
    out, _ = fresh_run
    before = (out / "problems.jsonl").read_bytes()
    searches = itertools.count()
    real = stream_module.solve_minimal

    def counted(*args, **kwargs):
        next(searches)
        return real(*args, **kwargs)

    monkeypatch.setattr(stream_module, "solve_minimal", counted)
    result = run_eval("--fresh", "30", "--seed", "7", *SMALL, *QUICK, "--out", out)
    assert result.exit_code == 0, result.output
    assert "drawing them again to check them" in result.output
    assert "the file holds exactly the problems drawn again" in result.output
    assert "30 samples were already recorded" in result.output
    assert next(searches) >= 30
    assert (out / "problems.jsonl").read_bytes() == before

    # another setting in the same folder is another configuration: refused (once drawn again)
    result = run_eval("--fresh", "30", "--seed", "7", *SMALL, *QUICK[:-3], "--out", out)
    assert result.exit_code == 2 and "different configuration" in result.output

    def no_search(*args, **kwargs):
        raise AssertionError("a refused folder is refused before any solving")

    monkeypatch.setattr(stream_module, "solve_minimal", no_search)
    # another draw in this folder is refused before any solving
    result = run_eval("--fresh", "30", "--seed", "8", *SMALL, *QUICK, "--out", out)
    assert result.exit_code == 2
    assert "holds the fresh problems of another draw (--fresh 30 --seed 7" in result.output


# -- forged fresh folders (issue 32, item 3) ----------------------------------------------------
THREE = ["--fresh", "3", "--seed", "7", *SMALL]


@pytest.fixture(scope="module")
def drawn_three(tmp_path_factory) -> Path:
    """A folder holding only the draw of ``--fresh 3 --seed 7`` (problems.jsonl, fresh.json),
    as ``eval`` leaves it before its first sample."""
    run = tmp_path_factory.mktemp("three") / "run"
    result = run_eval(*THREE, *QUICK, "--out", run)
    assert result.exit_code == 0, result.output
    drawn = run.parent / "drawn"
    drawn.mkdir()
    for name in ("problems.jsonl", "fresh.json"):
        (drawn / name).write_bytes((run / name).read_bytes())
    return drawn


def forge(drawn: Path, target: Path, change) -> Path:
    """A copy of ``drawn`` whose rows ``change`` rewrote, with fresh.json's sha256 (and list
    of problems) recomputed, as a forger would."""
    target.mkdir()
    rows = [json.loads(x) for x in (drawn / "problems.jsonl").read_text().splitlines()]
    change(rows)
    text = "".join(json.dumps(r) + "\n" for r in rows)
    (target / "problems.jsonl").write_text(text)
    manifest = json.loads((drawn / "fresh.json").read_text())
    manifest["problems"] = [r["id"] for r in rows]
    manifest["sha256"] = hashlib.sha256(text.encode("utf-8")).hexdigest()
    (target / "fresh.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return target


def refused(result, *words: str) -> str:
    assert result.exit_code == 2, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, result.output
    for word in words:
        assert word in errors[0], errors[0]
    return errors[0]


def test_a_raised_optimum_is_refused_on_resume(drawn_three, tmp_path) -> None:
    """One row's minimum raised by one vertex (an isolated vertex added to its solution, the
    claim of proof and the hash recomputed): drawn again, the folder is refused, naming the
    line; today's hash check took it and graded a minimal answer against the raised optimum."""

    def raise_optimum(rows: list[dict]) -> None:
        row = rows[1]
        n = row["min_vertices"]
        row["solution"] = {**row["solution"], "n": n + 1}
        row.update(min_vertices=n + 1, lower_bound=n + 1)

    out = forge(drawn_three, tmp_path / "run", raise_optimum)
    line = refused(
        run_eval(*THREE, *QUICK, "--out", out),
        f"{out / 'problems.jsonl'}:2:",
        "is not what --fresh 3 --seed 7",
        "move it away or choose another --out",
    )
    assert "its minimum is n = " in line
    assert not (out / "samples.jsonl").exists() and not (out / "config.json").exists()


def test_the_report_draws_a_fresh_run_again_and_names_a_forged_optimum(tmp_path) -> None:
    """report grades a fresh run against its problems only once they are drawn again: a run
    folder whose optimum was raised after the run (hash recomputed) is named in a warning and
    not graded against the forged optimum."""
    run = tmp_path / "run"
    result = run_eval(*THREE, *QUICK, "--out", run)
    assert result.exit_code == 0, result.output
    options = ReportOptions(resamples=0, drawings=False)
    honest = build_report(load_runs([run]), tmp_path / "honest", options)
    assert not [w for w in honest.warnings if "problems.jsonl" in w], honest.warnings
    assert not honest.disputes

    def raise_optimum(rows: list[dict]) -> None:
        n = rows[1]["min_vertices"]
        rows[1]["solution"] = {**rows[1]["solution"], "n": n + 1}
        rows[1].update(min_vertices=n + 1, lower_bound=n + 1)

    forged = forge(run, tmp_path / "forged", raise_optimum)
    for name in ("config.json", "samples.jsonl"):
        (forged / name).write_bytes((run / name).read_bytes())
    report = build_report(load_runs([forged]), tmp_path / "report", options)
    named = [w for w in report.warnings if f"{forged / 'problems.jsonl'}:2" in w]
    assert named and "is not what --fresh 3 --seed 7" in named[0], report.warnings


def test_a_published_problem_in_a_fresh_folder_is_refused(drawn_three, tmp_path, monkeypatch):
    """The (P3, K3)-red-determiner (one of the 70), with its shipped solution and proof, put in
    a fresh folder: the leakage check runs again on resume and refuses it, before any solving."""
    problem = get_problem("p3_k3_red_determiner")
    shipped = get_solution(problem.id)
    record = {
        **problem.to_json(),
        "status": "found",
        "solution": shipped.candidate.to_json(problem.kind),
        "proven_minimal": True,
        "lower_bound": shipped.n,
    }

    def publish(rows: list[dict]) -> None:
        rows[2] = export_row(record)

    def no_search(*args, **kwargs):
        raise AssertionError("the leakage check comes before the draw")

    out = forge(drawn_three, tmp_path / "run", publish)
    monkeypatch.setattr(stream_module, "solve_minimal", no_search)
    refused(
        run_eval(*THREE, *QUICK, "--out", out),
        f"{out / 'problems.jsonl'}:3: p3_k3_red_determiner is equivalent to a published problem",
    )
    assert not (out / "samples.jsonl").exists()


def test_a_fresh_folder_drawn_again_matches(drawn_three, tmp_path) -> None:
    """The honest folder resumes: the draw again finds exactly its rows."""
    out = tmp_path / "run"
    out.mkdir()
    for name in ("problems.jsonl", "fresh.json"):
        (out / name).write_bytes((drawn_three / name).read_bytes())
    result = run_eval(*THREE, *QUICK, "--out", out)
    assert result.exit_code == 0, result.output
    assert len(samples(out)) == 3 and all(r["minimal"] is True for r in samples(out))


def test_an_interrupted_draw_writes_nothing_and_a_rerun_draws_again(tmp_path, monkeypatch):
    calls = itertools.count()
    real = stream_module.solve_minimal

    def interrupted(*args, **kwargs):
        if next(calls) == 1:  # the second search: 3 problems need at least 3
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(stream_module, "solve_minimal", interrupted)
    out = tmp_path / "run"
    result = run_eval("--fresh", "3", "--seed", "7", *SMALL, *QUICK, "--out", out)
    assert result.exit_code == 130, result.output
    assert "nothing written" in result.output
    assert not out.exists() or not any(out.iterdir())
    monkeypatch.setattr(stream_module, "solve_minimal", real)
    result = run_eval("--fresh", "3", "--seed", "7", *SMALL, *QUICK, "--out", out)
    assert result.exit_code == 0, result.output
    assert len(rows(out)) == 3 and (out / "fresh.json").exists()


def test_a_folder_of_other_problems_is_refused_before_solving(tmp_path, monkeypatch) -> None:
    bench = tmp_path / "bench"
    result = run_eval("--problems", "p3_k3_red_determiner", *QUICK, "--out", bench)
    assert result.exit_code == 0, result.output

    def no_search(*args, **kwargs):
        raise AssertionError("refused folders are refused before any solving")

    monkeypatch.setattr(stream_module, "solve_minimal", no_search)
    result = run_eval("--fresh", "3", *SMALL, *QUICK, "--out", bench)
    assert result.exit_code == 2 and "holds a run of other problems (paper)" in result.output
    stray = tmp_path / "stray"
    stray.mkdir()
    (stray / "problems.jsonl").write_text("{}\n")
    result = run_eval("--fresh", "3", *SMALL, *QUICK, "--out", stray)
    assert result.exit_code == 2 and "is not a fresh draw" in result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--fresh", "0"], "--fresh must be at least 1 problem, got 0"),
        (["--fresh", "-3"], "--fresh must be at least 1 problem, got -3"),
        (["--fresh", "1001"], "--fresh 1,001 is above 1,000 problems"),
        (["--fresh", "5", "--colors", "4"], "2 or 3 colours, got 4"),
        (["--fresh", "5", "--min-size", "6", "--max-size", "5"], "min-size <= max-size, got 6..5"),
        (["--fresh", "5", "--max-size", "11"], "max-size 11 is too large"),
        (["--fresh", "5", "--pool", "Q9"], "unknown pattern 'Q9'"),
        (["--fresh", "5", "--gadgets", "foo"], "unknown gadget 'foo'"),
        (["--fresh", "5", "--set", "extended"], "--fresh draws its own problems: leave out --set"),
        (["--fresh", "5", "--dataset", "x.jsonl"], "leave out --dataset"),
        (["--fresh", "5", "-p", "p3_k3_red_determiner"], "leave out --problems"),
        (["--fresh", "5", "--tier", "easy"], "leave out --tier"),
        (["--colors", "3"], "--colors goes with --fresh N only"),
        (["--pool", "P3", "--max-size", "6"], "--max-size, --pool go with --fresh N only"),
    ],
)
def test_bad_fresh_options_are_one_line_and_exit_2(tmp_path, monkeypatch, args, message) -> None:
    def no_search(*a, **k):
        raise AssertionError("bad options are refused before any solving")

    monkeypatch.setattr(stream_module, "solve_minimal", no_search)
    result = run_eval(*args, *QUICK, "--out", tmp_path / "run")
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert result.output.count("error:") == 1
    assert not (tmp_path / "run").exists()


def test_too_few_fresh_problems_in_the_pool_is_a_clear_error(tmp_path) -> None:
    # every (P3, K3) problem of size ≤ 6 is one of the 70 or in the extended set
    pool = ["--pool", "P3,K3", "--max-size", "6"]
    result = run_eval("--fresh", "5", *pool, *QUICK, "--out", tmp_path / "run")
    assert result.exit_code == 2, result.output
    assert "the pool holds only 0 fresh problems" in result.output
    assert not (tmp_path / "run" / "problems.jsonl").exists()


def test_three_color_fresh_problems(tmp_path) -> None:
    """``--colors 3``: (P3, P3, P5) and (P3, P5, P5) problems outside the extended set's."""
    out = tmp_path / "run"
    args = ["--fresh", "3", "--colors", "3", "--pool", "P3,P5", "--max-size", "6", "--seed", "1"]
    result = run_eval(*args, *QUICK, "--out", out)
    assert result.exit_code == 0, result.output
    problems = load_selection(out / "problems.jsonl")
    assert len(problems.problems) == 3 and set(problems.ids) == problems.proven
    assert all(p.c == 3 and not is_published(p) for p in problems.problems)
    three = {problem_key(e.problem) for e in extended_problems() if e.problem.c == 3}
    assert not three & {problem_key(p) for p in problems.problems}
    assert all(r["correct"] and r["minimal"] for r in samples(out))


@pytest.mark.slow
def test_fresh_30_with_the_default_sizes(tmp_path) -> None:
    """The issue's command as given (default pool, sizes 3..8): about 20 s on a loaded core."""
    out = tmp_path / "run"
    result = run_eval("--fresh", "30", "--seed", "7", *QUICK, "--out", out)
    assert result.exit_code == 0, result.output
    published = published_pairs()
    problems = load_selection(out / "problems.jsonl")
    assert len(problems.problems) == 30 and set(problems.ids) == problems.proven
    assert not any(equivalent_to_published(p, published) for p in problems.problems)


# -- the console summary of fresh and file problems (issue 32, item 5) --------------------------
def test_the_summary_counts_the_settings_each_problem_has(tmp_path) -> None:
    """A problem outside the catalog has the example hint when its P3 counterpart is one of the
    70 ((K1,4, K3): the (P3, K3) problem), and no size hint without a known minimal size: the
    summary's rows count exactly the samples the run has (today they knew catalog problems
    only: the example-hint samples were left out and an empty size-hint row expected one)."""
    dataset = tmp_path / "set.jsonl"
    dataset.write_text(json.dumps({"F": "K1,4", "H": "K3", "gadget": "red-determiner"}) + "\n")
    args = ["--dataset", dataset, "-m", "random", "--runs", "2", "--out", tmp_path / "run"]
    result = run_eval(*args, "-s", "zero-shot,example-hint,size-hint", "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    rows = {row["setting"]: row for row in summary["settings"]}
    assert sorted(rows) == ["example-hint", "zero-shot"]  # no size hint: the size is unknown
    assert all(row["samples"] == row["expected"] == 2 for row in rows.values())
    assert sum(row["samples"] for row in rows.values()) == summary["total"] == 4
    table = run_eval(*args, "-s", "zero-shot,example-hint,size-hint")
    assert "4/4 samples" in table.output and "example-hint" in table.output
    assert "size-hint" not in table.output
