"""The 16 datasets of FEval-TTC's recorded responses (``../shared/formats/feval_ttc.md``), read from its zip.

Each dataset D is a task ``feval_<d>`` (``feval_gsm8k``, ``feval_bigbench_date``, ...) whose problems are the
zip's ``dataset_{D}.txt`` entries, ids ``feval-<D>-<index>`` (the index is the question's id in FEval-TTC). The
zip is ``<data_dir>/feval_ttc/api_responses.zip`` unless the task option ``zip`` names another path. Answers:
numbers (GSM8K, SVAMP), math expressions (Math_500), a choice letter, or a label word (yes/no, valid/invalid)
for the Big-Bench-Hard tasks answered that way. Licence of the collection: ODbL.
"""

from __future__ import annotations

import json
import re
import zipfile
import zlib
from functools import lru_cache
from pathlib import Path
from typing import Any

from helpers.core.errors import CostOfPassError, MissingData
from helpers.core.tasks.base import LETTERS, Metric, Problem, TaskSpec, register

DEFAULT_ZIP = "feval_ttc/api_responses.zip"
_BBH: tuple[tuple[str, Metric], ...] = (  # the BIG-Bench Hard datasets' names and metrics
    ("Date", "choice"), ("Causal_Judgement", "label"), ("Movie_Recommendation", "choice"),
    ("Formal_Fallacies", "label"), ("DisambiguationQA", "choice"), ("Snarks", "choice"), ("Sports", "label"),
    ("Geometric_Shapes", "choice"), ("Penguins", "choice"), ("Ruin_Names", "choice"), ("Temporal_Sequences", "choice"))
DATASETS: dict[str, tuple[str, Metric, str]] = {  # D -> (label, metric, category)
    "GSM8K": ("GSM8K (FEval-TTC)", "number", "basic quantitative"),
    "SVAMP": ("SVAMP (FEval-TTC)", "number", "basic quantitative"),
    "AQuA": ("AQuA (FEval-TTC)", "choice", "basic quantitative"),
    "CommonsenseQA": ("CommonsenseQA (FEval-TTC)", "choice", "knowledge"),
    "Math_500": ("MATH-500 (FEval-TTC)", "math", "complex quantitative"),
    **{f"Bigbench_{n}": (f"BBH {n.replace('_', ' ')} (FEval-TTC)", metric,
                         "reasoning (BIG-Bench Hard)") for n, metric in _BBH},
}
OPTION = re.compile(r"(?:^|\s)\(?([A-J])\)\s", re.M)


def task_name(dataset: str) -> str:
    return "feval_" + dataset.lower()


def zip_path(data_dir: Path, options: dict[str, Any]) -> Path:
    return Path(options["zip"]) if options.get("zip") else data_dir / DEFAULT_ZIP


@lru_cache(maxsize=4)
def _members(path: Path, mtime: float) -> dict[str, str]:
    """The zip's entries by their name without leading folders (``dataset_GSM8K.txt``, ``LLM_<M>_dataset_<D>.txt``)."""
    with zipfile.ZipFile(path) as zf:
        out: dict[str, str] = {}
        for name in zf.namelist():
            for prefix in ("LLM_", "dataset_"):
                at = name.find(prefix)
                if at == 0 or (at > 0 and name[at - 1] == "/"):
                    out.setdefault(name[at:], name)
                    break
        return out


def read_member(path: Path, name: str) -> Any:
    """One JSON file of the zip (``name`` as in the format notes); one line naming zip and file if absent or bad."""
    if not path.is_file():
        raise MissingData(f"FEval-TTC: no zip at {path}: download api_responses.zip by hand (the link in the FEval-TTC "
                          f"repository's README) to {DEFAULT_ZIP} under the data "
                          "directory, or set the task option 'zip'")
    try:
        members = _members(path, path.stat().st_mtime)
    except zipfile.BadZipFile:
        raise CostOfPassError(f"{path}: not a zip file") from None
    if name not in members:
        raise CostOfPassError(f"{path}: no {name} in the zip")
    with zipfile.ZipFile(path) as zf:
        try:
            return json.loads(zf.read(members[name]).decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as err:
            raise CostOfPassError(f"{path}: {name}: not JSON ({err})") from None
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError) as err:  # a bad CRC, a truncated member
            raise CostOfPassError(f"{path}: {name}: a corrupt member of the zip ({err})") from None


def n_choices(question: str) -> int:
    """The number of lettered options a question lists ((A) ... or A) ...), 10 if it lists none."""
    letters = OPTION.findall(question)
    return LETTERS.index(max(letters)) + 1 if letters else len(LETTERS)


def target_of(answer: str, metric: Metric) -> str:
    """The gold answer as the grader compares it: a letter for choice tasks ('(B)' -> 'B'), else as given."""
    text = str(answer).strip()
    if metric == "choice":
        found = re.fullmatch(r"\(?([A-J])\)?", text)
        if found:
            return found.group(1)
    return text


def loader(dataset: str):
    label, metric, _ = DATASETS[dataset]

    def load(data_dir: Path, options: dict[str, Any]) -> list[Problem]:
        path = zip_path(data_dir, options)
        data = read_member(path, f"dataset_{dataset}.txt")
        items = data.get("data") if isinstance(data, dict) else None
        if not isinstance(items, list):
            raise CostOfPassError(f"{path}: dataset_{dataset}.txt: no 'data' list")
        out = []
        for i, item in enumerate(items):
            if not isinstance(item, dict) or "question" not in item or "answer" not in item:
                raise CostOfPassError(f"{path}: dataset_{dataset}.txt: row {i}: 'question' and 'answer' are needed")
            q = str(item["question"])
            out.append(Problem(task_name(dataset), f"feval-{dataset}-{i}", q, target_of(item["answer"], metric),
                               n_choices=n_choices(q) if metric == "choice" else 0))
        return out

    return load


for _d, (_label, _metric, _category) in DATASETS.items():
    register(TaskSpec(name=task_name(_d), label=_label, category=_category, metric=_metric, load=loader(_d),
                      source=f"FEval-TTC api_responses.zip: dataset_{_d}.txt (ODbL)", files=(DEFAULT_ZIP,)))
