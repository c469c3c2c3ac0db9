"""Token counts for imported responses that come without them.

A model whose own tokenizer ships offline is counted with it (tiktoken's ``cl100k_base`` for GPT-4, from
litellm's bundled copy: no download); any other model is estimated, and its records say so.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Callable


@lru_cache(maxsize=4)
def tiktoken_encoding(name: str):
    """A tiktoken encoding from litellm's bundled files (litellm points ``TIKTOKEN_CACHE_DIR`` at them on import)."""
    import litellm.litellm_core_utils.default_encoding  # noqa: F401  (sets TIKTOKEN_CACHE_DIR: offline)
    import tiktoken

    return tiktoken.get_encoding(name)


def counter(tokenizer: str | None) -> tuple[Callable[[str], int], str]:
    """A function text -> tokens and the label records carry: the model's own tokenizer, or an estimate with
    ``cl100k_base`` where the model's own is not available offline."""
    enc = tiktoken_encoding(tokenizer or "cl100k_base")
    def count(text):
        return len(enc.encode(text or "", disallowed_special=()))
    if tokenizer:
        return count, f"counted: {tokenizer} (the model's own tokenizer)"
    return count, "estimated: cl100k_base count (the model's own tokenizer is not available offline)"
