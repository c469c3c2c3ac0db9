"""Can the racing design's forecast bill be trusted? (issue 66, item 3) — forecasts against actual bills, known truth.

The `sim_racing` set (the `sim` set's six datasets and ten SIMULATED models, two collected methods, 8 runs, the
racing design's defaults) has a generative model (``analyze.known_truth``: the one the `sim` backend draws from), so
fresh sets of its shape can be drawn and their racing bill computed without a call. For each of ``truths`` sets per
generator (the set's own, then departures from it, ``known_truth.GENERATORS``): the set is drawn (``draw_cube``), its
Table-1 sample taken (the set's seed is the truth's), the race replayed on its records (``collect.racing.replay``,
exactly as the collection decides) and its **actual bill** summed (every USD of every cell it ran); the **forecast**
(``collect.forecast.simulate``, what `cost-of-pass run --dry-run` prints) is made from the sample's records alone (the
pilot) and the token model's USD per attempt (``grade.forecast.cell_usd``), and also before any record (the prior).
Printed per generator: the coverage of the 90% range (the share of actual bills inside it, target >= 90%, with its
binomial standard error), the mean width of the range over the expected bill, the bias of the expected bill
(mean of expected / actual - 1) and the actual bill's mean. SIMULATED.

    COP_DATA_DIR=../shared/data .venv/bin/python benchmarks/racing_forecast.py [truths per generator, default 50]
"""

from __future__ import annotations

import sys
import time

import numpy as np
import pandas as pd

from helpers.analyze import known_truth as kt
from helpers.analyze.racing_study import race_mask
from helpers.collect import forecast as fc
from helpers.collect import racing
from helpers.core.context import prepare
from helpers.core.params import load_params
from helpers.grade.forecast import cell_usd
from helpers.grade.race_cells import protected_subsets

SET = "params/sim_racing.yaml"
DEPARTURES = ("interaction sd 1", "heavy-tailed attempt costs (Pareto, tail 2.5)", "bimodal difficulty")


def token_usd(ctx) -> dict[str, pd.DataFrame]:
    """Per dataset, the token model's USD per attempt: prompt index (the set's problem order) x option."""
    from helpers.collect.plan import plan_for

    usd = cell_usd(ctx, plan_for(ctx.params, ctx.problems, ctx.models), fresh=True)["attempt_usd"]
    out = {}
    for t, ps in ctx.problems.items():
        wide = usd.loc[t].unstack("option")
        out[t] = wide.reindex([q.problem_id for q in ps]).reset_index(drop=True)
    return out


def cases_of(gm, cube, expert, sample, prompts, ledger, subsets, settings,
             pilot: bool) -> tuple[list[fc.TaskCase], float]:
    """The forecast's inputs for one drawn set (``prompts``: per dataset, each drawn problem's prompt index), and the
    USD already spent (the recorded pilot's, or 0)."""
    n = gm.n_runs
    passes, runs = cube.correct.sum(axis=-1), cube.runs
    with np.errstate(invalid="ignore"):
        usd = np.nanmean(cube.usd, axis=-1)  # (P, S) measured USD per attempt
    cases, spent = [], 0.0
    for t, tm in enumerate(gm.tasks):
        rows = np.flatnonzero(cube.task_codes == t)
        mine, drawn = sample[rows], rows[sample[rows]]
        token = ledger[tm.task].reindex(columns=cube.strategies).to_numpy(float)[prompts[t]]
        cells = pd.DataFrame({"option": np.tile(cube.strategies, len(drawn)), "cost_usd": usd[drawn].ravel(),
                              "runs": runs[drawn].ravel()})
        expected = (racing.expected_usd(cells) if pilot else
                    dict(zip(cube.strategies, token[mine].mean(axis=0))))
        race = racing.make_race(expected, subsets, settings.margin)
        order = [cube.strategies.index(o) for o in race.options]
        raced = rows[~mine]
        the_pilot = fc.Pilot(passes[drawn][:, order].astype(float), runs[drawn][:, order].astype(float),
                             usd[drawn][:, order], token[mine][:, order]) if pilot else None
        sample_usd = np.zeros(len(order)) if pilot else n * token[mine][:, order].sum(axis=0)
        cases.append(fc.TaskCase(race, token[~mine][:, order], n * token[~mine][:, order], expert[raced], n,
                                 sample_usd, the_pilot))
        spent += float(np.nansum(cube.usd[drawn])) if pilot else 0.0
    return cases, spent


def one_truth(gm, seed: int, generator, ledger, subsets, settings, draws: int) -> dict:
    """One drawn set: its actual racing bill and both forecasts' (expected, low, high)."""
    rng = np.random.default_rng(seed)
    problems = kt.draw_problems(gm, rng, generator)
    cube, expert = kt.draw_cube(gm, rng, problems)
    raced, sample = race_mask(gm, cube, expert, settings, seed)
    actual = float(np.nansum(np.where((raced | sample[:, None])[..., None], cube.usd, 0.0)))
    out = {"actual": actual}
    for name, pilot in (("pilot", True), ("prior", False)):
        cases, spent = cases_of(gm, cube, expert, sample, [p.prompt for p in problems], ledger, subsets, settings,
                                pilot)
        totals = spent + fc.simulate(cases, draws, seed, settings.alpha)
        out[name] = (totals.mean(), *np.quantile(totals, [(1 - fc.LEVEL) / 2, (1 + fc.LEVEL) / 2]))
    return out


def report(name: str, results: list[dict]) -> None:
    actual = np.array([r["actual"] for r in results])
    print(f"\n{name}: {len(results)} simulated sets, actual racing bill mean ${actual.mean():,.2f} "
          f"(min ${actual.min():,.2f}, max ${actual.max():,.2f})")
    print(f"  {'forecast from':<8} {'coverage of the 90% range':>26} {'width / expected':>17} "
          f"{'bias (expected/actual-1)':>25}")
    for source in ("pilot", "prior"):
        e, lo, hi = (np.array([r[source][i] for r in results]) for i in range(3))
        inside = (lo <= actual) & (actual <= hi)
        cov, se = inside.mean(), np.sqrt(inside.mean() * (1 - inside.mean()) / len(inside))
        print(f"  {source:<13} {100 * cov:>13.1f}% ± {100 * se:3.1f} {np.mean((hi - lo) / e):>17.2f} "
              f"{100 * np.mean(e / actual - 1):>+24.1f}%")


def main(truths: int) -> None:
    start = time.perf_counter()
    ctx = prepare(load_params(SET))
    gm, settings, draws = kt.generative_model(ctx), ctx.params.racing, fc.DRAWS
    ledger, subsets = token_usd(ctx), protected_subsets(ctx)
    generators = [gm.generator] + [g for g in kt.GENERATORS if g.name in DEPARTURES]
    print(f"{SET}: {truths} simulated sets per generator; the race with Table-1 share {settings.table1_share:.0%}, "
          f"margin {settings.margin:g}, protect {', '.join(settings.protect)}; forecasts of {draws} simulated races "
          f"each, range {fc.LEVEL:.0%} (5th-95th percentile)")
    for i, g in enumerate(generators):
        results = [one_truth(gm, 1_000 * i + s, g, ledger, subsets, settings, draws) for s in range(truths)]
        report(g.name, results)
    print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 50)
