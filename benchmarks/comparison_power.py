"""Do the headline's comparisons find real differences, and only those? (issue 61, items 1-3) — at the paper's scale.

On sets of the `sim` set's shape (six datasets: five of 128 problems and one of 30, ten SIMULATED models, 8 runs),
drawn afresh from every generator of the validity study (``validity.study_generators``: this set's own, the model's
own family and eleven departures from it), ``policy_study.study`` measures, against each set's own truth:

- the frontier (one model per problem, routed by a difficulty the models share read on half of its runs, valued on the
  other half): its truth over the best single model's at the same k, and its interval's coverage;
- every pair of models alone, paired on the same problems and runs (``analyze.differences``): coverage, width over
  the oracle's (3.92 × the sd of the estimate's error over the sets), power (pairs where one truly costs at most half
  the other, found with the right sign), the same power for an interval of the oracle's width centred on the estimate
  (the most any valid interval around this estimate can find) and false findings (found with the wrong sign);
- the cheapest-model claim (its paired differences with every other model below 0, each at 95%): how often it is made
  where the truly cheapest costs at most half the runner-up, and how often it names a model that is not the cheapest;
- each model's accuracy and USD per attempt (Tables 5 and 6, ``means``): coverage and width over the oracle's;
- the technique gains with no true effect (false findings) and, on the own generator with a true self-refine effect
  g = 0.5 (``policy_study.effect_table``), how often the technique is named.

Then equal options: a twin of the first model (the same profile, its own runs) on the own family's generator, where
every problem's truth is the same for both: how often the twins' paired interval excludes 0 (a false finding); and
every model with a twin: how often the cheapest claim is made (each such claim is false). SIMULATED.

    COP_DATA_DIR=../shared/data .venv/bin/python benchmarks/comparison_power.py [sets per generator, default 100]
        [generators, default all] [parameter file, default params/sim.yaml: a set of simulated models]
"""

from __future__ import annotations

import dataclasses
import os
import sys
import time

import numpy as np
import pandas as pd

from helpers.analyze import known_truth as kt
from helpers.analyze import policy_study, statistic
from helpers.analyze import validity as va
from helpers.analyze.statistic import ACCURACY, COST_PER_ATTEMPT
from helpers.core.context import prepare
from helpers.core.params import load_params
from helpers.core.pool import forked_map


def twin_model(gm: kt.GenerativeModel, every: bool = False) -> kt.GenerativeModel:
    """``gm`` with a twin of its first model (with ``every``, of each model; same prices, profile and family; vanilla
    only): equal options."""
    at = np.arange(len(gm.models)) if every else np.arange(1)
    names = [f"{gm.models[i]} twin" for i in at] if every else ["twin"]
    def add(a):
        return np.concatenate([a, a[at]])
    tasks = [dataclasses.replace(tm, aptitude=add(tm.aptitude), spread=add(tm.spread), completion=add(tm.completion))
             for tm in gm.tasks]
    return dataclasses.replace(gm, models=[*gm.models, *names],
                               families={**gm.families, **{n: gm.families[gm.models[i]] for n, i in zip(names, at)}},
                               methods=["vanilla"], usd_in=add(gm.usd_in), usd_out=add(gm.usd_out), fee=add(gm.fee),
                               refine_gain=add(gm.refine_gain), format_error=add(gm.format_error), tasks=tasks,
                               steps=[*gm.steps, names], generator=kt.OWN)


def cheapest_among_twins(gm: kt.GenerativeModel, sets: int, workers: int) -> tuple[float, int]:
    """(% of (set, dataset) pairs in which the cheapest claim names a model, pairs) where every model has a twin, on
    the own family's generator: each such claim is false (the named model's twin truly costs the same)."""
    twins = twin_model(gm, every=True)
    reps = forked_map(lambda s, g: policy_study.repetition(twins, s, g, 0.95, (statistic.TABLE1,)),
                      [(950_000 + r, kt.OWN) for r in range(sets)], workers)
    named = np.array([np.any([v["cheapest"] for key, v in r.items() if key.kind == statistic.TABLE1], axis=0)
                      for r in reps])  # (sets, T)
    return 100 * float(named.mean()), named.size


def twin_false_findings(gm: kt.GenerativeModel, sets: int, workers: int) -> tuple[float, float, int]:
    """(% of (set, dataset) pairs whose twins' paired interval excludes 0, its coverage of the true difference (%),
    pairs) on the own family's generator."""
    twin = twin_model(gm)
    drawn = forked_map(lambda s, g: policy_study.draw_set(twin, s, g), [(900_000 + r, kt.OWN) for r in range(sets)],
                          workers)
    a, b = np.triu_indices(len(twin.models), 1)  # ``differences.all_pairs``' order over the models' columns
    q = int(np.flatnonzero((a == 0) & (b == len(twin.models) - 1))[0])  # the first model and its twin
    low, high = np.array([p.low[:, q] for _, p, _ in drawn]), np.array([p.high[:, q] for _, p, _ in drawn])
    truth = np.array([p.truth[:, q] for _, p, _ in drawn])  # 0 on every problem: the same profile
    found, held, n = int(((low > 0) | (high < 0)).sum()), int(((low <= truth) & (truth <= high)).sum()), low.size
    return 100 * found / max(n, 1), 100 * held / max(n, 1), n


GAIN_PCT = 50.0  # the smallest true technique gain whose power the docs print (issue 61: power ≥ 80% at ≥ 50%)
DOC = "docs/statistics.md#measured"  # the table of docs/statistics.md this output writes (``readme_figures``)


def spread(values: pd.Series, digits: int = 1, unit: str = "") -> str:
    """"a–b<unit>" over the generators (the unit once, at the end), the largest named apart where it is over 1.5× the
    next (one generator's outlier)."""
    s = values.dropna().sort_values()
    if s.empty:
        return "–"
    def f(x):  # a share below 100% never prints as 100 (review 12, L4: a power of 99.586% read "100%")
        more = next((d for d in range(digits, digits + 4) if unit != "%" or x >= 100 or round(x, d) < 100), digits + 3)
        return f"{x:.{more}f}"
    if len(s) >= 3 and s.iloc[-1] > 1.5 * s.iloc[-2] > 0:
        return f"{f(s.iloc[0])}–{f(s.iloc[-2])}{unit} ({f(s.iloc[-1])}{unit} under {s.index[-1]})"
    return f"{f(s.iloc[0])}{unit}" if s.iloc[0] == s.iloc[-1] else f"{f(s.iloc[0])}–{f(s.iloc[-1])}{unit}"


def docs_table(table: pd.DataFrame, effect: pd.DataFrame, twin: tuple[float, float, int],
               twins: tuple[float, int]) -> list[str]:
    """The markdown table of docs/statistics.md's measured section, every number from this run."""
    def col(label, c):
        return table[table["statistic"] == label].set_index("generator")[c]
    t1, front, pairs = statistic.FAMILY_LABELS["table1"], statistic.POLICY_FRONTIER.label, policy_study.PAIRS
    gains = statistic.FAMILY_LABELS["technique gain"]
    gain = effect[effect["true gain %"] >= GAIN_PCT]  # the "a technique whose true gain is ≥ 50%"
    none = effect[effect["true gain %"].abs() < 1]  # where self-refine truly gains nothing: a finding there is false
    named = "; ".join(f"{r.task} {r['named best %']:.0f}%" for _, r in gain.iterrows())
    oracle = "; ".join(f"{r.task} {r['oracle named %']:.0f}%" for _, r in gain.iterrows())
    wrong = "; ".join(f"{r.task} {r['named best %']:.0f}%" for _, r in none.iterrows())
    by_difference = "; ".join(f"{r.task} {r['difference oracle named %']:.0f}%" for _, r in gain.iterrows())
    share, held, n = twin
    rows = [
        ("each model alone: coverage", spread(col(t1, "coverage_pct"), 1, "%"),
         "its interval holds the cost of the dataset's problems"),
        ("each model alone: width ÷ the narrowest valid width", spread(col(t1, "width_vs_oracle"), 2),
         "1 would be as narrow as the estimate's own spread over the sets allows"),
        ("two models paired on the same problems: coverage", spread(col(pairs, "coverage_pct"), 1, "%"),
         "the difference's interval holds the true difference"),
        ("paired: width ÷ the narrowest valid width", spread(col(pairs, "width_vs_oracle"), 2), ""),
        ("paired: power where one costs at most half the other", spread(col(pairs, "power_pct"), 0, "%"),
         "the share of such pairs whose paired interval excludes 0"),
        ("paired: the same power for an interval as narrow as the oracle's",
         spread(col(pairs, "oracle_power_pct"), 0, "%"),
         "the most any valid interval around this estimate can find (its half-width: 1.96 × the estimate's spread "
         "over the sets, which no single set reveals)"),
        ("paired: found on the wrong side", spread(col(pairs, "false_findings_pct"), 3, "%"), ""),
        (f"equal options (a model's twin, {n} datasets)",
         f"{share:.1f}% found a difference; the interval held 0 in {held:.1f}%",
         f"a 95% interval that holds its truth finds a difference between equal options 5% of the time (± "
         f"{100 * (0.05 * 0.95 / max(n, 1)) ** 0.5:.1f} over {n} datasets by chance): "
         "the most the cheapest claim errs where two models tie for cheapest; techniques and families are named at "
         "the level that holds for all of a dataset's at once (Holm)"),
        ('"cheapest model" named wrongly', spread(col(t1, "false_findings_pct"), 1, "%"),
         "named only where its paired 95% interval with every other model lies below 0 (a wrong claim needs the one "
         "against the truly cheapest to err)"),
        (f'"cheapest model" named where every model has an equal twin ({twins[1]} datasets)', f"{twins[0]:.1f}%",
         "each such claim is false: the named model's twin truly costs the same"),
        ('"cheapest model" named where it costs at most half the runner-up', spread(col(t1, "power_pct"), 1, "%"),
         "the share of such datasets in which the claim is made"),
        ("the frontier's truth ÷ the best single model's at the same k, six datasets together",
         spread(col(front, "vs_best_single"), 2),
         "1: the frontier truly costs what the best single model does; above 1: what choosing on the records costs; "
         "below 1: what routing each problem to its own model saves"),
        ("the same, the worst dataset", spread(col(front, "vs_best_single_worst"), 2),
         "the largest of the six datasets' ratios"),
        ("the frontier: coverage", spread(col(front, "coverage_pct"), 1, "%"),
         "its interval holds what the models routed to each problem truly cost (`policy.chosen_interval`: the "
         "per-problem interval, the fee part from each problem's posterior)"),
        ("the frontier: width ÷ oracle", spread(col(front, "width_vs_oracle"), 2), ""),
        ("Table 5, accuracy: coverage; width ÷ oracle", f"{spread(col(ACCURACY.label, 'coverage_pct'), 1, '%')}; "
         f"{spread(col(ACCURACY.label, 'width_vs_oracle'), 2)}",
         "Jeffreys' at the variance of the runs alone, each problem's spread read under the dataset's fitted Beta "
         "prior (`benchmarks/accuracy_interval.py`: at 2-8 runs)"),
        ("Table 6, USD per attempt: coverage; width ÷ oracle",
         f"{spread(col(COST_PER_ATTEMPT.label, 'coverage_pct'), 1, '%')}; "
         f"{spread(col(COST_PER_ATTEMPT.label, 'width_vs_oracle'), 2)}", "Student's t over each problem's runs"),
        ("technique gains with no effect: coverage", spread(col(gains, "coverage_pct"), 1, "%"), ""),
        ("technique gains with no effect: named wrongly", spread(col(gains, "false_findings_pct"), 1, "%"), ""),
        ("technique gains: width ÷ oracle", spread(col(gains, "width_vs_oracle"), 2), ""),
        (f"a true self-refine gain (g = 0.5) of {GAIN_PCT:.0f}% or more: named", named or "–",
         "a gain is named only where its interval lies above 0"),
        ("the same gain, its paired difference at its own spread", by_difference or "–",
         "the difference of the costs without and with it above 0 at its true spread over the sets, one gain alone: "
         "how gains were named until Fieller's interval gave way to the delta method's at the estimate (2026-12-02), "
         "which reads the gain's own error instead"),
        ("the same gain, an interval as narrow as the gain's own oracle", oracle or "–",
         "the gain's own spread at this effect, one gain alone: where the technique's cost is a small share of the "
         "cost without it, the gain's error (a share of that ratio's) is far smaller than the difference's: the most "
         "naming can find"),
        ("the same effect where it truly gains nothing (under 1%): named", wrong or "–",
         "each such finding is false; a 95% interval that holds its truth lies wholly above it in at most 5% of sets"),
    ]
    return ["| measured | over the generators | what it says |", "|---|---|---|",
            *[f"| {a} | {b} | {c} |" for a, b, c in rows]]


def studied(params: str, sets: int, generators: int | None, seed: int = 0, n_runs: int | None = None):
    """(the set's context, its generative model (with ``n_runs`` runs per cell where given), ``policy_study.study``'s
    table on ``sets`` sets of each of the first ``generators`` generators, ``pick(label, columns)``: one statistic's
    rows by generator)."""
    ctx = prepare(load_params(params))
    gm = kt.generative_model(ctx)
    gm = gm if n_runs is None else dataclasses.replace(gm, n_runs=n_runs)
    table = policy_study.study(gm, va.study_generators(gm)[:generators], sets, seed=seed, workers=os.cpu_count() or 1)
    pd.set_option("display.width", 200)

    def pick(label, cols):
        return table[table["statistic"] == label].set_index("generator")[cols]
    return ctx, gm, table, pick


def main(sets: int = 100, generators: int | None = None, params: str = "params/sim.yaml") -> None:
    start = time.perf_counter()
    workers = os.cpu_count() or 1
    ctx, gm, table, pick = studied(params, sets, generators)
    print(f"{sets} simulated sets of the `{ctx.params.name}` set's shape per generator (SIMULATED), each judged "
          "against its own truth\n")
    print("Frontier of all models (one model per dataset, chosen for each problem on the other problems and half of "
          "its runs):")
    print(pick(statistic.POLICY_FRONTIER.label, ["coverage_pct", "width_vs_oracle", "vs_best_single",
                                                       "vs_best_single_worst"]).round(3).to_string())
    print("\nEvery pair of models alone, paired on the same problems and runs:")
    print(pick(policy_study.PAIRS, ["coverage_pct", "width_vs_oracle", "power_pct", "oracle_power_pct",
                                    "false_findings_pct"]).round(3)
          .to_string())
    print("\nEach model alone, and the cheapest claim (power: the truly cheapest at most half the runner-up):")
    print(pick(statistic.FAMILY_LABELS["table1"],
               ["coverage_pct", "width_vs_oracle", "power_pct", "false_findings_pct"])
          .round(3).to_string())
    for kind in (ACCURACY, COST_PER_ATTEMPT):
        print(f"\n{kind.label}, each model's interval (``means``):")
        print(pick(kind.label, ["coverage_pct", "width_vs_oracle", "rel_bias_pct"]).round(3).to_string())
    print("\nTechnique gains with no true effect:")
    print(pick(statistic.FAMILY_LABELS["technique gain"],
               ["coverage_pct", "width_vs_oracle", "false_findings_pct"]).round(3)
          .to_string())
    effect = policy_study.effect_table(kt.generative_model(ctx, refine_gain=0.5), sets, workers=workers)
    print("\nA true self-refine effect g = 0.5 on the own generator (named: the gain's interval above 0):")
    print(effect[["task", "true gain %", "mean gain %", "coverage %", "named best %", "oracle named %",
                  "difference oracle named %"]].round(1).to_string(index=False))
    twin = twin_false_findings(gm, sets, workers)
    share, held, n = twin
    print(f"\nEqual options (a twin of the first model, {n} set-dataset pairs): the paired interval excluded 0 in "
          f"{share:.2f}% and held the true difference 0 in {held:.1f}%")
    twins = cheapest_among_twins(gm, sets, workers)
    print(f"\nEvery model with an equal twin ({twins[1]} set-dataset pairs): the cheapest claim was made (falsely) in "
          f"{twins[0]:.2f}%")
    print(f"\n<!-- {DOC}: start -->", *docs_table(table, effect, twin, twins), f"<!-- {DOC}: end -->", sep="\n")
    print(f"\nwall {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]), *sys.argv[3:4])
