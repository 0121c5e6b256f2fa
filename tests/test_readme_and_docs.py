"""The README and docs/: every relative link resolves, the README stays short, the set-up is split.

A link ``[text](path#anchor)`` resolves when ``path`` (relative to the file that links) exists
and, where an anchor is given in a Markdown file, a heading of that file has that GitHub slug
(lower case, punctuation dropped, spaces to hyphens, ``-1``, ``-2`` for repeats).
"""

from __future__ import annotations

import re
import subprocess
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
MAIN_COMMAND = (
    "bash scripts/setup.sh && .venv/bin/ramseygadgets eval && .venv/bin/ramseygadgets report"
)
TEST_COMMAND = "bash scripts/setup.sh --test && .venv/bin/python -m pytest"

LINK = re.compile(r"(?<!!)\[[^\]\n]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.S | re.M)
CODE_SPAN = re.compile(r"`[^`\n]*`")


def _prose(text: str) -> str:
    """The text without fenced blocks and code spans (links there are code, not links)."""
    return CODE_SPAN.sub("", FENCE.sub("", text))


def github_slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, only word characters, spaces and hyphens, spaces
    to hyphens (``The frontier: F = K3`` -> ``the-frontier-f--k3``)."""
    text = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip()).lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every anchor of a Markdown file: its headings' slugs (repeats numbered) and explicit ids."""
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    seen: Counter[str] = Counter()
    found = set(re.findall(r'<a (?:id|name)="([^"]+)"', text))
    for heading in re.findall(r"^#{1,6} (.+)$", text, re.M):
        slug = github_slug(heading)
        found.add(slug if seen[slug] == 0 else f"{slug}-{seen[slug]}")
        seen[slug] += 1
    return found


def broken_links(path: Path) -> list[str]:
    """The relative links of one Markdown file that do not resolve, as ``file: target (why)``."""
    broken = []
    for target in LINK.findall(_prose(path.read_text(encoding="utf-8"))):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):
            continue  # http:, https:, mailto:: not checked (no network in tests)
        file_part, _, anchor = target.partition("#")
        linked = (path.parent / file_part).resolve() if file_part else path
        if not linked.exists():
            broken.append(f"{path.name}: {target} (no such file)")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            broken.append(f"{path.name}: {target} (no heading #{anchor})")
    return broken


def test_the_slug_follows_github() -> None:
    assert (
        github_slug("The frontier: F = K3 against K4−e and K4")
        == "the-frontier-f--k3-against-k4e-and-k4"
    )
    assert (
        github_slug("Single core: the clique bound (2026-12-03)")
        == "single-core-the-clique-bound-2026-12-03"
    )
    assert github_slug("`eval` options") == "eval-options"


def test_a_broken_link_is_found(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    (tmp_path / "other.md").write_text("# Other\n\n## A part\n", encoding="utf-8")
    page.write_text(
        "[ok](other.md#a-part) [no file](missing.md) [no anchor](other.md#b-part) "
        "[web](https://example.org/x) `[code](nowhere.md)`\n```\n[fenced](nowhere.md)\n```\n",
        encoding="utf-8",
    )
    assert broken_links(page) == [
        "page.md: missing.md (no such file)",
        "page.md: other.md#b-part (no heading #b-part)",
    ]


@pytest.mark.parametrize("page", [README, *DOCS], ids=lambda p: p.name)
def test_every_relative_link_resolves(page: Path) -> None:
    assert broken_links(page) == []


def test_the_readme_is_short_with_both_commands_first() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 300
    head = "\n".join(lines[:60])
    assert MAIN_COMMAND in head and TEST_COMMAND in head


def test_ci_runs_the_readme_test_command() -> None:
    """Each step of the README's test command is a line of ``.ci/run`` (the set-up with
    ``--test``, and pytest with the same options: the integration tests included)."""
    ci = [line.strip() for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()]
    readme = README.read_text(encoding="utf-8").splitlines()
    (command,) = [line for line in readme if line.startswith(TEST_COMMAND)]
    steps = command.split(" && ")
    assert len(steps) == 2 and all(step in ci for step in steps), (steps, ci)
    assert "bash scripts/setup.sh" not in ci and "-m 'not slow'" in steps[1]


def test_the_main_set_up_installs_the_package_alone() -> None:
    script = (ROOT / "scripts" / "setup.sh").read_text(encoding="utf-8")
    main = script[
        script.index("setup_main() {") : script.index("\n}\n", script.index("setup_main() {"))
    ]
    assert "pip install -q --python .venv/bin/python -e ." in main and "install_llama" not in main
    assert "[" not in main.split("-e .")[1].split("\n")[0]  # no extras on the main job's install


def test_every_set_up_compiles_the_package_sources() -> None:
    """Where PYTHONDONTWRITEBYTECODE is set, sources a set-up leaves uncompiled are compiled again
    by every process (bench/bytecode.py): both set-ups and the lowest-direct step compile src/, and
    the CI-only lowest-direct venv, many processes long, has uv compile what it installs."""
    setup = (ROOT / "scripts" / "setup.sh").read_text(encoding="utf-8")
    assert re.search(r"^  \.venv/bin/python -m compileall -q -j 0 src$", setup, re.M)
    for mode in ("setup_main", "setup_test"):
        start = setup.index(f"{mode}() {{")
        assert "\n  compile_sources" in setup[start : setup.index("\n}\n", start)], mode
    lowest = (ROOT / "scripts" / "lowest_direct.sh").read_text(encoding="utf-8")
    install = lowest.replace("\\\n", " ").split("bin/uv pip install", 1)[1].split("\n")[0]
    assert "--compile-bytecode" in install
    assert re.search(r"^\.venv-lowest/bin/python -m compileall -q -j 0 src$", lowest, re.M)


def test_setup_refuses_an_unknown_option_in_one_line() -> None:
    done = subprocess.run(
        ["bash", str(ROOT / "scripts" / "setup.sh"), "--tset"], capture_output=True, text=True
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        "setup: unknown option '--tset' (use no option for the main job, --test for the tests)"
    ]
    usage = subprocess.run(
        ["bash", str(ROOT / "scripts" / "setup.sh"), "--help"], capture_output=True, text=True
    )
    assert usage.returncode == 0 and "bash scripts/setup.sh --test" in usage.stdout
