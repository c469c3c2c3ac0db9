"""Collecting CPU-bound in-process calls (simulated models) on several cores.

Python threads share one interpreter lock, so simulated calls gain nothing from them. Instead the
pending attempts are split by record shard (task, model) into one group per worker, and each group
runs in a forked process that appends to its own shards: no two processes write the same file.
The collection's budget is then shared through process-safe counters (``Budget(..., shared=True)``).
"""

from __future__ import annotations

import multiprocessing as mp
from collections import defaultdict
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from typing import Any, Callable, Hashable, Iterable, TypeVar

T = TypeVar("T")
_FORKED: dict[str, Any] = {}  # what a forked worker inherits: the job and its groups (never pickled)


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


def can_fork() -> bool:
    return "fork" in mp.get_all_start_methods()


def run_forked(job: Callable[[list, Any], T], groups: list[list], on_progress: Callable[[int], None]) -> list[T]:
    """``job(group, done_counter)`` for each group, each in a forked process; results in group order.

    The job adds the calls it has made to ``done_counter.value`` (a shared integer); ``on_progress``
    receives the increments, about twice a second. A job's exception is raised here.
    """
    ctx = mp.get_context("fork")
    counter = ctx.Value("q", 0)
    _FORKED.update(job=job, groups=groups, counter=counter)
    try:
        with ProcessPoolExecutor(max_workers=len(groups), mp_context=ctx) as pool:
            futures = [pool.submit(_run_group, i) for i in range(len(groups))]
            running, shown = set(futures), 0
            while running:
                _, running = wait(running, timeout=0.5, return_when=FIRST_COMPLETED)
                now = counter.value
                on_progress(now - shown)
                shown = now
            return [f.result() for f in futures]
    finally:
        _FORKED.clear()


def _run_group(i: int):
    return _FORKED["job"](_FORKED["groups"][i], _FORKED["counter"])

