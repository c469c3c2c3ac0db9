"""The few HTTP requests of a provider's batch API (upload a file, create a batch, look at it, read its results), with
the standard library: a batch round makes a handful of them, so nothing is pooled.

Errors are ``openai_compatible.ProviderError`` with the status and whether asking again may succeed (429, 5xx,
timeouts, connection errors), so the collector retries them as it retries a call (``calling.call_with_retries``).
Every message is redacted where it is recorded; the key travels in a header only.
"""

from __future__ import annotations

import json
import socket
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass, field
from typing import Any

from helpers.collect.backends.openai_compatible import STATUS_NAMES, ProviderError

RETRYABLE = {408, 409, 425, 429, 500, 502, 503, 504, 529}  # as ``calling.RETRYABLE_STATUS``


@dataclass
class BatchHTTP:
    """Requests to one provider's API root ``base`` (no trailing slash) with ``headers`` (its key among them, never
    logged) and a ``timeout_s`` (seconds) per request."""

    base: str
    headers: dict[str, str] = field(default_factory=dict, repr=False)
    timeout_s: float = 600.0

    def send(self, method: str, path: str, body: bytes | None = None, content_type: str | None = None) -> bytes:
        """The reply's bytes of ``method`` ``base + path``; ``ProviderError`` unless it is a 2xx."""
        headers = dict(self.headers)
        if content_type:
            headers["Content-Type"] = content_type
        req = urllib.request.Request(self.base + path, data=body, headers=headers, method=method)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout_s) as reply:  # noqa: S310 - the model's api_base
                return reply.read()
        except urllib.error.HTTPError as err:
            text = err.read().decode("utf-8", "replace")
            kind = STATUS_NAMES.get(err.code, "InternalServerError" if err.code >= 500 else "APIError")
            raise ProviderError(kind, f"HTTP {err.code}: {_message(text)}", err.code,
                                retryable=err.code in RETRYABLE) from None
        except (TimeoutError, socket.timeout):
            raise ProviderError("Timeout", f"no reply within {self.timeout_s} s", retryable=True) from None
        except (urllib.error.URLError, ConnectionError) as err:
            raise ProviderError("APIConnectionError", f"{type(err).__name__}: {err}", retryable=True) from None

    def get_json(self, path: str) -> Any:
        """``GET`` a JSON reply."""
        return _json(self.send("GET", path), path)

    def post_json(self, path: str, payload: Any) -> Any:
        """``POST`` a JSON body, read a JSON reply."""
        return _json(self.send("POST", path, json.dumps(payload).encode(), "application/json"), path)

    def post_file(self, path: str, fields: dict[str, str], name: str, content: bytes) -> Any:
        """``POST`` a multipart form: ``fields`` and one file ``name`` holding ``content`` (JSONL)."""
        boundary = uuid.uuid4().hex
        parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode()
                 for k, v in fields.items()]
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
                     "Content-Type: application/jsonl\r\n\r\n".encode() + content + b"\r\n")
        parts.append(f"--{boundary}--\r\n".encode())
        return _json(self.send("POST", path, b"".join(parts), f"multipart/form-data; boundary={boundary}"), path)


def _json(data: bytes, path: str) -> Any:
    try:
        return json.loads(data)
    except ValueError:
        raise ProviderError("APIError", f"[200 OK] the reply to {path} is not JSON", 200, replied=True) from None


def _message(text: str) -> str:
    try:
        error = json.loads(text).get("error")
        return str(error.get("message") if isinstance(error, dict) else error)[:300]
    except (ValueError, AttributeError):
        return text[:300]


@dataclass
class Row:
    """One call's result in a batch's results: the reply (``choices``, ``usage``: what ``calling.read_reply`` reads) or
    an error, with whether it may be sent again in a later round (``retryable``: expired, cancelled, a 429 or 5xx) and
    whether the provider answered, and may have billed, a reply that cannot be used (``unusable``). ``custom_id`` is
    None for a line that could not be read. Cache reads and writes in tokens, where the provider counts them apart."""

    custom_id: str | None
    reply: Any = None
    error: str | None = None
    retryable: bool = False
    unusable: bool = False
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0


@dataclass
class Status:
    """A batch as the provider sees it: its ``state`` in the provider's words, whether it has ``ended`` (no row
    changes any more), the ``failure`` that ended it without processing a row (a refused input file), and
    ``refs``: where its results are (file ids)."""

    state: str
    ended: bool
    failure: str | None = None
    refs: dict[str, str] = field(default_factory=dict)


def jsonl_rows(data: bytes, read_line) -> list[Row]:
    """Every line of a results file through ``read_line`` (a parsed JSON object -> ``Row``); a line that is not a JSON
    object with a text ``custom_id`` is a ``Row`` without one (counted and ignored by the collector)."""
    rows = []
    for line in data.decode("utf-8", "replace").splitlines():
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            rows.append(Row(None))
            continue
        if not isinstance(obj, dict) or not isinstance(obj.get("custom_id"), str):
            rows.append(Row(None))
            continue
        try:
            rows.append(read_line(obj))
        except (AttributeError, KeyError, TypeError, ValueError):  # a line of another shape: the provider answered
            rows.append(Row(obj["custom_id"], error="unusable reply: a result line of another shape", unusable=True))
    return rows
