from helpers.collect.records import CallRecord, RecordStore


def rec(run=0, status="ok", response="<answer>1</answer>", **kw):
    return CallRecord(task="t", problem_id="p", model="m", method="vanilla", run=run, call=0,
                      litellm_model="x/m", prompt_hash="h", status=status, response=response, **kw)


def test_append_read_and_supersede(tmp_path):
    with RecordStore(tmp_path) as store:
        store.append(rec(0, "error", None, error="RateLimitError"))
        store.append(rec(0))
        store.append(rec(1, "error", None))
    store = RecordStore(tmp_path)
    assert len(store.load()) == 3
    latest = store.latest().set_index("run")
    assert latest.loc[0, "status"] == "ok" and latest.loc[1, "status"] == "error"
    done = store.done(responses=True)
    assert set(done[["task", "problem_id", "model", "method", "run", "call", "fingerprint"]].itertuples(
        index=False, name=None)) == {("t", "p", "m", "vanilla", 0, 0,
                                      "")} and done["response"].tolist() == ["<answer>1</answer>"]


def test_torn_last_line_is_ignored_and_repaired(tmp_path):
    with RecordStore(tmp_path) as store:
        store.append(rec(0))
    shard = RecordStore(tmp_path).shard("t", "m")
    with shard.open("a") as fh:
        fh.write('{"task": "t", "problem_id": "p", "mod')  # a crash mid-write
    assert len(RecordStore(tmp_path).load()) == 1
    with RecordStore(tmp_path) as store:
        store.append(rec(1))
    df = RecordStore(tmp_path).load()
    assert sorted(df.run) == [0, 1]


def _reader(root: str, ready: str, stop_after: int) -> str:
    """Load the store again and again while another process appends; report any duplicate or lost row.
    Touches ``ready`` once its imports are done, so that the writer starts only then."""
    import pathlib
    import time

    from helpers.collect.records import KEY

    pathlib.Path(ready).touch()
    seen, loads, deadline = 0, 0, time.monotonic() + 60
    while seen < stop_after:
        if time.monotonic() > deadline:
            return f"only {seen} of {stop_after} records seen in 60 s"
        df = RecordStore(root).load()
        loads += 1
        if df.duplicated(list(KEY)).any():
            return f"duplicate rows after {len(df)} records"
        if len(df) < seen:
            return f"{seen - len(df)} records lost"
        seen = len(df)
    return "" if loads > 1 else "the writer had finished before the first load"


def test_readers_writing_snapshots_while_a_writer_appends_see_every_record_once(tmp_path):
    """Readers in other processes parse appended lines and replace the parquet snapshots concurrently.

    The readers are spawned, not forked: a fork of this process, which by now runs pyarrow's and earlier
    tests' threads, can inherit a lock held by one of them and hang (one CI run did, for 60 minutes)."""
    import multiprocessing as mp
    import time

    n, store_dir = 4000, tmp_path / "store"
    ctx = mp.get_context("spawn")
    with ctx.Pool(2) as pool:
        flags = [tmp_path / f"ready{i}" for i in range(2)]
        readers = [pool.apply_async(_reader, (str(store_dir), str(f), n)) for f in flags]
        deadline = time.monotonic() + 120
        while not all(f.exists() for f in flags) and time.monotonic() < deadline:
            time.sleep(0.05)
        with RecordStore(store_dir) as store:
            for i in range(n):
                store.append(rec(i))
                if i % 500 == 0:
                    time.sleep(0.05)  # let the readers load between bursts
        assert [r.get(timeout=120) for r in readers] == ["", ""]
    df = RecordStore(store_dir).load()
    assert len(df) == n and sorted(df["run"]) == list(range(n))


def test_an_empty_shard_reads_as_no_records(tmp_path):
    """A shard left empty (opened, then a crash before its first line) is read as no records, with or
    without columns, before and after its snapshot is written."""
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "m.jsonl").write_text("")
    for _ in range(2):
        assert RecordStore(tmp_path).load().empty and RecordStore(tmp_path).load(["task", "run"]).empty
    with RecordStore(tmp_path) as store:
        store.append(rec(0))
    assert RecordStore(tmp_path).load(["run"])["run"].tolist() == [0]
