"""If you use the models chosen on your runs, what will they cost on new runs? (issue 35, item 4)

The frontier of all models under "up to k tries, then the expert" chooses, per problem, the model that looks cheapest
on one half of the runs and values that choice on the other half (``policy.crossfit_frontier``): the held-out value,
unbiased for what the chosen models truly cost on runs the choice never saw — the report's headline frontier, whose
interval the validity study checks. Read on the choosing half itself, the same estimand at the same k is the
in-sample value, which the luck of those runs flatters; in-sample − held-out is that optimism (the winner's curse,
measured on one estimand, not between two), averaged over the same folds.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from helpers.analyze.policy import CrossFitted, policy_interval

COLUMNS = ["task", "k", "problems", "in_sample_usd", "held_out_usd", "held_out_low", "held_out_high", "optimism_usd",
           "optimism_pct"]


def holdout_frontier(fit: CrossFitted | None, expert_usd: np.ndarray, groups: np.ndarray, tasks: list[str],
                     level: float = 0.95) -> pd.DataFrame:
    """Per dataset (``COLUMNS``): k, problems, the in-sample and held-out value of the cross-fitted frontier ``fit``
    (USD per problem), the held-out value's ``level`` interval (``policy.policy_interval``) and the optimism
    (in-sample − held-out, USD and % of held-out; negative: the choice's own runs read too cheap). No rows when the
    set has under 2 runs per cell (``fit`` None)."""
    if fit is None:
        return pd.DataFrame([], columns=COLUMNS)
    rows = []
    for t, task in enumerate(tasks):
        here = groups == t
        held, low, high = (float(x) for x in policy_interval(fit.records[here], fit.fail_all[here], expert_usd[here],
                                                             level, fit.fail_runs[here], fit.k))
        inside = float(fit.in_sample[here].mean())
        rows.append({"task": task, "k": fit.k, "problems": int(here.sum()), "in_sample_usd": inside,
                     "held_out_usd": held, "held_out_low": low, "held_out_high": high, "optimism_usd": inside - held,
                     "optimism_pct": 100 * (inside - held) / held if held else np.nan})
    return pd.DataFrame(rows, columns=COLUMNS)
