"""Stage kernels forked from a zygote that imported the stages' modules once (``helpers.core.zygote``) against warm
kernels each started as its own process (``COP_FORKED_KERNELS=0``) and against forks of a zygote that left its
objects in the collector's sight (``COP_FORKED_KERNELS=unfrozen``: no ``gc.freeze``), side by side in one run: CPU
seconds and wall.

    .venv/bin/python benchmarks/forked_kernels.py [params/tiny.yaml] [rounds]

Each round runs ``cost-of-pass run`` cold on a fresh copy of the set (output under a temporary directory) once each
way, alternating which goes first. CPU seconds are the command's and every process it waited for (its kernels, and
the zygote with the kernels it reaped: ``RUSAGE_CHILDREN``); the tables and figures of the two are compared byte for
byte. Needs the set's data (COP_DATA_DIR) for a set that reads a benchmark; simulated sets make no paid call.
"""

from __future__ import annotations

import filecmp
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

os.environ.setdefault("COP_WRITE_ANYWHERE", "1")  # a benchmark writes its sets under a temporary directory
WAYS = {"own process": {"COP_FORKED_KERNELS": "0"}, "forked unfrozen": {"COP_FORKED_KERNELS": "unfrozen"}, "forked": {}}


def run(params: dict, where: Path, env: dict[str, str]) -> tuple[float, float]:
    """(wall s, CPU s) of one cold ``cost-of-pass run`` of ``params`` writing under ``where``."""
    path = where / "set.yaml"
    where.mkdir(parents=True)
    path.write_text(yaml.safe_dump({**params, "output_dir": str(where / "out")}, sort_keys=False))
    exe = Path(sys.executable).with_name("cost-of-pass")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = subprocess.run([str(exe), "run", str(path)], capture_output=True, text=True, timeout=3600,
                         env={**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "HF_HUB_OFFLINE": "1", **env})
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        raise SystemExit(out.stderr[-3000:])
    return wall, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def same_outputs(a: Path, b: Path) -> bool:
    """Every table and figure of two runs' outputs identical, byte for byte."""
    for sub in ("tables", "figures"):
        names = sorted(p.name for p in (a / sub).iterdir())
        if names != sorted(p.name for p in (b / sub).iterdir()):
            return False
        _, mismatch, errors = filecmp.cmpfiles(a / sub, b / sub, names, shallow=False)
        if mismatch or errors:
            return False
    return True


def main(set_path: str, rounds: int) -> None:
    params = yaml.safe_load(Path(set_path).read_text())
    seen: dict[str, list[tuple[float, float]]] = {w: [] for w in WAYS}
    identical = True
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(rounds):
            order = list(WAYS) if r % 2 == 0 else list(reversed(WAYS))  # each way first and last in turn
            for way in order:
                seen[way].append(run(params, Path(tmp) / f"{r}-{way.replace(' ', '_')}", WAYS[way]))
            outs = [Path(tmp) / f"{r}-{w.replace(' ', '_')}" / "out" for w in WAYS]
            identical &= all(same_outputs(outs[0], other) for other in outs[1:])
    print(f"{Path(set_path).stem}: {os.cpu_count()} cores, {rounds} rounds (cold runs, alternating order); median")
    print(f"{'warm kernels':<16} {'CPU s':>8} {'wall s':>8}")
    cpu = {w: statistics.median(c for _, c in v) for w, v in seen.items()}
    wall = {w: statistics.median(t for t, _ in v) for w, v in seen.items()}
    for way in WAYS:
        print(f"{way:<16} {cpu[way]:>8.1f} {wall[way]:>8.1f}")
    print(f"forked / own process: CPU {cpu['forked'] / cpu['own process']:.2f}x, wall "
          f"{wall['forked'] / wall['own process']:.2f}x; forked / forked unfrozen: CPU "
          f"{cpu['forked'] / cpu['forked unfrozen']:.2f}x; tables and figures identical: {identical}")


if __name__ == "__main__":
    args = [a for a in sys.argv[1:]]
    main(args[0] if args else "params/tiny.yaml", int(args[1]) if len(args) > 1 else 3)
