"""A stage's progress bar reaches the runner through a small file (``core.progress``)."""

import json
import os

import pytest

from helpers.core.progress import PROGRESS_ENV, progress_bar, watch

pytestmark = pytest.mark.filterwarnings("error::pytest.PytestUnhandledThreadExceptionWarning")  # the redraw thread too


def test_a_bar_inside_watch_writes_its_count_where_the_runner_reads_it(tmp_path):
    path = tmp_path / ".stage.progress.json"
    with watch(path, interval_s=0.01):
        assert os.environ[PROGRESS_ENV] == str(path)  # a kernel started now inherits it
        for _ in progress_bar(range(250), desc="grade", unit="call", mininterval=0):
            pass
        seen = json.loads(path.read_text())
        assert seen == {"desc": "grade", "n": 250, "total": 250, "unit": "call", "postfix": ""}
    assert PROGRESS_ENV not in os.environ and not path.exists()  # nothing left behind


def test_a_bar_without_a_watcher_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.delenv(PROGRESS_ENV, raising=False)
    bar = progress_bar(total=3, desc="collect", disable=True)
    bar.update(3)
    bar.close()
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow  # the runner in a terminal
def test_the_runner_draws_the_stage_bar_with_spend_in_a_terminal(shared_data, tmp_path):
    """In a pseudo-terminal (of size 0x0, as `script` or a CI runner gives one) the runner draws the stage's bar:
    stage, calls done / planned, and the USD spent."""
    import pty
    import subprocess
    import sys

    import yaml

    from conftest import ROOT

    params = yaml.safe_load((ROOT / "params" / "tiny.yaml").read_text())
    params.update(output_dir=str(tmp_path / "out"), n_problems=8)
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump(params))
    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "helpers.cli.runner", "run", str(path), "--only", "01_collect"],
                            stdin=subprocess.DEVNULL, stdout=follower, stderr=follower, cwd=ROOT,
                            env={**os.environ, "COP_DATA_DIR": str(shared_data)})
    os.close(follower)
    out = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the terminal closed: every process writing to it has ended
            break
        if not chunk:
            break
        out += chunk
    assert proc.wait(timeout=300) == 0, out.decode(errors="replace")[-2000:]
    text = out.decode(errors="replace")
    assert "01_collect tiny calls:" in text and "/384 [" in text and "of $5.00 spent" in text, text[-2000:]


@pytest.mark.parametrize("workers", [1, 2])
def test_a_study_reports_each_simulated_set_as_it_ends(workers, monkeypatch):
    """Issue 38 item 7: 07_validity ran for minutes without a line; its studies now step a bar per set, forked or
    not."""
    from helpers.core import pool, progress

    seen = []

    class Bar:
        def __init__(self, **kw):
            seen.append(kw)
            self.n = 0

        def update(self, n=1):
            self.n += n

        def close(self):
            seen.append(self.n)

    monkeypatch.setattr(progress, "progress_bar", lambda **kw: Bar(**kw))
    out = pool.forked_map(lambda a, b: a * b, [(i, 2) for i in range(7)], workers, desc="test sets")
    assert (out == [2 * i for i in range(7)] and seen[0]["total"] == 7 and seen[0]["desc"] == "test sets"
            and seen[-1] == 7)

