"""Calibrate the item-response model's checks to their nominal size, then measure that size on other sets.

The checks' p-values are computed with the fitted parameters held, so under the model's own family they are not
uniform (at paper scale, before calibration, 2,000 sets: all-fail, dispersion and ordering rejected 0.0-0.1% at the
nominal 2%, split-sample 4.2%, the floor check 8.6%). This script draws ``calibrate`` simulated datasets of the model's
own family at paper scale (``model_checks_power.paper_scale_model``: 128 free-response problems, 10 models, 8 runs),
takes each check's ``LEVEL`` / 5 quantile of its p-values as its critical value and writes them to
``src/helpers/analyze/model_checks_calibration.json``; then it draws ``validate`` other datasets (other seeds) and
prints how often each check, and any check (the gate), rejects, with its Monte-Carlo standard error. SIMULATED.

    .venv/bin/python benchmarks/model_checks_size.py [calibrate sets, default 6000] [validate sets, default 2000]

The checks' size depends on the set's shape (``shapes`` prints each shape's size with paper scale's critical values
too: 13.2% for any check at 20 problems x 3 models x 4 runs, against 10%), so ``shapes`` calibrates them again at
each of ``SHAPES`` (smaller sets the project runs) and saves those critical values beside the paper scale's; a dataset
uses the nearest shape's (``model_checks.critical_p``):

    .venv/bin/python benchmarks/model_checks_size.py shapes [calibrate sets, default 2000] [validate sets, default 500]

The `sim` set's own datasets (five of 128 problems and one of 30, 20 collected strategies each: ten models with
and without self-refine, 8 runs) have a structure the one-group paper-scale model lacks, so ``sim`` draws whole
SIMULATED sets from the `sim` set's own generative model (its "own model" generator, the one the model-based
estimator assumes), calibrates each dataset shape there (the five 128-problem datasets pooled) and saves those shapes
too (needs ``COP_DATA_DIR``):

    .venv/bin/python benchmarks/model_checks_size.py sim [calibrate sets, default 800] [validate sets, default 200]

``pipeline`` measures the size the report's checks reach on `sim` as the pipeline runs them (every set's checks seeded
with the set's seed, not one seed per set as above), per dataset and per set of six datasets (writes nothing):

    .venv/bin/python benchmarks/model_checks_size.py pipeline [sets, default 200]
"""

from __future__ import annotations

import functools
import json
import math
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from model_checks_power import paper_scale_model  # noqa: E402

from helpers.analyze import known_truth as kt  # noqa: E402
from helpers.analyze import model_checks as mc  # noqa: E402
from helpers.analyze.frontier_model import fit_tested  # noqa: E402
from helpers.core.pool import forked_map  # noqa: E402

CALIBRATION_SEEDS = 1_000_000  # the calibration's sets: seeds from here, never the validation's (0, 1, …)
PAPER = "128 free-response problems x 10 models x 8 runs, the model's own family (paper_scale_model)"
SHAPES = ((20, 3, 4), (60, 6, 4), (164, 6, 5))  # (problems, models, runs) of smaller sets: `local`'s, a small fork's,
# HumanEval's (one run per cell, SWE-bench's, is not calibrated: docs/statistics.md)


def p_values(seed: int, shape: tuple[int, int, int] | None = None) -> list[float]:
    """Each check's p-value (``mc.CHECKS`` order) on one own-family dataset at paper scale, or of ``shape``."""
    gm = paper_scale_model(*shape) if shape else paper_scale_model()
    rng = np.random.default_rng(seed)
    cube, _ = kt.draw_cube(gm, rng, kt.draw_problems(gm, rng, kt.GENERATORS[0]))
    k, n = cube.correct.sum(-1), cube.runs
    groups = np.array(["vanilla"] * k.shape[1])
    found = {r.check: r.p_value for r in mc.check_task(k, n, fit_tested(k, n, groups), seed=seed, groups=groups,
                                                       free_response=True)}
    return [found[c] for c in mc.CHECKS]


def draw(seeds: list[int], shape: tuple[int, int, int] | None = None) -> np.ndarray:
    """(sets, checks) p-values, on every core."""
    return np.array(forked_map(p_values, [(s, shape) for s in seeds], os.cpu_count() or 1))


def quantiles(cal: np.ndarray) -> dict[str, float]:
    """Each check's critical p-value: its ``LEVEL`` / 5 quantile over the calibration sets ``cal`` (sets, checks)."""
    nominal = mc.LEVEL / len(mc.CHECKS)
    return {c: float(np.quantile(cal[:, j], nominal, method="inverted_cdf")) for j, c in enumerate(mc.CHECKS)}


def size(val: np.ndarray, critical: dict[str, float], validate: int) -> None:
    """Print each check's (and any check's) rejection rate on the validation sets ``val``, raw and calibrated."""
    nominal = mc.LEVEL / len(mc.CHECKS)
    crit = np.array([critical[c] for c in mc.CHECKS])
    reject = val <= crit
    print(f"{'check':14s}{'uncalibrated (p < ' + format(nominal, 'g') + ')':>28s}{'calibrated':>16s}")
    for j, c in enumerate(mc.CHECKS):
        raw, cal_rate = 100 * np.mean(val[:, j] < nominal), 100 * np.mean(reject[:, j])
        se = 100 * math.sqrt(max(cal_rate / 100 * (1 - cal_rate / 100), 1e-12) / validate)
        print(f"{c:14s}{raw:28.1f}{cal_rate:10.1f} ± {se:.1f}")
    print(f"{'any':14s}{100 * np.mean((val < nominal).any(axis=1)):28.1f}{100 * np.mean(reject.any(axis=1)):10.1f}")


def saved() -> dict:
    return json.loads(mc.CALIBRATION.read_text()) if mc.CALIBRATION.is_file() else {}


def main(calibrate: int = 6000, validate: int = 2000) -> None:
    nominal = mc.LEVEL / len(mc.CHECKS)
    start = time.perf_counter()
    critical = quantiles(draw(list(range(CALIBRATION_SEEDS, CALIBRATION_SEEDS + calibrate))))
    mc.CALIBRATION.write_text(json.dumps({
        "critical_p": critical, "level_per_check": nominal, "sets": calibrate, "seeds_from": CALIBRATION_SEEDS,
        "shape": PAPER, "written_by": "benchmarks/model_checks_size.py", "shapes": saved().get("shapes", [])},
        indent=1) + "\n")
    mc.critical_p.cache_clear()
    print(f"calibration: {calibrate} sets of the model's own family at paper scale "
          f"({time.perf_counter() - start:.0f} s); each check's critical p-value = its {nominal:g} quantile there")
    print("  " + ", ".join(f"{c} {critical[c]:.4g}" for c in mc.CHECKS))
    start = time.perf_counter()
    val = draw(list(range(validate)))
    print(f"\nsize on {validate} other sets (seeds 0-{validate - 1}; {time.perf_counter() - start:.0f} s): "
          f"rejections (%) ± Monte-Carlo s.e., nominal {100 * nominal:g}% per check and at "
          f"most {100 * mc.LEVEL:g}% for any")
    size(val, critical, validate)


def save_shapes(entries: list[dict]) -> None:
    """Write ``entries`` into the calibration's ``shapes``, replacing saved entries of the same shape, keeping the
    others (the ``shapes`` and ``sim`` modes each write their own)."""
    def key(e):
        return (e["problems"], e["models"], e["runs"])
    new = {key(e) for e in entries}
    kept = [e for e in saved().get("shapes", []) if key(e) not in new]
    mc.CALIBRATION.write_text(json.dumps({**saved(), "shapes": kept + entries}, indent=1) + "\n")
    mc.critical_p.cache_clear()


def main_shapes(calibrate: int = 2000, validate: int = 500) -> None:
    """Calibrate the checks at each of ``SHAPES`` as at paper scale (their own critical p-values, saved beside the
    paper scale's under ``shapes``: a dataset takes the nearest shape's, ``model_checks.critical_p``), then print the
    size each reaches on other sets, beside the paper scale's critical values applied there."""
    entries = []
    for shape in SHAPES:
        start = time.perf_counter()
        critical = quantiles(draw(list(range(CALIBRATION_SEEDS, CALIBRATION_SEEDS + calibrate)), shape))
        entries.append({"problems": shape[0], "models": shape[1], "runs": shape[2], "critical_p": critical,
                        "sets": calibrate})
        val = draw(list(range(validate)), shape)
        paper = saved().get("critical_p", {c: mc.LEVEL / len(mc.CHECKS) for c in mc.CHECKS})
        print(f"\n{shape[0]} problems x {shape[1]} models x {shape[2]} runs: calibrated on {calibrate} sets, size on "
              f"{validate} others ({time.perf_counter() - start:.0f} s)")
        print("  with the paper scale's critical values: any check rejects "
              f"{100 * np.mean((val <= np.array([paper[c] for c in mc.CHECKS])).any(axis=1)):.1f}%")
        size(val, critical, validate)
    save_shapes(entries)


def sim_p_values(seed: int, check_seed: int | None = None) -> list[tuple[tuple[int, int, int], list[float]]]:
    """Per dataset of one SIMULATED set drawn from the `sim` set's own generative model with seed ``seed``: its
    shape (``mc.data_shape``) and each check's p-value (``mc.CHECKS`` order), checked as the report checks it (the
    checks' own draws seeded by ``check_seed``, default ``seed``; the pipeline seeds them with the set's seed, the
    same for every set of a parameter file)."""
    from helpers.analyze.frontier_model import ModelFrontier
    from helpers.core.tasks import get_task

    gm = sim_model()
    rng = np.random.default_rng(seed)
    cube, expert = kt.draw_cube(gm, rng, kt.draw_problems(gm, rng, kt.GENERATORS[0]))
    model = ModelFrontier(cube, expert)
    free = frozenset(t for t in cube.tasks if get_task(t).metric in ("number", "math"))
    checks = mc.set_checks(model.k, cube.runs, model.fits, model.rows, cube.tasks,
                           seed if check_seed is None else check_seed, groups=model.groups, free_response=free)
    out = []
    for task, fit, rows in zip(cube.tasks, model.fits, model.rows):
        found = checks[checks["task"] == task].set_index("check")["p_value"]
        out.append((mc.data_shape(cube.runs[rows][:, fit.used]), [float(found[c]) for c in mc.CHECKS]))
    return out


@functools.lru_cache(maxsize=1)
def sim_model() -> kt.GenerativeModel:
    """The `sim` set's own generative model (``params/sim.yaml``), read once per process."""
    from helpers.core.context import prepare
    from helpers.core.params import load_params

    return kt.generative_model(prepare(load_params("params/sim.yaml")))


def sim_draw(seeds: list[int], check_seed: int | None = None) -> dict[tuple[int, int, int], np.ndarray]:
    """Shape -> (datasets, checks) p-values of every dataset of that shape in the sets ``seeds``, on every core."""
    sim_model()  # read before forking: each worker inherits it
    by_shape: dict[tuple[int, int, int], list[list[float]]] = {}
    for one in forked_map(sim_p_values, [(s, check_seed) for s in seeds], os.cpu_count() or 1):
        for shape, p in one:
            by_shape.setdefault(shape, []).append(p)
    return {shape: np.array(p) for shape, p in by_shape.items()}


def main_sim(calibrate: int = 800, validate: int = 200) -> None:
    """Calibrate the checks at the `sim` set's own dataset shapes on ``calibrate`` sets of its own generative model,
    save them beside the other shapes, and print the size each reaches on ``validate`` other sets (beside the
    critical values those datasets took before: the nearest other shape's)."""
    start = time.perf_counter()
    cal = sim_draw(list(range(CALIBRATION_SEEDS, CALIBRATION_SEEDS + calibrate)))
    before = {shape: mc.critical_p(shape) for shape in cal}
    entries = [{"problems": s[0], "models": s[1], "runs": s[2], "critical_p": quantiles(p), "sets": calibrate,
                "datasets": len(p), "source": "params/sim.yaml, its own generative model"} for s, p in cal.items()]
    print(f"calibration: {calibrate} SIMULATED sets of the `sim` set's own model ({time.perf_counter() - start:.0f} s)")
    start = time.perf_counter()
    val = sim_draw(list(range(validate)))
    print(f"size on {validate} other sets (seeds 0-{validate - 1}; {time.perf_counter() - start:.0f} s)")
    any_set = []
    for entry in entries:
        shape = (entry["problems"], entry["models"], entry["runs"])
        v = val[shape]
        old = np.array([before[shape][c] for c in mc.CHECKS])
        print(f"\n{shape[0]} problems x {shape[1]} strategies x {shape[2]} runs: {entry['datasets']} datasets "
              f"calibrate, {len(v)} check the size")
        print(f"  with the nearest other shape's critical values (used before): any check rejects "
              f"{100 * np.mean((v <= old).any(axis=1)):.1f}%")
        size(v, entry["critical_p"], len(v))
        any_set.append((v <= np.array([entry["critical_p"][c] for c in mc.CHECKS])).any(axis=1).reshape(validate, -1))
    print(f"\nsets with at least one dataset rejected: {100 * np.hstack(any_set).any(axis=1).mean():.1f}%")
    save_shapes(entries)


def main_pipeline(validate: int = 200) -> None:
    """The size the report's checks reach on `sim` as the pipeline runs them: ``validate`` SIMULATED sets of the `sim`
    set's own generative model, each checked with the set's seed (``params/sim.yaml``'s, the same for every set, as
    ``intervals`` passes it) and the saved critical values of its shapes; per check and for any check, per dataset and
    per set of six datasets. Writes nothing."""
    seed = sim_model_seed()
    start = time.perf_counter()
    val = sim_draw(list(range(validate)), check_seed=seed)
    print(f"size as the pipeline checks: {validate} SIMULATED sets of the `sim` set's own model, check seed {seed} "
          f"for every set ({time.perf_counter() - start:.0f} s); nominal {100 * mc.LEVEL / len(mc.CHECKS):g}% per "
          f"check, at most {100 * mc.LEVEL:g}% for any")
    per_set = []
    for shape, v in val.items():
        reject = v <= np.array([mc.critical_p(shape)[c] for c in mc.CHECKS])
        print(f"\n{shape[0]} problems x {shape[1]} strategies x {shape[2]} runs: {len(v)} datasets")
        for j, c in enumerate(mc.CHECKS):
            rate = reject[:, j].mean()
            print(f"  {c:14s}{100 * rate:6.1f} ± {100 * math.sqrt(max(rate * (1 - rate), 1e-12) / len(v)):.1f}")
        print(f"  {'any':14s}{100 * reject.any(axis=1).mean():6.1f}")
        per_set.append(reject.reshape(validate, -1, len(mc.CHECKS)))
    every = np.concatenate(per_set, axis=1)  # (sets, datasets, checks)
    print("\nsets with at least one of their datasets rejected, per check: " + ", ".join(
        f"{c} {100 * every[:, :, j].any(axis=1).mean():.1f}%" for j, c in enumerate(mc.CHECKS))
          + f"; any check {100 * every.any(axis=(1, 2)).mean():.1f}%")


def sim_model_seed() -> int:
    """The `sim` set's seed (``params/sim.yaml``): the one its report's checks are seeded with."""
    from helpers.core.params import load_params

    return int(load_params("params/sim.yaml").seed)


if __name__ == "__main__":
    if sys.argv[1:2] == ["pipeline"]:
        main_pipeline(*(int(a) for a in sys.argv[2:3]))
    elif sys.argv[1:2] == ["shapes"]:
        main_shapes(*(int(a) for a in sys.argv[2:4]))
    elif sys.argv[1:2] == ["sim"]:
        main_sim(*(int(a) for a in sys.argv[2:4]))
    else:
        main(*(int(a) for a in sys.argv[1:3]))
