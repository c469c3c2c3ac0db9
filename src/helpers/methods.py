"""Inference-time methods: how many calls one attempt makes, and which are collected.

- ``vanilla``: one call with the paper's prompt.
- ``self_refine``: a vanilla call, then one refinement call that sees the question and the
  response; both calls are collected and both are billed.
- ``majority_vote_kN``: N generations, the most common equivalent answer wins. Its votes are not
  fresh calls: they are drawn from the recorded vanilla runs (so it needs ``vanilla``), and an
  attempt is billed as the N generations it uses.
"""

from __future__ import annotations

from dataclasses import dataclass

from .params import METHOD_PATTERN


@dataclass(frozen=True)
class Method:
    name: str
    collected_calls: int  # calls made per attempt by collection
    billed_calls: int  # generations an attempt pays for
    votes: int = 0  # > 0 for majority vote

    @property
    def is_collected(self) -> bool:
        return self.collected_calls > 0


def get_method(name: str) -> Method:
    m = METHOD_PATTERN.match(name)
    if not m:
        raise ValueError(f"unknown method {name!r}")
    if name == "vanilla":
        return Method(name, 1, 1)
    if name == "self_refine":
        return Method(name, 2, 2)
    k = int(m.group(2))
    return Method(name, 0, k, votes=k)


def collected_methods(names: list[str]) -> list[Method]:
    """The methods collection runs: those that make calls, plus vanilla when votes need it."""
    methods = [get_method(n) for n in names]
    out = [m for m in methods if m.is_collected]
    if any(m.votes for m in methods) and not any(m.name == "vanilla" for m in out):
        out.insert(0, get_method("vanilla"))
    return out
