"""The sandbox's server: run as a script (``python -I -S sandbox_server.py ROOT``), never imported by the analysis.

Reads one job per line on stdin (JSON: ``id``, ``program``, ``timeout_s``, ``memory_mb``) and answers one line
per job on stdout (``id``, ``passed``, ``reason``, ``seconds``). Each job runs in a forked child that, before it
runs a line of the program: starts its own session (so the server can kill all it made), moves into an empty
scratch directory under ROOT, sets resource limits (address space ``memory_mb``, CPU ``timeout_s`` + 1 s,
files of at most 1 MiB, no core dumps, no new processes where the kernel enforces it), sends its stdin, stdout
and stderr to /dev/null, and installs an audit hook (PEP 578) that refuses new processes, sockets, ctypes,
signals to other processes, writes and deletions outside the scratch directory and reads outside it and the
standard library. The server kills the child's session at ``timeout_s`` of wall time. The child passes only
by writing its token to a pipe after the whole program ran; anything else (an exception, an exit, a kill) is a
failure with its reason. Only the standard library is used: this file runs in the stripped interpreter.
"""

import json
import os
import resource
import select
import shutil
import signal
import sys
import tempfile
import time

PASS = b"passed"
BLOCKED_EVENTS = ("os.fork", "os.forkpty", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.kill",
                  "os.killpg", "subprocess.Popen", "pty.spawn", "socket.", "ctypes.", "os.setuid", "os.setgid",
                  "os.putenv", "os.unsetenv", "os.chroot", "resource.setrlimit", "resource.prlimit", "sys.addaudithook",
                  "webbrowser.open", "urllib.Request", "http.client.connect", "ftplib.", "smtplib.", "imaplib.",
                  "poplib.", "nntplib.", "telnetlib.", "mmap.__new__", "sqlite3.connect", "os.startfile")
PATH_EVENTS = {"os.remove": 1, "os.rmdir": 1, "os.mkdir": 1, "os.rename": 2, "os.replace": 2, "os.symlink": 2,
               "os.link": 2, "os.chmod": 1, "os.chown": 1, "os.truncate": 1, "os.utime": 1, "shutil.rmtree": 1,
               "shutil.move": 2, "shutil.copyfile": 2, "os.chflags": 1, "os.lchown": 1, "os.setxattr": 1,
               "os.removexattr": 1}  # events whose first n arguments are paths the program changes
READ_EVENTS = ("os.listdir", "os.scandir", "glob.glob", "os.chdir")
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC


def _inside(path, roots) -> bool:
    if isinstance(path, int):
        return True  # an open descriptor: it was checked when opened
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    real = os.path.realpath(path)
    return any(real == r or real.startswith(r + os.sep) for r in roots)


def install_guard(scratch: str) -> None:
    """The audit hook of one child: what the program may not do (see the module's docstring)."""
    scratch = os.path.realpath(scratch)
    library = sorted({os.path.realpath(p) for p in sys.path if p and os.path.isdir(p)}
                     | {os.path.realpath(os.path.dirname(os.__file__))})
    readable = [scratch, *library, "/dev/null", "/dev/urandom", "/usr/share/zoneinfo"]

    def guard(event, args):
        if event.startswith(BLOCKED_EVENTS):
            raise PermissionError(f"blocked by the sandbox: {event}")
        if event == "open":
            path, mode, flags = args
            writes = (mode is not None and any(c in mode for c in "wax+")) or bool((flags or 0) & WRITE_FLAGS)
            if not _inside(path, [scratch] if writes else readable):
                raise PermissionError(f"blocked by the sandbox: open {'for writing ' if writes else ''}outside "
                                      "the scratch directory")
        elif event in PATH_EVENTS:
            for path in args[:PATH_EVENTS[event]]:
                if path is not None and not _inside(path, [scratch]):
                    raise PermissionError(f"blocked by the sandbox: {event} outside the scratch directory")
        elif event in READ_EVENTS and args and args[0] is not None and not _inside(args[0], readable):
            raise PermissionError(f"blocked by the sandbox: {event} outside the scratch directory")

    sys.addaudithook(guard)


def _limit(name: str, value: int) -> None:
    kind = getattr(resource, name, None)
    if kind is not None:
        try:
            resource.setrlimit(kind, (value, value))
        except (ValueError, OSError):
            pass  # a limit this kernel or user cannot set; the others stand


def child(job: dict, scratch: str, write_fd: int) -> None:
    """Run one job's program in this forked process and exit; never returns."""
    code = 1
    try:
        os.setsid()
        os.chdir(scratch)
        _limit("RLIMIT_AS", int(job["memory_mb"]) << 20)
        _limit("RLIMIT_CPU", int(job["timeout_s"]) + 1)
        _limit("RLIMIT_FSIZE", 1 << 20)
        _limit("RLIMIT_CORE", 0)
        _limit("RLIMIT_NPROC", 0)
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        program = compile(job["program"], "<solution>", "exec")
        install_guard(scratch)
        exec(program, {"__name__": "__solution__", "__builtins__": __builtins__})
        os.write(write_fd, PASS)
        code = 0
    except BaseException as exc:  # noqa: BLE001 - every way out of the program is a verdict
        try:
            os.write(write_fd, f"{type(exc).__name__}: {exc}"[:400].encode("utf-8", "replace"))
        except BaseException:  # noqa: BLE001
            pass
    os._exit(code)


def run(job: dict, root: str) -> dict:
    """Fork, run, wait at most ``timeout_s``, kill the child's session, read its verdict."""
    scratch = tempfile.mkdtemp(dir=root)
    read_fd, write_fd = os.pipe()
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        child(job, scratch, write_fd)
    os.close(write_fd)
    pidfd = os.pidfd_open(pid)
    timed_out = not select.select([pidfd], [], [], float(job["timeout_s"]))[0]
    try:
        os.killpg(pid, signal.SIGKILL)  # the program's session: a time-out, or anything it left behind
    except ProcessLookupError:
        pass
    _, status = os.waitpid(pid, 0)
    os.close(pidfd)
    seconds = time.monotonic() - start
    os.set_blocking(read_fd, False)
    try:
        said = os.read(read_fd, 1024)
    except BlockingIOError:
        said = b""
    os.close(read_fd)
    shutil.rmtree(scratch, ignore_errors=True)
    if timed_out:
        passed, reason = False, f"time-out after {job['timeout_s']} s"
    elif said == PASS and os.waitstatus_to_exitcode(status) == 0:
        passed, reason = True, ""
    elif os.WIFSIGNALED(status):
        name = signal.Signals(os.WTERMSIG(status)).name
        passed, reason = False, {"SIGXCPU": "CPU time limit", "SIGKILL": "killed (memory or time limit)"}.get(name, name)
    else:
        passed, reason = False, said.decode("utf-8", "replace") or f"exited with {os.waitstatus_to_exitcode(status)}"
    return {"id": job["id"], "passed": passed, "reason": reason, "seconds": round(seconds, 4)}


def main(root: str) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the grader stops the server, not the terminal's Ctrl-C
    for line in sys.stdin:
        job = json.loads(line)
        sys.stdout.write(json.dumps(run(job, root)) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1])
