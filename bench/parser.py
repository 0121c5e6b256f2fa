"""Answer-parser speed on realistic replies and on 100 kB of adversarial junk.

    .venv/bin/python bench/parser.py [--repeat 7] [--json]

For each input the best of ``repeat`` runs of :func:`ramseygadgets.answers.parse_answer` is
reported in milliseconds and as a ratio to a baseline run in the same process: one pass of the
C regex engine over the same text (``re.findall(r"[\\d{}]", text)``), the cheapest scan any
parser must do.  A 4x longer input checks linear scaling (ratio ≈ 4, quadratic would be 16).
Target: ≤ 50 ms per 100 kB on an idle core.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import string
import timeit
from pathlib import Path

from ramseygadgets.answers import parse_answer
from ramseygadgets.core.gadgets import GadgetType

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "answers" / "corpus"


def inputs() -> dict[str, str]:
    rng = random.Random(0)
    long_reply = (CORPUS / "58_long_reasoning_qwen.txt").read_text(encoding="utf-8")
    return {
        "realistic long reply (8 kB)": long_reply,
        "realistic reply x12 (100 kB)": long_reply * 12,
        "random printable": "".join(rng.choice(string.printable) for _ in range(100_000)),
        "random answer symbols": "".join(
            rng.choice("{}[](),:-0123456789 \n\"e'\\`$") for _ in range(100_000)
        ),
        "unclosed braces": "{" * 100_000,
        "nested \\boxed{": "\\boxed{" * 14_000,
        "dashes": "-" * 100_000,
        "code fences": "```\n" * 25_000,
        "labels 'E = ('": "E = (" * 20_000,
        "20k-pair edge list": "Edges: " + "0-1, " * 20_000,
        "truncated JSON answer": '{"edges": [' + "[0, 1], " * 12_000,
    }


def best_ms(func, repeat: int) -> float:
    return min(timeit.repeat(func, number=1, repeat=repeat)) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    scan = re.compile(r"[\d{}]")
    rows = []
    for name, text in inputs().items():
        parse = best_ms(lambda: parse_answer(text, GadgetType.RED_DETERMINER), args.repeat)
        base = best_ms(lambda: scan.findall(text), args.repeat)
        bigger = text * 4
        parse4 = best_ms(
            lambda: parse_answer(bigger, GadgetType.RED_DETERMINER), max(3, args.repeat // 2)
        )
        rows.append(
            {
                "input": name,
                "kB": round(len(text) / 1000, 1),
                "parse_ms": round(parse, 2),
                "baseline_ms": round(base, 2),
                "ratio": round(parse / max(base, 1e-6), 1),
                "x4_scaling": round(parse4 / max(parse, 1e-6), 1),
            }
        )
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print(f"{'input':32} {'kB':>6} {'parse ms':>9} {'scan ms':>8} {'ratio':>6} {'x4 input':>9}")
    for r in rows:
        print(
            f"{r['input']:32} {r['kB']:>6} {r['parse_ms']:>9} {r['baseline_ms']:>8} {r['ratio']:>6} "
            f"{r['x4_scaling']:>9}"
        )


if __name__ == "__main__":
    main()
