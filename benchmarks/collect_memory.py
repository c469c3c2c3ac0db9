"""A collection with nothing pending, at 1x and 10x the paper's records: time and peak memory.

    .venv/bin/python benchmarks/collect_memory.py [SCALES]      # default: 1,10

A scale below 1 is for the tests, the same paths on fewer records: 0.125 is one run (20,100 calls), below that fewer
problems too (0.01: one run of 10 problems per dataset, 1,800 calls).

The sim set (the paper's 6 datasets, 10 models, vanilla + self-refine: 160,800 calls at 8 runs) with
``n_runs`` = 8 x scale. A child process writes every planned call's record (SIMULATED text, the plan's
keys and fingerprints) straight into a record store; then ``collect`` runs twice, each in a fresh
process: first when the store has no parquet snapshot yet (every JSON line parsed), then with the
snapshots. Printed: records, seconds and peak resident memory (ru_maxrss, the whole process) of each.
Target (issue 8): a no-op collection at 10x under 2 GiB. Needs the benchmark data (COP_DATA_DIR).
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

os.environ.setdefault("COP_WRITE_ANYWHERE", "1")  # a benchmark writes its sets under a temporary directory

SET = "params/sim.yaml"


def set_file(scale: float, out: Path) -> Path:
    params = yaml.safe_load(Path(SET).read_text())
    params.update(name=f"sim_x{scale}".replace(".", "_"), n_runs=max(1, round(8 * scale)),
                  output_dir=str(out / "results"))
    if 8 * scale < 1:
        params["n_problems"] = max(1, round(params["n_problems"] * 8 * scale))
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{params['name']}.yaml"
    path.write_text(yaml.safe_dump(params, sort_keys=False))
    return path


def write_records(path: Path) -> int:
    """Every planned call of the set as a SIMULATED 'ok' record, written shard by shard."""
    from helpers.collect.plan import plan_for
    from helpers.collect.records import CallRecord, RecordStore
    from helpers.core.context import prepare
    from helpers.core.params import load_params

    ctx = prepare(load_params(path))
    store, n = RecordStore(ctx.params.records_path), 0
    shards: dict[Path, list[str]] = {}
    for a in plan_for(ctx.params, ctx.problems, ctx.models):
        for c in range(a.method.collected_calls):
            r = CallRecord(task=a.problem.task, problem_id=a.problem.problem_id, model=a.model.name,
                           method=a.method.name, run=a.run, call=c, litellm_model=a.model.litellm_id,
                           prompt_hash="0" * 16, status="ok", fingerprint=a.fingerprints[c],
                           response=f"[simulated response] Working through the problem gives <answer>{a.run}</answer>",
                           finish_reason="stop", prompt_tokens=120, completion_tokens=300, latency_s=0.001,
                           sampling={"temperature": 0.7, "top_p": 1.0}, simulated=True,
                           created_at="2026-11-22T00:00:00Z")
            shards.setdefault(store.shard(r.task, r.model), []).append(json.dumps(r.as_dict(), sort_keys=True))
            n += 1
    for shard, lines in shards.items():
        shard.parent.mkdir(parents=True, exist_ok=True)
        shard.write_text("\n".join(lines) + "\n")
    return n


def noop_collect(path: Path) -> dict:
    """``collect`` on a set whose every call is recorded: nothing is called."""
    start = time.perf_counter()
    from helpers.collect.collection import collect
    from helpers.core.context import prepare
    from helpers.core.params import load_params

    ctx = prepare(load_params(path))
    result = collect(ctx.params, ctx.problems, ctx.models, ctx.snapshot, progress=False)
    assert result.made_calls == 0 and result.pending_calls == 0, result
    return {"seconds": time.perf_counter() - start, "records": result.planned_calls,
            "litellm": "litellm" in sys.modules,
            "peak_gib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20}


def child(*args: str) -> dict:
    out = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True, timeout=3600,
                         env={**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "HF_HUB_OFFLINE": "1"})
    if out.returncode != 0:
        raise SystemExit(out.stderr[-3000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(scales: list[float]) -> None:
    print(f"{'scale':>6} {'records':>10} {'no-op, no snapshot':>24} {'no-op, snapshot':>22}  litellm imported")
    with tempfile.TemporaryDirectory() as tmp:
        for s in scales:
            path = set_file(s, Path(tmp) / f"x{s}")
            child("--write", str(path))
            first, again = child("--collect", str(path)), child("--collect", str(path))
            print(f"{s:>5}x {first['records']:>10,} {first['seconds']:>9.1f} s {first['peak_gib']:>6.2f} GiB "
                  f"{again['seconds']:>9.1f} s {again['peak_gib']:>6.2f} GiB  {again['litellm']}", flush=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--write"]:
        print(json.dumps({"records": write_records(Path(sys.argv[2]))}))
    elif sys.argv[1:2] == ["--collect"]:
        print(json.dumps(noop_collect(Path(sys.argv[2]))))
    else:
        main([float(s) if "." in s else int(s) for s in (sys.argv[1] if len(sys.argv) > 1 else "1,10").split(",")])
