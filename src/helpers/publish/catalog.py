"""The artifact catalog: every table and figure the pipeline publishes, with its caption, in one place.

Notebooks publish through ``publish_table`` / ``publish_figure`` (by name: the file names, kind,
caption and number format come from here); the caption, completed with the set's provenance
(``Analysis.caption``), is saved beside the artifact as ``<name>.caption.md``; the report walks
``SECTIONS`` and shows each artifact with its saved caption, so no caption is written twice.

Files, under ``results/<set>/``: a table is ``tables/<name>.csv`` (full precision) and
``tables/<name>.md`` (formatted); a figure is ``figures/<name>.png`` and ``.svg``, with the numbers it
draws in ``tables/<name>.csv``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Literal

import pandas as pd

from helpers.analyze.estimates import Analysis
from helpers.core.errors import CostOfPassError
from helpers.publish import figures, names, tables
from helpers.publish.safe import md, md_frame


@dataclass(frozen=True)
class Artifact:
    """One table or figure. ``caption`` may hold ``{placeholders}`` the publishing notebook fills."""

    name: str  # file stem
    kind: Literal["table", "figure"]
    caption: str
    stage: str  # the notebook that publishes it
    fmt: Literal["usd", "pct", "g3"] = "usd"  # number format of a table's value columns
    mark_top3: Literal["lowest", "highest", None] = None  # tables: bold and ¹²³ on each column's best three
    numeric: tuple[str, ...] = field(default=())  # a table's value columns (default: the set's datasets)
    simulated_only: bool = False  # published only for sets whose models are all simulated (known truth)
    imported_only: bool = False  # published only for sets of imported records (import_from)
    agent_only: bool = False  # published only for sets of recorded agent runs (import_from format agent_evals)
    paper: str | None = None  # the paper's number for it ("Table 1", "Figure 2"); None: beyond the paper (S-numbered)

    def title(self) -> str:
        """The caption's first sentence, without its placeholders: what the artifact is, for a placeholder."""
        import re

        return re.sub(r"\s*\{[^}]*\}", "", self.caption.split(". ")[0]).rstrip(".")

    @property
    def float_kind(self) -> Literal["table", "figure"]:
        """What the report numbers it as: the paper's kind where it has a paper number (the findings table is the
        paper's Figure 1), else its own."""
        return "figure" if (self.paper or self.kind).lower().startswith("fig") else "table"

    @property
    def label(self) -> str:
        """The report's cross-reference label, no underscores: ``fig-`` / ``tbl-`` for the paper's own, numbered as the
        paper numbers them; ``sfig-`` / ``stbl-`` (Quarto custom kinds, "Figure S1", "Table S1") for the rest."""
        key = "fig" if self.float_kind == "figure" else "tbl"
        return f"{key if self.paper else 's' + key}-{self.name.replace('_', '-')}"


FORMATS: dict[str, Callable[[float], str]] = {"usd": tables.fmt_usd, "pct": tables.fmt_pct, "g3": lambda x: f"{x:.3g}"}

_DEFINED: dict[str, tuple[Artifact, ...]] = {  # by topic; the report's order is PARTS below
    "Findings at a glance": (
        Artifact("findings", "table", "What this set shows, per dataset (the report's counterpart of the paper's Figure 1), "
                 "each cell computed from the set's records by the paper's plug-in estimator with its 95% two-level "
                 "bootstrap interval and, where problems no strategy of it passed leave room, the range the records "
                 "allow (those problems' strategies at the lowest cost-of-pass their 0 passes permit at 95% "
                 "confidence, up to the plug-in, which charges them the expert): the frontier cost-of-pass of all "
                 "models with the human expert; the cheapest model alone with the expert (Table 1; a model that never "
                 "passed a problem here is never named, and a claim another model's never-passed problems could "
                 "overturn is marked not identified); the family that accounts for most of the frontier's improvement "
                 "(Figure 3); the inference-time technique with the largest gain (Table 2), or none where every interval "
                 "reaches 0; and the frontier's halving time over releases (Eq. 11), 'unreliable' where the fit is "
                 "flagged, with the paper's where it published one. The sections below give every number behind it.",
                 "06_techniques", paper="Figure 1"),
    ),
    "Frontier cost-of-pass of single models": (
        Artifact("table1_frontier_cop", "table", "Frontier cost-of-pass V(p~D) with one model and the human expert, as the "
                 "paper's Table 1 (USD per problem; lower is better; top three per dataset in bold with ¹²³ where more than "
                 "three models compete).", "03_frontier", mark_top3="lowest", paper="Table 1"),
        Artifact("table1_expert_only", "table", "Human expert alone (USD per problem): the value a model must beat.",
                 "03_frontier"),
        Artifact("table1_intervals", "table", "The paper's Table 1 with 95% intervals, value [low, high] in USD per problem. "
                 "Plug-in (the headline): the paper's estimator, with the percentile interval of a two-level bootstrap "
                 "({replicates} replicates: problems within each dataset, runs within each problem). Range the records "
                 "allow: where a model never passed a problem in its runs the plug-in charges the expert's cost; the "
                 "range runs from those problems at the lowest cost-of-pass their 0 passes permit (exact binomial "
                 "bound, 95% confidence) up to the plug-in, with the share of the plug-in value those problems carry "
                 "('unseen'; 'never passed here' where the model passed none). "
                 "Model-based (second, not a headline): each problem's posterior expectation under an item-response "
                 "model fitted per dataset, with a posterior interval for these problems' value ({draws} draws); ✗ "
                 "where the model's checks reject it on that dataset (see the model checks).", "03_frontier"),
        Artifact("holdout_frontier", "table", "The frontier of all models on runs it never saw (USD per problem). Each "
                 "cell's n runs are split into halves of h: on half A each problem's model is chosen and the plug-in "
                 "frontier read (in-sample), then the same plug-in is read for the chosen models on half B, which "
                 "took no part in the choice (held-out); averaged over up to 10 rotations of the halves. Optimism = "
                 "in-sample − held-out, with its 95% interval over problems resampled within the dataset ({replicates} "
                 "replicates; negative: the in-sample frontier reads too cheap, the winner's curse). Beside it, the "
                 "bootstrap's estimate of the same bias at the same h runs (each cell's runs of A resampled): where it "
                 "matches the optimism, the bootstrap's correction can be trusted for this set. For context, the "
                 "paper's plug-in on all n runs with its interval and its bootstrap bias-corrected value. Needs the "
                 "same n ≥ 4 runs in every cell.", "03_frontier", fmt="g3", numeric=()),
        Artifact("model_checks", "table", "Does the item-response model behind the model-based numbers hold? Five "
                 "checks per dataset, each statistic (its mean over data sets simulated from the fitted model) and "
                 "p-value against {sims} such simulations (the floor check: against its asymptotic reference): all-fail — problems each strategy never passed (and no "
                 "strategy passed), excess over the predicted count; dispersion — Pearson X² of each (problem, "
                 "strategy) pass count against its prediction from the other strategies' counts on the problem; "
                 "split-sample — the same for one half of the problems with curves fitted on the other half; "
                 "ordering — the mean rank correlation between strategies' per-problem pass rates (low: models "
                 "disagree on which problems are hard); floor — on a free-response dataset, the likelihood-ratio "
                 "statistic for guessing floors, which nothing but a departure such as wrong reference answers can "
                 "call for there (its chi-bar-squared p-value; – on a multiple-choice dataset). ✗: p below {alpha} (Bonferroni: at most {level} false alarms "
                 "in all when the model holds); a dataset with any ✗ has its model-based numbers marked rejected. "
                 "Last, interaction: the sd (logit scale) of the problem × strategy interaction the model fits, 0 "
                 "where its likelihood-ratio test (p) finds none at 1%; part of the model, not a check: the "
                 "checks test the model without it.",
                 "03_frontier", fmt="g3", numeric=("statistic", "expected", "p_value")),
        Artifact("suspect_items", "table", "Suspect items: problems whose answers fit a wrong reference answer — the "
                 "models' wrong answers agree on one answer (at least half of the answered vanilla runs, from at least "
                 "half of the models, twice as often as the reference is given), or the better half of the models by accuracy never passed while the weaker half "
                 "passed at least once — with the reference and the agreed answer, the share of runs giving it, and "
                 "the pass rates (%) of the strong and the weak half. A list to look at, not a verdict: models share "
                 "misconceptions, a multiple-choice guess passes by chance, and the simulator gives a free-text "
                 "problem a single wrong answer.", "03_frontier", fmt="g3",
                 numeric=("agreed_pct", "agreeing_models", "models", "strong_pass_pct", "weak_pass_pct")),
    ),
    "Cost–accuracy frontier of oracle routing": (
        Artifact("routing_frontier", "figure", "Accuracy an oracle router reaches at each budget (USD per problem, log "
                 "axis), choosing per problem any model with any technique, or the human expert (accuracy 1 at the "
                 "expert's cost): the envelope traced by maximising R − λ·C per problem as λ varies, mixed between its "
                 "points (capability-frontier paper, §4.4). The plug-in oracle routes on observed pass rates, a "
                 "maximum over noisy estimates that is biased up; the model-based oracle routes on each problem's "
                 "posterior mean pass rate under the item-response model. Bands: 95% intervals ({replicates} "
                 "bootstrap replicates / model draws). Points: each model alone (vanilla, plug-in, with 95% whiskers); "
                 "star: the human expert.", "03_frontier"),
    ),
    "The frontier over model releases": (
        Artifact("figure2_frontier_over_time", "figure", "Frontier cost-of-pass of the models released up to each "
                 "date plus the human expert (Eq. 7; the paper's Figure 2), as % of the expert-only frontier (log axis), panels by "
                 "category as the paper's: the paper's plug-in estimate (solid) with its 95% two-level bootstrap band, "
                 "the range the records allow (yellow: problems no released model passed at the lowest cost-of-pass "
                 "their 0 passes permit, up to the plug-in, widened by every cell's exact sampling bounds), the model-based estimate (dotted; "
                 "only where the model's checks pass), the fit a·exp(−b·t)+c (Eq. 11, dashed) and the log-linear trend "
                 "(dash-dot), t in months since the first release; each release a point coloured by its family and "
                 "named. Titles: the halving time ln 2 / b with its 95% profile-likelihood interval ('unreliable' with "
                 "four release dates or fewer or an interval wider than the estimate), the paper's halving time where "
                 "it published one, and the log-linear reduction factor per year with its 90% interval.", "04_trends", paper="Figure 2"),
        Artifact("figure2_halving_times", "table", "Fits of Eq. 11 per dataset and estimator: the halving time ln 2 / b "
                 "in months with its 95% profile-likelihood interval (∞: b = 0 not excluded), the delta method's "
                 "standard error (the paper's ±, which covers the truth less often than stated on short series), the "
                 "95% interval of the fit repeated on each bootstrap replicate of the frontier curve, and the "
                 "log-linear trend's reduction factor per year, exp(−12β) of log V = α + βt, with its 90% interval, as "
                 "Epoch AI reports price declines; the CSV keeps a, b, c and every bound.", "04_trends", fmt="g3",
                 numeric=("a_pct", "b_per_month", "c_pct", "halving_months", "halving_low", "halving_high",
                          "halving_se_months", "refit_low", "refit_high", "factor_per_year", "factor_low", "factor_high")),
        Artifact("figure4_relative_gain_per_release", "figure", "Relative gain of each release in frontier cost-of-pass "
                 "(the paper's Figure 4), G({{mₜ}}, Mₜ₋₁) / V(Mₜ₋₁) (Eq. 8, 15), %, in release order, coloured by "
                 "family: the paper's plug-in estimate; whiskers: 95% two-level bootstrap intervals; behind each bar, "
                 "the range the records allow where problems the releases never passed leave room (widened by every "
                 "cell's exact sampling bounds).", "04_trends", paper="Figure 4"),
    ),
    "Where the frontier's change came from: new models or prices": (
        Artifact("price_change", "figure", "Change of the frontier cost-of-pass (vanilla, plug-in, with the human "
                 "expert) between {start} and {end}, per dataset, as % of the frontier on {start}: the models released "
                 "by each date, each priced as the dated price ledger had it that day (a model released later takes its "
                 "first price), the change split between new models and price changes of the models by their Shapley "
                 "values (each factor's effect averaged over both orders; the two parts sum to the change).", "04_trends"),
        Artifact("price_change_split", "table", "The split of the figure above: the frontier on both dates (USD per "
                 "problem), the models released by each, and the change with its new-models and prices parts (USD, and "
                 "% of the first date's frontier).", "04_trends", fmt="g3",
                 numeric=("models_start", "models_end", "start_usd", "end_usd", "change_usd", "new_models_usd",
                          "prices_usd", "change_pct", "new_models_pct", "prices_pct")),
    ),
    "Which models were essential: counterfactual frontiers": (
        Artifact("figure3_family_counterfactual", "figure", "Essentialness of each model family (the paper's Figure 3): the "
                 "relative improvement (%) of the frontier cost-of-pass attributable to the family, its gain "
                 "G(M_g, M_T∖M_g) (Eq. 12) {denominator}: the paper's plug-in estimate; whiskers: 95% two-level "
                 "bootstrap intervals; behind each bar, the range the records allow (widened by every cell's exact sampling bounds).",
                 "05_counterfactual", paper="Figure 3"),
        Artifact("figure5_model_counterfactual", "figure", "Essentialness of each model (the paper's Figure 5): the relative "
                 "improvement (%) of the frontier attributable to it, G({{m*}}, M_T∖{{m*}}) / V(M_T∖{{m*}}) (Eq. 16), "
                 "grouped and coloured by family: the paper's plug-in estimate; whiskers: 95% two-level bootstrap "
                 "intervals; behind each bar, the range the records allow (widened by every cell's exact sampling bounds).", "05_counterfactual", paper="Figure 5"),
    ),
    "Inference-time techniques": (
        Artifact("table2_technique_gain", "table", "Relative gain (%) in frontier cost-of-pass (the paper's Table 2) from "
                 "inference-time techniques applied to every model of M_L ({base}; the paper: its lightweight and "
                 "large models), G(M_L*, M_L) / V(M_L) (Eq. 13).", "06_techniques", fmt="pct", paper="Table 2"),
        Artifact("table2_intervals", "table", "The paper's Table 2 with 95% intervals, value [low, high] in %: the plug-in "
                 "gain (the headline) with its two-level bootstrap interval ({replicates} replicates), the range the "
                 "records allow (the techniques' never-passed problems at their lowest cost-of-pass, or the base "
                 "models'), and the model-based gain with its interval ({draws} draws; ✗ where its model is rejected). A technique applied to every model adds as many independently "
                 "estimated strategies, so the plug-in gain is positive even for a technique with no effect (the "
                 "validity section measures by how much).", "06_techniques"),
        Artifact("table2_strategies", "table", "The analogue of the paper's Table 2 for the agent strategies, each beside its own "
                 "model: how many runs each problem's cell rests on, the API calls per attempt (mean, most: a retry "
                 "strategy stops at its first pass of the public tests, so most attempts make one call), its "
                 "cost-of-pass with the human expert (USD per problem) and its gain over the model's single attempt "
                 "(%), value [low, high]: the plug-in (the headline, {replicates} bootstrap replicates), the range the "
                 "records allow and the model-based estimate ({draws} draws; ✗ where its model is rejected). An "
                 "attempt's cost is the sum of its calls, each at its own model's price (an escalation's cheap first "
                 "calls and its expensive last ones).", "06_techniques", agent_only=True),
        Artifact("cost_accuracy", "figure", "Every strategy's mean cost per attempt (USD, log axis) against its "
                 "accuracy (%), each with its 95% two-level bootstrap interval (plug-in); colour: the model's family, "
                 "marker: the method; dashed: the Pareto frontier through the strategies no other beats on both "
                 "axes; star: the human expert, taken as always right (as in \"AI Agents That Matter\", Figure 1). "
                 "A point's cost is per attempt, not per pass: cost-of-pass divides it by the accuracy.", "06_techniques"),
        Artifact("table2_technique_accuracy", "table", "Accuracy (%) of each technique per model (mean over problems "
                 "of the estimated success rate); each cell gives {methods}, in that order (the CSV has one row per "
                 "model and method).", "06_techniques", fmt="pct"),
    ),
    "Validity on known truth": (
        Artifact("headline_truth", "table", "This set's headline numbers beside the simulator's truth: Table 1, the "
                 "frontier of all models (USD per problem) and Table 2's technique gains (%), by the paper's plug-in "
                 "estimator and the model-based (corrected) estimator, each with its 95% interval, value [low, high]; "
                 "✗: the interval misses the truth. The truth is the value of this set's own problems, from the "
                 "success rate and expected cost the simulator gives each of them.", "07_validity", simulated_only=True),
        Artifact("validity_generators", "table", "The estimators on generators that are not the model-based "
                 "estimator's own model ({repetitions} simulated sets per generator, {replicates} bootstrap replicates "
                 "or draws each, every set judged against the value of its own problems): this set's own generator where it "
                 "is not the model's (the `sim` twins have an interaction and capability cliffs; its row reads the {own} "
                 "sets of the study above); the model's own family; a "
                 "problem × model interaction on the logit scale; wrong reference answers; heavy-tailed or bimodal "
                 "difficulty; a probit link with per-model slopes; capability cliffs. Per statistic family and "
                 "estimator: mean |bias| (the family's units), relative bias (%), coverage (%) of the 95% interval "
                 "where the truth is not 0 (the technique gains, whose truth is 0 here: of every cell) ± its "
                 "Monte-Carlo standard error (sets as clusters), mean interval width, "
                 "and how often the plug-in's range the records allow (widened by every cell's exact sampling bounds) holds the truth (%). "
                 "headline: the estimator the report leads with. Where the headline's coverage is below 93% no "
                 "interval of this report can be taken at its word for that generator; the range's column says "
                 "whether the range can.", "07_validity", fmt="g3",
                 numeric=("mean_abs_bias", "rel_bias_pct", "coverage_pct", "coverage_se_pct", "mean_width",
                          "range_coverage_pct"), simulated_only=True),
        Artifact("validity_generators_heatmap", "figure", "The table above as a heat map: coverage (%) of the headline "
                 "(plug-in) 95% intervals per generator and statistic family, green at 93% and above, and in "
                 "brackets how often the range the records allow holds the truth (%); {repetitions} simulated sets "
                 "per generator ({own} for this set's own).", "07_validity", simulated_only=True),
        Artifact("validity_summary", "table", "Bias, RMSE and interval coverage of each estimator over {repetitions} fresh "
                 "simulated sets drawn from this set's generative model (same problems' prompts, new difficulties and interactions, "
                 "{runs} new runs per strategy; {replicates} bootstrap replicates or draws each), each against the true "
                 "value of its own problems. Mean |bias| and RMSE over the family's cells (units of the family); "
                 "coverage (%) of the nominal 95% intervals where the truth is not 0, cells pooled, ± its "
                 "Monte-Carlo standard error (sets as clusters); the share (%) of (set, cell) pairs whose truth is "
                 "0 (a model or technique that never lowers the frontier: an estimate of exactly 0 covers it) and "
                 "how often those are covered; last, how often the intervals cover a non-zero population value (new "
                 "problems), which no interval from one set can promise for these means (Methods).", "07_validity",
                 fmt="g3", numeric=("cells", "mean_abs_bias", "mean_rmse", "bias_vs_plug_in", "coverage_pct",
                                    "coverage_se_pct", "zero_truth_pct", "zero_truth_coverage_pct",
                                    "population_coverage_pct"), simulated_only=True),
        Artifact("validity_technique_gains", "table", "Technique gains (%) of Table 2 on the same {repetitions} simulated "
                 "sets: the true gain (mean over the sets' own problems; 0 when the simulator gives the technique no "
                 "effect), each estimator's mean, "
                 "and how often its 95% interval covers the truth (%).", "07_validity", fmt="g3",
                 numeric=("true gain %", "plug-in mean", "bootstrap-corrected mean", "model-based mean",
                          "plug-in coverage %", "bootstrap-corrected coverage %", "model-based coverage %"),
                 simulated_only=True),
        Artifact("validity_effect", "table", "A real gain recovered: the same study with a true self-refine effect "
                 "g = {g} (a refinement passes with R + g·(1 − R)), {repetitions} simulated sets.", "07_validity",
                 fmt="g3", numeric=("true gain %", "plug-in mean", "bootstrap-corrected mean", "model-based mean",
                                    "plug-in coverage %", "bootstrap-corrected coverage %", "model-based coverage %"),
                 simulated_only=True),
        Artifact("validity_routing", "table", "The oracle-routing frontier on the same {repetitions} simulated sets: "
                 "at five budgets per dataset (USD per problem, spread over the true envelope), the accuracy (%) an "
                 "oracle truly reaches, and the mean and RMSE of what the plug-in oracle (routing on observed pass "
                 "rates) and the model-based oracle claim.", "07_validity", fmt="g3",
                 numeric=("budget_usd", "truth", "plug-in mean", "model-based mean", "plug-in rmse", "model-based rmse"),
                 simulated_only=True),
        Artifact("validity_halving_times", "table", "Halving-time intervals on synthetic series with a known decay "
                 "rate ({series} series per row: a·exp(−t ln 2 / {half} months) + floor, release dates uniform over "
                 "24 months, Gaussian noise of {noise} percentage points): how often the 95% profile-likelihood interval "
                 "and the delta method's ± 1.96 se (the paper's) cover the true halving time (%, ± Monte-Carlo "
                 "standard error), the share of fits reliable, and the profile coverage among those. With the floor "
                 "near 0 the constraint floor >= 0 binds and the profile interval is conservative.", "07_validity",
                 fmt="g3", numeric=("profile_coverage", "profile_se", "delta_coverage", "delta_se", "reliable_share",
                                    "profile_coverage_reliable", "profile_se_reliable"), simulated_only=True),
    ),
    "Imported records": (
        Artifact("grader_agreement", "table", "The project's grade of each imported response beside the source's own "
                 "correctness label, per dataset and model: responses compared, accuracy (%) by the source's label and "
                 "by the project's grader (its extraction rule is stated in the appendix), the share on which they "
                 "agree (%), and how many only the project passes or only the source passes.", "03_frontier",
                 fmt="g3", numeric=("responses", "source_pct", "project_pct", "agree_pct", "project_only", "source_only"),
                 imported_only=True),
        Artifact("grader_disagreements", "table", "Every response the project's grader and the source judge "
                 "differently, with the grader's reason: the hidden test that failed, a time-out, an error. The "
                 "project runs each solution with HumanEval's hidden tests in a sandboxed subprocess (time and memory "
                 "limits, no network, an empty scratch directory).", "03_frontier", fmt="g3", numeric=("run",),
                 agent_only=True),
        Artifact("agent_runs", "table", "The recorded agent runs this set names, one row per run folder: its "
                 "strategy folder, the model and method it is imported as, its problems and API calls, the source's "
                 "pass rate (%) and whether it is usable — a run without a call log, a log that does not match its "
                 "problems, an unknown model or a malformed line is not imported and says why.", "03_frontier",
                 fmt="g3", numeric=("tasks", "calls"), agent_only=True),
    ),
    "Accuracy and cost per attempt": (
        Artifact("table5_accuracy", "table", "Accuracy R_m(p~D), as the paper's Table 5 (%, vanilla attempts; top three per dataset "
                 "in bold with ¹²³ where more than three models compete).", "03_frontier", fmt="pct",
                 mark_top3="highest", paper="Table 5"),
        Artifact("table6_cost", "table", "Mean cost per attempt C_m(p~D), as the paper's Table 6 (USD, vanilla attempts; the three "
                 "cheapest per dataset in bold with ¹²³ where more than three models compete).", "03_frontier",
                 mark_top3="lowest", paper="Table 6"),
        Artifact("table5_6_intervals", "table", "The paper's Tables 5 and 6 with 95% intervals, value [low, high]: accuracy (%) "
                 "and mean cost per attempt (USD) of each model's vanilla attempts, percentile intervals of the "
                 "two-level bootstrap ({replicates} replicates). Both are means, so the plug-in is unbiased here.",
                 "03_frontier"),
    ),
}
_BY_NAME = {a.name: a for section in _DEFINED.values() for a in section}
# The report's order: the paper's analyses in the paper's order (its Figure 1, Table 1, Figures 2-3, Table 2), then
# what the paper lacks, then the paper's appendix (its Tables 3-4, the expert and prices, come from the run's context).
PARTS: dict[str, dict[str, tuple[str, ...]]] = {
    "The paper's analyses": {
        "Findings at a glance": ("findings",),
        "Frontier cost-of-pass of single models": ("table1_frontier_cop", "table1_expert_only"),
        "The frontier over model releases": ("figure2_frontier_over_time", "figure2_halving_times"),
        "Which model families were essential": ("figure3_family_counterfactual",),
        "Inference-time techniques": ("table2_technique_gain", "table2_technique_accuracy", "table2_strategies",
                                      "cost_accuracy"),
    },
    "Beyond the paper": {
        "Intervals and checks of the estimates": ("table1_intervals", "table2_intervals", "table5_6_intervals",
                                                  "holdout_frontier", "model_checks", "suspect_items"),
        "Where the frontier's change came from: new models or prices": ("price_change", "price_change_split"),
        "Cost–accuracy frontier of oracle routing": ("routing_frontier",),
        "Imported records": ("grader_agreement", "grader_disagreements", "agent_runs"),
        "Validity on known truth": ("headline_truth", "validity_generators", "validity_generators_heatmap",
                                    "validity_summary", "validity_technique_gains", "validity_effect", "validity_routing",
                                    "validity_halving_times"),
    },
    "Appendix": {
        "Accuracy and cost per attempt": ("table5_accuracy", "table6_cost"),
        "Release by release, model by model": ("figure4_relative_gain_per_release", "figure5_model_counterfactual"),
    },
}
SECTIONS: dict[str, tuple[Artifact, ...]] = {title: tuple(_BY_NAME[n] for n in names_)
                                             for part in PARTS.values() for title, names_ in part.items()}
CATALOG: dict[str, Artifact] = {a.name: a for section in SECTIONS.values() for a in section}
assert CATALOG.keys() == _BY_NAME.keys(), "every artifact has its place in PARTS"


def entry(name: str) -> Artifact:
    if name not in CATALOG:
        raise CostOfPassError(f"'{name}' is not in the artifact catalog (helpers.publish.catalog): add an entry")
    return CATALOG[name]


def caption_path(out_dir: Path, name: str) -> Path:
    return out_dir / f"{name}.caption.md"


def full_caption(an: Analysis, name: str, **fill: str) -> str:
    """The catalog caption with ``fill``: what the artifact shows, and SIMULATED where it is (the set's provenance
    is stated once, in the report's "About this run": ``publish.about``)."""
    text = entry(name).caption.format(**{k: md(v) for k, v in fill.items()})
    if an.imported:
        text = f"{text} {md(an.imported_tag)}"
    return f"{text} **SIMULATED** records (not real LLMs)." if an.simulated else text


def lead_path(out_dir: Path, name: str) -> Path:
    """A paragraph the report shows before an artifact (``<name>.lead.md``), when its notebook wrote one."""
    return out_dir / f"{name}.lead.md"


def publish_table(an: Analysis, name: str, df: pd.DataFrame, shown: pd.DataFrame | None = None, lead: str | None = None,
                  **fill: str) -> str:
    """Save a catalogued table (CSV, Markdown, caption) and return caption + Markdown to display.

    ``shown``: the Markdown's table when it differs from the CSV's (cells already formatted, e.g.
    ``value [low, high]``); the CSV keeps ``df``'s numbers. ``lead``: Markdown the report shows before the table
    (written from the set's numbers, e.g. the findings in sentences)."""
    art = entry(name)
    labels = an.task_labels  # the Markdown names datasets, methods and columns in words (publish.names); the CSV keeps ids

    def header(c):
        return md(names.column(c, labels)) if isinstance(c, str) else c

    def escaped(frame: pd.DataFrame) -> pd.DataFrame:  # every text a user or a data file supplied (publish.safe)
        numbers = [c for c in frame.columns if pd.api.types.is_numeric_dtype(frame[c]) and frame[c].dtype != bool]
        out = md_frame(names.frame(frame.drop(columns=numbers), labels))
        for c in numbers:
            out.insert(list(frame.columns).index(c), header(c), frame[c].to_numpy())
        return out

    if shown is not None:
        text = escaped(shown).to_markdown(index=False)
    else:
        numeric = list(art.numeric) or [c for c in an.tasks if c in df.columns]
        marks = tables.top3_marks(df, numeric, lowest=art.mark_top3 == "lowest") if art.mark_top3 else None
        text = tables.to_markdown(escaped(df), [header(c) for c in numeric], FORMATS[art.fmt],
                                  None if marks is None else marks.rename(columns=header))
    caption = full_caption(an, name, **fill)
    tables.save_table(df, text, name, an.ctx.params.tables_path)
    caption_path(an.ctx.params.tables_path, name).write_text(caption + "\n", encoding="utf-8")
    _write_lead(an.ctx.params.tables_path, name, lead)
    return f"{md(lead.strip())}\n\n{caption}\n\n{text}" if lead else f"{caption}\n\n{text}"


def note_path(out_dir: Path, name: str) -> Path:
    """A sentence the report shows in place of a figure whose data are degenerate (``<name>.note.md``)."""
    return out_dir / f"{name}.note.md"


def publish_note(an: Analysis, name: str, data: pd.DataFrame, sentence: str) -> str:
    """Publish a catalogued figure as one sentence (its data degenerate: a figure would show nothing); the numbers
    still go to its CSV. Returns the sentence."""
    entry(name)
    params = an.ctx.params
    params.figures_path.mkdir(parents=True, exist_ok=True)
    for suffix in (".png", ".svg", ".layout.json", ".caption.md"):
        (params.figures_path / f"{name}{suffix}").unlink(missing_ok=True)
    note_path(params.figures_path, name).write_text(md(sentence) + "\n", encoding="utf-8")
    params.tables_path.mkdir(parents=True, exist_ok=True)
    data.to_csv(params.tables_path / f"{name}.csv", index=False)
    return md(sentence)


def publish_figure(an: Analysis, name: str, fig, data: pd.DataFrame, lead: str | None = None, **fill: str) -> str:
    """Save a catalogued figure (PNG, SVG, caption) and the numbers it draws (CSV); returns the caption. ``lead``:
    Markdown the report shows before the figure (its reading, from the set's numbers)."""
    entry(name)
    params = an.ctx.params
    note_path(params.figures_path, name).unlink(missing_ok=True)
    png, _ = figures.save_figure(fig, name, params.figures_path)
    figures.show_saved(fig, png)  # in a notebook: the PNG the report shows, above its caption
    caption = full_caption(an, name, **fill)
    caption_path(params.figures_path, name).write_text(caption + "\n", encoding="utf-8")
    params.tables_path.mkdir(parents=True, exist_ok=True)
    data.to_csv(params.tables_path / f"{name}.csv", index=False)
    _write_lead(params.tables_path, name, lead)
    return caption


def _write_lead(out_dir: Path, name: str, lead: str | None) -> None:
    lead_file = lead_path(out_dir, name)
    if lead:
        lead_file.write_text(md(lead.strip()) + "\n", encoding="utf-8")
    else:
        lead_file.unlink(missing_ok=True)
