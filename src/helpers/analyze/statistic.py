"""What a statistic is: its kind (what it measures, in which unit, whether it is a level, and its label) and its item
(which model, technique, release step, family or strategy).

A statistic's name, ``"<kind>:<item>"`` (``"table1:gpt-4o"``, ``"technique gain:self_refine"``), is how it is written
in the records of ``intervals``, the CSVs and the specs' keys; this module is the one place that reads a name back
into its parts (``Key.parse``, ``kinds``, ``items``) and the one that knows each kind (``KINDS``). Nothing else splits
a name at its colon.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class Kind:
    """A kind of statistic: ``name`` (the part of a statistic's name before its colon), ``label`` (the validity
    tables' words, with the unit), ``unit`` and ``level`` (a cost or a share, never below 0; else a difference: a
    gain may be negative)."""

    name: str
    label: str
    unit: str
    level: bool
    short: str = ""  # the label's first words, where a table or figure has room for no more

    def __post_init__(self) -> None:
        if not self.short:
            object.__setattr__(self, "short", self.label.split(" (")[0].split(":")[0])


TABLE1 = Kind("table1", "Table 1: one model and the expert (USD)", "USD per problem", True)
FRONTIER = Kind("frontier", "The paper's frontier (USD)", "USD per problem", True)
TECHNIQUE_GAIN = Kind("technique gain", "Technique gains of Table 2 (0-1)", "0-1", False)
RELEASE_FRONTIER = Kind("release frontier",
                        "Figure 2: frontier over releases (% of expert-only)", "% of the expert alone",
                        True)
RELEASE_GAIN = Kind("release gain", "Figure 4: gain of each release (0-1)", "0-1", False)
FAMILY = Kind("family", "Figure 3: families (0-1)", "0-1", False)
ESSENTIAL = Kind("essential", "Figure 5: single models (0-1)", "0-1", False)
STRATEGY = Kind("strategy", "An agent strategy with the expert (USD)", "USD per problem", True)
STRATEGY_GAIN = Kind("strategy gain", "Gain of an agent strategy over its model's single attempt (0-1)", "0-1", False)
SEED_GAIN = Kind("seed gain", "Gain of a seeded agent strategy over its seed model's single attempt (0-1)", "0-1",
                 False)
ACCURACY = Kind("accuracy", "Table 5: accuracy of each model (0-1)", "0-1", True)
COST_PER_ATTEMPT = Kind("cost per attempt", "Table 6: USD per attempt of each model", "USD per attempt", True)
KINDS: dict[str, Kind] = {k.name: k for k in (TABLE1, FRONTIER, TECHNIQUE_GAIN, RELEASE_FRONTIER, RELEASE_GAIN, FAMILY,
                                              ESSENTIAL, STRATEGY, STRATEGY_GAIN, SEED_GAIN,
                                              ACCURACY, COST_PER_ATTEMPT)}
# the headline's frontier (``policy``): one model per dataset, chosen on the other problems, not the paper's per-problem
# minimum; the same kind of name ("frontier:all models"), its own label: one name per quantity
POLICY_FRONTIER = Kind("frontier", "Frontier of all models (USD)", "USD per problem", True)
FAMILY_LABELS = {name: k.label for name, k in KINDS.items()}  # the validity tables' words for each kind
POLICY_LABELS = {**FAMILY_LABELS, "frontier": POLICY_FRONTIER.label}  # the headline's: its frontier is another quantity


def possible_range(kind: Kind, expert_alone: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(lowest, highest), (T,) each: the values the paper's estimand of ``kind`` (each problem's cheapest of its
    options and the expert, Eq. 9) can take on datasets whose expert alone costs ``expert_alone`` (T,) USD per problem:
    a cost with the expert lies in [0, the expert alone] (each problem costs at most its fee; not so the headline's
    "up to k tries, then the expert", whose tries are paid before the expert), a share of the expert alone in
    [0, 100] %, a share in [0, 1], a gain at most 1 (its option costing nothing), a cost per attempt at least 0; an
    unknown kind: anything. An interval clipped to them loses no truth."""
    fee = np.asarray(expert_alone, float)
    inf = np.full_like(fee, np.inf)
    low, high = {"USD per problem": (0 * fee, fee), "% of the expert alone": (0 * fee, 0 * fee + 100),
                 "USD per attempt": (0 * fee, inf)}.get(kind.unit, (-inf, inf))
    if kind.unit == "0-1":
        low, high = (0 * fee if kind.level else -inf), 0 * fee + 1
    return low, high


def short_label(label: str) -> str:
    """A kind's short name from its label (``Kind.short``); a label no kind has: its words before " (" or ":"."""
    known = {k.label: k.short for k in (*KINDS.values(), POLICY_FRONTIER)}
    return known.get(label) or label.split(" (")[0].split(":")[0]


@dataclass(frozen=True)
class Key:
    """One statistic: its kind and its item; ``str(key)`` is its name."""

    kind: Kind
    item: str

    def __str__(self) -> str:
        return f"{self.kind.name}:{self.item}"

    @classmethod
    def parse(cls, name: str) -> Key:
        """The key of a statistic's ``name``; a kind this module does not know is kept, with its name as its label."""
        kind, _, item = str(name).partition(":")
        return cls(KINDS.get(kind) or Kind(kind, kind, "", False), item)


def kind_of(name: str) -> str:
    """The kind's name of a statistic's ``name`` (``"table1"`` of ``"table1:gpt-4o"``)."""
    return Key.parse(name).kind.name


def item_of(name: str) -> str:
    """The item of a statistic's ``name`` (``"gpt-4o"`` of ``"table1:gpt-4o"``)."""
    return Key.parse(name).item


def kinds(names: pd.Series) -> pd.Series:
    """``kind_of`` of every name in ``names`` (same index; strings)."""
    return pd.Series([kind_of(n) for n in names], index=names.index, dtype=object)


def items(names: pd.Series) -> pd.Series:
    """``item_of`` of every name in ``names`` (same index; strings)."""
    return pd.Series([item_of(n) for n in names], index=names.index, dtype=object)


def named(kind: Kind, item: str) -> str:
    """A statistic's name from its kind and item (``str(Key(kind, item))``)."""
    return str(Key(kind, item))


# the frontier of every model: the paper's (Eq. 9); cross-fitted, the headline's
ALL_MODELS = named(FRONTIER, "all models")
