#!/usr/bin/env bash
# Set up ramseygadgets on a fresh Debian machine: system packages (nauty's geng, Chromium for the
# HTML-report test, g++ for llama.cpp, bubblewrap for the python setting's sandbox), a virtual
# environment in .venv, the package with its test extras, and a portable llama.cpp with SmolLM2.
set -euo pipefail
cd "$(dirname "$0")/.."

# One line per step with the time since the start: setup [  0:42] installing ...
SETUP_START=$SECONDS
elapsed() { local s=$((SECONDS - SETUP_START)); printf '%3d:%02d' $((s / 60)) $((s % 60)); }
step() { echo "setup [$(elapsed)] $*"; }

# pip with its progress visible: the lines that say what it is doing (Collecting / Building /
# Installing / Successfully ...), each with the elapsed time, so a 20-minute llama.cpp build shows
# that it is building; the whole output goes to .venv/pip.log and its tail is shown on failure.
PIP_LOG=${PIP_LOG:-.venv/pip.log}
pip_progress() {
  local rc
  set +e
  .venv/bin/python -m pip "$@" --progress-bar off 2>&1 | tee "$PIP_LOG" \
    | grep --line-buffered -E '^ *(Collecting|Building|Installing|Successfully|Created wheel|ERROR)' \
    | while IFS= read -r line; do echo "setup [$(elapsed)]   ${line#"${line%%[![:space:]]*}"}"; done
  rc=${PIPESTATUS[0]}
  set -e
  if [ "$rc" -ne 0 ]; then
    echo "setup: pip failed (exit $rc); the end of $PIP_LOG:" >&2
    tail -n 40 "$PIP_LOG" >&2
    exit "$rc"
  fi
}

need_apt=()
{ command -v geng || command -v nauty-geng; } >/dev/null 2>&1 || need_apt+=(nauty)  # Debian names it nauty-geng
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
command -v g++ >/dev/null 2>&1 || need_apt+=(g++)  # llama-cpp-python compiles llama.cpp
command -v bwrap >/dev/null 2>&1 || need_apt+=(bubblewrap)  # the sandbox of the python setting
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    step "installing ${need_apt[*]} (apt-get)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >/dev/null
    apt-get install -y -q --no-install-recommends "${need_apt[@]}" >/dev/null
  else
    echo "setup: please install ${need_apt[*]} (Debian packages); tests that need them will be skipped" >&2
  fi
fi

PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  step "creating the virtual environment .venv"
  "$PYTHON" -m venv .venv
fi
step "upgrading pip, setuptools and wheel"
.venv/bin/python -m pip install -q --upgrade pip setuptools wheel

# Training integrations and a real small model (docs/training.md): the CPU torch wheel first and
# pinned (nothing may pull a CUDA build), then the package with TRL / transformers / verifiers /
# reasoning-gym at the tested versions (constraints/train.txt), then the test infrastructure:
# llama.cpp's OpenAI-compatible server built portable and SmolLM2-135M-Instruct's GGUF
# (scripts/install_llama.sh, which ends with one chat request to the built server).
step "installing the CPU build of torch (constraints/train.txt)"
pip_progress install -c constraints/train.txt torch
step "installing ramseygadgets with its test, lint, integration and training extras (-c constraints/train.txt)"
pip_progress install -c constraints/train.txt -e '.[test,lint,inspect,lm-eval,ray,train]'
SETUP_ELAPSED=$((SECONDS - SETUP_START)) bash scripts/install_llama.sh
step "done (.venv/bin/ramseygadgets)"
