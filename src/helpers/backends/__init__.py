"""Offline backends reached through litellm: the simulated provider (``sim/...``)."""

from . import sim


def register_all() -> None:
    sim.register()
