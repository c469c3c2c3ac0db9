"""Collecting CPU-bound in-process calls (simulated models) on several cores.

Python threads share one interpreter lock, so simulated calls gain nothing from them. Instead the
pending attempts are split by record shard (task, model) into one group per worker, and each group
runs in a forked process (``core.pool``) that appends to its own shards: no two processes write the same file.
The collection's budget is then shared through process-safe counters (``Budget(..., shared=True)``).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Callable, Hashable, Iterable, TypeVar

T = TypeVar("T")


def partition(items: Iterable[T], key: Callable[[T], Hashable], weight: Callable[[T], float], n: int) -> list[list[T]]:
    """``items`` in at most ``n`` groups of similar total weight; items with the same key stay together."""
    by_key: dict[Hashable, list[T]] = defaultdict(list)
    for item in items:
        by_key[key(item)].append(item)
    bins: list[list[T]] = [[] for _ in range(max(1, n))]
    loads = [0.0] * len(bins)
    for group in sorted(by_key.values(), key=lambda g: -sum(map(weight, g))):  # largest first, to the lightest bin
        i = loads.index(min(loads))
        bins[i].extend(group)
        loads[i] += sum(map(weight, group))
    return [b for b in bins if b]
