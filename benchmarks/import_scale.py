"""Importing FEval-TTC-sized records: time and peak memory of ``import_records`` at the scale of the real zip.

    .venv/bin/python benchmarks/import_scale.py [QUESTIONS] [MODELS]     # default: 1319 14

A made-up zip in FEval-TTC's format (GSM8K-sized: QUESTIONS questions x 40 CoTs of ~120 words for each of MODELS
models, every response a different text) is imported twice into an empty store, each in a fresh process, for a set
sampling 128 problems x 40 runs: first import (the whole file read and checked, the sample's responses written),
then again (everything already present: nothing written). Printed: responses read, records written, seconds and
peak resident memory (ru_maxrss of the process). Runs offline; needs no benchmark data.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import yaml

os.environ.setdefault("COP_WRITE_ANYWHERE", "1")  # a benchmark writes its sets under a temporary directory
ROOT = Path(__file__).resolve().parents[1]
MODELS = ["gpt-3.5-turbo", "mistralai/Mixtral-8x7B-Instruct-v0.1", "deepseek-ai/DeepSeek-V3",
          "Qwen/Qwen2.5-72B-Instruct",
          "meta-llama/Llama-3.3-70B-Instruct", "meta-llama/Meta-Llama-3.1-8B-Instruct",
          "meta-llama/Llama-3.2-3B-Instruct",
          "meta-llama/Llama-3.2-1B-Instruct", "Qwen/Qwen2.5-1.5B-Instruct", "Qwen/Qwen2.5-32B-Instruct",
          "mistralai/Mixtral-8x22B-Instruct-v0.1", "meta-llama/Meta-Llama-3.1-405B-Instruct", "gpt-4o-mini", "o3-mini"]
NAMES = {m["imported"]["name"]: n
         for n, m in yaml.safe_load((ROOT / "params/registry/imported.yaml").read_text())["models"].items()}


def build_zip(path: Path, questions: int, models: list[str]) -> None:
    words = " ".join(f"step{i}" for i in range(115))
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        data = [{"question": f"Question {i}: what is {i} + {i}?", "answer": str(2 * i)} for i in range(questions)]
        zf.writestr("dataset_GSM8K.txt", json.dumps({"data": data, "datatype": "GSM8K", "system_prompt": None}))
        zf.writestr("dataset_GSM8K_models.txt", json.dumps({"llms": models}))
        for m in models:
            responses = [{"request": {"raw_text": "few-shot", "dollar_cost": 1e-4, "token_cost": 600.0}, "num_cots": 40,
                          "cots": [{"raw_text": f"{words} run {k} of {i}. So the answer is {2 * i}.",
                                    "answer": str(2 * i),
                                    "metadata": {"dollar_cost": 1e-5, "token_cost": 160.0, "finish_reason": "stop"}}
                                   for k in range(40)]} for i in range(questions)]
            zf.writestr(f"LLM_{m}_dataset_GSM8K.txt",
                        json.dumps({"config": {"name": m, "temperature": 0.7, "max_tokens": 2048},
                                                                  "responses": responses}))


CHILD = """
import json, resource, sys, time
from helpers.collect.plan import plan_for
from helpers.collect.imports import import_records
from helpers.collect.records import RecordStore
from helpers.core.context import prepare
from helpers.core.params import load_params

params = load_params(sys.argv[1])
ctx = prepare(params)
start = time.perf_counter()
with RecordStore(params.records_path) as store:
    r = import_records(params, plan_for(params, ctx.problems, ctx.models), store)
print(json.dumps({"read": r.read, "written": r.imported, "present": r.present, "s": time.perf_counter() - start,
                  "rss_gib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20}))
"""


def main() -> None:
    questions = int(sys.argv[1]) if len(sys.argv) > 1 else 1319
    n_models = int(sys.argv[2]) if len(sys.argv) > 2 else 14
    models = MODELS[:n_models]
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "feval_ttc").mkdir()
        start = time.perf_counter()
        build_zip(tmp / "feval_ttc/api_responses.zip", questions, models)
        size = (tmp / "feval_ttc/api_responses.zip").stat().st_size
        print(f"zip: {questions} questions x 40 CoTs x {n_models} models, {size / 2**20:.0f} MiB, built in "
              f"{time.perf_counter() - start:.1f} s")
        params = {"name": "importscale", "tasks": ["feval_gsm8k"], "models": [NAMES[m] for m in models],
                  "models_file": str(ROOT / "params/registry/imported.yaml"), "n_problems": 128, "n_runs": 40,
                  "price_snapshot": "feval_ttc_2025-06-02", "budget_usd": 1, "data_dir": str(tmp),
                  "output_dir": str(tmp / "results"),
                  "import_from": {"format": "feval_ttc", "path": "feval_ttc/api_responses.zip"}}
        (tmp / "set.yaml").write_text(yaml.safe_dump(params))
        print(f"{'import':<8} {'read':>9} {'written':>9} {'present':>9} {'seconds':>8} {'peak GiB':>9}")
        for name in ("first", "again"):
            out = subprocess.run([sys.executable, "-c", CHILD, str(tmp / "set.yaml")], cwd=ROOT, capture_output=True,
                                 text=True, check=True)
            r = json.loads(out.stdout.strip().splitlines()[-1])
            print(f"{name:<8} {r['read']:>9} {r['written']:>9} {r['present']:>9} {r['s']:>8.1f} {r['rss_gib']:>9.2f}")


if __name__ == "__main__":
    main()
