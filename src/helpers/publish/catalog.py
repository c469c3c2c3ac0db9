"""The artifact catalog: every table and figure the pipeline publishes, in one place (their captions, prose, are
Markdown in ``report/text/captions.md``, one ``## <name>`` each).

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

import numpy as np
import pandas as pd

from helpers.analyze.estimates import Analysis
from helpers.core.errors import CostOfPassError
from helpers.core.numbers import sig
from helpers.publish import formats, names
from helpers.publish.figures.style import save_figure, show_saved
from helpers.publish.safe import md, md_frame
from helpers.publish.text import one_run_gains, one_run_held


@dataclass(frozen=True)
class Artifact:
    """One table or figure. ``caption`` may hold ``{placeholders}`` the publishing notebook fills."""

    name: str  # file stem
    kind: Literal["table", "figure"]
    caption: str = ""  # default: its section of report/text/captions.md
    stage: str = ""  # the notebook that publishes it (required)
    fmt: Literal["usd", "pct", "g3"] = "usd"  # number format of a table's value columns
    mark_top3: Literal["lowest", "highest", None] = None  # tables: bold and ¹²³ on each column's best three
    numeric: tuple[str, ...] = field(default=())  # a table's value columns (default: the set's datasets)
    simulated_only: bool = False  # published only for sets whose models are all simulated (known truth)
    imported_only: bool = False  # published only for sets of imported records (import_from)
    agent_only: bool = False  # published only for sets of recorded agent runs (import_from format agent_evals)
    graded_only: bool = False  # published only for sets the project grades itself (not every verdict imported as given)
    replay_only: bool = False  # published only for sets replaying the race on their records (Params.replays_race)
    paper: str | None = None  # the paper's number for it ("Table 1", "Figure 2"); None: beyond the paper (S-numbered)

    def __post_init__(self):
        if not self.stage:
            raise CostOfPassError(f"artifact '{self.name}': say which notebook publishes it (stage)")
        if not self.caption:
            from helpers.publish.text import captions

            if (caption := captions().get(self.name)) is None:
                raise CostOfPassError(f"artifact '{self.name}' has no caption: add '## "
                                      f"{self.name}' to report/text/captions.md")
            object.__setattr__(self, "caption", caption)

    def title(self) -> str:
        """The caption's first sentence, without its placeholders: what the artifact is, for a placeholder. A sentence
        ends at a full stop outside parentheses that does not close an abbreviation ("Eq. 7", "e.g. x")."""
        import re

        text = re.sub(r"\s*\{[^}]*\}", "", self.caption)
        text = re.sub(r"\s*\(\s*\)", "", re.sub(r"\(\s*[;,]\s*", "(", text))  # what a placeholder began or was whole
        for m in re.finditer(r"\.(\s|$)", text):
            head = text[:m.start()]
            if head.count("(") == head.count(")") and not re.search(r"\b(Eq|Eqs|e\.g|i\.e|cf|vs|Fig|No)$", head):
                return head
        return text.rstrip(".")

    def short_title(self) -> str:
        """``title`` up to its first comma, colon or semicolon outside parentheses: a figure's name in a line."""
        text, depth = self.title(), 0
        for i, ch in enumerate(text):
            depth += (ch == "(") - (ch == ")")
            if depth == 0 and ch in ",:;":
                return text[:i]
        return text

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


FORMATS: dict[str, Callable[[float], str]] = {"usd": formats.fmt_usd, "pct": formats.fmt_pct, "g3": sig}

POLICY_NUMBERS = ("value", "low", "high", "records_usd", "expert_usd", "expert_share_pct", "k")  # policy_views' tables
_DEFINED: dict[str, tuple[Artifact, ...]] = {  # by topic; the report's order is PARTS below
    "Findings at a glance": (
        Artifact("findings", "table", stage="06_techniques", paper="Figure 1"),
    ),
    "Frontier cost-of-pass of single models": (
        Artifact("table1_frontier_cop", "table", stage="03_frontier", mark_top3="lowest", paper="Table 1"),
        Artifact("table1_expert_only", "table", stage="03_frontier"),
        Artifact("table1_intervals", "table", stage="03_frontier"),
        Artifact("holdout_frontier", "table", stage="03_frontier", fmt="g3", numeric=()),
        Artifact("precision_runs", "table", stage="03_frontier", fmt="g3", numeric=()),
        Artifact("model_checks", "table", stage="03_frontier", fmt="g3", numeric=("statistic", "expected", "p_value")),
        Artifact("suspect_items", "table", stage="03_frontier", fmt="g3",
                 numeric=("agreed_pct", "agreeing_models", "models", "strong_pass_pct", "weak_pass_pct"),
                 graded_only=True),
    ),
    "What the records decide and what the expert's fee decides": (
        Artifact("headline_costs", "figure", stage="03_frontier"),
        Artifact("expert_fee_curve", "figure", stage="03_frontier"),
        Artifact("policy_cost", "table", stage="03_frontier", fmt="g3",
                 numeric=("k", "policy_usd", "policy_low", "policy_high", "records_usd", "expert_usd",
                          "expert_share_pct", "problems",
                          "mostly_failed", "unidentified", "paper_usd", "paper_records_usd", "paper_expert_usd",
                          "paper_expert_problems", "paper_expert_share_pct")),
    ),
    "Cost–accuracy frontier of oracle routing": (
        Artifact("routing_frontier", "figure", stage="03_frontier"),
    ),
    "The frontier over model releases": (
        Artifact("figure2_frontier_over_time", "figure", stage="04_trends", paper="Figure 2"),
        Artifact("figure2_halving_times", "table", stage="04_trends", fmt="g3",
                 numeric=("a_pct", "b_per_month", "c_pct", "halving_months", "halving_low", "halving_high",
                          "halving_se_months", "refit_low", "refit_high", "factor_per_year",
                          "factor_low", "factor_high")),
        Artifact("figure4_relative_gain_per_release", "figure", stage="04_trends", paper="Figure 4"),
        Artifact("release_policy", "figure", stage="04_trends"),
        Artifact("release_policy_table", "table", stage="04_trends", fmt="g3", numeric=POLICY_NUMBERS),
    ),
    "Where the frontier's change came from: new models or prices": (
        Artifact("price_change", "figure", stage="04_trends"),
        Artifact("price_change_split", "table", stage="04_trends", fmt="g3",
                 numeric=("models_start", "models_end", "start_usd", "end_usd", "change_usd", "new_models_usd",
                          "prices_usd", "change_pct", "new_models_pct", "prices_pct")),
    ),
    "Which models were essential: counterfactual frontiers": (
        Artifact("figure3_family_counterfactual", "figure", stage="05_counterfactual", paper="Figure 3"),
        Artifact("figure5_model_counterfactual", "figure", stage="05_counterfactual", paper="Figure 5"),
        Artifact("counterfactual_policy", "figure", stage="05_counterfactual"),
        Artifact("counterfactual_policy_table", "table", stage="05_counterfactual", fmt="g3", numeric=POLICY_NUMBERS),
    ),
    "Inference-time techniques": (
        Artifact("table2_technique_gain", "table", stage="06_techniques", fmt="pct", paper="Table 2"),
        Artifact("table2_intervals", "table", stage="06_techniques"),
        Artifact("table2_strategies", "table", stage="06_techniques", agent_only=True),
        Artifact("cost_accuracy", "figure", stage="06_techniques"),
        Artifact("table2_technique_accuracy", "table", stage="06_techniques", fmt="pct"),
    ),
    "Validity on known truth": (
        Artifact("policy_truth", "table", stage="07_validity", simulated_only=True, fmt="g3", numeric=()),
        Artifact("headline_truth", "table", stage="07_validity", simulated_only=True),
        Artifact("validity_generators", "table", stage="07_validity", fmt="g3",
                 numeric=("sets", "k", "mean_abs_bias", "rel_bias_pct", "coverage_pct", "coverage_se_pct", "mean_width",
                          "width_vs_truth", "false_findings_pct", "range_coverage_pct"), simulated_only=True),
        Artifact("validity_generators_heatmap", "figure", stage="07_validity", simulated_only=True),
        Artifact("validity_summary", "table", stage="07_validity",
                 fmt="g3", numeric=("cells", "mean_abs_bias", "mean_rmse", "bias_vs_plug_in", "coverage_pct",
                                    "coverage_se_pct", "zero_truth_pct", "zero_truth_coverage_pct",
                                    "population_coverage_pct"), simulated_only=True),
        Artifact("validity_technique_gains", "table", stage="07_validity", fmt="g3",
                 numeric=("true gain %", "plug-in mean", "bootstrap-corrected mean", "model-based mean",
                          "plug-in coverage %", "bootstrap-corrected coverage %", "model-based coverage %"),
                 simulated_only=True),
        Artifact("validity_effect", "table", stage="07_validity",
                 fmt="g3", numeric=("sets", "true gain %", "mean gain %", "coverage %",
                                    "named best %", "oracle named %", "difference oracle named %"),
                 simulated_only=True),
        Artifact("validity_routing", "table", stage="07_validity", fmt="g3",
                 numeric=("budget_usd", "truth", "plug-in mean", "model-based mean", "plug-in rmse", "model-based rmse",
                          "cross-fitted truth", "cross-fitted mean", "cross-fitted rmse", "cross-fitted coverage %"),
                 simulated_only=True),
        Artifact("validity_halving_times", "table", stage="07_validity",
                 fmt="g3", numeric=("profile_coverage", "profile_se", "delta_coverage", "delta_se", "reliable_share",
                                    "profile_coverage_reliable", "profile_se_reliable"), simulated_only=True),
    ),
    "The item-response model: a sensitivity analysis": (
        Artifact("model_based_sensitivity", "table", stage="07_validity", fmt="g3", numeric=("value", "low", "high")),
    ),
    "Racing on these records": (
        Artifact("racing_replay_bill", "table", stage="03_frontier", fmt="g3",
                 numeric=("calls", "usd", "calls_pct", "usd_pct"), replay_only=True),
        Artifact("racing_replay_figures", "table", stage="03_frontier", fmt="g3",
                 numeric=("values", "differing", "largest_difference", "largest_relative_pct"), replay_only=True),
    ),
    "Imported records": (
        Artifact("grader_agreement", "table", stage="03_frontier",
                 fmt="g3", numeric=("responses", "source_pct", "project_pct", "agree_pct",
                                    "project_only", "source_only",
                          "near_limit", "near_limit_passed"),
                 imported_only=True, graded_only=True),
        Artifact("grader_disagreements", "table", stage="03_frontier", fmt="g3", numeric=("run",),
                 agent_only=True),
        Artifact("agent_runs", "table", stage="03_frontier",
                 fmt="g3", numeric=("tasks", "calls"), agent_only=True),
    ),
    "Accuracy and cost per attempt": (
        Artifact("table5_accuracy", "table", stage="03_frontier", fmt="pct",
                 mark_top3="highest", paper="Table 5"),
        Artifact("table6_cost", "table", stage="03_frontier",
                 mark_top3="lowest", paper="Table 6"),
        Artifact("table5_6_intervals", "table", stage="03_frontier"),
    ),
}
_BY_NAME = {a.name: a for section in _DEFINED.values() for a in section}
# The report's order: the paper's analyses in the paper's order (its Figure 1, Table 1, Figures 2-3, Table 2), then
# what the paper lacks, then the paper's appendix (its Tables 3-4, the expert and prices, come from the run's context).
PARTS: dict[str, dict[str, tuple[str, ...]]] = {
    "The paper's analyses": {
        "Findings at a glance": ("findings",),
        "Frontier cost-of-pass of single models": ("table1_frontier_cop", "table1_expert_only"),
        "The frontier over model releases": ("figure2_frontier_over_time", "figure2_halving_times", "release_policy",
                                             "release_policy_table"),
        "Which model families were essential": ("figure3_family_counterfactual", "counterfactual_policy",
                                                "counterfactual_policy_table"),
        "Inference-time techniques": ("table2_technique_gain", "table2_technique_accuracy", "table2_strategies",
                                      "cost_accuracy"),
    },
    "Beyond the paper": {
        "What the records decide and what the expert's fee decides": ("headline_costs",
                                                                      "policy_cost", "expert_fee_curve"),
        "Intervals and checks of the estimates": ("table1_intervals", "table2_intervals", "table5_6_intervals",
                                                  "holdout_frontier", "precision_runs", "suspect_items"),
        "The item-response model: a sensitivity analysis": ("model_based_sensitivity", "model_checks"),
        "Where the frontier's change came from: new models or prices": ("price_change", "price_change_split"),
        "Cost–accuracy frontier of oracle routing": ("routing_frontier",),
        "Imported records": ("grader_agreement", "grader_disagreements", "agent_runs"),
        "Racing on these records": ("racing_replay_bill", "racing_replay_figures"),
        "Validity on known truth": ("policy_truth", "headline_truth", "validity_generators",
                                    "validity_generators_heatmap",
                                    "validity_summary", "validity_technique_gains",
                                    "validity_effect", "validity_routing",
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


def _why_table1_only(an: Analysis) -> str:
    """Why the set keeps its ``table1_only`` models out of every other number: the source's caveats that name them
    (an imported set's, ``imports.source_caveats``), escaped; else where the set says it."""
    from helpers.collect.imports import source_caveats

    aside = an.aside.ctx if an.aside is not None else None
    said = [line for line in source_caveats(an.ctx.params, [*an.ctx.models, *(aside.models if aside else [])])
            if aside and "Table 1 alone" in line
            and any(m.name in line or (m.imported is not None and m.imported.name in line) for m in aside.models)]
    return md(" ".join(said)) if said else "the set's parameter file says"


GAIN_CAPTIONS = ("release_policy", "release_policy_table", "counterfactual_policy", "counterfactual_policy_table")


def full_caption(an: Analysis, name: str, **fill: str) -> str:
    """The catalog caption with ``fill``: what the artifact shows, and SIMULATED where it is (the set's provenance
    is stated once, in the report's "About this run": ``publish.about``)."""
    text = entry(name).caption.format(**{k: md(v) for k, v in fill.items()})
    if name in ("table1_frontier_cop", "table1_intervals") and an.aside is not None:
        only = md(", ".join(an.aside.labels[m] for m in an.aside.models))
        text = (f"{text} Last, marked *Table 1 only*: {only}, which the set keeps out of every other number and out "
                f"of the top-three marks; its value is not a finding (why: {_why_table1_only(an)})."
                if name == "table1_frontier_cop" else
                f"{text} Without {only} (`table1_only`: in Table 1's values alone, with no interval).")
    if "two-level bootstrap" in text and an.ctx.params.n_runs == 1:  # say what is resampled where runs cannot be
        text += (" Here every problem has one run per model, so the bootstrap resamples the problems alone (a "
                 "problem's one run carries its run-to-run noise); a per-problem minimum over models picks each "
                 "problem's luckiest run and reads low, which resampling problems does not show.")
    if an.ctx.params.n_runs == 1:  # reviews 3 to 5, L9: with one run per cell the one-run study checks them
        one_run = (" with several runs per cell (with one run per cell, as here, the study that checks them is the "
                   "one-run study: the docs' SWE-bench page, \"Do its intervals hold with one run per cell?\", on "
                   f"SIMULATED sets of the sim set's shape, not of this one{one_run_held()})")
        for said in ("held at least 93% on every generator", "least 93% of the time on every generator"):
            text = text.replace(said, said + one_run)
        for said in ("Student's t over its runs", "Student's t over each problem's runs"):  # review 6, L2
            text = text.replace(said, "Student's t over the problems (one run per cell: no spread of its own)")
        if name in GAIN_CAPTIONS:  # review 11, M3: the gains' intervals, measured at one run or said not to be
            gains = one_run_gains()
            text = f"{text} {gains[0].upper()}{gains[1:]}."
    if an.imported:
        text = f"{text} {md(an.imported_tag)}"
    return f"{text} **SIMULATED** records (not real LLMs)." if an.simulated else text


def remove_outputs(params, stage: str) -> int:
    """Delete every file of the artifacts ``stage`` publishes (its tables' CSV, Markdown, caption and lead; its
    figures' images, layout, caption, note and data), before the stage runs again: an artifact it no longer publishes
    (a table that does not apply to the set any more) must not reach the report from an earlier run. Returns how many
    files went."""
    gone = 0
    for art in (a for a in CATALOG.values() if a.stage == stage):
        tables = [".csv", ".md", ".caption.md", ".lead.md"]
        figures = [".png", ".svg", ".layout.json", ".caption.md", ".note.md"] if art.kind == "figure" else []
        for path in [params.tables_path / f"{art.name}{s}" for s in tables] + \
                [params.figures_path / f"{art.name}{s}" for s in figures]:
            if path.is_file():
                path.unlink()
                gone += 1
    return gone


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
    # the Markdown names datasets, methods and columns in words (publish.names); the CSV keeps ids
    labels = an.task_labels
    df, shown = in_dataset_order(df, an), None if shown is None else in_dataset_order(shown, an)

    def header(c):
        return md(names.column(c, labels)) if isinstance(c, str) else c

    def escaped(frame: pd.DataFrame) -> pd.DataFrame:  # every text a user or a data file supplied (publish.safe)
        numbers = [c for c in frame.columns if pd.api.types.is_numeric_dtype(frame[c]) and frame[c].dtype != bool]
        out = md_frame(names.frame(frame.drop(columns=numbers), labels))
        for c in numbers:
            out.insert(list(frame.columns).index(c), header(c), frame[c].to_numpy())
        return out

    if shown is not None:
        text = formats.markdown(escaped(shown))
    else:
        numeric = list(art.numeric) or [c for c in an.tasks if c in df.columns]
        ranked = ~df["model"].isin(an.table1_only_rows) if "model" in df.columns else None
        marks = formats.top3_marks(df, numeric, art.mark_top3 == "lowest", ranked) if art.mark_top3 else None
        text = formats.to_markdown(escaped(df), [header(c) for c in numeric], FORMATS[art.fmt],
                                  None if marks is None else marks.rename(columns=header))
    caption = full_caption(an, name, **fill)
    formats.save_table(df, text, name, an.ctx.params.tables_path)
    caption_path(an.ctx.params.tables_path, name).write_text(caption + "\n", encoding="utf-8")
    _write_lead(an.ctx.params.tables_path, name, lead)
    return f"{md(lead.strip())}\n\n{caption}\n\n{text}" if lead else f"{caption}\n\n{text}"


def in_dataset_order(frame: pd.DataFrame, an: Analysis) -> pd.DataFrame:
    """``frame``'s rows in the paper's dataset order (by category, ``core.tasks.in_category_order``), by its ``task``
    (ids or labels) or ``dataset`` column, stably (within a dataset the rows keep their order); unchanged without
    either column."""
    from helpers.core.tasks import in_category_order

    column = next((c for c in ("task", "dataset") if c in frame.columns), None)
    if column is None or frame.empty:
        return frame
    rank = {t: i for i, t in enumerate(in_category_order(list(an.tasks)))}
    rank.update({an.task_labels.get(t, t): i for t, i in list(rank.items())})
    keys = frame[column].map(lambda v: rank.get(v, len(rank)) if isinstance(v, str) else len(rank))
    return frame.iloc[np.argsort(keys.to_numpy(), kind="stable")].reset_index(drop=True)


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
    formats.write_csv(data, params.tables_path / f"{name}.csv")
    return md(sentence)


def publish_figure(an: Analysis, name: str, fig, data: pd.DataFrame, lead: str | None = None, **fill: str) -> str:
    """Save a catalogued figure (PNG, SVG, caption) and the numbers it draws (CSV); returns the caption. ``lead``:
    Markdown the report shows before the figure (its reading, from the set's numbers)."""
    entry(name)
    params = an.ctx.params
    note_path(params.figures_path, name).unlink(missing_ok=True)
    png, _ = save_figure(fig, name, params.figures_path)
    show_saved(fig, png)  # in a notebook: the PNG the report shows, above its caption
    caption = full_caption(an, name, **fill)
    caption_path(params.figures_path, name).write_text(caption + "\n", encoding="utf-8")
    params.tables_path.mkdir(parents=True, exist_ok=True)
    formats.write_csv(data, params.tables_path / f"{name}.csv")
    _write_lead(params.tables_path, name, lead)
    return caption


def _write_lead(out_dir: Path, name: str, lead: str | None) -> None:
    lead_file = lead_path(out_dir, name)
    if lead:
        lead_file.write_text(md(lead.strip()) + "\n", encoding="utf-8")
    else:
        lead_file.unlink(missing_ok=True)
