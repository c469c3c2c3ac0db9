"""A lean async client for OpenAI-compatible chat servers (``openai/<name>`` with an ``api_base``:
vLLM, llama-server, SGLang, a company gateway).

litellm spends milliseconds of CPU per async call (its logging, cost and parameter bookkeeping), which
caps one process's calls per second however many calls are in flight (benchmarks/http_throughput.py). For a server that
speaks the OpenAI protocol there is nothing to translate, so the collector posts the body litellm would
post (model, messages, sampling) over one pooled aiohttp session and reads the same fields
(tests/test_collect_e2e.py checks the records and request bodies equal litellm's field by field).
Named providers (OpenAI itself, Anthropic, Gemini, …) keep going through litellm.
"""

from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import aiohttp

# litellm's exception names for the same statuses, so recorded errors read alike on both paths
STATUS_NAMES = {400: "BadRequestError", 401: "AuthenticationError", 403: "PermissionDeniedError",
                404: "NotFoundError", 408: "Timeout", 422: "UnprocessableEntityError", 429: "RateLimitError",
                503: "ServiceUnavailableError"}
# keyword arguments of litellm.completion that configure the call, not the request body
TRANSPORT_KEYS = {"model", "messages", "timeout", "num_retries", "max_retries", "api_base", "api_key", "metadata"}


class ProviderError(Exception):
    """A failed call. ``status_code`` is the HTTP status (None for timeouts and connection errors);
    ``retryable`` says whether asking again may succeed; ``replied`` marks a 200 reply that could not
    be read (the provider may have billed it, so it is never retried)."""

    def __init__(self, kind: str, message: str, status_code: int | None = None, retryable: bool = False,
                 replied: bool = False):
        super().__init__(f"{kind}: {message}")
        self.status_code, self.retryable, self.replied = status_code, retryable, replied


def is_direct(model) -> bool:
    """Whether a model's calls can skip litellm: the plain OpenAI protocol at an explicit ``api_base``."""
    return model.provider == "openai" and bool(model.api_base)


def request_body(kw: dict[str, Any]) -> dict[str, Any]:
    """The JSON body litellm posts for ``litellm.completion(**kw)`` to an OpenAI-compatible server: the
    model's name, the messages and every sampling argument of the call (the set's and the model's own)."""
    body = {"model": kw["model"].split("/", 1)[1], "messages": kw["messages"]}
    body.update({k: v for k, v in kw.items() if k not in TRANSPORT_KEYS and v is not None})
    return body


def _namespace(value: Any) -> Any:
    if isinstance(value, dict):
        return SimpleNamespace(**{k: _namespace(v) for k, v in value.items()})
    if isinstance(value, list):
        return [_namespace(v) for v in value]
    return value


def parse_reply(text: str) -> SimpleNamespace:
    """A 200 reply as an object with litellm's attribute names (``choices[0].message.content``,
    ``usage.prompt_tokens``, …); raises a ``replied`` ProviderError when it is not a chat completion."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise ProviderError("APIError", f"[200 OK] the reply is not JSON ({err})", 200, replied=True) from None
    choices = data.get("choices") if isinstance(data, dict) else None
    if not isinstance(choices, list) or not all(isinstance(c, dict) and isinstance(c.get("message"), dict)
                                                for c in choices):
        raise ProviderError("APIError", "[200 OK] the reply has no readable 'choices'", 200, replied=True)
    for c in choices:
        c["message"].setdefault("content", None)
        c.setdefault("finish_reason", None)
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    usage.setdefault("completion_tokens_details", None)
    return SimpleNamespace(choices=_namespace(choices), usage=_namespace(usage))


def _error_message(text: str) -> str:
    try:
        error = json.loads(text).get("error")
        return str(error.get("message") if isinstance(error, dict) else error)[:300]
    except (ValueError, AttributeError):
        return text[:300]


class OpenAICompatibleClient:
    """One pooled aiohttp session for a collection: ``async with OpenAICompatibleClient(64) as c:
    reply = await c.completion(kw)`` with the keyword arguments of ``litellm.completion``."""

    def __init__(self, concurrency: int):
        self.concurrency = concurrency
        self.session: aiohttp.ClientSession | None = None  # open inside ``async with``

    async def __aenter__(self) -> "OpenAICompatibleClient":
        import aiohttp

        self.session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=self.concurrency))
        return self

    async def __aexit__(self, *exc) -> None:
        assert self.session is not None
        await self.session.close()

    async def completion(self, kw: dict[str, Any]) -> SimpleNamespace:
        import aiohttp

        headers = {"Content-Type": "application/json"}
        if kw.get("api_key"):
            headers["Authorization"] = f"Bearer {kw['api_key']}"
        url = kw["api_base"].rstrip("/") + "/chat/completions"
        assert self.session is not None, "OpenAICompatibleClient is used inside ``async with``"
        try:
            async with self.session.post(url, data=json.dumps(request_body(kw)), headers=headers,
                                         timeout=aiohttp.ClientTimeout(total=kw["timeout"])) as reply:
                text = await reply.text(errors="surrogatepass")
                status = reply.status
        except asyncio.TimeoutError:
            raise ProviderError("Timeout", f"no reply within {kw['timeout']} s", retryable=True) from None
        except aiohttp.ClientError as err:
            raise ProviderError("APIConnectionError", f"{type(err).__name__}: {err}", retryable=True) from None
        if status != 200:
            kind = STATUS_NAMES.get(status, "InternalServerError" if status >= 500 else "APIError")
            raise ProviderError(kind, f"HTTP {status}: {_error_message(text)}", status)
        return parse_reply(text)
