"""Packaging: what an install ships and declares (license, typing marker, ``python -m``, the
citation file, the train extra's ranges against its constraints file, the report template)."""

from __future__ import annotations

import importlib.metadata
import re
import subprocess
import sys
import tomllib
from importlib.resources import files
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
PROJECT = PYPROJECT["project"]
PACKAGE_DATA = PYPROJECT["tool"]["setuptools"]["package-data"]["ramseygadgets"]


def test_license_file_is_the_mit_license_pyproject_declares() -> None:
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert PROJECT["license"] == "MIT" and "LICENSE" in PROJECT["license-files"]
    assert text.startswith("MIT License\n")
    assert "Copyright (c) 2026 ramseygadgets developers" in text
    assert 'THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND' in text


def test_py_typed_marker_is_in_the_package_and_its_package_data() -> None:
    assert files("ramseygadgets").joinpath("py.typed").is_file()
    assert (ROOT / "src" / "ramseygadgets" / "py.typed").is_file()
    assert "py.typed" in PACKAGE_DATA
    assert "Typing :: Typed" in PROJECT["classifiers"]


def test_wheel_ships_py_typed_license_and_report_template(tmp_path: Path) -> None:
    """Build the wheel (no network, no isolation) and look inside."""
    setuptools = pytest.importorskip("setuptools")
    if int(setuptools.__version__.split(".")[0]) < 77:
        pytest.skip("setuptools >= 77 (PEP 639 license-files) is needed to build the wheel")
    import shutil
    import zipfile

    tree = tmp_path / "tree"  # a copy: the build leaves nothing in the checkout
    tree.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, tree / name)
    shutil.copytree(
        ROOT / "src", tree / "src", ignore=shutil.ignore_patterns("*.egg-info", "__pycache__")
    )
    out = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(tmp_path), str(tree)],
        capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    if out.returncode != 0 and "No module named pip" in out.stderr:
        pytest.skip("pip is not installed in this environment")
    assert out.returncode == 0, out.stderr[-2000:]
    (wheel,) = tmp_path.glob("ramseygadgets-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "ramseygadgets/py.typed" in names
    assert "ramseygadgets/templates/report.html.j2" in names
    assert "ramseygadgets/__main__.py" in names
    assert any(re.fullmatch(r"ramseygadgets-[^/]+\.dist-info/licenses/LICENSE", n) for n in names)


def test_python_dash_m_prints_the_installed_version() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "ramseygadgets", "--version"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"ramseygadgets {importlib.metadata.version('ramseygadgets')}"


def test_citation_file_cites_the_software_and_the_paper() -> None:
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    assert cff["cff-version"] == "1.2.0" and cff["type"] == "software"
    assert cff["license"] == PROJECT["license"] and str(cff["version"]) == PROJECT["version"]
    (paper,) = cff["references"]
    assert paper["title"] == "RamseyGadgets: A Graph Construction Dataset for LLMs"
    assert paper["year"] == 2026 and paper["authors"]


def test_project_metadata_has_urls_and_classifiers() -> None:
    assert PROJECT["urls"]["Paper"].startswith("https://arxiv.org/")
    classifiers = PROJECT["classifiers"]
    assert "Programming Language :: Python :: 3.11" in classifiers
    # PEP 639: a license expression replaces the License :: classifiers
    assert not [c for c in classifiers if c.startswith("License ::")]


def _requirements(lines: list[str]) -> list[str]:
    return [line.split("#")[0].strip() for line in lines if line.split("#")[0].strip()]


def test_train_extra_gives_ranges_and_the_constraints_pin_a_version_in_each() -> None:
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    extra = [Requirement(r) for r in PROJECT["optional-dependencies"]["train"]]
    pins: dict[str, str] = {}
    for line in _requirements(
        (ROOT / "constraints" / "train.txt").read_text(encoding="utf-8").splitlines()
    ):
        pinned = Requirement(line)
        (spec,) = pinned.specifier
        assert spec.operator == "==", line
        pins[canonicalize_name(pinned.name)] = spec.version
    for req in extra:
        assert not any(s.operator in ("==", "===") for s in req.specifier), (
            f"{req}: the extra gives a range; constraints/train.txt pins the tested version"
        )
        assert any(s.operator in ("<", "<=", "~=") for s in req.specifier), f"{req}: no upper bound"
        name = canonicalize_name(req.name)
        assert name in pins, f"constraints/train.txt does not pin {req.name}"
        assert req.specifier.contains(pins[name], prereleases=True), (
            f"constraints/train.txt pins {req.name}=={pins[name]}, outside {req.specifier}"
        )


def test_test_infrastructure_is_not_a_user_facing_extra() -> None:
    extras = PROJECT["optional-dependencies"]
    assert not any("llama-cpp-python" in r for reqs in extras.values() for r in reqs)
    infra = _requirements(
        (ROOT / "constraints" / "test-infra.txt").read_text(encoding="utf-8").splitlines()
    )
    assert infra == ["llama-cpp-python[server]==0.3.36"]
    setup = (ROOT / "scripts" / "setup.sh").read_text(encoding="utf-8")
    assert "-c constraints/train.txt" in setup and "bash scripts/install_llama.sh" in setup
    llama = (ROOT / "scripts" / "install_llama.sh").read_text(encoding="utf-8")
    assert "-r constraints/test-infra.txt" in llama and "-c constraints/train.txt" in llama
    # built portable, from its own wheel folder, never pip's native build
    assert "-DGGML_NATIVE=OFF" in llama and "-DGGML_AMX_INT8=OFF" in llama
    assert "--only-binary llama-cpp-python" in llama


def test_ci_checks_the_dependency_floors_with_uv_lowest_direct() -> None:
    script = (ROOT / "scripts" / "lowest_direct.sh").read_text(encoding="utf-8")
    assert "--resolution lowest-direct" in script and ".venv-lowest" in script
    assert "bash scripts/lowest_direct.sh" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    ignored = (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert ".venv-lowest/" in ignored and "/*.png" in ignored


def test_sources_use_no_private_typer_or_click_module() -> None:
    private = re.compile(r"\b(typer|click)\._\w+|from (typer|click)\._|import (typer|click)\._")
    offenders = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in (ROOT / "src").rglob("*.py")
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if private.search(line)
    ]
    assert offenders == []


def test_report_template_is_package_data_rendered_with_autoescape() -> None:
    from ramseygadgets.report import html

    template = files("ramseygadgets").joinpath("templates", html.TEMPLATE_NAME)
    assert template.is_file() and "templates/*" in PACKAGE_DATA
    assert "<!DOCTYPE html>" in template.read_text(encoding="utf-8")
    assert "<!DOCTYPE" not in Path(html.__file__).read_text(encoding="utf-8")
    page = html.render_html(
        title="<script>alert(1)</script>",
        tables=[],
        figures=[],
        problems=[],
        definitions=["a < b & c"],
        warnings=[],
        sources=[],
        resamples=0,
        seed=0,
    )
    assert page.startswith("<!DOCTYPE html>")
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "a &lt; b &amp; c" in page
    assert "<style>" in page and "table.sortable" in page  # the style sheet is inline
    assert 'src="http' not in page and 'href="http' not in page  # self-contained
