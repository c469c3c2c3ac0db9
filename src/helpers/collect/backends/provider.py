"""Registering an in-process litellm custom provider, and the response it returns."""

from __future__ import annotations

import time
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from litellm import CustomLLM


def register_provider(name: str, handler_factory: Callable[[], CustomLLM]) -> None:
    """Make ``<name>/<model>`` callable through ``litellm.completion`` (idempotent)."""
    import litellm

    if not any(p.get("provider") == name for p in litellm.custom_provider_map):
        litellm.custom_provider_map = [*litellm.custom_provider_map,
                                       {"provider": name, "custom_handler": handler_factory()}]
        from litellm.utils import custom_llm_setup

        custom_llm_setup()


def call_metadata(kwargs: dict, key: str, provider: str) -> dict:
    """The ``cop`` metadata the collector attaches to a call; it must carry ``key``."""
    import litellm

    meta = ((kwargs.get("litellm_params") or {}).get("metadata") or {}).get("cop")
    if not meta or key not in meta:
        raise litellm.BadRequestError(f"{provider} provider: call metadata 'cop.{key}' is missing", provider, provider)
    return meta


def model_response(model: str, text: str, prompt_tokens: int, completion_tokens: int, started: float,
                   finish_reason: str = "stop"):
    """An OpenAI-shaped litellm response with the runtime's token counts."""
    import litellm

    response: Any = litellm.ModelResponse(  # Any: it carries litellm's private _response_ms too
        model=model,
        choices=[{"message": {"role": "assistant", "content": text}, "finish_reason": finish_reason}],
        usage={"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
               "total_tokens": prompt_tokens + completion_tokens},
    )
    response._response_ms = (time.perf_counter() - started) * 1000
    return response


def plain_response(text: str, prompt_tokens: int, completion_tokens: int,
                   finish_reason: str = "stop") -> SimpleNamespace:
    """The same reply without litellm (what ``calling.read_reply`` reads of it: ``choices[0].message.content``,
    ``choices[0].finish_reason``, ``usage.prompt_tokens`` / ``completion_tokens``), for in-process backends called
    directly: building a ``litellm.ModelResponse`` costs more than a simulated call (benchmarks/collect_overhead.py)."""
    message = SimpleNamespace(role="assistant", content=text)
    usage = SimpleNamespace(prompt_tokens=prompt_tokens, completion_tokens=completion_tokens,
                            total_tokens=prompt_tokens + completion_tokens, completion_tokens_details=None)
    return SimpleNamespace(choices=[SimpleNamespace(message=message, finish_reason=finish_reason)], usage=usage)
