"""Task registry: each module registers one dataset; adding a task is one small file."""

from helpers.core.tasks import (  # noqa: F401  (register)
    aime24,
    arithmetic,
    bbq,
    feval_ttc,
    gpqa_diamond,
    gsm8k,
    humaneval,
    inspect_log,
    math500,
    run_logs,
    swebench_verified,
    two_digit_addition,
)
from helpers.core.tasks.base import (
    TASKS,
    Problem,
    TaskSpec,
    get_task,
    in_category_order,
    load_problems,
    sample_problems,
)

PAPER_TASKS = ["two_digit_addition", "gsm8k", "bbq", "gpqa_diamond", "math500", "aime24"]

__all__ = ["TASKS", "PAPER_TASKS", "Problem", "TaskSpec", "get_task", "in_category_order",
           "load_problems", "sample_problems"]
