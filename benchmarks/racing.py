"""What would the racing design have cost, and what would it have changed? (issue 37, item 4) — replayed on records.

For each set given (its records on disk, made by the uniform design: every option on every run of every problem), the
racing rule (``helpers.collect.racing``) is replayed ``replays`` times, each with another seed of its Table-1 sample
(the problems every option runs on, and the calibration of the expected USD per attempt): an option's records on a
problem are kept only where the rule would have run it. It does so for several choices of ``racing.protect`` and
``racing.table1_share`` (``VARIANTS``), and prints the calls and USD the racing design would have made against the
uniform design's, and the largest difference between each statistic as a racing set computes it (from the kept
records where protected, else from the Table-1 sample) and as the uniform design's records give it: the frontier
(Eq. 9) per dataset, Figure 2's frontier over releases, Figure 3's family counterfactuals, Figures 4-5's single-model
counterfactuals and Table 2's technique gains — each also in units of the uniform estimate's standard error over
problems (a bootstrap of the problems, 200 replicates). Table 1 under racing, against the uniform design's: its
relative RMSE over the replays (each model and dataset), from the Table-1 sample alone and as a racing set computes it,
from every kept record weighted by the inverse of its chance of being kept (``analyze.inclusion``).

Beside the uniform and racing bills, the batch ones (issue 66): the batch bill is the uniform design's records priced
in the batch tier (each model's ``batch_discount`` off its tokens, as ``core.prices.cost_usd`` prices a record with
``service_tier: batch``), racing + batch racing's kept records so priced; all as shares of the uniform bill at list
prices. A batch run makes the same calls as a sync one, so its figures at list prices are the sync run's by
construction, and racing + batch's are racing's.

    COP_DATA_DIR=../shared/data .venv/bin/python benchmarks/racing.py [replays, default 30] [params/<set>.yaml[:vanilla]
    ...] [--se-replicates=N, default 200]

``:vanilla`` replays only the set's vanilla options (the HumanEval agent strategies are imported, never collected).
"""

from __future__ import annotations

import sys
import time

import numpy as np
import pandas as pd

from helpers.analyze import race_replay
from helpers.analyze.estimates import load_analysis
from helpers.collect import racing
from helpers.core.context import prepare
from helpers.core.methods import collected_methods
from helpers.core.params import load_params

TARGET = 0.125  # issue 66: the protected figures for at most this share of the uniform bill at list prices
SHARE = 0.1  # the Table-1 sample: a tenth of each task's problems (the default of racing.table1_share)
SETS = ("params/humaneval_agents.yaml:vanilla", "params/sim.yaml")
VARIANTS = ((racing.PROTECTED, SHARE),
            (("frontier", "releases", "models", "techniques"), SHARE), (("frontier",), SHARE),
            (("frontier",), 0.05), (("frontier",), 0.04))  # (racing.protect, racing.table1_share)


def load(spec: str):
    """The set's analysis, its cells (one row per task, problem and collected option: ``race_replay.cells_of``) and
    the options' models and methods."""
    path, _, only = spec.partition(":")
    an = load_analysis(prepare(load_params(path)))
    methods = ["vanilla"] if only else [m.name for m in collected_methods(an.ctx.params.methods)]
    cells, options = race_replay.cells_of(an.attempts, methods)
    return an, cells.assign(batch_usd=batch_usd(cells, options, an.ctx.snapshot)), options


def batch_usd(cells: pd.DataFrame, options: dict, snapshot) -> pd.Series:
    """Each cell's USD had its calls been made in the batch tier: its tokens' USD less its model's ``batch_discount``,
    the fee per call not discounted (``core.prices.cost_usd`` on records with ``service_tier: batch``)."""
    price = cells["option"].map(lambda o: snapshot.prices[options[o][0]])
    discount = price.map(lambda p: p.batch_discount).astype(float)
    fee = price.map(lambda p: p.usd_per_call).astype(float) * cells["calls"]
    return (cells["usd"] - fee) * (1.0 - discount) + fee


def statistics(cells: pd.DataFrame, an, options: dict, expert: pd.Series) -> dict[str, pd.Series]:
    """Every frontier statistic of the reports from ``cells`` (cells not run are absent), flattened to Series
    (``analyze.race_replay.figures``, what a replayed set's report compares too)."""
    return race_replay.figures(cells, options, an.families.to_dict(), an.releases.to_dict(), expert)


table1, inverse_chance = race_replay.table1, race_replay.inverse_chance  # Table 1, and a racing set's weights


def standard_errors(cells: pd.DataFrame, an, options, expert, replicates: int = 200,
                    seed: int = 0) -> dict[str, pd.Series]:
    """Each statistic's standard error over problems: a bootstrap of each task's problems."""
    rng = np.random.default_rng(seed)
    keys = cells[["task", "problem_id"]].drop_duplicates()
    draws = []
    for _ in range(replicates):
        pick = pd.concat([g.iloc[rng.integers(0, len(g), len(g))] for _, g in keys.groupby("task", sort=False)])
        pick = pick.assign(copy=np.arange(len(pick)))
        boot = cells.merge(pick, on=["task", "problem_id"]).assign(problem_id=lambda d: d["copy"].astype(str))
        fee = expert.reindex(pd.MultiIndex.from_frame(pick[["task", "problem_id"]])).set_axis(
            pd.MultiIndex.from_arrays([pick["task"], pick["copy"].astype(str)], names=["task", "problem_id"]))
        draws.append(statistics(boot.drop(columns="copy"), an, options, fee))
    return {k: pd.concat([d[k] for d in draws], axis=1).std(axis=1) for k in draws[0]}


KIND = race_replay.KIND  # the racing.protect choice that keeps a statistic exact (Table 2: techniques)


def replay_all(cells, an, options, expert, kinds, share: float, replays: int, full, se) -> tuple[pd.DataFrame, dict]:
    """``replays`` replays of the rule protecting ``kinds`` with a Table-1 sample of ``share`` of the problems: the
    calls and USD shares of each, and per statistic the largest absolute difference from the uniform design's value
    and the largest in standard errors. A statistic the rule does not protect is computed as a racing set computes it:
    from the Table-1 sample alone."""
    subsets = racing.report_subsets(options, an.families.to_dict(), an.releases.to_dict(), kinds)
    rows, worst = [], {k: (0.0, 0.0) for k in full}
    uniform_t1, errors = table1(cells, options, expert), []
    for seed in range(replays):
        ran = racing.replay(cells, expert, subsets, share, seed)
        ran = ran[ran["ran"]]
        rows.append({"calls": ran["calls"].sum() / cells["calls"].sum(), "usd": ran["usd"].sum() / cells["usd"].sum(),
                     "batch": ran["batch_usd"].sum() / cells["usd"].sum()})
        now = statistics(ran, an, options, expert)
        chosen = racing.table1_sample(cells.groupby("task")["problem_id"].unique().to_dict(), share, seed)
        sample = ran[[k in chosen for k in zip(ran["task"], ran["problem_id"])]]
        sampled = statistics(sample, an, options, expert)
        errors.append(pd.DataFrame({"sample": table1(sample, options, expert) / uniform_t1 - 1,
                                    "weighted": table1(ran, options, expert, inverse_chance(cells, ran, chosen))
                                    / uniform_t1 - 1}))
        for k in full:
            value = now[k] if KIND.get(k, "techniques") in kinds else sampled[k].reindex(full[k].index)
            same = np.isclose(value, full[k], rtol=1e-12, atol=0) | (np.isinf(value) & np.isinf(full[k]))
            diff = (value - full[k]).abs().where(~same, 0.0)
            rel = (diff / se[k]).replace([np.inf], np.nan).fillna(0.0)
            worst[k] = (max(worst[k][0], float(diff.max())), max(worst[k][1], float(rel.max())))
    rmse = pd.concat(errors).pow(2).groupby(level=[0, 1]).mean().pow(0.5).mul(100)  # (option, task) -> % of its value
    worst["Table 1"] = rmse
    return pd.DataFrame(rows), worst


def target_met(share: pd.DataFrame, worst: dict, kinds: tuple) -> str:
    """For the default racing settings (``racing.PROTECTED``): whether racing + batch met the target, every protected
    figure identical to the uniform design's for at most ``TARGET`` of its bill, in every replay."""
    if tuple(kinds) != tuple(racing.PROTECTED):
        return ""
    same = all(d == 0 for k, (d, _) in worst.items() if k != "Table 1" and KIND.get(k, "techniques") in kinds)
    met = "met" if same and share["batch"].max() <= TARGET else "not met"
    return f"; target (protected figures identical, ≤ {TARGET:.1%} of the uniform bill in every replay): {met}"


def main(replays: int, specs: list[str], se_replicates: int = 200) -> None:
    print(f"racing replayed on recorded sets: {replays} replays each (seeds 0..{replays - 1} of the Table-1 sample); "
          f"margin {racing.MARGIN}, Jeffreys {racing.ALPHA:.1%} lower bound")
    for spec in specs:
        start = time.perf_counter()
        an, cells, options = load(spec)
        expert = an.expert.set_axis(an.expert.index.map(lambda k: (str(k[0]), str(k[1]))))
        expert.index.names = ["task", "problem_id"]
        full = statistics(cells, an, options, expert)
        se = standard_errors(cells, an, options, expert, se_replicates)
        print(f"\n{spec}: {cells['task'].nunique()} task(s), {cells['problem_id'].nunique()} problems, "
              f"{len(options)} options, {int(cells['runs'].max())} runs; uniform: {int(cells['calls'].sum()):,} calls, "
              f"{cells['usd'].sum():,.2f} USD")
        batch = cells["batch_usd"].sum() / cells["usd"].sum()
        print(f"  batch (the same calls in the batch tier): USD {batch:.1%} of the uniform design's"
              f"{' (its prices give no batch_discount)' if batch == 1 else ''}; every figure identical to the uniform "
              "design's at list prices by construction (the same calls)")
        for kinds, sample_share in VARIANTS:
            name = f"protecting {', '.join(kinds)}; Table-1 sample {sample_share:.0%}"
            share, worst = replay_all(cells, an, options, expert, kinds, sample_share, replays, full, se)
            print(f"  racing, {name}: calls {share['calls'].mean():.1%} (min {share['calls'].min():.1%}, max "
                  f"{share['calls'].max():.1%}), USD {share['usd'].mean():.1%} (min {share['usd'].min():.1%}, max "
                  f"{share['usd'].max():.1%}) of the uniform design's; racing + batch USD {share['batch'].mean():.1%} "
                  f"(min {share['batch'].min():.1%}, max {share['batch'].max():.1%}){target_met(share, worst, kinds)}")
            rmse = worst.pop("Table 1")
            exact = int((rmse["weighted"] < 1e-9).sum())
            print(f"    {'Table 1':<24} relative RMSE over the replays, per model and dataset: from the Table-1 sample "
                  f"alone {rmse['sample'].min():.0f}–{rmse['sample'].max():.0f}%, weighted from every problem "
                  f"{rmse['weighted'].min():.0f}–{rmse['weighted'].max():.0f}% ({exact} of {len(rmse)} exact: the race "
                  f"ran them everywhere); median {rmse['sample'].median():.0f}% / {rmse['weighted'].median():.0f}%")
            for k, (absolute, rel) in worst.items():
                verdict = ("identical in every replay" if absolute == 0 else "largest difference "
                           f"{absolute:.4g} = {rel:.2f} SE")
                where = "" if KIND.get(k, "techniques") in kinds else " (from the Table-1 sample)"
                print(f"    {k:<24} {verdict}{where}")
        print(f"  ({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--se-replicates=")]
    se_reps = [int(a.split("=", 1)[1]) for a in sys.argv[1:] if a.startswith("--se-replicates=")]
    main(int(args[0]) if args else 30, args[1:] or list(SETS), *se_reps[-1:])
