"""The headline statistics of the paper as functions of a frontier: one definition for point estimates,
bootstrap replicates, the model-based estimator, the simulator's truth and the range the records allow.

``F(strategies) -> (B, T)`` is any frontier function (``bootstrap.Replicates.frontier``,
``frontier_model.ModelFrontier.frontier``): V_{p~D}(M ∪ {expert}) in USD per replicate and dataset.
Every statistic is a ``Spec``: a frontier ``Level`` (Table 1, the frontier of all models, Figure 2's curve)
or a ``Gain`` (Table 2, Figures 3-5), so ``evaluate`` computes them from a frontier function and
``evaluate_range`` from per-problem bounds (``unseen.Bounds``: what problems no strategy passed could hide).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Generic, TypeVar

import numpy as np

from helpers.analyze.statistic import (
    ALL_MODELS,
    ESSENTIAL,
    FAMILY,
    RELEASE_FRONTIER,
    RELEASE_GAIN,
    SEED_GAIN,
    STRATEGY,
    STRATEGY_GAIN,
    TABLE1,
    TECHNIQUE_GAIN,
    Key,
)
from helpers.core.models import BASE_FAMILIES, technique_base  # noqa: F401  (M_L: Table 2's base, defined once)
from helpers.grade.estimates import strategy_name

Frontier = Callable[[list[str]], np.ndarray]
K = TypeVar("K", str, int)  # a strategy: its name, or its index in a cube (``policy.crossfit_specs``)


@dataclass(frozen=True)
class Level(Generic[K]):
    """``factor`` · V(strategies), divided by the expert-only frontier V(∅) when ``relative`` (Figure 2's %)."""

    strategies: tuple[K, ...]
    factor: float = 1.0
    relative: bool = False


@dataclass(frozen=True)
class Gain(Generic[K]):
    """The relative gain of adding ``added`` to ``base``: (V(base) − V(base ∪ added)) / V(base), or divided by
    V(base ∪ added) when ``over_after`` (Eq. 12 as printed)."""

    base: tuple[K, ...]
    added: tuple[K, ...]
    over_after: bool = False


Spec = Level | Gain


def technique_specs(base: list[str], methods: list[str], available: set[str] | None = None) -> dict[Key, Spec]:
    """Table 2 (Eq. 13): ``technique gain:<method>`` = G(M_L*, M_L) / V(M_L); a method whose strategies are not
    all ``available`` is left out."""
    out: dict[Key, Spec] = {}
    for method in methods:
        treated = tuple(strategy_name(m, method) for m in base)
        if method == "vanilla" or (available is not None and not set(treated) <= available):
            continue
        out[Key(TECHNIQUE_GAIN, method)] = Gain(tuple(base), treated)
    return out


def strategy_specs(models: list[str], methods: list[str], available: set[str] | None = None,
                   seeds: dict[str, str] | None = None) -> dict[Key, Spec]:
    """Table 2's analogue for agent strategies, per strategy beside its own model (``core.methods.agent``: methods
    recorded by others, run on some models only): ``strategy:<m>+<x>`` = V({m+x}) (USD: the strategy and the
    expert) and ``strategy gain:<m>+<x>`` = G({m+x}, {m}) / V({m}) (0-1: its gain over the model's single attempt);
    and for a strategy whose every attempt starts from another model's (``seeds``: strategy -> that model, one of
    ``models``), ``seed gain:<m>+<x>`` = G({m+x}, {seed}) / V({seed}): its gain over the seed model's own attempt."""
    from helpers.core.methods import get_method

    out: dict[Key, Spec] = {}
    for method in methods:
        if method == "vanilla" or not get_method(method).recorded_by_others:
            continue
        for m in models:
            s = strategy_name(m, method)
            if available is None or s in available:
                out[Key(STRATEGY, s)] = Level((s,))
                out[Key(STRATEGY_GAIN, s)] = Gain((m,), (s,))
                if (seed := (seeds or {}).get(s)) in models:
                    out[Key(SEED_GAIN, s)] = Gain((seed,), (s,))
    return out


def headline_specs(models: list[str], families: dict[str, str], methods: list[str],
                   available: set[str] | None = None) -> dict[Key, Spec]:
    """``table1:<model>`` (one model and the expert, USD), ``frontier:all models`` (USD) and
    ``technique gain:<method>`` (Table 2, 0-1)."""
    out: dict[Key, Spec] = {Key(TABLE1, m): Level((m,)) for m in models}
    out[ALL_MODELS] = Level(tuple(models))
    out.update(technique_specs(technique_base(families, models), methods, available))
    return out


def release_specs(steps: list[list[str]]) -> dict[Key, Spec]:
    """Figures 2 and 4 over release steps (``steps[i]``: the models added at step i): ``release frontier:<i>`` =
    100·V(M_i)/V(∅) (%, Eq. 7 normalised by the expert alone) and ``release gain:<i>`` = G({m_i}, M_{i-1}) /
    V(M_{i-1}) (0-1, Eq. 15)."""
    out: dict[Key, Spec] = {}
    before: tuple[str, ...] = ()
    for i, names in enumerate(steps):
        now = before + tuple(names)
        out[Key(RELEASE_FRONTIER, str(i))] = Level(now, 100.0, relative=True)
        out[Key(RELEASE_GAIN, str(i))] = Gain(before, tuple(names))
        before = now
    return out


def counterfactual_specs(models: list[str], families: dict[str, str], denominator: str = "without_family"
                         ) -> dict[Key, Spec]:
    """Figures 3 and 5, 0-1: ``family:<g>`` = G(M_g, M_T \\ M_g) / V(M_T \\ M_g) (or / V(M_T) with
    ``denominator="all"``, Eq. 12 as printed) and ``essential:<m>`` = G({m}, M_T \\ {m}) / V(M_T \\ {m}) (Eq. 16)."""
    out: dict[Key, Spec] = {}
    for fam in dict.fromkeys(families[m] for m in models):
        out[Key(FAMILY, fam)] = Gain(tuple(m for m in models if families[m] != fam),
                                       tuple(m for m in models if families[m] == fam), denominator != "without_family")
    for m in models:
        out[Key(ESSENTIAL, m)] = Gain(tuple(x for x in models if x != m), (m,))
    return out


def all_specs(models: list[str], families: dict[str, str], methods: list[str], steps: list[list[str]],
              denominator: str = "without_family", available: set[str] | None = None,
              seeds: dict[str, str] | None = None) -> dict[Key, Spec]:
    """Every statistic of Tables 1, 2 (with its per-strategy analogue; ``seeds``: ``strategy_specs``) and Figures
    2-5."""
    return {**headline_specs(models, families, methods, available), **strategy_specs(models, methods, available, seeds),
            **release_specs(steps), **counterfactual_specs(models, families, denominator)}


def evaluate(specs: dict[Key, Spec], F: Frontier) -> dict[Key, np.ndarray]:
    """Each statistic from the frontier function ``F``, (B, T) each (frontiers computed once per strategy set)."""
    seen: dict[tuple[str, ...], np.ndarray] = {}

    def V(strategies: tuple[str, ...]) -> np.ndarray:
        if strategies not in seen:
            seen[strategies] = F(list(strategies))
        return seen[strategies]

    out = {}
    for name, spec in specs.items():
        if isinstance(spec, Level):
            out[name] = spec.factor * V(spec.strategies) / (V(()) if spec.relative else 1.0)
        else:
            before, after = V(spec.base), V(spec.base + spec.added)
            out[name] = (before - after) / (after if spec.over_after else before)
    return out
