"""The per-problem explorer: for the question "why is this problem expensive?", one row per problem of a set, and
one page per problem with every recorded attempt.

``results/<set>/explorer/index.html``: a table (filter box and click-to-sort headers, a few lines of inline script, no
library, no network) with, per problem, its dataset and id, the cheapest cost-of-pass there of every strategy and the
expert ("cheapest here": not the report's frontier, which chooses each problem's model on the dataset's other
problems), which strategy that is (or "expert charged" when no strategy beats the fee), whether it is a suspect item,
and for every strategy its pass rate over its runs, its mean USD per attempt and its cost-of-pass (Eq. 2). Each row
links to ``explorer/p/<n>.html``: the attempts of that problem (strategy, run, verdict, USD, tokens and the extracted
answer or program, escaped and cut at ``ANSWER_CHARS``). Prompts are never shown; for GPQA the answers are withheld too
(its terms forbid publishing its questions, and a model's answer can quote them). Every string is escaped; file
names are row numbers, never a problem's id.
"""

from __future__ import annotations

import html
import math
from pathlib import Path

import numpy as np
import pandas as pd

from helpers.analyze.estimates import Analysis
from helpers.grade.estimates import strategy_name
from helpers.publish import names
from helpers.publish.formats import dollars

ANSWER_CHARS = 4000  # longest answer or program shown per attempt
WITHHELD = {"gpqa_diamond": "withheld: GPQA's terms forbid publishing its questions, and an answer can quote them"}
STYLE = ("body{font:14px/1.45 system-ui,sans-serif;margin:1em}table{border-collapse:collapse}"
         "td,th{border:1px solid #ddd;padding:.2em .45em;vertical-align:top;text-align:left}"
         "th{cursor:pointer;background:#f6f6f6;position:sticky;top:0}"
         "td.n{text-align:right;font-variant-numeric:tabular-nums}"
         "tr.expert td.f{color:#8a4b00;font-weight:600}pre{white-space:pre-wrap;max-width:100ch;margin:0}"
         "p{max-width:100ch}input{font:inherit;padding:.2em .4em;width:24em}")
SCRIPT = """<script>
const rows=[...document.querySelectorAll('tbody tr')];
document.getElementById('filter').addEventListener('input',e=>{const q=e.target.value.toLowerCase();
 for(const r of rows){r.style.display=r.textContent.toLowerCase().includes(q)?'':'none';}});
document.querySelectorAll('th').forEach((th,i)=>th.addEventListener('click',()=>{
 const up=th.dataset.up!=='1';th.dataset.up=up?'1':'0';const body=document.querySelector('tbody');
 const key=r=>{const c=r.children[i];const v=c.dataset.v;return v===undefined?c.textContent:parseFloat(v);};
 rows.sort((a,b)=>{const x=key(a),y=key(b);return (x<y?-1:x>y?1:0)*(up?1:-1);});\
rows.forEach(r=>body.appendChild(r));}));
</script>"""


def problem_rows(an: Analysis, suspects: set[tuple[str, str]]) -> pd.DataFrame:
    """One row per (task, problem_id), in the order of ``an.cop``: ``cheapest_usd`` (the cheapest of every strategy's
    cost-of-pass and the expert's fee, USD), ``picked`` (that strategy, or ``"expert"``), ``expert_usd``, ``suspect``
    and ``cells``: strategy -> (pass rate 0-1, runs, mean USD per attempt, cost-of-pass USD)."""
    est = an.estimates
    cop = an.cop.reindex(columns=sorted(est["strategy"].astype(str).unique()))
    fee = an.expert.reindex(cop.index)
    best = cop.min(axis=1, skipna=True)
    picked = cop.idxmin(axis=1, skipna=True).where(best < fee, "expert")
    flat = cop.stack()  # (task, problem_id, strategy) -> cost-of-pass
    keys = pd.MultiIndex.from_arrays([est["task"], est["problem_id"], est["strategy"].astype(str)])
    values = flat.reindex(keys).to_numpy()  # each row's cost-of-pass, one lookup for all (not one per row)
    cells: dict[tuple[str, str], dict[str, tuple]] = {}
    for r, v in zip(est.itertuples(index=False), values):
        cells.setdefault((r.task, r.problem_id), {})[str(r.strategy)] = (r.pass_rate, r.n, r.cost_usd, v)
    out = pd.DataFrame({"task": [k[0] for k in cop.index], "problem_id": [k[1] for k in cop.index],
                        "cheapest_usd": np.minimum(best.fillna(np.inf), fee).to_numpy(),
                        "picked": picked.fillna("expert").to_numpy(),
                        "expert_usd": fee.to_numpy()})
    out["suspect"] = [(t, p) in suspects for t, p in zip(out["task"], out["problem_id"])]
    out["cells"] = [cells.get((t, p), {}) for t, p in zip(out["task"], out["problem_id"])]
    return out


def strategy_label(strategy: str, labels: dict[str, str]) -> str:
    """A strategy id (``model`` or ``model+method``) in display words."""
    model, _, method = strategy.partition("+")
    return labels.get(model, model) + (f" + {names.method(method)}" if method else "")


def _usd_cell(x: float) -> str:
    finite = x is not None and math.isfinite(x)
    return f'<td class="n" data-v="{x if finite else 1e300}">{html.escape(dollars(x) if finite else "∞")}</td>'


def index_html(rows: pd.DataFrame, set_name: str, task_labels: dict[str, str], labels: dict[str, str]) -> str:
    """The explorer's page (see the module's docstring)."""
    from helpers.core.methods import get_method

    strategies = sorted({s for c in rows["cells"] for s in c})
    derived = {s for s in strategies if "+" in s and not get_method(s.split("+", 1)[1]).is_collected}
    head = ["dataset", "problem", "cheapest here (USD)", "cheapest here is", "expert's fee (USD)", "suspect item",
            *(strategy_label(s, labels) for s in strategies)]
    body = []
    for i, r in enumerate(rows.itertuples(index=False)):
        expert = r.picked == "expert"
        tds = [f"<td>{html.escape(task_labels.get(r.task, r.task))}</td>",
               f'<td><a href="p/{i}.html">{html.escape(str(r.problem_id))}</a></td>',
               _usd_cell(r.cheapest_usd).replace('<td class="n"', '<td class="n f"'),
               f"<td>{'expert charged' if expert else html.escape(strategy_label(r.picked, labels))}</td>",
               _usd_cell(r.expert_usd), f"<td>{'suspect' if r.suspect else ''}</td>"]
        for s in strategies:
            rate, n, cost, v = r.cells.get(s, (np.nan, 0, np.nan, np.nan))
            runs = f"of {int(n)}" if s not in derived else "from the runs"  # a vote's n counts subsets, not runs
            text = ("not run" if not n else f"{rate:.0%} {runs} · {dollars(cost)}/try · "
                    f"{dollars(v) if math.isfinite(v) else '∞'}")
            tds.append(f'<td data-v="{v if n and math.isfinite(v) else 1e300}">{html.escape(text)}</td>')
        body.append(f'<tr class="{"expert" if expert else ""}">{"".join(tds)}</tr>')
    name = html.escape(set_name)
    return ('<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Problems of '
            f'{name}</title><style>{STYLE}</style></head><body><p><a href="../../index.html">← All sets</a> · <a '
            f'href="../report/index.html">The report of {name}</a></p><h1>Every problem of {name}</h1>'
            "<p>One row per problem: the cheapest cost-of-pass there, of every strategy's (techniques too) and the "
            "human expert's fee (\"expert charged\" where no strategy beats the fee), read on the problem's own runs: "
            "not the report's frontier of all models, which tries, for each problem, the one model routed there by a "
            "difficulty the models share (read on half of that problem's runs, valued on the other half); whether "
            f"the problem is a suspect item, and "
            "per strategy its pass rate over its runs (a vote or best-of-k: estimated from the single runs) · its "
            "mean USD per attempt · its cost-of-pass (∞: no run passed). "
            f"Click a header to sort, a problem to see its attempts. {len(rows):,} problems.</p>"
            '<p><input id="filter" type="search" placeholder="Filter rows (any text: a dataset, '
            'a model, expert, suspect)"></p>'
            "<div style=\"overflow-x:auto\"><table><thead><tr>"
            f"{''.join(f'<th>{html.escape(h)}</th>' for h in head)}</tr></thead>"
            f"<tbody>{''.join(body)}</tbody></table></div>{SCRIPT}</body></html>")


def _tokens_text(a) -> str:
    """An attempt's tokens as the explorer shows them: counts, or why there are none (a source that billed USD and
    recorded no tokens: SWE-bench's leaderboard)."""
    billed = pd.notna(getattr(a, "billed_usd", float("nan")))
    if pd.isna(a.prompt_tokens) or (billed and not a.prompt_tokens and not a.completion_tokens):
        return "not recorded (USD as billed)" if billed else "–"
    return f"{int(a.prompt_tokens):,} in · {int(a.completion_tokens):,} out"


def problem_html(task_label: str, problem_id: str, attempts: pd.DataFrame, labels: dict[str, str],
                 withheld: str = "") -> str:
    """One problem's page: its attempts (``an.attempts`` rows of the problem), one row each."""
    rows = []
    for a in attempts.sort_values(["model", "method", "run"]).itertuples(index=False):
        answer = withheld or str(a.extracted if isinstance(a.extracted, str) else "")
        cut = len(answer) > ANSWER_CHARS and not withheld
        shown = answer[:ANSWER_CHARS] + ("\n… (cut)" if cut else "") if answer else "–"
        tokens = _tokens_text(a)
        rows.append(f"<tr><td>{html.escape(strategy_label(strategy_name(a.model, a.method), labels))}</td>"
                    f"<td class=\"n\">{int(a.run) + 1}</td><td>{'pass' if a.correct else 'fail'}</td>"
                    f"{_usd_cell(float(a.usd))}"
                    f"<td>{html.escape(tokens)}</td><td><pre>{html.escape(shown)}</pre></td></tr>")
    title = f"{html.escape(task_label)} · {html.escape(str(problem_id))}"
    return ('<!DOCTYPE html><html lang="en"><head><meta '
            f'charset="utf-8"><title>{title}</title><style>{STYLE}</style></head><body><p><a href="../index.html">← '
            'Every problem</a> · <a href="../../report/index.html">The report</a> · <a href="../../../index.html">All '
            f'sets</a></p><h1>{title}</h1><p>Every recorded attempt on this '
            "problem: its strategy, run, verdict, USD and tokens, and the answer the grader read from it (the "
            "extracted answer, or the program it ran). The prompt is not shown.</p>"
            "<table><thead><tr><th>strategy</th><th>run</th><th>verdict</th><th>USD</th><th>tokens</th><th>answer "
            f"read</th></tr></thead><tbody>{''.join(rows)}</tbody></table></body></html>")


def write_explorer(an: Analysis, suspects: pd.DataFrame | None) -> Path:
    """Write the explorer of ``an`` (a racing set's: every problem's records, ``an.full``) under
    ``results/<set>/explorer/`` and return its index. ``suspects``: the ``suspect_items`` table (dataset labels), None
    where no dataset has answers to compare."""
    an = an.full if an.full is not None else an
    suspects = pd.DataFrame() if suspects is None else suspects
    by_label = {v: k for k, v in an.task_labels.items()}
    flagged = {(by_label.get(d, d), str(p))
               for d, p in zip(suspects.get("dataset", []), suspects.get("problem_id", []))}
    rows = problem_rows(an, flagged)
    out = an.ctx.params.output_path / "explorer"
    (out / "p").mkdir(parents=True, exist_ok=True)
    for old in (out / "p").glob("*.html"):
        old.unlink()
    attempts = an.attempts[an.attempts["complete"]].groupby(["task", "problem_id"], observed=True, sort=False)
    for i, r in enumerate(rows.itertuples(index=False)):
        own = attempts.get_group((r.task, r.problem_id)) if (r.task,
                                                             r.problem_id) in attempts.groups else an.attempts.iloc[0:0]
        page = problem_html(an.task_labels.get(r.task, r.task), r.problem_id, own, an.labels, WITHHELD.get(r.task, ""))
        (out / "p" / f"{i}.html").write_text(page, encoding="utf-8")
    (out / "index.html").write_text(index_html(rows, an.ctx.params.name, an.task_labels, an.labels), encoding="utf-8")
    return out / "index.html"
