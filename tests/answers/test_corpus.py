"""The corpus of realistic model replies: each is parsed exactly as its manifest entry says."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from ramseygadgets.answers import ERROR_KINDS, answer_object, parse_answer
from ramseygadgets.problems.catalog import get_problem
from ramseygadgets.verification.verifier import verify

CORPUS = Path(__file__).parent / "corpus"
MANIFEST = yaml.safe_load((CORPUS / "manifest.yaml").read_text(encoding="utf-8"))


def test_corpus_is_large_and_varied():
    assert len(MANIFEST) >= 60
    kinds = {entry.get("error_kind") for entry in MANIFEST if not entry["parsed"]}
    assert kinds == set(ERROR_KINDS)  # every failure kind is exercised
    assert {entry["source"] for entry in MANIFEST if entry["parsed"]} == {
        "json",
        "boxed",
        "fenced-text",
        "labelled",
    }
    assert any(
        entry["parsed"] and not entry["correct"] for entry in MANIFEST
    )  # wrong but readable answers
    listed = {entry["file"] for entry in MANIFEST} | {
        e["reasoning_file"] for e in MANIFEST if "reasoning_file" in e
    }
    assert listed == {p.name for p in CORPUS.glob("*.txt")}


@pytest.mark.parametrize("entry", MANIFEST, ids=[e["file"] for e in MANIFEST])
def test_reply_parses_as_expected(entry):
    problem = get_problem(entry["problem"])
    text = (CORPUS / entry["file"]).read_text(encoding="utf-8")
    reasoning = (
        (CORPUS / entry["reasoning_file"]).read_text(encoding="utf-8")
        if "reasoning_file" in entry
        else None
    )
    parsed = parse_answer(text, problem.kind, reasoning=reasoning)
    assert parsed.ok is entry["parsed"], parsed.error
    if not entry["parsed"]:
        assert parsed.error_kind == entry["error_kind"], parsed.error
        assert parsed.error and "internal parser error" not in parsed.error
        return
    assert parsed.source == entry["source"]
    assert answer_object(parsed.candidate, problem.kind) == json.loads(entry["answer"])
    assert parsed.candidate.graph.n == entry["n"]
    assert verify(problem, parsed.candidate).correct is entry["correct"]
