"""OpenBLAS threads on the analyses' small linear algebra: CPU and wall time with one thread against one per core.

    .venv/bin/python benchmarks/blas_threads.py [FITS]     # default 40

The model-based frontier's fit (``frontier_model.fit_task``: L-BFGS-B with analytic gradients, then the Laplace
covariance) of FITS made-up datasets of the `sim` set's shape (128 problems x 20 strategies x 8 runs), run in a fresh
process with ``OPENBLAS_NUM_THREADS=1`` (what the CLI, the Makefile and the tests set) and with one thread per core
(OpenBLAS's own default), one after the other. Printed: wall and CPU seconds of the fits in each (the child's
own ``getrusage``, imports left out), their ratios, and whether the fits agree. Runs offline; needs no benchmark data.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHILD = """
import json, resource, sys, time
import numpy as np
from helpers.analyze.frontier_model import fit_task

def cpu():
    use = resource.getrusage(resource.RUSAGE_SELF)
    return use.ru_utime + use.ru_stime


rng = np.random.default_rng(0)
fits, start, cpu0 = [], time.perf_counter(), cpu()
for i in range(int(sys.argv[1])):
    skill, difficulty = rng.normal(0, 1.5, 20), rng.normal(0, 1.5, (128, 1))
    n = np.full((128, 20), 8)
    k = rng.binomial(n, 1 / (1 + np.exp(difficulty - skill)))
    fits.append(fit_task(k, n).a.round(4).tolist())
print(json.dumps({"wall": time.perf_counter() - start, "cpu": cpu() - cpu0, "fits": fits}))
"""


def run(threads: int, fits: int) -> dict:
    """The child's measurement with ``threads`` OpenBLAS threads."""
    env = {**os.environ, "OPENBLAS_NUM_THREADS": str(threads)}
    out = subprocess.run([sys.executable, "-c", CHILD, str(fits)], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=3600, check=True)
    return json.loads(out.stdout)


def main() -> None:
    fits = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    cores = os.cpu_count() or 1
    started = time.perf_counter()
    one, many = run(1, fits), run(cores, fits)
    print(f"{fits} model-based fits (128 problems x 20 strategies x 8 runs), each setting in a fresh process")
    for label, r in ((f"{cores} OpenBLAS threads (its default)", many), ("1 OpenBLAS thread", one)):
        print(f"{label:<34} wall {r['wall']:7.2f} s   CPU {r['cpu']:7.2f} s")
    print(f"one thread: {many['cpu'] / one['cpu']:.1f}x less CPU, {many['wall'] / one['wall']:.1f}x less wall time; "
          f"fits identical: {'yes' if one['fits'] == many['fits'] else 'no'}")
    print(f"total {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
