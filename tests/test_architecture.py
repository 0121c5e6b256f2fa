"""docs/architecture.md matches the code: every module is named once, in a layer; no module
imports a module of a higher layer (imports inside functions count; ``cli`` is the top), a
package's own submodules included; each folder is one layer; and importing a module of layers
1–8 loads nothing of a higher layer."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "ramseygadgets"
PAGE = ROOT / "docs" / "architecture.md"


def module_name(path: Path) -> str:
    """``verify``, ``answers.parse``, ``answers`` (a package), ``ramseygadgets`` (the root)."""
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts) or "ramseygadgets"


def code_modules() -> dict[str, Path]:
    files = [p for p in PACKAGE.rglob("*.py") if "data" not in p.relative_to(PACKAGE).parts]
    return {module_name(p): p for p in files}


def page_layers() -> dict[str, int]:
    """Module → layer number, from the page's ``### N. Title`` headings and ``- `module`: …``."""
    layers: dict[str, int] = {}
    layer = None
    for line in PAGE.read_text().splitlines():
        heading = re.match(r"### (\d+)\. ", line)
        if heading:
            layer = int(heading.group(1))
            continue
        item = re.match(r"- `([\w.]+)`: ", line)
        if item and layer is not None:
            assert item.group(1) not in layers, f"{item.group(1)} is named twice"
            layers[item.group(1)] = layer
    return layers


def deprecated_paths() -> dict[str, str]:
    """Old module → new module, from the page's "Deprecated import paths" list."""
    text = PAGE.read_text().split("## Deprecated import paths", 1)[1].split("\n## ", 1)[0]
    return dict(re.findall(r"^- `([\w.]+)` → `([\w.]+)`", text, re.M))


def imported(tree: ast.AST, modules: dict[str, Path]) -> set[str]:
    """The package's own modules a module imports, anywhere (``TYPE_CHECKING`` blocks excluded)."""
    found: set[str] = set()
    checking = {
        id(n)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for n in ast.walk(node)
    }
    for node in ast.walk(tree):
        if id(node) in checking:
            continue
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == "ramseygadgets":
                found.update(a.name if a.name in modules else "ramseygadgets" for a in node.names)
            elif node.module.startswith("ramseygadgets."):
                base = node.module.removeprefix("ramseygadgets.")
                for alias in node.names:
                    full = f"{base}.{alias.name}"
                    found.add(full if full in modules else base)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("ramseygadgets."):
                    found.add(alias.name.removeprefix("ramseygadgets."))
    return found


def test_the_page_names_every_module_and_no_other() -> None:
    code, page = set(code_modules()) - set(deprecated_paths()), set(page_layers())
    assert not code - page, f"modules the page does not name: {sorted(code - page)}"
    assert not page - code, f"the page names modules that do not exist: {sorted(page - code)}"


def test_layers_import_one_way() -> None:
    modules, layers = code_modules(), page_layers()
    upward = []
    for name, path in modules.items():
        if name == "ramseygadgets" or name in deprecated_paths():  # the facade; old paths
            continue
        for target in imported(ast.parse(path.read_text()), modules):
            if target in layers and layers[target] > layers[name]:
                upward.append(f"{name} (layer {layers[name]}) imports {target} ({layers[target]})")
    assert not upward, "\n".join(upward)


def test_the_check_sees_an_upward_import() -> None:
    """The layer check is not vacuous: an import of the harness from ``verification.verifier`` is caught."""
    tree = ast.parse("def f():\n    from ramseygadgets.harness.runner import run_eval\n")
    modules = code_modules()
    assert imported(tree, modules) == {"harness.runner"}
    assert page_layers()["harness.runner"] > page_layers()["verification.verifier"]


def test_the_check_sees_a_package_import_its_own_upper_submodule() -> None:
    """No exemption for a package's own submodules: ``atlas`` (the package) importing
    ``atlas.run`` counts like any other import."""
    tree = ast.parse("from ramseygadgets.atlas.run import run_atlas\n")
    assert imported(tree, code_modules()) == {"atlas.run"}


def test_each_folder_is_one_layer() -> None:
    layers, old = page_layers(), deprecated_paths()
    by_folder: dict[str, set[int]] = {}
    for name in code_modules():
        if "." in name and name not in old:
            by_folder.setdefault(name.split(".")[0], set()).add(layers[name])
        elif name in by_folder or (PACKAGE / name).is_dir():
            by_folder.setdefault(name, set()).add(layers[name])
    mixed = {folder: sorted(found) for folder, found in by_folder.items() if len(found) > 1}
    assert not mixed, f"folders spanning layers: {mixed}"
    assert old and all(new in layers for new in old.values())


#: Run in a fresh interpreter: for each module named on stdin, fork, import it, and report the
#: package's modules that came with it (beyond those the parent loaded: the facade's).
_LOADS = """
import json, os, sys
import ramseygadgets
loaded_by_root = list(sys.modules)
names = sys.stdin.read().split()
# Import once, in the parent, every outside package these modules load (numba alone takes
# 0.4 s): each fork below then pays only for the package's own modules, which is what it reports.
read, write = os.pipe()
if os.fork() == 0:
    os.close(read)
    for name in names:
        __import__("ramseygadgets." + name)
    outside = {m.split(".")[0] for m in sys.modules if not m.startswith("ramseygadgets")}
    os.write(write, json.dumps(sorted(outside)).encode())
    os._exit(0)
os.close(write)
with os.fdopen(read) as pipe:
    for package in json.loads(pipe.read() or "[]"):
        try:
            __import__(package)
        except Exception:
            pass
os.wait()
base = set(sys.modules)
ours = {m for m in base if m.startswith("ramseygadgets.")}
assert ours <= set(loaded_by_root), f"an outside package loaded {sorted(ours - set(loaded_by_root))}"
for name in names:
    read, write = os.pipe()
    if os.fork() == 0:
        os.close(read)
        __import__("ramseygadgets." + name if name != "ramseygadgets" else name)
        new = [m for m in sys.modules if m.startswith("ramseygadgets.") and m not in base]
        os.write(write, json.dumps(new).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        print(json.dumps([name, json.loads(pipe.read() or "[]")]))
    os.wait()
"""


def test_lower_layers_load_nothing_above_them() -> None:
    """What an import really loads (the static check above cannot see ``__init__`` chains)."""
    layers = page_layers()
    names = [n for n, layer in layers.items() if layer <= 8 and n != "ramseygadgets"]
    out = subprocess.run(
        [sys.executable, "-c", _LOADS],
        input=" ".join(names),
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    ).stdout
    loaded = dict(json.loads(line) for line in out.splitlines())
    assert set(loaded) == set(names)
    upward = [
        f"{name} (layer {layers[name]}) loads {module} ({layers[short]})"
        for name, modules in loaded.items()
        for module in modules
        if (short := module.removeprefix("ramseygadgets.")) in layers
        and layers[short] > layers[name]
    ]
    assert not upward, "\n".join(upward)


def test_the_root_holds_the_facade_and_aliases_only() -> None:
    """Every module of the package root but ``__init__`` and ``__main__`` is a deprecated path."""
    root = {p.stem for p in PACKAGE.glob("*.py")} - {"__init__", "__main__"}
    assert root and not root - set(deprecated_paths()), sorted(root - set(deprecated_paths()))


def test_tests_mirror_the_package() -> None:
    """A test folder is named for a package of ``src/ramseygadgets`` (or a root module with
    shared fixtures, e.g. ``sandbox``); ``helpers`` holds what several folders share."""
    tests = ROOT / "tests"
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    root_modules = {p.stem for p in PACKAGE.glob("*.py")}
    folders = {p.name for p in tests.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))}
    strays = folders - packages - root_modules - {"helpers"}
    assert not strays, f"test folders that name no package or module: {sorted(strays)}"


def test_a_reward_loads_no_backend() -> None:
    """Grading lives in ``runs.grading``: the training reward (run in every GRPO worker) loads
    neither the harness nor ``openai``."""
    code = (
        "import sys, ramseygadgets.training.rewards\n"
        "print(' '.join(m for m in sys.modules if m == 'openai' or m.startswith('ramseygadgets.harness')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    ).stdout
    assert out.strip() == ""


# -- deprecated import paths: each still works for one release, with a warning -----------------

_PROBE = """
import importlib, json, sys, warnings
old, new = sys.argv[1:]
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    module = importlib.import_module("ramseygadgets." + old)
target = importlib.import_module("ramseygadgets." + new)
print(json.dumps({
    "warnings": [str(w.message) for w in caught if w.category is DeprecationWarning],
    "same": all(getattr(module, name) is getattr(target, name) for name in target.__all__),
}))
"""


@pytest.mark.parametrize(("old", "new"), sorted(deprecated_paths().items()))
def test_an_old_path_warns_and_gives_the_new_names(old: str, new: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, old, new],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert any(f"ramseygadgets.{new}" in message for message in found["warnings"]), found
    assert found["same"]


def test_the_verify_function_survives_the_old_module_path() -> None:
    """``import ramseygadgets.verify`` puts the old module in the function's place on the
    package; the module answers calls like the function."""
    code = (
        "import warnings; warnings.simplefilter('ignore')\n"
        "import ramseygadgets, ramseygadgets.verify\n"
        "from ramseygadgets.core.gadgets import Candidate, Designated\n"
        "from ramseygadgets.core.graphs import Graph\n"
        "p = ramseygadgets.get_problem('p3_k3_red_determiner')\n"
        "g = Graph(5, ((0,1),(0,2),(0,3),(0,4),(1,2),(1,3),(1,4)))\n"
        "print(ramseygadgets.verify(p, Candidate(g, Designated(edges=((0, 1),)))).correct)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.strip() == "True"
