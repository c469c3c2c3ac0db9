"""cost-of-pass helpers: the thin library the pipeline notebooks call.

Modules, one concern each:
  params     typed parameter sets (params/*.yaml), fidelity options
  yamlfiles  strict YAML reading (one-line errors, duplicate keys rejected), nearest-name suggestions
  redaction  keeping key values out of everything written
  tasks      dataset registry, loaders, seeded sampling
  models     model registry (litellm id, family, release date)
  prices     dated price snapshots and per-call cost in USD
  prompts    the paper's prompt and the self-refine prompt
  methods    inference-time methods, one module each: calls, billing, estimators (majority vote, best-of-N)
  backends   offline litellm providers (simulated models)
  records    append-only, resumable record store (call key + fingerprint)
  locking    one collector per output directory (filelock)
  collect    calls through litellm: concurrency, retries, budget
  grading    answer extraction and metrics (math-verify, letters)
  pipeline   preflight checks and the papermill runner
"""

import os

__version__ = "0.1.0"

# Offline-safe defaults, set before litellm is imported anywhere: litellm's bundled price map
# instead of a download, and no Hugging Face Hub look-ups. Users may override either.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
