"""The test suite on one pytest-xdist worker per core against one per core and one more (what ``make test`` runs),
side by side in one run: wall seconds and how busy the machine's cores were.

    .venv/bin/python benchmarks/suite_workers.py [MARKEXPR] [TESTS...]

MARKEXPR (default ``not slow and not browser``: the loop of ``make test-fast``; ``all``: every test, ~25 min on 2
cores, as ``make test`` without its set-up) selects the tests; TESTS (default ``tests``) the files. Each way runs
``pytest -q -n N`` once, one after the other, while ``/proc/stat`` is read: busy % is the share of the cores' time
not idle over the run. A suite that waits (servers, signals, browsers) leaves cores idle that the extra worker takes.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time


def busy_jiffies() -> tuple[int, int]:
    """(busy, total) jiffies of every core since boot (``/proc/stat``'s first line)."""
    with open("/proc/stat", encoding="ascii") as fh:
        values = [int(v) for v in fh.readline().split()[1:9]]
    idle = values[3] + values[4]  # idle and iowait
    return sum(values) - idle, sum(values)


def run(workers: int, marks: str, tests: list[str]) -> tuple[float, float, str]:
    """(wall s, busy %, pytest's summary line) of the selected tests on ``workers`` workers."""
    select = [] if marks == "all" else ["-m", marks]
    busy0, total0 = busy_jiffies()
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", str(workers), *select,
                          *tests], capture_output=True, text=True, timeout=7200)
    wall = time.perf_counter() - start
    busy1, total1 = busy_jiffies()
    lines = [line for line in out.stdout.splitlines() if " in " in line and ("passed" in line or "failed" in line)]
    if out.returncode != 0:
        raise SystemExit(out.stdout[-3000:] + out.stderr[-2000:])
    return wall, 100 * (busy1 - busy0) / max(total1 - total0, 1), lines[-1] if lines else ""


def main(marks: str, tests: list[str]) -> None:
    cores = os.cpu_count() or 1
    print(f"{'all tests' if marks == 'all' else marks} ({' '.join(tests)}): {cores} cores")
    print(f"{'workers':<26} {'wall s':>8} {'busy %':>8}   pytest")
    results = {}
    for workers, label in ((cores, f"{cores} (one per core)"), (cores + 1, f"{cores + 1} (one per core and one)")):
        wall, busy, summary = run(workers, marks, tests)
        results[workers] = wall
        print(f"{label:<26} {wall:>8.1f} {busy:>8.1f}   {summary}")
    print(f"one more worker: wall x{results[cores + 1] / results[cores]:.2f}")


if __name__ == "__main__":
    args = sys.argv[1:]
    main(args[0] if args else "not slow and not browser", args[1:] or ["tests"])
