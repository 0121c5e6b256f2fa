"""The llama.cpp that scripts/install_llama.sh installs is portable: built without the
instructions and extra buffer types that fault on other CPUs (AMX ones, also inside VMs).

A native build on an AMX host reports ``AMX_INT8 = 1`` and ``REPACK = 1`` and holds AMX tile and
AVX-512 instructions; the portable one has none of them, so it cannot fault that way anywhere.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

#: Compiled-in features that only some x86 CPUs run (llama_print_system_info's names).
NOT_PORTABLE = (
    "AVX512",
    "AVX512_VBMI",
    "AVX512_VNNI",
    "AVX512_BF16",
    "AVX_VNNI",
    "AMX_INT8",
    "REPACK",
)
#: AMX tile instructions and AVX-512's registers in a disassembly.
NOT_PORTABLE_CODE = re.compile(r"\b(ldtilecfg|tileloadd\w*|tdpb\w+|tilezero|tilestored)\b|%zmm\d")


@pytest.fixture(scope="module")
def llama_lib(require_real_model: Any) -> Path:
    require_real_model(importlib.util.find_spec("llama_cpp") is not None, "llama-cpp-python")
    spec = importlib.util.find_spec("llama_cpp")
    assert spec is not None and spec.origin is not None
    return Path(spec.origin).parent / "lib"


def test_no_cpu_specific_features_are_compiled_in(llama_lib: Path) -> None:
    import llama_cpp

    info = llama_cpp.llama_print_system_info().decode()
    features = dict(re.findall(r"(\w+) = (\d)", info))
    assert features, info
    enabled = [name for name in NOT_PORTABLE if features.get(name) == "1"]
    assert not enabled, f"not portable: {enabled} in {info!r}"


def test_no_amx_or_avx512_instructions_in_the_cpu_backend(llama_lib: Path) -> None:
    objdump = shutil.which("objdump")
    if objdump is None:
        pytest.skip("objdump (binutils) is not installed")
    library = llama_lib / "libggml-cpu.so"  # the wheel holds copies, not symlinks
    disassembly = subprocess.run(
        [objdump, "-d", "--no-show-raw-insn", str(library)],
        capture_output=True, text=True, check=True, timeout=120,
    ).stdout  # fmt: skip
    assert "xmm" in disassembly  # the disassembly is real (SSE at least)
    found = sorted({m.group(0) for m in NOT_PORTABLE_CODE.finditer(disassembly)})
    assert not found, f"{library.name} holds non-portable instructions: {found[:10]}"
