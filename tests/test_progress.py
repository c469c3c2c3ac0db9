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
        assert seen == {"desc": "grade", "n": 250, "total": 250, "unit": "call"}
    assert PROGRESS_ENV not in os.environ and not path.exists()  # nothing left behind


def test_a_bar_without_a_watcher_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.delenv(PROGRESS_ENV, raising=False)
    bar = progress_bar(total=3, desc="collect", disable=True)
    bar.update(3)
    bar.close()
    assert list(tmp_path.iterdir()) == []
