"""What routing each problem by a shared difficulty costs in time (issue 61, item 1; issue 64's suite budget), measured
side by side on the same SIMULATED sets of the `sim` shape (six datasets, 8 runs, k = 4; the own model's sets): the
headline's frontier of all models as ``policy.set_policy`` chooses it (``policy.crossfit_halves``, every half-split),
beside the same with ``difficulty_folds=5`` and no weights (``analyze.difficulty_routing``: per dataset five
item-response fits and five interaction fits, one per fold), and that routing again as it was before 2026-12-01
(scipy's ``logsumexp`` in ``cell_interaction``'s place, and tau refined by a bounded search rather than two
parabolas, ``cell_interaction.fit_tau``'s ``refine``). Seconds per set (the median of the sets, one process, the sets
in turn) and the ratios.

    COP_DATA_DIR=../shared/data .venv/bin/python benchmarks/routing_cost.py [sets, default 6] [a set's params]
"""

from __future__ import annotations

import dataclasses
import sys
import time

import numpy as np
from scipy import special

from helpers.analyze import cell_interaction as ci
from helpers.analyze import known_truth as kt
from helpers.analyze import policy
from helpers.core.context import prepare
from helpers.core.methods import get_method
from helpers.core.params import load_params


def _scipy_logsumexp(x: np.ndarray) -> np.ndarray:
    return special.logsumexp(x, axis=-1)


FIT_TAU, HAND = ci.fit_tau, ci._logsumexp


def _refined(*args, **kwargs):
    return FIT_TAU(*args, **{**kwargs, "refine": True})


def _as_before(before: bool) -> None:
    """``cell_interaction`` as the routing read it before 2026-12-01 (``before``), or as it is."""
    ci.fit_tau, ci._logsumexp = (_refined, _scipy_logsumexp) if before else (FIT_TAU, HAND)


def timings(sets: int, params: str) -> dict[str, list[float]]:
    """Seconds per set of each way of choosing the frontier of all models, on ``sets`` sets drawn from seeds 0.."""
    gm = kt.generative_model(prepare(load_params(params)))
    gm = dataclasses.replace(gm, methods=[m for m in gm.methods if get_method(m).is_collected])
    routing = {"own_weights": (), "difficulty_folds": 5}
    ways = {"every half-split (headline)": ({}, False), "shared difficulty": (routing, False),
            "shared difficulty as before 2026-12-01": (routing, True)}
    out: dict[str, list[float]] = {w: [] for w in ways}
    for seed in range(sets + 1):  # set 0 warms the imports and caches up, and is not counted
        cube, expert = kt.draw_cube(gm, np.random.default_rng(seed))
        models = [cube.strategies.index(m) for m in gm.models]
        k = policy.headline_k(cube.runs[:, models])
        for way, (kwargs, before) in ways.items():
            _as_before(before)
            try:
                start = time.perf_counter()
                policy.crossfit_halves(cube.usd, cube.correct, cube.runs, expert, [models], k, cube.task_codes,
                                       **kwargs)
                took = time.perf_counter() - start
            finally:
                _as_before(False)
            if seed:
                out[way].append(took)
    return out


def main(sets: int = 6, params: str = "params/sim.yaml") -> None:
    start = time.perf_counter()
    got = timings(sets, params)
    base = float(np.median(got["every half-split (headline)"]))
    print(f"{sets} SIMULATED sets of {params}'s shape, the frontier of all models; seconds per set (median)")
    for way, secs in got.items():
        print(f"  {way:38s} {np.median(secs):6.2f} s  {np.median(secs) / base:5.1f} x the headline's")
    now, old = (float(np.median(got[w])) for w in ("shared difficulty", "shared difficulty as before 2026-12-01"))
    print(f"  the routing now: {old / now:.2f} x faster than before 2026-12-01")
    print(f"\nwall {time.perf_counter() - start:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    args = sys.argv[1:]
    main(int(args[0]) if args else 6, *args[1:2])
