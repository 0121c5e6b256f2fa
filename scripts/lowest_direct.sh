#!/usr/bin/env bash
# CI: the declared dependency floors are true floors. Installs ramseygadgets[test] with uv's
# --resolution lowest-direct (every direct dependency at the lowest version pyproject.toml allows)
# into .venv-lowest and runs a core set of test modules (~2 min on 2 cores). A failure here means
# a floor in pyproject.toml is too low: raise it to the first release that passes.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
PYTHON=${PYTHON:-python3}
if [ ! -x .venv-lowest/bin/uv ]; then
  rm -rf .venv-lowest
  "$PYTHON" -m venv .venv-lowest
  .venv-lowest/bin/python -m pip install -q uv  # uv itself from PyPI
fi
# --compile-bytecode and compileall: no process compiles them again (scripts/setup.sh says why)
.venv-lowest/bin/uv pip install -q --python .venv-lowest/bin/python --resolution lowest-direct \
  --compile-bytecode --reinstall-package ramseygadgets -e '.[test]'
.venv-lowest/bin/python -m compileall -q -j 0 src
echo "lowest-direct: $(.venv-lowest/bin/python -c 'import importlib.metadata as m; print(" ".join(f"{p}=={m.version(p)}" for p in ("typer", "rich", "openai", "httpx2", "python-sat", "pynauty", "networkx", "pydantic", "numpy", "numba", "jinja2", "markupsafe")))')"
CORE_TESTS=(
  tests/test_architecture.py
  tests/infra
  tests/problems/test_catalog_gadgets.py
  tests/test_docstring_examples.py
  tests/core
  tests/test_packaging.py
  tests/verification
  tests/cli
  tests/colorings
  tests/answers/test_answers.py
  tests/search/test_finder.py
  tests/harness/test_openai_backend.py
  tests/harness/test_eval_openai.py
  tests/report/test_cli.py
  tests/report/test_html_report.py
)
.venv-lowest/bin/python -m pytest -q -p no:cacheprovider -n "${LOWEST_WORKERS:-2}" -W ignore::DeprecationWarning "${CORE_TESTS[@]}"
echo "lowest-direct: done in $((SECONDS - start)) s"
