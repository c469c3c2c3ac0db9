"""Signals to the process sessions this project started, and to nothing else.

A stage's kernel, the zygote and the grader's workers each run in a session of their own (``start_new_session`` or
``setsid``): a Ctrl-C or a kill reaches the kernel and whatever it started through its process group, and nothing
else. A process group is named by its leader's pid, and a pid is free for reuse once its process has been *reaped*:
from then on ``killpg(pid)`` may reach a stranger's group, and ``getpgid(pid)`` may name the caller's own group
(the terminal's, a test runner's). So a group is signalled only while its leader is known not to have been reaped:
by the leader's parent, while the leader is its child and leads its own session (``signal_session``, ``OwnSession``
for the kernels jupyter_client starts), or, for a kernel forked from the zygote, while the pidfd that holds the
kernel says it has not ended (``zygote.Forked``).

Between the check and the signal the leader could still end and be reaped (by another thread, or by the zygote):
its pid would then have to be handed out again, which takes the kernel's whole pid range (32,768 here) of new
processes, within microseconds.
"""

from __future__ import annotations

import os


def signal_session(pid: int, signum: int) -> bool:
    """Send ``signum`` to the process group that ``pid`` leads, and return True, where ``pid`` is a child of this
    process that has not been reaped and leads a session of its own; else send nothing and return False (not our
    child, reaped already, or in another session: its group may be the caller's or a stranger's)."""
    if pid <= 1:
        return False
    try:
        os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)  # ours and unreaped, or ChildProcessError
        if os.getsid(pid) != pid:
            return False
        os.killpg(pid, signum)
    except (ChildProcessError, ProcessLookupError, PermissionError):
        return False
    return True


class OwnSession:
    """A ``Popen`` of a child started in a session of its own (``start_new_session``), whose signals (``send_signal``,
    ``kill``, ``terminate``) go to that session's process group through ``signal_session`` and to nothing once the
    child has been reaped; everything else is the ``Popen``'s own. jupyter_client's provisioner, given this and no
    process group of its own (``pgid`` None), signals a stage's kernel only through it."""

    def __init__(self, process):
        self._process = process

    def __getattr__(self, name: str):
        return getattr(self._process, name)

    def send_signal(self, signum: int) -> None:
        signal_session(self._process.pid, signum)

    def kill(self) -> None:
        import signal

        self.send_signal(signal.SIGKILL)

    def terminate(self) -> None:
        import signal

        self.send_signal(signal.SIGTERM)
