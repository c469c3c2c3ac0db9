"""OpenAI's Batch API on the wire (``openai/<model>``, or an OpenAI-compatible server at an ``api_base`` that has it).

A round's calls of one model are a JSONL file, one request a line (``{custom_id, method: POST, url:
/v1/chat/completions, body}``; the body is the one the synchronous path posts, ``openai_compatible.request_body``: no
key), uploaded to ``POST /files`` (``purpose=batch``) and run by ``POST /batches`` (``completion_window: 24h``).
``GET /batches/{id}`` says its status (``validating``, ``in_progress``, ``finalizing``; ended: ``completed``,
``failed``, ``expired``, ``cancelled``) and its ``output_file_id`` and ``error_file_id``, whose lines
(``GET /files/{id}/content``) are ``{custom_id, response: {status_code, body}, error}``.
"""

from __future__ import annotations

import json
from typing import Any

from helpers.collect.backends.batch_http import RETRYABLE, BatchHTTP, Row, Status, jsonl_rows
from helpers.collect.backends.openai_compatible import ProviderError, parse_reply, request_body

PROVIDER = "openai"
DEFAULT_BASE = "https://api.openai.com/v1"
ENDED = {"completed", "failed", "expired", "cancelled"}
RETRY_CODES = {"batch_expired", "batch_cancelled"}  # rows the batch did not run: sent again in a later round


def client(api_base: str | None, key: str | None, timeout_s: float) -> BatchHTTP:
    """The API at ``api_base`` (default OpenAI's), authenticated by ``key`` (a bearer token)."""
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    return BatchHTTP((api_base or DEFAULT_BASE).rstrip("/"), headers, timeout_s)


def request_line(custom_id: str, kw: dict[str, Any]) -> dict[str, Any]:
    """One request of the input file from ``litellm.completion``'s keyword arguments ``kw``."""
    return {"custom_id": custom_id, "method": "POST", "url": "/v1/chat/completions", "body": request_body(kw)}


def prepare(http: BatchHTTP, lines: list[dict[str, Any]]) -> str:
    """Upload the input file (costs nothing); its file id."""
    content = "".join(json.dumps(line, sort_keys=True) + "\n" for line in lines).encode()
    reply = http.post_file("/files", {"purpose": "batch"}, "batch.jsonl", content)
    return str(reply["id"])


def create(http: BatchHTTP, lines: list[dict[str, Any]], prepared: str | None) -> str:
    """Run the uploaded file ``prepared`` as a batch; its id (from here on the calls are paid for)."""
    reply = http.post_json("/batches", {"input_file_id": prepared, "endpoint": "/v1/chat/completions",
                                        "completion_window": "24h"})
    return str(reply["id"])


def find(http: BatchHTTP, prepared: str | None) -> str | None:
    """The batch made of the input file ``prepared``, if one was created (a run stopped before its reply said so)."""
    reply = http.get_json("/batches?limit=100")
    return next((str(b["id"]) for b in reply.get("data") or [] if b.get("input_file_id") == prepared), None)


def status(http: BatchHTTP, batch_id: str) -> Status:
    """The batch's state and where its results are."""
    b = http.get_json(f"/batches/{batch_id}")
    state = str(b.get("status"))
    errors = (b.get("errors") or {}).get("data") or []
    failure = ("; ".join(str(e.get("message", e))[:200] for e in errors[:3]) or "the batch failed"
               ) if state == "failed" else None
    refs = {k: str(b[k]) for k in ("output_file_id", "error_file_id") if b.get(k)}
    return Status(state, state in ENDED, failure, refs)


def results(http: BatchHTTP, batch_id: str, ended: Status) -> list[Row]:
    """Every row of the batch's output and error files."""
    rows = []
    for ref in ("output_file_id", "error_file_id"):
        if ref in ended.refs:
            rows += jsonl_rows(http.send("GET", f"/files/{ended.refs[ref]}/content"), read_line)
    return rows


def read_line(obj: dict[str, Any]) -> Row:
    """One result line as a ``Row``."""
    cid, response, error = obj["custom_id"], obj.get("response"), obj.get("error")
    code = response.get("status_code") if isinstance(response, dict) else None
    if error:
        kind = error.get("code", "error") if isinstance(error, dict) else "error"
        message = error.get("message", "") if isinstance(error, dict) else str(error)
        return Row(cid, error=f"batch row {kind}: {message}"[:500], retryable=kind in RETRY_CODES or code in RETRYABLE)
    if not isinstance(response, dict):
        return Row(cid, error="unusable reply: a result line with neither a response nor an error", unusable=True)
    body = response.get("body")
    if code != 200:
        detail = body.get("error") if isinstance(body, dict) else body
        message = detail.get("message") if isinstance(detail, dict) else detail
        return Row(cid, error=f"batch row HTTP {code}: {message}"[:500], retryable=code in RETRYABLE)
    try:
        return Row(cid, reply=parse_reply(json.dumps(body)))
    except ProviderError as err:
        return Row(cid, error=f"unusable reply: {err}"[:500], unusable=True)
