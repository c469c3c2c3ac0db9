"""The SWE-bench "bash-only" leaderboard (SWE-bench/swe-bench.github.io ``data/leaderboards.json``, CC BY-NC 4.0):
every model run once on SWE-bench Verified's 500 instances with the same minimal agent (mini-SWE-agent).

The file (JSON, plain or gzip) holds ``leaderboards[]``; the one named ``bash-only`` has ``results[]``, one entry per
model with ``name``, ``resolved`` (% as published) and, for most, ``per_instance_details``: ``{instance_id: {resolved,
cost, api_calls}}`` — the verdict of SWE-bench's harness, the USD the run was billed and its API calls. Each becomes
one attempt (run 0) of the registry model whose ``imported.name`` is the entry's name, with ``billed_usd`` and
``billed_calls`` and no tokens (``CallRecord``; the set cannot be repriced). An entry whose per-instance count of
resolved instances disagrees with its published rate by more than rounding is named and left out, unless the set
lists it in ``import_from.accept_mismatch`` (then it is used everywhere) or its model in ``table1_only`` (then it is
shown in Table 1 alone); an entry without per-instance details is named as not usable. A malformed
file or value is one line naming the file, the entry and the instance.
"""

from __future__ import annotations

import gzip
import json
import math
from pathlib import Path
from typing import Any, Iterator

from helpers.collect.imports.common import Dropped, Imported, import_spec, source_error
from helpers.core.errors import CostOfPassError
from helpers.core.models import ModelSpec
from helpers.core.params import Params

TASK = "swebench_verified"
BOARD = "bash-only"
SOURCE = "SWE-bench bash-only leaderboard (SWE-bench/swe-bench.github.io data/leaderboards.json, CC BY-NC 4.0)"
TOKENS = "none: the source gives the USD each run was billed and its API calls"
MAX_BYTES = 64 << 20  # the board is ~1.6 MB decompressed: more is not the leaderboard's file (a decompression bomb)


def entries(path: Path) -> list[dict[str, Any]]:
    """The bash-only board's entries, read with bounded memory; one line naming the file on anything else."""
    opener = gzip.open if path.name.endswith(".gz") else open
    try:
        with opener(path, "rb") as fh:
            data = fh.read(MAX_BYTES + 1)
        if len(data) > MAX_BYTES:
            raise source_error(path, "-", f"more than {MAX_BYTES >> 20} MiB decompressed "
                               "(refused: not the leaderboard)")
        board = json.loads(data)
    except (OSError, EOFError, ValueError) as err:
        raise source_error(path, "-", f"not a readable JSON leaderboard ({type(err).__name__}: {err})") from None
    boards = board.get("leaderboards") if isinstance(board, dict) else None
    found = [b for b in boards or [] if isinstance(b, dict) and b.get("name") == BOARD]
    if not found or not isinstance(found[0].get("results"), list):
        raise source_error(path, "-", f"no leaderboard named {BOARD!r} with a list of results")
    return found[0]["results"]


def instance(path: Path, where: str, iid: Any, detail: Any, known: set[str]) -> tuple[bool, float, int]:
    """(resolved, USD billed, API calls) of one per-instance detail; one line naming it when malformed."""
    if iid not in known:
        raise source_error(path, where, f"instance {str(iid)[:80]!r} is not a SWE-bench Verified instance of the set")
    if not isinstance(detail, dict) or not isinstance(detail.get("resolved"), bool):
        raise source_error(path, where, f"instance {iid}: expected {{resolved: true|false, cost, api_calls}}")
    cost, calls = detail.get("cost"), detail.get("api_calls")
    if isinstance(cost, bool) or not isinstance(cost, (int, float)) or not math.isfinite(cost) or not 0 <= cost < 1e4:
        raise source_error(path, where, f"instance {iid}: cost {cost!r} is not a USD amount in [0, 10000)")
    if isinstance(calls, bool) or not isinstance(calls, int) or not 0 <= calls <= 10**6:
        raise source_error(path, where, f"instance {iid}: api_calls {calls!r} is not a whole number of calls")
    return detail["resolved"], float(cost), calls


TOLERANCE = 1.0  # instances: a published rate may count over an instance fewer (Claude 4 Sonnet: 64.93% = 324 of 499)


def mismatch(entry: dict[str, Any], resolved: int, n: int) -> str | None:
    """Why an entry's per-instance count disagrees with its published rate (None when they agree within
    ``TOLERANCE`` instances)."""
    rate = entry.get("resolved")
    if isinstance(rate, bool) or not isinstance(rate, (int, float)):
        return f"publishes no resolved rate ({rate!r})"
    expected = rate * n / 100
    if abs(resolved - expected) <= TOLERANCE:
        return None
    return (f"its per-instance details mark {resolved} of {n} instances resolved while the board publishes {rate:g}% "
            f"({round(expected)})")


def other_denominator(entry: dict[str, Any], resolved: int, n: int) -> int | None:
    """The number of instances, a few below ``n``, over which an entry's published rate (two decimals) counts its
    ``resolved`` instances, where it does not over the ``n`` its details give (Claude 4 Sonnet: 324 of 499 = 64.93%,
    not 64.8% of 500); None where the rate is ``resolved`` of ``n``, or no such count fits."""
    rate = entry.get("resolved")
    if isinstance(rate, bool) or not isinstance(rate, (int, float)) or abs(100 * resolved / n - rate) < 0.006:
        return None
    return next((d for d in range(n - 1, n - 6, -1) if d > 0 and abs(100 * resolved / d - rate) < 0.006), None)


def checked(path: Path, entry: Any, i: int, known: set[str]) -> tuple[str, dict[str, tuple[bool, float, int]] | None]:
    """An entry's name and its validated per-instance results (None: the entry has none)."""
    if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
        raise source_error(path, f"entry {i}", "expected an object with a 'name'")
    details = entry.get("per_instance_details")
    if not details:
        return entry["name"], None
    if not isinstance(details, dict):
        raise source_error(path, f"entry {i} ({entry['name']!r})", "per_instance_details is not an object")
    where = f"entry {i} ({entry['name']!r})"
    return entry["name"], {iid: instance(path, where, iid, d, known) for iid, d in details.items()}


def caveats(params: Params, models: list[ModelSpec]) -> list[str]:
    """What the report's first screen must say about the board: each entry whose count disagrees with its published
    rate (and whether it is in the set), and the entries without per-instance details (not usable)."""
    from helpers.core.tasks import get_task

    spec, path = import_spec(params)
    known = {p.problem_id for p in get_task(TASK).load(params.data_path, params.task_options.get(TASK, {}))}
    out, bare, fewer = [], [], []
    for i, entry in enumerate(entries(path)):
        name, results = checked(path, entry, i, known)
        if results is None:
            bare.append(name)
        elif why := mismatch(entry, resolved := sum(r[0] for r in results.values()), len(results)):
            out.append(f"Leaderboard entry {name}: {why}; {mismatch_fate(params, models, name)}.")
        elif d := other_denominator(entry, resolved, len(results)):
            fewer.append(f"{name} ({entry['resolved']:g}% = {resolved} of {d}, here {resolved} of {len(results)}, "
                         f"{100 * resolved / len(results):.1f}%)")
    if fewer:
        out.append(f"The board's rate counts over fewer instances than its details give for {len(fewer)} "
                   f"entr{'y' if len(fewer) == 1 else 'ies'}: {'; '.join(fewer)}; every "
                   "number here counts all of them.")
    if bare:
        out.append(f"Not usable: {len(bare)} leaderboard entries give totals only, no per-instance results "
                   f"({', '.join(bare)}).")
    return out


def mismatch_fate(params: Params, models: list[ModelSpec], name: str) -> str:
    """What the set does with the entry ``name`` whose count disagrees with its published rate."""
    model = next((m.name for m in models if m.imported and m.imported.name == name), None)
    if name in import_spec(params)[0].accept_mismatch:
        return "imported anyway (the set accepts the disagreement), so every number here carries it"
    if model in params.table1_only:
        return ("shown in Table 1 alone, marked there as contradicted by its records, and left out of every other "
                "number")
    return "left out of every number here"


def read(params: Params, path: Path, models: dict[str, ModelSpec]) -> Iterator[Imported | Dropped]:
    from helpers.core.tasks import get_task

    if TASK not in params.tasks:
        raise source_error(path, "-", "the leaderboard's instances are SWE-bench Verified's: "
                           f"add '{TASK}' to the set's tasks")
    if not params.billed:
        raise CostOfPassError(f"{params.source}: field 'import_from.format': swebench_bash_only records are billed USD")
    known = {p.problem_id for p in get_task(TASK).load(params.data_path, params.task_options.get(TASK, {}))}
    for i, entry in enumerate(entries(path)):
        name, results = checked(path, entry, i, known)
        if name not in models:
            continue  # another model of the board: not in this set
        if results is None:
            yield Dropped(f"{path}: entry {i} ({name!r}): no per-instance results, only totals: not usable")
            continue
        why = mismatch(entry, sum(r[0] for r in results.values()), len(results))
        if why and name not in import_spec(params)[0].accept_mismatch and models[name].name not in params.table1_only:
            yield Dropped(f"{path}: entry {i} ({name!r}): {why}: left out (table1_only shows it in Table 1 alone; "
                          "import_from.accept_mismatch uses it everywhere)")
            continue
        for iid, (resolved, usd, calls) in results.items():
            yield Imported(TASK, iid, models[name].name, 0, "", 0, 0, TOKENS, SOURCE, source_correct=resolved,
                           row=f"entry {i} instance {iid}", billed_usd=usd, billed_calls=calls)
