"""Display names: the one mapping from the pipeline's identifiers to what a reader sees.

Datasets by their task's label (``two_digit_addition`` → Two Digit Addition), methods in words
(``majority_vote_k3`` → majority vote of 3), table columns in words with their unit (``start_usd`` →
start (USD)), booleans as yes / no. CSV files keep the identifiers; every Markdown table the report shows
goes through ``frame``. ``INTERNAL`` lists the identifiers no rendered page may show (the browser test).
"""

from __future__ import annotations

import re

import pandas as pd

from helpers.analyze.statistic import Key
from helpers.core.tasks import TASKS

COLUMNS = {
    "task": "dataset", "dataset": "dataset", "model": "model", "family": "family", "method": "technique",
    "technique": "technique", "strategy": "strategy",
    "models_start": "models at start", "models_end": "models at end", "start_usd": "start (USD)",
    "end_usd": "end (USD)", "change_usd": "change (USD)", "new_models_usd": "from new models (USD)",
    "prices_usd": "from prices (USD)", "change_pct": "change (%)", "new_models_pct": "from new models (%)",
    "prices_pct": "from prices (%)",
    "ours": "this run", "paper": "paper", "ours_pct": "this run (%)", "paper_pct": "paper (%)",
    "ours_sign": "sign, this run", "paper_sign": "sign, paper", "same_sign": "same sign",
    "same_best_family": "same best family", "same_order": "same order",
    "halving_months": "halving time (months)", "halving_low": "low", "halving_high": "high",
    "p_value": "p", "agreed_pct": "agreeing runs (%)", "agreeing_models": "agreeing models",
    "strong_pass_pct": "strong half passes (%)", "weak_pass_pct": "weak half passes (%)",
}

METHOD_WORDS = {"vanilla": "single attempt", "self_refine": "self-refine", "ldb": "LDB (debugging its own attempt)"}
_PATTERNS = [(re.compile(r"^majority_vote_k(\d+)$"), "majority vote of {}"),
             (re.compile(r"^best_of_k(\d+)$"), "best-of-{} (oracle)"),
             (re.compile(r"^retry_k(\d+)$"), "retry (up to {} calls)"),
             (re.compile(r"^warming_k(\d+)$"), "warming (up to {} calls)"),
             (re.compile(r"^ldb_seed_([a-z0-9_]+)$"), "LDB on a {} attempt")]
# model names inside method ids (the agent runs' seeding or first models) as the models are named elsewhere
MODEL_WORDS = {"gpt4": "GPT-4", "gpt35": "GPT-3.5", "gpt3_5": "GPT-3.5", "llama3": "Llama 3", "codellama": "Code Llama"}


def method(name: str, model: str | None = None) -> str:
    """A method's name in words; an unknown name with its underscores as spaces. ``model``: the label of the model a
    method id names (an agent run's seed or first model), where the records say which one it was (review 8: GPT-3.5
    Turbo (0125)'s "ldb_seed_gpt4" starts from GPT-4 Turbo's attempt), instead of the id's family word."""
    if name in METHOD_WORDS:
        return METHOD_WORDS[name]
    for pattern, words in _PATTERNS:
        if m := pattern.match(name):
            named = m.group(1) if m.group(1).isdigit() else model  # a count stays a count
            return words.format(named or MODEL_WORDS.get(m.group(1), m.group(1)))
    if name.startswith("escalation_"):
        cascade = name.removeprefix("escalation_")
        return "escalation from " + MODEL_WORDS.get(cascade, cascade.replace("_", " → "))
    return name.replace("_", " ")


def methods_in_order(methods: list[str]) -> str:
    """What each cell of a table with one value per method holds, in words: "the single attempt" for one method,
    "single attempt / self-refine, in that order" for several (review 8: "each cell gives single attempt, in that
    order")."""
    words = [method(m) for m in methods]
    return f"the {words[0]}" if len(words) == 1 else " / ".join(words) + ", in that order"


def merged(words: list[str]) -> str:
    """Names that differ only in one number, said once: "majority vote of 3", "majority vote of 4" ->
    "majority vote of 3, 4"; otherwise joined with " / "."""
    parts = [p for p in (re.match(r"^(.*?)(\d+)(\D*)$", w) for w in words) if p]
    if len(words) > 1 and len(parts) == len(words) and len({(p.group(1), p.group(3)) for p in parts}) == 1:
        return parts[0].group(1) + ", ".join(dict.fromkeys(p.group(2) for p in parts)) + parts[0].group(3)
    return " / ".join(dict.fromkeys(words))


def is_method(name: str) -> bool:
    return name in METHOD_WORDS or any(p.match(name) for p, _ in _PATTERNS) or name.startswith("escalation_")


def column(name: str, task_labels: dict[str, str]) -> str:
    """A column header: a dataset's label, the column in words, or the name with spaces for underscores."""
    if name in task_labels:
        return task_labels[name]
    if name in TASKS:  # a dataset of another set (the paper's tables beside this set's)
        return TASKS[name].label
    return COLUMNS.get(name, name.replace("_", " "))


def value(v, task_labels: dict[str, str]):
    """A cell: a dataset id as its label, a method id in words, a boolean as yes / no; anything else as is."""
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, str):
        if v in task_labels:
            return task_labels[v]
        if v in TASKS:
            return TASKS[v].label
        if is_method(v):
            return method(v)
        if "+" in v and is_method(v.rsplit("+", 1)[1]):  # a strategy: model+method
            model, m = v.rsplit("+", 1)
            return f"{model} + {method(m)}"
        if ":" in v:  # a statistic: "technique gain:self_refine (%)"
            key = Key.parse(v)
            name, space, unit = key.item.strip().partition(" ")
            if is_method(name) or name in task_labels:
                return f"{key.kind.name}: {value(name, task_labels)}{space}{unit}"
    return v


def frame(df: pd.DataFrame, task_labels: dict[str, str]) -> pd.DataFrame:
    """A copy of ``df`` with every header and text or boolean cell in display words (numbers untouched)."""
    out = df.copy()
    for col in out.columns:
        if out[col].dtype == object or out[col].dtype == bool or str(out[col].dtype) in ("string", "str", "category"):
            out[col] = [value(v, task_labels) for v in out[col].astype(object)]
    out.columns = [column(c, task_labels) if isinstance(c, str) else c for c in out.columns]
    return out


def internal(task_ids) -> list[str]:
    """Identifiers a rendered page must not show: every registered dataset id and the set's own (``gsm8k`` as much as
    ``two_digit_addition``), the columns above and the method ids (k up to 16) with underscores."""
    methods = [*(m for m in METHOD_WORDS if "_" in m),
               *(p.pattern.strip("^$").replace(r"(\d+)", str(k)) for p, _ in _PATTERNS for k in range(2, 17))]
    return sorted({*task_ids, *TASKS, *(c for c in COLUMNS if "_" in c), *methods})
