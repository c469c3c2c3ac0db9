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
    assert set(store.done()) == {("t", "p", "m", "vanilla", 0, 0, "")}


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
