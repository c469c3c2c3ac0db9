"""How the headline frontier chooses its option per problem (issue 61, item 1), measured side by side: the product's
rule since 2026-12-02, "difficulty" (``policy.crossfit_halves`` with ``own_weights=()``, ``difficulty_folds=5``,
``policy.set_policy``'s ``HEADLINE_WEIGHTS`` and ``HEADLINE_FOLDS``: each problem routed by a difficulty every model
shares, ``analyze.difficulty_routing``'s item-response curves fitted without the problem's fold of 5, the problem
placed on them by half of its runs of every model, valued on its other half, averaged over every such split of its
runs; with a problem × model interaction where the curves' fit finds one; no seed), against the rule before it,
"every-half-split" (the same splits, each problem's option chosen on the dataset's other problems' runs and its
choosing half by a Beta prior, ``policy.loo_criterion``), "leave-one-out" (each problem's option chosen on the
dataset's other problems only, ``policy.crossfit_many``: the product's rule until 2026-11-30), K-fold choice (each
fold's option chosen on the other folds, one random split) and an in-sample choice (one option per dataset chosen on
all its problems, valued on the same runs: the winner's curse it brings shows as a negative bias).

Every rule values its choices with the same unbiased per-problem cost (``policy.policy_cost``; with half-splits the
mean over the splits of that cost on the held-out half) and ``policy.chosen_interval``: for a routed choice the
per-problem interval, the fee part's mass at "every run fails" read at the rate the pooled runs allow
(``fee_prior.top_moments``); for the others the union with the chosen options' own intervals. The same sets
(``policy_study.study``, the same seeds), at the `sim` set's shape (six datasets, ten SIMULATED models, 8 runs,
k = 4). Per generator: the frontier's coverage of its own truth, its width ÷ the oracle's, its relative bias (%), and
its truth ÷ the best single model's at the same k (over all datasets together, and the worst dataset's): the issue
asks for a frontier never worse than choosing one model (1.00 × within 2%). The other rules put their ways of
choosing in ``set_policy``'s (``RULES``): "own-weight-cv", every half-split with the choosing half weighed as 1, 2, 4
or 8 of the other problems, each problem's weight the one whose choices cost least on the other problems' held-out
halves; "difficulty-cv", weight 1 against the shared difficulty by the same contest; "routed", the weights 1, 2, 4, 8
and the shared difficulty. "…/per-problem": the per-problem interval alone, the mass at "every run fails" read at 1
(``frontier_interval.per_problem_alone``) in ``policy.chosen_interval``'s place. SIMULATED.

    COP_DATA_DIR=../shared/data .venv/bin/python benchmarks/frontier_choice.py [sets, default 40]
        [rules, comma-separated, default: DEFAULT's four; RULES holds every one]
        [seed, default 1]
        [a set's params]
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np
import pandas as pd
from frontier_interval import per_problem_alone  # benchmarks/: the chosen policy's per-problem interval alone

from helpers.analyze import known_truth as kt
from helpers.analyze import means, policy, policy_study
from helpers.analyze import validity as va
from helpers.core.context import prepare
from helpers.core.params import load_params

PRODUCT = policy.loo_criterion
COLUMNS = ["coverage_pct", "width_vs_oracle", "rel_bias_pct", "vs_best_single", "vs_best_single_worst"]


def _criterion_on(fit: np.ndarray, usd, correct, runs, fee, k: int) -> np.ndarray:
    """(S,) what each option looks like it costs on the problems ``fit`` (indices): the mean over them of the cost
    expected given their runs under a Beta prior fitted on them (``means.beta_prior``, ``policy._expected_costs``),
    or where every cell there has one run, the mean unbiased cost (as ``policy.loo_criterion`` does); ∞ without runs."""
    has = runs[fit] > 0
    if (runs[fit] <= 1).all():
        each = policy.policy_cost(usd[fit], correct[fit], runs[fit], fee[fit], k).total
    else:
        s, f, c = policy._cell_counts(usd[fit], correct[fit], runs[fit])
        a, b = means.beta_prior(s, s + f)
        each = np.where(has, policy._expected_costs(a[None], b[None], s, f, c, fee[fit], has, k)[0], np.nan)
    count = np.isfinite(each).sum(axis=0)
    return np.where(count > 0, np.nansum(each, axis=0) / np.maximum(count, 1), np.inf)


def folds_criterion(folds: int):
    """A ``policy.loo_criterion`` replacement: each problem's options judged on the other folds of its dataset
    (``folds`` random folds, seeded by the set's fees), or on every problem of it where ``folds`` is 1 (in-sample)."""
    def criterion(usd, correct, runs, expert_usd, k, groups):
        fee = np.asarray(expert_usd, float)
        out = np.full(runs.shape, np.inf)
        rng = np.random.default_rng(int(fee.sum() * 1e6) % 2**32)
        for g in np.unique(groups):
            idx = np.flatnonzero(groups == g)
            parts = np.array_split(rng.permutation(idx), folds) if folds > 1 else [idx]
            for part in parts:
                fit = np.setdiff1d(idx, part) if folds > 1 else idx
                out[part] = _criterion_on(fit, usd, correct, runs, fee, k)[None]
        return out
    return criterion


PRODUCT_HALVES, PRODUCT_INTERVAL = policy.crossfit_halves, policy.chosen_interval
PRODUCT_WAYS = (policy.HEADLINE_WEIGHTS, policy.HEADLINE_FOLDS)  # the product's: the shared difficulty alone
OWN_WEIGHTS = (1.0, 2.0, 4.0, 8.0)  # the "own-weight-cv" rule's choices of what the choosing half weighs as


def _many(usd, correct, runs, expert_usd, option_sets, k=None, groups=None, **_ways):
    """``policy.crossfit_many`` in ``policy.crossfit_halves``' place (the ways of choosing it is called with unused)."""
    return policy.crossfit_many(usd, correct, runs, expert_usd, option_sets, k, groups)


# rule -> (what replaces ``policy.crossfit_halves``, the ways of choosing ``policy.set_policy`` passes it
# (``own_weights``, ``difficulty_folds``), what replaces ``policy.loo_criterion`` and ``policy.chosen_interval``)
RULES = {"difficulty": (PRODUCT_HALVES, ((), 5), PRODUCT, PRODUCT_INTERVAL),
         "difficulty/per-problem": (PRODUCT_HALVES, ((), 5), PRODUCT, per_problem_alone),
         "every-half-split": (PRODUCT_HALVES, ((1.0,), 0), PRODUCT, PRODUCT_INTERVAL),
         "leave-one-out": (_many, ((1.0,), 0), PRODUCT, PRODUCT_INTERVAL),
         "8-fold": (_many, ((1.0,), 0), folds_criterion(8), PRODUCT_INTERVAL),
         "in-sample": (_many, ((1.0,), 0), folds_criterion(1), PRODUCT_INTERVAL),
         "own-weight-cv": (PRODUCT_HALVES, (OWN_WEIGHTS, 0), PRODUCT, PRODUCT_INTERVAL),
         "difficulty-cv": (PRODUCT_HALVES, ((1.0,), 5), PRODUCT, PRODUCT_INTERVAL),
         "routed": (PRODUCT_HALVES, (OWN_WEIGHTS, 5), PRODUCT, PRODUCT_INTERVAL),
         "routed/per-problem": (PRODUCT_HALVES, (OWN_WEIGHTS, 5), PRODUCT, per_problem_alone)}
DEFAULT = "difficulty,every-half-split,leave-one-out,own-weight-cv"  # the saved output's (benchmarks/results)


def study_under(rule: str, sets: int, seed: int, params: str = "params/sim.yaml") -> pd.DataFrame:
    """``policy_study.study``'s table (every statistic, every generator) with ``rule``'s ways of choosing and valuing in
    place of the product's, on ``sets`` sets per generator drawn from ``seed``."""
    gm = kt.generative_model(prepare(load_params(params)))
    halves, (policy.HEADLINE_WEIGHTS, policy.HEADLINE_FOLDS), criterion, interval = RULES[rule]
    policy.crossfit_halves, policy.loo_criterion, policy.chosen_interval = halves, criterion, interval
    try:
        return policy_study.study(gm, va.study_generators(gm), sets, seed=seed, workers=os.cpu_count() or 1)
    finally:
        policy.crossfit_halves, policy.loo_criterion, policy.chosen_interval = PRODUCT_HALVES, PRODUCT, PRODUCT_INTERVAL
        policy.HEADLINE_WEIGHTS, policy.HEADLINE_FOLDS = PRODUCT_WAYS


def measure(rule: str, sets: int, seed: int, params: str = "params/sim.yaml") -> pd.DataFrame:
    """Per generator, ``COLUMNS`` of the frontier under ``rule`` on ``sets`` sets per generator drawn from ``seed``."""
    table = study_under(rule, sets, seed, params)
    rows = table[table["statistic"] == policy.FRONTIER.kind.label]
    return rows[["generator", *COLUMNS]].assign(rule=rule)


def main(sets: int = 40, rules: str = DEFAULT, seed: int = 1, params: str = "params/sim.yaml") -> None:
    start = time.perf_counter()
    long = pd.concat([measure(r, sets, seed, params) for r in rules.split(",")], ignore_index=True)
    print(f"{sets} sets per generator, seed {seed}, the frontier of all models (k = the headline's); SIMULATED")
    for col, fmt in zip(COLUMNS, ("{:.1f}", "{:.2f}", "{:+.1f}", "{:.3f}", "{:.3f}")):
        wide = long.pivot(index="generator", columns="rule", values=col)[rules.split(",")]
        shown = wide.map(fmt.format)
        shown.loc["range"] = [f"{fmt.format(wide[r].min())} - {fmt.format(wide[r].max())}" for r in wide.columns]
        print(f"\n{col}:")
        print(shown.to_string())
    print(f"\nwall {time.perf_counter() - start:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    args = sys.argv[1:]
    params = args.pop() if args and args[-1].endswith(".yaml") else "params/sim.yaml"  # a set's params, last
    main(*(int(a) if i != 1 else a for i, a in enumerate(args[:3])), params=params)
