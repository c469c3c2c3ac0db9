"""Ctrl-C and SIGTERM stop the spending (issue 26 item 1): through the runner, against a slow server on 127.0.0.1."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from conftest import ROOT, STUB_KEY, STUB_PRICES, stub_models
from conftest import stub_set_params as base_params
from helpers.collect.records import RecordStore
from helpers.core.params import load_params
from openai_stub import StubServer

pytestmark = pytest.mark.slow  # signals real runs of the runner


def collecting(write_set, stub):
    """A collection of 120 slow calls started through the runner, once a few have been answered: (params, the
    command, its process, a bystander). The runner leads a session of its own, as a shell's job leads its process
    group, with the bystander (a ``sleep``) beside it in that group: no path of the runner may signal it."""
    path = write_set(base_params(n_problems=40, n_runs=3, methods=["vanilla"], models=["stub-a"], concurrency=2),
                     stub_models(stub.base_url), STUB_PRICES)
    cmd = [sys.executable, "-m", "helpers.cli.runner", "run", str(path), "--only", "01_collect"]
    witness = path.parent / "bystander.pid"
    beside = ["sh", "-c", 'sleep 300 >/dev/null 2>&1 & echo $! > "$0"; exec "$@"', str(witness), *cmd]
    proc = subprocess.Popen(beside, cwd=ROOT, env=os.environ.copy(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    deadline = time.time() + 120
    while time.time() < deadline and (stub.state.completions < 6 or not _written(witness)):
        time.sleep(0.05)
    return load_params(path), cmd, proc, Bystander(int(witness.read_text()))


def _written(path) -> bool:
    return path.is_file() and path.read_text().strip() != ""


class Bystander:
    """A process in the runner's process group that the runner did not start as a session of its own."""

    def __init__(self, pid: int):
        self.pid = pid
        self.started = self._stat()[1]

    def _stat(self) -> tuple[str, str]:
        try:
            fields = open(f"/proc/{self.pid}/stat").read().rpartition(")")[2].split()
        except OSError:
            return "gone", ""
        return fields[0], fields[19]

    def alive(self) -> bool:
        state, started = self._stat()
        return state not in ("gone", "Z", "X") and started == self.started

    def end(self) -> None:
        if self.alive():
            os.kill(self.pid, signal.SIGKILL)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_stops_the_calls_keeps_the_records_and_a_rerun_resumes(monkeypatch, write_set, sig):
    monkeypatch.setenv("STUB_API_KEY", STUB_KEY)
    with StubServer(STUB_KEY, delay_s=0.3) as stub:
        params, cmd, proc, bystander = collecting(write_set, stub)
        assert stub.state.completions >= 6, "the collection should have started"
        signalled = time.monotonic()
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 130 and time.monotonic() - signalled < 15
        time.sleep(1.0)  # anything started after the signal would reach the server by now
        late = [t - signalled for t in stub.state.arrivals if t > signalled]
        # the signal travels runner -> kernel -> workers in milliseconds: a call may start within that, none after.
        # An arrival is stamped when the server reads it, so a request sent just before the signal can read as late,
        # and the stub's instant 429/500 replies let a slot start a second call inside the window: bound the window,
        # and the count by what the two slots can send in it.
        assert len(late) <= 3 * params.concurrency and all(t < 0.25 for t in late), late
        lines = err.strip().splitlines()
        assert bystander.alive(), "the runner signalled a process group it did not create"
        bystander.end()
        assert "Traceback" not in err and lines[-1].endswith("run the same command again to resume")
        assert len(lines) <= 2  # "stopping: …" when it arrives, then what was kept
        kept = RecordStore(params.records_path).load()
        for shard in params.records_path.rglob("*.jsonl"):  # whole lines only
            for line in shard.read_text().splitlines():
                json.loads(line)
        assert 0 < len(kept) < 120
        stub.state.delay_s = 0.0  # only the interruption needed slow replies: the resume need not wait ~15 s
        again = subprocess.run(cmd, cwd=ROOT, env=os.environ.copy(), capture_output=True, text=True, timeout=300)
        assert again.returncode == 0, again.stderr[-2000:]
        done = RecordStore(params.records_path).load()
        assert (done["status"] == "ok").sum() == 120  # resumed: every planned call once


def test_a_second_ctrl_c_stops_at_once_and_a_rerun_resumes(monkeypatch, write_set):
    monkeypatch.setenv("STUB_API_KEY", STUB_KEY)
    with StubServer(STUB_KEY, delay_s=0.3) as stub:
        params, cmd, proc, bystander = collecting(write_set, stub)
        proc.send_signal(signal.SIGINT)
        time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        sent = time.time()
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 130 and time.time() - sent < 5 and "Traceback" not in err
        assert bystander.alive(), "the runner's kill signalled a process group it did not create"
        bystander.end()
        assert err.strip().splitlines()[-1].endswith("run the same command again to resume")
        time.sleep(1.0)
        kept = RecordStore(params.records_path).load()  # a torn last line, if the kill left one, is ignored
        assert 0 < len(kept) < 120
        stub.state.delay_s = 0.0  # only the interruption needed slow replies: the resume need not wait ~15 s
        again = subprocess.run(cmd, cwd=ROOT, env=os.environ.copy(), capture_output=True, text=True, timeout=300)
        assert again.returncode == 0, again.stderr[-2000:]
        assert (RecordStore(params.records_path).load()["status"] == "ok").sum() == 120


def test_grading_refuses_a_set_that_is_being_collected(write_set, tmp_path):
    from helpers.core.locking import output_lock

    path = write_set({"name": "busy", "tasks": ["two_digit_addition"], "models": ["sim-lightweight"], "n_problems": 2,
                      "n_runs": 1, "price_snapshot": "sim_tiny_2025-04", "budget_usd": 1,
                      "task_options": {"two_digit_addition": {"source": "generated"}}})
    params = load_params(path)
    first = subprocess.run([sys.executable, "-m", "helpers.cli.runner", "run", str(path), "--only", "01_collect"],
                           cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert first.returncode == 0, first.stderr[-2000:]
    with output_lock(params.output_path):  # a collection of the set is running
        for args in (["run", str(path), "--only", "02_grade"], ["reprice", str(path), "--as-of", "2025-07-01"]):
            out = subprocess.run([sys.executable, "-m", "helpers.cli.runner", *args], cwd=ROOT, capture_output=True,
                                 text=True, timeout=300)
            assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr[-2000:]
            assert "is being collected by another run (pid" in out.stderr and len(out.stderr.strip().splitlines()) == 1
