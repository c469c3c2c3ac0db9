"""Closed forms for majority vote and best-of-N (the CPSP note's §3.2–3.3, made exact).

A problem's answers fall into classes (equal answers; "no answer" is a class of its own, which is
never correct). A k-vote's majority class wins; a tie among the largest classes is split evenly, so
the vote succeeds with the share of correct classes among the tied winners.

- From n recorded runs (class sizes n_i): the mean success over all C(n, k) k-subsets of the runs
  (multivariate hypergeometric; ``replacement=False``). This is the unbiased estimate of the vote of k
  fresh attempts, and what enumerating the subsets gives — without enumerating them.
- From true class probabilities p_i (the simulator's truth): k independent attempts (multinomial;
  ``replacement=True``), which is also the plug-in value for given frequencies.

Both sum, for each possible winning size t, over the ways the k votes split between classes with no
class above t, tracking how many correct and wrong classes reach t (a small dynamic programme over
classes; exact, O(classes · k² · (k/t)²) per pattern). A pattern is a tuple of (size or probability,
correct) per class; results are memoised per pattern, since problems share few patterns.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
import pandas as pd

Pattern = tuple[tuple[float, bool], ...]


@lru_cache(maxsize=262144)
def vote_probability(pattern: Pattern, k: int, replacement: bool = False) -> float:
    """P(a k-vote picks a correct class), ties split evenly (0-1).

    ``pattern``: (n_i, correct_i) per class with n_i recorded runs (``replacement=False``: the mean over
    all k-subsets of the runs; needs sum n_i >= k), or (p_i, correct_i) with class probabilities summing
    to 1 (``replacement=True``: k independent attempts).
    """
    classes = [(w, bool(ok)) for w, ok in pattern if w > 0]
    total = sum(w for w, _ in classes)
    if not replacement and total < k:
        raise ValueError(f"{total} runs cannot make a {k}-vote")
    if not any(ok for _, ok in classes):
        return 0.0

    def ways(w: float, j: int) -> float:  # a class of size / probability w taking j of the votes
        return math.comb(int(w), j) if not replacement else w**j / math.factorial(j)

    success = 0.0
    for top in range(1, k + 1):
        # state: (votes used, correct classes at `top`, wrong classes at `top`) -> summed weight
        states: dict[tuple[int, int, int], float] = {(0, 0, 0): 1.0}
        for w, ok in classes:
            cap = min(top, k if replacement else int(w))
            nxt: dict[tuple[int, int, int], float] = {}
            for (used, tc, tw), weight in states.items():
                for j in range(0, min(cap, k - used) + 1):
                    key = (used + j, tc + (j == top and ok), tw + (j == top and not ok))
                    nxt[key] = nxt.get(key, 0.0) + weight * ways(w, j)
            states = nxt
        success += sum(weight * tc / (tc + tw) for (used, tc, tw), weight in states.items()
                       if used == k and tc + tw > 0)
    return success * math.factorial(k) if replacement else success / math.comb(int(total), k)


def any_pass_probability(n: int, correct: int, k: int) -> float:
    """Best-of-k with an oracle verifier from n recorded runs, ``correct`` of them correct: the mean over
    all k-subsets of "some run passes", 1 − C(n − c, k) / C(n, k) (0-1; needs n >= k)."""
    return 1.0 - math.comb(n - correct, k) / math.comb(n, k)


def any_pass_true(p, k: int):
    """Best-of-k with an oracle verifier for k independent attempts of success probability ``p``: 1 − (1 − p)^k."""
    return 1.0 - (1.0 - np.asarray(p, dtype=float)) ** k


# ---- many problems at once: patterns as integer codes ------------------------------------------
def pattern_codes(sizes: np.ndarray, correct: np.ndarray) -> tuple[np.ndarray, int]:
    """One integer per row identifying its vote pattern, from class sizes and correctness.

    ``sizes``: (..., J) non-negative integers (runs per class, 0 for an unused slot); ``correct``: (..., J)
    bool. Rows with the same multiset of (size, correct) get the same code. Returns int64 (...,) codes
    and their base (``decode_pattern(code, base)`` turns one back into a pattern); needs base^J < 2^63
    with base = 2·max size + 2.
    """
    sizes = np.asarray(sizes)
    base = 2 * int(sizes.max(initial=0)) + 2
    if sizes.shape[-1] * math.log2(base) >= 63:
        raise ValueError(f"patterns of {sizes.shape[-1]} classes of up to "
                         f"{base // 2 - 1} runs do not fit an int64 code")
    dtype = np.int16 if base < 2**15 else np.int64
    digits = np.where(sizes > 0, 2 * sizes.astype(dtype) + np.asarray(correct, dtype=dtype), 0).astype(dtype)
    digits.sort(axis=-1)  # a class's slot does not matter: ascending digits, empty slots (0) first
    powers = base ** np.arange(digits.shape[-1] - 1, -1, -1, dtype=np.int64)
    return digits @ powers if dtype == np.int64 else (digits.astype(np.int64) * powers).sum(axis=-1), base


def decode_pattern(code: int, base: int) -> Pattern:
    """The pattern of ``pattern_codes`` (classes as (size, correct), largest first)."""
    out = []
    while code:
        code, digit = divmod(int(code), base)
        out.append((digit // 2, bool(digit % 2)))
    return tuple(sorted(out, reverse=True))


def vote_rates(sizes: np.ndarray, correct: np.ndarray, k: int,
               codes: tuple[np.ndarray, int] | None = None) -> np.ndarray:
    """``vote_probability`` (from recorded runs) for every row of (..., J) class sizes and correctness;
    NaN where a row has fewer than k runs. One closed form per distinct pattern (``codes``: the rows'
    ``pattern_codes`` when already computed)."""
    row_codes, base = codes or pattern_codes(sizes, correct)
    inverse, unique = pd.factorize(row_codes.ravel())  # hashing: several times faster than np.unique's sort here
    runs = np.asarray(sizes).sum(axis=-1).ravel()
    patterns = [decode_pattern(c, base) for c in unique.tolist()]
    rates = np.array([vote_probability(p, k) if sum(n for n, _ in p) >= k else np.nan for p in patterns])
    out = rates[inverse]
    out[runs < k] = np.nan
    return out.reshape(row_codes.shape)


@lru_cache(maxsize=256)
def vote_polynomial(k: int, wrong_classes: int, no_answer: float = 0.0) -> np.ndarray:
    """P(k-vote correct) as a polynomial in the success rate x (coefficients, highest first) for one
    correct answer, ``wrong_classes`` equally likely wrong answers sharing 1 − no_answer − x, and (when
    ``no_answer`` > 0) a no-answer class of that probability: every class is linear in x, so the closed form
    with replacement is a polynomial of degree k, which k + 1 evaluations determine exactly."""
    d, top = wrong_classes, 1.0 - no_answer
    x = top * (0.5 - 0.5 * np.cos(np.pi * (np.arange(k + 1) + 0.5) / (k + 1)))  # Chebyshev nodes in [0, top]
    none = ((no_answer, False),) if no_answer > 0 else ()
    y = [vote_probability(((v, True), *[((top - v) / d, False)] * d, *none), k, True) for v in x]
    return np.polyfit(x, y, k)
