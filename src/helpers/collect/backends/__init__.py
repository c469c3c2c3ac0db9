"""Offline backends reached through litellm: simulated models (``sim/...``) and local LLMs (``local/...``).

A backend is a litellm custom provider: a module here whose ``register()`` makes ``<provider>/<model>`` callable
(``provider.register_provider``); ``BACKENDS`` lists them for ``register_all``, and the provider's name is in
``core.models.LOCAL_PROVIDERS`` (its calls then carry the call's identity in their metadata, never a key).
HTTP providers need no backend: litellm reaches them, or ``openai_compatible`` for a server at an ``api_base``.
"""

from typing import Callable

from helpers.collect.backends import local, sim

BACKENDS: dict[str, Callable[[], None]] = {"sim": sim.register, "local": local.register}  # provider -> its register()


def register_all() -> None:
    """Register every in-process backend with litellm (idempotent)."""
    for register in BACKENDS.values():
        register()
