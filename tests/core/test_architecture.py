"""docs/architecture.md matches the code: every module is named once, in a layer, and no module
imports a module of a higher layer (imports inside functions count; ``cli`` is the top)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
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
    code, page = set(code_modules()), set(page_layers())
    assert not code - page, f"modules the page does not name: {sorted(code - page)}"
    assert not page - code, f"the page names modules that do not exist: {sorted(page - code)}"


def test_layers_import_one_way() -> None:
    modules, layers = code_modules(), page_layers()
    upward = []
    for name, path in modules.items():
        if name == "ramseygadgets":  # the facade re-exports from below; every module loads it
            continue
        for target in imported(ast.parse(path.read_text()), modules):
            if target.startswith(name + "."):  # a package's own submodules
                continue
            if target in layers and layers[target] > layers[name]:
                upward.append(f"{name} (layer {layers[name]}) imports {target} ({layers[target]})")
    assert not upward, "\n".join(upward)


def test_the_check_sees_an_upward_import() -> None:
    """The layer check is not vacuous: an import of the harness from ``verify`` is caught."""
    tree = ast.parse("def f():\n    from ramseygadgets.harness.runner import run_eval\n")
    modules = code_modules()
    assert imported(tree, modules) == {"harness.runner"}
    assert page_layers()["harness.runner"] > page_layers()["verify"]
