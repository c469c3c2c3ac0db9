"""What routing each problem by a shared difficulty costs in time (issue 61, item 1; issue 64's suite budget), measured
side by side on the same SIMULATED sets of the `sim` shape (six datasets, 8 runs, k = 4; the own model's sets): the
headline's frontier of all models as ``policy.set_policy`` chooses it since 2026-12-02 (``policy.crossfit_halves``
with no weights and ``difficulty_folds=5``: ``analyze.difficulty_routing``, per dataset five item-response fits and
five interaction fits, one per fold, each fit stopping at ``difficulty_routing.FTOL``), beside the rule before it
(every half-split, weight 1, no curves) and the routing with the fits run to scipy's own tolerance (about 2e-9, as
before 2026-12-02). Seconds per set (the median of the sets, one process, the sets in turn) and the ratios. Then what
a whole set of the validity study costs (``policy_study.draw_set``: the set drawn, every statistic and its truth; what
`make all`'s 07_validity does 260 times), in CPU-seconds, under the headline's ways and under every half-split.

    COP_DATA_DIR=../shared/data .venv/bin/python benchmarks/routing_cost.py [sets, default 6] [a set's params]
"""

from __future__ import annotations

import dataclasses
import sys
import time

import numpy as np

from helpers.analyze import difficulty_routing, policy, policy_study
from helpers.analyze import known_truth as kt
from helpers.core.context import prepare
from helpers.core.methods import get_method
from helpers.core.params import load_params


def _tolerance(ftol: float | None) -> None:
    """Fit the routing's curves to ``ftol`` (None: scipy's own)."""
    difficulty_routing.FTOL = ftol


FTOL = difficulty_routing.FTOL


def timings(sets: int, params: str) -> dict[str, list[float]]:
    """Seconds per set of each way of choosing the frontier of all models, on ``sets`` sets drawn from seeds 0.."""
    gm = kt.generative_model(prepare(load_params(params)))
    gm = dataclasses.replace(gm, methods=[m for m in gm.methods if get_method(m).is_collected])
    routing = {"own_weights": (), "difficulty_folds": 5}
    ways = {"shared difficulty (headline)": (routing, FTOL), "every half-split": ({"own_weights": (1.0,)}, FTOL),
            "shared difficulty, scipy's tolerance": (routing, None)}
    out: dict[str, list[float]] = {w: [] for w in ways}
    for seed in range(sets + 1):  # set 0 warms the imports and caches up, and is not counted
        cube, expert = kt.draw_cube(gm, np.random.default_rng(seed))
        models = [cube.strategies.index(m) for m in gm.models]
        k = policy.headline_k(cube.runs[:, models])
        for way, (kwargs, ftol) in ways.items():
            _tolerance(ftol)
            try:
                start = time.perf_counter()
                policy.crossfit_halves(cube.usd, cube.correct, cube.runs, expert, [models], k, cube.task_codes,
                                       **kwargs)
                took = time.perf_counter() - start
            finally:
                _tolerance(FTOL)
            if seed:
                out[way].append(took)
    return out


def set_timings(sets: int, params: str) -> dict[str, list[float]]:
    """CPU-seconds of each whole validity-study set (``policy_study.draw_set``, the set's own generator) under the
    headline's ways of choosing and under every half-split, on ``sets`` sets drawn from seeds 1.. (seed 0 warms up)."""
    gm = kt.generative_model(prepare(load_params(params)).split()[0])
    ways = {"shared difficulty (headline)": ((), 5), "every half-split": ((1.0,), 0)}
    product = policy.HEADLINE_WEIGHTS, policy.HEADLINE_FOLDS
    out: dict[str, list[float]] = {w: [] for w in ways}
    for seed in range(sets + 1):
        for way, chosen in ways.items():
            policy.HEADLINE_WEIGHTS, policy.HEADLINE_FOLDS = chosen
            try:
                start = time.process_time()
                policy_study.draw_set(gm, seed, None)
                took = time.process_time() - start
            finally:
                policy.HEADLINE_WEIGHTS, policy.HEADLINE_FOLDS = product
            if seed:
                out[way].append(took)
    return out


def main(sets: int = 6, params: str = "params/sim.yaml") -> None:
    start = time.perf_counter()
    got = timings(sets, params)
    base = float(np.median(got["every half-split"]))
    print(f"{sets} SIMULATED sets of {params}'s shape, the frontier of all models; seconds per set (median)")
    for way, secs in got.items():
        print(f"  {way:38s} {np.median(secs):6.2f} s  {np.median(secs) / base:5.1f} x every half-split's")
    now, old = (float(np.median(got[w])) for w in ("shared difficulty (headline)",
                                                    "shared difficulty, scipy's tolerance"))
    print(f"  the routing's fits at ftol {FTOL:g}: {old / now:.2f} x faster than at scipy's tolerance")
    whole = set_timings(sets, params)
    base = float(np.median(whole["every half-split"]))
    print("\na whole set of the validity study (policy_study.draw_set, every statistic), CPU-seconds (median)")
    for way, secs in whole.items():
        print(f"  {way:38s} {np.median(secs):6.2f} s  {np.median(secs) / base:5.1f} x every half-split's")
    print(f"\nwall {time.perf_counter() - start:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    args = sys.argv[1:]
    main(int(args[0]) if args else 6, *args[1:2])
