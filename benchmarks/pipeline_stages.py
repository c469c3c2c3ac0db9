"""A parameter set cold (each stage's kernel started when the stage starts, and warm), then with nothing changed,
per stage, side by side in one run.

    .venv/bin/python benchmarks/pipeline_stages.py [params/sim.yaml] [--warm-only]

Runs ``cost-of-pass run`` on two copies of the set whose output goes to temporary directories: cold (collection
through report) with ``COP_COLD_KERNELS=1`` (every stage starts its own kernel and imports its modules when it
starts, as before warm kernels), cold with the default (the next stage's kernel started and its imports done while a
stage runs: ``helpers.core.kernels``), then the second again with nothing changed (every stage should be skipped).
It prints each stage's time in the three, the totals (wall time of the whole command, start-up and preflight
included) and their ratios. ``--warm-only`` leaves out the first (the tests run it so, on a small set). The
issue's figures from before this work are printed beside them for the sim set (issue 8: cold 12.8 min, no-op
159 s, on the same kind of machine), with issues 24 and 35's targets (stages 01-06 and the report <= 75 s cold,
07_validity <= 90 s).
Needs the set's data (COP_DATA_DIR) and nothing else; simulated sets make no paid call, and the
local set starts from its committed records (as ``make all`` on a clean clone does).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

os.environ.setdefault("COP_WRITE_ANYWHERE", "1")  # a benchmark writes its sets under a temporary directory

COMMITTED = {"local"}  # sets whose records are committed (see .gitignore)
BEFORE = {"params/sim.yaml": {"cold": 12.8 * 60, "no-op": 159.0}}  # issue 8, measured before this work
TARGETS = {"params/sim.yaml": (75.0, 90.0)}  # issues 24, 35: stages 01-06 + report, and 07_validity, cold seconds
LINE = re.compile(r"^(ok|skip)\s+(\S+)\s+(?:([\d.]+) s)?")


def run(path: Path, **env: str) -> tuple[float, dict[str, float | None]]:
    """Wall seconds of one ``cost-of-pass run`` and each stage's seconds (None: skipped)."""
    exe = Path(sys.executable).with_name("cost-of-pass")
    start = time.perf_counter()
    out = subprocess.run([str(exe), "run", str(path)], capture_output=True, text=True, timeout=3600,
                         env={**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "HF_HUB_OFFLINE": "1", **env})
    wall = time.perf_counter() - start
    if out.returncode != 0:
        raise SystemExit(out.stderr[-3000:])
    stages = {}
    for line in out.stdout.splitlines():
        if m := LINE.match(line):
            stages[m.group(2)] = float(m.group(3)) if m.group(1) == "ok" else None
    return wall, stages


def copy_of(params: dict, tmp: Path, label: str, stem: str) -> Path:
    """A copy of the set writing under ``tmp/label`` (from the committed records for a set that has them)."""
    copy = tmp / label / f"{stem}.yaml"
    copy.parent.mkdir(parents=True)
    copy.write_text(yaml.safe_dump({**params, "output_dir": str(tmp / label / "out")}, sort_keys=False))
    committed = Path("results") / params["name"] / "records"
    if committed.is_dir() and params["name"] in COMMITTED:
        # a set with committed records (local) starts from them, as on a clean clone: no call is made
        shutil.copytree(committed, tmp / label / "out" / "records", ignore=shutil.ignore_patterns(".snapshot"))
    return copy


def main(set_path: str, warm_only: bool = False) -> None:
    params = yaml.safe_load(Path(set_path).read_text())
    stem = Path(set_path).stem
    with tempfile.TemporaryDirectory() as tmp:
        if params["name"] in COMMITTED and (Path("results") / params["name"] / "records").is_dir():
            print(f"{params['name']}: cold = from its committed records (as on a clean clone)")
        slow_wall, slow = (float("nan"), {}) if warm_only else run(copy_of(params, Path(tmp), "cold-kernels", stem),
                                                                    COP_COLD_KERNELS="1")
        warm_copy = copy_of(params, Path(tmp), "warm-kernels", stem)
        cold_wall, cold = run(warm_copy)
        noop_wall, noop = run(warm_copy)
    print(f"{stem}: {os.cpu_count()} cores; cold with each stage's kernel started when it starts | cold with warm "
          "kernels (the default) | nothing changed")
    print(f"{'stage':<20} {'cold s':>8} {'warm s':>8} {'no-op s':>8}")
    for stage, seconds in cold.items():
        again, before = noop.get(stage), slow.get(stage)
        print(f"{stage:<20} {'-' if before is None else f'{before:.1f}':>8} {seconds:>8.1f} "
              f"{'skipped' if again is None else f'{again:.1f}':>8}")
    saved = sum(slow[s] - cold[s] for s in cold if s in slow and s != "07_validity")
    print(f"{'total (wall)':<20} {slow_wall:>8.1f} {cold_wall:>8.1f} {noop_wall:>8.1f}   "
          f"warm kernels: {slow_wall - cold_wall:.1f} s less cold, {saved:.1f} s of it outside 07_validity (one run "
          f"each: a difference includes run-to-run spread); cold / no-op = {cold_wall / noop_wall:.0f}x")
    if before := BEFORE.get(set_path):
        print(f"{'before (issue 8)':<20} {before['cold']:>8.1f} {'':>8} {before['no-op']:>8.1f}   "
              f"speed-up: cold {before['cold'] / cold_wall:.1f}x, no-op {before['no-op'] / noop_wall:.0f}x")
    if target := TARGETS.get(set_path):
        analysis = sum(seconds or 0.0 for stage, seconds in cold.items() if stage != "07_validity")
        validity = cold.get("07_validity") or 0.0
        print(f"issues 24, 35: stages 01-06 + report {analysis:.1f} s (target <= {target[0]:.0f} s), "
              f"07_validity {validity:.1f} s (target <= {target[1]:.0f} s)")


if __name__ == "__main__":
    paths = [a for a in sys.argv[1:] if not a.startswith("--")]
    main(paths[0] if paths else "params/sim.yaml", warm_only="--warm-only" in sys.argv)
