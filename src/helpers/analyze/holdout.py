"""If you use the models chosen on your runs, what will they cost on new runs? (issue 35, item 4)

The frontier of all models under "up to k tries, then the expert" is chosen problem by problem: for each problem, the
model a difficulty the models share routes it to (curves fitted on the dataset's other problems, the problem placed on
them by half of its own runs), its choice valued on the other half and averaged over every split of its runs
(``policy.set_policy``; with fewer than 2k runs, chosen on the other problems alone and valued on all its runs): the
held-out value, unbiased for what the chosen models truly cost on runs the choice never saw — the report's headline
frontier, whose interval the validity study checks. The model that looks cheapest on every problem's runs, read on
those same runs, is the in-sample value of the same estimand at the same k, which their luck flatters; in-sample −
held-out is the optimism, one estimand at one k. The two choose by different rules (the lowest cost on all the runs;
the routing by a shared difficulty on half of the problem's runs), so where they choose different models it is not the
winner's curse alone (review 8).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from helpers.analyze.policy import CrossFitted, PolicyCost, chosen_interval, policy_interval

COLUMNS = ["task", "k", "problems", "in_sample_usd", "held_out_usd", "held_out_low", "held_out_high", "optimism_usd",
           "optimism_pct"]


def holdout_frontier(fit: CrossFitted | None, expert_usd: np.ndarray, groups: np.ndarray, tasks: list[str],
                     level: float = 0.95, single: PolicyCost | None = None) -> pd.DataFrame:
    """Per dataset (``COLUMNS``): k, problems, the in-sample and held-out value of the cross-fitted frontier ``fit``
    (USD per problem), the held-out value's ``level`` interval (``policy.chosen_interval`` with ``single``, the options
    alone at the same k; without it ``policy.policy_interval``) and the optimism (in-sample − held-out, USD and % of
    held-out; negative: the choice's own runs read too cheap; exactly 0 where the two differ by arithmetic's rounding
    alone, 1e-9 of the value: every split chose the in-sample model, and the mean of its values over the splits is the
    value on all the runs). No rows without a fit (``fit`` None)."""
    if fit is None:
        return pd.DataFrame([], columns=COLUMNS)
    G = (np.asarray(groups)[None, :] == np.arange(len(tasks))[:, None]).astype(float)
    held, low, high = (chosen_interval(fit, single, expert_usd, G, level) if single is not None else
                       policy_interval(fit.records, fit.fail_all, expert_usd, level, fit.fail_runs, fit.k, G, fit.runs))
    rows = []
    for t, task in enumerate(tasks):
        here = groups == t
        inside, h = float(fit.in_sample[here].mean()), float(held[t])
        inside = h if abs(inside - h) <= 1e-9 * abs(h) else inside
        rows.append({"task": task, "k": fit.k, "problems": int(here.sum()), "in_sample_usd": inside,
                     "held_out_usd": h, "held_out_low": float(low[t]), "held_out_high": float(high[t]),
                     "optimism_usd": inside - h, "optimism_pct": 100 * (inside - h) / h if h else np.nan})
    return pd.DataFrame(rows, columns=COLUMNS)
