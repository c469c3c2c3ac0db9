"""The sandbox's worker: run as a script (``python -S -s -P sandbox_server.py isolated|bare``), never imported by the
analysis.

Inside the boundary (``grade.boundary``: bubblewrap, an unprivileged user, its own user, PID, network, IPC, UTS and
mount namespaces, a read-only file system of the interpreter's standard library) the worker takes one job at a time on
stdin and answers one JSON line per job on stdout, each job in a process of its own forked from the worker
(``serve_job``), so the worker, from which every later job is forked, never holds a verdict. A job is three frames
(``plain.write_frame``): the first, read by the worker, names the limits, the mode and the entry point; the second,
read only by the candidate process, is the program; the third, read only by the harness process, holds the hidden
tests. The worker never reads a program or a test, so no process forked from it holds another job's program or any
test in its memory.

Per job, two processes:

- the *harness*, forked from the worker, first moves into new mount, IPC, PID and UTS namespaces, mounts an
  empty size-limited tmpfs on ``/tmp`` and an empty one over ``/proc``, and forks the candidate; only then does it read
  the hidden tests, drop every capability and take its own limits (no new processes, no file writes). It defines the
  problem's own helpers from its prompt and runs ``check`` with a stand-in that calls the candidate over a channel: the
  comparisons, and the verdict, happen here, in a process the program cannot see, write, trace or signal;
- the *candidate* is PID 1 of those namespaces (so nothing it could start outlives it). It drops every capability, sets
  no_new_privs, a seccomp filter (``kernel``) and its limits (CPU seconds, address space, 1 MiB files, a file count, no
  new processes or threads, no core dumps), starts its own session and runs the program with stdio on /dev/null and
  an audit hook as a second line (never the boundary). In ``split`` mode it then answers calls of the entry point
  (and of the functions only the solution defines that the tests call, ``calls``), each call's arguments and result
  plain data (``plain``); in ``whole`` mode (tests that cannot be run apart) it runs solution, tests and ``check``
  together and says when it reached the end.

The CPU limit is the harness's: while it waits for the candidate's answer it reads the candidate's CPU clock (the
scheduler's exact count of the seconds it ran) and kills it at the limit. ``RLIMIT_CPU``, which counts in timer-tick
samples that a busy machine inflates (a program was charged 21 s for 18 s of running) and whose SIGXCPU a namespace's
PID 1 never receives, stays as a backstop at twice the limit. The worker polls both processes and kills the job when
the program's *sleep* exceeds the backstop: wall time less the time the candidate and the harness ran or waited for a
CPU (``/proc/<pid>/schedstat``), so a busy machine does not change it. ``bare`` mode (no boundary, only with the user's
explicit consent) runs the same processes without namespaces. Standard library only.
"""

import builtins
import gc
import json
import os
import resource
import select
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kernel  # noqa: E402  (beside this file: /box inside the boundary)
import plain  # noqa: E402
import reasons  # noqa: E402

# Standard modules that graded programs and the problems' prompts import often (HumanEval's solutions: typing, re,
# heapq, math, itertools in thousands; the harness seeds random), loaded once here so that every forked job finds them
# in sys.modules instead of importing them again (each job's state is still its own: copy-on-write). Rarer imports
# (fractions, hashlib, datetime: tens) pay for themselves; a smaller worker forks faster.
PRELOAD = ("typing", "re", "heapq", "math", "itertools", "collections", "functools", "random", "string")

SCRATCH_MB, MAX_FILES, FILE_MB, MAX_FDS = 64, 256, 1, 64
READ = b'{"read": true}'  # the candidate's first word: it has taken its program off stdin
REASON_CHARS = 300
HOOK_BLOCKED = ("os.fork", "os.forkpty", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.kill", "os.killpg",
                "subprocess.Popen", "pty.spawn", "socket.", "ctypes.", "os.setuid", "os.setgid", "os.chroot",
                "resource.setrlimit", "resource.prlimit", "sys.addaudithook", "webbrowser.open", "urllib.Request",
                "http.client.connect", "mmap.__new__", "sqlite3.connect")


def said(exc: BaseException) -> str:
    """A reason for ``exc``, raised in the harness (``reasons.reason``: its type, and its message only where it is
    CPython's own), or the reason the harness gave it where the program's process raised it (``builtin_exception``)."""
    own = getattr(exc, "cop_reason", None)
    return (own if isinstance(own, str) else reasons.reason(type(exc).__name__, str(exc), False))[:REASON_CHARS]


def _limit(name: str, value: int) -> None:
    kind = getattr(resource, name, None)
    if kind is not None:
        try:
            resource.setrlimit(kind, (value, value))
        except (ValueError, OSError):
            pass  # a limit this kernel cannot set; the boundary stands without it


def confine(cpu_s: int, memory_mb: int, isolated: bool, file_bytes: int) -> None:
    """The limits of a process that runs code we do not trust (the candidate, and the harness's tests), and an empty
    environment (bubblewrap clears it but sets PWD). ``cpu_s`` is the kernel's backstop (SIGKILL: a namespace's PID 1
    never receives SIGXCPU); the candidate's limit proper is the harness's (``Watch``)."""
    os.environ.clear()
    _limit("RLIMIT_CPU", cpu_s)
    _limit("RLIMIT_AS", memory_mb << 20)
    _limit("RLIMIT_FSIZE", file_bytes)
    _limit("RLIMIT_CORE", 0)
    _limit("RLIMIT_NPROC", 0)  # no fork, no thread (it binds: the kernel's user is never root, also when the caller is)
    _limit("RLIMIT_NOFILE", MAX_FDS)
    _limit("RLIMIT_MEMLOCK", 0)
    _limit("RLIMIT_MSGQUEUE", 0)
    if isolated:
        kernel.drop_capabilities()
    else:
        kernel.prctl(kernel.PR_SET_NO_NEW_PRIVS, 1)
    kernel.install_seccomp()


def seed(value: int = 0) -> None:
    """The same random numbers in every job, whichever worker runs it and whenever: the program's from 0, the hidden
    tests' (HumanEval/38, /50, /53 draw inputs) from the job's secret seed (``sandbox.draw_seed``), so both judge alike
    each time and no program can replay the tests' draws. String hashing is fixed too, for the whole worker
    (``PYTHONHASHSEED=0``, set by ``grade.boundary``), so a set's iteration order is as well."""
    import random

    random.seed(value)


def keep_only(fds: list[int]) -> None:
    """Close every descriptor but ``fds``; stdin, stdout and stderr become /dev/null."""
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        if fd not in fds:
            os.dup2(null, fd)
    low = 3
    for fd in sorted(set(fds) - {0, 1, 2}):
        os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, os.sysconf("SC_OPEN_MAX"))


def install_guard(scratch: str) -> None:
    """The audit hook (PEP 578): a second line that refuses what the boundary also refuses, with a readable reason."""
    scratch = os.path.realpath(scratch)
    blocked = tuple(HOOK_BLOCKED)  # the hook's own copy: a program that rebinds the module's name changes nothing here

    def guard(event, args):
        if event.startswith(blocked):
            raise PermissionError(f"blocked by the sandbox: {event}")
        if event == "open" and args[0] is not None and not isinstance(args[0], int):
            writes = (args[1] is not None and any(c in args[1] for c in "wax+")) or bool((args[2] or 0) & (
                os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC))
            real = os.path.realpath(os.fsdecode(args[0]))
            if writes and not (real == scratch or real.startswith(scratch + os.sep)):
                raise PermissionError("blocked by the sandbox: open for writing outside the scratch directory")

    sys.addaudithook(guard)


# ---- the candidate -------------------------------------------------------------------------------------------------
def serve(job: plain.JobHeader, program: str, chan_in: int, chan_out: int) -> None:
    """Run the program; in split mode, answer calls of the functions the job names (``calls``: the entry point, then
    those only the solution defines), each frame [index into ``calls``, args, kwargs], until the harness closes the
    channel. A named function the program does not define raises NameError when called (the tests fail there)."""
    space: dict = {"__name__": "__main__" if job.mode == "whole" else "__solution__", "__builtins__": builtins}
    try:
        exec(compile(program, "<solution>", "exec"), space)
        entry = space.get(job.entry_point) if job.mode == "split" else None
        if job.mode == "split" and not callable(entry):
            raise NameError(f"name '{job.entry_point}' is not defined")
    except BaseException as exc:  # noqa: BLE001 - every way out of the program is an answer
        plain.write_frame(chan_out, json.dumps({"load_error": [type(exc).__name__, str(exc)[:REASON_CHARS]]}).encode())
        return
    plain.write_frame(chan_out, json.dumps({"ready": True}).encode())
    calls = job.calls
    while job.mode == "split":
        frame = plain.read_frame(chan_in)
        if frame is None:
            return
        which, args, kwargs = plain.decode(frame)
        try:
            function = space.get(calls[which]) if which else entry
            if not callable(function):
                raise NameError(f"name '{calls[which]}' is not defined")
            reply = {"ok": plain.to_json(function(*args, **kwargs))}
        except BaseException as exc:  # noqa: BLE001
            reply = {"raise": [type(exc).__name__, str(exc)[:REASON_CHARS]]}
        plain.write_frame(chan_out, json.dumps(reply, allow_nan=True).encode())


def candidate(job: plain.JobHeader, chan_in: int, chan_out: int, isolated: bool, scratch: str) -> None:
    """The program's own process (working in ``scratch``); never returns."""
    try:
        os.setsid()
        kernel.prctl(kernel.PR_SET_PDEATHSIG, signal.SIGKILL)
        program = plain.read_frame(0).decode("utf-8", "surrogatepass")  # frame two: the program, for this process only
        plain.write_frame(chan_out, READ)  # the harness may now read frame three
        os.chdir(scratch)
        keep_only([chan_in, chan_out])
        confine(backstop_cpu_s(job), job.memory_mb, isolated, FILE_MB << 20)
        sys.set_int_max_str_digits(0)
        seed()
        if job.hook:
            install_guard(scratch)
        serve(job, program, chan_in, chan_out)
    except BaseException:  # noqa: BLE001 - the harness sees the channel close
        pass
    os._exit(0)


# ---- the harness ---------------------------------------------------------------------------------------------------
class CandidateGone(BaseException):
    """The candidate's channel closed before it answered (a BaseException: no test's ``except Exception`` hides it)."""


class CpuLimit(BaseException):
    """The candidate reached the CPU limit; the harness has killed it."""


POLL_S = 0.05  # how often the harness reads the candidate's CPU clock while it computes
HARNESS_MARGIN_S = 2  # the harness's own RLIMIT_CPU is the limit plus this: what it spends is the program's (``Watch``)


def backstop_cpu_s(job: plain.JobHeader) -> int:
    """The kernel's CPU limit of the candidate (RLIMIT_CPU), far above the harness's: it ends a candidate whose
    harness stopped watching, and a busy machine's inflated tick count never reaches it first."""
    return 2 * job.cpu_s + 5


class Watch:
    """The program's CPU seconds — the candidate's as the scheduler counts them (its process CPU clock, readable while
    it lives or waits to be reaped) and every second the harness spends judging it (decoding its replies, running the
    hidden tests on them: ``charged``) — and the limit on them: ``hit`` once the harness killed it there. So a job
    holds a worker for at most the limit in CPU (plus one stretch of the tests' own code between two calls, which the
    harness's RLIMIT_CPU, ``HARNESS_MARGIN_S`` above the limit, ends) and the sleep backstop."""

    def __init__(self, pid: int, limit_s: float):
        clock = ((~pid & 0xFFFFFFFF) << 3 & 0xFFFFFFFF) | 2  # the kernel's MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED)
        self.clock = clock - (1 << 32) if clock >= 1 << 31 else clock
        self.pid, self.limit_s, self.hit = pid, limit_s, False
        self.judging_from: float | None = None  # the harness's process time when judging began (``start``)

    def start(self) -> None:
        """Judging begins: from now on the harness's CPU seconds are the program's."""
        self.judging_from = time.process_time()

    @property
    def charged(self) -> float:
        """The harness's CPU seconds since judging began (charged to the program)."""
        return time.process_time() - self.judging_from if self.judging_from is not None else 0.0

    def seconds(self) -> float | None:
        try:
            return time.clock_gettime(self.clock)
        except OSError:
            return None

    def used(self) -> float:
        """The program's CPU seconds so far: its own and what judging it has cost the harness."""
        return (self.seconds() or 0.0) + self.charged

    def stop(self) -> None:
        """The limit is reached: kill the candidate and say so (``CpuLimit``)."""
        self.hit = True
        kill(self.pid)
        raise CpuLimit()

    def wait(self, fd: int) -> None:
        """Return once ``fd`` is readable; ``CpuLimit`` once the program's CPU seconds reach the limit meanwhile,
        also between two parts of one frame."""
        while not select.select([fd], [], [], POLL_S)[0]:
            if self.used() >= self.limit_s:
                self.stop()

    def wait_writable(self, fd: int) -> None:
        """Return once ``fd`` takes bytes (or its reader is gone); ``CpuLimit`` once the program's CPU seconds reach the
        limit meanwhile: a program that stops reading a large call and computes is watched as one that computes."""
        while not select.select([], [fd], [], POLL_S)[1]:
            if self.used() >= self.limit_s:
                self.stop()

    def receive(self, fd: int) -> bytes | None:
        """The candidate's next frame on ``fd`` (None: it is gone), read under ``wait``."""
        return plain.read_frame(fd, self.wait)

    def check(self) -> None:
        """``CpuLimit`` where the program's CPU seconds (with what the harness spent on it) reach the limit."""
        if self.used() >= self.limit_s:
            self.stop()


WATCH: Watch | None = None  # the harness's watch over its candidate (set in ``harness``)


def receive(fd: int) -> bytes | None:
    return WATCH.receive(fd) if WATCH is not None else plain.read_frame(fd)


class CandidateError(Exception):
    """The candidate raised an exception that is not a built-in one (its type's name and message)."""


def builtin_exception(name: str, message: str, inputs: tuple = ()) -> BaseException:
    """The exception the program's process raised (type ``name``), raised again in the hidden tests: a built-in type
    where it is one, holding only the message a reason may keep (``reasons``; none of the call's ``inputs``), and its
    reason (``cop_reason``)."""
    kept = reasons.kept_message(name, message, inputs) or ""
    kind = getattr(builtins, name, None)
    exc: BaseException = CandidateError(reasons.type_name(name, inputs))
    if isinstance(kind, type) and issubclass(kind, (StopIteration, StopAsyncIteration)):
        kind = None  # raised again as itself it would end a test's ``all(map(candidate, …))`` early: a forged pass
    if isinstance(kind, type) and issubclass(kind, Exception) and kind.__module__ == "builtins":
        try:
            exc = kind(kept)
        except Exception:  # noqa: BLE001 - a built-in type that takes other arguments
            pass
    exc.cop_reason = reasons.reason(name, message, True, inputs)  # type: ignore[attr-defined]
    return exc


CALLED: list = []  # every argument the job's hidden tests have passed to the program so far (one job per process)


def stand_in(name: str, to_c: int, from_c: int, which: int = 0):
    """A function the hidden tests call (the ``which``-th of the job's ``calls``, named ``name``): its arguments to
    the candidate, its answer back as plain data."""

    def call(*args, **kwargs):
        try:
            plain.write_frame(to_c, plain.encode([which, list(args), kwargs]), WATCH.wait_writable if WATCH else None)
        except BrokenPipeError:
            raise CandidateGone("the program ended before it took its call") from None
        CALLED.extend([*args, kwargs])
        frame = receive(from_c)
        if frame is None:
            raise CandidateGone("the program ended before it answered")
        return answer(frame, tuple(CALLED))  # no reason holds an input of any call so far (a program remembers them)

    call.__name__ = call.__qualname__ = name
    return call


def answer(frame: bytes, inputs: tuple = ()):
    """The value (or the exception) a reply frame carries, decoded on the program's CPU budget: what decoding costs
    the harness is charged to the program (``Watch``), and a reply that would take the program past its limit
    is its CPU limit. Integers keep Python's digit limit here, so a huge one is refused before it is parsed."""
    watch = WATCH
    assert watch is not None  # set by ``harness`` before any test calls the stand-in
    start = time.process_time()
    plain.DEADLINE[:] = [start + max(watch.limit_s - watch.used(), 0.0)]
    try:
        try:
            reply = json.loads(frame.decode("utf-8"))
        except ValueError:  # not UTF-8 or JSON, or an integer past the digit limit (its error would say the count)
            raise not_plain() from None
        if type(reply) is not dict or len(reply) != 1:
            raise plain.NotPlain("an answer that is not one reply")
        if "ok" in reply:
            return plain.from_json(reply["ok"])
        kind, message = reply.get("raise", ["NotPlain", "an unknown reply"])
        raise builtin_exception(str(kind), str(message), inputs)
    except plain.OverBudget:
        watch.stop()
    finally:
        plain.DEADLINE.clear()
        watch.check()


def not_plain() -> plain.NotPlain:
    """A reply the harness does not read, with a reason that says so and nothing of the reply."""
    exc = plain.NotPlain("a reply that is not plain data")
    reason = "the program's reply was not plain data (not UTF-8 JSON, or an integer longer than Python's digit limit)"
    exc.cop_reason = reason  # type: ignore[attr-defined]
    return exc


def judge(job: plain.JobHeader, tests: dict, to_c: int, from_c: int) -> tuple[bool, str]:
    """The verdict: passed, or the reason it did not ("gone": the candidate ended without a word)."""
    first = receive(from_c)
    if first is None:
        return False, "gone"
    try:
        reply = json.loads(first.decode("utf-8"))
    except ValueError:  # not UTF-8, not JSON: the program wrote it
        return False, "the program's first message was not its own"
    if type(reply) is not dict or not ({"ready", "load_error"} & set(reply)):
        return False, "the program's first message was not its own"
    if "load_error" in reply:
        said_ = reply["load_error"]
        if not (isinstance(said_, list) and len(said_) == 2 and all(isinstance(x, str) for x in said_)):
            return False, "the program's first message was not its own"
        return False, reasons.reason(said_[0], said_[1], True, at_load=True)[:REASON_CHARS]
    if job.mode == "whole":
        return True, ""
    space: dict = {"__name__": "__harness__", "__builtins__": builtins}
    exec(compile(tests["prompt"], "<prompt>", "exec"), space)  # the problem's own helpers (e.g. HumanEval/38's encoder)
    for which, name in enumerate(job.calls):  # the entry point (over the prompt's stub of it) and what only the
        space[name] = stand_in(name, to_c, from_c, which)  # solution defines: run in its process (HumanEval/33)
    exec(compile(tests["test"], "<tests>", "exec"), space)
    try:
        space["check"](stand_in(job.entry_point, to_c, from_c))
    except CandidateGone:
        return False, "gone"
    except CpuLimit:
        raise
    except BaseException as exc:  # noqa: BLE001 - an assertion, the candidate's exception, a value that is not plain
        return False, said(exc)
    return True, ""


def enclose(job: plain.JobHeader, to_c: tuple[int, int], from_c: tuple[int, int], isolated: bool, scratch: str) -> int:
    """New namespaces and a fresh /tmp for one program, /proc hidden, and its candidate process (returned: its pid,
    as this namespace sees it). Runs before the hidden tests are read, so the candidate's memory holds none."""
    if isolated:
        kernel.unshare(kernel.CLONE_NEWNS | kernel.CLONE_NEWIPC | kernel.CLONE_NEWPID | kernel.CLONE_NEWUTS)
        kernel.fresh_clocks()  # through /proc, before it is hidden
        kernel.mount("none", "/", None, kernel.MS_REC | kernel.MS_PRIVATE)
        kernel.mount("tmpfs", "/tmp", "tmpfs", kernel.MS_NOSUID | kernel.MS_NODEV,
                     f"size={SCRATCH_MB}m,nr_inodes={MAX_FILES},mode=0700")
        kernel.mount("tmpfs", "/proc", "tmpfs", kernel.MS_RDONLY | kernel.MS_NOSUID | kernel.MS_NODEV, "size=4k")
    pid = os.fork()
    if pid == 0:
        os.close(to_c[1])
        os.close(from_c[0])
        candidate(job, to_c[0], from_c[1], isolated, scratch)
    os.close(to_c[0])
    os.close(from_c[1])
    return pid


def harness(job: plain.JobHeader, report: int, isolated: bool, scratch: str) -> None:
    """Enclose the candidate, read the hidden tests (frame three of the job, on stdin, once the candidate has taken
    frame two), judge, end the candidate and report (``{"pid"}`` first, ``{"read"}`` once the job's frames are off
    stdin, then the verdict with the candidate's status and CPU seconds); never returns."""
    global WATCH
    result, pid = {"passed": False, "reason": "the harness failed"}, None
    try:
        os.setsid()
        to_c, from_c = os.pipe(), os.pipe()
        pid = enclose(job, to_c, from_c, isolated, scratch)
        WATCH = Watch(pid, job.cpu_s)
        os.write(report, (json.dumps({"pid": pid}) + "\n").encode())
        # the candidate died before it took its program: frame three is not next
        if plain.read_frame(from_c[0]) != READ:
            raise CandidateGone("gone")
        tests_frame = plain.read_frame(0)
        os.write(report, b'{"read": true}\n')
        keep_only([to_c[1], from_c[0], report])
        tests = json.loads(tests_frame.decode("utf-8")) if tests_frame else {}
        confine(job.cpu_s + HARNESS_MARGIN_S, job.memory_mb, isolated, 0)
        seed(tests.pop("seed", 0) if isinstance(tests.get("seed"), int) else 0)  # Python's digit limit stays: a
        # reply's integer of more digits is refused before it costs anything
        WATCH.start()
        passed, reason = judge(job, tests, to_c[1], from_c[0])
        result = {"passed": passed, "reason": reason}
    except CandidateGone:
        result = {"passed": False, "reason": "gone"}
    except CpuLimit:
        pass
    except BaseException as exc:  # noqa: BLE001
        result = {"passed": False, "reason": f"the harness failed: {said(exc)}"}
    if WATCH is not None and WATCH.hit:  # also when a test caught what the stand-in raised
        result = {"passed": False, "reason": f"CPU time limit ({job.cpu_s} s)"}
    if pid:
        result = end_candidate(pid, result, job)
    charged_s = result.get("charged_s", 0.0)
    result["harness_cpu_s"] = time.process_time() - (charged_s if isinstance(charged_s, float) else 0.0)  # its own
    try:
        os.write(report, json.dumps(result).encode()[:4096] + b"\n")
    except OSError:
        pass
    os._exit(0)


def end_candidate(pid: int, result: dict, job: plain.JobHeader) -> dict:
    """The verdict ``result`` once the candidate ``pid`` is ended and reaped, with its status and CPU seconds: a
    channel it closed while it ran on is its own failure, not a kill from outside; a pass at or past the CPU limit
    (however it got there) is the limit."""
    if result.get("reason") == "gone" and still_running(pid):  # it closed its channel, and lives on: its own doing
        result = {"passed": False, "reason": "the program closed its channel before it answered"}
    kill(pid)  # judged: whatever the program still does is not waited for
    cpu = WATCH.seconds() if WATCH is not None else None  # exact, before the reaping ends the clock
    _, status, usage = os.wait4(pid, 0)
    cpu = cpu if cpu is not None else usage.ru_utime + usage.ru_stime
    charged = WATCH.charged if WATCH is not None else 0.0  # read before the report: its own writing is not judging
    result.update(status=status, cpu_s=cpu, charged_s=charged)
    if cpu + charged >= job.cpu_s and result.get("passed"):
        result.update(passed=False, reason=f"CPU time limit ({job.cpu_s} s)")
    return result


# ---- the worker ----------------------------------------------------------------------------------------------------
def busy_s(pid: int) -> float | None:
    """Seconds ``pid`` has run or waited for a CPU (``/proc/<pid>/schedstat``), None when not readable."""
    try:
        with open(f"/proc/{pid}/schedstat", "rb") as fh:
            run_ns, wait_ns = fh.read().split()[:2]
        return (int(run_ns) + int(wait_ns)) / 1e9
    except (OSError, ValueError):
        return None


def still_running(pid: int, grace_s: float = 0.5) -> bool:
    """Whether the harness's child ``pid`` has not ended within ``grace_s`` (looked at without reaping it): a program
    killed from outside closes its channel as it dies and ends within moments; one that closed its channel itself
    lives on."""
    deadline = time.monotonic() + grace_s
    while True:
        if os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
            return False
        if time.monotonic() >= deadline:
            return True
        time.sleep(0.01)


def kill(pid: int | None) -> None:
    if pid:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def status_reason(status: int, cpu: float, job: plain.JobHeader) -> str:
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        if sig == signal.SIGXCPU or (sig == signal.SIGKILL and cpu >= job.cpu_s):  # RLIMIT_CPU, the backstop
            return f"CPU time limit ({job.cpu_s} s)"
        return f"killed by {signal.Signals(sig).name}" if sig in signal.valid_signals() else f"killed by signal {sig}"
    return f"the program ended before it answered (exit {os.waitstatus_to_exitcode(status)})"


def run(job: plain.JobHeader, isolated: bool) -> dict:
    """One job: fork the harness (which encloses the candidate), watch it, kill at the backstop, compose the answer.
    Whether the job is ``isolated`` and where its program works are the worker's to decide, never the header's."""
    start = time.monotonic()
    if not isolated:
        import tempfile  # bare mode only: the worker stays small, so each fork copies less

        scratch = tempfile.mkdtemp(prefix="cop-program-")
    else:
        scratch = "/tmp"
    report = os.pipe()
    harness_pid = os.fork()
    if harness_pid == 0:
        os.close(report[0])
        harness(job, report[1], isolated, scratch)
    os.close(report[1])
    out = watch(job, harness_pid, report[0], start)
    os.close(report[0])
    if not isolated:
        import shutil

        shutil.rmtree(scratch, ignore_errors=True)
    return out


def watch(job: plain.JobHeader, harness_pid: int, report: int, start: float) -> dict:
    """Wait for the harness's report; the backstop counts the program's sleep only (see the module's docstring)."""
    notes, cand, backstop, busy, read_at, handle = b"", None, False, {}, 1.0, None
    while True:
        if select.select([report], [], [], 0.1)[0]:
            chunk = os.read(report, 65536)
            if not chunk:
                break
            notes += chunk
            if cand is None and b"\n" in notes:
                cand = json.loads(notes.split(b"\n", 1)[0]).get("pid")
                handle = pid_handle(cand)  # the candidate is its harness's unreaped child: this pid is still it
        wall = time.monotonic() - start
        if backstop or wall < read_at:
            continue  # read about once a second: most programs end before the first reading
        read_at = wall + 1.0
        for pid in (cand, harness_pid):
            seconds = busy_s(pid) if pid else None
            if seconds is not None:
                busy[pid] = seconds  # a process that ended keeps its last reading
        if wall - sum(busy.values()) > job.backstop_s:
            backstop = True
            for pid in (cand, harness_pid):
                kill(pid)  # the candidate is its namespace's PID 1: nothing it started survives it
    end_namespace(handle)  # however the harness ended: the candidate (its namespace's PID 1) and all it started go
    _, status, usage = os.wait4(harness_pid, 0)
    answer = compose(job, notes, backstop, bool(busy), time.monotonic() - start)
    harness_cpu = usage.ru_utime + usage.ru_stime
    answer["outside"] = killed_from_outside(job, notes, backstop, status, harness_cpu, answer)
    if (not answer["outside"] and not backstop and not any("passed" in x for x in _lines(notes))
            and os.WIFSIGNALED(status) and harness_cpu >= job.cpu_s + HARNESS_MARGIN_S - 1):
        answer["reason"] = f"CPU time limit ({job.cpu_s} s)"  # the harness's own limit: judging is the program's
    return answer


def killed_from_outside(job: plain.JobHeader, notes: bytes, backstop: bool, harness_status: int, harness_cpu: float,
                        answer: dict) -> bool:
    """Whether a failure is a kill no part of the grader sent (the OOM killer, an operator): the candidate's SIGKILL,
    below its CPU limit (it is PID 1 of its namespace, so nothing inside it can send itself one, and it may not lower
    its CPU limit: the filter refuses; the grader's own kills come with a verdict, the CPU limit, the backstop, or a
    channel the program closed while it ran on), or the harness's end by one of ``OUTSIDE_SIGNALS`` before any verdict
    and below its own CPU limit.
    Such a verdict is not the program's: the grader judges it again (``sandbox.OUTSIDE_TRIES``)."""
    if backstop or answer["passed"]:
        return False
    ended = [x for x in _lines(notes) if "passed" in x]
    if ended:
        status = ended[0].get("status")
        return (ended[0].get("reason") == "gone" and isinstance(status, int) and os.WIFSIGNALED(status)
                and os.WTERMSIG(status) == signal.SIGKILL and answer["cpu_s"] < job.cpu_s)
    return (os.WIFSIGNALED(harness_status) and os.WTERMSIG(harness_status) in OUTSIDE_SIGNALS
            and harness_cpu < job.cpu_s + HARNESS_MARGIN_S - 1)  # below its own RLIMIT_CPU (``harness``)


# What an operator or the OOM killer sends; never a crash of the harness (SIGSEGV, SIGABRT, …: a program may cause one,
# and it stays the program's failure) nor its own CPU limit (SIGXCPU)
OUTSIDE_SIGNALS = frozenset({signal.SIGKILL, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGINT})


def _lines(notes: bytes) -> list[dict]:
    """The harness's report lines that are JSON objects."""
    out = []
    for line in notes.decode("utf-8", "replace").splitlines():
        try:
            x = json.loads(line)
        except ValueError:
            continue
        if isinstance(x, dict):
            out.append(x)
    return out


def pid_handle(pid: int | None) -> int | None:
    """A pidfd of ``pid`` (a kill through it never reaches a process that later took the same number); None where
    it cannot be had (the process already ended, or a kernel without pidfds)."""
    try:
        return os.pidfd_open(pid) if pid else None
    except (OSError, AttributeError):
        return None


def end_namespace(handle: int | None) -> None:
    """SIGKILL through ``handle`` (the candidate, PID 1 of its namespace: the kernel then kills every process of that
    namespace), and close it."""
    if handle is None:
        return
    try:
        signal.pidfd_send_signal(handle, signal.SIGKILL)
    except (OSError, AttributeError):
        pass  # already gone
    os.close(handle)


def compose(job: plain.JobHeader, notes: bytes, backstop: bool, schedstat: bool, wall: float) -> dict:
    lines = _lines(notes)
    end: dict = next((x for x in lines if "passed" in x), {"reason": "gone"})
    read = any(x.get("read") is True for x in lines)
    cpu = float(end.get("cpu_s", 0.0)) + float(end.get("charged_s", 0.0))  # the program's, and its replies' decoding
    passed, reason = end.get("passed") is True, str(end.get("reason", ""))[:REASON_CHARS]
    if backstop:
        passed, reason = False, f"slept past the {job.backstop_s} s backstop" + ("" if schedstat else " (wall time)")
    elif not passed and reason == "gone":
        reason = status_reason(end["status"], cpu, job) if "status" in end else "the harness ended without a verdict"
    harness = end.get("harness_cpu_s")  # the harness's own process CPU (its rusage would count the candidate too)
    return {"harness_cpu_s": round(float(harness), 4) if isinstance(harness, (int, float)) else 0.0,
            "id": job.id, "passed": passed, "reason": "" if passed else reason, "cpu_s": round(cpu, 4),
            "wall_s": round(wall, 4), "backstop": backstop, "mode": job.mode, "read": read}


def main(mode: str) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the grader stops the worker, not the terminal's Ctrl-C
    os.environ.clear()  # PYTHONHASHSEED has done its work at start-up: every job's process starts with none
    for name in PRELOAD:
        __import__(name)
    kernel.prepare()
    kernel.prctl(kernel.PR_SET_DUMPABLE, 0)  # no process of the same user may trace or read this one
    gc.freeze()  # the worker's objects out of the collector's sight: a job's collections touch (and copy) none of them
    isolated = mode == "isolated"
    while True:
        frame = plain.read_frame(0)
        if frame is None:
            return
        if not serve_job(frame, isolated):
            return  # a frame of the job is still on stdin, unread: a new worker starts clean rather than read it here


def serve_job(frame: bytes, isolated: bool) -> bool:
    """Judge one job in a process of its own, forked from the worker, which writes the answer and ends: no verdict,
    reason or job of one program stays in the worker's memory for the next program's processes (forked from it) to
    find. Whether the job's frames were all read off stdin."""
    pid = os.fork()
    if pid == 0:
        try:
            job = plain.JobHeader.from_dict(json.loads(frame.decode("utf-8")))
        except (ValueError, RecursionError) as exc:  # not UTF-8 JSON, or not a header (``plain.BadHeader``)
            answer = refused(frame, exc)
        else:
            answer = run(job, isolated)
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
        os._exit(0 if answer["read"] else 3)
    del frame
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) == 0


def refused(frame: bytes, exc: BaseException) -> dict:
    """The answer to a first frame that is not a job header: no program runs, its frames stay unread (the worker
    ends: ``serve_job``), and the grader reads why (its ``id`` where the frame has one)."""
    try:
        data = json.loads(frame.decode("utf-8"))
        given = data.get("id") if type(data) is dict else None
    except (ValueError, RecursionError):
        given = None
    return {"id": given if type(given) is int else None, "error": f"the worker refused the job: {exc}"[:REASON_CHARS],
            "read": False}


if __name__ == "__main__":
    main(sys.argv[1])
