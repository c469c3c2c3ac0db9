"""RouteLLM's recorded GSM8K responses (lm-sys/RouteLLM, ``routellm/evals/gsm8k/gsm8k_responses.csv``, Apache-2.0).

One row per GSM8K test question: ``prompt`` (the question text), per model a ``<model>`` column (True/False, the
source's correctness label) and ``<model>_response`` (one response). Rows are matched to GSM8K test problems by
their normalised text; every row must match one. The source did not record token counts or its prompt template:
completion tokens are counted on the response, prompt tokens on the question alone (a lower bound of what was
billed), with the model's own tokenizer where one ships offline (``ImportedModel.tokenizer``), else estimated.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Iterator

from helpers.collect.imports.common import Imported, normalize_text, source_error, text_index
from helpers.collect.imports.tokens import counter
from helpers.core.models import ModelSpec
from helpers.core.params import Params
from helpers.core.tasks import get_task

TASK = "gsm8k"
SOURCE = ("RouteLLM's recorded GSM8K responses (lm-sys/RouteLLM routellm/evals/gsm8k/gsm8k_responses.csv, "
          "commit 0b64fdaf; Apache-2.0)")
LABELS = {"True": True, "False": False}


def read(params: Params, path: Path, models: dict[str, ModelSpec]) -> Iterator[Imported]:
    if TASK not in params.tasks:
        raise source_error(path, "-", f"RouteLLM's responses answer GSM8K: add '{TASK}' to the set's tasks")
    problems = text_index(get_task(TASK).load(params.data_path, params.task_options.get(TASK, {})))
    # all are (by_source_name)
    counters = {name: counter(m.imported.tokenizer) for name, m in models.items() if m.imported}
    csv.field_size_limit(1 << 26)
    with path.open(encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        header = reader.fieldnames or []
        needed = ["prompt", *(c for name in models for c in (name, f"{name}_response"))]
        if missing := [c for c in needed if c not in header]:
            raise source_error(path, 1, f"no column(s) {', '.join(missing)} (columns: {', '.join(header)})")
        for row_number, row in enumerate(reader, start=2):
            problem = problems.get(normalize_text(row["prompt"] or ""))
            if problem is None:
                raise source_error(path, row_number, "its prompt matches no GSM8K test question")
            for name, model in models.items():
                label = LABELS.get((row[name] or "").strip())
                if label is None:
                    raise source_error(path, row_number, f"column {name}: expected True or False, got {row[name]!r}")
                response = row[f"{name}_response"]
                count, how = counters[name]
                yield Imported(TASK, problem.problem_id, model.name, 0, response, count(problem.question),
                               count(response), f"{how}; prompt: the question alone (source's prompt not recorded)",
                               SOURCE, label, row=row_number)
