"""Running model-written code, never in the analysing process: a pool of sandbox servers
(``sandbox_server.py``, one per core) that each fork one child per program.

A server runs in a stripped interpreter (``python -I -S``: no site-packages, no user paths, no PYTHON*
variables) with an environment of PATH, LANG and HOME only (no key of this process can be read), its working
directory an empty temporary root, and — where the kernel allows it (``unshare -n``; see ``network_isolation``)
— in a network namespace of its own with no interface but loopback. Each program then runs in a forked child
with resource limits and an audit hook (see the server's docstring) and is killed at its wall-time limit.
A verdict is ``passed`` only when the whole program ran to its end; everything else is a failure with a reason
(time-out, the exception, a blocked operation). Verdicts are cached by the SHA-256 of the program and the
limits (``VerdictCache``), so a re-run grades only what is new.
"""

from __future__ import annotations

import hashlib
import json
import os
import queue
import select
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Iterable

from helpers.core.errors import CostOfPassError

SERVER = Path(__file__).with_name("sandbox_server.py")
TIMEOUT_S = 10.0  # wall seconds per program (HumanEval's own harness uses 3 s on an idle machine)
MEMORY_MB = 1024  # address space per program
VERSION = 1  # of the sandbox's rules: part of every cache key


@dataclass(frozen=True)
class Verdict:
    """One program's outcome: passed, the reason it did not ('' when passed), wall seconds."""

    passed: bool
    reason: str
    seconds: float


def program_text(solution: str, test: str, entry_point: str) -> str:
    """A HumanEval-style program: the solution, its hidden tests, then ``check(entry_point)``."""
    return f"{solution}\n\n{test}\n\ncheck({entry_point})\n"


def program_key(program: str, timeout_s: float, memory_mb: int) -> str:
    """The cache key of a program under given limits (and this version of the rules)."""
    return hashlib.sha256(f"{VERSION}\x1f{timeout_s}\x1f{memory_mb}\x1f{program}".encode()).hexdigest()


@lru_cache(maxsize=1)
def network_isolation() -> list[str]:
    """The command prefix that gives a server its own network namespace (``unshare -n``, or ``-rn`` without
    root), or [] where neither works here (then only the audit hook keeps sockets closed)."""
    unshare = shutil.which("unshare")
    if not unshare:
        return []
    for flags in (["-n"], ["-rn"]):
        try:
            if subprocess.run([unshare, *flags, "true"], capture_output=True, timeout=10).returncode == 0:
                return [unshare, *flags]
        except (OSError, subprocess.TimeoutExpired):
            continue
    return []


class _Server:
    """One sandbox server process and its line protocol."""

    def __init__(self, root: str):
        env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": root}
        self.proc = subprocess.Popen([*network_isolation(), sys.executable, "-I", "-S", str(SERVER), root],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     env=env, cwd=root, text=True, bufsize=1, start_new_session=True)

    def ask(self, job: dict, wait_s: float) -> dict | None:
        """The server's answer to ``job``, or None when it did not answer within ``wait_s`` (or died)."""
        try:
            self.proc.stdin.write(json.dumps(job) + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            return None
        if not select.select([self.proc.stdout], [], [], wait_s)[0]:
            return None
        line = self.proc.stdout.readline()
        return json.loads(line) if line else None

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


class Sandbox:
    """A pool of ``workers`` sandbox servers (default: one per core); use as a context manager."""

    def __init__(self, workers: int | None = None, timeout_s: float = TIMEOUT_S, memory_mb: int = MEMORY_MB):
        if timeout_s <= 0 or memory_mb < 64:
            raise CostOfPassError(f"sandbox: timeout_s must be > 0 and memory_mb >= 64 (got {timeout_s}, {memory_mb})")
        self.workers = max(1, workers or os.cpu_count() or 1)
        self.timeout_s, self.memory_mb = timeout_s, memory_mb
        self._root = tempfile.mkdtemp(prefix="cop-sandbox-")
        self._idle: queue.Queue[_Server] = queue.Queue()
        for _ in range(self.workers):
            self._idle.put(_Server(self._root))

    def __enter__(self) -> "Sandbox":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        while not self._idle.empty():
            self._idle.get().stop()
        shutil.rmtree(self._root, ignore_errors=True)

    def run(self, program: str) -> Verdict:
        """Run one program; a server that stops answering is replaced and the program recorded as failed."""
        server = self._idle.get()
        job = {"id": 0, "program": program, "timeout_s": self.timeout_s, "memory_mb": self.memory_mb}
        answer = server.ask(job, self.timeout_s + 10)
        if answer is None:
            server.stop()
            server = _Server(self._root)
            answer = {"passed": False, "reason": "the sandbox stopped answering", "seconds": self.timeout_s}
        self._idle.put(server)
        return Verdict(bool(answer["passed"]), str(answer["reason"]), float(answer["seconds"]))

    def run_many(self, programs: list[str]) -> list[Verdict]:
        """Run ``programs`` across the servers, in parallel; verdicts in the programs' order."""
        with ThreadPoolExecutor(self.workers) as pool:
            return list(pool.map(self.run, programs))


class VerdictCache:
    """Verdicts by program key in a JSON-lines file (appended, never rewritten); a torn last line is ignored."""

    def __init__(self, path: Path | None):
        self.path, self.known = path, {}
        if path is not None and path.is_file():
            for line in path.read_text(encoding="utf-8").splitlines():
                try:
                    row = json.loads(line)
                    self.known[row["key"]] = Verdict(row["passed"], row["reason"], row["seconds"])
                except (ValueError, KeyError):
                    continue

    def add(self, items: Iterable[tuple[str, Verdict]]) -> None:
        items = list(items)
        self.known.update(items)
        if self.path is None or not items:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as fh:
            for key, v in items:
                fh.write(json.dumps({"key": key, "passed": v.passed, "reason": v.reason, "seconds": v.seconds}) + "\n")


def grade_programs(programs: list[str], cache_path: Path | None = None, workers: int | None = None,
                   timeout_s: float = TIMEOUT_S, memory_mb: int = MEMORY_MB) -> list[Verdict]:
    """Verdicts of ``programs`` (in order): cached ones read, each distinct new one run once in the sandbox."""
    cache = VerdictCache(cache_path)
    keys = [program_key(p, timeout_s, memory_mb) for p in programs]
    todo = {k: p for k, p in zip(keys, programs) if k not in cache.known}
    if todo:
        with Sandbox(workers, timeout_s, memory_mb) as box:
            cache.add(zip(todo, box.run_many(list(todo.values()))))
    return [cache.known[k] for k in keys]
