"""Problems, task specs, the task registry and seeded sampling."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Literal

from helpers.core.errors import CostOfPassError, MissingData

# number: the target is a number, and so must the answer
Metric = Literal["number", "math", "choice", "label", "code", "verdict"]
# be; label: a word or phrase compared without case and punctuation (yes / no, valid / invalid); code: a program run
# with the problem's hidden tests in the sandbox (``grade.sandbox``; the target is the function's name); verdict: judged
# by the source's own harness, which this project does not run (SWE-bench's tests): the imported record's verdict
LETTERS = "ABCDEFGHIJ"


@dataclass(frozen=True)
class Problem:
    """One problem. ``question`` is the text put in the prompt (choices included); ``target`` the gold
    answer (a math expression, or a letter for multiple choice)."""

    task: str
    problem_id: str
    question: str
    target: str
    n_choices: int = 0
    metadata: dict[str, Any] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class TaskSpec:
    """A registered task: how to load it, how to grade it, where it comes from."""

    name: str
    label: str
    category: str  # basic quantitative / knowledge / complex quantitative, or a fork's own
    metric: Metric
    load: Callable[[Path, dict[str, Any]], list[Problem]]
    source: str  # public source of the data
    files: tuple[str, ...] = ()  # paths inside the data directory, for messages
    caveat: Callable[[Path, dict[str, Any]], str] | None = None


TASKS: dict[str, TaskSpec] = {}
CATEGORIES = ("basic quantitative", "knowledge", "complex quantitative")  # the paper's order of its panels and rows


def in_category_order(tasks: list[str]) -> list[str]:
    """``tasks`` grouped by category in the paper's order (a fork's own categories after, as they first appear),
    the set's order kept within a category."""
    seen = [c for c in dict.fromkeys(TASKS[t].category for t in tasks) if c not in CATEGORIES]
    rank = {c: i for i, c in enumerate([*CATEGORIES, *seen])}
    return sorted(tasks, key=lambda t: rank[TASKS[t].category])


def register(spec: TaskSpec) -> TaskSpec:
    if spec.name in TASKS:
        raise ValueError(f"task {spec.name} registered twice")
    TASKS[spec.name] = spec
    return spec


def get_task(name: str) -> TaskSpec:
    if name not in TASKS:
        from helpers.core.yamlfiles import nearest

        raise CostOfPassError(f"unknown task '{name}'{nearest(name, TASKS)} (known: {', '.join(sorted(TASKS))})")
    return TASKS[name]


def missing_data(task: str, path: Path) -> MissingData:
    return MissingData(
        f"{task}: no data at {path}; point data_dir (or COP_DATA_DIR) at a folder in the layout of "
        f"../shared/data, or fetch the public copy with `python -m helpers.core.tasks.download --data-dir DIR`"
    )


def read_jsonl(path: Path, task: str) -> Iterator[dict[str, Any]]:
    if not path.is_file():
        raise missing_data(task, path)
    with path.open(encoding="utf-8") as fh:
        for i, line in enumerate(fh):
            if line.strip():
                try:
                    yield json.loads(line)
                except json.JSONDecodeError:
                    raise CostOfPassError(f"{task}: {path} line {i + 1} is not JSON") from None


def format_choices(stem: str, choices: list[str]) -> str:
    """The question with lettered choices: ``stem\\n\\n(A) ...\\n(B) ...``."""
    lines = [f"({LETTERS[i]}) {c}" for i, c in enumerate(choices)]
    return stem.strip() + "\n\n" + "\n".join(lines)


def stable_rank(seed: int, task: str, problem_id: str) -> str:
    return hashlib.sha256(f"{seed}:{task}:{problem_id}".encode()).hexdigest()


def sample_problems(problems: list[Problem], n: int, seed: int) -> list[Problem]:
    """A seeded sample of ``n`` problems (all if fewer), ordered by a hash of (seed, task, id).

    The sample depends only on the seed and the problem ids, not on file order, and is
    prefix-stable: the sample of n is the first n of the sample of n + k.
    """
    ids = [p.problem_id for p in problems]
    if len(set(ids)) != len(ids):
        dup = next(i for i in ids if ids.count(i) > 1)
        raise CostOfPassError(f"{problems[0].task}: problem id '{dup}' is not unique")
    ranked = sorted(problems, key=lambda p: stable_rank(seed, p.task, p.problem_id))
    return ranked[:n]


REFERENCE_SEED = 102217  # the reference code's fixed seed (mhamzaerol/Cost-of-Pass, tasks/base.py)


def reference_lcg_indices(k: int, n: int, seed: int = REFERENCE_SEED) -> list[int]:
    """The first ``k`` of a Fisher–Yates shuffle of ``range(n)`` driven by the LCG
    ``state <- 279470273 * state mod 2**32``, as the paper's reference code draws its problems:
    for i = n-1 down to 1, advance the state, j = state mod (i + 1), swap items i and j."""
    arr, state = list(range(n)), seed
    for i in range(n - 1, 0, -1):
        state = (279470273 * state) % 2**32
        j = state % (i + 1)
        arr[i], arr[j] = arr[j], arr[i]
    return arr[: min(k, n)]


def load_problems(name: str, data_dir: Path, n: int, seed: int, options: dict[str, Any] | None = None,
                  sampler: str = "hash") -> list[Problem]:
    """Load task ``name`` from ``data_dir`` and draw its sample of ``n`` problems.

    ``sampler``: ``hash`` (``sample_problems``, seeded) or ``reference_lcg`` (the reference code's
    draw over the dataset in file order, seed 102217 whatever the set's seed).
    """
    spec = get_task(name)
    try:
        problems = spec.load(data_dir, options or {})
    except CostOfPassError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as err:
        where = ", ".join(spec.files) or "its data"
        raise CostOfPassError(f"{name}: cannot read {where} under {data_dir} or its task_options "
                              f"{options or {}} ({type(err).__name__}: {err})") from None
    if sampler == "reference_lcg":
        return [problems[i] for i in reference_lcg_indices(n, len(problems))]
    return sample_problems(problems, n, seed)
