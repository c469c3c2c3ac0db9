"""Calibrate simulated twins of the paper's ten models to its published tables.

    python -m helpers.cli.calibrate --tables ../shared/paper_tables --data-dir ../shared/data

writes ``params/registry/sim_paper.yaml`` (models ``sim-<name>``: the paper's family and release
date; accuracy per dataset = Table 5, with the aptitude per dataset solved on the difficulties and the twin's
interactions of the problems the ``sim`` set samples, so each twin's expected accuracy on them is Table 5's) and
``params/prices/sim_paper_table4_2025-04.yaml`` (the paper's Table 4 prices; each twin's batch discount is its real
model's provider's, ``BATCH``: an assumption). Completion tokens per
dataset are solved so that the expected cost of an attempt equals Table 6: ``(C - prompt_tokens ·
in) / out``, with the simulator's prompt-token rule (characters / 4) averaged over the set's sampled
problems; where Table 6 is below the prompt's own cost, 5 tokens are used and the profile notes the
mismatch. The twins are drawn from a generator that is not the model-based estimator's own: a problem × model
interaction (sd ``INTERACTION_SD`` on the logit scale) and capability cliffs (no pass where a twin's logit is
below ``CLIFF``): departures of the kinds the validity study's generators of those names make.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from helpers.core.errors import CostOfPassError, run_command
from helpers.core.models import load_registry
from helpers.core.paths import repo_root
from helpers.core.prompts import solve_messages
from helpers.core.simulation import aptitude_on, difficulty, interaction
from helpers.core.tasks import PAPER_TASKS, load_problems

MIN_COMPLETION = 5


SPREAD = 2.0  # s: the difficulty spread of every twin
INTERACTION_SD = 0.5  # sd of the problem x twin interaction (logit scale)
CLIFF = -2.0  # a twin passes nothing where its logit is below this (pi = sigmoid(-2) = 0.12 just above it: on
# 30 problems the expected accuracy jumps by 0.4 points as one crosses, so calibration stays within half a point)


def sampled_problems(data_dir: Path, n: int, seed: int) -> dict[str, list]:
    """The problems the ``sim`` set draws per paper task (its sampler is the hash sampler)."""
    return {t: load_problems(t, data_dir, n, seed) for t in PAPER_TASKS}


def mean_prompt_tokens(problems: dict[str, list]) -> dict[str, float]:
    """Mean simulated prompt tokens (ceil(chars / 4) of the paper prompt) per task over the sample."""
    return {t: sum(math.ceil(len(solve_messages(p.question)[0]["content"]) / 4) for p in ps) / len(ps)
            for t, ps in problems.items()}


# The batch discount of each twin: its real model's provider's batch API as documented, an ASSUMPTION for the twin
# (docs/collection.md, Batch APIs). Table 4 prices the Llama models and DeepSeek-R1 at Together AI's serverless rates
# (DeepSeek-R1 at $7/$7, Together's, not DeepSeek's own API, which has no batch API; params/prices/paper_table4_2025-04
# .yaml notes), so those take Together's batch discount.
OPENAI_BATCH = (0.5, "OpenAI Batch API: 50% off input and output (platform.openai.com/docs/guides/batch)")
ANTHROPIC_BATCH = (0.5, "Anthropic Message Batches API: 50% off input and output "
                        "(docs.anthropic.com/en/docs/build-with-claude/batch-processing)")
TOGETHER_BATCH = (0.5, "Together AI Batch API: 50% off its serverless rates (together.ai/blog/batch-api, launched "
                       "2025-06-11, after the paper)")
BATCH = {"llama-3.1-8b": TOGETHER_BATCH, "gpt-4o-mini": OPENAI_BATCH, "llama-3.3-70b": TOGETHER_BATCH,
         "llama-3.1-405b": TOGETHER_BATCH, "gpt-4o": OPENAI_BATCH, "claude-3.5-sonnet": ANTHROPIC_BATCH,
         "o1-mini": OPENAI_BATCH, "o3-mini": OPENAI_BATCH, "deepseek-r1": TOGETHER_BATCH, "o1": OPENAI_BATCH}


def batch_price(real: str) -> dict:
    """A twin's ``batch_discount`` and its source (``derivation``): its real model's provider's batch API
    (``BATCH``)."""
    discount, source = BATCH[real]
    return {"batch_discount": discount,
            "derivation": f"Table 4 list price; batch_discount assumed from the real model's provider: {source}"}


# long: one registry entry written out per model, in the order of the paper's tables; its steps are the helpers above
def calibrate(tables: Path, data_dir: Path, n: int = 128, seed: int = 0) -> tuple[dict, dict]:
    """(registry mapping, price snapshot mapping) for the simulated paper models, on the sample of
    ``n`` problems per task drawn with ``seed`` (the ``sim`` set's)."""
    for name in ("paper_table4_prices.csv", "paper_table5_accuracy_pct.csv", "paper_table6_cost_usd.csv"):
        if not (tables / name).is_file():
            raise CostOfPassError(f"--tables: {tables / name} not found (the paper's "
                                  "tables, e.g. ../shared/paper_tables)")
    acc = pd.read_csv(tables / "paper_table5_accuracy_pct.csv").set_index("model")
    cost = pd.read_csv(tables / "paper_table6_cost_usd.csv").set_index("model")
    prices = pd.read_csv(tables / "paper_table4_prices.csv").set_index("model")
    problems = sampled_problems(data_dir, n, seed)
    prompt = mean_prompt_tokens(problems)
    z = {t: np.array([difficulty(seed, t, p.problem_id) for p in ps]) for t, ps in problems.items()}

    def offsets(name: str, task: str) -> np.ndarray:
        return np.array([interaction(seed, task, p.problem_id, name, INTERACTION_SD) for p in problems[task]])

    by_label = {m.label: m for m in load_registry(repo_root() / "params/registry/models.yaml").values()
                if not m.simulated and m.local is None}
    models, snapshot = {}, {}
    for label, row in prices.iterrows():
        real = by_label[label]
        name = f"sim-{real.name}"
        tokens, notes = {}, []
        for t in PAPER_TASKS:
            needed = (cost.loc[label, t] - prompt[t] * row.usd_per_mtok_in / 1e6) / (row.usd_per_mtok_out / 1e6)
            if needed < MIN_COMPLETION:
                notes.append(t)
            tokens[t] = round(float(max(needed, MIN_COMPLETION)), 1)
        models[name] = {
            "label": f"{label} (sim)",
            "litellm_id": f"sim/{real.name}",
            "family": real.family,
            "release_date": real.release_date.isoformat(),
            "sim": {
                "accuracy": (target := {t: round(float(min(max(acc.loc[label, t] / 100, 0.001), 0.999)),
                                                 4) for t in PAPER_TASKS}),
                "completion_tokens": tokens,
                "aptitude": {t: round(aptitude_on(target[t], SPREAD, z[t], offset=offsets(name, t), cliff=CLIFF), 6)
                             for t in PAPER_TASKS},
                "difficulty_spread": SPREAD,
                "interaction_sd": INTERACTION_SD,
                "cliff": CLIFF,
                "format_error_rate": 0.0,
            },
            "notes": f"Simulated twin of {label}: Table 5 accuracy, Table 6 cost per attempt"
                     + (f"; Table 6 is below the prompt's cost on {', '.join(notes)}" if notes else ""),
        }
        snapshot[name] = {"input_usd_per_mtok": float(row.usd_per_mtok_in),
                          "output_usd_per_mtok": float(row.usd_per_mtok_out), **batch_price(real.name)}
    registry = {"models": models}
    prices_doc = {"date": "2025-04-17",
                  "source": "Simulated twins priced as their real models: arXiv 2504.13359 Table 4",
                  "prices": snapshot}
    return registry, prices_doc


HEADER = "# Generated by `python -m helpers.cli.calibrate` from the paper's Tables 4-6. SIMULATED models.\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m helpers.cli.calibrate", description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=Path, required=True)
    ap.add_argument("--data-dir", type=Path, required=True)
    ap.add_argument("--out-registry", type=Path, default=repo_root() / "params/registry/sim_paper.yaml")
    ap.add_argument("--out-prices", type=Path, default=repo_root() / "params/prices/sim_paper_table4_2025-04.yaml")
    args = ap.parse_args(argv)

    def write() -> None:
        registry, prices = calibrate(args.tables, args.data_dir)
        args.out_registry.write_text(HEADER + yaml.safe_dump(registry, sort_keys=False, allow_unicode=True))
        args.out_prices.write_text(HEADER + yaml.safe_dump(prices, sort_keys=False))
        print(f"wrote {args.out_registry} and {args.out_prices}")

    return run_command(write)


if __name__ == "__main__":
    raise SystemExit(main())
