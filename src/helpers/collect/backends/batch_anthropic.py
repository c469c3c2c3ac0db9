"""Anthropic's Message Batches API on the wire (``anthropic/<model>``).

A round's calls of one model are one ``POST /v1/messages/batches`` with ``{requests: [{custom_id, params}]}`` (the
Messages API's body: model, max_tokens, messages, sampling; no key). ``GET /v1/messages/batches/{id}`` says its
``processing_status`` (``in_progress``, ``canceling``; ended: ``ended``) and ``GET
/v1/messages/batches/{id}/results`` gives one line per request, ``{custom_id, result: {type: succeeded | errored |
canceled | expired, message | error}}``. The results are read from that documented path, never from the batch's
``results_url`` (the key would follow a URL the reply chose).
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from helpers.collect.backends.batch_http import BatchHTTP, Row, Status, jsonl_rows

PROVIDER = "anthropic"
DEFAULT_BASE = "https://api.anthropic.com"
VERSION = "2023-06-01"
DEFAULT_MAX_TOKENS = 4096  # the Messages API needs max_tokens; litellm's default where a set gives none
RETRY_ERRORS = {"api_error", "overloaded_error", "rate_limit_error", "timeout_error"}
PATH = "/v1/messages/batches"


def client(api_base: str | None, key: str | None, timeout_s: float) -> BatchHTTP:
    """The API at ``api_base`` (default Anthropic's; a trailing ``/v1`` is dropped), authenticated by ``key``."""
    base = (api_base or DEFAULT_BASE).rstrip("/").removesuffix("/v1")
    headers = {"anthropic-version": VERSION, **({"x-api-key": key} if key else {})}
    return BatchHTTP(base, headers, timeout_s)


def request_line(custom_id: str, kw: dict[str, Any]) -> dict[str, Any]:
    """One request of the batch from ``litellm.completion``'s keyword arguments ``kw``: system messages go to
    ``system``, ``stop`` to ``stop_sequences``; the other sampling arguments as given."""
    from helpers.collect.backends.openai_compatible import TRANSPORT_KEYS

    params: dict[str, Any] = {"model": kw["model"].split("/", 1)[1], "max_tokens": DEFAULT_MAX_TOKENS}
    params.update({k: v for k, v in kw.items() if k not in TRANSPORT_KEYS and v is not None})
    if "stop" in params:
        stop = params.pop("stop")
        params["stop_sequences"] = [stop] if isinstance(stop, str) else stop
    system = [m["content"] for m in kw["messages"] if m["role"] == "system"]
    if system:
        params["system"] = "\n\n".join(system)
    params["messages"] = [m for m in kw["messages"] if m["role"] != "system"]
    return {"custom_id": custom_id, "params": params}


def prepare(http: BatchHTTP, lines: list[dict[str, Any]]) -> None:
    """Nothing to upload: the requests go with the batch."""
    return None


def create(http: BatchHTTP, lines: list[dict[str, Any]], prepared: str | None) -> str:
    """Create the batch; its id (from here on the calls are paid for)."""
    return str(http.post_json(PATH, {"requests": lines})["id"])


def find(http: BatchHTTP, prepared: str | None) -> str | None:
    """A batch created by a run that stopped before its reply cannot be told apart from another: None."""
    return None


def status(http: BatchHTTP, batch_id: str) -> Status:
    """The batch's processing status."""
    state = str(http.get_json(f"{PATH}/{batch_id}").get("processing_status"))
    return Status(state, state == "ended")


def results(http: BatchHTTP, batch_id: str, ended: Status) -> list[Row]:
    """Every row of the batch's results."""
    return jsonl_rows(http.send("GET", f"{PATH}/{batch_id}/results"), read_line)


def read_line(obj: dict[str, Any]) -> Row:
    """One result line as a ``Row``: a succeeded message as an OpenAI-shaped reply, its cache reads and writes apart."""
    cid, result = obj["custom_id"], obj["result"]
    kind = result["type"]
    if kind == "succeeded":
        return _message_row(cid, result["message"])
    if kind == "errored":
        error = (result.get("error") or {}).get("error") or result.get("error") or {}
        return Row(cid, error=f"batch row {error.get('type', 'error')}: {error.get('message', '')}"[:500],
                   retryable=error.get("type") in RETRY_ERRORS)
    if kind in ("canceled", "expired"):
        return Row(cid, error=f"batch row {kind}", retryable=True)
    return Row(cid, error=f"unusable reply: a result of type {kind!r:.40}", unusable=True)


def _message_row(cid: str, message: dict[str, Any]) -> Row:
    usage = message.get("usage") or {}
    text = "".join(b.get("text", "") for b in message.get("content") or [] if b.get("type") == "text")
    reply = SimpleNamespace(
        choices=[SimpleNamespace(message=SimpleNamespace(role="assistant", content=text),
                                 finish_reason=message.get("stop_reason"))],
        usage=SimpleNamespace(prompt_tokens=int(usage.get("input_tokens") or 0),
                              completion_tokens=int(usage.get("output_tokens") or 0),
                              completion_tokens_details=None))
    return Row(cid, reply=reply, cache_read_tokens=int(usage.get("cache_read_input_tokens") or 0),
               cache_write_tokens=int(usage.get("cache_creation_input_tokens") or 0))
