"""The test suite with each pytest-xdist worker's collected objects frozen out of Python's garbage collector after
collection (``tests/conftest.py``: ``gc.freeze``, what ``make test`` runs) against the same left in its sight
(``COP_TEST_GC_FREEZE=0``), side by side in one run: wall seconds and the CPU seconds of pytest and its workers.

    .venv/bin/python benchmarks/suite_gc.py [MARKEXPR] [TESTS...]

MARKEXPR (default ``not slow and not browser``: the loop of ``make test-fast``; ``all``: every test) selects the
tests; TESTS (default ``tests``) the files. Each way runs ``pytest -q -n <cores + 1>`` once, one after the other.
Every generation-2 collection walks every object a worker holds (pandas, scipy, matplotlib and the tests' modules);
frozen, it walks only what the tests made.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time


def run(freeze: bool, marks: str, tests: list[str]) -> tuple[float, float, str]:
    """(wall s, CPU s of pytest and every process it waited for, pytest's summary line) of one way."""
    select = [] if marks == "all" else ["-m", marks]
    env = {**os.environ, "COP_TEST_GC_FREEZE": "1" if freeze else "0"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n",
                          str((os.cpu_count() or 1) + 1), *select, *tests], capture_output=True, text=True,
                         timeout=7200, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        raise SystemExit(out.stdout[-3000:] + out.stderr[-2000:])
    lines = [line for line in out.stdout.splitlines() if " in " in line and ("passed" in line or "failed" in line)]
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return wall, cpu, lines[-1] if lines else ""


def main(marks: str, tests: list[str]) -> None:
    print(f"{'all tests' if marks == 'all' else marks} ({' '.join(tests)}): {os.cpu_count()} cores, "
          f"{(os.cpu_count() or 1) + 1} workers")
    print(f"{'garbage collector':<28} {'wall s':>8} {'CPU s':>8}   pytest")
    seen = {}
    for freeze, label in ((False, "objects left to the collector"), (True, "collected objects frozen")):
        wall, cpu, summary = run(freeze, marks, tests)
        seen[freeze] = (wall, cpu)
        print(f"{label:<28} {wall:>8.1f} {cpu:>8.1f}   {summary}")
    print(f"frozen / left: wall x{seen[True][0] / seen[False][0]:.2f}, CPU x{seen[True][1] / seen[False][1]:.2f}")


if __name__ == "__main__":
    args = sys.argv[1:]
    main(args[0] if args else "not slow and not browser", args[1:] or ["tests"])
