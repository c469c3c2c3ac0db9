"""Running model-written code inside the kernel's boundary, never in the analysing process.

A ``Sandbox`` is a pool of workers (``sandbox_server.py``, one per core by default), each started inside the boundary
(``grade.boundary``: bubblewrap, an unprivileged user, namespaces, a read-only standard library) by a thread of the pool
that lives as long as the pool (a worker dies with that thread). A program (``programs.CodeJob``) gets:

- **limits**: ``cpu_s`` CPU seconds (the kernel kills it there: a busy machine does not change a verdict), ``memory_mb``
  of address space, 1 MiB files, 256 files and 64 MiB of scratch, no new process or thread;
- **a backstop** of ``backstop_s`` seconds of *sleep* (wall time less the time the program and its harness ran or
  waited for a CPU), for programs that wait forever; a backstop kill is never cached as final;
- **a verdict it cannot forge** in split mode: the hidden tests run in a harness process the program cannot reach, and
  only plain data crosses between them (``plain``), also for what only the solution defines, which the harness calls
  in the program's process (``CodeJob.calls``). Whole mode (tests that do not parse or define no ``check``) runs
  everything in the program's process, and its verdict says ``harness: whole``.

Reasons say an exception's type and a message only where it is CPython's own (``reasons``, in the harness); they are
short and sanitised here (control characters out, at most ``REASON_CHARS``, every key-shaped string redacted, and
without a boundary every value of this process's environment) before anything stores them. Verdicts are cached by
``job_key`` (``verdicts.VerdictCache``), so a re-run grades only what is new.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import queue
import secrets
import select
import threading
import unicodedata
from concurrent.futures import Future
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path

from helpers.core.errors import CostOfPassError
from helpers.core.redaction import Redactor
from helpers.grade import plain
from helpers.grade.boundary import Boundary, options, unisolated
from helpers.grade.programs import CodeJob, code_job, whole_program
from helpers.grade.verdicts import VerdictCache

CPU_S = 20  # CPU seconds per program: the source's own limit (HumanEval/129's slowest correct solutions need ~11 s)
NEAR_LIMIT = 2 / 3  # a program that used this share of CPU_S or more has a verdict another run or machine can change:
# one program's CPU seconds vary by a fifth or more between runs on a shared 2-core machine (1.79–2.56 s for the same
# 2-s loop, six runs) — HumanEval/129's slowest correct solutions took 10–18 s here, and CI's machine stopped two
BACKSTOP_S = 5  # seconds a program may sleep (neither run nor wait for a CPU): no HumanEval solution sleeps
MEMORY_MB = 1024  # address space per program
OUTSIDE = "killed from outside the grader"  # a worker's answer no part of the grader caused: judged again
OUTSIDE_TRIES = 3  # judgements of a program killed from outside each time before it could not be graded
UNGRADED = "could not be graded"  # such a program's reason starts so: failed, not cached, counted apart
VERSION = 8  # of the sandbox's rules: part of every cache key (5: solution-only functions called split; 6: reasons
# keep a message only where it is CPython's own, ``reasons``, and the harness's judging is the program's CPU; 7: the
# tests' random draws under a secret seed, ``draw_seed``; 8: a channel the program closed is its own failure, no
# setrlimit, ustat, inputs of every call kept out of reasons; issue 63)
REASON_CHARS = 200
# control characters, and the invisible ones that change how text reads: zero-width marks, bidi embeddings, overrides
# and isolates, the byte-order mark ("gnissap" shown as "passing")
_HIDDEN = ("Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp")  # control, format (bidi, zero-width, tags), private, unassigned
__all__ = ["CodeJob", "GradingRun", "Sandbox", "Verdict", "code_job", "grade_jobs", "job_key", "whole_program"]


@dataclass(frozen=True)
class Verdict:
    """One program's outcome: passed, the reason it did not ('' when passed), the program's CPU seconds, the harness
    (``split`` or ``whole``), the isolation (``bwrap`` or ``none``), and whether it is final (cacheable)."""

    passed: bool
    reason: str
    cpu_s: float
    harness: str = "split"
    isolation: str = "bwrap"
    final: bool = True
    harness_cpu_s: float = field(default=0.0, compare=False)  # the trusted side's CPU seconds (judged now; 0: cache)


def probe(box: Boundary) -> str:
    """'' when a worker started in ``box`` judges a right and a wrong program rightly; else what went wrong."""
    try:
        with Sandbox(workers=1, boundary=box, cpu_s=5, backstop_s=10) as pool:
            test = "def check(c):\n    assert c(1) == 2\n"
            right = pool.run(CodeJob("def f(x):\n    return x + 1\n", "split", "f", test))
            wrong = pool.run(CodeJob("def f(x):\n    return x\n", "split", "f", test))
    except (OSError, CostOfPassError) as exc:
        return str(exc)
    if right.passed and not wrong.passed:
        return ""
    return right.reason or wrong.reason or "a probe program was judged wrongly"


@lru_cache(maxsize=1)
def find_boundary() -> Boundary | str:
    """The kernel's boundary with the first interpreter that works in it (``boundary.options``), or why none does
    (cached per process)."""
    found, why = options()
    for box in found:
        problem = probe(box)
        if not problem:
            return box
        why.append(f"{box.interpreter.binary}: {problem}")
    return "; ".join(why)


def current_boundary(unisolated_allowed: bool = False) -> Boundary:
    """The boundary to grade in: bubblewrap, or none where the user allowed that (``unisolated_allowed``: the run's
    ``--unisolated-grading``, ``boundary.unisolated``)."""
    found = find_boundary()
    return found if isinstance(found, Boundary) else unisolated(found, unisolated_allowed)


def near_limit(cpu_s: float, limit_s: float = CPU_S) -> bool:
    """Whether a verdict was decided near the CPU limit (``cpu_s``, the program's CPU seconds, at least ``NEAR_LIMIT``
    of ``limit_s``): the machine's speed, not only the program, decided it."""
    return cpu_s >= NEAR_LIMIT * limit_s


def draw_seed(secret: bytes, job: CodeJob) -> int:
    """The seed of the hidden tests' ``random`` in the harness for ``job`` (HumanEval/38, /50 and /53 draw their
    inputs): the same for a job each time under one ``secret`` (a checkout's: ``VerdictCache.draw_secret``), so verdicts
    repeat, and unknown to the program (a fixed seed let a wrong ``decode`` that ignored its input replay the tests'
    draws and pass). The program's own ``random`` starts from 0."""
    body = "\x1f".join([job.program, job.test, job.prompt, job.entry_point]).encode("utf-8", "surrogatepass")
    return int.from_bytes(hmac.new(secret, body, hashlib.sha256).digest()[:8], "big")


def redactor(box: Boundary) -> Redactor:
    """What a reason is redacted with: secrets and key-shaped strings; without a boundary (the program could read this
    process's environment) every value of it too. Inside one the program's environment is empty, and masking every
    value would tell a program that guessed one it was right (it would come back "[redacted]")."""
    return Redactor(every_variable=True) if box.isolation == "none" else Redactor(environment=False)


def clean_reason(text: str, redactor: Redactor | None = None) -> str:
    """A reason fit to store and show: one line, at most ``REASON_CHARS``, no secret of this process's environment
    (``redactor``: one made for many reasons, reading the environment once)."""
    line = " ".join("".join(" " if unicodedata.category(c) in _HIDDEN else c for c in str(text)).split())
    line = (redactor or Redactor(every_variable=True))(line)
    return line if len(line) <= REASON_CHARS else line[:REASON_CHARS - 1] + "…"


def job_key(job: CodeJob, cpu_s: int, memory_mb: int, backstop_s: float, box: Boundary) -> str:
    """The cache key of a job under given limits, boundary, interpreter and rules."""
    parts = [VERSION, cpu_s, memory_mb, backstop_s, box.isolation, box.interpreter.version, job.mode, job.entry_point,
             job.program, job.test, job.prompt, ",".join(job.calls)]
    return hashlib.sha256("\x1f".join(map(str, parts)).encode()).hexdigest()


class _Worker:
    """One worker process and its two-frame protocol."""

    def __init__(self, box: Boundary):
        self.proc = box.start()

    def ask(self, header: plain.JobHeader, program: str, tests: dict, wait_s: float) -> dict | None:
        """The worker's answer, or None when it did not answer within ``wait_s`` (or died). Three frames: the header
        for the worker, the program for the candidate process, the tests for the harness (``sandbox_server``)."""
        stdin, out = self.proc.stdin, self.proc.stdout
        assert stdin is not None and out is not None  # Boundary.start opens both pipes
        try:
            fd = stdin.fileno()
            plain.write_frame(fd, json.dumps(header.to_dict()).encode())
            plain.write_frame(fd, program.encode("utf-8", "surrogatepass"))
            plain.write_frame(fd, json.dumps(tests).encode())
        except (OSError, ValueError):
            return None
        if not select.select([out], [], [], wait_s)[0]:
            return None
        line = out.readline(1 << 16)
        try:
            answer = json.loads(line)
        except ValueError:
            return None
        return answer if isinstance(answer, dict) and answer.get("id") == header.id else None

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for pipe in (self.proc.stdin, self.proc.stdout):
            assert pipe is not None  # Boundary.start opens both pipes
            try:
                pipe.close()
            except OSError:
                pass


class Sandbox:
    """A pool of ``workers`` sandbox workers (default: one per core); use as a context manager."""

    def __init__(self, workers: int | None = None, cpu_s: int = CPU_S, memory_mb: int = MEMORY_MB,
                 backstop_s: float = BACKSTOP_S, hook: bool = True, boundary: Boundary | None = None,
                 draw_secret: bytes | None = None):
        if int(cpu_s) != cpu_s or cpu_s < 1 or memory_mb < 64 or backstop_s <= 0:
            raise CostOfPassError(f"sandbox: cpu_s must be a whole number >= 1, memory_mb >= 64 and backstop_s > 0 "
                                  f"(got {cpu_s}, {memory_mb}, {backstop_s})")
        self.boundary = boundary or current_boundary()
        self.cpu_s, self.memory_mb, self.backstop_s, self.hook = int(cpu_s), memory_mb, backstop_s, hook
        self._draw_secret = draw_secret or secrets.token_bytes(32)  # see ``draw_seed``
        self._redact = redactor(self.boundary)
        self.workers = max(1, workers or os.cpu_count() or 1)
        self._jobs: queue.Queue = queue.Queue()
        self._ids = iter(range(1 << 62))
        self._threads = [threading.Thread(target=self._slot, daemon=True, name=f"sandbox-{i}")
                         for i in range(self.workers)]
        for t in self._threads:
            t.start()

    def __enter__(self) -> "Sandbox":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        for _ in self._threads:
            self._jobs.put(None)
        for t in self._threads:
            t.join()

    @property
    def wait_s(self) -> float:
        """How long the pool waits for a worker's answer before it kills the worker: far past any loaded machine's
        time for ``cpu_s`` (the worker enforces the limits itself; this catches a worker that hangs)."""
        return 10 * (self.cpu_s + 10) + 2 * self.backstop_s

    def _slot(self) -> None:
        worker = None
        while (item := self._jobs.get()) is not None:
            job, future = item
            too_big = max(len(job.program.encode("utf-8", "surrogatepass")), len(job.test) + len(job.prompt))
            if too_big > plain.MAX_FRAME - 4096:  # its frame would never be sent: a verdict, not a dead worker
                future.set_result(Verdict(False, "the program or its tests are larger than the "
                                          f"{plain.MAX_FRAME >> 20} MiB a sandbox message carries", 0.0, job.mode,
                                          self.boundary.isolation))
                continue
            try:
                header = self._header(job)
                worker = worker or _Worker(self.boundary)
                answer = worker.ask(header, job.program, self._tests(job), self.wait_s)
            except plain.BadHeader as exc:  # the grader's own mistake: no verdict of the program's, never cached
                answer = {"error": f"the sandbox could not take the job ({exc})"}
            except OSError as exc:
                answer = {"error": f"the sandbox could not start ({exc})"}
            if answer is None or "error" in answer:
                if worker is not None:
                    worker.stop()
                worker = None
                future.set_result(Verdict(False, (answer or {}).get("error", "the sandbox stopped answering"), 0.0,
                                          job.mode, self.boundary.isolation, final=False))
                continue
            # frames left unread: the worker has ended (serve_job)
            if answer.get("read") is False and worker is not None:
                worker.stop()
                worker = None
            future.set_result(self._verdict(answer, job))
        if worker is not None:
            worker.stop()

    def _tests(self, job: CodeJob) -> dict:
        """The third frame, for the harness only: the hidden tests, the prompt, and the seed their random draws use."""
        return {"test": job.test, "prompt": job.prompt, "seed": draw_seed(self._draw_secret, job)}

    def _header(self, job: CodeJob) -> plain.JobHeader:
        """The job's first frame, for the worker (checked here as the worker checks it: ``plain.BadHeader``)."""
        return plain.JobHeader(next(self._ids), job.mode, job.entry_point,
                               tuple(job.calls or (job.entry_point,)), self.cpu_s, self.memory_mb, self.backstop_s,
                               self.hook).checked()

    def _verdict(self, answer: dict, job: CodeJob) -> Verdict:
        passed = answer.get("passed") is True
        cpu = answer.get("cpu_s")
        cpu = float(cpu) if isinstance(cpu, (int, float)) and not isinstance(cpu, bool) and cpu >= 0 else 0.0
        harness = answer.get("harness_cpu_s")
        harness = float(harness) if isinstance(harness, (int, float)) and not isinstance(harness, bool) else 0.0
        if answer.get("outside") is True:  # a SIGKILL no part of the grader sent: not the program's verdict
            return Verdict(False, OUTSIDE, round(cpu, 4), job.mode, self.boundary.isolation, final=False,
                           harness_cpu_s=round(harness, 4))
        return Verdict(passed, "" if passed
                       else clean_reason(answer.get("reason") or "failed", self._redact), round(cpu, 4), job.mode,
                       self.boundary.isolation, final=answer.get("backstop") is False, harness_cpu_s=round(harness, 4))

    def submit(self, job: CodeJob) -> Future:
        future: Future = Future()
        self._jobs.put((job, future))
        return future

    def run(self, job: CodeJob) -> Verdict:
        """Judge one job (blocking)."""
        return self.submit(job).result()

    def run_many(self, jobs: list[CodeJob]) -> list[Verdict]:
        """Judge ``jobs`` across the workers; verdicts in the jobs' order. A job whose worker died is tried once more;
        one killed from outside the grader (``OUTSIDE``) up to ``OUTSIDE_TRIES`` times in all, then it could not be
        graded (``UNGRADED``: failed, never cached, counted apart by the grading stage)."""
        verdicts = [f.result() for f in [self.submit(j) for j in jobs]]
        # per job: its worker died under it; it was killed from outside
        died, outside = [0] * len(jobs), [0] * len(jobs)
        while again := [i for i, v in enumerate(verdicts)
                        if (v.reason == OUTSIDE and outside[i] < OUTSIDE_TRIES - 1)
                        or (not v.final and v.reason.startswith("the sandbox") and died[i] == 0)]:
            for i in again:
                outside[i] += verdicts[i].reason == OUTSIDE
                died[i] += verdicts[i].reason != OUTSIDE
            for i, v in zip(again, [f.result() for f in [self.submit(jobs[i]) for i in again]]):
                verdicts[i] = v
        return [replace(v, reason=f"{UNGRADED}: killed from outside the grader {OUTSIDE_TRIES} times")
                if v.reason == OUTSIDE else v for v in verdicts]


@dataclass
class GradingRun:
    """What one ``grade_jobs`` did: distinct programs judged now and read from the cache, the wall seconds of judging
    them, their own CPU seconds, and the workers. ``bound_s`` (CPU / workers) is the least time any grader needs."""

    judged: int = 0
    cached: int = 0
    seconds: float = 0.0
    cpu_s: float = 0.0
    workers: int = 1
    harness_cpu_s: float = 0.0  # the harnesses' own CPU seconds (the tests, and decoding the programs' replies)

    @property
    def bound_s(self) -> float:
        return (self.cpu_s + self.harness_cpu_s) / self.workers

    def describe(self) -> str:
        if not self.judged:
            return f"{self.cached} programs' verdicts read from the cache"
        over = f", {100 * (self.seconds / self.bound_s - 1):+.0f}%" if self.bound_s > 0 else ""
        return (f"{self.judged} programs judged in {self.seconds:.1f} s (bound {self.bound_s:.1f} s: their own "
                f"{self.cpu_s:.1f} CPU seconds and their harnesses' {self.harness_cpu_s:.1f} / {self.workers} workers"
                f"{over}), {self.cached} from the cache")


def grade_jobs(jobs: list[CodeJob], cache_path: Path | None = None, workers: int | None = None, cpu_s: int = CPU_S,
               memory_mb: int = MEMORY_MB, backstop_s: float = BACKSTOP_S, run: GradingRun | None = None,
               unisolated_allowed: bool = False) -> list[Verdict]:
    """Verdicts of ``jobs`` (in order): cached ones read, each distinct new one judged once in the sandbox; only
    final verdicts are cached. ``run``, when given, is filled with what was done (``GradingRun``);
    ``unisolated_allowed``: as ``current_boundary``'s."""
    import time

    box = current_boundary(unisolated_allowed)
    cache = VerdictCache(cache_path)
    keys = [job_key(j, cpu_s, memory_mb, backstop_s, box) for j in jobs]
    todo = {k: j for k, j in zip(keys, jobs) if k not in cache.known}
    fresh: dict[str, Verdict] = {}
    run = run if run is not None else GradingRun()
    run.cached = len(set(keys)) - len(todo)
    if todo:
        start = time.perf_counter()
        with Sandbox(workers, cpu_s, memory_mb, backstop_s, boundary=box, draw_secret=cache.draw_secret) as pool:
            fresh = dict(zip(todo, pool.run_many(list(todo.values())), strict=True))
        run.judged, run.seconds, run.workers = len(todo), time.perf_counter() - start, pool.workers
        run.cpu_s = sum(v.cpu_s for v in fresh.values())
        run.harness_cpu_s = sum(v.harness_cpu_s for v in fresh.values())
        cache.add(_row(k, v) for k, v in fresh.items() if v.final)
    redact = redactor(box)
    return [fresh[k] if k in fresh else _from_row(cache.known[k], redact) for k in keys]


def _row(key: str, v: Verdict) -> dict:
    return {"key": key, "passed": v.passed, "reason": v.reason, "cpu_s": v.cpu_s, "harness": v.harness,
            "isolation": v.isolation}


def _from_row(row: dict, redact: Redactor) -> Verdict:
    return Verdict(row["passed"], clean_reason(row["reason"], redact) if row["reason"] else "", float(row["cpu_s"]),
                   row["harness"], row["isolation"])

