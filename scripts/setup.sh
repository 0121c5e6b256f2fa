#!/usr/bin/env bash
# Set up ramseygadgets on a fresh Debian machine.
#
#   bash scripts/setup.sh          the main job: .venv with the package alone (eval, report, verify,
#                                  solve, generate, atlas, export ...), installed with uv; no Debian
#                                  packages, no torch, no llama.cpp (1-2 minutes, docs/performance.md)
#   bash scripts/setup.sh --test   everything the tests use: Debian's nauty (geng), chromium (the
#                                  HTML-report test), g++ (llama.cpp), bubblewrap and libseccomp2
#                                  (the python setting's sandbox) as root; the package with its test,
#                                  lint, integration and training extras; a portable llama.cpp with
#                                  SmolLM2 (scripts/install_llama.sh). 8-20 minutes the first time.
set -euo pipefail
cd "$(dirname "$0")/.."

MODE=main
case "${1:-}" in
  "") ;;
  --test) MODE=test ;;
  -h | --help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "setup: unknown option '$1' (use no option for the main job, --test for the tests)" >&2; exit 2 ;;
esac

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

# The Debian packages the tests need (as root; otherwise the tests that need them are skipped).
install_test_system_packages() {
  local need_apt=()
  { command -v geng || command -v nauty-geng; } >/dev/null 2>&1 || need_apt+=(nauty)  # Debian names it nauty-geng
  command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
  command -v g++ >/dev/null 2>&1 || need_apt+=(g++)  # llama-cpp-python compiles llama.cpp
  command -v bwrap >/dev/null 2>&1 || need_apt+=(bubblewrap)  # the sandbox of the python setting
  ldconfig -p 2>/dev/null | grep -q "libseccomp\.so\.2 " \
    || need_apt+=(libseccomp2)  # the sandbox's system-call filter
  [ ${#need_apt[@]} -gt 0 ] || return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    step "installing ${need_apt[*]} (apt-get)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >/dev/null
    apt-get install -y -q --no-install-recommends "${need_apt[@]}" >/dev/null
  else
    echo "setup: please install ${need_apt[*]} (Debian packages); tests that need them will be skipped" >&2
  fi
}

make_venv() {
  if [ ! -x .venv/bin/python ]; then
    step "creating the virtual environment .venv"
    "${PYTHON:-python3}" -m venv .venv
  fi
}

# Bytecode for the package's own sources: an editable install leaves src/ without it, and where
# PYTHONDONTWRITEBYTECODE is set no process writes it later, so every process (each CLI call, each
# search worker) would compile the package again (bench/bytecode.py); compileall takes under 1 s.
# uv leaves site-packages uncompiled too, but its --compile-bytecode costs the main set-up about
# 17 s, more than the main job's few processes save (docs/performance.md); pip compiles by itself.
compile_sources() {
  step "compiling the package's sources (python -m compileall src)"
  .venv/bin/python -m compileall -q -j 0 src
}

# The main job: the package and its own dependencies, nothing else. uv resolves and installs them
# in about half pip's time (docs/performance.md); if uv cannot be had, pip does it.
setup_main() {
  make_venv
  if [ -z "${RAMSEYGADGETS_NO_UV:-}" ] && { [ -x .venv/bin/uv ] || .venv/bin/python -m pip install -q uv; }; then
    step "installing ramseygadgets (uv pip install -e .)"
    if ! .venv/bin/uv pip install -q --python .venv/bin/python -e .; then
      step "uv failed; installing with pip instead"
      pip_progress install -e .
    fi
  else
    step "installing ramseygadgets (pip install -e .)"
    pip_progress install -e .
  fi
  compile_sources
}

# The tests: Debian packages, the CPU build of torch first and pinned (nothing may pull a CUDA
# build), then the package with TRL / transformers / verifiers / reasoning-gym at the tested
# versions (constraints/train.txt), then the test infrastructure: llama.cpp's OpenAI-compatible
# server built portable and SmolLM2-135M-Instruct's GGUF (scripts/install_llama.sh, which ends
# with one chat request to the built server). pip here, not uv: pip honours the machine's pip
# configuration (indexes, wheel folders) that the CPU torch wheel may come from.
setup_test() {
  install_test_system_packages
  make_venv
  step "upgrading pip, setuptools and wheel"
  .venv/bin/python -m pip install -q --upgrade pip setuptools wheel
  step "installing the CPU build of torch (constraints/train.txt)"
  pip_progress install -c constraints/train.txt torch
  step "installing ramseygadgets with its test, lint, integration and training extras (-c constraints/train.txt)"
  pip_progress install -c constraints/train.txt -e '.[test,lint,inspect,lm-eval,ray,train]'
  compile_sources
  SETUP_ELAPSED=$((SECONDS - SETUP_START)) bash scripts/install_llama.sh
}

# One compound command, read whole before it runs, then exit: a setup.sh edited while it runs
# (a git pull) cannot make the running one read the new file from the middle.
{
  "setup_$MODE"
  step "done (.venv/bin/ramseygadgets)"
  exit 0
}
