"""Metrics on small hand-computed run sets (numbers worked out by hand in the comments)."""

from __future__ import annotations

import csv
import io
import json
import math
import statistics
from itertools import combinations
from pathlib import Path

import pytest

from ramseygadgets.report import (
    BREAKDOWNS,
    Cell,
    Run,
    RunFormatError,
    Sample,
    breakdown,
    build_cells,
    cell_stats,
    example_hint_applies,
    load_runs,
    pass_at_k,
    register_reader,
    sample_std,
)
from ramseygadgets.report.runs import _READERS
from ramseygadgets.report.tables import table1, table2

P1, P2 = "p3_k3_red_determiner", "p3_k3_blue_determiner"  # easy
P3, P4 = "p3_k3_positive_sender", "p3_k3_negative_sender"  # hard

#            run 0       run 1        run 2
PLAN = {
    P1: ["correct", "correct", "correct"],
    P2: ["wrong", "correct", "parse-failure"],
    P3: ["correct", "wrong", "truncated"],
    P4: ["wrong", None, "error"],
}  # None: missing (run 1 did not finish)


def plan_samples(sample, setting="zero-shot", plan=PLAN):
    out = []
    for i, (problem, outcomes) in enumerate(plan.items()):
        for run, outcome in enumerate(outcomes):
            if outcome is not None:
                out.append(sample(problem, setting, run, outcome, tokens=100 * (i + 1) + 10 * run))
    return out


@pytest.fixture
def hand_cell(run_dir_factory, sample):
    path = run_dir_factory(
        problems=list(PLAN), settings=["zero-shot"], runs=3, samples=plan_samples(sample)
    )
    (cell,) = build_cells(load_runs([path]))
    return cell


def test_accuracy_mean_std_and_missing(hand_cell):
    st = cell_stats(hand_cell, resamples=200)
    # run accuracies over the 4 expected problems: 2/4, 2/4 (P4 missing counts as unsolved), 1/4
    assert st.run_accuracies == (0.5, 0.5, 0.25)
    assert st.mean == pytest.approx(1.25 / 3)
    # sample sd (ddof=1): sqrt(((1/12)^2 + (1/12)^2 + (1/6)^2) / 2) = sqrt(1/48)
    assert st.std == pytest.approx(math.sqrt(1 / 48))
    assert st.expected == 12 and st.present == 11 and st.missing == 1
    assert st.problems == 4 and st.runs == 3


def test_pass_at_k_and_unbiased_estimator(hand_cell):
    st = cell_stats(hand_cell, resamples=0)
    assert st.pass_at_runs == 0.75  # P1, P2, P3 solved at least once; P4 never
    # pass@1 = mean over problems of c/n = (1 + 1/3 + 1/3 + 0) / 4 = mean accuracy
    assert st.pass_at[1] == pytest.approx(5 / 12)
    # pass@2: P1 1, P2 and P3 1 - C(2,2)/C(3,2) = 2/3, P4 0 -> (1 + 4/3) / 4
    assert st.pass_at[2] == pytest.approx(7 / 12)
    assert set(st.pass_at) == {1, 2}
    assert st.mean_ci is None  # no bootstrap asked for


def test_outcomes_tokens_and_truncation(hand_cell):
    st = cell_stats(hand_cell, resamples=0)
    assert st.outcomes == {
        "correct": 5,
        "wrong": 3,
        "parse-failure": 1,
        "truncated": 1,
        "error": 1,
        "missing": 1,
    }
    # tokens 100*(i+1) + 10*run over the 10 samples without a backend error (P4's run 2 is the error):
    # P1 100+110+120, P2 200+210+220, P3 300+310+320, P4 400 -> 2290 / 10
    assert st.avg_tokens == pytest.approx(229.0) and st.token_samples == 10
    # without truncated samples: run 2 loses P3 -> 1/3; mean (1/2 + 1/2 + 1/3) / 3
    assert st.mean_without_truncated == pytest.approx(4 / 9)


def test_tier_split(hand_cell):
    by_tier = dict(breakdown(hand_cell, BREAKDOWNS["tier"], resamples=0))
    easy, hard = by_tier["easy"], by_tier["hard"]
    assert easy.run_accuracies == (0.5, 1.0, 0.5) and easy.mean == pytest.approx(2 / 3)
    assert easy.std == pytest.approx(statistics.stdev([0.5, 1.0, 0.5]))
    assert hard.run_accuracies == (0.5, 0.0, 0.0) and hard.pass_at_runs == 0.5
    assert hard.missing == 1 and easy.missing == 0


def test_size_and_gadget_splits_use_sample_fields(hand_cell):
    sizes = {v: st.problems for v, st in breakdown(hand_cell, BREAKDOWNS["size"], resamples=0)}
    from ramseygadgets.problems.solutions import get_solution

    expected: dict[int, int] = {}
    for p in PLAN:
        expected[get_solution(p).n] = expected.get(get_solution(p).n, 0) + 1
    assert sizes == expected
    gadgets = [v for v, _ in breakdown(hand_cell, BREAKDOWNS["gadget"], resamples=0)]
    assert gadgets == ["red-determiner", "blue-determiner", "positive-sender", "negative-sender"]


def test_min_vertices_falls_back_to_shipped_solution(run_dir_factory, sample):
    from ramseygadgets.problems.solutions import get_solution

    samples = [
        sample(P1, "zero-shot", 0, "correct", min_vertices=None),
        sample(P3, "zero-shot", 0, "wrong", min_vertices=None),
    ]
    path = run_dir_factory(problems=[P1, P3], settings=["zero-shot"], runs=1, samples=samples)
    (cell,) = build_cells(load_runs([path]))
    infos = cell.infos()
    assert (
        infos[P1].min_vertices == get_solution(P1).n
        and infos[P3].min_vertices == get_solution(P3).n
    )


def test_pass_at_k_matches_subset_enumeration():
    for n in range(1, 7):
        for c in range(n + 1):
            outcomes = [True] * c + [False] * (n - c)
            for k in range(1, n + 1):
                subsets = list(combinations(outcomes, k))
                brute = sum(any(s) for s in subsets) / len(subsets)
                assert pass_at_k(n, c, k) == pytest.approx(brute)
    with pytest.raises(ValueError):
        pass_at_k(3, 4, 1)


def test_sample_std_is_ddof_one():
    assert sample_std([0.2, 0.4, 0.9]) == pytest.approx(statistics.stdev([0.2, 0.4, 0.9]))
    assert sample_std([0.5]) is None


def synthetic_cell(solved_by_run: list[list[bool]]) -> Cell:
    """A cell over problems x0, x1, ... built in memory; ``solved_by_run[r][i]``: problem i solved in run r."""
    cell = Cell("m", "zero-shot")
    for r, solved in enumerate(solved_by_run):
        for i, ok in enumerate(solved):
            key = (f"x{i}", r)
            cell.expected.add(key)
            cell.samples[key] = Sample(f"x{i}", "zero-shot", r, ok, "easy", "red-determiner", None)
    return cell


def test_bootstrap_is_seeded_and_matches_the_normal_approximation():
    solved = [i % 2 == 0 for i in range(40)]
    one_run = synthetic_cell([solved])
    a = cell_stats(one_run, resamples=4000, seed=7)
    assert a.mean_ci == cell_stats(one_run, resamples=4000, seed=7).mean_ci
    # the seed matters (few resamples, so the percentiles interpolate between different draws)
    assert (
        cell_stats(one_run, resamples=30, seed=7).mean_ci
        != cell_stats(one_run, resamples=30, seed=8).mean_ci
    )
    half_width = 1.96 * math.sqrt(0.25 / 40)  # binomial proportion 1/2 over 40 problems
    assert a.mean_ci.low == pytest.approx(0.5 - half_width, abs=0.03)
    assert a.mean_ci.high == pytest.approx(0.5 + half_width, abs=0.03)
    # resampling is over problems: three identical runs give the same interval as one run
    three = cell_stats(synthetic_cell([solved] * 3), resamples=4000, seed=7).mean_ci
    assert (three.low, three.high) == pytest.approx((a.mean_ci.low, a.mean_ci.high))


def test_bootstrap_brackets_the_mean(hand_cell):
    st = cell_stats(hand_cell, resamples=500, seed=7)
    assert 0 <= st.mean_ci.low <= st.mean <= st.mean_ci.high <= 1
    assert 0 <= st.pass_ci.low <= st.pass_at_runs <= st.pass_ci.high <= 1


def test_bootstrap_of_a_perfect_run_is_degenerate(run_dir_factory, sample):
    samples = [sample(p, "zero-shot", r, "correct") for p in (P1, P2) for r in range(2)]
    (cell,) = build_cells(
        load_runs(
            [run_dir_factory(problems=[P1, P2], settings=["zero-shot"], runs=2, samples=samples)]
        )
    )
    st = cell_stats(cell, resamples=300)
    assert (st.mean_ci.low, st.mean_ci.high) == (1.0, 1.0) and st.std == 0.0


def test_example_hint_expected_set_and_table2(run_dir_factory, sample):
    from ramseygadgets.problems.catalog import all_problems

    assert sum(example_hint_applies(p.id) for p in all_problems()) == 30
    q1, q2 = "k13_k3_red_determiner", "k13_k3_positive_sender"  # example-hint applies
    other = "k13_k3_clause_gadget"  # (P3, K3) has no clause gadget: no example hint
    assert example_hint_applies(q1) and not example_hint_applies(other)
    samples = [sample(q1, "zero-shot", r, "wrong") for r in range(2)]
    samples += [sample(q2, "zero-shot", 0, "correct"), sample(q2, "zero-shot", 1, "wrong")]
    samples += [sample(other, "zero-shot", r, "correct") for r in range(2)]
    samples += [sample(q1, "example-hint", r, "correct") for r in range(2)]
    samples += [sample(q2, "example-hint", 0, "correct")]  # run 1 missing
    path = run_dir_factory(
        problems=[q1, q2, other], settings=["zero-shot", "example-hint"], runs=2, samples=samples
    )
    (run,) = load_runs([path])
    assert run.missing_keys() == {(q2, "example-hint", 1)}
    cells = build_cells([run])
    by_setting = {c.setting: c for c in cells}
    assert by_setting["example-hint"].problems == [q1, q2]
    rows = {r["setting"]: r for r in table2(cells, resamples=0).records}
    # zero-shot restricted to q1, q2: runs 1/2, 0/2 -> 25 %; the clause gadget (always correct) is left out
    assert rows["zero-shot"]["problems"] == 2 and rows["zero-shot"]["mean_accuracy_pct"] == 25.0
    # example hint: runs 2/2, 1/2 -> 75 %, one sample missing
    assert (
        rows["example-hint"]["mean_accuracy_pct"] == 75.0
        and rows["example-hint"]["samples_missing"] == 1
    )
    full_zero = cell_stats(by_setting["zero-shot"], resamples=0)
    assert full_zero.mean == pytest.approx((2 / 3 + 1 / 3) / 2)


def test_table1_csv_and_markdown(hand_cell):
    table = table1([cell_stats(hand_cell, resamples=100)])
    rows = list(csv.DictReader(io.StringIO(table.to_csv())))
    assert len(rows) == 1
    row = rows[0]
    assert float(row["mean_accuracy_pct"]) == pytest.approx(100 * 1.25 / 3, abs=1e-3)
    assert float(row["std_pct"]) == pytest.approx(100 * math.sqrt(1 / 48), abs=1e-3)
    assert row["pass_k"] == "3" and float(row["pass_at_k_pct"]) == 75.0
    assert float(row["unbiased_pass_at_2_pct"]) == pytest.approx(100 * 7 / 12, abs=1e-3)
    assert row["samples_missing"] == "1" and row["n_truncated"] == "1"
    md = table.to_markdown()
    assert "| Pass@3 % |" in md and "41.67 ± 14.43" in md and "75.00 (k=3)" in md


def test_stacked_and_joined_directories(run_dir_factory, sample):
    # two directories of one model over the same problem: stacked as runs 0-1 and 2-3
    a = run_dir_factory(
        problems=[P1],
        settings=["zero-shot"],
        runs=2,
        samples=[sample(P1, "zero-shot", 0, "correct"), sample(P1, "zero-shot", 1, "wrong")],
    )
    b = run_dir_factory(
        problems=[P1],
        settings=["zero-shot"],
        runs=2,
        samples=[sample(P1, "zero-shot", 0, "wrong"), sample(P1, "zero-shot", 1, "wrong")],
    )
    (cell,) = build_cells(load_runs([a, b]))
    assert cell.run_ids == [0, 1, 2, 3]
    assert cell_stats(cell, resamples=0).run_accuracies == (1.0, 0.0, 0.0, 0.0)
    # a directory with other problems is joined run by run
    c = run_dir_factory(
        problems=[P3],
        settings=["zero-shot"],
        runs=2,
        samples=[sample(P3, "zero-shot", 0, "correct"), sample(P3, "zero-shot", 1, "correct")],
    )
    (cell,) = build_cells(load_runs([a, c]))
    assert cell.run_ids == [0, 1]
    assert cell_stats(cell, resamples=0).run_accuracies == (1.0, 0.5)
    # a different model label stays separate
    d = run_dir_factory(
        problems=[P1],
        settings=["zero-shot"],
        runs=1,
        model_label="other",
        samples=[sample(P1, "zero-shot", 0, "correct")],
    )
    assert sorted(c.model for c in build_cells(load_runs([a, d]))) == ["other", "test-model"]


def test_folder_of_run_directories(tmp_path, run_dir_factory, sample):
    run_dir_factory(
        problems=[P1], settings=["zero-shot"], runs=1, samples=[sample(P1, "zero-shot", 0)]
    )
    run_dir_factory(
        problems=[P3], settings=["zero-shot"], runs=1, samples=[sample(P3, "zero-shot", 0)]
    )
    assert len(load_runs([tmp_path])) == 2


def test_torn_line_duplicates_and_missing_config(run_dir_factory, sample):
    path = run_dir_factory(
        problems=[P1, P2],
        settings=["zero-shot"],
        runs=1,
        samples=[sample(P1, "zero-shot", 0), sample(P1, "zero-shot", 0, "wrong")],
    )
    with open(path / "samples.jsonl", "a") as fh:
        fh.write(json.dumps(sample(P2, "zero-shot", 0))[:50])  # killed mid-write
    (run,) = load_runs([path])
    assert [s.key for s in run.samples] == [(P1, "zero-shot", 0)] and run.samples[0].correct
    assert any("recorded twice" in w for w in run.warnings) and any(
        "unfinished" in w for w in run.warnings
    )
    assert run.missing_keys() == {(P2, "zero-shot", 0)}
    (path / "config.json").unlink()
    (run,) = load_runs([path])
    assert (
        run.problems == (P1,) and run.runs == 1 and any("no config.json" in w for w in run.warnings)
    )


def test_unreadable_inputs_give_one_line_errors(tmp_path):
    with pytest.raises(RunFormatError, match="no such file"):
        load_runs([tmp_path / "nope"])
    (tmp_path / "empty").mkdir()
    with pytest.raises(RunFormatError, match="not a run directory"):
        load_runs([tmp_path / "empty"])
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "config.json").write_text("{not json")
    with pytest.raises(RunFormatError, match="cannot read"):
        load_runs([bad])


def test_registered_reader_extends_load_runs(tmp_path):
    log = tmp_path / "x.fakelog"
    log.write_text(
        json.dumps([{"problem_id": P1, "setting": "zero-shot", "run": 0, "correct": True}])
    )

    def read(path: Path) -> list[Run]:
        samples = [Sample.from_record(r) for r in json.loads(path.read_text())]
        return [
            Run(
                label="fake",
                model="fake",
                settings=("zero-shot",),
                runs=1,
                problems=(P1, P2),
                samples=samples,
                source=str(path),
            )
        ]

    register_reader("fakelog", lambda p: p.suffix == ".fakelog", read)
    try:
        (run,) = load_runs([log])
        assert (
            run.label == "fake" and run.samples[0].tier == "easy"
        )  # tier filled in from the catalog
        st = cell_stats(build_cells([run])[0], resamples=0)
        assert st.mean == 0.5 and st.missing == 1
    finally:
        _READERS[:] = [r for r in _READERS if r.name != "fakelog"]


def test_unfinished_setting_is_reported_as_missing(tmp_path, run_dir_factory, sample):
    """A run killed before any multiround sample: accuracy 0 over the expected set, all missing, the
    report still builds (no tokens to plot for that cell) and says so on the page."""
    from ramseygadgets.report import ReportOptions, build_report

    path = run_dir_factory(
        problems=[P1, P3],
        settings=["zero-shot", "multiround"],
        runs=2,
        samples=[sample(p, "zero-shot", r, "correct") for p in (P1, P3) for r in range(2)],
    )
    runs = load_runs([path])
    multi = next(c for c in build_cells(runs) if c.setting == "multiround")
    st = cell_stats(multi, resamples=50)
    assert st.mean == 0.0 and st.missing == 4 and st.avg_tokens is None and st.pass_at_runs == 0.0
    result = build_report(runs, tmp_path / "out", ReportOptions(resamples=50))
    html = (tmp_path / "out" / "report.html").read_text()
    assert html.count("no sample recorded (run did not finish)") == 2
    rows = {
        r["setting"]: r
        for r in csv.DictReader(io.StringIO((tmp_path / "out" / "table1.csv").read_text()))
    }
    assert (
        rows["multiround"]["samples_missing"] == "4"
        and rows["zero-shot"]["mean_accuracy_pct"] == "100.0"
    )
    assert (
        tmp_path / "out" / "figures" / "accuracy_vs_tokens.png"
    ).is_file() and not result.warnings
