"""Time numpy.percentile on the pooled arrays written by bench/pooled.

This is the computation a Python user runs on the same run: the default
percentiles of TTFT, TPOT, E2E and the pooled inter-token gaps, each with
numpy's default method. Loading the files is not timed.

    python3 bench/numpy_percentiles.py DIR
"""
import sys
import time

import numpy as np

d = sys.argv[1]
arrays = {name: np.fromfile(f"{d}/{name}.f64", dtype="<f8") for name in ("ttft", "tpot", "e2e", "itl")}
best = float("inf")
for _ in range(3):
    t0 = time.perf_counter()
    for a in arrays.values():
        np.percentile(a, [50, 90, 95, 99])
    best = min(best, time.perf_counter() - t0)
sizes = ", ".join(f"{k} {len(v):,}" for k, v in arrays.items())
print(f"numpy {np.__version__} percentile over {sizes}: best of 3 = {best:.3f} s")
