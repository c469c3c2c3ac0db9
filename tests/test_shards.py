"""``cost-of-pass run SET --shard i/N`` (issue 66 item 5): shards of a set's attempts collected and graded as separate
processes, merged by the whole set's run into the records and the report one run makes."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

from conftest import ROOT
from helpers.collect.records import COLUMNS, KEY, RecordStore
from helpers.core.errors import CostOfPassError
from helpers.core.shards import Shard, record_model, shard_of

# the record fields the clock makes (when the call was made, how long it took): the only ones a sharded run may change
TIMING = ("created_at", "latency_s")
N = 4


def small_set(name: str, out: Path, **over) -> dict:
    """A simulated set (offline, free, deterministic) with a two-call method, so an attempt's calls must stay in one
    shard."""
    return {"name": name, "tasks": ["two_digit_addition"], "models": ["sim-lightweight", "sim-reasoning"],
            "methods": ["vanilla", "self_refine"], "n_problems": 8, "n_runs": 3, "seed": 0,
            "price_snapshot": "sim_tiny_2025-04", "budget_usd": 5.0, "concurrency": 2, "output_dir": str(out),
            "task_options": {"two_digit_addition": {"source": "generated"}}, **over}


def test_a_shard_is_given_as_i_of_n():
    assert Shard.parse("3/4") == Shard(3, 4) and Shard.parse(" 1/1 ").label == "shard-1-of-1"
    for bad in ("0/4", "5/4", "a/b", "1/0", "1", "-1/4", "1/4/2", ""):
        with pytest.raises(CostOfPassError, match="give i/N"):
            Shard.parse(bad)
    assert record_model("sim-a.shard-2-of-4") == "sim-a" and record_model("gpt-4.1") == "gpt-4.1"


def test_bad_shard_values_are_one_line_before_any_call(write_set, tmp_path, capsys):
    from helpers.cli import runner

    path = write_set(small_set("badshard", tmp_path / "bad"))
    for bad in ("0/4", "5/4", "a/b"):
        assert runner.main(["run", str(path), "--shard", bad]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and f"--shard '{bad}'" in err[0], err
    assert not (tmp_path / "bad" / "records").exists()
    racing = write_set(small_set("raceshard", tmp_path / "race", design="racing"))
    assert runner.main(["run", str(racing), "--shard", "1/2"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "design: racing" in err[0] and "without --shard" in err[0]
    assert runner.main(["run", str(path), "--shard", "1/2", "--batch"]) == 2
    assert "batch" in capsys.readouterr().err


def test_shards_split_the_plan_by_key_not_by_position(write_set, tmp_path):
    """Every attempt is in exactly one shard, with all its calls; an attempt's shard does not change when the set
    gains problems (membership is a hash of its key)."""
    from helpers.collect.plan import plan_for
    from helpers.core.context import prepare
    from helpers.core.params import load_params

    def plans(n_problems: int) -> list[set[tuple]]:
        params = load_params(write_set(small_set("plan", tmp_path / "plan", n_problems=n_problems)))
        ctx = prepare(params)
        every = {a.key(0)[:5] for a in plan_for(params, ctx.problems, ctx.models)}
        parts = []
        for i in range(1, N + 1):
            p = params.model_copy(update={"settings": replace(params.settings, shard=f"{i}/{N}")})
            parts.append({a.key(0)[:5] for a in plan_for(p, ctx.problems, ctx.models)})
        assert set().union(*parts) == every and sum(map(len, parts)) == len(every)
        assert all(parts)  # every shard has work on a set of this size
        return parts

    small, large = plans(4), plans(8)
    for i in range(N):
        assert small[i] <= large[i]
        assert all(shard_of(*k, N) == i + 1 for k in small[i])


def records(root: Path) -> pd.DataFrame:
    """Every record of a store (all its files), sorted by key, timing fields dropped."""
    df = RecordStore(root).load()
    return df.drop(columns=list(TIMING)).sort_values(list(KEY)).reset_index(drop=True)


def test_a_record_in_two_files_counts_once(tmp_path):
    """A shard's file copied in as another's (a merge done twice): every read sees each record once; the spend too."""
    from helpers.collect.records import CallRecord

    store = RecordStore(tmp_path, part=Shard(1, 2))
    with store:
        for run in range(3):
            store.append(CallRecord(task="t", problem_id="p", model="m", method="vanilla", run=run, call=0,
                                    litellm_model="x", prompt_hash="h", status="ok", response="r", prompt_tokens=10,
                                    completion_tokens=5, fingerprint="f"))
    once = RecordStore(tmp_path).load()
    shutil.copy(tmp_path / "t" / "m.shard-1-of-2.jsonl", tmp_path / "t" / "m.shard-2-of-2.jsonl")
    shutil.copy(tmp_path / "t" / "m.shard-1-of-2.jsonl", tmp_path / "t" / "m.jsonl")
    again = RecordStore(tmp_path)
    assert len(once) == 3 and again.load().equals(once)
    assert len(again.latest()) == 3 and len(again.done()) == 3 and len(again.load(["prompt_tokens"])) == 3


def test_shards_lock_the_folder_together_and_the_set_alone(tmp_path):
    from helpers.core.locking import output_lock

    with output_lock(tmp_path, Shard(1, 2)), output_lock(tmp_path, Shard(2, 2)):  # side by side
        with pytest.raises(CostOfPassError, match="being collected by another run") as err:
            with output_lock(tmp_path):
                pass
        assert "shard 1/2" not in str(err.value) and str(os.getpid()) in str(err.value)  # names the shards' holders
        with pytest.raises(CostOfPassError, match="being collected"):
            with output_lock(tmp_path, Shard(1, 2)):  # one shard runs once at a time
                pass
    with output_lock(tmp_path):
        with pytest.raises(CostOfPassError, match="being collected"):
            with output_lock(tmp_path, Shard(1, 2)):
                pass


def test_a_torn_shard_is_resumed(write_set, tmp_path):
    """A shard killed mid-write leaves a torn last line: the shard's next run makes exactly the calls it lost."""
    from helpers.collect.collection import collect
    from helpers.core.context import prepare
    from helpers.core.params import load_params

    params = load_params(write_set(small_set("torn", tmp_path / "torn")))
    params = params.model_copy(update={"settings": replace(params.settings, shard=f"2/{N}")})
    ctx = prepare(params)
    first = collect(params, ctx.problems, ctx.models, ctx.snapshot, progress=False)
    assert first.made_calls and first.made_calls < first.planned_calls * N  # the shard's calls, not the set's
    path = next(params.records_path.glob(f"*/sim-reasoning.shard-2-of-{N}.jsonl"))
    data = path.read_bytes()
    cut = data.rstrip(b"\n").rfind(b"\n") + 1  # the last record, half written
    path.write_bytes(data[: cut + (len(data) - cut) // 2])
    again = collect(params, ctx.problems, ctx.models, ctx.snapshot, progress=False)
    assert again.made_calls == 1 and path.read_bytes().count(b"\n") == data.count(b"\n")
    assert collect(params, ctx.problems, ctx.models, ctx.snapshot, progress=False).made_calls == 0


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "helpers.cli.runner", *args], cwd=ROOT, env=os.environ.copy(),
                          capture_output=True, text=True, timeout=600)


def test_shards_collect_one_runs_records(write_set, tmp_path):
    """In one process (the fast loop's check; ``test_four_shards_reproduce_one_run`` runs the processes): the 4 shards'
    collections, one after another into one folder, hold the records of one collection, and then nothing is pending."""
    from helpers.collect.collection import collect
    from helpers.core.context import prepare
    from helpers.core.params import load_params

    def run(folder: str, shard: str = "") -> int:
        params = load_params(write_set(small_set("inproc", tmp_path / folder)))
        params = params.model_copy(update={"settings": replace(params.settings, shard=shard)})
        ctx = prepare(params)
        return collect(params, ctx.problems, ctx.models, ctx.snapshot, progress=False).made_calls

    whole = run("one")
    assert sum(run("many", f"{i}/{N}") for i in range(1, N + 1)) == whole and run("many") == 0
    pd.testing.assert_frame_equal(records(tmp_path / "one" / "records"), records(tmp_path / "many" / "records"))


@pytest.mark.slow  # the pipeline twice and 4 shards' runs: about a minute alone, minutes beside other work
def test_four_shards_reproduce_one_run(write_set, tmp_path):
    """The acceptance: the set run once, and as 4 shards in separate processes then merged by the set's run, gives the
    same records (every field but ``TIMING``) and the same tables, byte for byte."""
    one = write_set(small_set("sharded", tmp_path / "one")).rename(tmp_path / "one.yaml")
    many = write_set(small_set("sharded", tmp_path / "many")).rename(tmp_path / "many.yaml")
    assert (done := cli("run", str(one))).returncode == 0, done.stderr
    with ThreadPoolExecutor(N) as pool:
        shards = list(pool.map(lambda i: cli("run", str(many), "--shard", f"{i}/{N}"), range(1, N + 1)))
    for i, proc in enumerate(shards, 1):
        assert proc.returncode == 0, proc.stderr
        assert f"next  shard {i}/{N} of sharded collected and graded" in proc.stdout
        assert (tmp_path / "many" / "graded" / f"shard-{i}-of-{N}" / "attempts.parquet").is_file()
    files = sorted(p.name for p in (tmp_path / "many" / "records").glob("*/*.jsonl"))
    assert files == sorted(f"{m}.shard-{i}-of-{N}.jsonl" for m in ("sim-lightweight", "sim-reasoning")
                           for i in range(1, N + 1))
    made = sum(int(p.stdout.split("calls made")[0].split()[-1]) for p in shards)
    merged = cli("run", str(many))
    assert merged.returncode == 0, merged.stderr
    assert "0 calls made (0 failed) of" in merged.stdout and f"of {made} planned" in merged.stdout
    pd.testing.assert_frame_equal(records(tmp_path / "one" / "records"), records(tmp_path / "many" / "records"))
    assert set(TIMING) <= set(COLUMNS)
    tables = sorted(p.relative_to(tmp_path / "one") for p in (tmp_path / "one" / "tables").rglob("*") if p.is_file())
    assert tables
    for rel in tables:
        assert (tmp_path / "many" / rel).read_bytes() == (tmp_path / "one" / rel).read_bytes(), rel


def test_the_sets_grading_reads_the_shards_verdicts(tmp_path):
    """A program a shard judged is not judged again by the merge: the set's verdict cache reads the shards' (signed
    with this checkout's key) beside its own, and writes only its own."""
    from helpers.grade.verdicts import VerdictCache

    key = b"k" * 32
    row = {"key": "job", "passed": True, "reason": "", "cpu_s": 0.5, "harness": "split", "isolation": "bwrap"}
    VerdictCache(tmp_path / "graded" / "shard-2-of-4" / "sandbox_verdicts.jsonl", key).add([row])
    merged = VerdictCache(tmp_path / "graded" / "sandbox_verdicts.jsonl", key)
    assert merged.known == {"job": row} and not merged.skipped
    assert not (tmp_path / "graded" / "sandbox_verdicts.jsonl").exists()
    assert VerdictCache(tmp_path / "graded" / "shard-1-of-4" / "sandbox_verdicts.jsonl", key).known == {}
    assert VerdictCache(tmp_path / "graded" / "sandbox_verdicts.jsonl", b"o" * 32).skipped == 1  # another key's
