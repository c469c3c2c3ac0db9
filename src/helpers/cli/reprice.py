"""``cost-of-pass reprice params/<set>.yaml --as-of YYYY-MM-DD``: every table and figure of a set at another date's
prices, from its records, without a call.

The repriced set is the set with ``prices: {as_of: DATE}`` (the dated ledger, ``core.ledger``) in place of its
snapshot, named ``<set>_as_of_<DATE>``, written to ``results/<set>_as_of_<DATE>/`` beside the set's own results,
and reading the set's records where they are (``records_dir``; nothing is copied or collected). Accuracy does
not depend on prices, so only cost columns change. A model without a price by that date fails before anything
runs, naming the dates it has prices for.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import yaml

from helpers.core.params import Params, load_params
from helpers.core.settings import RunSettings
from helpers.core.yamlfiles import read_yaml


def repriced(params_path: str | Path, as_of: dt.date, settings: RunSettings | None = None) -> tuple[Path, Params]:
    """Write the repriced set's parameters (``results/<set>_as_of_<date>/params.yaml``) and return them validated
    (``settings``: the command's, ``core.settings``)."""
    from helpers.core.errors import CostOfPassError
    from helpers.core.ledger import prices_as_of

    original = load_params(params_path, settings)
    if original.billed:  # its records hold USD as billed, no tokens: another date's prices have nothing to apply to
        raise CostOfPassError(f"{params_path}: cannot reprice: its records carry the USD each run was billed "
                              f"({original.import_from.format if original.import_from else 'billed'}), "
                              "not token counts")
    from helpers.core.params import check_confined

    check_confined(original)  # the repriced copy is written beside it
    if as_of > dt.date.today():  # the ledger holds no price of a day to come: today's would be labelled with it
        raise CostOfPassError(f"{params_path}: --as-of {as_of} is after today ({dt.date.today()}): prices of a future "
                              "day are not known")
    if not any(original.records_path.glob("*/*.jsonl")):  # nothing is written for a set that has no records
        raise CostOfPassError(f"no records of {original.name} under {original.records_path}: run the set first")
    try:
        prices_as_of(original.priced_models, as_of)  # before anything is written
    except CostOfPassError as err:
        raise CostOfPassError(f"{params_path}: --as-of {as_of}: {err}") from None
    data = dict(read_yaml(Path(params_path), "parameter set"))
    name = f"{original.name}_as_of_{as_of.isoformat()}"
    out = original.output_path.parent / name
    data.update(name=name, output_dir=str(out), records_dir=str(original.records_path),
                prices={"as_of": as_of.isoformat()},
                description=f"{original.description or original.name} Repriced as of "
                f"{as_of.isoformat()} (dated price ledger).")
    data.pop("price_snapshot", None)
    _freeze_share(original, data)
    if original.data_dir:
        data["data_dir"] = str(original.data_path)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "params.yaml"
    path.write_text(f"# Written by `cost-of-pass reprice {params_path} --as-of {as_of}`.\n"
                    + yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path, load_params(path, settings)


def _freeze_share(original: Params, data: dict) -> None:
    """A set sized by ``budget.target_usd`` keeps, repriced, the Table-1 share its records were collected on (sized at
    its own prices, ``grade.forecast.sized_share``), written out in ``data``, not one sized again at other prices."""
    if original.budget is None:
        return
    from helpers.core.context import prepare
    from helpers.grade.forecast import sized_share

    data["racing"] = {**data.get("racing", {}), "table1_share": sized_share(prepare(original))}
    data.pop("budget")
    data.setdefault("budget_usd", original.budget_usd)
