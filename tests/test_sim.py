import math

import numpy as np
import pytest

from helpers.collect.backends import sim
from helpers.collect.preflight import preflight

PROFILE = sim.SimProfile(accuracy={"t": 0.7, "u": 0.2}, completion_tokens={"t": 200, "u": 1000})


@pytest.mark.parametrize("target", [0.01, 0.2, 0.5, 0.9, 0.999])
def test_aptitude_hits_the_target_accuracy(target):
    p = sim.SimProfile(accuracy={"t": target}, completion_tokens={"t": 10})
    mean = np.mean([sim.true_probability(p, 0, "t", str(i)) for i in range(20000)])
    assert mean == pytest.approx(target, abs=0.01)


def test_difficulty_is_shared_across_models():
    strong = sim.SimProfile(accuracy={"t": 0.9}, completion_tokens={"t": 10})
    ps_weak = [sim.true_probability(PROFILE, 0, "t", str(i)) for i in range(300)]
    ps_strong = [sim.true_probability(strong, 0, "t", str(i)) for i in range(300)]
    from scipy.stats import spearmanr

    assert spearmanr(ps_weak, ps_strong).statistic == pytest.approx(1.0)  # the same problems are hard


def call(profile=PROFILE, **over):
    kw = dict(model="m", seed=0, task="t", problem_id="p1", target="42", n_choices=0, method="vanilla",
              run=0, call=0, prompt_chars=400)
    kw.update(over)
    return sim.simulate(profile, **kw)


def test_deterministic_and_varies_with_run():
    assert call() == call()
    outs = {call(run=r)["completion_tokens"] for r in range(20)}
    assert len(outs) > 10 and call()["prompt_tokens"] == 100


def test_estimates_recover_truth():
    """Per-problem success rates estimated from simulated calls match the exported probabilities."""
    from helpers.grade.answers import extract_answer

    ids = [f"p{i}" for i in range(40)]
    est = [np.mean([extract_answer(call(problem_id=i, run=r)["text"]) == "42" for r in range(200)]) for i in ids]
    truth = [sim.true_probability(PROFILE, 0, "t", i) for i in ids]
    assert np.max(np.abs(np.array(est) - truth)) < 0.12  # 200 draws: sd <= 0.035
    tokens = [call(problem_id=i, run=r)["completion_tokens"] for i in ids for r in range(25)]
    assert np.mean(tokens) == pytest.approx(200, rel=0.05)


def test_distractors_are_wrong_but_plausible():
    for u in np.linspace(0, 0.999, 7):
        assert sim.distractor("B", 4, u) in "ACD"
        assert sim.distractor("42", 0, u) != "42" and abs(float(sim.distractor("42", 0, u)) - 42) <= 10
    assert {sim.distractor("\\frac{1}{2}", 0, u) for u in (0.1, 0.5, 0.9)} == {"\\frac{1}{2} + 1",
                                                                               "\\frac{1}{2} + 2", "\\frac{1}{2} + 3"}


def test_through_litellm():
    import litellm

    sim.register()
    sim.register()  # idempotent
    meta = {"sim": PROFILE.model_dump(), "model": "m", "seed": 0, "task": "t", "problem_id": "p1", "target": "42",
            "n_choices": 0, "method": "vanilla", "run": 0, "call": 0}
    r = litellm.completion(model="sim/m", messages=[{"role": "user", "content": "x" * 400}], metadata={"cop": meta})
    expected = call()
    assert r.choices[0].message.content == expected["text"]
    assert r.usage.completion_tokens == expected["completion_tokens"] and r.usage.prompt_tokens == 100


def test_aptitude_on_a_sample_by_hand():
    from helpers.core.simulation import aptitude_on

    # one problem of difficulty 0: sigmoid(A) = 0.75, so A = logit(0.75) = ln 3
    assert aptitude_on(0.75, 2.0, np.array([0.0])) == pytest.approx(math.log(3), abs=1e-9)
    # difficulties symmetric around 0 and a target of one half: A = 0
    assert aptitude_on(0.5, 1.0, np.array([-1.0, 1.0])) == pytest.approx(0.0, abs=1e-9)


def test_direct_simulated_calls_make_the_records_litellm_makes(write_set):
    """The collector's direct path to the simulated handler, field by field against litellm.completion."""

    from helpers.collect.backends import register_all
    from helpers.collect.calling import Caller
    from helpers.collect.plan import plan_for
    from helpers.core.params import load_params
    from helpers.core.prompts import refine_messages, solve_messages

    params = load_params(write_set({"name": "direct", "tasks": ["two_digit_addition"],
                                    "models": ["sim-lightweight", "sim-reasoning"],
                                    "methods": ["vanilla", "self_refine"], "n_problems": 6, "n_runs": 2,
                                    "price_snapshot": "sim_tiny_2025-04", "budget_usd": 1.0,
                                    "task_options": {"two_digit_addition": {"source": "generated"}}}))
    ctx = preflight(params)
    register_all()
    direct, through = Caller(params), Caller(params, direct_sim=False)
    for a in plan_for(params, ctx.problems, ctx.models):
        for c in range(a.method.collected_calls):
            messages = solve_messages(a.problem.question) if c == 0 else refine_messages(a.problem.question, "earlier")
            mine, theirs = vars(direct(a, c, messages)), vars(through(a, c, messages))
            mine.pop("latency_s"), theirs.pop("latency_s")
            assert mine == theirs


def _sim_set(write_set, name: str, concurrency: int, **over):
    from helpers.core.params import load_params

    return load_params(write_set({"name": name, "tasks": ["two_digit_addition"],
                                  "models": ["sim-lightweight", "sim-reasoning"], "methods": ["vanilla", "self_refine"],
                                  "n_problems": 8, "n_runs": 3, "price_snapshot": "sim_tiny_2025-04",
                                  "budget_usd": 1.0, "concurrency": concurrency,
                                  "task_options": {"two_digit_addition": {"source": "generated"}}, **over}))


def test_forked_collection_makes_the_records_of_one_process(write_set):
    """Two worker processes (one per shard group) write the same records as collecting in this process."""
    from helpers.collect.collection import run_collection
    from helpers.collect.records import CALL, RecordStore

    frames = []
    for name, concurrency in (("one", 1), ("forked", 2)):
        ctx = preflight(_sim_set(write_set, name, concurrency))
        result = run_collection(ctx, progress=False)
        assert result.made_calls == result.planned_calls == 2 * 8 * 3 * 3 and result.failed_calls == 0
        df = RecordStore(ctx.params.records_path).load().drop(columns=["latency_s", "created_at"])
        frames.append(df.sort_values(list(CALL)).reset_index(drop=True))
    assert frames[0].equals(frames[1])
    assert run_collection(preflight(_sim_set(write_set, "forked", 2)), progress=False).made_calls == 0  # resumable


def test_forked_collection_stops_at_the_shared_budget(write_set, monkeypatch):
    """Worker processes share one budget: nothing starts once it is reached, and the spend passes it by at
    most one call per worker (the calls in flight)."""
    from helpers.collect import collection
    from helpers.collect.preflight import estimate
    from helpers.collect.records import RecordStore
    from helpers.core.context import prepare
    from helpers.core.prices import cost_usd

    params = _sim_set(write_set, "budget", 2, methods=["vanilla"], n_problems=40)
    ctx = prepare(params)
    est = estimate(ctx)
    # room for ten of the dearest calls, a fraction of the whole: each worker's first call fits whichever starts first
    params.budget_usd = 10 * float((est["usd"] / est["calls"]).max())
    assert est["usd"].sum() > 5 * params.budget_usd
    monkeypatch.setattr(collection, "check_budget", lambda *a: None)  # start although the estimate is over
    result = collection.collect(params, ctx.problems, ctx.models, ctx.snapshot, progress=False)
    assert result.stopped_by_budget and result.made_calls > 0 and result.pending_calls > 0
    assert result.made_calls + result.pending_calls == result.planned_calls == 2 * 40 * 3
    records = RecordStore(params.records_path).load()
    usd = cost_usd(records, ctx.snapshot)
    assert len(records) == result.made_calls
    assert usd.sum() == pytest.approx(result.spent_now_usd)
    assert usd.sum() - params.budget_usd <= 2 * usd.max()


def test_partition_keeps_shards_together_and_balances():
    from helpers.collect.workers import partition

    items = [(k, w) for k, w in [("a", 5), ("a", 5), ("b", 3), ("c", 3), ("d", 2), ("e", 1), ("e", 1)]]
    groups = partition(items, key=lambda x: x[0], weight=lambda x: x[1], n=2)
    assert len(groups) == 2 and sorted(map(len, groups)) == [2, 5]
    assert all(len({k for k, _ in g} & {k for k, _ in other}) == 0 for g in groups
               for other in groups if g is not other)
    assert sorted(sum(w for _, w in g) for g in groups) == [10, 10]
    assert partition(items, key=lambda x: x[0], weight=lambda x: x[1], n=9) and \
        len(partition(items, key=lambda x: x[0], weight=lambda x: x[1], n=9)) == 5  # no empty groups


def test_a_refinement_resumed_later_builds_on_the_recorded_first_response(write_set):
    """Only call 0 of each self-refine attempt is on record: the next collection makes call 1 with the
    recorded response in its prompt (needed_responses), and the records equal those of one pass."""
    import json

    from helpers.collect.collection import run_collection
    from helpers.collect.records import CALL, RecordStore

    ctx = preflight(_sim_set(write_set, "resume", 1))
    run_collection(ctx, progress=False)
    store = RecordStore(ctx.params.records_path)
    whole = store.load().drop(columns=["latency_s", "created_at"]).sort_values(list(CALL)).reset_index(drop=True)
    for shard in store.shards():
        lines = [line for line in shard.read_text().splitlines() if json.loads(line)["call"] == 0]
        shard.write_text("\n".join(lines) + "\n")
    import shutil

    shutil.rmtree(ctx.params.records_path / ".snapshot")
    result = run_collection(preflight(ctx.params), progress=False)
    assert result.made_calls == 2 * 8 * 3  # one refinement per self-refine attempt
    again = store.load().drop(columns=["latency_s", "created_at"]).sort_values(list(CALL)).reset_index(drop=True)
    assert again.equals(whole)
