"""From the grading stage's artifacts to the inputs of every analysis: per-problem estimates, the
cost-of-pass matrix, the expert's cost, and model metadata (see ``grade.estimates`` for strategy names)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

from helpers.analyze import costofpass as cop_math
from helpers.analyze.price_change import price_change_split
from helpers.core.context import Context
from helpers.core.experts import difficulties, expert_per_problem
from helpers.core.ledger import Entry, prices_as_of, snapshot_entries
from helpers.core.models import ModelSpec
from helpers.core.tasks import in_category_order
from helpers.grade.stage import read_graded

TABLE1_ONLY = " (Table 1 only)"  # the label suffix of a model the set keeps out of every other statistic


@dataclass
class Analysis:
    """Everything the analysis notebooks need for one parameter set."""

    ctx: Context
    attempts: pd.DataFrame  # graded attempts with usd
    estimates: pd.DataFrame  # per (task, problem_id, strategy): cost_usd, pass_rate, n, model, method
    cop: pd.DataFrame  # wide v(m, p), USD
    expert: pd.Series  # USD per problem
    full: "Analysis | None" = None  # design racing: every problem's records (this one: the Table-1 sample's)
    aside: "Analysis | None" = None  # the set's table1_only models: shown in Table 1, in no other statistic

    def protects(self, kind: str) -> bool:
        """Whether statistics of ``kind`` (``collect.racing.PROTECTED``) come from every problem's records (``full``):
        a racing set's protected frontiers; everything else is computed on the Table-1 sample (this analysis)."""
        return self.full is not None and kind in self.ctx.params.racing.protect

    def scope(self, kind: str) -> "Analysis":
        """The analysis statistics of ``kind`` are computed from: every problem's (``full``) where a racing set protects
        them, else this one (a uniform set's, or a racing set's Table-1 sample)."""
        return self.full if self.full is not None and self.protects(kind) else self

    @cached_property
    def table1_weights(self) -> pd.DataFrame | None:
        """A racing set's weight of each record in Table 1: per (task, problem_id) of every problem (``full``'s order)
        and option, the inverse of the cell's chance of being recorded (``analyze.inclusion``: 1 where the race runs it,
        the sample's inverse share on the Table-1 sample's other cells, 0 where nothing was recorded); None for a
        uniform set (every weight 1)."""
        if self.full is None:
            return None
        from helpers.analyze.inclusion import inclusion_frame
        from helpers.grade.racing import raced_cells

        cells = raced_cells(self.ctx, self.full.attempts)
        problems = self.full.cop.index
        keys = pd.MultiIndex.from_arrays([problems.get_level_values(0).astype(str),
                                          problems.get_level_values(1).astype(str)])
        raced = cells.pivot(index=["task", "problem_id"], columns="option",
                            values="raced").reindex(keys, fill_value=False)
        sample = cells.groupby(["task", "problem_id"], sort=False)["in_sample"].first().reindex(keys, fill_value=False)
        return inclusion_frame(raced, sample).set_axis(problems)

    def table1_records(self) -> tuple[pd.DataFrame, pd.Series, pd.DataFrame | None]:
        """What Table 1 reads: the models' cost-of-pass matrix (problems x models, USD), the expert's USD per problem
        and each cell's weight (``costofpass.weighted_mean``; None: every weight 1) — a racing set's every problem's
        records weighted (``table1_weights``), else this analysis' own."""
        if self.full is None:
            return self.vanilla_cop(), self.expert, None
        weights = self.table1_weights
        assert weights is not None  # a racing set
        return self.full.vanilla_cop(), self.full.expert, weights

    @property
    def models(self) -> list[str]:
        return [m.name for m in self.ctx.models]

    @property
    def set_models(self) -> list[ModelSpec]:
        """Every model of the set: the headline's, then its ``table1_only`` models'."""
        return [*self.ctx.models, *(self.aside.ctx.models if self.aside is not None else [])]

    def table1_parts(self) -> list[tuple["Analysis", str]]:
        """The analyses Table 1 shows, each with the suffix of its models' labels: this one's, then the set's
        ``table1_only`` models' (``aside``), marked."""
        return [(self, "")] + ([(self.aside, TABLE1_ONLY)] if self.aside is not None else [])

    @property
    def table1_only_rows(self) -> frozenset[str]:
        """The row labels Table 1 gives the set's ``table1_only`` models (``table1_parts``): rows no ranking takes."""
        return frozenset(self.aside.labels[m] + TABLE1_ONLY for m in self.aside.models) if self.aside else frozenset()

    @cached_property
    def labels(self) -> dict[str, str]:
        """Model names as tables and figures show them; an imported model whose tokens were estimated says so."""
        from helpers.collect.imports import estimated_tokens

        estimated = set(estimated_tokens(self.ctx.params, self.ctx.models))
        return {m.name: m.label + (" (tokens estimated)" if m.name in estimated else "") for m in self.ctx.models}

    @property
    def set_labels(self) -> dict[str, str]:
        """``labels`` of every model of the set, its ``table1_only`` models' marked (tables of records read them
        all)."""
        aside = {m: label + TABLE1_ONLY for m, label in self.aside.labels.items()} if self.aside is not None else {}
        return {**self.labels, **aside}

    @property
    def families(self) -> pd.Series:
        return pd.Series({m.name: m.family for m in self.ctx.models}, name="family")

    @property
    def releases(self) -> pd.Series:
        return pd.Series({m.name: pd.Timestamp(m.release_date) for m in self.ctx.models}, name="release_date")

    @property
    def tasks(self) -> list[str]:
        return list(self.ctx.params.tasks)

    @property
    def simulated(self) -> bool:
        return self.ctx.simulated

    @property
    def imported(self) -> bool:
        """Whether the set's records were made by others and imported (``import_from``)."""
        return self.ctx.params.import_from is not None

    @property
    def agent_runs(self) -> bool:
        """Whether the set's records are recorded agent runs (``import_from`` format ``agent_evals``)."""
        spec = self.ctx.params.import_from
        return spec is not None and spec.format == "agent_evals"

    @property
    def imported_note(self) -> str:
        """Where an imported set's responses come from and how their tokens were counted ("" otherwise)."""
        from helpers.collect.imports import provenance

        return provenance(self.ctx.params, self.ctx.models)

    @property
    def imported_tag(self) -> str:
        """The captions' short form of ``imported_note``."""
        from helpers.collect.imports import short_provenance

        return short_provenance(self.ctx.params, self.ctx.models)

    @property
    def task_labels(self) -> dict[str, str]:
        from helpers.core.tasks import get_task

        return {t: get_task(t).label for t in self.tasks}

    def vanilla_cop(self) -> pd.DataFrame:
        return self.cop[[m for m in self.models if m in self.cop.columns]]

    def frontier_over_time(self) -> pd.DataFrame:
        """Eq. 7 over the set's releases (vanilla), stepping as the set's ``fidelity.release_steps`` says (a racing
        set's from every problem where it protects the releases)."""
        if (source := self.scope("releases")) is not self:
            return source.frontier_over_time()
        one_model = self.ctx.params.fidelity.release_steps == "one_model"
        return cop_math.frontier_over_time(self.vanilla_cop(), self.releases, self.expert, one_model)

    def same_day_credit(self) -> pd.DataFrame:
        """Where the set's release steps credit same-day models in list order (``fidelity.release_steps: one_model``),
        each such model's gain credited first and last of its day (``costofpass.same_day_credit``); else no rows."""
        if (source := self.scope("releases")) is not self:
            return source.same_day_credit()
        if self.ctx.params.fidelity.release_steps != "one_model":
            return pd.DataFrame(columns=cop_math.SAME_DAY_COLUMNS)
        return cop_math.same_day_credit(self.vanilla_cop(), self.releases, self.expert)

    @cached_property
    def own_prices(self) -> tuple[Entry, ...]:
        """The set's own price snapshot as dated ledger entries (``core.ledger.snapshot_entries``)."""
        return snapshot_entries(self.ctx.snapshot)

    def price_change_dates(self):
        """(start, end) of the new-models / prices split: the set's ``price_change``, else its first release and the
        set's own price date (its snapshot's, so a fork's own prices are the end's, not a later entry of the ledger
        that would undo them), or its last release where that is later."""
        if self.ctx.params.price_change is not None:
            return self.ctx.params.price_change.start, self.ctx.params.price_change.end
        releases = [t.date() for t in self.releases]
        own = [] if self.ctx.params.billed else [self.ctx.snapshot.date]
        return min(releases), max([*own, *releases])

    def price_dates(self) -> list[str]:
        """The dates (ISO) of every price the new-models / prices split can read for the set's models: its own
        snapshot's and the ledger's entries for them (``core.ledger.history``), distinct and sorted; where none is
        at or before the split's start, no earlier price exists to reprice to (review 11, M4)."""
        from helpers.core.ledger import history

        return sorted({e.date.isoformat() for m in self.models for e in history(m, extra=self.own_prices)})

    def price_files_text(self) -> str:
        """The price files the new-models / prices split reads, by name: the set's own snapshot (or, for a set priced
        by the ledger, its date) and the ledger's files that price one of its models."""
        from helpers.core.ledger import files_pricing

        own = (f"the ledger as of {self.ctx.params.prices.as_of}" if self.ctx.params.prices is not None
               else f"the set's snapshot {self.ctx.snapshot.name}")
        ledger = [f.stem for f in files_pricing(self.models)]
        return own + ("; the ledger's " + ", ".join(ledger) if ledger else "")

    def price_change(self) -> pd.DataFrame:
        """The change of the frontier between ``price_change_dates``, split between new models and prices (USD, %).
        A set of billed USD (``Params.billed``) is never repriced, so a price cut before a run is inside its bill and
        cannot be told from a better model: its split's parts are NaN (not identifiable), its change is kept."""
        start, end = self.price_change_dates()
        def prices_on(d):  # USD as billed: no price enters
            return self.ctx.snapshot if self.ctx.params.billed else prices_as_of(
                self.models, d, first_if_later=True, extra=self.own_prices)
        out = price_change_split(self.attempts, self.releases, self.expert, start, end, prices_on)
        if self.ctx.params.billed:
            out[["new_models_usd", "prices_usd", "new_models_pct", "prices_pct"]] = np.nan
        out = out.set_index("task").loc[in_category_order(list(out["task"]))].reset_index()
        return out.assign(start=start.isoformat(), end=end.isoformat())

    @property
    def family_denominator_text(self) -> str:
        """How Fig. 3 is normalised, for its caption."""
        if self.ctx.params.fidelity.family_denominator == "without_family":
            return ("divided by the frontier without the family, V(M_T \\ M_g), as the "
                    "paper's reference code computes it")
        return "divided by the paper's frontier of all models, V(M_T), as Eq. 12 is printed (values can exceed 100%)"


def load_analysis(ctx: Context) -> Analysis:
    """The grading stage's priced attempts and per-problem estimates of a set, and the expert's cost.

    Models the set shows in Table 1 only (``table1_only``) are kept out of it, in ``aside``. A racing set's analysis
    is its Table-1 sample's (every option made every run there: any statistic computed on it is a uniform design's
    on a random subset of the problems), with every problem's records in ``full`` for the frontiers the race
    protects (``Analysis.protects``) and for Table 1, weighted (``Analysis.table1_records``)."""
    attempts = read_graded(ctx, "attempts")
    estimates = read_graded(ctx, "estimates")
    headline, table1_only = ctx.split()
    only = attempts["model"].isin(ctx.params.table1_only), estimates["model"].isin(ctx.params.table1_only)
    aside = None if table1_only is None else analysis_of(table1_only, attempts[only[0]], estimates[only[1]])
    attempts, estimates = attempts[~only[0]].reset_index(drop=True), estimates[~only[1]].reset_index(drop=True)
    full = analysis_of(headline, attempts, estimates, aside)
    if not ctx.params.collects_by_race:
        return full
    from helpers.grade.racing import table1_sample

    sample = table1_sample(ctx)

    def kept(df: pd.DataFrame) -> pd.DataFrame:
        keys = zip(df["task"].astype(str), df["problem_id"].astype(str))
        return df[[k in sample for k in keys]].reset_index(drop=True)

    cop, expert = full.cop, full.expert
    inside = [k in sample for k in zip(cop.index.get_level_values("task").astype(str),
                                       cop.index.get_level_values("problem_id").astype(str))]
    return Analysis(headline, kept(attempts), kept(estimates), cop[inside], expert[inside], full)


def analysis_of(ctx: Context, attempts: pd.DataFrame, estimates: pd.DataFrame,
                aside: Analysis | None = None) -> Analysis:
    """An analysis of these records: their cost-of-pass matrix (problems × strategies, USD) and the expert's cost."""
    cop = cop_math.cop_matrix(estimates.reset_index(drop=True))
    expert = expert_per_problem(cop.index, ctx.params.expert_bound, rule=ctx.params.fidelity.expert_cost,
                                difficulty=difficulties(ctx.problems), given=ctx.params.expert_usd)
    return Analysis(ctx, attempts.reset_index(drop=True), estimates.reset_index(drop=True), cop, expert, aside=aside)


def accuracy_table(attempts: pd.DataFrame) -> pd.DataFrame:
    """Per task, model and method: attempts, failed attempts, accuracy (0-1) and mean USD per attempt.

    ``attempts``: priced attempts as the grading stage writes them (``usd`` per attempt)."""
    df = attempts
    done = df[df["complete"]]
    out = done.groupby(["task", "model", "method"]).agg(
        attempts=("correct", "size"), accuracy=("correct", "mean"), usd_per_attempt=("usd", "mean")
    )
    out["failed_attempts"] = df[~df["complete"]].groupby(["task", "model", "method"]).size()
    return out.fillna({"failed_attempts": 0}).astype({"failed_attempts": int}).reset_index()
