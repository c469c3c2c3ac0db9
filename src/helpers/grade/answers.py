"""Answer extraction and metrics.

Extraction follows the paper: the answer is the last ``<answer>...</answer>`` span (``strict``).
The ``lenient`` policy falls back, when no span exists, to the last ``\\boxed{}``, then to an
"answer is X" phrase, then (math) to the last number or (choice) a lone letter; reports say which
policy produced their numbers. Math answers are compared by symbolic equivalence with math-verify;
multiple-choice answers by letter.

Tasks whose target is a number (metric ``number``: Two Digit Addition, GSM8K, AIME, the generated
arithmetic) accept only an answer that is itself a number: a numeral, decimal, fraction or LaTeX
fraction, optionally with a currency sign, percent or unit words. An expression such as ``60 + 59``
is wrong even though math-verify would evaluate it to 119: small models echo the question. This is
a deliberate departure from the reference grader; ``numeric_rule="expression"`` restores it. Two
plain numerals are compared exactly as rationals (``0.75`` equals ``3/4``; no float tolerance).
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
from fractions import Fraction
from functools import lru_cache
from typing import Any, Literal

from helpers.core.tasks.base import LETTERS, Metric

ANSWER_SPAN = re.compile(r"<answer>(.*?)</answer>", re.S | re.I)
CODE_FENCE = re.compile(r"```[ \t]*(?:python3?|py)?[ \t]*\n(.*?)```", re.S | re.I)
BOXED = re.compile(r"\\boxed\s*\{((?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*)\}")
ANSWER_PHRASE = re.compile(r"answer\s*(?:is|:|=)\s*[:\s]*(.+?)(?:[.\n]|$)", re.I)
NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")
NUMERAL = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:\s*/\s*\d+)?")  # 42, -3.5, .5, 3/4
LATEX_FRACTION = re.compile(r"[+-]?\\[dt]?frac\s*\{\s*\d+\s*\}\s*\{\s*\d+\s*\}|[+-]?\\[dt]?frac\d\d")
UNIT_WORDS = re.compile(r"(?:\s*\\(?:text|mbox|mathrm)\{\s*[A-Za-z ]*\}|\s+[A-Za-z][A-Za-z ]*|\s*%|\\%)$")
CODE_COLUMNS = ("grade_reason", "grade_harness", "grade_isolation", "grade_cpu_s")  # of code tasks' graded calls
NO_ANSWER = "<no answer>"  # the vote of an attempt without an extracted answer (it scores 0)
THOUSANDS = re.compile(r"(?<![\d.])(\d{1,3}(?:,\d{3})+)(?![\d,])")
logging.getLogger("math_verify").setLevel(logging.ERROR)


def _timeout() -> int | None:
    """math-verify's timeouts use SIGALRM, which only the main thread may set."""
    return 5 if threading.current_thread() is threading.main_thread() else None


def extract_code(text: str) -> str | None:
    """The program of a response (metric ``code``): inside its last ``<answer>`` span if it has one, the longest
    fenced block (```python … ```), else the whole text; None when that is blank. Either policy."""
    spans = ANSWER_SPAN.findall(text)
    body = spans[-1] if spans else text
    fences = CODE_FENCE.findall(body)
    code = max(fences, key=len) if fences else body
    return code.strip("\n") if code.strip() else None


def extract_answer(text: str | None, metric: Metric = "math", policy: str = "strict") -> str | None:
    """The answer text of a response, or ``None`` when the policy finds none."""
    if not text:
        return None
    if metric == "code":
        return extract_code(text)
    spans = ANSWER_SPAN.findall(text)
    if spans:
        return spans[-1].strip()
    if policy != "lenient":
        return None
    boxed = BOXED.findall(text)
    if boxed:
        return boxed[-1].strip()
    phrases = ANSWER_PHRASE.findall(text)
    if phrases:
        return phrases[-1].strip()
    if metric == "choice":
        letters = set(re.findall(r"\(([A-J])\)", text))
        return letters.pop() if len(letters) == 1 else None
    if metric == "label":
        return None
    numbers = NUMBER.findall(text)
    return numbers[-1] if numbers else None


# ---- math ------------------------------------------------------------------------------
def normalize_math(answer: str) -> str:
    """Strip ``$`` delimiters and a ``\\boxed{}`` wrapper; drop thousands separators (1,000 -> 1000)."""
    s = answer.strip().strip("$").strip()
    m = BOXED.fullmatch(s)
    if m:
        s = m.group(1).strip()
    return THOUSANDS.sub(lambda g: g.group(1).replace(",", ""), s)


@lru_cache(maxsize=65536)
def parse_math(answer: str):
    """math-verify's parse of an answer: as LaTeX in ``$...$`` first, then as plain text."""
    from math_verify import parse  # imported on first use: the analysis stages read grades, never grade

    s = normalize_math(answer)
    if not s:
        return []
    try:
        parsed = parse(f"${s}$", parsing_timeout=_timeout())
        return parsed if parsed else parse(s, parsing_timeout=_timeout())
    except Exception:  # math-verify raises on pathological input; an unparsable answer is wrong
        return []


def as_number(answer: str | None) -> str | None:
    """The answer as a bare number (``"$1,000.00 dollars"`` -> ``"1000.00"``), or ``None`` when it is not
    a number: an expression to evaluate (``60 + 59``), words, or nothing."""
    if answer is None:
        return None
    s = normalize_math(answer)
    s = re.sub(r"\\text\{\s*([^{}]*?)\s*\}$", r"\1", s) if s.startswith("\\text{") else s
    s = re.sub(r"\\[,!;: ]|~", "", s).strip().rstrip(".,;:").strip()
    s = re.sub(r"^[+-]?\s*(?:\\\$|\$)\s*", lambda m: m.group(0).replace("\\$", "").replace("$", "").strip(), s)
    s = UNIT_WORDS.sub("", s).strip()
    return s if NUMERAL.fullmatch(s) or LATEX_FRACTION.fullmatch(s) else None


def math_equal(gold: str, predicted: str | None) -> bool:
    """Symbolic equivalence of two math answers (gold first, as math-verify expects)."""
    from math_verify import verify

    if predicted is None:
        return False
    g, p = parse_math(gold), parse_math(predicted)
    if not g or not p:
        return normalize_math(gold) == normalize_math(predicted)
    try:
        return bool(verify(g, p, timeout_seconds=_timeout()))
    except Exception:
        return False


# ---- multiple choice ---------------------------------------------------------------------
def extract_letter(answer: str | None, n_choices: int = 4) -> str | None:
    """The single choice letter in an answer ('(B)', 'B)', 'B', 'answer: B', 'B. text'), else ``None``."""
    if answer is None:
        return None
    valid = LETTERS[: max(n_choices, 1)]
    s = re.sub(r"\\text\{([^}]*)\}|\*\*|\$", r"\1", answer).strip()
    exact = re.fullmatch(rf"\(?([{valid}])\)?[.):]?", s)
    if exact:
        return exact.group(1)
    for pattern in (
        rf"answer\s*(?:is)?\s*[:=]?\s*\(?([{valid}])\b\)?",  # answer: B / answer is (B)
        rf"\(([{valid}])\)",  # ... (B) ...
        rf"^([{valid}])[.):]\s",  # B. text
    ):
        found = set(re.findall(pattern, s, flags=re.I if pattern.startswith("answer") else 0))
        if found:
            return found.pop().upper() if len(found) == 1 else None
    return None


NumericRule = Literal["number", "expression"]


def as_label(answer: str | None) -> str | None:
    """A label answer as compared: lower case, without surrounding punctuation, brackets, quotes or markup."""
    if answer is None:
        return None
    s = re.sub(r"\\text\{([^}]*)\}|\*\*|\$", r"\1", answer).strip().lower()
    s = re.sub(r"\s+", " ", s).strip(" .,;:!?'\"()[]{}")
    return s or None


def is_correct(target: str, answer: str | None, metric: Metric, n_choices: int = 4,
               numeric_rule: NumericRule = "number") -> bool:
    """Whether an extracted answer matches the gold target under the task's metric.

    ``numeric_rule``: for ``number`` tasks, ``"number"`` requires the answer to be a number (see
    ``as_number``); ``"expression"`` lets math-verify evaluate it, as the reference grader does.
    """
    if metric == "choice":
        return extract_letter(answer, n_choices) == target
    if metric == "label":
        return answer is not None and as_label(answer) == as_label(target)
    if metric == "number" and numeric_rule == "number":
        number = as_number(answer)
        if number is None:
            return False
        exact = plain_value(number), plain_value(target)
        if None not in exact:  # both plain numerals: compared exactly, no parser needed
            return exact[0] == exact[1]
        return math_equal(target, number)
    return math_equal(target, answer)


def plain_value(text: str) -> Fraction | None:
    """The exact value of a plain numeral (``42``, ``-3.5``, ``.5``, ``3/4``, ``1,000``), else ``None``."""
    s = THOUSANDS.sub(lambda g: g.group(1).replace(",", ""), text.strip()).replace(" ", "")
    if not NUMERAL.fullmatch(s):
        return None
    try:
        return Fraction(s)
    except (ValueError, ZeroDivisionError):
        return None


@lru_cache(maxsize=65536)
def canonical_answer(answer: str | None, metric: Metric, n_choices: int = 4,
                     numeric_rule: NumericRule = "number") -> str:
    """A key that groups answers as grading would judge them (for majority vote).

    No extracted answer is the vote ``NO_ANSWER``; a letter for multiple choice; for ``number``
    tasks under the ``number`` rule, the value of a number, and anything else stays its own text
    (graded wrong, so never grouped with the value it would evaluate to); otherwise the parsed
    expression.
    """
    if answer is None:
        return NO_ANSWER
    if metric == "code":
        return "code:" + hashlib.sha256(answer.strip().encode()).hexdigest()[:16]  # the same program votes together
    if metric == "choice":
        return extract_letter(answer, n_choices) or f"text:{answer.strip()}"
    if metric == "label":
        return as_label(answer) or NO_ANSWER
    if metric == "number" and numeric_rule == "number":
        number = as_number(answer)
        if number is None:
            return "text:" + re.sub(r"\s+", "", normalize_math(answer))
        value = plain_value(number)
        if value is not None:  # the same key sympy's nsimplify would print: 119, 3/4, -7/2
            return str(value)
        answer = number
    parsed = parse_math(answer)
    if not parsed:
        return normalize_math(answer)
    expr = parsed[0]
    try:
        if getattr(expr, "is_number", False):  # a constant: 5, 5.0, 10/2 and (under "expression") 3 + 2 are one answer
            import sympy

            value = expr.doit()
            return str(sympy.nsimplify(value, rational=True) if getattr(value, "is_Number", False) else value)
    except Exception:  # sympy can fail on odd constants; their printed form still groups equal text
        pass
    return str(expr)


# ---- records -> graded calls and attempts ---------------------------------------------------------
def grade_calls(calls, problems, policy: str = "strict", numeric_rule: NumericRule = "number", progress: bool = False,
                code_cache=None, unisolated_allowed: bool = False):
    """Add ``extracted``, ``correct`` and ``answer_key`` (the vote key, ``canonical_answer``) to call records.
    (One row per call key, see RecordStore.latest.)

    ``problems`` maps task -> list of Problem. Failed calls keep ``correct = <NA>``: a failure is
    not a wrong answer. Extraction is done once per distinct response and grading once per
    distinct (target, answer), so a set's few distinct verdicts serve all its calls. ``progress``: a tqdm
    bar (``core.progress``: in the runner's terminal too). Tasks of metric ``code`` are graded by running each
    distinct program with its problem's hidden tests in the sandbox (``grade.sandbox``; verdicts cached in
    ``code_cache``, a path); their ``grade_reason`` says why a program failed, ``grade_harness``, ``grade_isolation``
    and ``grade_cpu_s`` how it was judged (see ``_grade_programs``), and ``attrs["code_grading"]`` what judging them
    took (``grade.sandbox.GradingRun``); ``unisolated_allowed``: whether the run allows grading them without a kernel
    boundary (``RunSettings.unisolated_grading``). Tasks of metric ``verdict`` take the record's ``source_correct``.
    """
    import pandas as pd

    from helpers.core.progress import progress_bar
    from helpers.core.tasks import get_task

    lookup = {(p.task, p.problem_id): p for ps in problems.values() for p in ps}
    metrics = {t: get_task(t).metric for t in calls["task"].unique()}
    answers: dict[tuple, str | None] = {}  # memo: (response, metric) -> extracted answer
    verdicts: dict[tuple, bool] = {}  # memo: (target, answer, metric, n_choices) -> correct
    extracted: list[str | None] = []
    correct: list = []
    keys: list[str | None] = []
    programs: list[tuple] = []  # (row, code, problem) of metric ``code``
    rows = zip(calls["task"], calls["problem_id"], calls["status"], calls["response"])
    for task, pid, status, response in progress_bar(rows, total=len(calls), desc="grade",
                                                    unit="call", disable=not progress):
        problem = lookup.get((task, pid))
        metric = metrics[task]
        if status != "ok" or problem is None or metric == "verdict":  # a verdict: the source's (``_source_verdicts``)
            extracted.append(None)
            correct.append(pd.NA)
            keys.append(None)
            continue
        key: tuple = (response, metric)
        if key not in answers:
            answers[key] = extract_answer(response, metric, policy)
        answer = answers[key]
        extracted.append(answer)
        if metric == "code":  # run later, all at once in the sandbox
            programs.append((len(correct), answer, problem))
            correct.append(False)
            keys.append(canonical_answer(answer, metric))
            continue
        key = (problem.target, answer, metric, problem.n_choices)
        if key not in verdicts:
            verdicts[key] = is_correct(problem.target, answer, metric, problem.n_choices, numeric_rule)
        correct.append(verdicts[key])
        keys.append(canonical_answer(answer, metric, problem.n_choices, numeric_rule))
    out = _with_code_columns(calls.copy(),
                             _grade_programs(programs, correct, code_cache, unisolated_allowed), bool(programs))
    out["extracted"] = pd.Series(extracted, index=out.index, dtype="string")
    out["correct"] = pd.Series(correct, index=out.index, dtype="boolean")
    out["answer_key"] = pd.Series(keys, index=out.index, dtype="string")
    out["extraction"] = policy
    return _source_verdicts(out, [t for t, m in metrics.items() if m == "verdict"])


def _source_verdicts(out, tasks: list[str]):
    """Successful calls of ``verdict`` tasks (``core.tasks.base.Metric``) take their source's verdict, as it is; one
    without it stays ungraded (``correct`` <NA>)."""
    if not tasks:
        return out
    rows = out["task"].isin(tasks) & out["status"].eq("ok") & out["source_correct"].notna()
    verdict = out.loc[rows, "source_correct"].astype(bool)
    out.loc[rows, "correct"] = verdict
    out.loc[rows, "answer_key"] = "verdict:" + verdict.astype(str)
    return out


def _with_code_columns(out, code: dict, any_code: bool):
    """``out`` with the code tasks' columns (``_grade_programs``) and, in ``attrs``, what judging them took."""
    import pandas as pd

    if "run" in code:
        out.attrs["code_grading"] = code.pop("run")  # a grade.sandbox.GradingRun
    if any_code:
        for name, values in code.items():
            out[name] = pd.Series(values, index=out.index, dtype="Float64" if name == "grade_cpu_s" else "string")
    return out


def _grade_programs(programs: list[tuple], correct: list, code_cache, unisolated_allowed: bool = False
                    ) -> dict[str, Any]:
    """Judge each ``(row, code, problem)`` program against its problem's hidden tests in the sandbox and set
    ``correct[row]`` to its verdict. Returns per-row columns (None where a row is not a program): ``grade_reason`` (why
    it failed), ``grade_harness`` (``split``: judged outside the program's process; ``whole``: by the program's own
    process, see ``grade.programs``), ``grade_isolation`` (``bwrap`` or ``none``) and ``grade_cpu_s``."""
    columns: dict[str, Any] = {name: [None] * len(correct) for name in CODE_COLUMNS}  # and "run": a GradingRun
    if not programs:
        return columns
    from helpers.grade.sandbox import GradingRun, code_job, grade_jobs

    runnable = [(i, code_job(a, p.metadata["test"], p.metadata["entry_point"], p.metadata.get("prompt")))
                for i, a, p in programs if a]
    columns["run"] = GradingRun()
    for (i, _), verdict in zip(runnable, grade_jobs([job for _, job in runnable], code_cache, run=columns["run"],
                                                          unisolated_allowed=unisolated_allowed), strict=True):
        correct[i] = verdict.passed
        for name, value in zip(CODE_COLUMNS, (verdict.reason or None, verdict.harness, verdict.isolation,
                                              verdict.cpu_s), strict=True):
            columns[name][i] = value
    for i, a, _ in programs:
        if not a:
            columns["grade_reason"][i] = "no code in the response"
    return columns


def attempts_from_calls(graded_calls):
    """One row per attempt (task, problem, model, method, run).

    The attempt's answer is its last call's; its tokens are the sum over its calls; it is
    ``complete`` when every call succeeded. ``correct`` is <NA> for incomplete attempts. The keys
    come back as categoricals. Vectorised over sorted calls (no per-group Python, one array at a
    time: benchmarks/analysis_scale.py times it at 100x the paper's records).
    """
    import numpy as np
    import pandas as pd

    from helpers.core.methods import get_method

    keys = ["task", "problem_id", "model", "method", "run"]
    if graded_calls.empty:
        return pd.DataFrame(columns=[*keys, "calls", "complete", "correct", "extracted", "answer_key",
                                     "prompt_tokens", "completion_tokens", "reasoning_tokens", "simulated"])
    # the string keys as categories with sorted categories: sorting their codes sorts by value
    categorical = {k: _sorted_categories(graded_calls[k]) for k in keys[:-1]}
    codes = [categorical[k].cat.codes.to_numpy() for k in keys[:-1]]
    run = graded_calls["run"].to_numpy()
    order = np.lexsort([graded_calls["call"].to_numpy(), run, *reversed(codes)])
    new_attempt = np.zeros(len(order), dtype=bool)
    new_attempt[0] = True
    for column in (*codes, run):
        sorted_column = column[order]
        new_attempt[1:] |= sorted_column[1:] != sorted_column[:-1]
    starts = np.flatnonzero(new_attempt)
    first, last = order[starts], order[np.r_[starts[1:], len(order)] - 1]  # row numbers in graded_calls

    def total(name: str, how=np.add) -> np.ndarray:
        return how.reduceat(graded_calls[name].to_numpy()[order], starts)

    out = pd.DataFrame({
        **{k: pd.Categorical.from_codes(c[first], dtype=categorical[k].dtype) for k, c in zip(keys, codes)},
        "run": run[first],
        "calls": np.diff(np.r_[starts, len(order)]),
        **{c: graded_calls[c].array.take(last) for c in ("correct", "extracted", "answer_key")},
        **{c: total(c) for c in ("prompt_tokens", "completion_tokens", "reasoning_tokens")},
        "simulated": total("simulated", np.logical_or),
    })
    _billing(out, graded_calls, total, last)
    ok_calls = np.add.reduceat(graded_calls["status"].eq("ok").to_numpy()[order].astype(np.int64), starts)
    method = out["method"].cat
    expected = np.array([get_method(m).collected_calls for m in method.categories])[method.codes.to_numpy()]
    out["complete"] = ok_calls == expected
    out.loc[~out["complete"], "correct"] = pd.NA
    return out


def _billing(out, graded_calls, total, last) -> None:
    """Add to the attempts ``out`` what prices them as billed, where the calls have it: the cache buckets (summed,
    tokens), the tier of the attempt's last call (its calls share one), and an imported billed attempt's USD and API
    calls (one record each). ``total(name)`` sums a column per attempt; ``last``: each attempt's last call's row."""
    import numpy as np

    for c in ("cache_read_tokens", "cache_write_tokens"):
        if c in graded_calls:
            out[c] = total(c)
    if "service_tier" in graded_calls:
        out["service_tier"] = graded_calls["service_tier"].array.take(last)
    if "billed_usd" in graded_calls:
        out["billed_usd"] = total("billed_usd")
        recorded = graded_calls["billed_calls"].to_numpy(dtype=float)[last]
        out["calls"] = np.where(np.isnan(recorded), out["calls"], recorded).astype(np.int64)


def _sorted_categories(column):
    """A column as a categorical with its categories in sorted order (sorting by it sorts by value)."""
    import pandas as pd

    if isinstance(column.dtype, pd.CategoricalDtype):
        return column.cat.reorder_categories(sorted(column.cat.categories))
    return column.astype("category")
