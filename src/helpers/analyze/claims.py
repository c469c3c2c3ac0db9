"""The report's claims, each decided once: which option a finding names, from its estimates and intervals.

A finding names an option only "beyond doubt". The rules live here, as pure functions over arrays whose last axis
is the options (a dataset's techniques, families or models) and whose leading axes are anything (one set's
datasets, or the validity study's sets × datasets), so the report (``publish.findings``, which words them) and the
validity study (``policy_study``, which measures how often they name a wrong option or miss a right one) apply the
same rule. Each returns the index of the option named (or ``NONE``), or, for techniques, which are named.

- the techniques that pay: each whose cross-fitted gain is shown above 0 among every technique and agent strategy of
  the dataset tested together (``policy.holm_shown``: Holm's step-down, all the claims holding at once; none ranked);
- the most essential family: the largest gain of a family's removal, named only where it is shown above 0 with the
  dataset's other families tested together (``policy.holm_shown``, as the tables mark it) and its interval lies
  above every other family's interval;
- the cheapest model alone: the model whose paired difference with every other model lies below 0
  (``differences.cheapest_beyond_doubt`` decides it, on the same problems and runs; here it is read).
"""

from __future__ import annotations

import numpy as np

NONE = -1  # no option named


def _largest(value: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(index of the largest value along the last axis, whether it is a number): NaN values never win."""
    v = np.where(np.isnan(value), -np.inf, value)
    best = np.argmax(v, axis=-1)
    return best, np.isfinite(np.take_along_axis(v, best[..., None], axis=-1)[..., 0])


def _at(a: np.ndarray, index: np.ndarray) -> np.ndarray:
    return np.take_along_axis(a, index[..., None], axis=-1)[..., 0]


def techniques_that_pay(value: np.ndarray, shown: np.ndarray) -> np.ndarray:
    """(..., N) gains and their ``shown`` marks (``policy.policy_rows``: above 0 with the dataset's other techniques
    and strategies tested together) -> (..., N) whether each technique is named as paying. None is called the best
    (two that pay are not ranked by their point values)."""
    return np.isfinite(np.asarray(value, float)) & np.asarray(shown, bool)


def most_essential(value: np.ndarray, low: np.ndarray, high: np.ndarray, shown: np.ndarray) -> np.ndarray:
    """(..., N) families' gains with their intervals and ``shown`` marks (``policy.policy_rows``: above 0 with the
    dataset's other families tested together) -> (...,) the family named most essential: the largest gain where it
    is shown and its interval lies above every other family's interval, else ``NONE``."""
    value, low, high = (np.asarray(a, float) for a in (value, low, high))
    best, finite = _largest(value)
    others = np.where(np.arange(value.shape[-1]) == best[..., None], -np.inf, np.nan_to_num(high, nan=-np.inf))
    lo = _at(low, best)
    held = _at(np.asarray(shown, bool), best)
    return np.where(finite & held & (lo > 0) & (lo > others.max(axis=-1)), best, NONE)


def cheapest_model(flags: np.ndarray) -> np.ndarray:
    """(..., M) each model's ``cheapest`` mark (``differences.cheapest_beyond_doubt``) -> (...,) the model named
    cheapest (the first marked; at most one is), else ``NONE``."""
    flags = np.asarray(flags, bool)
    return np.where(flags.any(axis=-1), np.argmax(flags, axis=-1), NONE)
