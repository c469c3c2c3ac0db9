"""Per-problem estimates of every strategy from graded attempts: C_m(p) (USD per attempt) and R_m(p).

Strategy names: ``<model>`` for vanilla, ``<model>+<method>`` for an inference-time method.
Collected methods are estimated from their own attempts; methods with an estimator (majority vote,
best-of-N) from the vanilla attempts, as their registry entry says.
"""

from __future__ import annotations

import pandas as pd

from helpers.core.methods import get_method

PROBLEM = ["task", "problem_id"]


def strategy_name(model: str, method: str) -> str:
    return model if method == "vanilla" else f"{model}+{method}"


def strategy_names(models: pd.Series, methods: pd.Series | str) -> pd.Series:
    """``strategy_name`` over columns (vectorised: millions of attempts)."""
    if isinstance(methods, str):
        models = models.astype(str)
        return models if methods == "vanilla" else models + f"+{methods}"
    codes, pairs = pd.factorize(pd.MultiIndex.from_arrays([models, methods]))  # a name per distinct pair
    names = pd.Categorical.from_codes(codes, categories=[strategy_name(m, me) for m, me in pairs])
    return pd.Series(names.reorder_categories(sorted(names.categories)), index=models.index)  # groups sort by name


def per_problem(attempts: pd.DataFrame, strategy: str = "strategy") -> pd.DataFrame:
    """C_m(p) and R_m(p) from complete attempts with ``usd`` and ``correct`` columns.

    Returns one row per (task, problem_id, <strategy>): ``cost_usd`` (mean USD per attempt),
    ``pass_rate`` (mean correct, 0-1), ``n`` (attempts).
    """
    done = attempts[attempts["complete"]] if "complete" in attempts else attempts
    narrow = done[[*PROBLEM, strategy, "usd"]].assign(correct=done["correct"].astype(float))
    out = (
        narrow.groupby([*PROBLEM, strategy], sort=True, observed=True)
        .agg(cost_usd=("usd", "mean"), pass_rate=("correct", "mean"), n=("correct", "size"))
        .reset_index()
    )
    return out


def estimates_from_attempts(attempts: pd.DataFrame, methods: list[str], seed: int = 0) -> pd.DataFrame:
    """Per-problem C and R for every strategy: collected methods from their attempts, methods with
    an estimator (majority vote, best-of-N) from the vanilla attempts."""
    done = attempts[attempts["complete"]]
    done = done.assign(strategy=strategy_names(done["model"], done["method"]))
    est = per_problem(done)
    meta = done.drop_duplicates("strategy").set_index("strategy")[["model", "method"]]
    est = est.join(meta, on="strategy")
    parts = [est]
    vanilla = done[done["method"] == "vanilla"]
    for name in methods:
        method = get_method(name)
        if method.estimator:
            est = method.estimator(vanilla, seed)
            parts.append(est.assign(method=name, strategy=strategy_names(est["model"], name)))
    return pd.concat(parts, ignore_index=True)
