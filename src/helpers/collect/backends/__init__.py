"""Offline backends reached through litellm: simulated models (``sim/...``) and local LLMs (``local/...``)."""

from helpers.collect.backends import local, sim


def register_all() -> None:
    sim.register()
    local.register()
