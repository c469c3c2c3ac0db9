"""The sandboxed code grader: right verdicts, hostile programs contained, time-outs that do not hang, a cache."""

from __future__ import annotations

import os
import socket
import threading

import pytest

from helpers.grade import sandbox as sb

SOLUTION = "def add(a, b):\n    return a + b\n"
TEST = "def check(candidate):\n    assert candidate(2, 3) == 5\n    assert candidate(-1, 1) == 0\n"


@pytest.fixture(scope="module")
def box():
    with sb.Sandbox(workers=2, timeout_s=2.0, memory_mb=512) as b:
        yield b


def test_a_correct_and_an_incorrect_solution(box):
    assert box.run(sb.program_text(SOLUTION, TEST, "add")).passed
    wrong = box.run(sb.program_text("def add(a, b):\n    return a - b\n", TEST, "add"))
    assert not wrong.passed and wrong.reason.startswith("AssertionError")
    broken = box.run(sb.program_text("def add(a, b) return a\n", TEST, "add"))
    assert not broken.passed and "SyntaxError" in broken.reason


@pytest.mark.parametrize("code", ["while True:\n    pass\n", "import time\ntime.sleep(60)\n"])
def test_a_time_out_is_a_failure_not_a_hang(box, code):
    v = box.run(code)
    assert not v.passed and v.reason.startswith("time-out") and v.seconds < 10


@pytest.mark.parametrize("code, blocked", [
    ("import os\nos.fork()\n", "os.fork"),
    ("import os\nwhile True:\n    os.fork()\n", "os.fork"),
    ("import subprocess\nsubprocess.run(['sh', '-c', 'echo hi'])\n", "subprocess.Popen"),
    ("import os\nos.system('touch /tmp/x')\n", "os.system"),
    ("import ctypes\nctypes.CDLL(None).fork()\n", "ctypes"),
])
def test_new_processes_are_refused(box, code, blocked):
    v = box.run(code)
    assert not v.passed and blocked in v.reason


def test_writes_outside_the_scratch_directory_are_refused(box, tmp_path):
    target = tmp_path / "escaped.txt"
    for code in (f"open({str(target)!r}, 'w').write('x')\n",
                 f"import os\nos.open({str(target)!r}, os.O_WRONLY | os.O_CREAT)\n",
                 f"import os\nos.remove({str(tmp_path)!r})\n",
                 f"import shutil\nshutil.rmtree({str(tmp_path)!r})\n"):
        v = box.run(code)
        assert not v.passed and "blocked by the sandbox" in v.reason, code
    assert not target.exists() and tmp_path.is_dir()
    # its own scratch directory is writable, and empty at the start
    assert box.run("import os\nassert os.listdir('.') == []\nopen('x', 'w').write('1')\nassert open('x').read() == '1'\n").passed


def test_secrets_cannot_be_read(box, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    with sb.Sandbox(workers=1, timeout_s=2.0) as fresh:  # started with the secret in this process's environment
        v = fresh.run("import os\nassert 'OPENAI_API_KEY' not in os.environ\nassert len(os.environ) <= 4\n")
        assert v.passed, v.reason
        for path in (f"/proc/{os.getpid()}/environ", "/proc/self/environ", os.path.expanduser("~/.bashrc")):
            v = fresh.run(f"print(open({path!r}).read())\n")
            assert not v.passed and "blocked by the sandbox" in v.reason, path


def test_sockets_are_refused(box):
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]
    accepted = []
    thread = threading.Thread(target=lambda: accepted.append(server.accept()), daemon=True)
    thread.start()
    v = box.run(f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=1)\n")
    assert not v.passed and "socket" in v.reason
    thread.join(0.5)
    assert not accepted
    server.close()


def test_a_server_without_the_audit_hook_still_has_no_network():
    prefix = sb.network_isolation()
    if not prefix:
        pytest.skip("no network namespace on this machine: the audit hook alone refuses sockets")
    import subprocess
    import sys
    out = subprocess.run([*prefix, sys.executable, "-I", "-S", "-c",
                          "import socket\ntry:\n socket.create_connection(('127.0.0.1', 9), timeout=1)\n"
                          "except OSError as e:\n print(type(e).__name__)\n"], capture_output=True, text=True)
    assert out.stdout.strip() in {"ConnectionRefusedError", "OSError"}  # only its own empty loopback


def test_exits_and_memory_are_failures(box):
    for code in ("import os\nos._exit(0)\n", "import sys\nsys.exit(0)\n", "raise KeyboardInterrupt\n",
                 "x = bytearray(2 << 30)\n", "print('passed')\nassert False\n"):
        v = box.run(code)
        assert not v.passed, code


def test_run_many_keeps_order_and_the_cache_runs_each_program_once(tmp_path):
    programs = [sb.program_text(SOLUTION, TEST, "add"), "assert False\n"] * 3
    cache = tmp_path / "verdicts.jsonl"
    first = sb.grade_programs(programs, cache, workers=2, timeout_s=2.0)
    assert [v.passed for v in first] == [True, False] * 3
    assert len(cache.read_text().splitlines()) == 2  # two distinct programs
    with cache.open("a") as fh:
        fh.write('{"key": "torn')  # a torn last line is ignored
    again = sb.grade_programs(programs, cache, workers=2, timeout_s=2.0)
    assert again == first and len(cache.read_text().splitlines()) == 3


def test_bad_limits_are_one_line_errors():
    with pytest.raises(sb.CostOfPassError, match="timeout_s must be > 0"):
        sb.Sandbox(1, timeout_s=0)
