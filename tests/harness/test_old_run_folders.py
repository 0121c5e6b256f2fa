"""Run folders written before the data layer (``runs/``) and ``Grade`` existed still load, and
today's code writes the same bytes.

``data/old_runs`` was written by ``ramseygadgets eval`` of the code before that change:

* ``solver``: ``--model solver --limit 2 --runs 1 --setting zero-shot,multiround`` (correct);
* ``random``: ``--model random --limit 2 --runs 2 --setting zero-shot --seed 1`` (wrong answers);
* ``replay``: ``--model replay:replay_in.jsonl`` (a parse failure and a wrong answer).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from ramseygadgets.harness.runner import EvalOptions, run_eval
from ramseygadgets.report import load_runs
from ramseygadgets.runs import Grade, RunFolder, read_run_dir
from ramseygadgets.runs.grade import GRADE_FIELDS
from ramseygadgets.runs.results import run_results
from ramseygadgets.runs.sizes import SIZE_FIELDS

OLD = Path(__file__).parent / "data" / "old_runs"
FOLDERS = ("solver", "random", "replay")
#: Fields that differ from one run to the next (wall time, clock).
_VOLATILE = re.compile(rb'"(latency_s|finished_at)":("[^"]*"|[0-9.eE+-]+)')
#: The size grade's fields (runs.sizes), added after these folders were written.
_SIZE_FIELDS = re.compile(
    rb'"candidate_vertices":.*?"discovery":(null|"[^"]*")(,"recheck":{[^}]*})?,'
)
#: The other change since: a count the backend did not report (these three backends
#: report none) was recorded as 0 and is null now (the folders' config.json says which).
_OLD_UNKNOWN_USAGE = (
    b'"usage":{"prompt_tokens":0,"completion_tokens":0,"reasoning_tokens":null,"total_tokens":0}'
)
_UNKNOWN_USAGE = (
    b'"usage":{"prompt_tokens":null,"completion_tokens":null,"reasoning_tokens":null,'
    b'"total_tokens":null}'
)


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines()


@pytest.mark.parametrize("name", FOLDERS)
def test_grades_round_trip_byte_for_byte(name):
    for line in _lines(OLD / name / "samples.jsonl"):
        record = json.loads(line)
        grade = Grade.from_json(record)
        written = {k: v for k, v in record.items() if k in GRADE_FIELDS}
        assert json.dumps(grade.to_json()) == json.dumps(written)


def test_grade_kinds_of_the_old_samples():
    kinds = {
        name: sorted(
            Grade.from_json(json.loads(x)).kind for x in _lines(OLD / name / "samples.jsonl")
        )
        for name in FOLDERS
    }
    assert kinds == {
        "solver": ["correct"] * 4,
        "random": ["wrong"] * 4,
        "replay": ["parse-failure", "wrong"],
    }
    wrong = Grade.from_json(json.loads(_lines(OLD / "random" / "samples.jsonl")[0]))
    assert wrong.edge_count == len(wrong.candidate["edges"]) and wrong.vertex_count == 5


@pytest.mark.parametrize("name", FOLDERS)
def test_old_folders_load_and_give_the_same_results(name):
    (run,) = read_run_dir(OLD / name)
    assert len(run.samples) == len(_lines(OLD / name / "samples.jsonl")) and not run.warnings
    assert [s.grade.kind for s in run.samples] == [
        Grade.from_json(json.loads(x)).kind for x in _lines(OLD / name / "samples.jsonl")
    ]
    results, old = run_results(OLD / name), json.loads((OLD / name / "results.json").read_text())
    # the numbers results.json had then are unchanged; the grades added since are null (not 0)
    for setting, then in zip(results["settings"], old["settings"], strict=True):
        added = {k: v for k, v in setting.items() if k not in then}
        assert {k: setting[k] for k in then} == then
        assert added.pop("graded") == 0 and added.pop("excess_vertices") == {}
        assert all(tier["minimal_rate"] is None for tier in added.pop("tiers"))
        assert set(added.values()) == {None}
    assert {k: v for k, v in results.items() if k != "settings"} == {
        k: v for k, v in old.items() if k != "settings"
    }
    assert [r.source for r in load_runs([OLD])] == [str(OLD / n) for n in sorted(FOLDERS)]


def test_an_old_folder_resumes(tmp_path):
    folder = tmp_path / "solver"
    shutil.copytree(OLD / "solver", folder)
    with RunFolder(folder) as log:
        assert len(log) == 4 and log.torn_bytes == 0 and log.read_config()["runs"] == 1
    # The dataset hash covers the rendered prompts, which change with the code: take today's,
    # so that only the recorded samples are old.
    fresh = tmp_path / "fresh"
    options = {"model": "solver", "settings": ["zero-shot", "multiround"], "runs": 1, "limit": 2}
    run_eval(EvalOptions(out=fresh, progress=False, **options))
    config = json.loads((folder / "config.json").read_text())
    config["dataset_hash"] = json.loads((fresh / "config.json").read_text())["dataset_hash"]
    (folder / "config.json").write_text(json.dumps(config))
    outcome = run_eval(EvalOptions(out=folder, progress=False, **options))
    assert outcome.skipped == 4 and outcome.stats.recorded == 4


@pytest.mark.parametrize(
    ("name", "options"),
    [
        ("solver", {"model": "solver", "settings": ["zero-shot", "multiround"], "runs": 1}),
        ("random", {"model": "random", "settings": ["zero-shot"], "runs": 2, "seed": 1}),
        ("replay", {"model": f"replay:{OLD / 'replay_in.jsonl'}"}),
    ],
)
def test_todays_samples_are_byte_compatible(tmp_path, name, options):
    limit = None if name == "replay" else 2
    run_eval(EvalOptions(out=tmp_path / name, limit=limit, progress=False, **options))
    old = [
        _VOLATILE.sub(b"", x).replace(_OLD_UNKNOWN_USAGE, _UNKNOWN_USAGE)
        for x in _lines(OLD / name / "samples.jsonl")
    ]
    new = [_VOLATILE.sub(b"", x) for x in _lines(tmp_path / name / "samples.jsonl")]
    records = [json.loads(x) for x in _lines(tmp_path / name / "samples.jsonl")]
    assert all(list(r)[-len(SIZE_FIELDS) - 2 : -2] == list(SIZE_FIELDS) for r in records)
    if name == "solver":  # the catalog's proven minima, answered by the minimal solutions
        assert {(r["minimal"], r["excess_vertices"], r["excess_edges"]) for r in records} == {
            (True, 0, 0)
        }
    new = [_SIZE_FIELDS.sub(b"", x, count=1) for x in new]
    if name == "replay":  # the replay file's path is part of the model name
        new = [x.replace(str(OLD).encode(), b"/tmp/oldfix") for x in new]
    assert sorted(new) == sorted(old)  # samples finish concurrently: their order may differ
