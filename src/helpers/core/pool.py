"""Forked worker processes: the one pool every CPU-bound stage uses (collecting simulated calls, bootstrap shares,
the validity study's simulated sets, the halving-time study's floors).

Python threads share one interpreter lock, so CPU-bound work gains nothing from them; a forked process inherits the
job and its data without pickling them (``_FORKED``). ``run_forked`` runs one group of work per process;
``forked_map`` maps a function over jobs on a number of processes, in the jobs' order, with one BLAS thread each.
"""

from __future__ import annotations

import multiprocessing as mp
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from typing import Any, Callable, TypeVar

T = TypeVar("T")
_FORKED: dict[str, Any] = {}  # what a forked worker inherits: the job and its groups (never pickled)


def can_fork() -> bool:
    """Whether this platform starts processes by forking (Linux does; then nothing is pickled)."""
    return "fork" in mp.get_all_start_methods()


def run_forked(job: Callable[[list, Any], T], groups: list[list], on_progress: Callable[[int], None]) -> list[T]:
    """``job(group, done_counter)`` for each group, each in a forked process; results in group order.

    The job adds the items it has finished to ``done_counter.value`` (a shared integer); ``on_progress``
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


def forked_map(fn: Callable[..., T], jobs: list[tuple], workers: int, desc: str | None = None) -> list[T]:
    """``fn(*job)`` of every job, in the jobs' order, on ``workers`` forked processes (one BLAS thread each: no
    oversubscription of the cores); in this process when one worker is asked for, there is one job or forking is not
    possible. ``desc``: a progress bar's label (one step per job) that reaches the runner's terminal; None: no bar."""
    from helpers.core.progress import progress_bar

    bar = progress_bar(total=len(jobs), desc=desc, unit="job", leave=False) if desc else None
    step = bar.update if bar is not None else (lambda n: None)

    def run(group, counter=None):
        out = []
        for j in group:
            out.append(fn(*j))
            if counter is None:
                step(1)
            else:
                with counter.get_lock():
                    counter.value += 1
        return out

    try:
        if workers <= 1 or not can_fork() or len(jobs) < 2:
            return run(jobs)

        def job(group, counter):
            from threadpoolctl import threadpool_limits

            with threadpool_limits(limits=1):
                return run(group, counter)

        parts = run_forked(job, [jobs[i::workers] for i in range(workers)], step)
    finally:
        if bar is not None:
            bar.close()
    out: list = [None] * len(jobs)
    for i, part in enumerate(parts):
        out[i::workers] = part
    return out
