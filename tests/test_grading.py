from fractions import Fraction

import pandas as pd
import pytest

from helpers.core.tasks import Problem
from helpers.grade.answers import (
    attempts_from_calls,
    canonical_answer,
    extract_answer,
    extract_letter,
    grade_calls,
    is_correct,
    math_equal,
    plain_value,
)


@pytest.mark.parametrize("text, expected", [
    ("so <answer>41</answer> no wait <answer> 42 </answer>", "42"),
    ("<ANSWER>7</ANSWER>", "7"),
    ("multi\nline <answer>\n\\frac{1}{2}\n</answer>", "\\frac{1}{2}"),
    ("no tags, the answer is 42", None),
    ("", None),
    (None, None),
])
def test_strict_extraction_takes_the_last_span(text, expected):
    assert extract_answer(text) == expected


@pytest.mark.parametrize("text, metric, expected", [
    ("the answer is 42.", "math", "42"),
    ("so \\boxed{17} is it", "math", "17"),
    ("64 + 66 = 130", "math", "130"),
    ("(A) 130", "choice", "A"),
    ("<answer>5</answer> and \\boxed{6}", "math", "5"),
])
def test_lenient_fallbacks(text, metric, expected):
    assert extract_answer(text, metric, "lenient") == expected
    if "<answer>" not in text:
        assert extract_answer(text, metric, "strict") is None


@pytest.mark.parametrize("gold, answer, ok", [
    ("130", "130", True),
    ("3/4", "\\frac{3}{4}", True),
    ("\\frac{3}{4}", "0.75", True),
    ("\\frac{3}{4}", "\\frac34", True),
    ("18", "\\boxed{18}", True),
    ("18", "$18.00", True),
    ("1000", "1,000", True),
    ("1234567", "1,234,567", True),
    ("025", "25", True),
    ("\\left( 3, \\frac{\\pi}{2} \\right)", "(3, \\frac{\\pi}{2})", True),
    ("\\sqrt{2}/2", "\\frac{\\sqrt{2}}{2}", True),
    ("7", "17", False),
    ("1000", "1,001", False),
    ("3", "1,2,3", False),
    ("5", None, False),
    ("5", "", False),
    ("5", "\\frac{", False),
])
def test_math_equivalence(gold, answer, ok):
    assert math_equal(gold, answer) is ok


@pytest.mark.parametrize("answer, letter", [
    ("(B)", "B"), ("B)", "B"), ("B", "B"), ("B.", "B"), ("answer: B", "B"), ("Answer is (B)", "B"),
    ("B. Paris", "B"), ("\\text{(B)}", "B"), ("**B**", "B"), ("(B) Paris", "B"),
    ("(A) or (B)", None), ("E", None), ("", None), (None, None), ("b", None),
])
def test_letters(answer, letter):
    assert extract_letter(answer, 4) == letter


def test_letter_range_follows_the_number_of_choices():
    assert extract_letter("(D)", 3) is None and extract_letter("(C)", 3) == "C"
    assert is_correct("C", "(C)", "choice", 3) and not is_correct("C", "(B)", "choice", 3)


def test_canonical_answers_group_equivalents():
    assert canonical_answer("1/2", "math") == canonical_answer("\\frac{1}{2}", "math")
    assert canonical_answer("1,000", "math") == canonical_answer("1000", "math")
    assert canonical_answer("7", "math") != canonical_answer("17", "math")
    assert canonical_answer("(B)", "choice") == canonical_answer("B", "choice") == "B"


def calls_frame(rows):
    base = {"model": "m", "litellm_model": "x/m", "prompt_hash": "h", "finish_reason": "stop", "latency_s": 0.1,
            "tries": 1, "error": None, "sampling": {}, "simulated": False, "created_at": "", "reasoning_tokens": 0,
            "prompt_tokens": 10, "completion_tokens": 5}
    return pd.DataFrame([{**base, **r} for r in rows])


def test_grade_calls_and_attempts():
    problems = {"gsm8k": [Problem("gsm8k", "p1", "q", "12")], "bbq": [Problem("bbq", "b1", "q", "B", 3)]}
    calls = calls_frame([
        {"task": "gsm8k", "problem_id": "p1", "method": "vanilla", "run": 0, "call": 0, "status": "ok",
         "response": "<answer>12</answer>"},
        {"task": "gsm8k", "problem_id": "p1", "method": "vanilla", "run": 1, "call": 0,
         "status": "ok", "response": "12"},
        {"task": "gsm8k", "problem_id": "p1", "method": "vanilla", "run": 2, "call": 0,
         "status": "error", "response": None},
        {"task": "gsm8k", "problem_id": "p1", "method": "self_refine", "run": 0, "call": 0, "status": "ok",
         "response": "<answer>11</answer>"},
        {"task": "gsm8k", "problem_id": "p1", "method": "self_refine", "run": 0, "call": 1, "status": "ok",
         "response": "<answer>12</answer>"},
        {"task": "bbq", "problem_id": "b1", "method": "vanilla", "run": 0, "call": 0, "status": "ok",
         "response": "<answer>(B)</answer>"},
    ])
    graded = grade_calls(calls, problems)
    assert graded.correct.iloc[0] and not graded.correct.iloc[1] and pd.isna(graded.correct.iloc[2])
    assert graded.extracted.iloc[0] == "12" and pd.isna(graded.extracted.iloc[1])
    attempts = attempts_from_calls(graded).set_index(["task", "method", "run"])
    assert bool(attempts.loc[("gsm8k", "vanilla", 0), "correct"])
    assert not bool(attempts.loc[("gsm8k", "vanilla", 1), "correct"])  # strict: no tags, no answer
    assert pd.isna(attempts.loc[("gsm8k", "vanilla", 2), "correct"])  # a failure is not a wrong answer
    refine = attempts.loc[("gsm8k", "self_refine", 0)]
    assert bool(refine.correct) and refine.calls == 2 and refine.prompt_tokens == 20 and refine.complete
    assert bool(attempts.loc[("bbq", "vanilla", 0), "correct"])
    lenient = attempts_from_calls(grade_calls(calls, problems, "lenient")).set_index(["task", "method", "run"])
    assert bool(lenient.loc[("gsm8k", "vanilla", 1), "correct"])


@pytest.mark.parametrize("text, value", [
    ("42", Fraction(42)), ("-3.5", Fraction(-7, 2)), (".5", Fraction(1, 2)), ("3/4", Fraction(3, 4)),
    ("1,000", Fraction(1000)), ("025", Fraction(25)), ("1/0", None), ("\\frac{3}{4}", None), ("60 + 59", None),
])
def test_plain_value_is_exact(text, value):
    assert plain_value(text) == value


def test_plain_numerals_compare_exactly_and_group_with_their_latex_form():
    assert is_correct("0.75", "3/4", "number") and is_correct("18", "18.000", "number")
    assert not is_correct("0.3333", "1/3", "number")  # no float tolerance between two plain numerals
    assert canonical_answer("0.75", "number") == canonical_answer("\\frac{3}{4}", "number") == "3/4"


def test_attempts_from_calls_equal_a_plain_group_by():
    """The vectorised attempts (sorted arrays, no per-group Python) equal a plain pandas group-by of the same
    calls, in any row order, with failed calls, two-call methods and missing calls."""
    import numpy as np

    rng = np.random.default_rng(0)
    rows = []
    for task in ("gsm8k", "bbq"):
        for pid in ("p1", "p10", "p2"):
            for model in ("b", "a"):
                for method, n_calls in (("vanilla", 1), ("self_refine", 2)):
                    for run in range(3):
                        for call in range(n_calls if rng.random() > 0.1 else n_calls - 1 or 1):
                            ok = rng.random() > 0.15
                            answer = str(rng.integers(0, 3)) if ok else None
                            rows.append({"task": task, "problem_id": pid, "model": model, "method": method, "run": run,
                                         "call": call, "status": "ok" if ok else "error",
                                         "correct": (answer == "0") if ok else None, "extracted": answer,
                                         "answer_key": answer, "prompt_tokens": int(rng.integers(1, 100)),
                                         "completion_tokens": int(rng.integers(1, 100)), "reasoning_tokens": 0,
                                         "simulated": True})
    calls = pd.DataFrame(rows).sample(frac=1, random_state=1)
    calls["correct"] = calls["correct"].astype("boolean")
    keys = ["task", "problem_id", "model", "method", "run"]
    got = attempts_from_calls(calls)
    got = got.astype({k: str for k in keys[:-1]}).set_index(keys).sort_index()
    plain = calls.sort_values([*keys, "call"]).groupby(keys)
    expected = pd.DataFrame({
        "calls": plain.size(), "prompt_tokens": plain["prompt_tokens"].sum(),
        "completion_tokens": plain["completion_tokens"].sum(),
        "complete": plain["status"].apply(lambda s: bool((s == "ok").all()))
        & (plain.size() == [2 if k[3] == "self_refine" else 1 for k in plain.size().index]),
        "answer_key": plain["answer_key"].apply(lambda s: s.iloc[-1]),
    }).sort_index()
    assert got.index.equals(expected.index)
    for column in ("calls", "prompt_tokens", "completion_tokens", "complete"):
        assert got[column].tolist() == expected[column].tolist(), column
    assert [None if pd.isna(x) else x for x in got["answer_key"]] == \
        [None if pd.isna(x) else x for x in expected["answer_key"]]
    last_correct = plain["correct"].apply(lambda s: s.iloc[-1])
    assert [None if pd.isna(x) else bool(x) for x in got["correct"]] == \
        [bool(c) if done and not pd.isna(c) else None
         for c, done in zip(last_correct.sort_index(), expected["complete"])]


def test_code_is_extracted_from_answer_spans_fences_or_the_whole_text():
    from helpers.grade.answers import extract_answer

    assert extract_answer("def f():\n    return 1\n", "code") == "def f():\n    return 1"
    assert extract_answer("Here:\n```python\ndef f():\n    return 1\n```\nand a test\n```\nf()\n```", "code") == \
        "def f():\n    return 1"
    assert extract_answer("<answer>\n```py\ndef g(): pass\n```\n</answer>", "code") == "def g(): pass"
    assert extract_answer("   \n", "code") is None


def test_code_tasks_are_graded_in_the_sandbox_with_their_hidden_tests(tmp_path):
    import pandas as pd

    from helpers.core.tasks import Problem
    from helpers.grade.answers import grade_calls

    test = "def check(candidate):\n    assert candidate(2) == 4\n"
    problem = Problem("humaneval", "humaneval-0", "double x", "double",
                      metadata={"test": test, "entry_point": "double"})
    calls = pd.DataFrame({"task": "humaneval", "problem_id": "humaneval-0", "status": ["ok", "ok", "ok", "error"],
                          "response": ["def double(x):\n    return 2 * x\n",
                                       "```python\ndef double(x):\n    return x\n```",
                                       "", None]})
    cache = tmp_path / "verdicts.jsonl"
    g = grade_calls(calls, {"humaneval": [problem]}, code_cache=cache)
    assert g["correct"].tolist()[:3] == [True, False, False] and pd.isna(g["correct"].iloc[3])
    assert (g["grade_reason"].iloc[1].startswith("AssertionError") and g["grade_reason"].iloc[2]
            == "no code in the response")
    assert len(cache.read_text().splitlines()) == 2


def test_a_reason_keeps_no_invisible_character_that_changes_how_it_reads():
    """Issue 63: bidi overrides and zero-width characters passed into the disagreements table ("gnissap" read
    "passing")."""
    from helpers.grade.sandbox import clean_reason

    assert clean_reason("AssertionError: \u202egnissap\u202c \u200bok\ufeff") == "AssertionError: gnissap ok"


def _key_in(root):
    from helpers.grade.verdicts import checkout_key

    return checkout_key(root)


def test_the_checkout_key_is_made_once_under_a_lock_and_never_through_a_planted_link(tmp_path):
    """Issue 63 item 8: processes grading at once share one key (made with O_EXCL under a lock, mode 0600); a symbolic
    link planted where the key belongs is refused (nothing written through it), as is a key others can read; a key
    of the wrong length is made again."""
    import multiprocessing
    import stat

    from helpers.core.errors import CostOfPassError
    from helpers.grade.verdicts import KEY_FILE, checkout_key

    with multiprocessing.get_context("fork").Pool(6) as pool:
        keys = pool.map(_key_in, [tmp_path] * 12)
    assert len(set(keys)) == 1 and len(keys[0]) == 32
    assert stat.S_IMODE((tmp_path / KEY_FILE).stat().st_mode) == 0o600 and checkout_key(tmp_path) == keys[0]
    assert not list(tmp_path.glob("*.tmp"))
    (tmp_path / KEY_FILE).write_bytes(b"short")
    assert len(checkout_key(tmp_path)) == 32 and checkout_key(tmp_path) != keys[0]
    other = tmp_path / "other"
    other.mkdir()
    bait = tmp_path / "bait"
    bait.write_bytes(b"x" * 32)
    (other / KEY_FILE).symlink_to(bait)
    with pytest.raises(CostOfPassError, match="not a regular file"):
        checkout_key(other)
    assert bait.read_bytes() == b"x" * 32
    (other / KEY_FILE).unlink()
    (other / KEY_FILE).write_bytes(b"y" * 32)
    (other / KEY_FILE).chmod(0o644)
    with pytest.raises(CostOfPassError, match="readable by it alone"):
        checkout_key(other)
