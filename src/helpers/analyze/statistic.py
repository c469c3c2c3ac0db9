"""What a statistic is: its kind (what it measures, in which unit, whether it is a level, and its label) and its item
(which model, technique, release step, family or strategy).

A statistic is a ``Key`` (its ``Kind`` and its item): the specs' dicts and every dict of values are keyed by it. Its
name, ``"<kind>:<item>"`` (``"table1:gpt-4o"``, ``"technique gain:self_refine"``), is written only where a frame or a
CSV is, beside the two columns it is made of (``Key.row``: ``statistic``, ``kind``, ``item``), so a reader selects
rows by their ``kind`` and ``item`` columns and never reads a name back. The one boundary that does is a shown table's
cell text, where only the words remain (``Key.parse``, read by ``publish.names.value``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


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
# the headline's frontier (``policy``): each problem's model routed by a difficulty the models share, not the
# paper's per-problem minimum. Its own Kind with its own name and label: one name, one quantity (issue 61 item 6), in
# memory and in CSVs
POLICY_FRONTIER = Kind("policy frontier", "Frontier of all models (USD)", "USD per problem", True)
POLICY_KINDS: dict[str, Kind] = {**{n: k for n, k in KINDS.items() if k is not FRONTIER},
                                 POLICY_FRONTIER.name: POLICY_FRONTIER}  # the kinds of the headline's rows
FAMILY_LABELS = {name: k.label for name, k in KINDS.items()}  # the validity tables' words for each kind
POLICY_LABELS = {name: k.label for name, k in POLICY_KINDS.items()}  # the headline's: its frontier is another quantity
KEY_COLUMNS = ["statistic", "kind", "item"]  # a statistic's columns in a frame (``Key.row``)


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

    def row(self) -> dict[str, str]:
        """The statistic's columns of a frame's row (``KEY_COLUMNS``): its name, its kind's name and its item."""
        return {"statistic": str(self), "kind": self.kind.name, "item": self.item}

    @classmethod
    def parse(cls, name: str) -> Key:
        """The key of a statistic's ``name`` as a shown table's cell text holds it (the one boundary where only the
        words remain: ``publish.names.value``); a kind this module does not know is kept, with its name as its
        label."""
        kind, _, item = str(name).partition(":")
        return cls(KINDS.get(kind) or POLICY_KINDS.get(kind) or Kind(kind, kind, "", False), item)


def of_kind(frame, kind: Kind):
    """(N,) bool: the rows of ``frame`` (with ``KEY_COLUMNS``) whose statistic is of ``kind``."""
    return frame["kind"] == kind.name


# the frontier of every model: the paper's (Eq. 9), and the headline's (``policy``: cross-fitted, another quantity)
ALL_MODELS = Key(FRONTIER, "all models")
HEADLINE_FRONTIER = Key(POLICY_FRONTIER, ALL_MODELS.item)
