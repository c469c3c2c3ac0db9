"""The headline statistics of the paper as functions of a frontier: one definition for point estimates,
bootstrap replicates, the model-based estimator and the simulator's truth.

``F(strategies) -> (B, T)`` is any frontier function (``bootstrap.Replicates.frontier``,
``frontier_model.ModelFrontier.frontier``): V_{p~D}(M ∪ {expert}) in USD per replicate and dataset.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from helpers.grade.estimates import strategy_name

Frontier = Callable[[list[str]], np.ndarray]
BASE_FAMILIES = ("lightweight", "large")


def technique_base(families: dict[str, str], models: list[str]) -> list[str]:
    """M_L: the lightweight and large models, as the paper's Table 2; every model when a set has none."""
    base = [m for m in models if families[m] in BASE_FAMILIES]
    return base or list(models)


def technique_gains(F: Frontier, base: list[str], methods: list[str], available: set[str] | None = None) -> dict[str, np.ndarray]:
    """Table 2 (Eq. 13): G(M_L*, M_L) / V(M_L) per method, (B, T) 0-1; a method whose strategies are not all
    ``available`` is left out."""
    v_base = F(base)
    out = {}
    for method in methods:
        treated = [strategy_name(m, method) for m in base]
        if method == "vanilla" or (available is not None and not set(treated) <= available):
            continue
        out[method] = (v_base - F(base + treated)) / v_base
    return out


def headline(F: Frontier, models: list[str], families: dict[str, str], methods: list[str],
             available: set[str] | None = None) -> dict[str, np.ndarray]:
    """The headline statistics as (B, T) arrays: ``table1:<model>`` (one model and the expert, USD),
    ``frontier:all models`` (USD) and ``technique gain:<method>`` (Table 2, 0-1)."""
    out = {f"table1:{m}": F([m]) for m in models}
    out["frontier:all models"] = F(models)
    gains = technique_gains(F, technique_base(families, models), methods, available)
    out.update({f"technique gain:{m}": v for m, v in gains.items()})
    return out


def release_statistics(F: Frontier, steps: list[list[str]]) -> dict[str, np.ndarray]:
    """Figures 2 and 4 over release steps (``steps[i]``: the models added at step i), (B, T) each:
    ``release frontier:<i>`` = 100·V(M_i)/V(∅) (%, Eq. 7 normalised by the expert alone) and
    ``release gain:<i>`` = G({m_i}, M_{i-1})/V(M_{i-1}) (0-1, Eq. 15)."""
    expert_only = F([])
    out, available, before = {}, [], expert_only
    for i, names in enumerate(steps):
        available = available + list(names)
        now = F(available)
        out[f"release frontier:{i}"] = 100 * now / expert_only
        out[f"release gain:{i}"] = (before - now) / before
        before = now
    return out


def counterfactual_statistics(F: Frontier, models: list[str], families: dict[str, str],
                              denominator: str = "without_family") -> dict[str, np.ndarray]:
    """Figures 3 and 5, (B, T) each, 0-1: ``family:<g>`` = G(M_g, M_T \\ M_g) / V(M_T \\ M_g) (or / V(M_T) with
    ``denominator="all"``, Eq. 12 as printed) and ``essential:<m>`` = G({m}, M_T \\ {m}) / V(M_T \\ {m}) (Eq. 16)."""
    total = F(models)
    out = {}
    for fam in dict.fromkeys(families[m] for m in models):
        rest = F([m for m in models if families[m] != fam])
        out[f"family:{fam}"] = (rest - total) / (rest if denominator == "without_family" else total)
    for m in models:
        rest = F([x for x in models if x != m])
        out[f"essential:{m}"] = (rest - total) / rest
    return out
