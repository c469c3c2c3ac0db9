"""Collection throughput against an OpenAI-compatible server on 127.0.0.1 that answers after 200 ms.

    .venv/bin/python benchmarks/http_throughput.py [CALLS_PER_CONCURRENCY_UNIT] [LATENCY_S] [CONCURRENCIES, e.g. 8,64]

For concurrency 8, 64 and 256 it collects ``SCALE x concurrency`` single-call attempts (SCALE = the
first argument, default 10; twice that at 8) through the collector three ways, side by side, each with
the record store: (1) a thread pool calling ``litellm.completion`` (the path before issue 8), (2) one
event loop calling ``litellm.acompletion``, (3) one event loop posting through the lean aiohttp client
of ``collect/backends/openai_compatible.py`` (the path OpenAI-compatible servers take now). It prints
calls per second and the percentage of the ideal ``concurrency / latency`` (issue 8's targets: 90% at
64, 70% at 256; litellm's own CPU per call, ~5 ms, caps (1) and (2) well below them on 2 cores). Each
measurement runs in a fresh process after one warm-up wave at its concurrency, so no path inherits another's threads,
pools or heap, against a fresh server; the time includes opening the store and the connections (~0.06 s). The server is
an aiohttp server in its own process that answers every request after LATENCY_S seconds, so it is not
the bottleneck and shares no interpreter lock with the collector.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections import deque
from pathlib import Path

os.environ.setdefault("COP_WRITE_ANYWHERE", "1")  # a benchmark writes its sets under a temporary directory

ARGS = [] if sys.argv[1:2] in (["--serve"], ["--measure"]) else sys.argv[1:]
SCALE = float(ARGS[0]) if ARGS else 10.0
LATENCY_S = float(ARGS[1]) if len(ARGS) > 1 else 0.2
CONCURRENCIES = tuple(int(c) for c in ARGS[2].split(",")) if len(ARGS) > 2 else (8, 64, 256)
KEY = "bench-key-not-secret"
ROOT = Path(__file__).resolve().parents[1]


class NoBar:
    def update(self, n: int) -> None:
        pass


def serve(latency_s: float) -> None:
    """An OpenAI-compatible chat server answering every request after ``latency_s``; prints its URL."""
    import asyncio
    import socket

    from aiohttp import web

    async def chat(request):
        body = await request.json()
        await asyncio.sleep(latency_s)
        text = "Adding the numbers. <answer>42</answer>"
        return web.json_response({
            "id": "bench", "object": "chat.completion", "created": int(time.time()), "model": body["model"],
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 6, "total_tokens": 106}})

    app = web.Application()
    app.router.add_post("/v1/chat/completions", chat)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    print(f"http://127.0.0.1:{sock.getsockname()[1]}/v1", flush=True)
    web.run_app(app, sock=sock, print=None, backlog=4096)


def start_server() -> tuple[subprocess.Popen, str]:
    server = subprocess.Popen([sys.executable, __file__, "--serve", str(LATENCY_S)], stdout=subprocess.PIPE, text=True)
    return server, server.stdout.readline().strip()


def collect_once(url: str, concurrency: int, n_calls: int, path: str, root: Path) -> tuple[float, int]:
    """Calls per second of one collection of ``n_calls`` single-call attempts, and how many failed
    (recorded as failures after the client's timeout; the server never fails)."""
    # imported here: the parent and the server processes do without the collector
    from helpers.collect.budget import Budget
    from helpers.collect.calling import Caller
    from helpers.collect.collection import Tally, _collect_http, _collect_threads, run_coroutine
    from helpers.collect.plan import plan_attempts
    from helpers.collect.records import RecordStore
    from helpers.core.models import ModelSpec
    from helpers.core.params import Params
    from helpers.core.prices import ModelPrice
    from helpers.core.tasks.two_digit_addition import generate

    # b != 0 and (a + b) % 3, 7 conditions are the stub's: keep every first request a 200 (no retries)
    problems = [p for p in generate(min(8100, 8 * n_calls), seed=1)  # 90 x 90 pairs at most
                if p.metadata["a"] % 3 and p.metadata["a"] % 7][:n_calls]
    model = ModelSpec(name="bench", label="bench", litellm_id="openai/bench", family="x", release_date="2024-01-01",
                      api_base=url, api_key_env="BENCH_API_KEY")
    params = Params(name="bench", tasks=["two_digit_addition"], models=["bench"], n_problems=n_calls, n_runs=1,
                    price_snapshot="x", budget_usd=1e6, concurrency=concurrency, max_retries=0, timeout_s=60)
    attempts = plan_attempts({"two_digit_addition": problems}, [model], ["vanilla"], 1)
    queue = deque((a, [0]) for a in attempts)
    price, tally = ModelPrice(input_usd_per_mtok=1, output_usd_per_mtok=1), Tally()
    est_by = {("two_digit_addition", "bench"): 0.0}
    snapshot = type("Snapshot", (), {"price": staticmethod(lambda name: price)})()
    caller = Caller(params, direct_http=path == "direct")
    start = time.perf_counter()
    with RecordStore(root) as store:
        args = (queue, {}, store, caller, Budget(1e6, 0.0), est_by, snapshot, concurrency, tally, NoBar())
        _collect_threads(*args) if path == "threads" else run_coroutine(_collect_http(*args))
    elapsed = time.perf_counter() - start
    if tally.made != n_calls:
        raise SystemExit(f"{tally.made} of {n_calls} calls made")
    return n_calls / elapsed, tally.failed


PATHS = {"threads": "threads + litellm", "litellm": "event loop + litellm", "direct": "event loop + lean client"}

def measure(path: str, concurrency: int, n_calls: int) -> tuple[float, int]:
    """Calls per second of ``path`` at ``concurrency`` and the calls that failed, measured in a fresh
    process (after a warm-up there) against a fresh server."""
    server, url = start_server()
    try:
        out = subprocess.run([sys.executable, __file__, "--measure", url, path, str(concurrency), str(n_calls)],
                             capture_output=True, text=True)
    finally:
        server.terminate()
        server.wait()
    if out.returncode:
        raise SystemExit(f"{path} at concurrency {concurrency}: {(out.stderr.strip() or '?').splitlines()[-1]}")
    rate, failed = out.stdout.split()[-2:]
    return float(rate), int(failed)


def measure_here(url: str, path: str, concurrency: int, n_calls: int) -> None:
    os.environ["BENCH_API_KEY"] = KEY
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    from helpers.collect.collection import _quiet_litellm

    _quiet_litellm()  # the collector imports litellm whenever something is pending, whatever the path
    with tempfile.TemporaryDirectory() as d:
        # one wave: lazy imports, both sides' first connections
        collect_once(url, concurrency, concurrency, path, Path(d) / "warm")
        print(*collect_once(url, concurrency, n_calls, path, Path(d) / "run"))


if __name__ == "__main__" and sys.argv[1:2] == ["--serve"]:
    serve(float(sys.argv[2]))
elif __name__ == "__main__" and sys.argv[1:2] == ["--measure"]:
    measure_here(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
elif __name__ == "__main__":
    print(f"server latency {LATENCY_S * 1000:.0f} ms; ideal = concurrency / latency")
    for concurrency in CONCURRENCIES:
        n = max(16, int(SCALE * concurrency * (1 if concurrency > 8 else 2)))
        ideal = concurrency / LATENCY_S
        runs = {path: measure(path, concurrency, n) for path in PATHS}
        for path, (rate, failed) in runs.items():
            print(f"concurrency {concurrency:>3} ({n:>4} calls)  {PATHS[path]:<26} {rate:>6.0f} calls/s"
                  f" = {100 * rate / ideal:>3.0f}% of ideal   x{rate / runs['threads'][0]:.1f} vs threads"
                  + (f"   ({failed} calls failed)" if failed else ""), flush=True)
