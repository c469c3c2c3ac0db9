"""The report's "About this run" box: a set's provenance, stated once (captions say only what they show)."""

from __future__ import annotations

import html
import json
import re
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd

from helpers.analyze.estimates import Analysis
from helpers.analyze.statistic import RELEASE_FRONTIER, RELEASE_GAIN, of_kind
from helpers.core.paths import repo_root
from helpers.grade.stage import graded_paths
from helpers.publish import names
from helpers.publish.appearance import release_names
from helpers.publish.formats import markdown
from helpers.publish.safe import md, md_frame


def code_version() -> str:
    """The checkout's commit (short hash), or the package version where git or the history is missing."""
    from helpers import __version__

    try:
        out = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=repo_root(), capture_output=True,
                             text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return f"helpers {__version__} (no git)"
    return f"commit {out.stdout.strip()}" if out.returncode == 0 else f"helpers {__version__} (no git history)"


def input_files(p) -> list[Path]:
    """The files a set's numbers depend on besides its records: its parameter file, its model registry, the expert
    registry (every set's fee) and its price snapshot (or every file of the dated price ledger)."""
    from helpers.core.experts import default_path
    from helpers.core.ledger import ledger_files

    files = [Path(p.source)] if Path(p.source).is_file() else []
    files += [p.models_path, default_path()]
    files += ledger_files() if p.prices is not None else [p.price_path]
    return [f.resolve() for f in files]


def inputs_state(files: list[Path]) -> list[str]:
    """Per file: its path in the checkout and ``committed``, ``modified, not committed`` or ``not committed``
    (``git status``); ``outside the checkout`` where it lies elsewhere. A report made from an input that is not
    committed cannot be reproduced from its commit alone."""
    root = repo_root().resolve()
    inside = [f for f in files if root in f.parents]
    try:
        out = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all", "--", *map(str, inside)],
                             cwd=root, capture_output=True, text=True, timeout=20)
        status = {(root / line[3:].strip()).resolve(): line[:2]
                  for line in out.stdout.splitlines()} if out.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        status = None
    said = []
    for f in files:
        if root not in f.parents:
            said.append(f"{f.name} (outside the checkout: in no commit)")
        elif status is None:
            said.append(f"{f.relative_to(root)} (no git history to check)")
        else:
            code = status.get(f, "")
            state = "committed" if not code else "not committed" if "?" in code else "modified, not committed"
            said.append(f"{f.relative_to(root)} ({state})")
    return said


def _headline_fall(policy: pd.DataFrame | None, task: str, alone_usd: float, names: dict[str, str] | None = None
                   ) -> dict | None:
    """The headline's frontier over releases on ``task`` (``release frontier:<step>`` policy rows, % of the expert
    alone, cross-fitted with its validated interval) at its first and last step, in USD per problem (``alone_usd``:
    the expert alone), with k, and how many releases after the first have a gain (``release gain`` rows) shown above 0
    of how many (every release's gain tested together: ``policy.holm_shown``), those releases by ``names`` (step ->
    label; ``gains_named``; the first release's gain, over the expert alone, is no change over the period), and the
    releases whose gain's interval lies wholly below 0 (``losses``: label, gain, low, high in %); None where the rows
    do not hold it."""
    if policy is None or policy.empty:
        return None
    mine = policy[of_kind(policy, RELEASE_FRONTIER) & (policy["task"] == task)]
    mine = mine.assign(step=mine["item"].astype(int)).sort_values("step").dropna(subset=["value"])
    if len(mine) < 2:
        return None
    first, last = ([float(r[c]) * alone_usd / 100 for c in ("value", "low", "high")]
                   for r in (mine.iloc[0], mine.iloc[-1]))
    gains = policy[of_kind(policy, RELEASE_GAIN) & (policy["task"] == task)].dropna(subset=["low"])
    gains = gains[gains["item"] != "0"]  # the first release's gain is over the expert alone: not a change
    lost = gains[gains["high"] < 0]  # review 9, M9: a release whose gain's interval lies wholly below 0
    return {"start": first, "end": last, "k": int(mine["k"].iloc[0]), "gains": len(gains),
            "gains_shown": int(gains["shown"].sum()),
            "gains_named": [(names or {}).get(step, step)
                            for step in gains["item"][gains["shown"].astype(bool)]],
            "losses": [((names or {}).get(r["item"], r["item"]), *(100 * float(r[c]) for c in ("value", "low", "high")))
                       for _, r in lost.iterrows()]}


def _runs_said(an: Analysis) -> str:
    """The settings' runs: how many per model, method and problem, of the methods with runs of their own; those read
    from another method's runs (majority vote, from the single attempt's) said as such (review 9, L9)."""
    from helpers.core.methods import get_method

    def own(m: str) -> bool:
        try:
            return get_method(m).is_collected
        except ValueError:  # an imported agent strategy: its runs are its own
            return True

    p = an.ctx.params
    collected = [names.method(m) for m in p.methods if own(m)]
    derived = [names.method(m) for m in p.methods if not own(m)]
    return (f"{p.n_runs} per model, method and problem{_fewer_runs(an)}; methods: {', '.join(collected)}"
            + (f"; read from the single attempt's runs (no runs of their own): {', '.join(derived)}" if derived
               else ""))


def what_it_shows(an: Analysis, top: int = 3, policy: pd.DataFrame | None = None) -> list[dict]:
    """Per dataset of a real set (``story.set_found``): the models and their release span, the paper's frontier at the
    first release date (every model released that day: ``start_models``, each label with the % of problems it ever
    passed) and with every model (USD per problem, Eq. 7), the expert's part of the latter and the problems no
    model passed, the ``top`` models cheapest most often on the problems some model passed (% of those), and the
    expert's mean fee where it is a project estimate (``fee_usd``; None where it has a published source); and, from
    ``policy`` (``intervals.policy_statistics`` rows) where given, the headline's frontier at the first and last
    release step (``headline``: ``_headline_fall``)."""
    from helpers.analyze import costofpass as cp
    from helpers.core.experts import load_expert_costs

    vanilla = an.vanilla_cop()
    trend = an.frontier_over_time()
    split = cp.expert_split(vanilla.min(axis=1).to_frame("frontier"), an.expert).set_index("task")
    rows, experts = [], load_expert_costs(given=an.ctx.params.expert_usd)
    for task in an.tasks:
        steps = trend[(trend["task"] == task) & trend["date"].notna()]
        cop = vanilla.xs(task, level="task")
        solved = cop[np.isfinite(cop.to_numpy(dtype=float)).any(axis=1)]
        counts = (solved.idxmin(axis=1).astype(str).value_counts() if not solved.empty  # strings: no empty categories
                  else pd.Series(dtype=int))
        estimate = experts[task].sources.startswith("project estimate")
        first = [m for m in cop.columns if an.releases[m] == an.releases.min()]  # released on the first date
        fees = an.expert.xs(task, level="task")
        rows.append({"label": an.task_labels[task], "models": vanilla.shape[1],
                     "fee_usd": float(fees.mean()) if estimate else None, "fee_varies": bool(fees.nunique() > 1),
                     "runs": int(an.ctx.params.n_runs), "problems": int(cop.shape[0]),
                     "headline": _headline_fall(policy, task, float(fees.mean()), release_names(an)),
                     "first": an.releases.min().date().isoformat(), "last": an.releases.max().date().isoformat(),
                     "start_usd": float(steps.loc[steps["date"] == steps["date"].iloc[0], "frontier_usd"].iloc[-1]),
                     "end_usd": float(steps["frontier_usd"].iloc[-1]),
                     "start_models": [(an.labels[m], 100 * float(np.isfinite(cop[m].to_numpy(float)).mean()))
                                      for m in first], "billed": an.ctx.params.billed, "imported": an.imported,
                     "expert_pct": 100 * split.loc[task, "expert_usd"] / split.loc[task, "value"],
                     "unsolved": len(cop) - len(solved), "unsolved_pct": 100 * (len(cop) - len(solved)) / len(cop),
                     "solved": len(solved),
                     "cheapest": [(an.labels[m], 100 * n / len(solved)) for m, n in counts.head(top).items()]})
    return rows


def graded_manifest(ctx) -> dict:
    """The grading stage's manifest (``grade.stage``), or ``{}`` before grading."""
    path = graded_paths(ctx)["manifest"]
    return json.loads(path.read_text()) if path.is_file() else {}


def data_caveats(an: Analysis) -> tuple[list[str], list[str]]:
    """(every data caveat, the source's): the set's (``Context.caveats``) with what a code set's verdicts
    (``grade.stage.grading_caveats``) and an imported source (``collect.imports.source_caveats``, also returned alone
    for the first screen) call for — computed once, for the report's context."""
    from helpers.collect.imports import source_caveats
    from helpers.grade.stage import grading_caveats

    source = source_caveats(an.ctx.params, an.set_models)
    return list(dict.fromkeys([*an.ctx.caveats, *grading_caveats(an.ctx), *source])), source


def about_run(an: Analysis, caveats: list[str] | None = None) -> str:
    """Markdown: set, whether simulated, datasets with their problem counts, models by family, runs, methods,
    prices, the expert, the extraction rule, data caveats, the code version and the graded records' counts and
    fingerprint digest."""
    ctx, p = an.ctx, an.ctx.params
    snap = ctx.snapshot
    n = {t: len(v) for t, v in ctx.problems.items()}
    families: dict[str, list[str]] = {}
    for m in an.models:
        families.setdefault(md(an.families[m]), []).append(md(an.labels[m]))
    manifest = graded_manifest(ctx)
    counts, records = manifest.get("counts", {}), manifest.get("records", {})
    rows = [
        ("set", f"`{p.name}`: {md(p.description)}" if p.description else f"`{p.name}`"),
        ("models", "**SIMULATED** (not real language models)" if an.simulated else
                   f"real language models, not called here: {md(an.imported_note)}" if an.imported
                   else "real language models"),
        ("datasets", ", ".join(f"{md(an.task_labels[t])} ({n[t]} problems)" for t in an.tasks)),
        ("models by family", "; ".join(f"{fam}: {', '.join(names)}" for fam, names in families.items())),
        ("runs", _runs_said(an)),
        ("prices", f"snapshot `{md(snap.name)}` of {snap.date} ({md(snap.source)})"),
        ("human expert", md(expert_said(an))),
        *([("answer extraction", f"`{p.extraction}`")] if _extracts(an) else []),
        ("data caveats", md(" ".join(ctx.caveats if caveats is None else caveats)) or "none"),
        *([("code grading", code_grading_text(manifest.get("code_grading", {}), an.task_labels))]
          if manifest.get("code_grading") else []),
        ("code", code_version()),
        ("inputs", _inputs_cell(p)),
        ("graded records", (f"{counts.get('attempts', '?')} imported records, one per attempt (an attempt of an agent "
                            "may have made many API calls)" if an.imported else
                            f"{counts.get('calls', '?')} calls, {counts.get('attempts', '?')} attempts")
                           + f"; record fingerprints sha256 `{str(records.get('fingerprints_sha256', '?'))[:16]}…`"),
    ]
    table = "\n".join(f"| {k} | {v} |" for k, v in rows)
    return f"**About this run**\n\n| | |\n|---|---|\n{table}\n\n{parameter_file(p)}"


NOT_EXTRACTED = ("code", "verdict")  # task metrics judged without reading an answer: code run, a verdict imported


def _extracts(an: Analysis) -> bool:
    """Whether an answer is extracted from a response on some dataset (not for code run or verdicts imported)."""
    from helpers.core.tasks import get_task

    return any(get_task(t).metric not in NOT_EXTRACTED for t in an.tasks)


def _fewer_runs(an: Analysis) -> str:
    """", except …" naming each (model, method) whose records hold fewer runs per problem than the set asks for (an
    imported source's missing logs), else ""."""
    d = an.attempts
    if d.empty or not {"model", "method", "run"} <= set(d.columns):
        return ""
    most = d.groupby(["model", "method", "task", "problem_id"], observed=True)["run"].nunique() \
        .groupby(["model", "method"], observed=True).max()
    few = most[most < an.ctx.params.n_runs]
    if few.empty:
        return ""
    said = [f"{names.method(me)} by {md(an.labels.get(m, m))}: {n}" for (m, me), n in few.items()]
    return ", except where the records hold fewer (" + "; ".join(said) + ")"


def expert_said(an: Analysis) -> str:
    """The human expert's fee per dataset in words, from the fees the analysis uses (``an.expert``, USD per problem):
    its value (a range and mean where it varies by problem), the time and rate it stands for (at the set's bound of
    the rate's range), and that it is an estimate."""
    from helpers.core.experts import load_expert_costs
    from helpers.publish.formats import fmt_usd

    costs, p, levels = load_expert_costs(given=an.ctx.params.expert_usd), an.ctx.params, fee_levels(an)
    parts = []
    for t in an.tasks:
        e, level = costs[t], levels[t]
        low, high = e.hourly_rate_usd
        rate = (f"{high if p.expert_bound == 'high' else low:g} USD/h" +
                ("" if low == high else f", the {p.expert_bound} end of {low:g}–{high:g} USD/h"))
        minutes = ("minutes by the problem's difficulty (" + ", ".join(
            f"{k}: {v:g}" for k, v in (e.minutes_by_difficulty or {}).items()) + ")" if e.minutes_by_difficulty
            and "–" in level else f"{e.minutes_per_question:g} minutes")
        printed = p.fidelity.expert_cost == "printed" and e.published_usd is not None
        if t in p.expert_usd:  # the set's own figure (an imported set's, ``cost-of-pass import``): no rate or minutes
            parts.append(f"{an.task_labels.get(t, t)}: {level} (the figure the set gives, expert_usd)")
            continue
        worked = e.derived_usd(p.expert_bound) if not e.minutes_by_difficulty else None
        differs = (f"; its minutes and rate below give {fmt_usd(worked)} USD" if printed and worked is not None
                   and fmt_usd(worked) != fmt_usd(e.usd(p.expert_bound)) else "")  # review 9, L6: the paper's is loose
        parts.append(f"{an.task_labels.get(t, t)}: {level}" + (f" (the paper's Table 3 as printed{differs})" if printed
                                                              else "")
                     + f" — {minutes} at {rate} ({e.qualification})")
    return ("; ".join(parts) + ". An estimate of what the expert's time costs, not a measured cost: the expert-fee "
            "curve shows where each finding would change.")


def fee_levels(an: Analysis) -> dict[str, str]:
    """The expert's fee of each dataset in words, from the fees the analysis uses (``an.expert``, USD per problem):
    "7.82–375 USD per problem, mean 38.8" where it varies by problem, else "0.5 USD per problem"."""
    from helpers.publish.formats import fmt_usd

    out = {}
    for t in an.tasks:
        fees = an.expert[an.expert.index.get_level_values("task") == t]
        out[t] = (f"{fmt_usd(fees.min())}–{fmt_usd(fees.max())} USD per problem, mean {fmt_usd(fees.mean())}"
                  if fees.nunique() > 1 else f"{fmt_usd(fees.iloc[0])} USD per problem")
    return out


def _expert_rule(p) -> str:
    """How the set prices the expert (``fidelity.expert_cost``), and when an edit of the registry takes effect."""
    if p.fidelity.expert_cost == "printed":
        return ("the paper's Table 3 as printed, as its reference code uses it (tasks outside the paper: hourly rate × "
                "minutes / 60); an edited rate or time in params/registry/expert_costs.yaml changes a paper dataset's "
                "fee only with `fidelity: {expert_cost: derived}`")
    return "hourly rate × minutes per question / 60, recomputed from Table 3's derivation"


def _regraded(an: Analysis) -> bool:
    """Whether this project grades some dataset itself (answers extracted, or code run), rather than taking every
    verdict as its source gives it (metric ``verdict``)."""
    from helpers.core.tasks import get_task

    return any(get_task(t).metric != "verdict" for t in an.tasks)


def _inputs_cell(p) -> str:
    """The inputs row: each file with its state, and a warning where one is not committed."""
    said = inputs_state(input_files(p))
    flag = any(not s.endswith("(committed)") for s in said)
    return md("; ".join(said)) + (" — **not reproducible from the commit alone**: an input is not committed" if flag
                                  else "")


def parameter_file(p) -> str:
    """The set's parameter file as it was read, folded (secrets redacted, escaped)."""
    from helpers.core.redaction import redact

    path = Path(p.source)
    if not path.is_file():
        return ""
    text = re.sub(r"(?<![\w.~/:])/(?:[\w.@+-]+/)*[\w.@+-]+", lambda m: _path_shown(m.group(0)),
                  redact(path.read_text(encoding="utf-8")))
    return (f"<details><summary>The parameter file ({html.escape(path.name)})</summary>\n\n"
            f'<pre class="cop-raw">{html.escape(text)}</pre>\n\n</details>')  # a file as read: ids are its words


def _path_shown(text: str) -> str:
    """An absolute path of this machine as a report may show it: relative to the checkout inside it, else its last
    two parts after "…/" (where the results went says nothing to a reader, and a page must not carry the machine's
    paths)."""
    path = Path(text)
    if path.is_relative_to(repo_root()):
        return str(path.relative_to(repo_root())) or "."
    return "…/" + "/".join(path.parts[-2:])


def code_grading_text(counts: dict[str, dict[str, int]], task_labels: dict[str, str]) -> str:
    """How model-written code was judged, per code task (``grade.stage.code_grading`` counts): inside the kernel's
    boundary or not, and outside the program's process or inside it (verdicts a program could forge)."""
    parts = []
    for task, c in counts.items():
        total = c.get("split", 0) + c.get("whole", 0)
        where = (f"**{c['none']:,} WITHOUT a kernel boundary** (`--unisolated-grading`: those programs could read and "
                 f"change the grading machine)" if c.get("none") else "all inside the kernel's boundary (bubblewrap)")
        whole = (f"; {c['whole']:,} judged inside the program's own process, because their tests could not be run "
                 "apart from it (a program could forge such a verdict)" if c.get("whole") else
                 "; every verdict taken outside the program's process")
        parts.append(f"{md(task_labels.get(task, task))}: {total:,} verdicts, {where}{whole}")
    return "; ".join(parts) + ". See docs/security.md, the threat model."


def unisolated(counts: dict[str, dict[str, int]]) -> int:
    """How many verdicts were taken without a kernel boundary."""
    return sum(c.get("none", 0) for c in counts.values())


def context_path(params) -> Path:
    """Where a set's report context is kept: ``results/<set>/tables/run_context.json``."""
    return params.tables_path / "run_context.json"


# long: one flat dict of what the report states once; wrapping its Markdown at 120 characters put it a line over 45
def run_context(an: Analysis, policy: pd.DataFrame | None = None) -> dict:
    """What the report states once besides the catalogued artifacts, as Markdown and plain values: the about box,
    the price snapshot, the human expert's derivation, the answer-extraction rule and data caveats, and the
    datasets with their labels (so the report reloads neither the benchmark data nor the records). ``policy``: the
    headline's rows (``intervals.policy_statistics``), which "what it shows" leads with where given."""
    from helpers.core.experts import expert_table

    p, snap = an.ctx.params, an.ctx.snapshot
    prices = "\n".join(f"| {md(an.labels.get(m, m))} | {q.input_usd_per_mtok:g} | {q.output_usd_per_mtok:g} |"
                       for m, q in snap.prices.items() if m in an.models)
    how = _expert_rule(p)
    rule = ("the last `<answer>…</answer>` span (the paper's rule)" if p.extraction == "strict" else
            "the last `<answer>…</answer>` span, falling back to the last `\\boxed{}`, an \"answer is X\" phrase, then "
            "the last number or a lone letter")
    numeric = ("For numeric targets the answer must itself be a number: an expression such as `60 + 59` is wrong even "
               "where math-verify would evaluate it (a deliberate departure from the paper's grader: small models echo "
               "the question)." if p.fidelity.numeric_answers == "number" else
               "Numeric answers may be expressions that math-verify evaluates, as the paper's grader does.")
    from helpers.collect.imports import source_name
    from helpers.publish.story import set_found

    all_caveats, source_said = data_caveats(an)
    caveats = "\n".join(f"- {md(c)}" for c in all_caveats) or "- none"
    source = source_name(p, long=True) if p.import_from is not None else ""
    return {
        "shows": "" if an.simulated else set_found(what_it_shows(an, policy=policy), source),
        "design": design_text(an),  # a racing set: which numbers come from every problem, which from the sample
        "source_caveats": source_said,  # what the imported source gets wrong: on the first screen
        "source": source,  # an imported set's source, with its licence
        "name": p.name,
        "simulated": bool(an.simulated),
        "known_truth": all(m.simulated for m in an.ctx.models),
        "imported": an.imported,
        "replay": an.ctx.params.replays_race,  # design racing on records already there: the race replayed on them
        "regraded": _regraded(an),
        "agent_runs": an.agent_runs,
        "tasks": list(an.tasks),
        "task_labels": {t: an.task_labels[t] for t in an.tasks},
        "expert_fees": fee_levels(an),  # each dataset's fee in words: the first screen says it (review 7)
        # the expert alone, USD per problem: the first screen compares the frontier with it (review 8)
        "expert_alone_usd": {t: float(v) for t, v in an.expert.groupby(level="task").mean().items() if t in an.tasks},
        "model_labels": dict(an.labels),  # the interactive charts' names (publish.interactive)
        "model_families": {m: an.families[m] for m in an.models if m in an.families},  # and their colours
        "about": about_run(an, all_caveats),
        "unisolated": unisolated(graded_manifest(an.ctx).get("code_grading", {})),
        "prices": (f"**Prices**: none applied (snapshot `{md(snap.name)}`): every record's USD is what its run was "
                   "billed, as its source reports it; no per-token price enters these numbers." if p.billed else
                   f"**Prices**: snapshot `{md(snap.name)}` of {snap.date}, source: {md(snap.source)}. USD per 1M "
                   "tokens; reasoning tokens are billed as output.\n\n| model | input | output |\n|---|---|---|\n"
                   f"{prices}"),
        "expert": f"**Human expert** cost per problem (`usd`, at the {p.expert_bound} bound): {how}. The derivation is "
                  f"kept beside it:\n\n"
                  + markdown(md_frame(expert_table(an.tasks, p.expert_bound, p.fidelity.expert_cost, p.expert_usd))),
        "extraction": grading_text(an, rule, numeric) + f"\n\n**Data caveats**:\n{caveats}",
    }


KIND_WORDS = {"frontier": "the frontier of all models", "releases": "Figure 2's frontier over releases (and Figure 4)",
              "families": "Figure 3's families", "models": "Figure 5's single models",
              "techniques": "Table 2's techniques"}


def design_text(an: Analysis) -> str:
    """How the records were collected, for a racing set (``design: racing``; "" for the uniform design), as plain text:
    the sample every option ran on, what the race kept, and which numbers come from every problem and which from the
    sample."""
    if an.full is None:
        return ""
    from helpers.analyze.race_replay import raced_bill
    from helpers.grade.racing import table1_share
    from helpers.publish.formats import fmt_usd

    r, share = an.ctx.params.racing, table1_share(an.ctx)
    spent, uniform_usd = raced_bill(an)
    sample = an.expert.index.size
    everywhere = an.full.expert.index.size
    options = an.full.attempts.groupby(["model", "method"], observed=True).ngroups
    uniform = everywhere * options * an.ctx.params.n_runs
    made = int(an.full.attempts["complete"].sum())
    kept = "; ".join(KIND_WORDS[k] for k in r.protect)
    return (f"Every model and method made every run on {sample:,} of the {everywhere:,} problems "
            f"(the Table-1 sample: {share:.0%} of each dataset's, drawn by the set's seed); on the others the "
            "options ran cheapest first, each only where it could still change a frontier this report shows "
            f"({r.margin:g} × its expected USD per attempt at most the least upper bound on that frontier, from the "
            f"runs of the cheaper options): {made:,} of the uniform design's {uniform:,} attempts "
            f"({made / uniform:.0%}), for {fmt_usd(spent)} USD of the {fmt_usd(uniform_usd)} the uniform design "
            f"would have cost ({spent / uniform_usd:.0%}; the attempts not made at their option's mean USD per attempt "
            f"on the sample). From every problem's records: {kept}. Table 1 (the paper's estimator, and its "
            "expert's share) reads every problem's records too, each weighted by the inverse of its chance of being "
            "recorded: 1 where the race ran it, N/k on the sample's other records (a dataset's N problems, k of them "
            f"in the sample: about {1 / share:.3g}), so a model the race ran everywhere has the uniform "
            "design's value. Every other number (the cost with up to k tries then the expert, the routing frontier, "
            "the model-based estimate, Tables 5-6, the price-change split, the frontier at other expert fees) comes "
            "from the Table-1 sample alone, as a uniform design's on those problems would: its intervals are wider.")


def grading_text(an: Analysis, rule: str, numeric: str) -> str:
    """How this set's answers were judged, by its tasks' metrics: extracted answers compared with the gold one,
    model-written code run with its hidden tests in the sandbox, or a source's own harness's verdict taken as it is."""
    from helpers.core.tasks import get_task

    p, metrics = an.ctx.params, {get_task(t).metric for t in an.tasks}
    said = []
    if _extracts(an):
        said.append(f"**Answer extraction**: {rule} (`extraction: {p.extraction}`). Math answers are compared by "
                    f"symbolic equivalence (math-verify), multiple choice by the letter. {numeric}")
    if "code" in metrics:
        said.append("**Grading code**: every distinct program" + (" (imported: written by the source's runs, not here)"
                    if p.import_from is not None else "") + " is run with its problem's hidden tests inside the "
                    "grader's sandbox (a kernel boundary, no network, a CPU and memory limit; see docs/security.md), "
                    "and its verdict is compared with the source's where it has one (table `grader_agreement`).")
    if "verdict" in metrics:
        said.append("**Verdicts**: each attempt's verdict is the source's own harness's (for SWE-bench, the "
                    "repository's tests in its Docker image), taken as it is: this project does not run that harness, "
                    "so a verdict cannot be checked here.")
    return " ".join(said) + " Failed calls are excluded, never graded wrong."


def write_context(an: Analysis, policy: pd.DataFrame | None = None) -> Path:
    """Write ``run_context`` where the report reads it (``context_path``); ``policy``: as ``run_context``'s."""
    path = context_path(an.ctx.params)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(run_context(an, policy), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path
