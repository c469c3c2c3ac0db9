"""The grader as a hostile program would try it (issue 34): every attack below is written as the program a model could
return, graded as CI grades (root, bubblewrap), and must fail *and* stay contained — nothing read or written outside its
scratch directory, no process left, no signal delivered, no secret in what the grader keeps.

Most attacks run twice: with the audit hook (as grading runs) and without it (``hook=False``), which proves the kernel's
boundary holds on its own — the hook is a second line, never the boundary.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid

import pytest

from helpers.core.errors import CostOfPassError
from helpers.grade import boundary as bd
from helpers.grade import sandbox as sb
from helpers.grade import verdicts as vc
from helpers.grade.programs import code_job, remote_calls, split_mode

RIGHT = "def add(a, b):\n    return a + b\n"
WRONG = "def add(a, b):\n    return a - b\n"
TEST = ("def check(candidate):\n    assert candidate(2, 3) == 5\n    assert candidate(-1, 1) == "
        "0\n    assert candidate(7, 0) == 7\n")
PROMPT = "def add(a, b):\n    '''Add two numbers.'''\n"

pytestmark = pytest.mark.skipif(not isinstance(sb.find_boundary(), bd.Boundary),
                                reason=f"no kernel boundary here: {sb.find_boundary()}")


def job(code: str, test: str = TEST) -> sb.CodeJob:
    return code_job(code, test, "add", PROMPT)


@pytest.fixture(scope="module")
def box():
    with sb.Sandbox(workers=2, cpu_s=3, backstop_s=4) as b:
        yield b


@pytest.fixture(scope="module")
def kernel_only():
    """The same boundary with the audit hook off: what the kernel alone refuses."""
    with sb.Sandbox(workers=2, cpu_s=3, backstop_s=4, hook=False) as b:
        yield b


def passes_only_if(condition: str) -> str:
    """A solution that is right exactly when ``condition`` holds inside the sandbox (an attack that succeeded)."""
    return f"import os, sys\ndef add(a, b):\n    return a + b if ({condition}) else a - b\n"


def sandbox_processes() -> list[int]:
    """Processes on this machine that run as the sandbox's user (none may outlive a pool)."""
    return [int(p) for p in os.listdir("/proc") if p.isdigit() and _uid(p) == bd.SANDBOX_UID]


def _uid(pid: str) -> int | None:
    try:
        return os.stat(f"/proc/{pid}").st_uid
    except OSError:
        return None


# ---- right verdicts ------------------------------------------------------------------------------------------------
def test_right_wrong_and_broken_solutions(box):
    assert box.run(job(RIGHT)).passed
    wrong = box.run(job(WRONG))
    assert not wrong.passed and wrong.reason.startswith("AssertionError") and wrong.harness == "split"
    broken = box.run(job("def add(a, b) return a\n"))
    assert not broken.passed and "SyntaxError" in broken.reason
    missing = box.run(job("def plus(a, b):\n    return a + b\n"))
    assert not missing.passed and "NameError" in missing.reason


def test_plain_values_cross_with_their_types(box):
    test = ("def check(candidate):\n    assert candidate((1, 2)) == (1, 2) and type(candidate((1,))) is tuple\n"
            "    assert candidate({1: [1.5, None]}) == {1: [1.5, None]}\n    assert candidate({1, 2}) == {1, 2}\n"
            "    assert candidate(b'x') == b'x' and candidate(2j) == 2j and candidate(10**400) == 10**400\n"
            "    assert candidate(float('inf')) == float('inf') and candidate(-0.0) == 0.0\n"
            "    assert candidate([1]) != (1,)\n")
    assert box.run(job("def add(x):\n    return x\n", test)).passed
    # a dict subclass crosses as a dict
    counter = "from collections import Counter\ndef add(x):\n    return Counter(x)\n"
    assert box.run(job(counter, "def check(candidate):\n    assert candidate('aab') == {'a': 2, 'b': 1}\n")).passed


def test_the_candidates_exceptions_reach_the_tests_as_themselves(box):
    test = ("def check(candidate):\n    try:\n        candidate(0, 0)\n    except ZeroDivisionError:\n        pass\n"
            "    else:\n        raise AssertionError('no error')\n")
    assert box.run(job("def add(a, b):\n    return a / b\n", test)).passed
    assert not box.run(job(RIGHT, test)).passed


# ---- forgery: a wrong solution is never graded passed ------------------------------------------------------------
FORGERIES = {
    "passed on every descriptor": "import os\nfor fd in range(1024):\n    try:\n        os.write(fd, b'passed')\n"
                                  "    except OSError:\n        pass\n" + WRONG,
    "the pipe found through frames": "import sys, os\nf = sys._getframe()\nwhile f:\n    for v "
    "in list(f.f_locals.values()):\n"
                                     "        if isinstance(v, int) and 2 < v < 100:\n            try:\n"
                                     "                os.write(v, b'\\x00\\x00\\x00\\x0f{\"ready\": true}')\n"
                                     "            except OSError:\n                pass\n    f = f.f_back\n" + WRONG,
    "os.write and os._exit replaced": "import os\nos.write = lambda fd, data: len(data)\nos._exit = lambda code: None\n"
                                      + WRONG,
    "a tracer that swaps check": "import sys\ndef tracer(frame, event, arg):\n    if event == 'call' and "
                                 "frame.f_code.co_name == 'check':\n        frame.f_globals['check'] = lambda c: None\n"
                                 "    return tracer\nsys.settrace(tracer)\nsys.setprofile(tracer)\n" + WRONG,
    "an answer equal to everything": "class Yes(int):\n    def __eq__(self, other):\n        return True\n"
                                     "    __hash__ = int.__hash__\ndef add(a, b):\n    return Yes(0)\n",
    "sys.exit(0) before the tests": "import sys\nsys.exit(0)\n" + WRONG,
    "os._exit(0) before the tests": "import os\nos._exit(0)\n" + WRONG,
    "assert patched away": "import builtins\nbuiltins.AssertionError = type('Quiet', (Exception,), {})\n" + WRONG,
    "SystemExit from the call": "def add(a, b):\n    raise SystemExit(0)\n",
}


@pytest.mark.parametrize("name", sorted(FORGERIES))
def test_a_forged_verdict_is_a_failure(box, kernel_only, name):
    for pool in (box, kernel_only):
        v = pool.run(job(FORGERIES[name]))
        assert not v.passed and v.harness == "split", (name, v)


def test_the_program_holds_no_copy_of_its_tests(kernel_only):
    """The worker never reads a test: a program that searches every object and frame it can reach for a canary of its
    hidden tests (written reversed in its own text, so only the tests hold it forwards) finds none."""
    canary = uuid.uuid4().hex
    test = TEST + f"    assert '{canary}'\n"
    scan = (f"import gc, sys\nC = '{canary[::-1]}'[::-1]\n"
            f"def holds(o):\n    return isinstance(o, str) and o is not C and C in o and '{canary[::-1]}' not in o\n"
            "def inside(o):\n    if isinstance(o, dict):\n        return any(holds(k) or holds(v) for k, v in "
            "o.items())\n    return isinstance(o, (list, tuple)) and any(holds(v) for v in o)\n"
            "FOUND = any(inside(o) for o in gc.get_objects())\nf = sys._getframe()\nwhile f:\n"
            "    FOUND = FOUND or inside(f.f_locals) or inside(f.f_globals) or holds(f.f_code.co_filename)\n"
            "    f = f.f_back\n")
    v = kernel_only.run(job(scan + passes_only_if("FOUND"), test))
    assert not v.passed and v.harness == "split", "the hidden tests were in the program's memory"
    # tests that name the solution's own function (HumanEval/33's shape) run apart too: the harness calls it in the
    # candidate's process over the channel, so the program never holds them either
    own = code_job(scan + passes_only_if("FOUND"), test.replace("candidate(7, 0)", "add(7, 0)"), "add", PROMPT)
    v = kernel_only.run(own)
    assert own.mode == "split" and own.calls == ("add",) and not v.passed and v.harness == "split", v


def test_split_or_whole_is_decided_by_the_names_the_tests_use():
    assert split_mode(TEST, PROMPT, "add") and remote_calls(TEST, PROMPT, "add") == ("add",)
    assert remote_calls("def check(candidate):\n    assert poly([1], candidate([1])) == 0\n",
                        "def poly(xs, x):\n    return sum(xs)\ndef add(xs):\n    '''stub'''\n", "add") == ("add",)
    # the solution's own functions: called in its process (HumanEval/33 calls sort_third itself), never whole
    assert remote_calls("def check(candidate):\n    assert add(1, 2) == candidate(1, 2)\n", PROMPT, "add") == ("add",)
    assert remote_calls("def check(candidate):\n    assert helper(1)\n", PROMPT, "add") == ("add", "helper")
    assert not split_mode("assert True\n", PROMPT, "add")  # no check(): cannot be run apart


OWN_TEST = TEST.replace("assert candidate(7, 0) == 7", "assert add(7, 0) == 7\n    assert tuple([add(1, 1)]) == (2,)")


@pytest.mark.parametrize("name", sorted(FORGERIES))
def test_tests_that_call_the_solutions_own_function_cannot_be_forged(kernel_only, name):
    """Issue 63 item 4: tests that call the entry point by its name (HumanEval/33) made the program's process the judge
    (``whole``), where an answer equal to everything passed; the harness now calls that function in the candidate's
    process over the channel, so every forgery fails, and a right solution passes."""
    v = kernel_only.run(job(FORGERIES[name], OWN_TEST))
    assert not v.passed and v.harness == "split", (name, v)


def test_a_function_only_the_solution_defines_is_called_in_its_process(kernel_only):
    helper_test = "def check(candidate):\n    assert candidate(2, 3) == 5\n    assert double(4) == 8\n"
    right, missing = (kernel_only.run(job(RIGHT + extra, helper_test))
                      for extra in ("def double(x):\n    return 2 * x\n", ""))
    assert right.passed and right.harness == "split", right
    assert not missing.passed and "double" in missing.reason, missing
    assert kernel_only.run(job(RIGHT, OWN_TEST)).passed


# ---- escape: the file system, processes, the network, other processes --------------------------------------------
def test_what_the_program_sees(kernel_only):
    probe = ("import os\nSEEN = (os.getuid(), os.getgid(), os.listdir('/proc'), os.listdir('/tmp'), os.getcwd(),"
             " sorted(set(os.listdir('/')) - {'box', 'dev', 'lib', 'lib64', 'proc', 'python', 'tmp', 'usr'}),"
             " sorted(os.listdir('/dev')), sorted(os.listdir('/box')), dict(os.environ))\n")
    expect = ("(65534, 65534, [], [], '/tmp', [], ['null', 'urandom'], ['kernel.py', 'plain.py', "
              "'reasons.py', 'sandbox_server.py'], {})")
    v = kernel_only.run(job(probe + passes_only_if(f"repr(SEEN) == {expect!r}")))
    assert v.passed, v.reason  # right answers only when the view is exactly this


def test_files_outside_the_scratch_directory_cannot_be_read_or_written(kernel_only, tmp_path):
    canary = uuid.uuid4().hex
    secret_files = [tmp_path / "canary.txt", f"/root/cop-canary-{canary}"]
    for path in secret_files:
        with open(path, "w") as fh:
            fh.write(canary)
    try:
        reads = " or ".join(f"readable({str(p)!r})" for p in [*secret_files, "/etc/passwd", "/root/.bashrc",
                                                               os.path.abspath("pyproject.toml"), "/proc/1/environ"])
        attack = ("def readable(p):\n    try:\n        open(p).read()\n        return True\n    except OSError:\n"
                  "        return False\n"
                  f"def writable(p):\n    try:\n        open(p, 'w').write('{canary}')\n        return True\n"
                  "    except OSError:\n        return False\n")
        escaped = f"{reads} or " + " or ".join(f"writable({p!r})" for p in (
            "/python/x", "/box/x", "/dev/shm/x", "/x", str(tmp_path / "written.txt"), "/proc/x"))
        v = kernel_only.run(job(attack + f"ESCAPED = {escaped}\n"
                                + passes_only_if("not ESCAPED and writable('/tmp/ok')")))
        assert v.passed, v.reason
        assert not (tmp_path / "written.txt").exists() and not os.path.exists("/x") and not os.path.exists("/tmp/ok")
    finally:
        os.unlink(f"/root/cop-canary-{canary}")


def test_each_program_gets_a_fresh_scratch_directory(kernel_only):
    kernel_only.run(job("open('/tmp/left-behind', 'w').write('x')\n" + RIGHT))
    fresh = "import os\n" + passes_only_if("os.listdir('/tmp') == []")
    for v in kernel_only.run_many([job(fresh + f"#{i}") for i in range(4)]):
        assert v.passed, v.reason


NEW_PROCESSES = {
    "os.fork": "import os\nos.fork()\n",
    "a fork bomb": "import os\nwhile True:\n    os.fork()\n",
    "double-forked daemon": "import os\nif os.fork() == 0:\n    os.setsid()\n    if "
    "os.fork() == 0:\n        import time\n"
                            "        time.sleep(600)\n",
    "subprocess": "import subprocess\nsubprocess.run(['/python/bin/python3', '-c', 'import time; time.sleep(600)'])\n",
    "_posixsubprocess.fork_exec": "import _posixsubprocess, os\nr, w = os.pipe()\n_posixsubprocess.fork_exec("
                                  "[b'/python/bin/python3'], [b'/python/bin/python3'], True, (), None, None, -1, -1, "
                                  "-1, -1, -1, -1, r, w, True, False, None, None, None, -1, None, False)\n",
    "a thread": "import threading\nthreading.Thread(target=lambda: None).start()\n",
    "ctypes fork": "import ctypes\nassert ctypes.CDLL(None).fork() >= 0\n",
}


@pytest.mark.parametrize("name", sorted(NEW_PROCESSES))
def test_no_new_process_and_nothing_outlives_grading(box, kernel_only, name):
    for pool in (box, kernel_only):
        v = pool.run(job(NEW_PROCESSES[name] + RIGHT))
        assert not v.passed, (name, v)
    time.sleep(0.2)
    workers = {w for p in (box, kernel_only) for w in _worker_tree()}
    assert set(sandbox_processes()) <= workers, "a process of a graded program outlived its verdict"


def _worker_tree() -> set[int]:
    """The sandbox user's processes that are workers waiting for a job (bubblewrap, its init, the worker)."""
    out = set()
    for pid in sandbox_processes():
        try:
            cmd = open(f"/proc/{pid}/cmdline", "rb").read()
        except OSError:
            continue
        if b"bwrap" in cmd or b"sandbox_server.py" in cmd:
            out.add(pid)
    return out


KERNEL_CALLS = {  # what the program may try with ctypes once the hook is gone: each must be refused by the kernel
    "unshare a user namespace": "libc.unshare(0x10000000)",
    "mount a tmpfs": "libc.mount(b'none', b'/tmp', b'tmpfs', 0, None)",
    "keyctl": "libc.syscall(250, 0, -4, 0, 0, 0)",  # KEYCTL_GET_KEYRING_ID of the user keyring
    "ptrace attach to pid 1": "libc.ptrace(16, 1, 0, 0)",
    "pidfd_open": "libc.syscall(434, 1, 0)",
    "setns": "libc.setns(0, 0)",
    # issue 63: what tied a program to its grader, the sockets that reached the next program, the host's counters
    "clear the parent-death signal": "libc.prctl(1, 0, 0, 0, 0)",
    "a unix socket (abstract names reach the worker's next program)": "libc.socket(1, 1, 0) == -1",
    "a unix socket pair": "libc.socketpair(1, 1, 0, ctypes.create_string_buffer(8))",
    "a vsock socket (not network-namespaced)": "libc.socket(40, 1, 0) == -1",
    "sysinfo (the host's uptime, load, memory)": "libc.sysinfo(ctypes.create_string_buffer(256))",
    # the held-out round of 2026-11-29 (E2, E3): the host's uptime in ticks, its disk's size and free space, its log
    "times (the host's uptime in clock ticks)": "libc.syscall(100, ctypes.create_string_buffer(64)) == -1",
    "statfs (the host disk's size and free space)": "libc.statfs(b'/', ctypes.create_string_buffer(512))",
    "fstatfs": "libc.fstatfs(0, ctypes.create_string_buffer(512))",
    "syslog (the kernel's log)": "libc.klogctl(10, None, 0) == -1",
    # the held-out round of the evening: a lower priority waits for a CPU its limit does not count, ustat, setrlimit
    "nice (setpriority)": "libc.setpriority(0, 0, 19)",
    "SCHED_IDLE (sched_setscheduler)": "libc.sched_setscheduler(0, 5, ctypes.byref(ctypes.c_int(0)))",
    "sched_setattr": "libc.syscall(314, 0, ctypes.create_string_buffer(56), 0)",
    "setrlimit": "libc.syscall(160, 0, ctypes.create_string_buffer(16))",
}


def test_the_programs_clocks_do_not_tell_the_hosts_uptime(kernel_only):
    """E1 of the held-out round: CLOCK_BOOTTIME (and CLOCK_MONOTONIC) read the host's uptime through the vDSO, where no
    filter can refuse them; each program's time namespace starts both at about 1 s."""
    probe = "import time\nT = (time.clock_gettime(time.CLOCK_BOOTTIME), time.monotonic())\n"
    assert time.clock_gettime(time.CLOCK_BOOTTIME) > 60, "this machine has been up a minute: nothing to hide yet"
    v = kernel_only.run(job(probe + passes_only_if("max(T) < 30")))
    assert v.passed, v


@pytest.mark.parametrize("name", sorted(KERNEL_CALLS))
def test_the_kernel_refuses_what_the_program_may_not_do(kernel_only, name):
    attack = f"import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\nREFUSED = ({KERNEL_CALLS[name]}) != 0\n"
    v = kernel_only.run(job(attack + passes_only_if("REFUSED")))
    assert v.passed, (name, v.reason)


def test_seccomp_filter_shape():
    from helpers.grade import kernel

    code = kernel.seccomp_filter()
    assert len(code) % 8 == 0 and len(code) // 8 == len(kernel.DENIED_X86_64) + 15


def test_a_program_still_reads_its_limits(kernel_only):
    """The filter refuses a new limit (``prlimit64`` with one, ``setrlimit``), not reading one."""
    program = ("import resource\nimport ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n"
               "CPU = resource.getrlimit(resource.RLIMIT_CPU)\nSET = libc.syscall(302, 0, 0, ctypes.c_void_p(0), "
               "ctypes.c_void_p(0))\n")
    assert kernel_only.run(job(program + passes_only_if("CPU[0] > 0 and SET == 0"))).passed


def test_no_network_to_this_machine(kernel_only):
    tcp = socket.socket()
    tcp.bind(("127.0.0.1", 0))
    tcp.listen(1)
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    udp.settimeout(0.5)
    accepted = []
    thread = threading.Thread(target=lambda: accepted.append(tcp.accept()), daemon=True)
    thread.start()
    attack = ("import socket\ndef tcp():\n    try:\n        socket.create_connection(('127.0.0.1', "
              f"{tcp.getsockname()[1]}), 1)\n        return True\n    except OSError:\n        return False\n"
              f"try:\n    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
              f"    s.sendto(b'x', ('127.0.0.1', {udp.getsockname()[1]}))\nexcept OSError:\n    pass\n"
              "try:\n    IFACES = [n for _, n in socket.if_nameindex()]\nexcept OSError:\n    IFACES = []\n")
    v = kernel_only.run(job(attack + passes_only_if("not tcp() and set(IFACES) <= {'lo'}")))
    assert v.passed, v.reason
    thread.join(0.5)
    with pytest.raises(socket.timeout):
        udp.recvfrom(10)
    assert not accepted
    tcp.close()
    udp.close()


def test_a_unix_socket_file_is_out_of_reach(kernel_only, tmp_path):
    path = tmp_path / "listener.sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    server.listen(1)
    attack = (f"import socket\ntry:\n    s = socket.socket(socket.AF_UNIX)\n    s.connect({str(path)!r})\n    REACHED "
              "= True\nexcept OSError:\n    REACHED = False\n")  # no socket at all now (issue 63), and no path to reach
    assert kernel_only.run(job(attack + passes_only_if("not REACHED"))).passed
    server.close()


def test_signals_reach_no_process_outside(kernel_only):
    victim = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        attack = ("import os, signal\nSENT = []\n"
                  f"for pid in (-1, 1, 2, 3, {victim.pid}, {os.getpid()}):\n    try:\n        os.kill(pid, "
                  "signal.SIGKILL)\n        SENT.append(pid)\n    except OSError:\n        pass\n"
                  f"try:\n    signal.pidfd_send_signal(os.pidfd_open({victim.pid}), signal.SIGKILL)\n    "
                  "SENT.append('pidfd')\nexcept OSError:\n    pass\n")
        kernel_only.run(job(attack + RIGHT))
        time.sleep(0.2)
        assert victim.poll() is None, "a program killed a process outside its sandbox"
        assert kernel_only.run(job(RIGHT)).passed  # and the pool still grades
    finally:
        victim.kill()
        victim.wait()


def test_workers_run_as_an_unprivileged_user_in_their_own_namespaces(box):
    box.run(job(RIGHT))
    pids = [p for p in _worker_tree() if open(f"/proc/{p}/cmdline", "rb").read().startswith(b"/python/bin/python3")]
    assert pids, "no worker runs as the sandbox user"
    for pid in pids:
        for ns in ("pid", "net", "mnt", "ipc", "user"):
            assert os.readlink(f"/proc/{pid}/ns/{ns}") != os.readlink(f"/proc/self/ns/{ns}"), (pid, ns)


# ---- limits: CPU, not wall; memory, files ----------------------------------------------------------------------
def test_limits_are_failures_with_their_reasons(box):
    cases = {"while True:\n    pass\n": "CPU time limit (3 s)", "x = bytearray(2 << 30)\n": "MemoryError",
             "open('big', 'wb').write(b'x' * (2 << 20))\n": "File too large",
             "for i in range(300):\n    open(f'f{i}', 'w').close()\n": "No space left"}
    for code, reason in cases.items():
        v = box.run(job(code + RIGHT))
        assert not v.passed and reason in v.reason, (code, v)
    sleeper = box.run(job("import time\ntime.sleep(60)\n" + RIGHT))
    assert not sleeper.passed and "backstop" in sleeper.reason and not sleeper.final and sleeper.cpu_s < 1


@pytest.fixture
def busy_machine():
    """Both cores busy with other work for the test's length."""
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(os.cpu_count() or 2)]
    yield
    for h in hogs:
        h.kill()
        h.wait()


BURN = "import time\nt = time.process_time()\nwhile time.process_time() - t < {s}:\n    pass\n"


def test_verdicts_do_not_change_under_load(busy_machine):
    with sb.Sandbox(workers=2, cpu_s=2, backstop_s=2) as pool:  # a sleep backstop shorter than the loaded wall time
        slow_right = pool.run(job(BURN.format(s=1.2) + RIGHT))
        near_limit = pool.run(job(BURN.format(s=1.75) + RIGHT))  # a tick-sampled count (RLIMIT_CPU) can inflate 15%
        too_slow = pool.run(job(BURN.format(s=5) + RIGHT))
    assert slow_right.passed and slow_right.final and 1.2 <= slow_right.cpu_s < 2, slow_right
    assert near_limit.passed and 1.75 <= near_limit.cpu_s < 2, near_limit
    # stopped at the limit as the scheduler counts the program's running time, and named so
    assert not too_slow.passed and too_slow.reason == "CPU time limit (2 s)" and too_slow.final, too_slow
    assert 2 <= too_slow.cpu_s < 2.3, too_slow


def test_a_test_that_swallows_the_stand_ins_exceptions_does_not_hide_the_cpu_limit(box):
    swallowing = "def check(candidate):\n    try:\n        candidate(2, 3)\n    except BaseException:\n        pass\n"
    v = box.run(job("def add(a, b):\n    while True:\n        pass\n", test=swallowing))
    assert not v.passed and v.reason == "CPU time limit (3 s)" and 3 <= v.cpu_s < 3.3, v


# ---- secrets ------------------------------------------------------------------------------------------------------
def test_no_secret_leaves_through_a_verdict(monkeypatch):
    # built here: no key-shaped literal
    key, shaped = "sk-" + "live-grader-secret-123456", "sk-" + "proj-abcdefghijklmnop"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    monkeypatch.setenv("SOME_SETTING", "value-of-the-grading-process")
    attack = (f"def add(a, b):\n    raise ValueError('{shaped} value-of-the-grading-process "
              f"{key} \\x1b[31m' + 'x' * 5000)\n")
    with sb.Sandbox(workers=1, cpu_s=3) as pool:  # a pool reads this process's environment once, when it starts
        v = pool.run(job(attack))
    assert not v.passed and v.reason == "ValueError (raised in the program's process; its message is not kept)", v
    for secret in (shaped, "value-of-the-grading-process", key):
        assert secret not in v.reason
    assert sb.clean_reason(f"x {shaped} {key}", sb.Redactor()) == "x [redacted] [redacted]"  # and where text has them


# ---- the cache: data, not trust ------------------------------------------------------------------------------------
def test_the_cache_is_validated_and_signed(tmp_path, caplog):
    cache = tmp_path / "verdicts.jsonl"
    jobs = [job(RIGHT), job(WRONG)]
    assert [v.passed for v in sb.grade_jobs(jobs, cache, workers=2, cpu_s=3)] == [True, False]
    right, wrong = sorted((json.loads(line) for line in cache.read_text().splitlines()), key=lambda r: not r["passed"])
    assert len(right["mac"]) == 64 and wrong["cpu_s"] >= 0
    forged = {**wrong, "passed": True, "reason": ""}  # the wrong program's row, now "passed": its MAC no longer matches
    cache.write_bytes(b"\n".join([json.dumps(right).encode(), b"[1, 2]", b"\xff\xfe not utf-8", b"{}",
                                  json.dumps({**wrong, "passed": "false"}).encode(), json.dumps(forged).encode(),
                                  b'{"key": "torn']))
    with caplog.at_level("WARNING"):
        again = sb.grade_jobs(jobs, cache, workers=2, cpu_s=3)
    assert [v.passed for v in again] == [True, False]  # nothing crashed, the forged "passed" row was not trusted
    assert "6 line(s) are not verdicts this checkout's grader wrote" in caplog.text
    lines = cache.read_bytes().count(b"\n")
    assert sb.grade_jobs(jobs, cache, workers=2, cpu_s=3) == again  # the re-graded row did not join the torn line
    assert cache.read_bytes().count(b"\n") == lines


def test_a_row_from_another_checkout_is_not_trusted(tmp_path):
    row = {"key": "k", "passed": True, "reason": "", "cpu_s": 0.1, "harness": "split", "isolation": "bwrap"}
    mine, theirs = vc.VerdictCache(tmp_path / "a.jsonl", key=b"m" * 32), vc.VerdictCache(None, key=b"t" * 32)
    mine.add([row])
    assert vc.VerdictCache(tmp_path / "a.jsonl", key=b"m" * 32).known == {"k": row}
    assert vc.VerdictCache(tmp_path / "a.jsonl", key=b"t" * 32).known == {} and theirs.known == {}


# ---- no boundary: refused unless asked for -------------------------------------------------------------------------
def test_without_a_boundary_grading_refuses_unless_asked(monkeypatch):
    real_which = bd.shutil.which
    monkeypatch.setattr(bd.shutil, "which", lambda name: None if name == "bwrap" else real_which(name))
    sb.find_boundary.cache_clear()
    try:
        monkeypatch.setenv("COP_UNISOLATED_GRADING", "1")  # the environment gives no consent (issue 64): only the flag
        with pytest.raises(CostOfPassError, match="--unisolated-grading") as err:
            sb.current_boundary()
        assert "\n" not in str(err.value)
        with sb.Sandbox(workers=1, cpu_s=3, boundary=sb.current_boundary(unisolated_allowed=True)) as pool:
            right, wrong = pool.run(job(RIGHT)), pool.run(job(WRONG))
        assert right.passed and right.isolation == "none" and not wrong.passed
    finally:
        sb.find_boundary.cache_clear()


def test_bad_limits_are_one_line_errors():
    with pytest.raises(CostOfPassError, match="cpu_s must be a whole number"):
        sb.Sandbox(1, cpu_s=0)


def test_a_verdict_repeats_in_every_worker_and_run():
    """String hashing is fixed and random is seeded per job: a program whose answer depends on a set's order or on
    random numbers, and tests that draw their inputs, judge alike in fresh pools and different workers (under one
    checkout's secret, ``VerdictCache.draw_secret``)."""
    by_order = "def add(a, b):\n    return a + b if list({'x', 'y', 'z', 'w'})[0] == 'x' else a - b\n"
    by_luck = "import random\ndef add(a, b):\n    return a + b if random.random() < 0.5 else a - b\n"
    drawn = ("import random\ndef check(candidate):\n    for _ in range(3):\n        a, b = random.randint(0, 9), "
             "random.randint(0, 9)\n        assert candidate(a, b) == a + b or a == 0 or b == 0\n")
    jobs = [job(by_order), job(by_luck), job(RIGHT.replace("a + b", "a + b if a < 9 else 0"), drawn)]
    seen = []
    for _ in range(2):
        with sb.Sandbox(workers=2, cpu_s=3, draw_secret=b"one checkout's secret".ljust(32)) as pool:
            seen.append([(v.passed, v.reason) for v in pool.run_many(jobs * 3)])
    assert seen[0] == seen[1] and seen[0] == seen[0][:3] * 3, seen


SCANNER = """import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
r, w = os.pipe()
FLIP = bytes(i ^ 0x5A for i in range(256))  # the scanner keeps its needle XOR-ed: it never makes the text it seeks
def holds(flipped, span=96 << 20, step=1 << 16):
    found, here = False, id(FLIP) & ~(step - 1)
    for addr in range(here - span, here + span, step):  # every readable page near the heap, through write(2): an
        n = libc.write(w, ctypes.c_void_p(addr), step)  # unmapped one is EFAULT (or a short write), not a crash
        page = os.read(r, n) if n > 0 else b""  # drained every time, or the next write waits forever
        found = found or flipped in page.translate(FLIP)
    return found
"""


def _flipped(text: str) -> str:
    return bytes(b ^ 0x5A for b in text.encode()).hex()


def test_a_program_finds_no_other_programs_text_in_its_memory(kernel_only):
    """The worker never reads a program (the candidate takes its own from stdin): a program that scans every readable
    page near its heap finds a canary it made itself (the scanner works) but not one from the program before it."""
    canary = uuid.uuid4().hex
    with sb.Sandbox(workers=1, cpu_s=10, hook=False) as pool:
        before = "".join(f"# {i} {canary}\n" for i in range(1500))  # ~60 KB: freed, not unmapped, by the allocator
        assert pool.run(job(before + RIGHT)).passed  # the program before, full of a canary
        mine = uuid.uuid4().hex
        # its own canary, made here
        own = (SCANNER + f"X = bytes.fromhex('{_flipped(mine)}')\nMINE = X.translate(FLIP) * 3\n"
               + passes_only_if("holds(X)"))
        assert pool.run(job(own)).passed, "the scanner did not find its own canary"
        theirs = SCANNER + f"X = bytes.fromhex('{_flipped(canary)}')\n" + passes_only_if("not holds(X)")
        v = pool.run(job(theirs))
    assert v.passed, f"a program found the previous program's text in its memory ({v.reason})"


def test_the_cpu_limit_holds_for_a_program_that_catches_sigxcpu(box):
    catcher = "import signal\nsignal.signal(signal.SIGXCPU, lambda *a: None)\nwhile True:\n    pass\n"
    v = box.run(job(catcher + RIGHT))
    assert not v.passed and v.reason == "CPU time limit (3 s)" and 3 <= v.cpu_s < 3.3, v


# ---- issue 63: the verdict holds to its limits
# -------------------------------------------------------------------------
TAKEOVER = """import fcntl, json, os, struct, time
def _fd(mode):
    return next(fd for fd in range(3, 64) if _mode(fd) == mode)
def _mode(fd):
    try:
        return fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE
    except OSError:
        return None
RD, WR = _fd(os.O_RDONLY), _fd(os.O_WRONLY)
def frame(text):
    body = text.encode()
    return struct.pack('>I', len(body)) + body
def exactly(n):
    out = b''
    while len(out) < n:
        chunk = os.read(RD, n - len(out))
        if not chunk:
            os._exit(0)
        out += chunk
    return out
def burn(s):
    t = time.process_time()
    while time.process_time() - t < s:
        pass
{setup}
os.write(WR, frame(json.dumps({{'ready': True}})))
while True:  # the program answers the harness itself, frame by frame, and never returns to the grader's loop
    (size,) = struct.unpack('>I', exactly(4))
    args = json.loads(exactly(size))[1]  # a call: [which function, args, kwargs]
    {answer}
"""


def takeover(answer: str, setup: str = "") -> str:
    """A program that speaks the channel's protocol itself (a correct ``add`` that writes its replies as it likes)."""
    return TAKEOVER.format(setup=setup, answer=answer)


def test_a_program_that_computes_inside_a_frame_is_stopped_at_the_limit(kernel_only):
    """A correct program writes a reply's first byte, computes past the limit, then finishes the reply: the harness
    read the frame blocking, and it passed with 6 CPU s under a 2 s limit (issue 63). The limit is the limit."""
    answer = ("reply = frame(json.dumps({'ok': args[0] + args[1]}))\n    os.write(WR, reply[:1])\n"
              "    burn(4.5 if args == [2, 3] else 0)\n    os.write(WR, reply[1:])")  # once: below the kernel's 11 s
    v = kernel_only.run(job(takeover(answer)))
    assert not v.passed and v.reason.startswith("CPU time limit"), v
    assert kernel_only.run(job(takeover("os.write(WR, frame(json.dumps({'ok': args[0] + args[1]})))"))).passed


def test_a_reply_cannot_make_the_grader_work_for_it(kernel_only):
    """A correct program sent a 1,000,000-digit integer under a duplicate key before its answer: it passed with
    0.01 CPU s while the harness spent 19 s parsing it; integers sharing one hash killed the harness (issue 63). Both
    are failed now, quickly, and the harness's own CPU seconds are reported."""
    digits = "reply = '{\"ok\": ' + '9' * 1_000_000 + ', \"ok\": ' + str(args[0] + args[1]) + '}'\n    "
    before, start = slowdown(), time.monotonic()
    v = kernel_only.run(job(takeover(digits + "os.write(WR, frame(reply))")))
    assert not v.passed and time.monotonic() - start < 10 * max(before, slowdown()), v  # seconds on this machine's load
    collide = ("keys = ','.join(str(7 + k * (2 ** 61 - 1)) for k in range(100_000))\n    "
               "os.write(WR, frame('{\"ok\": {\"s\": [' + keys + ']}}'))")
    before, start = slowdown(), time.monotonic()
    v = kernel_only.run(job(takeover(collide)))
    held, bound = time.monotonic() - start, (3 + 6) * max(before, slowdown())  # the limit and the worker's overhead
    assert not v.passed and held < bound, (v, held, bound)
    assert "harness" not in v.reason, v  # the harness did not die: it judged



def test_the_harness_reports_its_own_cpu_seconds_not_the_programs(kernel_only):
    """Issue 63: the harness's CPU is reported beside the program's and counted in the grading bound; it must not
    count the program's own seconds (a harness's rusage would: the program is its child)."""
    v = kernel_only.run(job(BURN.format(s=1.0) + RIGHT))
    assert v.passed and v.cpu_s >= 1.0 and 0 < v.harness_cpu_s < 0.5, v


def _candidates() -> list[int]:
    """The programs this test process is judging now: sandbox processes that are PID 1 of a namespace inside their
    worker's (the harness makes one per program; ``NSpid`` lists a process's number in each namespace, its own last)
    and descend from this process (another test's pool, running beside, is left alone)."""
    def status(pid: int) -> dict[str, list[str]]:
        try:
            with open(f"/proc/{pid}/status") as fh:
                return {k: v.split() for k, _, v in (line.partition(":") for line in fh)}
        except OSError:
            return {}

    def mine(pid: int) -> bool:
        for _ in range(16):
            ppid = int((status(pid).get("PPid") or ["0"])[0])
            if ppid == os.getpid():
                return True
            if ppid <= 1:
                return False
            pid = ppid
        return False

    return [p for p in sandbox_processes()
            if len(ns := status(p).get("NSpid", [])) >= 3 and ns[-1] == "1" and mine(p)]


def _kill_from_outside(times: int, stop: threading.Event, pause_s: float = 0.02) -> None:
    """Kill the next ``times`` programs being judged with SIGKILL, as the OOM killer would (``pause_s`` between looks:
    0 kills most on sight, often before the program's process has taken its program off the worker's stdin)."""
    killed: set[int] = set()
    while len(killed) < times and not stop.is_set():
        for pid in _candidates():
            if pid not in killed:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
                killed.add(pid)
        time.sleep(pause_s)


SLOW_RIGHT = "import time\nt = time.process_time()\nwhile time.process_time() - t < 1.0:\n    pass\n" + RIGHT


@pytest.mark.parametrize("times, passed, pause_s", [(1, True, 0.02), (3, False, 0.02), (1, True, 0.0), (3, False, 0.0)])
def test_a_kill_from_outside_is_judged_again_never_frozen(tmp_path, times, passed, pause_s):
    """Issue 63 item 5: a right program SIGKILLed from outside the grader (the OOM killer under memory pressure) was
    cached as a final failure ("killed by SIGKILL"). Now it is judged again: killed once, it passes; killed every
    time (3 judgements), it could not be graded: failed, counted apart, never cached. Killed on sight (before its
    process took the program off the worker's stdin: that worker ends), the same (CI's failure of 99abe6c: the job
    was judged again on the ended worker and read "the sandbox stopped answering")."""
    stop = threading.Event()
    killer = threading.Thread(target=_kill_from_outside, args=(times, stop, pause_s), daemon=True)
    killer.start()
    try:
        [v] = sb.grade_jobs([job(SLOW_RIGHT)], tmp_path / "verdicts.jsonl", workers=1, cpu_s=3, backstop_s=4)
    finally:
        stop.set()
        killer.join()
    assert v.passed is passed, v
    if not passed:
        assert v.reason == f"{sb.UNGRADED}: killed from outside the grader {sb.OUTSIDE_TRIES} times" and not v.final
    cached = (tmp_path / "verdicts.jsonl").read_text() if (tmp_path / "verdicts.jsonl").exists() else ""
    assert ('"passed": true' in cached) is passed and "killed" not in cached


def test_a_harness_killed_from_outside_takes_its_program_with_it(tmp_path):
    """Issue 63 item 2, the harness's side: a harness SIGKILLed from outside (the OOM killer) leaves its program's
    namespace to the worker, which kills it through its pidfd at once; nothing of the program is left, and the program
    is judged again (a kill the grader did not order is no verdict)."""
    seen: dict[str, int] = {}
    stop = threading.Event()

    def kill_harness() -> None:
        while not stop.is_set() and "candidate" not in seen:
            for pid in _candidates():
                with open(f"/proc/{pid}/status") as fh:
                    ppid = int(next(line.split()[1] for line in fh if line.startswith("PPid:")))
                with contextlib.suppress(ProcessLookupError):
                    os.kill(ppid, signal.SIGKILL)
                seen.update(candidate=pid, harness=ppid, killed=time.monotonic())
                break
            time.sleep(0.01)
        while not stop.is_set() and "candidate" in seen and "gone_s" not in seen:  # how long the program outlives it
            if not os.path.exists(f"/proc/{seen['candidate']}"):
                seen["gone_s"] = time.monotonic() - seen["killed"]
            time.sleep(0.01)

    slow = "import time\ntime.sleep(1.5)\n" + RIGHT
    killer = threading.Thread(target=kill_harness, daemon=True)
    killer.start()
    try:
        started = time.monotonic()
        [v] = sb.grade_jobs([job(slow)], tmp_path / "verdicts.jsonl", workers=1, cpu_s=3, backstop_s=4)
        took = time.monotonic() - started
    finally:
        stop.set()
        killer.join()
    assert "candidate" in seen and seen.get("gone_s", 9.0) < 1.0, seen  # the program ended with its harness
    assert v.passed, v  # judged again after the outside kill
    assert took < 3 * 1.5 + 3, took  # the first program did not keep its worker past the kill


class _ScriptedWorker:
    """A stand-in for a worker process: answers from a script shared by all its instances; counts starts and stops."""

    script: list[dict | None] = []
    started = stopped = 0

    def __init__(self, box):
        type(self).started += 1

    def ask(self, header, program, tests, wait_s):
        answer = type(self).script.pop(0)
        return answer if answer is None else {**answer, "id": header.id}

    def stop(self):
        type(self).stopped += 1


def test_a_worker_whose_job_left_frames_unread_is_not_asked_again(monkeypatch):
    """The pool's side of the CI failure above, without timing: an answer with ``read: false`` (the worker has ended,
    its job's frames unread) retires that worker, so the next judgement starts a new one; a program killed from outside
    is judged up to ``OUTSIDE_TRIES`` times in all, and a worker dying under a job costs that job one more try only."""
    outside = {"passed": False, "outside": True, "read": False, "cpu_s": 0.0}
    right = {"passed": True, "read": True, "cpu_s": 0.01, "backstop": False}
    monkeypatch.setattr(sb, "_Worker", _ScriptedWorker)
    monkeypatch.setattr(_ScriptedWorker, "script", [outside, None, right])
    monkeypatch.setattr(_ScriptedWorker, "started", 0)
    monkeypatch.setattr(_ScriptedWorker, "stopped", 0)
    with sb.Sandbox(workers=1) as pool:
        [v] = pool.run_many([job(RIGHT)])
    assert v.passed and _ScriptedWorker.started == 3 and _ScriptedWorker.stopped == 3 and not _ScriptedWorker.script
    monkeypatch.setattr(_ScriptedWorker, "script", [outside] * sb.OUTSIDE_TRIES + [right])
    with sb.Sandbox(workers=1) as pool:
        [v] = pool.run_many([job(RIGHT)])
    assert v.reason.startswith(sb.UNGRADED) and _ScriptedWorker.script == [right]


def test_no_program_finds_an_earlier_programs_verdict():
    """Issue 63 item 6: the worker kept the last answer (a verdict and its reason) in its own frame, and every later
    program is forked from the worker: a program that walks its frames found the previous program's reason there
    (``main: answer``). Each job now runs in a process of its own forked from the worker, which holds no answer."""
    canary = uuid.uuid4().hex
    canary = canary[:24]  # a name a reason keeps (at most 30 characters)
    first = f"def add(a, b):\n    return c{canary}\n"  # its reason: "NameError: name 'c<canary>' is not defined"
    scan = (f"import gc, sys\nC = '{canary[:12][::-1]}'[::-1]\nR = '{canary[:12][::-1]}'\n"
            "def holds(o):\n    return isinstance(o, str) and C in o and o is not C and R not in o\n"
            "def inside(o):\n    if isinstance(o, dict):\n        return any(holds(k) or holds(v) for k, v in "
            "list(o.items()))\n    return isinstance(o, (list, tuple)) and any(holds(v) for v in o)\n"
            "FOUND = any(holds(o) or inside(o) for o in gc.get_objects())\nf = sys._getframe()\nwhile f:\n"
            "    FOUND = FOUND or any(holds(v) or inside(v) for v in list(f.f_locals.values()))\n    f = f.f_back\n")
    with sb.Sandbox(workers=1, cpu_s=3, backstop_s=4, hook=False) as one:  # one worker: the same for both
        assert canary in one.run(job(first)).reason
        v = one.run(job(scan + passes_only_if("FOUND")))
    assert not v.passed and v.reason.startswith("AssertionError"), "a program read an earlier program's verdict"


# ---- reasons carry data, not text for the report (issue 63 item 7) --------------------------------------------------
STRING_TEST = "def check(candidate):\n    assert candidate('hiddenword', 'b') == 'hiddenwordb'\n"


@pytest.mark.parametrize("raise_, leak", [
    ("raise ValueError('=HYPERLINK(\"https://evil.example\") \\u202egnissap\\u202c')",
     ("HYPERLINK", "evil", "gnissap")),
    ("raise NameError(f\"name '{a}' is not defined\")", ("hiddenword",)),  # a hidden input in CPython's own template
    ("raise type('https://evil.example/x', (Exception,), {})()", ("evil",)),  # a type named to be a link
    ("raise KeyError(a)", ("hiddenword",)),  # CPython's own message, which is the input
    ("raise AssertionError('passed every hidden test')", ("passed every",)),
    # the held-out round of 2026-11-29 (R1–R14): patterns that let text through, inputs in counts or with a suffix
    ("raise ValueError('Exceeds the limit (4300 digits) for integer string conversion https://evil.example')",
     ("evil",)),
    ("raise OSError('[Errno 1] Click here for your results')", ("Click",)),
    ("raise SyntaxError('read this now (<solution>, line 1)')", ("read this",)),
    ("raise TypeError('int() argument must be seen at evil dot com, not \\'x\\'')", ("evil",)),
    ("raise TypeError(f'add() takes 2 positional arguments but {len(a) * 12345} were given')", ("123450",)),
    ("raise NameError(f\"name '{a}.x' is not defined\")", ("hiddenword",)),
    ("raise type('www.evilexample.com', (Exception,), {})()", ("evilexample",)),
    ("raise IndexError('list index out of range\\u061c\\U000e0041')", ("\u061c", "\U000e0041")),
])
def test_a_programs_exception_writes_no_words_of_its_own(kernel_only, raise_, leak):
    """What a program raises reaches the reason as its type (an identifier) and a message only where it is one of
    CPython's own with no input in it: no link, formula, reversed or invisible text, forged sentence or hidden input."""
    v = kernel_only.run(job(f"def add(a, b):\n    {raise_}\n", STRING_TEST))
    assert not v.passed and ("its message is not kept" in v.reason or v.reason
                             == "an exception of the program's own type"
                             or v.reason == "IndexError: list index out of range"), v
    assert not any(word in v.reason for word in leak), v


def test_a_hidden_tests_own_words_are_not_published(kernel_only):
    """An assertion of the hidden tests fails: the reason says so, not the test's message (which may hold its
    inputs)."""
    test = "def check(candidate):\n    assert candidate(2, 3) == 6, 'expected 6 for the hidden input 2, 3'\n"
    v = kernel_only.run(job(RIGHT, test))
    assert not v.passed and v.reason == "AssertionError: a hidden test failed", v


def test_a_forged_missing_module_names_no_url_in_the_caveats(kernel_only):
    """A program that raises ModuleNotFoundError with a link for a module name at load: the reason keeps the type only,
    and the caveat's reading of missing modules takes identifiers only."""
    from helpers.grade.stage import MISSING_MODULE

    v = kernel_only.run(job("raise ModuleNotFoundError(\"No module named 'https://evil.example'\")\n" + RIGHT))
    assert v.reason == "ModuleNotFoundError (raised in the program's process; its message is not kept)", v
    import re

    assert re.search(MISSING_MODULE, "ModuleNotFoundError: No module named 'https://evil.example'") is None
    real = kernel_only.run(job("import sympy\n" + RIGHT))
    assert real.reason == "ModuleNotFoundError: No module named 'sympy'", real


def test_redaction_tells_a_program_nothing_it_guessed(kernel_only, monkeypatch):
    """Inside the boundary the program's environment is empty: masking every value of the grader's would tell a
    program whose reason names a right guess that it was right. A right and a wrong guess read alike."""
    monkeypatch.setenv("COP_SOME_SETTING", "grader_value_abcdef")
    monkeypatch.setenv("COP_API_TOKEN", "guessable_token_123")  # a secret's name: still nothing to tell (R15)
    guesses = ("grader_value_abcdef", "grader_value_zzzzzz", "guessable_token_123", "guessable_token_999")
    with sb.Sandbox(workers=1, cpu_s=3) as pool:  # a pool reads this process's environment once, when it starts
        said = [pool.run(job(f"def add(a, b):\n    return {guess}\n")).reason for guess in guesses]
    assert said == [f"NameError: name '{guess}' is not defined" for guess in guesses], said


def test_cpythons_own_messages_are_kept():
    """The messages ``reasons`` keeps are this interpreter's own (made here, not typed): a change of CPython's wording
    shows up as a failure here, not as reasons silently dropped."""
    from helpers.grade import reasons

    def message(code: str) -> tuple[str, str]:
        try:
            exec(code, {})
        except BaseException as exc:  # noqa: BLE001
            return type(exc).__name__, str(exc)
        raise AssertionError(code)

    for code in ("[][1]", "''[1]", "()[1]", "1 / 0", "1 // 0", "1 % 0", "1.0 / 0", "undefined_name",
                 "x = None; x[0]", "x = None; x()",
                 "x = 5; len(x)", "'a' + 1", "[] + 'a'", "1 + 'a'", "'a' < 1", "import no_such_module_x", "[].pop()",
                 "[1].remove(2)", "min([])", "a, b = [1]", "a, = [1, 2]", "hash([])", "(lambda x: x)()",
                 "(lambda x: x)(1, 2)", "(lambda: 0)(k=1)", "import math; math.sqrt(-1)", "'abc'.index('z')",
                 "object().x", "for x in 5: pass", "x = 'a'; x['x']", "x = [1]; x['x']", "-'a'",
                 "'a' * 'b'", "x = 5; 1 in x",
                 "def f(): return f()\nf()", "int(None)", "float('nan').__int__()"):
        name, text = message(code)
        assert reasons.kept_message(name, text) == text, (code, name, text)
    assert reasons.kept_message("ValueError", "invalid literal for int() with base 10: 'hiddenword'") is None
    assert reasons.kept_message("NameError", "name 'hiddenword' is not defined", (["hiddenword", 2], {})) is None


# ---- how long one program can hold a worker (issue 63 item 3) ------------------------------------------------------
def test_a_job_holds_a_worker_for_at_most_the_limit_plus_a_few_seconds():
    """The worst a program can do to the grader's time: compute to its CPU limit, sleep to the backstop, or make the
    hidden tests work on its answer (that work is the program's: counted in its CPU seconds; a stretch of the tests'
    own code is ended by the harness's limit). Each holds its worker at most the CPU limit plus the backstop plus
    a few seconds (start, teardown, the backstop's once-a-second reading)."""
    from helpers.grade.sandbox_server import HARNESS_MARGIN_S

    burn = "import time\nt = time.process_time()\nwhile time.process_time() - t < {s}:\n    pass\n"
    harness_loops = "def check(candidate):\n    x = candidate(2, 3)\n    while True:\n        x += 1\n"
    heavy_answer = ("def check(candidate):\n    got = candidate(2, 3)\n    for _ in range(10 ** 9):\n"
                    "        assert sorted(got) == sorted(got)\n")
    cases = {  # program, test, what the reason starts with
        "sleeps after computing": (burn.format(s=1.5) + "import time\ntime.sleep(600)\n" + RIGHT, TEST, "slept past"),
        "computes forever": ("while True:\n    pass\n" + RIGHT, TEST, "CPU time limit (2 s)"),
        "the tests work on its answer": ("def add(a, b):\n    return list(range(200000, 0, -1))\n", heavy_answer,
                                         "CPU time limit (2 s)"),
        "the tests' own code loops": (RIGHT, harness_loops, "CPU time limit (2 s)"),
    }
    with sb.Sandbox(workers=1, cpu_s=2, backstop_s=1, hook=False) as pool:
        pool.run(job(RIGHT))  # the worker is up
        for name, (program, test, reason) in cases.items():
            before, start = slowdown(), time.monotonic()
            v = pool.run(job(program, test))
            held = time.monotonic() - start
            assert not v.passed and v.reason.startswith(reason), (name, v)
            bound = (2 + HARNESS_MARGIN_S + 2.5) * max(before, slowdown()) + 1  # seconds on this machine's load
            assert held <= bound, (name, held, bound, v)


def slowdown(seconds: float = 0.2) -> float:
    """How much longer than its CPU seconds a busy loop of this process takes now (≥ 1; about 3 where three CPU-bound
    processes share each core): a bound in wall seconds holds on a loaded machine only multiplied by it (CI runs the
    suite three tests at a time beside whole pipelines)."""
    wall, cpu = time.perf_counter(), time.process_time()
    while time.process_time() - cpu < seconds:
        pass
    return max(1.0, (time.perf_counter() - wall) / seconds)


RANDOM_TEST = ("import random\ndef check(candidate):\n    for _ in range(3):\n"
               "        word = ''.join(random.choice('abcdef') for _ in range(12))\n"
               "        assert candidate(word, 0) == word\n")


def test_a_program_cannot_replay_the_tests_random_draws(kernel_only):
    """F1 of the held-out round: harness and program both seeded ``random`` with 0, so a wrong solution that ignores
    its input and replays the tests' draws passed (the shape of HumanEval/38 and /50). The tests now draw under a
    secret seed per checkout and job; a right solution still passes, and the same job draws the same inputs again."""
    replay = ("import random\nrandom.seed(0)\nDRAWS = iter([''.join(random.choice('abcdef') for _ in range(12))"
              " for _ in range(3)])\ndef add(a, b):\n    return next(DRAWS)\n")
    assert not kernel_only.run(job(replay, RANDOM_TEST)).passed
    assert kernel_only.run(job("def add(a, b):\n    return a\n", RANDOM_TEST)).passed
    one = sb.draw_seed(b"k" * 32, job(RIGHT))
    assert one == sb.draw_seed(b"k" * 32, job(RIGHT)) != sb.draw_seed(b"j" * 32, job(RIGHT))


def test_a_programs_stopiteration_does_not_end_a_tests_loop(kernel_only):
    """F2: a StopIteration raised again as itself in the harness ends a test's ``all(map(candidate, …))`` early, and
    ``all`` of nothing is True: a program that raised it on every call passed. It crosses as the program's error."""
    test = "def check(candidate):\n    assert all(map(lambda x: candidate(x, 0) == x, [1, 2, 3]))\n"
    v = kernel_only.run(job("def add(a, b):\n    raise StopIteration\n", test))
    assert not v.passed and v.reason.startswith("StopIteration"), v
    assert kernel_only.run(job("def add(a, b):\n    return a + b\n", test)).passed


def test_the_audit_hook_keeps_its_own_list(box):
    """F4: rebinding the worker module's ``HOOK_BLOCKED`` switched the audit hook off (the kernel still held)."""
    program = ("import __main__\n__main__.HOOK_BLOCKED = ()\ntry:\n    import socket\n    socket.socket()\n"
               "    HELD = False\nexcept PermissionError as e:\n    HELD = 'blocked by the sandbox' in str(e)\n"
               "except OSError:\n    HELD = False\n")
    v = box.run(job(program + passes_only_if("HELD")))
    assert v.passed, v


NEVER_READS = (TAKEOVER.split("{setup}")[0]  # the takeover's preamble: it finds the channel, says ready, never reads
               + "os.write(WR, frame(json.dumps({'ready': True})))\nwhile True:\n    pass\n")


def test_a_program_that_never_takes_a_large_call_is_held_to_its_limit(kernel_only):
    """H1 of the held-out round: the harness blocked writing a call larger than a pipe holds (64 KiB) to a program
    that said "ready" and computed without reading, outside its CPU watch: the program ran 11 s under a 3 s limit
    (45 s at the defaults) and read "BrokenPipeError". The harness now writes under the same watch."""
    big = "def check(candidate):\n    assert candidate(list(range(100000)), 0) == 4999950000\n"
    before, start = slowdown(), time.monotonic()
    v = kernel_only.run(job(NEVER_READS, big))
    assert not v.passed and v.reason == "CPU time limit (3 s)" and v.cpu_s < 3.5, v
    assert time.monotonic() - start < (3 + 2.5) * max(before, slowdown()) + 1  # 11 s before, idle
    assert kernel_only.run(job("def add(a, b):\n    return sum(a) + b\n", big)).passed


def test_a_program_too_large_to_send_is_a_verdict_not_a_dead_worker(kernel_only):
    """H5: a program over the 64 MiB a message carries killed its worker at every grading ("the sandbox stopped
    answering", never cached). It is now failed, finally, before any worker sees it."""
    v = kernel_only.run(job("#" + "x" * (65 << 20) + "\n" + RIGHT))
    assert not v.passed and v.final and "larger than the 64 MiB" in v.reason, v
    assert kernel_only.run(job(RIGHT)).passed


# ---- the held-out round of 2026-11-29 (evening): 38 new cases, 18 failed; each failure is a test here -------------
SELF_KILLS = {  # a wrong program that made its own failure read as a kill from outside the grader (judged again)
    # the harness read "gone" on the closed channel, then SIGKILLed the still-living program itself
    "close the channel and sleep": "import os, time\nos.closerange(3, 64)\ntime.sleep(30)\n" + WRONG,
    "close the channel and compute": "import os\nos.closerange(3, 64)\nwhile True:\n    pass\n" + WRONG,
    # the kernel's RLIMIT_CPU hard limit sends SIGKILL, delivered even to a namespace's PID 1
    "lower its own RLIMIT_CPU": "import resource\nresource.setrlimit(resource.RLIMIT_CPU, "
    "(1, 1))\nwhile True:\n    pass\n"
                                + WRONG,
    "lower it through prlimit": "import resource\nresource.prlimit(0, resource.RLIMIT_CPU, (1, 1))\nwhile True:\n"
                                "    pass\n" + WRONG,
}


@pytest.mark.parametrize("name", sorted(SELF_KILLS))
def test_a_program_cannot_make_its_failure_an_outside_kill(kernel_only, name):
    """A wrong program is a final failure, never "killed from outside the grader" (judged again, never cached)."""
    v = kernel_only.run(job(SELF_KILLS[name]))
    assert not v.passed and v.reason != sb.OUTSIDE and v.final, (name, v)


def test_with_the_audit_hook_on_a_forged_outside_kill_is_a_cached_failure(tmp_path):
    """As grading runs (hook on, a cache): the program that closed its channel was judged 3 times, never cached, and
    the set's caveat blamed the OOM killer or an operator. It is the program's own final failure."""
    program = "import os, time\nos.closerange(3, 64)\ntime.sleep(30)\n" + WRONG
    cache = tmp_path / "verdicts.jsonl"
    [v] = sb.grade_jobs([job(program)], cache, workers=1, cpu_s=3, backstop_s=4)
    assert not v.reason.startswith(sb.UNGRADED) and v.final and cache.exists(), v


def test_an_operators_sigterm_to_the_harness_is_judged_again(tmp_path):
    """An operator's ``kill`` (SIGTERM) of a right program's harness was cached as a final failure ("the harness
    ended without a verdict"): no verdict is the program's there, so it is judged again, and passes."""
    stop = threading.Event()

    def term_harness() -> None:
        while not stop.is_set():
            for pid in _candidates():
                with open(f"/proc/{pid}/status") as fh:
                    ppid = int(next(line.split()[1] for line in fh if line.startswith("PPid:")))
                with contextlib.suppress(ProcessLookupError):
                    os.kill(ppid, signal.SIGTERM)
                return
            time.sleep(0.02)

    killer = threading.Thread(target=term_harness, daemon=True)
    killer.start()
    cache = tmp_path / "verdicts.jsonl"
    try:
        [v] = sb.grade_jobs([job(BURN.format(s=1.0) + RIGHT)], cache, workers=1, cpu_s=3, backstop_s=4)
    finally:
        stop.set()
        killer.join()
    assert v.passed, v
    assert '"passed": false' not in cache.read_text()


INPUT_LEAKS = {  # (hidden test, program, the input that must not reach the reason)
    # the harness decoded a reply's integer under Python's digit limit and kept the ValueError with its digit count
    "digit count": ("def check(candidate):\n    assert candidate(54321, 0) == 54321\n",
                    "def add(a, b):\n    return 10 ** (a - 1)\n", "54321"),
    # an earlier call's input, named in a later call's error
    "an earlier call": ("def check(candidate):\n    assert candidate('secretword', 'b') == 'secretwordb'\n"
                        "    assert candidate('x', 'y') == 'xy'\n",
                        "SEEN = []\ndef add(a, b):\n    if SEEN:\n        raise NameError(f\"name '{SEEN[0]}' is not "
                        "defined\")\n    SEEN.append(a)\n    return a + b\n", "secretword"),
    "a float": ("def check(candidate):\n    assert candidate(2.718281828, 1.0) == 3.718281828\n",
                "def add(a, b):\n    raise OSError(f\"[Errno 1] Operation not permitted: '{a}'\")\n", "2.718281828"),
    "bytes": ("def check(candidate):\n    assert candidate(b'hiddenbytes', b'') == b'hiddenbytes'\n",
              "def add(a, b):\n    raise NameError(f\"name '{a.decode()}' is not defined\")\n", "hiddenbytes"),
    "a set": ("def check(candidate):\n    assert candidate({'hiddenset'}, set()) == {'hiddenset'}\n",
              "def add(a, b):\n    raise NameError(f\"name '{next(iter(a))}' is not defined\")\n", "hiddenset"),
    "the type's name": ("def check(candidate):\n    assert candidate('hiddenword', 'b') == 'hiddenwordb'\n",
                        "def add(a, b):\n    raise type(a, (Exception,), {})()\n", "hiddenword"),
}


@pytest.mark.parametrize("name", sorted(INPUT_LEAKS))
def test_no_hidden_input_reaches_a_reason(kernel_only, name):
    test, program, leak = INPUT_LEAKS[name]
    v = kernel_only.run(job(program, test))
    assert not v.passed and leak not in v.reason, (name, v)


@pytest.mark.parametrize("raise_, leak", [
    ("raise IndentationError('expected an indented block after all hidden tests passed see the log on line 1 "
     "(<solution>, line 2)')", "hidden tests passed"),  # free words after "expected an indented block after"
    ("raise NameError(\"name 'www.evilexample.com' is not defined\")", "www.evilexample.com"),  # a name has no dots
    ("raise ModuleNotFoundError(\"No module named 'www.evilexample.com'\")", "www.evilexample.com"),
])
def test_a_load_error_writes_no_sentence_or_link(kernel_only, raise_, leak):
    """No sentence or domain from a program reaches a reason, nor the caveats that read missing modules from it."""
    from helpers.grade.stage import MISSING_MODULE

    v = kernel_only.run(job(raise_ + "\n" + RIGHT))
    assert not v.passed and leak not in v.reason, v
    found = re.search(MISSING_MODULE, v.reason)
    assert found is None or "." not in found.group(1), v


def test_a_real_missing_stdlib_submodule_keeps_its_name(kernel_only):
    v = kernel_only.run(job("import xml.nothing_here\n" + RIGHT))
    assert v.reason == "ModuleNotFoundError: No module named 'xml.nothing_here'", v


def test_a_first_frame_that_is_not_utf8_is_the_programs_failure(kernel_only):
    v = kernel_only.run(job(takeover("pass", setup="os.write(WR, struct.pack('>I', 1) + b'\\xff')\nos._exit(0)")))
    assert not v.passed and v.final and v.reason == "the program's first message was not its own", v


def test_ustat_does_not_tell_the_host_disks_free_space(kernel_only):
    """statfs and fstatfs were refused; ustat (136) gave the free blocks of the file system of any file the program
    can stat (its interpreter's: the host's disk)."""
    probe = ("import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\nst = os.stat(sys.executable).st_dev\n"
             "ma, mi = os.major(st), os.minor(st)\nbuf = ctypes.create_string_buffer(32)\n"
             "RC = libc.syscall(136, ctypes.c_uint((mi & 0xff) | (ma << 8) | ((mi & ~0xff) << 12)), buf)\n")
    assert kernel_only.run(job("import sys\n" + probe + passes_only_if("RC != 0"))).passed


def test_a_reply_of_a_huge_flat_list_sent_at_the_limit_is_the_limit():
    """Lists were decoded without a look at the deadline (sets and dicts were): a 48 MiB flat list sent with 0.2 s
    left held the worker 8 s under a 3 s limit. The verdict is the limit, and the hold its bound."""
    answer = ("body = b'{\"ok\": [' + b'0,' * (24 << 20) + b'0]}'\n    burn(2.8)\n"
              "    os.write(WR, struct.pack('>I', len(body)) + body)")
    with sb.Sandbox(workers=1, cpu_s=3, backstop_s=1, hook=False) as pool:
        pool.run(job(RIGHT))
        load, start = slowdown(), time.monotonic()
        v = pool.run(job(takeover(answer)))
        held = time.monotonic() - start
    assert not v.passed and v.reason == "CPU time limit (3 s)" and v.final, v
    assert held <= (3 + 2 + 2.5) * load + 1, (held, v)


def test_a_fifo_planted_as_the_key_file_is_refused_in_one_line(tmp_path):
    """A FIFO where the grader's key belongs made the grader wait forever for a writer; it is refused at once."""
    os.mkfifo(tmp_path / vc.KEY_FILE, 0o600)
    code = ("from pathlib import Path\nfrom helpers.grade import verdicts\n"
            f"try:\n    verdicts.checkout_key(Path({str(tmp_path)!r}))\nexcept Exception as "
            "e:\n    print(type(e).__name__)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30)
    assert out.stdout.strip() == "CostOfPassError", (out.stdout, out.stderr)


def test_cpythons_own_indentation_messages_are_kept_whole():
    """The free words after "expected an indented block after" are gone; CPython's own phrases stay."""
    from helpers.grade import reasons

    for message in ("expected an indented block after 'if' statement on line 3 (<solution>, line 4)",
                    "expected an indented block after function definition on line 1 (<solution>, line 2)",
                    "expected an indented block after 'except*' statement on line 2 (<solution>, line 3)"):
        assert reasons.kept_message("IndentationError", message, at_load=True) == message
    assert reasons.kept_message("IndentationError", "expected an indented block after all hidden tests passed on line "
                                "1 (<solution>, line 2)", at_load=True) is None


# ---- issue 64 item 3: the job header is a typed message, checked where the worker reads it --------------------------
@pytest.mark.parametrize("change", [{"isolated": False}, {"scratch": "/"}, {"cpu_s": "3"}, {"mode": "both"}],
                         ids=["isolated", "scratch", "cpu_s as text", "mode"])
def test_a_first_frame_that_is_no_job_header_is_refused_and_runs_nothing(box, change):
    """The worker reads a job's first frame as a ``plain.JobHeader``: a field it does not know (whether it is isolated,
    its scratch directory: the worker's own to decide) or a value of the wrong type is refused in one line with the
    job's id; no program runs (no verdict, no CPU seconds), and the worker ends with the job's frames unread."""
    import select

    from helpers.grade import plain

    header = {**box._header(job(RIGHT)).to_dict(), **change}
    frames = [json.dumps(header).encode(), RIGHT.encode(), json.dumps({"test": TEST, "prompt": PROMPT}).encode()]
    worker = sb._Worker(box.boundary)
    try:
        stdin, out = worker.proc.stdin, worker.proc.stdout
        assert stdin is not None and out is not None
        for frame in frames:
            plain.write_frame(stdin.fileno(), frame)
        assert select.select([out], [], [], 30)[0], "the worker did not answer"
        answer = json.loads(out.readline())
        assert answer["id"] == header["id"] and answer["read"] is False, answer
        assert not {"passed", "cpu_s"} & set(answer), answer
        assert answer["error"].startswith("the worker refused the job: ") and "\n" not in answer["error"], answer
        assert worker.proc.wait(timeout=30) is not None  # it ended rather than read the unread frames as a job
    finally:
        worker.stop()


def test_a_header_the_grader_cannot_send_is_a_verdict_that_is_not_final():
    """The pool checks the header it builds as the worker would: a mistake of the grader's own (a memory size that is
    no whole number) is a failure never cached, not a hung pool or a dead thread."""
    with sb.Sandbox(workers=1, cpu_s=3, memory_mb=1024.5) as pool:  # type: ignore[arg-type]
        v = pool.run(job(RIGHT))
    assert not v.passed and not v.final and "the sandbox could not take the job" in v.reason, v
