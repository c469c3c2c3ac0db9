"""The stages' kernels (``helpers.core.kernels``): keys only for collection, nothing left in /tmp, warm starts that
import the next notebook's modules and nothing else, and keyless warm kernels forked from a zygote (``core.zygote``)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import nbformat
import pytest

from helpers.core import kernels
from helpers.core.notebooks import execute_notebook

KERNELSPEC = {"kernelspec": {"name": "cost-of-pass", "language": "python", "display_name": "Python (cost-of-pass)"},
              "language_info": {"name": "python"}}


def notebook(path, *cells: str):
    """A notebook at ``path`` with a parameters cell (OUT, params_file) and ``cells``."""
    nb = nbformat.v4.new_notebook(metadata=KERNELSPEC)
    nb.cells = [nbformat.v4.new_code_cell("OUT = None\nparams_file = None", metadata={"tags": ["parameters"]}),
                *(nbformat.v4.new_code_cell(c) for c in cells)]
    nbformat.write(nb, path)
    return path


def left_behind(scratch: Path) -> list[str]:
    """What the kernels left in ``scratch`` other than a log they wrote something to (kept by design: a kernel's own
    messages, e.g. under load): sockets, connection files, logs holding nothing but how to connect."""
    return [p.name for p in scratch.iterdir() if not (p.suffix == ".log" and not kernels.said_nothing(p))]


@pytest.fixture
def scratch(monkeypatch):
    """A temporary directory of its own for the kernels' sockets and logs (short: a socket's path has ~100 bytes)."""
    import shutil

    where = Path(tempfile.mkdtemp(prefix="cop-k-", dir="/tmp"))
    monkeypatch.setattr(tempfile, "tempdir", str(where))
    yield where
    kernels.retire()
    kernels.stop_zygotes()
    shutil.rmtree(where, ignore_errors=True)


@pytest.mark.parametrize("warm", [False, True])
@pytest.mark.parametrize("stage, keys", [("02_grade", False), ("01_collect", True)])
def test_only_collection_runs_with_the_providers_keys(tmp_path, monkeypatch, scratch, stage, keys, warm):
    """The grading stage's kernel is started without any variable that holds a secret (issue 34 item 5), warm or
    not, and leaves nothing in the temporary directory (its sockets, and its log when it said nothing)."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-" + "kernel-should-not-see-this")
    monkeypatch.setenv("COP_HARMLESS_SETTING", "kept")
    src = notebook(tmp_path / f"{stage}.ipynb", "import json, os\nopen(OUT, 'w').write(json.dumps(dict(os.environ)))")
    params = tmp_path / "p.yaml"
    params.write_text(f"OUT: {tmp_path / 'env.json'}\n")
    if warm:
        kernels.prepare(src, tmp_path)
    execute_notebook(src, tmp_path / "out.ipynb", params)
    assert not left_behind(scratch)
    env = json.loads((tmp_path / "env.json").read_text())
    assert ("OPENAI_API_KEY" in env) is keys and env["COP_HARMLESS_SETTING"] == "kept"


SEEN = ("import sys\nopen(OUT, 'w').write(repr(('xml.dom.minidom' in sys.modules, 'colorsys' in sys.modules, "
        "sorted(k for k in globals() if not k.startswith('_') and k not in ('In', 'Out', 'exit', "
        "'quit', 'get_ipython', 'open')))))")


@pytest.mark.parametrize("warm", [False, True])
def test_a_warm_kernel_has_imported_the_notebooks_modules_and_nothing_else(tmp_path, scratch, warm, monkeypatch):
    """Warm (prepared, or started when the stage starts), the notebook's own imports are done before its first cell
    (``xml.dom.minidom``) and nothing else is (``colorsys``, imported only inside a function); no name is bound and
    the first cell's execution count is 1. Cold (``COP_COLD_KERNELS=1``), nothing is imported before the notebook."""
    src = notebook(tmp_path / "03_x.ipynb", SEEN, "import xml.dom.minidom\nfrom json import decoder",
                   "def later():\n    import colorsys", "%time x = 1")
    params = tmp_path / "p.yaml"
    params.write_text(f"OUT: {tmp_path / 'seen.txt'}\n")
    if not warm:
        monkeypatch.setenv(kernels.COLD_ENV, "1")
    execute_notebook(src, tmp_path / "out.ipynb", params)
    assert (tmp_path / "seen.txt").read_text() == repr((warm, False, ["OUT", "params_file", "sys"]))
    counts = [c.execution_count for c in nbformat.read(tmp_path / "out.ipynb", as_version=4).cells
              if c.cell_type == "code"]
    assert counts[0] == 1 and counts == sorted(counts)
    assert not left_behind(scratch)


def test_the_modules_a_notebook_imports(tmp_path):
    src = notebook(tmp_path / "n.ipynb",
                   "import a.b, c\nfrom d.e import f, g as h\nfrom . import rel", "%magic\nimport z",
                   "def f():\n    import inner")
    assert kernels.notebook_modules(src) == ["a.b", "c", "d.e", "d.e.f", "d.e.g"]


def test_a_kernel_nobody_took_is_shut_down_and_not_counted_as_running_a_stage(tmp_path, scratch):
    """Ctrl-C between stages must reach the runner (no stage's kernel to interrupt): a warm kernel is not one."""
    src = notebook(tmp_path / "04_y.ipynb", "import json")
    kernels.prepare(src, tmp_path)
    km = kernels._WARM[str(src)].km
    assert km.is_alive() and kernels.interrupt_kernels() == 0
    kernels.prepare(notebook(tmp_path / "05_z.ipynb", "import json"), tmp_path)  # another notebook's: the first goes
    assert not km.is_alive() and list(kernels._WARM) == [str(tmp_path / "05_z.ipynb")]
    kernels.retire()
    assert not kernels._WARM and not left_behind(scratch)


def test_cold_kernels_when_asked(tmp_path, scratch, monkeypatch):
    monkeypatch.setenv(kernels.COLD_ENV, "1")
    kernels.prepare(notebook(tmp_path / "06_w.ipynb", "import json"), tmp_path)
    assert not kernels._WARM


def test_a_kernel_that_cannot_start_warm_leaves_the_stage_to_start_its_own(tmp_path, monkeypatch):
    """A socket path too long for the platform (a deep temporary directory): no warm kernel, no process left, and the
    stage then fails on its own kernel with its own error."""
    deep = tmp_path / ("d" * 80)
    deep.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(deep))
    src = notebook(tmp_path / "03_v.ipynb", "import json")
    kernels.prepare(src, tmp_path)
    assert not kernels._WARM and not [k for k in kernels._live() if getattr(k, "warm", False) and k.has_kernel]


FORKED = ("import json, os, sys\nopen(OUT, 'w').write(json.dumps({'ppid': os.getppid(), 'pid': os.getpid(), "
          "'sibling': 'xml.dom.minidom' in sys.modules, 'key_stage': 'wave' in sys.modules, 'env': dict(os.environ)}))")


def test_a_keyless_warm_kernel_is_forked_from_a_zygote_without_keys(tmp_path, scratch, monkeypatch):
    """A keyless warm kernel is a fork of the zygote (its parent), which imported the modules of the stage notebooks
    beside it (``xml.dom.minidom``) but not the key stage's (``wave``); neither the zygote nor the kernel holds the
    key; the kernel is a session of its own; stopping the zygote leaves no process and nothing in /tmp."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-" + "zygote-should-not-see-this")
    monkeypatch.setenv("COP_HARMLESS_SETTING", "kept")
    notebook(tmp_path / "01_collect.ipynb", "import wave")
    notebook(tmp_path / "04_other.ipynb", "import xml.dom.minidom")
    src = notebook(tmp_path / "03_x.ipynb", FORKED)
    params = tmp_path / "p.yaml"
    params.write_text(f"OUT: {tmp_path / 'seen.json'}\n")
    kernels.prepare(src, tmp_path)
    execute_notebook(src, tmp_path / "out.ipynb", params)
    seen = json.loads((tmp_path / "seen.json").read_text())
    made = kernels._ZYGOTES[str(tmp_path)]
    assert seen["ppid"] == made.proc.pid and seen["sibling"] and not seen["key_stage"]
    assert "OPENAI_API_KEY" not in seen["env"] and seen["env"]["COP_HARMLESS_SETTING"] == "kept"
    assert b"zygote-should-not-see-this" not in Path(f"/proc/{made.proc.pid}/environ").read_bytes()
    assert not Path(f"/proc/{seen['pid']}").exists()  # shut down by its manager, reaped by the zygote
    kernels.stop_zygotes()
    assert made.proc.poll() is not None and not left_behind(scratch)


def test_a_forked_kernel_ends_through_the_interpreters_exit(tmp_path, scratch):
    """A forked kernel's atexit handlers run as it shuts down (a handler a cell registered writes its file), through
    the interpreter's own exit rather than a call into ``atexit``'s private names (issue 64), and its manager starts
    it through the public provisioner API (``provisioner.StageProvisioner``)."""
    from helpers.core.provisioner import StageProvisioner

    src = notebook(tmp_path / "03_x.ipynb", FORKED, "import atexit\n"
                   "atexit.register(lambda: open(OUT + '.atexit', 'w').write(str(os.getpid())))")
    params = tmp_path / "p.yaml"
    params.write_text(f"OUT: {tmp_path / 'seen.json'}\n")
    kernels.prepare(src, tmp_path)
    assert isinstance(kernels._WARM[str(src)].km.provisioner, StageProvisioner)
    execute_notebook(src, tmp_path / "out.ipynb", params)
    seen = json.loads((tmp_path / "seen.json").read_text())
    assert seen["ppid"] == kernels._ZYGOTES[str(tmp_path)].proc.pid
    assert (tmp_path / "seen.json.atexit").read_text() == str(seen["pid"])
    assert not left_behind(scratch)


def test_ctrl_c_reaches_a_forked_kernel(tmp_path, scratch):
    """``interrupt_kernels`` (the runner's first Ctrl-C) stops a cell running in a forked kernel within seconds."""
    import threading
    import time

    from helpers.core.notebooks import Interrupted

    src = notebook(tmp_path / "05_slow.ipynb", "import time\ntime.sleep(120)")
    params = tmp_path / "p.yaml"
    params.write_text("OUT: null\n")
    kernels.prepare(src, tmp_path)
    timer = threading.Timer(4, kernels.interrupt_kernels)
    start = time.monotonic()
    timer.start()
    with pytest.raises(Interrupted):
        execute_notebook(src, tmp_path / "out.ipynb", params)
    assert time.monotonic() - start < 60 and kernels._ZYGOTES[str(tmp_path)].alive()


def test_forks_turned_off(tmp_path, scratch, monkeypatch):
    """``COP_FORKED_KERNELS=0``: the warm kernel is a process of its own, and no zygote starts."""
    monkeypatch.setenv("COP_FORKED_KERNELS", "0")
    src = notebook(tmp_path / "03_x.ipynb", FORKED)
    params = tmp_path / "p.yaml"
    params.write_text(f"OUT: {tmp_path / 'seen.json'}\n")
    kernels.prepare(src, tmp_path)
    execute_notebook(src, tmp_path / "out.ipynb", params)
    assert json.loads((tmp_path / "seen.json").read_text())["ppid"] == __import__("os").getpid()
    assert not kernels._ZYGOTES


def test_the_key_stage_is_forked_only_where_the_environment_holds_no_secret(tmp_path, scratch, monkeypatch):
    """Collection's kernel gets the keys: with a key in the environment it is a process of its own (the zygote has
    no key to give); with none, a fork like the others (same environment either way). A stage nobody prepared a
    kernel for gets one when it starts (``take`` with a folder)."""
    import os

    from helpers.core.redaction import without_secrets

    for name in set(os.environ) - set(without_secrets(dict(os.environ))):  # every variable that holds a secret
        monkeypatch.delenv(name)
    src = notebook(tmp_path / "01_collect.ipynb", FORKED)
    params = tmp_path / "p.yaml"
    params.write_text(f"OUT: {tmp_path / 'seen.json'}\n")
    execute_notebook(src, tmp_path / "out.ipynb", params)
    assert json.loads((tmp_path / "seen.json").read_text())["ppid"] == kernels._ZYGOTES[str(tmp_path)].proc.pid
    monkeypatch.setenv("OPENAI_API_KEY", "sk-" + "collection-may-see-this")
    execute_notebook(src, tmp_path / "out.ipynb", params)
    seen = json.loads((tmp_path / "seen.json").read_text())
    assert seen["ppid"] == os.getpid() and seen["env"]["OPENAI_API_KEY"].endswith("collection-may-see-this")


def test_a_forked_kernels_handle_never_signals_a_reused_pid():
    """Once the zygote reaped a kernel its pid may go to another process, even one leading a session of its own: the
    handle holds the kernel itself (a pidfd), so it sees the kernel ended and sends nothing to whatever has its pid
    now; while the kernel runs, its signal reaches its session."""
    import signal
    import subprocess

    from helpers.core.zygote import Forked

    kernel = subprocess.Popen(["sleep", "30"], start_new_session=True)
    other = subprocess.Popen(["sleep", "30"], start_new_session=True)
    try:
        handle = Forked(kernel.pid)
        assert handle.poll() is None
        kernel.kill()
        kernel.wait()  # reaped, as the zygote reaps its kernels
        handle.pid = other.pid  # as if the kernel's pid had been handed to another session's leader
        handle.send_signal(signal.SIGKILL)
        assert handle.poll() == 0 and handle.fd is None and other.poll() is None
        alive = Forked(other.pid)
        alive.send_signal(signal.SIGTERM)
        assert other.wait(10) == -signal.SIGTERM and alive.poll() == 0
        assert Forked(other.pid).returncode == 0  # reaped before it was looked at: ended
    finally:
        for proc in (kernel, other):
            if proc.poll() is None:
                proc.kill()
                proc.wait()


def test_a_log_holding_only_how_to_connect_said_nothing(tmp_path):
    """ipykernel's connection banner alone is litter (removed with the sockets); anything else the kernel wrote is
    kept."""
    banner = ("NOTE: When using the `ipython kernel` entry point, Ctrl-C will not work.\n\nTo exit, you will have to "
              "explicitly quit this process, by either sending\n\"quit\" from a client, or using Ctrl-\\ in UNIX-like "
              "environments.\n\nTo read more about this, see https://github.com/ipython/ipython/issues/2049\n\n\n"
              "To connect another client to this kernel, use:\n    --existing /tmp/tmp72usxczp.json\n")
    for text, nothing in [("", True), (banner, True), (banner + "Traceback (most recent call last):\n", False),
                          ("MemoryError\n" + banner, False)]:
        (tmp_path / "k.log").write_text(text)
        assert kernels.said_nothing(tmp_path / "k.log") is nothing, text
