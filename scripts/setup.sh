#!/usr/bin/env bash
# Set up ramseygadgets on a fresh Debian machine: system packages (nauty's geng, Chromium for the
# HTML-report test), a virtual environment in .venv, and the package with its test extras.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
{ command -v geng || command -v nauty-geng; } >/dev/null 2>&1 || need_apt+=(nauty)  # Debian names it nauty-geng
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing ${need_apt[*]} (apt-get)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >/dev/null
    apt-get install -y -q --no-install-recommends "${need_apt[@]}" >/dev/null
  else
    echo "setup: please install ${need_apt[*]} (Debian packages); tests that need them will be skipped" >&2
  fi
fi

PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating the virtual environment .venv"
  "$PYTHON" -m venv .venv
fi
echo "setup: upgrading pip, setuptools and wheel"
.venv/bin/python -m pip install -q --upgrade pip setuptools wheel
echo "setup: installing ramseygadgets with its test extras (about 2 minutes)"
.venv/bin/python -m pip install -q -e '.[test,lint,inspect,lm-eval,ray]'  # ray: ~8 s, for the scale-out tests
echo "setup: done (.venv/bin/ramseygadgets)"
