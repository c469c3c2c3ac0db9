"""The call record's schema: its fields, typed and documented, its version, and a migration from every older version.

A record is one JSON object per line of a shard (``records.RecordStore``), its keys sorted. Every record this code
writes says its ``schema_version`` (``SCHEMA_VERSION``); the project wrote records without one before, in five shapes,
each told apart by the fields it has (``version_of``):

====  ==========  ============================================================================================
 v    commit      change
====  ==========  ============================================================================================
 0    80db9f7     the first record: call key, litellm model, prompt hash, status, response, tokens, latency, tries,
                  error, sampling, simulated, created_at (written with ``ensure_ascii=False``; every later version
                  escapes non-ASCII)
 1    859a451     ``fingerprint`` (of what determined the response) and ``unusable`` (a reply that cannot be used);
                  v0's "provider reported no token usage" failures are such replies
 2    e4d1695     imported records: ``source``, ``source_correct``, ``token_counts``
 3    7f1619c     ``agent_calls``: an imported agent attempt's calls
 4    90aa48c     ``billed_usd`` and ``billed_calls``: an attempt billed in USD by its source
 5    fc3a493     ``schema_version`` written; statuses, field types and agent calls checked on load
 6    (this)      prices as billed: the token buckets ``cache_read_tokens``, ``cache_write_tokens`` (``prompt_tokens``
                  is the prompt without them), the ``service_tier``, and ``source_usd`` (the USD the source itself
                  computed, compared with ours, never used as the cost); older records have empty buckets
====  ==========  ============================================================================================

On load (``upgrade``) a record is migrated one version at a time (``MIGRATIONS[v]`` takes v to v + 1) and then checked
against the newest schema: a record of a newer version than this code knows, a field of the wrong type, an unknown
field or an unknown status raises ``SchemaError`` with one line saying which (the store names the file and line).
Records are hostile input (importers write what others recorded): nothing unchecked reaches the analysis.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, Literal, get_args

SCHEMA_VERSION = 6
CALL = ("task", "problem_id", "model", "method", "run", "call")
KEY = (*CALL, "fingerprint")  # a record is reused only when the fingerprint matches too
Status = Literal["ok", "error"]
STATUSES: tuple[str, ...] = get_args(Status)


class SchemaError(ValueError):
    """A record that does not fit the schema (one line; the reader adds the file and line)."""


@dataclass(frozen=True)
class AgentCall:
    """One API call an imported agent attempt made (``CallRecord.agent_calls``), as its source recorded it."""

    model: str
    """The registry name of the model that answered: its price bills this call."""
    source_model: str
    """The model's name in the source (``import_from.model_names`` maps it to ``model``)."""
    prompt_tokens: int
    """Prompt tokens of the call (tokens, as the source counted them)."""
    completion_tokens: int
    """Completion tokens of the call (tokens, as the source counted them)."""
    latency_s: float
    """The call's latency as the source recorded it (seconds)."""
    time: str
    """When the source made the call (its own timestamp text; '' when it gave none)."""
    temperature: float | None
    """The sampling temperature of the call; None when the source did not record it."""

    def as_dict(self) -> dict[str, Any]:
        """The call as the record's JSON holds it."""
        return {f: getattr(self, f) for f in AGENT_CALL_FIELDS}

    @classmethod
    def from_dict(cls, data: Any) -> AgentCall:
        """A call from its JSON object, checked (``SchemaError`` saying what is wrong)."""
        return cls(**check_agent_call(data))


@dataclass
class CallRecord:
    """One call. Token counts are the provider's (``completion_tokens`` includes reasoning tokens) unless
    ``token_counts`` says otherwise; every USD is derived from tokens and prices later, except ``billed_usd``."""

    task: str
    """The task's name (``core.tasks``)."""
    problem_id: str
    """The problem's id within the task."""
    model: str
    """The model's registry name (``params/registry/models.yaml``)."""
    method: str
    """The inference method (``core.methods``): ``vanilla``, a technique, or an agent strategy."""
    run: int
    """The attempt's run index, from 0."""
    call: int
    """The call's index within its attempt, from 0 (a refinement makes several)."""
    litellm_model: str
    """The model id the call was sent to (litellm's), or the importing set's for imported records."""
    prompt_hash: str
    """A hash of the messages sent ('' for imported records)."""
    status: Status
    """``ok``: the call returned a usable reply; ``error``: it failed, or its reply was unusable."""
    fingerprint: str = ""
    """A hash of everything that determined the response; a record is reused only when it matches ('' before v1:
    never reused)."""
    response: str | None = None
    """The reply's text (redacted); None when there was none."""
    finish_reason: str | None = None
    """The provider's finish reason (``stop``, ``length``, …); None when there was no reply."""
    prompt_tokens: int = 0
    """Prompt tokens billed at the input rate (tokens; the provider's unless ``token_counts`` says otherwise): the
    whole prompt, but for the cache reads and writes counted apart below."""
    cache_read_tokens: int = 0
    """Prompt tokens read from the provider's cache, billed at the cached-input rate (tokens; 0 before v6)."""
    cache_write_tokens: int = 0
    """Prompt tokens written to the provider's cache, billed at the cache-write rate (tokens; 0 before v6)."""
    completion_tokens: int = 0
    """Completion tokens, reasoning tokens included (tokens)."""
    reasoning_tokens: int = 0
    """Of ``completion_tokens``, the reasoning tokens the provider reported (tokens)."""
    latency_s: float = 0.0
    """Wall time of the call, retries included (seconds); an agent attempt's: its calls' latencies summed."""
    tries: int = 1
    """Attempts at the call, the successful one included (retries after 429, 5xx, timeouts)."""
    error: str | None = None
    """Why the call failed (redacted); None when it did not."""
    unusable: bool = False
    """The provider replied (and may have billed) but the reply cannot be used: a recorded failure."""
    sampling: dict[str, Any] = field(default_factory=dict)
    """The sampling arguments sent (temperature, top_p, max_tokens, …)."""
    simulated: bool = False
    """Whether a simulated model answered (no provider was called)."""
    created_at: str = ""
    """When the record was written (UTC, ISO 8601 to the second; '' for imported records)."""
    source: str | None = None
    """Imported records (``collect.imports``): where the response comes from (publication, file, commit, licence);
    None for calls made here."""
    source_correct: bool | None = None
    """Imported records: the source's own correctness label, kept beside our grade; None when it gave none."""
    token_counts: str = "provider"
    """``provider`` (the API's usage), or how an importer counted or estimated the tokens."""
    agent_calls: tuple[AgentCall, ...] | None = None
    """An imported agent attempt (``core.methods.agent``): every call it made, in order; the tokens and latency above
    are their sums. None for every other record."""
    billed_usd: float | None = None
    """An imported attempt whose source gives the USD it was billed, not tokens (``ImportedModel.billed_usd``): that
    USD is its cost at every price (it cannot be repriced); None for every other record (USD)."""
    billed_calls: int | None = None
    """The API calls of such an attempt, as its source gives them; None for every other record."""
    service_tier: str | None = None
    """The provider's service tier the call was billed in (``batch`` takes the snapshot's ``batch_discount``); None:
    the standard tier."""
    source_usd: float | None = None
    """Imported records whose source computed a cost (Inspect's ``total_cost``): that USD, compared with the cost
    computed here from the tokens (the report prints the agreement), never used as the cost; None otherwise."""
    schema_version: int = SCHEMA_VERSION
    """The version of this schema the record was written in (``SCHEMA_VERSION``; older records are migrated on
    load)."""

    @property
    def key(self) -> tuple:
        return tuple(getattr(self, k) for k in KEY)

    def as_dict(self) -> dict[str, Any]:
        """The fields by name, as JSON holds them (``dataclasses.asdict`` without its deep copy: the fields are plain
        values, agent calls as objects)."""
        out = {k: getattr(self, k) for k in FIELDS}
        if self.agent_calls is not None:
            out["agent_calls"] = [c.as_dict() for c in self.agent_calls]
        return out

    @classmethod
    def from_dict(cls, data: Any) -> CallRecord:
        """A record from a JSON object of any version, migrated and checked (``upgrade``)."""
        record = upgrade(data)
        calls = record["agent_calls"]
        return cls(**{**record, "agent_calls": None if calls is None else tuple(AgentCall(**c) for c in calls)})


FIELDS: tuple[str, ...] = tuple(f.name for f in fields(CallRecord))
AGENT_CALL_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(AgentCall))
REQUIRED = ("task", "problem_id", "model", "method", "run", "call", "litellm_model", "prompt_hash", "status")
assert REQUIRED == tuple(f.name for f in fields(CallRecord) if f.default is MISSING and f.default_factory is MISSING)

# ---- versions and migrations -----------------------------------------------------------------------------------------
# the fields each version added (``version_of`` reads an unversioned record's version from them)
ADDED: dict[int, tuple[str, ...]] = {
    1: ("fingerprint", "unusable"),
    2: ("source", "source_correct", "token_counts"),
    3: ("agent_calls",),
    4: ("billed_usd", "billed_calls"),
    # 5 added ``schema_version`` only, and 6 writes it: an unversioned record is v4 at most
}
_NEWEST_FIRST = tuple(sorted(ADDED, reverse=True))
NO_USAGE = "provider reported no token usage"  # v0's failure of a reply without token counts


def _v0_to_v1(r: dict[str, Any]) -> dict[str, Any]:
    """Fingerprints and unusable replies: a v0 record has no fingerprint ('': never reused) and v0's replies without
    token counts, failed as "provider reported no token usage", are what v1 calls unusable."""
    r.setdefault("fingerprint", "")
    r.setdefault("unusable", r.get("status") == "error" and r.get("error") == NO_USAGE)
    return r


def _v1_to_v2(r: dict[str, Any]) -> dict[str, Any]:
    """Imported records: a record before them was a call made here, with the provider's token counts."""
    r.setdefault("source", None)
    r.setdefault("source_correct", None)
    r.setdefault("token_counts", "provider")
    return r


def _v2_to_v3(r: dict[str, Any]) -> dict[str, Any]:
    """Agent attempts: none before."""
    r.setdefault("agent_calls", None)
    return r


def _v3_to_v4(r: dict[str, Any]) -> dict[str, Any]:
    """Billed attempts: none before (every record priced from its tokens)."""
    r.setdefault("billed_usd", None)
    r.setdefault("billed_calls", None)
    return r


def _v4_to_v5(r: dict[str, Any]) -> dict[str, Any]:
    """The version written into the record; nothing else changed shape."""
    r["schema_version"] = 5
    return r


def _v5_to_v6(r: dict[str, Any]) -> dict[str, Any]:
    """Prices as billed: a record before them has no cache buckets (its ``prompt_tokens`` is its whole prompt), the
    standard tier and no cost of its source's."""
    r.setdefault("cache_read_tokens", 0)
    r.setdefault("cache_write_tokens", 0)
    r.setdefault("service_tier", None)
    r.setdefault("source_usd", None)
    r["schema_version"] = 6
    return r


MIGRATIONS: tuple[Callable[[dict[str, Any]], dict[str, Any]], ...] = (
    _v0_to_v1, _v1_to_v2, _v2_to_v3, _v3_to_v4, _v4_to_v5, _v5_to_v6)
assert len(MIGRATIONS) == SCHEMA_VERSION  # one migration per older version


def version_of(raw: dict[str, Any]) -> int:
    """The record's schema version: its ``schema_version``, or for an unversioned record (v0-v4) the newest version
    whose added fields it has."""
    if "schema_version" in raw:
        v = raw["schema_version"]
        if type(v) is not int or v < 0:
            raise SchemaError(f"field 'schema_version' is {v!r:.40}, not a version number")
        if v > SCHEMA_VERSION:
            raise SchemaError(f"a record of schema version {v}, newer than this code reads (up to {SCHEMA_VERSION}): "
                              "update cost-of-pass to read it")
        return v
    for v in _NEWEST_FIRST:
        if any(k in raw for k in ADDED[v]):
            return v
    return 0


def upgrade(raw: Any) -> dict[str, Any]:
    """A record of any version as a dict of the newest schema (every field, checked); ``SchemaError`` otherwise. The
    dict is ``raw`` itself, migrated in place."""
    if not isinstance(raw, dict):
        raise SchemaError(f"a record is a JSON object, not {type(raw).__name__}")
    for v in range(version_of(raw), SCHEMA_VERSION):
        raw = MIGRATIONS[v](raw)
    return check(raw)


# ---- checks ----------------------------------------------------------------------------------------------------------
_NONE, _NUMBER = type(None), (int, float)
# each field's JSON types (``type(value) in``: a bool is no int here)
TYPES: dict[str, tuple[type, ...]] = {
    **{k: (str,) for k in ("task", "problem_id", "model", "method", "litellm_model", "prompt_hash", "status",
                           "fingerprint", "created_at", "token_counts")},
    **{k: (str, _NONE) for k in ("response", "finish_reason", "error", "source", "service_tier")},
    **{k: (int,) for k in ("run", "call", "prompt_tokens", "completion_tokens", "reasoning_tokens", "tries",
                           "schema_version", "cache_read_tokens", "cache_write_tokens")},
    "latency_s": _NUMBER, "billed_usd": (*_NUMBER, _NONE), "billed_calls": (int, _NONE),
    "source_usd": (*_NUMBER, _NONE),
    **{k: (bool,) for k in ("unusable", "simulated")}, "source_correct": (bool, _NONE),
    "sampling": (dict,), "agent_calls": (list, _NONE),
}
COUNTS = ("run", "call", "prompt_tokens", "completion_tokens", "reasoning_tokens", "tries", "cache_read_tokens",
          "cache_write_tokens")  # whole numbers >= 0
assert set(TYPES) == set(FIELDS)
_FIELD_SET = frozenset(FIELDS)
DEFAULTS: dict[str, Any] = {f.name: f.default for f in fields(CallRecord) if f.name not in REQUIRED}
DEFAULTS["sampling"] = None  # a missing field reads as its default; sampling's is a fresh dict (below)


def _type_error(name: str, value: Any) -> SchemaError:
    shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
    kinds = " or ".join("null" if t is _NONE else t.__name__ for t in TYPES[name])
    return SchemaError(f"field {name!r} is {shown} ({type(value).__name__}), not {kinds}")


def check(raw: dict[str, Any]) -> dict[str, Any]:
    """``raw`` with every field of the newest schema (missing optional fields at their defaults), or ``SchemaError``
    naming the first field that does not fit. (Every line of every shard passes here once: it is kept lean.)"""
    if raw.keys() != _FIELD_SET:
        _complete(raw)
    for name, value in raw.items():
        if type(value) not in TYPES[name]:
            raise _type_error(name, value)
    if raw["status"] not in STATUSES:
        raise SchemaError(f"field 'status' is {raw['status']!r:.40}, not one of {', '.join(STATUSES)}")
    if min(raw[name] for name in COUNTS) < 0:
        name = next(name for name in COUNTS if raw[name] < 0)
        raise SchemaError(f"field {name!r} is {raw[name]}, not a count (>= 0)")
    for name in ("latency_s", "billed_usd", "billed_calls", "source_usd"):
        value = raw[name]
        if value is not None and not 0 <= value < math.inf:  # NaN and infinities fail too
            raise SchemaError(f"field {name!r} is {value!r}, not a finite number >= 0")
    if raw["agent_calls"] is not None:
        for i, call in enumerate(raw["agent_calls"]):
            try:
                check_agent_call(call)
            except SchemaError as exc:
                raise SchemaError(f"agent_calls[{i}]: {exc}") from None
    return raw


def _complete(raw: dict[str, Any]) -> None:
    """Fill the optional fields ``raw`` lacks with their defaults; ``SchemaError`` for a required field it lacks or a
    field no version has."""
    if missing := [k for k in REQUIRED if k not in raw]:
        raise SchemaError(f"not a call record: field(s) {', '.join(missing)} missing")
    if unknown := sorted(set(raw) - _FIELD_SET):
        raise SchemaError(f"unknown field(s) {', '.join(map(repr, unknown))} (no version of the record schema has "
                          f"{'it' if len(unknown) == 1 else 'them'})")
    for name, default in DEFAULTS.items():
        if name not in raw:
            raw[name] = {} if name == "sampling" else default


_AGENT_TYPES: dict[str, tuple[type, ...]] = {
    "model": (str,), "source_model": (str,), "prompt_tokens": (int,), "completion_tokens": (int,),
    "latency_s": _NUMBER, "time": (str,), "temperature": (*_NUMBER, _NONE)}
assert set(_AGENT_TYPES) == set(AGENT_CALL_FIELDS)
_AGENT_FIELD_SET = frozenset(AGENT_CALL_FIELDS)


def check_agent_call(data: Any) -> dict[str, Any]:
    """An agent call's JSON object, checked: exactly ``AgentCall``'s fields, each of its type; counts and seconds
    >= 0."""
    if not isinstance(data, dict):
        raise SchemaError(f"an agent call is a JSON object, not {type(data).__name__}")
    if data.keys() != _AGENT_FIELD_SET:
        wrong = sorted(set(data) ^ _AGENT_FIELD_SET)
        raise SchemaError(f"an agent call has fields {', '.join(AGENT_CALL_FIELDS)} (not so: {', '.join(wrong)})")
    for name, value in data.items():
        if type(value) not in _AGENT_TYPES[name]:
            kinds = " or ".join("null" if t is _NONE else t.__name__ for t in _AGENT_TYPES[name])
            raise SchemaError(f"agent call field {name!r} is {value!r:.40}, not {kinds}")
    for name in ("prompt_tokens", "completion_tokens", "latency_s"):
        if not 0 <= data[name] < math.inf:
            raise SchemaError(f"agent call field {name!r} is {data[name]!r}, not a finite number >= 0")
    if data["temperature"] is not None and not -math.inf < data["temperature"] < math.inf:
        raise SchemaError(f"agent call field 'temperature' is {data['temperature']!r}, not a finite number")
    return data
