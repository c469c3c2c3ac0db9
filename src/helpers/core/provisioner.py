"""How a stage's kernel process is started and signalled: jupyter_client's local provisioner, extended through its
public methods only.

jupyter_client's kernel manager starts, polls, signals, kills and waits for its kernel through a *provisioner*
(``jupyter_client.provisioning``: ``launch_kernel``, ``poll``, ``send_signal``, ``kill``, ``terminate``, ``wait``,
``cleanup``); ``LocalProvisioner``, the default, starts a ``Popen`` and is meant to be subclassed. A stage's manager
(``kernels.kernel_manager_class``) gives its kernel a ``StageProvisioner`` (the manager's public ``provisioner``,
which jupyter_client fills from the kernelspec only where none is given), which differs in two things:

- where the manager gives it a way to ``fork`` (a kernel without a secret: ``kernels``), the kernel is a fork of the
  command's zygote (``zygote.Zygote.fork``), held by a ``zygote.Forked`` handle; where that fork fails or none is
  given, the kernel is jupyter_client's own process, held by a ``sessions.OwnSession``;
- every signal (an interrupt, SIGTERM, SIGKILL) goes through that handle, to the kernel's session while the kernel is
  known not to have been reaped, and to nothing after (``sessions``): the provisioner keeps no process group id of its
  own (``pgid`` None), which a reaped kernel's pid could name for a stranger.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from typing import Any, cast

from jupyter_client.connect import KernelConnectionInfo
from jupyter_client.provisioning import LocalProvisioner

from helpers.core.sessions import OwnSession
from helpers.core.zygote import Forked

Fork = Callable[[list[str], dict], "int | None"]  # (kernel command, launch keywords) -> a forked kernel's pid, or None


class StageProvisioner(LocalProvisioner):
    """A local provisioner whose kernel is forked from a zygote where ``fork`` is given and answers a pid, and
    signalled only through its checked handle (``OwnSession``, ``Forked``)."""

    fork: Fork | None = None  # set by the manager before the kernel starts (``kernels._LocalKernel.start_kernel``)

    async def launch_kernel(self, cmd: list[str], **kwargs: Any) -> KernelConnectionInfo:
        pid = self.fork(cmd, kwargs) if self.fork is not None else None
        if pid is None:  # jupyter_client's own process, in a session of its own (``launcher.launch_kernel``)
            info = await super().launch_kernel(cmd, **kwargs)
            if self.process is not None:
                self.process = cast(subprocess.Popen, OwnSession(self.process))  # a Popen to every caller but signals
            self.pgid = None
            return info
        # the forked kernel's handle has a Popen's methods (``poll``, ``wait``, ``send_signal``, ``kill``, ...)
        self.process, self.pid, self.pgid, self.cwd = cast(subprocess.Popen, Forked(pid)), pid, None, kwargs.get("cwd")
        return self.connection_info

    async def send_signal(self, signum: int) -> None:
        """Signal the kernel's session through its handle: while the kernel has not been reaped, else nothing."""
        if self.process is not None:
            self.process.send_signal(signum)
