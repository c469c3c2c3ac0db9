"""Table 1 of a racing set from every problem's records: each recorded cell weighted by the inverse of its chance of
being recorded (a Hájek estimator; issue 37, item 1: "the estimator weighted for it").

A racing set records a (problem, option) cell where its race runs the option — a decision made from the records of
the options cheaper than it, so it is known for every problem, the Table-1 sample's too (``grade.racing.raced_cells``)
— and on every cell of the Table-1 sample, a seeded random ``k_t`` of each dataset's ``N_t`` problems drawn without
looking at any record. A cell the race runs is recorded whatever the sample (probability 1); any other cell only if its
problem is in the sample (probability ``k_t / N_t``). Weighting each recorded cell by the inverse of that probability
makes a model's Table 1 (the mean over problems of min(its cost-of-pass, the expert's cost)) unbiased for the uniform
design's over the draw of the sample; as a ratio (weights summing to the weighted count, not to ``N_t``) it is the
Hájek form, consistent and steadier. Where the race runs a model on every problem (the cheapest ones) its Table 1 is
the uniform design's, number for number; the others borrow the sample only where the race skipped them.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from helpers.analyze import headline
from helpers.analyze.bootstrap import Replicates
from helpers.analyze.statistic import Key


def inclusion_weights(raced: np.ndarray, sample: np.ndarray, task_starts: np.ndarray) -> np.ndarray:
    """(P, S) the inverse of each cell's chance of being recorded: 1 where the race runs it, ``N_t / k_t`` on the
    Table-1 sample's other cells (``k_t`` of dataset t's ``N_t`` problems drawn), 0 on cells never recorded.
    ``raced`` (P, S) bool, ``sample`` (P,) bool, ``task_starts`` (T,) each dataset's first problem."""
    raced, sample = np.asarray(raced, bool), np.asarray(sample, bool)
    inverse = np.zeros(len(sample))
    for lo, hi in zip(task_starts, [*task_starts[1:], len(sample)]):
        k = int(sample[lo:hi].sum())
        inverse[lo:hi] = (hi - lo) / k if k else 0.0
    return np.where(raced, 1.0, np.where(sample[:, None], inverse[:, None], 0.0))


def inclusion_frame(raced: pd.DataFrame, sample: pd.Series) -> pd.DataFrame:
    """``inclusion_weights`` as a frame: ``raced`` bool, problems (task, problem_id; each task's problems together) x
    options; ``sample`` bool per problem (same index)."""
    codes = pd.factorize(raced.index.get_level_values(0))[0]
    starts = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]])
    weights = inclusion_weights(raced.to_numpy(bool), sample.reindex(raced.index).to_numpy(bool), starts)
    return pd.DataFrame(weights, index=raced.index, columns=raced.columns)


def weighted(reps: Replicates, weights: np.ndarray) -> Replicates:
    """``reps`` with each problem's weight multiplied by ``weights`` (P,) (its cells' inverse chance of being
    recorded): its ``frontier`` and ``bounds`` are then the weighted means. Shares ``reps``' arrays."""
    if reps._by_strategy is None:
        reps.frontier([])  # one (S, B, P) copy for every weighting of these replicates
    return dataclasses.replace(reps, weights=reps.weights * np.asarray(weights, float)[None, :])


def weighted_table1(reps: Replicates, inclusion: np.ndarray, strategies: list[str],
                    specs: dict[Key, headline.Spec]) -> dict[Key, np.ndarray]:
    """Table 1's statistics (``table1:<model>``: one model and the expert) of ``reps``, each model's cells weighted by
    ``inclusion[:, its column]`` ((P, S) over ``strategies``, the cube's collected strategies): statistic -> (B, T)
    USD."""
    out = {}
    for name, spec in specs.items():
        mine = weighted(reps, model_weights(inclusion, strategies, spec))
        out.update(headline.evaluate({name: spec}, mine.frontier))
    return out


def model_weights(inclusion: np.ndarray, strategies: list[str], spec: headline.Spec) -> np.ndarray:
    """(P,) the weights of the one model a Table-1 statistic reads (``spec``: one model and the expert), from
    ``inclusion`` (P, S) over ``strategies``."""
    assert isinstance(spec, headline.Level) and len(spec.strategies) == 1, spec  # Table 1: one model alone
    return np.asarray(inclusion)[:, strategies.index(spec.strategies[0])]
