"""The README's result and the docs' numbers on real records: computed from a set's results, never typed.

    python -m helpers.publish.readme [results/<set>]    # rewrite the README's block and copy its figure to docs/img/
    python -m helpers.publish.readme --docs              # rewrite every docs block (``DOC_BLOCKS``) from results/

The README's block sits between ``START`` and ``END``; a docs block between ``<!-- results/<set>#<name>: start -->``
and ``<!-- results/<set>#<name>: end -->`` on its page. ``tests/test_readme.py`` checks, after the README's commands
have run the sets, that each block is exactly what this module writes from the results on disk.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import sys
from pathlib import Path

import pandas as pd

from helpers.core.paths import repo_root
from helpers.publish.safe import md

START = "<!-- result: start (python -m helpers.publish.readme writes this block) -->"
END = "<!-- result: end -->"
SET = "swebench_bash_only"
FIGURE = "headline_costs"
IMAGE = "docs/img/result_headline.png"
RELEASES = "figure2_frontier_over_time"  # the models and their release span


def _releases(tables: Path) -> tuple[int, str, str]:
    """The release steps of a one-dataset set's Figure 2 data: (how many, first date, last date)."""
    fig = pd.read_csv(tables / f"{RELEASES}.csv").dropna(subset=["date"])
    return len(fig), str(fig["date"].iloc[0]), str(fig["date"].iloc[-1])


def issues(cell: object) -> object:
    """A findings cell in the block's unit: its "problem(s)" said as "issue(s)" (review 11, L6: "(USD per issue)"
    beside "on the 64 problems no model passed"); anything else as it is."""
    return re.sub(r"\bproblem(s?)\b", r"issue\1", cell) if isinstance(cell, str) else cell


def result_block(results: Path) -> str:
    """The block (Markdown, ``START`` to ``END``) from ``results`` (a set's folder): the headline drawn (the figure
    the report's first screen shows) and two sentences quoting its findings table: the frontier of all models and
    each model alone under "up to k tries, then the expert", whether a model is the cheapest beyond doubt, and the
    paper's frontier beside them, labelled as the paper's."""
    tables = results / "tables"
    label = next(iter(json.loads((tables / "run_context.json").read_text(encoding="utf-8"))["task_labels"].values()))
    found = pd.read_csv(tables / "findings.csv").iloc[0].map(issues)
    n, first, last = _releases(tables)
    cheapest, paper = str(found["cheapest single model (USD)"]), str(found["the paper's frontier (USD)"])
    cheapest = ("no model is the cheapest beyond doubt" if cheapest.startswith("none beyond doubt")
                else f"the cheapest beyond doubt is {cheapest}")
    return "\n".join([
        START,
        f'<img src="{IMAGE}" width="560" alt="On {html.escape(label)}: the cost with one try, then the expert, of '
        'the frontier of all models and of each model alone, with 95% intervals">',
        "",
        f"On the SWE-bench bash-only leaderboard's real bills (imported: {n} release dates from {first} to {last}, one "
        f"run per issue), choosing the model for each issue of {label} on the other issues and letting the human "
        f"expert take what it fails costs {found['frontier of all models (USD)']} (USD per issue). "
        f"Each model alone, then the expert, costs {found['each model alone (USD)']}, and {cheapest}. The paper's "
        f"frontier, each issue's cheapest model picked on the very runs it is read on, reads "
        f"{paper}.",
        END])


def write(readme: Path, results: Path) -> None:
    """Rewrite the README's block from ``results`` and copy its figure to ``IMAGE``."""
    text = readme.read_text(encoding="utf-8")
    if START not in text or END not in text:
        raise SystemExit(f"{readme}: the markers of the result block are missing")
    before, rest = text.split(START, 1)
    readme.write_text(before + result_block(results) + rest.split(END, 1)[1], encoding="utf-8")
    image = readme.parent / IMAGE
    image.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(results / "figures" / f"{FIGURE}.png", image)


def _shows(results: Path) -> str:
    """The report's "What it shows" paragraph of a real set (its run context), as a list item."""
    shows = json.loads((results / "tables" / "run_context.json").read_text(encoding="utf-8"))["shows"]
    return f"- **What it shows** (the report's first screen, computed from `results/{results.name}`): {shows}"


def _agreement(results: Path) -> str:
    """How the project's sandboxed grade agrees with an imported source's verdicts: the range per (model, method), the
    attempts that differ and why, from the ``grader_agreement`` and ``grader_disagreements`` tables (the grader's
    reasons, which quote what a program raised, ``safe.md``-escaped)."""
    tables = results / "tables"
    agree = pd.read_csv(tables / "grader_agreement.csv")
    differ = pd.read_csv(tables / "grader_disagreements.csv")
    why = differ.groupby("reason", sort=False).size().sort_values(ascending=False, kind="stable")
    reasons = "; ".join(f"{n}: {md(reason)}" for reason, n in why.items()) or "none"  # a program's own words: escaped
    from helpers.grade.sandbox import CPU_S

    near, passed = int(agree["near_limit"].sum()), int(agree["near_limit_passed"].sum())
    return (f"- **Agreement with the authors' verdicts** (computed from `results/{results.name}`): "
            f"{agree['agree_pct'].min():.1f}–{agree['agree_pct'].max():.1f}% per (model, method); "
            f"{len(differ):,} of {int(agree['responses'].sum()):,} attempts differ (`grader_disagreements` lists "
            f"each; by the grader's reason: {reasons}). {near} {'attempt' if near == 1 else 'attempts'}' programs used "
            f"at least two thirds of the {CPU_S} s CPU limit ({passed} passed, {near - passed} did not): their "
            "verdicts rest on the grading machine's speed as much as on the program: another machine can move them, "
            "and with them the numbers that count them.")


def _headline(results: Path) -> str:
    """A real set's headline in one paragraph, from its findings table: the frontier of all models, each model alone,
    the cheapest model's finding, the paper's frontier and the techniques shown to pay (one dataset)."""
    found = pd.read_csv(results / "tables" / "findings.csv").iloc[0].map(md)  # cells hold data's strings (problem ids)
    paper = found["the paper's frontier (USD)"]
    return (f"On {found['dataset']} (computed from `results/{results.name}`): the frontier of all models costs "
            f"{found['frontier of all models (USD)']} (USD per problem); each model alone "
            f"{found['each model alone (USD)']}; cheapest single model: {found['cheapest single model (USD)']}. The "
            f"paper's frontier: {paper}. Techniques and strategies shown to pay "
            f"(cross-fitted gain, %): {found['techniques that pay (gain %)']}.")


def _pct(x: float, se: float | None = None) -> str:
    if x != x:  # NaN
        return "–"
    return f"{x:.1f}%" + (f" ± {se:.1f}" if se is not None and se == se else "")


def _validity_summary(results: Path) -> str:
    """The paper's estimators on a simulated set's own generator (``07_validity``'s ``validity_summary``): where the
    truth is 0, and per statistic the mean absolute bias and the coverage of each estimator."""
    d = pd.read_csv(results / "tables" / "validity_summary.csv")
    by = {(r.family, r.estimator): r for r in d.itertuples()}
    families = list(dict.fromkeys(d["family"]))
    zero = [f"{by[(f, 'plug-in')].zero_truth_pct:.0f}% of the {f.split(' (')[0].split(': ')[-1]}" for f in families
            if 0 < by[(f, "plug-in")].zero_truth_pct < 100]
    rows = ["| statistic | plug-in mean abs. bias | model-based mean abs. bias | plug-in coverage | "
            "bootstrap-corrected coverage | model-based coverage | truth 0: covered (plug-in / model-based) |",
            "|---|---|---|---|---|---|---|"]
    for f in families:
        plug, boot, model = (by[(f, e)] for e in ("plug-in", "bootstrap-corrected", "model-based"))
        zero_cov = (f"{plug.zero_truth_coverage_pct:.0f}% / {model.zero_truth_coverage_pct:.0f}%"
                    if plug.zero_truth_pct > 0 else "–")
        rows.append(f"| {f}, {plug.cells} cells | {plug.mean_abs_bias:.2g} | {model.mean_abs_bias:.2g} | "
                    f"{_pct(plug.coverage_pct, plug.coverage_se_pct)} | {_pct(boot.coverage_pct)} | "
                    f"{_pct(model.coverage_pct)} | {zero_cov} |")
    return (f"Computed from `results/{results.name}` (its `07_validity`). Coverage is pooled over the cells whose "
            "truth is not 0; a cell whose truth is 0 (a model or technique that never lowers the frontier: "
            + (", ".join(zero) or "none here") + ") is covered whenever the estimate is exactly 0, which would "
            "flatter the pooled figure, so it is counted apart (last column):\n\n" + "\n".join(rows))


def _local_tables(results: Path) -> str:
    """The local set's Table 5 (accuracy %, vanilla) and Table 1 (USD per problem, with the expert), one row per model,
    beside what the expert alone costs on each dataset (its ``table5_accuracy``, ``table1_frontier_cop`` and
    ``table1_expert_only`` tables; the datasets named as its report names them)."""
    from helpers.core.numbers import sig
    from helpers.core.tasks import get_task

    tables = results / "tables"
    acc, t1 = (pd.read_csv(tables / f"{name}.csv") for name in ("table5_accuracy", "table1_frontier_cop"))
    alone = pd.read_csv(tables / "table1_expert_only.csv").iloc[0]
    tasks = [c for c in acc.columns if c not in ("model", "family")]
    label = {t: get_task(t).label for t in tasks}
    head = "| model | " + " | ".join(label.values()) + " |"
    rule = "|---|" + "---:|" * len(tasks)

    def table(d: pd.DataFrame, fmt) -> str:
        return "\n".join([head, rule, *(f"| {md(r['model'])} | " + " | ".join(fmt(r[t]) for t in tasks) + " |"
                                        for _, r in d.iterrows())])

    return (f"Computed from `results/{results.name}`. Table 5, accuracy (%, vanilla):\n\n{table(acc, sig)}\n\n"
            "Table 1, frontier cost-of-pass with the human expert (USD per problem; the expert alone costs "
            + ", ".join(f"{sig(alone[t])} on {label[t]}" for t in tasks)
            + f"):\n\n{table(t1, sig)}")


DOC_BLOCKS = {  # (page, name) -> (the set whose results it quotes, the table that must exist, the block's text)
    ("docs/swebench.md", "what-it-shows"): ("swebench_bash_only", "findings", _shows),
    ("docs/humaneval-agents.md", "what-it-shows"): ("humaneval_agents", "findings", _shows),
    ("docs/humaneval-agents.md", "agreement"): ("humaneval_agents", "grader_agreement", _agreement),
    ("docs/statistics.md", "humaneval-headline"): ("humaneval_agents", "findings", _headline),
    ("docs/statistics.md", "validity-summary"): ("sim", "validity_summary", _validity_summary),
    ("docs/local-models.md", "tables"): ("local", "table1_frontier_cop", _local_tables),
}


def doc_markers(page: str, name: str) -> tuple[str, str]:
    """The start and end markers of a docs block."""
    set_name = DOC_BLOCKS[(page, name)][0]
    return f"<!-- results/{set_name}#{name}: start -->", f"<!-- results/{set_name}#{name}: end -->"


def doc_block(page: str, name: str, results_root: Path) -> str | None:
    """A docs block, markers included, from ``results_root/<set>``; None where that set has no results."""
    set_name, table, text = DOC_BLOCKS[(page, name)]
    results = results_root / set_name
    if not (results / "tables" / f"{table}.csv").is_file():
        return None
    start, end = doc_markers(page, name)
    return f"{start}\n{text(results)}\n{end}"


def write_docs(root: Path) -> list[str]:
    """Rewrite every docs block whose set has results under ``root/results``; returns the blocks written."""
    done = []
    for page, name in DOC_BLOCKS:
        block = doc_block(page, name, root / "results")
        if block is None:
            continue
        path = root / page
        text = path.read_text(encoding="utf-8")
        start, end = doc_markers(page, name)
        if start not in text or end not in text:
            raise SystemExit(f"{path}: the markers of the block {name} are missing")
        before, rest = text.split(start, 1)
        path.write_text(before + block + rest.split(end, 1)[1], encoding="utf-8")
        done.append(f"{page}#{name}")
    return done


if __name__ == "__main__":
    if sys.argv[1:] == ["--docs"]:
        print("\n".join(write_docs(repo_root())) or "no set with results: nothing written")
    else:
        write(repo_root() / "README.md", Path(sys.argv[1]) if len(sys.argv) > 1 else repo_root() / "results" / SET)
