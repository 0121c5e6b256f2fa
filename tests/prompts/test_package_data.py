"""Templates and built-in profiles ship as package data (checked on a real, non-editable wheel)."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from ramseygadgets.prompts import builder

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = sorted(p.name for p in (Path(builder.__file__).parent / "templates").iterdir())


def test_templates_are_loaded_through_the_package_loader():
    env = builder._environment()
    assert sorted(env.list_templates()) == TEMPLATES


def _can_build_wheels_offline() -> bool:
    import importlib.util

    import setuptools

    major, minor = (int(x) for x in setuptools.__version__.split(".")[:2])
    return importlib.util.find_spec("wheel") is not None or (major, minor) >= (70, 1)


@pytest.mark.slow
@pytest.mark.skipif(
    not _can_build_wheels_offline(),
    reason="needs the 'wheel' package (or setuptools >= 70.1) "
    "to build a wheel without network access",
)
def test_wheel_contains_templates_and_works_when_installed(tmp_path):
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
            str(ROOT),
        ],
        check=True,
    )
    wheel = next(tmp_path.glob("ramseygadgets-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    for name in TEMPLATES:
        assert f"ramseygadgets/prompts/templates/{name}" in names
    assert "ramseygadgets/data/profiles.toml" in names
    target = tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "-q",
            "--target",
            str(target),
            str(wheel),
        ],
        check=True,
    )
    code = (
        "import ramseygadgets.prompts as p, ramseygadgets.prompts.profiles as f; assert 'site' in p.__file__; "
        "print(len(p.build_prompt('k13_k4_clause_gadget', 'multiround', 'deepseek-r1').messages[0]['content']))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env={"PYTHONPATH": str(target)},
        capture_output=True,
        text=True,
        check=True,
    )
    assert int(out.stdout) > 1000
