#!/usr/bin/env python3
"""Checks that llmmetrics' report agrees with a numpy pipeline's figures on the same file.

  same_figures.py LLMMETRICS.json NUMPY.json

For each distribution the numpy pipeline printed (TTFT, TPOT, E2E and, from JSONL, ITL), n must be equal and every
other figure within 1 ns: llmmetrics works in whole nanoseconds (a request's TPOT is rounded to one), numpy in
float milliseconds. Exits 1 on any difference.
"""
import json
import sys

ours, theirs = (json.load(open(p)) for p in sys.argv[1:3])
bad = 0
for name, want in theirs.items():
    got = ours.get(name)
    if got is None:
        print(f"{name}: missing from llmmetrics' report")
        bad += 1
        continue
    for key, w in want.items():
        g = got.get(key)
        ok = g == w if key == "n" else g is not None and abs(g - w) <= 1e-6 + 1e-12 * abs(w)
        if not ok:
            print(f"{name}.{key}: llmmetrics {g}, numpy {w}")
            bad += 1
print("figures: same as numpy's" if bad == 0 else f"figures: {bad} differ")
sys.exit(1 if bad else 0)
