"""Signals reach only the sessions the project started (``helpers.core.sessions``): a group is signalled by the
parent of its leader while that leader is its unreaped child and leads its own session, never through a pid that may
be another process's now (issue 60)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from conftest import ROOT
from helpers.core.sessions import OwnSession, signal_session


def gone(proc: subprocess.Popen, timeout: float = 10.0) -> bool:
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        return False
    return True


def test_a_childs_own_session_is_signalled_with_what_it_started():
    leader = subprocess.Popen(["sh", "-c", "sleep 60 & wait"], start_new_session=True)
    try:
        time.sleep(0.2)
        assert signal_session(leader.pid, signal.SIGTERM)
        assert gone(leader) and leader.returncode == -signal.SIGTERM
    finally:
        leader.kill()
        leader.wait()


def test_no_group_but_a_sessions_own_and_none_once_reaped():
    """A child in the caller's own group, a child reaped already, and a process that is not a child: nothing sent."""
    beside = subprocess.Popen(["sleep", "60"])  # in the caller's (this test runner's) process group
    ended = subprocess.Popen(["true"], start_new_session=True)
    ended.wait()  # reaped: its pid, and so its group's, may be anyone's now
    try:
        assert not signal_session(beside.pid, signal.SIGKILL)
        assert not signal_session(ended.pid, signal.SIGKILL)
        assert not signal_session(os.getppid(), signal.SIGCONT) and not signal_session(1, signal.SIGCONT)
        OwnSession(beside).kill()
        OwnSession(beside).terminate()
        assert beside.poll() is None
    finally:
        beside.kill()
        beside.wait()


# A second Ctrl-C kills every stage's kernel (``kernels.kill_kernels``). Here one kernel's handle holds the pid of
# another process in the runner's own process group, as a kernel's pid does once it was reaped and handed out again.
# Run in a session of its own: a kill of its group ends this script, not the test runner.
STRANGER = """
import os, subprocess, time
from helpers.core import kernels
out = subprocess.run(["sh", "-c", "sleep 60 >/dev/null 2>&1 & echo $!"], capture_output=True, text=True)
stranger = int(out.stdout)  # in this process's group, not its child (its parent, sh, has ended)

class Process:
    pid = stranger

class Provisioner:
    process = Process()

class Manager:
    provisioner = Provisioner()
    def cleanup_connection_file(self): pass
    def cleanup_ipc_files(self): pass

kept = Manager()
kernels._live().add(kept)
kernels.kill_kernels()
time.sleep(0.3)
state = open(f"/proc/{stranger}/stat").read().rpartition(")")[2].split()[0]
os.kill(stranger, 9)
print("survived" if state not in ("Z", "X") else "killed")
"""


def test_the_second_ctrl_c_never_signals_a_group_through_a_reused_pid():
    out = subprocess.run([sys.executable, "-c", STRANGER], cwd=ROOT, capture_output=True, text=True, timeout=120,
                         start_new_session=True)
    assert out.returncode == 0, (f"the kill reached the runner's own process group (exit {out.returncode}): "
                                 f"{out.stderr[-2000:]}")
    assert out.stdout.split() == ["survived"]
