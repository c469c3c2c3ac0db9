"""The benchmark scripts still run (a tiny N; their timings are read by people, never asserted)."""

import subprocess
import sys

from conftest import ROOT


def test_collect_overhead_benchmark_runs():
    out = subprocess.run([sys.executable, "benchmarks/collect_overhead.py", "20"], cwd=ROOT, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert len([line for line in out.stdout.splitlines() if "calls/s" in line]) == 6


def test_grading_speed_benchmark_runs_and_both_sides_agree():
    out = subprocess.run([sys.executable, "benchmarks/grading_speed.py", "4"], cwd=ROOT, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().endswith("both sides agree")
