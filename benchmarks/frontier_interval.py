"""The frontier's interval (issue 61, item 2), measured side by side on known truth: how many options share the level
of the union ``policy.chosen_interval`` takes with the interval of each option the frontier chose, where the choice is
not routed (the headline's frontier until 2026-12-02, every half-split, measured here; since then it holds where a
problem's runs are not split, e.g. one run per cell: a routed choice takes the per-problem interval alone).

- "contenders" (the product's): the options the records cannot tell from the cheapest (``policy.contenders``: the
  lowest and every option whose paired difference with it reaches 0);
- "every option": all of the frontier's options at once (the level it replaced; the union is taken, as in the product,
  over the options most splits chose on some problem, where the replaced rule took any split's choice);
- "per-problem alone": no union, the frontier's per-problem values' own interval (``policy_interval``).

Per rule ``policy_study.study`` is run on the same sets (the same seeds) of every generator of the validity study at
the `sim` set's shape (six datasets, ten SIMULATED models, 8 runs, k = 4): the frontier's coverage of each set's own
truth and its width ÷ the oracle's (3.92 × the sd over the sets of the estimate's error). Then the worst case the
level must survive: six equally good options on 400 problems (the winner's curse of picking one of six ties), 30 sets,
the share of sets whose interval holds the truth (as ``tests/test_holdout.py``). SIMULATED.

    COP_DATA_DIR=../shared/data .venv/bin/python benchmarks/frontier_interval.py [sets, default 40] [seed, default 1]
        [a set's params, default params/sim.yaml]
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np
import pandas as pd

from helpers.analyze import known_truth as kt
from helpers.analyze import policy, policy_study, statistic
from helpers.analyze import validity as va
from helpers.core.context import prepare
from helpers.core.params import load_params

PRODUCT = policy.chosen_interval


def every_option(fit, single, fee, groups, level=0.95, many=None):
    return PRODUCT(fit, single, fee, groups, level, np.full(np.asarray(groups).reshape(-1, len(fee)).shape[0],
                                                            len(fit.options)))


def per_problem_alone(fit, single, fee, groups, level=0.95, many=None):
    """A ``policy.chosen_interval`` replacement: the chosen policy's per-problem values' own interval, no union."""
    return policy.policy_interval(fit.records, fit.fail_all, fee, level, fit.fail_runs, fit.k, groups, fit.runs)


RULES = {"contenders": PRODUCT, "every option": every_option, "per-problem alone": per_problem_alone}


UNION_WAYS = ((1.0,), 0)  # the union is a choice's that is not routed: every half-split (the headline's to 2026-12-01)
PRODUCT_WAYS = (policy.HEADLINE_WEIGHTS, policy.HEADLINE_FOLDS)


def use(rule: str | None) -> None:
    """Measure ``rule`` (None: back to the product as it is) on choices made by every half-split."""
    policy.chosen_interval = RULES[rule or "contenders"]
    policy.HEADLINE_WEIGHTS, policy.HEADLINE_FOLDS = PRODUCT_WAYS if rule is None else UNION_WAYS


def on_generators(sets: int, seed: int, params: str = "params/sim.yaml") -> pd.DataFrame:
    """(rule, generator, coverage_pct, width_vs_oracle) of the frontier, every rule on the same sets."""
    gm = kt.generative_model(prepare(load_params(params)))
    out = []
    for rule in RULES:
        use(rule)
        table = policy_study.study(gm, va.study_generators(gm), sets, seed=seed, workers=os.cpu_count() or 1)
        d = table[table["statistic"] == statistic.POLICY_FRONTIER.label]
        out.append(d[["generator", "coverage_pct", "width_vs_oracle"]].assign(rule=rule))
    use(None)
    return pd.concat(out, ignore_index=True)


def six_ties(sets: int = 30, problems: int = 400, runs: int = 5, fee: float = 50.0) -> dict[str, int]:
    """Per rule, of ``sets`` sets of six options that each pass half the time at $1 a try: the sets whose frontier
    interval (k = 2, half the runs) holds the truth, whichever option was picked."""
    k, S = runs // 2, 6
    truth = sum(0.5**j for j in range(k)) + fee * 0.5**k
    held = dict.fromkeys(RULES, 0)
    for seed in range(sets):
        rng = np.random.default_rng(seed)
        correct = rng.random((problems, S, runs)) < 0.5
        usd, cells, expert = np.ones(correct.shape), np.full((problems, S), runs), np.full(problems, fee)
        fit = policy.crossfit_halves(usd, correct, cells, expert, [list(range(S))], k)[0]
        single = policy.policy_cost(usd, correct, cells, expert, k)
        for rule in RULES:
            use(rule)
            _, low, high = policy.chosen_interval(fit, single, expert, np.ones((1, problems)))
            held[rule] += bool(low[0] <= truth <= high[0])
    use(None)
    return held


def main(sets: int = 40, seed: int = 1, params: str = "params/sim.yaml") -> None:
    start = time.perf_counter()
    long = on_generators(sets, seed, params)
    print(f"{sets} SIMULATED sets per generator, seed {seed}, 95% intervals: the frontier's coverage % / width "
          "÷ oracle")
    cells = long.assign(cell=long["coverage_pct"].map("{:.1f}".format) + " / "
                        + long["width_vs_oracle"].map("{:.2f}".format)).pivot(index="generator", columns="rule",
                                                                             values="cell")[list(RULES)]
    span = long.groupby("rule").agg(c0=("coverage_pct", "min"), c1=("coverage_pct", "max"),
                                    w0=("width_vs_oracle", "min"), w1=("width_vs_oracle", "max"))
    cells.loc["range"] = [f"{r.c0:.1f}-{r.c1:.1f} / {r.w0:.2f}-{r.w1:.2f}" for r in span.loc[list(RULES)].itertuples()]
    print(cells.to_string())
    held = six_ties()
    print("\nsix equally good options, 400 problems x 5 runs, k = 2, 30 sets: sets whose interval held the truth")
    print("  " + "; ".join(f"{rule} {n} of 30" for rule, n in held.items()))
    print(f"\nwall {time.perf_counter() - start:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]), *sys.argv[3:4])
