"""The dated price ledger: every price snapshot under ``params/prices/`` read as one history per model.

Each snapshot file has a date and a source; each of its prices is a ledger entry: the model, the date the price
took effect, the price (USD per 1M tokens) and where it comes from. ``prices_as_of`` resolves a set's models at a
date to the latest entry dated on or before it, as one ``PriceSnapshot`` a set can use instead of a named
snapshot (``prices: {as_of: YYYY-MM-DD}``). A model without a price by that date fails before anything runs,
naming the dates it has prices for. Two snapshots that give one model different prices on the same date are
an error, never resolved silently.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from helpers.core.errors import CostOfPassError
from helpers.core.paths import repo_root
from helpers.core.prices import ModelPrice, PriceSnapshot, load_snapshot


@dataclass(frozen=True)
class Entry:
    """One price of one model: in effect from ``date`` (until the model's next entry)."""

    model: str
    date: dt.date
    price: ModelPrice
    snapshot: str  # the file stem under params/prices/
    source: str


def default_folder() -> Path:
    return repo_root() / "params" / "prices"


def ledger_files(folder: Path | None = None) -> list[Path]:
    """The snapshot files the ledger reads, sorted."""
    folder = folder or default_folder()
    return sorted(folder.glob("*.yaml")) if folder.is_dir() else []


def files_pricing(models, folder: Path | None = None) -> list[Path]:
    """The ledger's files that price at least one of ``models`` (names), sorted: what a set's new-models / prices
    split reads, and what its stage keys depend on."""
    names = set(models)
    return [f for f in ledger_files(folder) if names & set(load_snapshot(f).prices)]


@lru_cache(maxsize=4)
def _entries(files: tuple[tuple[Path, float], ...]) -> tuple[Entry, ...]:
    out: list[Entry] = []
    for path, _ in files:
        snap = load_snapshot(path)
        out.extend(Entry(m, snap.date, q, snap.name, snap.source) for m, q in snap.prices.items())
    return tuple(sorted(out, key=lambda e: (e.model, e.date, e.snapshot)))


def entries(folder: Path | None = None) -> tuple[Entry, ...]:
    """Every entry of the ledger, by model then date (cached per version of the files)."""
    return _entries(tuple((p, p.stat().st_mtime) for p in ledger_files(folder)))


def snapshot_entries(snapshot: PriceSnapshot) -> tuple[Entry, ...]:
    """A snapshot's prices as ledger entries (a set's own snapshot kept outside ``params/prices/``)."""
    return tuple(Entry(m, snapshot.date, q, snapshot.name, snapshot.source) for m, q in snapshot.prices.items())


def history(model: str, folder: Path | None = None, extra: tuple[Entry, ...] = ()) -> list[Entry]:
    """One model's entries in date order (the ledger's, and ``extra``'s not already in it)."""
    own = [e for e in entries(folder) if e.model == model]
    known = {(e.snapshot, e.date) for e in own}
    more = [e for e in extra if e.model == model and (e.snapshot, e.date) not in known]
    return sorted([*own, *more], key=lambda e: (e.date, e.snapshot))


def _same(a: ModelPrice, b: ModelPrice) -> bool:
    return a.billed_as() == b.billed_as()


def price_on(model: str, as_of: dt.date, folder: Path | None = None, first_if_later: bool = False,
             extra: tuple[Entry, ...] = ()) -> Entry:
    """The entry in effect for ``model`` on ``as_of``; with ``first_if_later``, a model with no price yet on that date
    takes its first one (a model released later, priced as it launched). One line naming the dates otherwise."""
    past = [e for e in history(model, folder, extra) if e.date <= as_of]
    if not past:
        later = history(model, folder, extra)
        if first_if_later and later:
            past = [e for e in later if e.date == later[0].date]
        else:
            dates = ", ".join(f"{e.date} ({e.snapshot})" for e in later)
            raise CostOfPassError(f"no price for model '{model}' as of {as_of}: " + (
                f"its prices in the ledger take effect {dates}" if later else
                f"it has no price in any snapshot of {folder or default_folder()}"))
    latest = [e for e in past if e.date == past[-1].date]
    if any(not _same(e.price, latest[0].price) for e in latest[1:]):
        raise CostOfPassError(f"model '{model}': snapshots {', '.join(e.snapshot for e in latest)} give different "
                              f"prices on {latest[0].date}; the ledger cannot tell which took effect")
    return latest[0]


def prices_as_of(models: list[str], as_of: dt.date, folder: Path | None = None,
                 first_if_later: bool = False, extra: tuple[Entry, ...] = ()) -> PriceSnapshot:
    """The set's models priced as of a date, as one snapshot (named ``as_of_<date>``; each price's derivation names
    its snapshot and date). Every missing model fails first, in one line."""
    found, errors = {}, []
    for m in models:
        try:
            found[m] = price_on(m, as_of, folder, first_if_later, extra)
        except CostOfPassError as err:
            errors.append(str(err))
    if errors:
        raise CostOfPassError("; ".join(errors))
    sources = sorted({f"{e.snapshot} ({e.date}): {e.source}" for e in found.values()})
    prices = {m: e.price.model_copy(update={"derivation": f"{e.snapshot}, in effect from {e.date}"})
              for m, e in found.items()}
    return PriceSnapshot(name=f"as_of_{as_of}", date=as_of, source="price ledger: " + "; ".join(sources),
                         notes="Resolved from the dated price ledger (helpers.core.ledger).", prices=prices)
