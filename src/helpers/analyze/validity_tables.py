"""The validity study's tables: per statistic family and estimator (``summary``), per technique (``technique_table``)
and the routing frontier's check in percent (``routing_in_percent``), from ``validity.StudyResult``. SIMULATED."""

from __future__ import annotations

import pandas as pd

from helpers.analyze.statistic import FAMILY_LABELS, TECHNIQUE_GAIN, of_kind
from helpers.analyze.validity import ESTIMATORS, StudyResult


def summary(result: StudyResult) -> pd.DataFrame:
    """Per statistic family and estimator: mean |bias|, its ratio to the plug-in's, mean RMSE, the pooled
    coverage (%) of the benchmark truth where it is not 0 with its Monte-Carlo standard error (sets as
    clusters), the share (%) of (set, cell) pairs whose truth is 0 (a model or technique that never lowers the
    frontier) and how often those are covered (%), and the pooled coverage (%) of a non-zero population truth."""
    df = result.table.assign(family=result.table["kind"], abs_bias=result.table["bias"].abs())
    out = df.groupby(["family", "estimator"], sort=False).agg(cells=("bias", "size"),
                                                              mean_abs_bias=("abs_bias", "mean"),
                                                             mean_rmse=("rmse", "mean")).reset_index()
    plug = out[out["estimator"] == "plug-in"].set_index("family")["mean_abs_bias"]
    out["bias_vs_plug_in"] = out["mean_abs_bias"] / out["family"].map(plug)
    pooled = [result.pooled[(f, e)] for f, e in zip(out["family"], out["estimator"], strict=True)]
    for column, part in (("coverage_pct", "rate"), ("coverage_se_pct", "se"), ("zero_truth_pct", "zero_share"),
                         ("zero_truth_coverage_pct", "zero_rate"), ("population_coverage_pct", "population_rate")):
        out[column] = [100 * getattr(p, part) for p in pooled]
    out["family"] = out["family"].map(FAMILY_LABELS)
    return out


TECHNIQUE_COLUMNS = ["technique", "task", "true gain %", *[f"{e} mean" for e in ESTIMATORS],
                     *[f"{e} coverage %" for e in ESTIMATORS]]


def technique_table(result: StudyResult, task_labels: dict[str, str] | None = None) -> pd.DataFrame:
    """Per technique and dataset: the true gain, each estimator's mean, and the coverage of its interval (%)."""
    df = result.table[of_kind(result.table, TECHNIQUE_GAIN)]
    if df.empty:  # a set without techniques
        return pd.DataFrame(columns=TECHNIQUE_COLUMNS)
    wide = df.pivot_table(index=["item", "task", "truth"], columns="estimator", values=["mean", "coverage"],
                          sort=False)
    wide.columns = [f"{est} {'mean' if what == 'mean' else 'coverage %'}" for what, est in wide.columns]
    wide = wide.reset_index()
    for col in [c for c in wide.columns if c.endswith("coverage %")]:
        wide[col] = 100 * wide[col]
    for col in ["truth", *[c for c in wide.columns if c.endswith(" mean")]]:
        wide[col] = 100 * wide[col]  # gains in %
    wide.insert(0, "technique", wide.pop("item"))
    wide["task"] = wide["task"].map(task_labels or {}).fillna(wide["task"])
    return wide.rename(columns={"truth": "true gain %"})[TECHNIQUE_COLUMNS]


def routing_in_percent(table: pd.DataFrame) -> pd.DataFrame:
    """``StudyResult.routing`` with its accuracies and RMSEs in % (the coverage is already in %)."""
    out = table.copy()
    for col in [c for c in out.columns if c == "truth" or c.endswith((" mean", " rmse", " truth"))]:
        out[col] = 100 * out[col]
    return out
