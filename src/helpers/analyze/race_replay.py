"""Racing on records you have (issue 66, item 4): the racing design's rule (``collect.racing``) replayed on a set's
own records — an imported set, or a uniform set's records read again with ``design: racing`` and ``racing.replay``.

The records hold every option on every run of every problem (the uniform design's sample). The rule is replayed on
them as a racing set would have run it (``collect.racing.replay``: every option on the set's seeded Table-1 sample,
elsewhere options cheapest first, each only where it could still change a protected frontier), and two things are
read off: the bill (the calls and USD of the records the race would have made, against all of them), and, for each
figure the race protects or reports, whether the race's version — computed from the records it would have kept, as a
racing set's report computes it (protected: every problem's kept records; not protected: the Table-1 sample alone;
Table 1: every kept record weighted by the inverse of its chance of being kept, ``analyze.inclusion``) — is identical
to the uniform one computed from all the same records. ``benchmarks/racing.py`` repeats this over many seeds of the
sample. Pure functions: no file, no notebook.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from helpers.analyze import costofpass as cp
from helpers.analyze.inclusion import inclusion_frame
from helpers.collect import racing
from helpers.core.models import technique_base

BASE = "vanilla"  # the base method: the frontiers of Figures 2-5 are its options'
KIND = {"frontier": "frontier", "vanilla frontier": "frontier", "Figure 2": "releases", "Figure 3": "families",
        "Figures 4-5": "models"}  # a figure -> the racing.protect choice that keeps it exact (Table 2: techniques)
LABELS = {"frontier": "the frontier, every option (Eq. 9)", "vanilla frontier": "the frontier of the vanilla options",
          "Figure 2": "Figure 2: the frontier over releases", "Figure 3": "Figure 3: each family left out",
          "Figures 4-5": "Figures 4-5: each model left out", "Table 1": "Table 1: each model alone, then the expert"}
FIGURE_COLUMNS = ["figure", "label", "protected", "from", "values", "identical", "differing", "largest_difference",
                  "largest_relative_pct"]
BILL_COLUMNS = ["design", "calls", "usd", "calls_pct", "usd_pct"]


def cells_of(attempts: pd.DataFrame, methods: list[str] | None = None) -> tuple[pd.DataFrame, dict]:
    """The race's cells from graded attempts (complete ones; of ``methods`` only, if given): one row per task,
    problem_id (strings) and option with ``cost_usd`` (mean USD per attempt), ``passes``, ``runs``, ``usd`` and
    ``calls`` (sums); and the options: name -> (model, method)."""
    from helpers.grade.estimates import strategy_names

    done = attempts[attempts["complete"]]
    if methods is not None:
        done = done[done["method"].isin(methods)]
    done = done.assign(option=strategy_names(done["model"], done["method"]).astype(str),
                       passes=done["correct"].astype(float))
    cells = (done.groupby(["task", "problem_id", "option"], observed=True)
             .agg(cost_usd=("usd", "mean"), passes=("passes", "sum"), runs=("usd", "size"), usd=("usd", "sum"),
                  calls=("calls", "sum")).reset_index().astype({"task": str, "problem_id": str}))
    pairs = done[["option", "model", "method"]].drop_duplicates().astype(str)
    return cells, {o: (m, me) for o, m, me in pairs.itertuples(index=False)}


def problem_keys(frame: pd.DataFrame) -> pd.MultiIndex:
    """The (task, problem_id) pairs of ``frame``'s rows, once each, as strings."""
    keys = frame[["task", "problem_id"]].astype(str).drop_duplicates()
    return pd.MultiIndex.from_frame(keys, names=["task", "problem_id"])


def cop_of(cells: pd.DataFrame, columns: list[str], problems: pd.MultiIndex | None = None) -> pd.DataFrame:
    """Cost-of-pass (USD) per problem (rows; ``problems`` if given: a problem no kept cell covers is there, all
    ``NaN``) and option (``columns``) of ``cells``; a cell not kept is ``NaN`` (never the cheapest)."""
    cop = cells.assign(v=cp.cost_of_pass(cells["cost_usd"], cells["passes"] / cells["runs"])).pivot_table(
        index=["task", "problem_id"], columns="option", values="v", aggfunc="first")
    cop = cop.reindex(columns=columns)
    return cop if problems is None else cop.reindex(index=problems)


def figures(cells: pd.DataFrame, options: dict, families, releases, expert: pd.Series,
            problems: pd.MultiIndex | None = None) -> dict[str, pd.Series]:
    """Every frontier figure of the report from ``cells`` (cells not kept are absent), each flattened to a Series:
    the frontier of every option and of the vanilla ones, Figure 2 (over releases), Figure 3 (each family left out),
    Figures 4-5 (each model left out) and Table 2 per other method (M_L with and without it). ``families``,
    ``releases``: model -> family, release date (mappings); ``expert``: USD per (task, problem_id)."""
    cop = cop_of(cells, list(options), problems)
    base = [o for o, (_, me) in options.items() if me == BASE]
    models = {o: options[o][0] for o in base}
    fam = pd.Series({o: families[m] for o, m in models.items()}, dtype=object)
    rel = pd.Series({o: releases[m] for o, m in models.items()})
    out = {"frontier": cp.frontier(cop, list(options), expert), "vanilla frontier": cp.frontier(cop, base, expert),
           "Figure 2": cp.frontier_over_time(cop, rel, expert).set_index(["task", "released"])["frontier_usd"],
           "Figure 3": cp.family_counterfactual(cop, fam, expert).stack(),
           "Figures 4-5": cp.single_model_counterfactual(cop, base, expert).stack()}
    listed = list(dict.fromkeys(models.values()))
    light = set(technique_base({m: families[m] for m in listed}, listed))
    base_l = [o for o in base if models[o] in light]
    for method in sorted({me for _, me in options.values()} - {BASE}):
        extra = [o for o, (m, me) in options.items() if me == method and m in light]
        if extra:
            out[f"Table 2 ({method})"] = cp.technique_gain(cop, base_l, base_l + extra, expert)
    return out


def table1(cells: pd.DataFrame, options: dict, expert: pd.Series, weights: pd.DataFrame | None = None,
           problems: pd.MultiIndex | None = None) -> pd.Series:
    """Table 1 of every vanilla option (``costofpass.single_model_frontier``), (task, option) -> USD; ``weights``:
    each (problem, option) cell's weight, as a racing set's (``inverse_chance``)."""
    base = [o for o, (_, me) in options.items() if me == BASE]
    return cp.single_model_frontier(cop_of(cells, base, problems), expert, weights).stack()


def inverse_chance(cells: pd.DataFrame, ran: pd.DataFrame, chosen: set) -> pd.DataFrame:
    """A racing set's Table-1 weights (``analyze.inclusion.inclusion_frame``) over every problem and option of
    ``cells``, from the replay's decisions (``ran``'s ``raced``) and its Table-1 sample ``chosen``."""
    raced = ran.pivot_table(index=["task", "problem_id"], columns="option", values="raced", aggfunc="first")
    grid = cells.pivot_table(index=["task", "problem_id"], columns="option", values="runs", aggfunc="first")
    raced = raced.reindex(index=grid.index, columns=grid.columns).fillna(False).astype(bool)
    return inclusion_frame(raced, pd.Series([k in chosen for k in grid.index], index=grid.index))


def differences(value: pd.Series, uniform: pd.Series) -> pd.Series:
    """|value − uniform| per item of ``uniform`` (``value`` read on its index; an item it lacks is ``inf``): 0 where
    they are identical (equal to the last few bits, both the same infinity, or both undefined)."""
    present = uniform.index.isin(value.index)
    v, u = value.reindex(uniform.index).to_numpy(float), uniform.to_numpy(float)
    with np.errstate(invalid="ignore"):
        same = (np.isclose(v, u, rtol=1e-12, atol=0) | (np.isinf(v) & np.isinf(u) & (np.sign(v) == np.sign(u)))
                | (np.isnan(v) & np.isnan(u) & present))
        diff = np.where(same, 0.0, np.abs(v - u))
    return pd.Series(np.where(np.isnan(diff), np.inf, diff), index=uniform.index)


@dataclass(frozen=True)
class Replay:
    """One replay of the race on a set's records: ``bill`` (``BILL_COLUMNS``: the uniform design's records, the
    race's Table-1 sample, the race elsewhere, the race in all; calls, USD and their % of the uniform ones),
    ``figures`` (``FIGURE_COLUMNS``: per figure whether the race's version is identical to the uniform one), the
    Table-1 sample's problems, the records' problems, the settings replayed."""

    bill: pd.DataFrame
    figures: pd.DataFrame
    sample_problems: int
    problems: int
    share: float
    protect: tuple[str, ...]

    @property
    def usd_share(self) -> float:
        """The race's USD as a share of the uniform design's (0-1)."""
        usd = self.bill.set_index("design")["usd"]
        return float(usd[RACE] / usd[UNIFORM]) if usd[UNIFORM] > 0 else float("nan")


UNIFORM, SAMPLE, ELSEWHERE, RACE = ("uniform: these records", "racing: the Table-1 sample",
                                    "racing: the race on the other problems", "racing in all")


def bill(cells: pd.DataFrame, ran: pd.DataFrame, in_sample: np.ndarray) -> pd.DataFrame:
    """Calls and USD of the records (``cells``) and of those the race would have made (``ran``; ``in_sample``: which
    of its rows are on the Table-1 sample), each also as % of the records' (``BILL_COLUMNS``)."""
    parts = {UNIFORM: cells, SAMPLE: ran[in_sample], ELSEWHERE: ran[~in_sample], RACE: ran}
    total_calls, total_usd = float(cells["calls"].sum()), float(cells["usd"].sum())
    rows = [{"design": name, "calls": float(part["calls"].sum()), "usd": float(part["usd"].sum())}
            for name, part in parts.items()]
    out = pd.DataFrame(rows, columns=BILL_COLUMNS[:3])
    with np.errstate(invalid="ignore", divide="ignore"):
        out["calls_pct"] = 100 * out["calls"] / total_calls
        out["usd_pct"] = 100 * out["usd"] / total_usd
    return out


def _verdict(name: str, protected: bool, source: str, value: pd.Series, uniform: pd.Series) -> dict:
    d = differences(value, uniform)
    with np.errstate(invalid="ignore", divide="ignore"):
        rel = (100 * d / uniform.abs()).where(d > 0, 0.0).fillna(np.inf)  # a difference from 0 is infinitely large
    label = LABELS.get(name, f"{name}: the method's gain on M_L")
    return {"figure": name, "label": label, "protected": protected, "from": source, "values": len(d),
            "identical": bool((d == 0).all()), "differing": int((d > 0).sum()),
            "largest_difference": float(d.max()) if len(d) else 0.0,
            "largest_relative_pct": float(rel.max()) if len(d) else 0.0}


def verdicts(cells: pd.DataFrame, ran: pd.DataFrame, chosen: set, options: dict, families, releases,
             expert: pd.Series, protect) -> pd.DataFrame:
    """Per figure (``figures``, then Table 1): the race's version, as a racing set's report computes it from the
    records the race kept (``ran``; ``chosen``: the Table-1 sample's (task, problem_id)), against the uniform one from
    every record (``cells``): ``FIGURE_COLUMNS``. A protected figure is read from every problem's kept records, one
    not protected from the Table-1 sample alone, Table 1 from every kept record weighted (``inverse_chance``)."""
    problems = problem_keys(cells)
    on_sample = problems[[k in chosen for k in problems]]
    sample = ran[[k in chosen for k in zip(ran["task"], ran["problem_id"])]]
    full = figures(cells, options, families, releases, expert, problems)
    kept = figures(ran, options, families, releases, expert, problems)
    sampled = figures(sample, options, families, releases, expert, on_sample)
    rows = []
    for name, uniform in full.items():
        protected = KIND.get(name, "techniques") in protect
        rows.append(_verdict(name, protected, "every problem" if protected else "Table-1 sample",
                             kept[name] if protected else sampled[name], uniform))
    weights = inverse_chance(cells, ran, chosen)
    rows.append(_verdict("Table 1", False, "every problem, weighted", table1(ran, options, expert, weights, problems),
                         table1(cells, options, expert, None, problems)))
    return pd.DataFrame(rows, columns=FIGURE_COLUMNS)


def replay(cells: pd.DataFrame, options: dict, families, releases, expert: pd.Series, settings,
           seed: int) -> Replay:
    """The race replayed once on ``cells`` (``cells_of``) with ``settings`` (``params.Racing``: its Table-1 share,
    margin, alpha and protected figures) and the Table-1 sample of ``seed``: its bill and its figures' verdicts.
    ``families``, ``releases``: model -> family, release date (in the set's order); ``expert``: USD per (task,
    problem_id), strings."""
    subsets = racing.report_subsets(options, dict(families), dict(releases), settings.protect, BASE)
    decided = racing.replay(cells, expert, subsets, settings.table1_share, seed, settings.margin, settings.alpha)
    ran = decided[decided["ran"]].reset_index(drop=True)
    ids = cells.groupby("task", sort=False)["problem_id"].unique().to_dict()
    chosen = racing.table1_sample(ids, settings.table1_share, seed)
    in_sample = np.array([k in chosen for k in zip(ran["task"], ran["problem_id"])], dtype=bool)
    return Replay(bill(cells, ran, in_sample),
                  verdicts(cells, ran, chosen, options, families, releases, expert, settings.protect),
                  len(chosen), len(problem_keys(cells)), settings.table1_share, tuple(settings.protect))


def replay_set(an) -> Replay:
    """``replay`` on an analysis's records (``analyze.estimates.Analysis``; its models kept out as ``table1_only``
    are not in them), with the set's ``racing`` settings and seed, over the options a racing set would collect."""
    from helpers.core.methods import collected_methods

    p = an.ctx.params
    cells, options = cells_of(an.attempts, [m.name for m in collected_methods(p.methods)])
    expert = an.expert.set_axis(pd.MultiIndex.from_tuples([(str(t), str(q)) for t, q in an.expert.index],
                                                          names=["task", "problem_id"]))
    return replay(cells, options, an.families.to_dict(), an.releases.to_dict(), expert, p.racing, p.seed)


def _usd(x: float) -> str:
    from helpers.core.numbers import sig

    return f"{x:,.2f}" if abs(x) >= 100 else sig(x)


def summary(r: Replay) -> str:
    """The replay in one plain-text paragraph (every number from ``r``): what the race would have spent, and which
    figures it would have kept identical."""
    b = r.bill.set_index("design")
    same = r.figures.loc[r.figures["identical"], "figure"].tolist()
    differ = r.figures.loc[~r.figures["identical"], "figure"].tolist()
    text = (f"Replayed on these records with the set's racing settings (every option on every run of the Table-1 "
            f"sample, {r.sample_problems:,} of the {r.problems:,} problems, {r.share:.0%} of each dataset's; elsewhere "
            f"options cheapest first, each only where it could still change a protected frontier: "
            f"{', '.join(r.protect)}), the racing design would have made {b.at[RACE, 'calls']:,.0f} of their "
            f"{b.at[UNIFORM, 'calls']:,.0f} calls and spent {_usd(b.at[RACE, 'usd'])} of their "
            f"{_usd(b.at[UNIFORM, 'usd'])} USD ({b.at[RACE, 'usd_pct']:.1f}%). From the records it would have kept, "
            f"as a racing set's report computes them, {len(same)} of the {len(r.figures)} figures are identical to "
            f"the uniform design's from the same records")
    return text + (f"; not identical: {', '.join(differ)}." if differ else ".")


def cli_line(r: Replay) -> str:
    """The replay in one terminal line."""
    b = r.bill.set_index("design")
    differ = r.figures.loc[~r.figures["identical"], "figure"].tolist()
    return (f"racing replayed on these records: {_usd(b.at[RACE, 'usd'])} of {_usd(b.at[UNIFORM, 'usd'])} USD "
            f"({b.at[RACE, 'usd_pct']:.1f}%), {b.at[RACE, 'calls']:,.0f} of {b.at[UNIFORM, 'calls']:,.0f} calls; "
            f"{int(r.figures['identical'].sum())} of {len(r.figures)} figures identical"
            + (f" (not: {', '.join(differ)})" if differ else ""))


def raced_bill(an) -> tuple[float, float]:
    """A racing set's bill in USD (``an``: its analysis, with ``full``): (what its records cost, what the uniform
    design would have cost). The second is an estimate: the records' USD plus, for each task and option, the attempts
    the race did not make (the task's problems x the set's runs, less those recorded) at that option's mean USD per
    attempt on the Table-1 sample, where every option made every run."""
    full = an.full.attempts
    keys = ["task", "model", "method"]
    spent = float(full["usd"].sum())
    made = full.groupby(keys, observed=True).size()
    mean = an.attempts.groupby(keys, observed=True)["usd"].mean()
    problems = an.full.expert.groupby(level=0).size()  # problems per task
    uniform = problems.reindex(mean.index.get_level_values("task")).to_numpy() * an.ctx.params.n_runs
    skipped = np.maximum(uniform - made.reindex(mean.index).fillna(0).to_numpy(), 0)
    return spent, spent + float((skipped * mean.to_numpy()).sum())
