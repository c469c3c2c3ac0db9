"""docs/architecture.md's recipes, each followed once on a small worked example: a model, a price, a task, a method, a
backend, an importer and a figure are added the way the recipe says (here into the running registries, undone after the
test), and a set that uses the addition is collected and graded (the figure: published and shown in the report)."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pandas as pd
import pytest
import yaml

from helpers.collect.collection import run_collection
from helpers.collect.preflight import preflight, preflight_estimate
from helpers.core.params import load_params
from helpers.grade.stage import run_grading

SIM_PRICES = {"date": "2025-01-01", "source": "worked example", "prices": {}}


def sim_model(tasks: list[str]) -> dict:
    """A registry entry of one simulated model with an accuracy on ``tasks``."""
    return {"label": "Sim example", "litellm_id": "sim/example", "family": "lightweight", "release_date": "2024-06-01",
            "sim": {"accuracy": {t: 0.7 for t in tasks}, "completion_tokens": {t: 40 for t in tasks}}}


def priced(*models: str) -> dict:
    return {**SIM_PRICES, "prices": {m: {"input_usd_per_mtok": 1.0, "output_usd_per_mtok": 4.0} for m in models}}


def example_set(write_set, models: dict, **over):
    """A small set on generated Two Digit Addition (``over`` replaces keys), with its own registry and prices."""
    p = {"name": "recipe", "tasks": ["two_digit_addition"], "models": list(models), "methods": ["vanilla"],
         "n_problems": 6, "n_runs": 2, "seed": 0, "budget_usd": 1.0, "concurrency": 1,
         "task_options": {"two_digit_addition": {"source": "generated"}}}
    p.update(over)
    return load_params(write_set(p, models=models, prices=priced(*models)))


def collected_and_graded(params):
    ctx = preflight(params)
    run_collection(ctx, progress=False)
    run_grading(ctx)
    return ctx, pd.read_parquet(params.graded_path / "attempts.parquet")


# ---- add a model ---------------------------------------------------------------------------------------------
def test_recipe_add_a_model(write_set, monkeypatch):
    """A registry entry and a price, nothing else: a model behind an OpenAI-compatible server on 127.0.0.1 is
    estimated by the dry run, collected, graded and priced."""
    from openai_stub import StubServer

    monkeypatch.setenv("MY_SERVER_KEY", "sk-" + "recipe-model")
    with StubServer("sk-" + "recipe-model") as server:
        model = {"label": "My served model", "litellm_id": "openai/my-served", "family": "mine",
                 "release_date": "2025-03-01", "api_base": server.base_url, "api_key_env": "MY_SERVER_KEY",
                 "typical_completion_tokens": 30}
        params = example_set(write_set, {"my-served": model})
        est = preflight_estimate(params)[1]  # the dry run's bill
        assert est["calls"].sum() == 12 and est["usd"].sum() > 0
        _, attempts = collected_and_graded(params)
    assert len(attempts) == 12 and set(attempts["model"]) == {"my-served"} and (attempts["usd"] > 0).all()
    assert attempts["correct"].any()


# ---- add a price ---------------------------------------------------------------------------------------------
def test_recipe_add_a_price(write_set, tmp_path):
    """A snapshot file, nothing else: the same records priced at a new snapshot cost what its prices say."""
    model = sim_model(["two_digit_addition"])
    params = example_set(write_set, {"example": model})
    _, attempts = collected_and_graded(params)
    cheaper = {"date": "2025-06-01", "source": "worked example: a price cut",
               "prices": {"example": {"input_usd_per_mtok": 0.5, "output_usd_per_mtok": 2.0}}}
    (tmp_path / "cut.yaml").write_text(yaml.safe_dump(cheaper))
    repriced = load_params(write_set({**yaml.safe_load(Path(params.source).read_text()),
                                      "price_snapshot": str(tmp_path / "cut.yaml")}))
    ctx, est = preflight_estimate(repriced)
    assert est["calls"].sum() == 0  # every call is recorded already: nothing to collect
    again = run_grading(ctx)
    assert again["usd"].sum() == pytest.approx(attempts["usd"].sum() / 2)  # every price halved
    assert again["correct"].tolist() == attempts["correct"].tolist()


# ---- add a task ---------------------------------------------------------------------------------------------
TASK_MODULE = '''"""Doubling: twice a whole number (the worked example of docs/architecture.md's task recipe)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from helpers.core.tasks.base import Problem, TaskSpec, read_jsonl, register

NAME = "doubling"


def load(data_dir: Path, options: dict[str, Any]) -> list[Problem]:
    return [Problem(NAME, f"doubling-{row['n']}", f"What is twice {row['n']}?", str(2 * row["n"]))
            for row in read_jsonl(data_dir / NAME / "test.jsonl", NAME)]


register(TaskSpec(name=NAME, label="Doubling", category="basic quantitative", metric="number", load=load,
                  source="made up for the recipe", files=(f"{NAME}/test.jsonl",)))
'''


@pytest.fixture
def doubling_task(tmp_path):
    from helpers.core.tasks.base import TASKS

    path = tmp_path / "doubling.py"
    path.write_text(TASK_MODULE)
    spec = importlib.util.spec_from_file_location("doubling_example", path)
    spec.loader.exec_module(importlib.util.module_from_spec(spec))  # its register() adds the task
    yield "doubling"
    TASKS.pop("doubling", None)


def test_recipe_add_a_task(doubling_task, write_set, tmp_path, monkeypatch):
    from helpers.core import experts

    registry = yaml.safe_load(experts.default_path().read_text())  # step (3): its human expert's cost
    registry["experts"][doubling_task] = {"qualification": "Basic numeracy", "hourly_rate_usd": [10, 20],
                                          "minutes_per_question": 0.05, "sources": "a worked example"}
    mine = tmp_path / "expert_costs.yaml"
    mine.write_text(yaml.safe_dump(registry))
    monkeypatch.setattr(experts, "default_path", lambda: mine)
    data = tmp_path / "data" / "doubling"
    data.mkdir(parents=True)
    (data / "test.jsonl").write_text("".join(json.dumps({"n": n}) + "\n" for n in range(10, 30)))
    params = example_set(write_set, {"sim-example": sim_model([doubling_task])}, tasks=[doubling_task],
                         task_options={}, data_dir=str(tmp_path / "data"), n_problems=8, n_runs=3)
    ctx, attempts = collected_and_graded(params)
    assert len(ctx.problems[doubling_task]) == 8 and len(attempts) == 8 * 3
    targets = {p.problem_id: p.target for p in ctx.problems[doubling_task]}
    assert (attempts["correct"] == [e == targets[p]
                                    for e, p in zip(attempts["extracted"], attempts["problem_id"])]).all()
    assert 0 < attempts["correct"].mean() < 1  # the simulated model passes some and fails some


# ---- add a method -------------------------------------------------------------------------------------------
def test_recipe_add_a_method(write_set, monkeypatch):
    from helpers.core.methods import base
    from helpers.core.prompts import PAPER_PROMPT, solve_messages

    class AskTwice(base.Method):
        """Two calls: the question, then the question again with the first answer shown."""

        def messages(self, question, call, responses):
            first = solve_messages(question)
            return first if call == 0 else [*first, {"role": "assistant", "content": responses[0]},
                                            {"role": "user", "content": "Check it and answer again."}]

    monkeypatch.setattr(base, "_REGISTRY", list(base._REGISTRY))  # the registration is undone after the test
    base.register("ask_twice", "ask_twice", lambda m: AskTwice("ask_twice", collected_calls=2, billed_calls=2,
                                                              templates=(PAPER_PROMPT, "Check it and answer again.")))
    params = example_set(write_set, {"sim-example": sim_model(["two_digit_addition"])},
                         methods=["vanilla", "ask_twice"])
    _, attempts = collected_and_graded(params)
    twice = attempts[attempts["method"] == "ask_twice"]
    vanilla = attempts[attempts["method"] == "vanilla"]
    assert len(twice) == len(vanilla) == 6 * 2 and (twice["calls"] == 2).all() and (vanilla["calls"] == 1).all()
    calls = pd.read_parquet(params.graded_path / "calls.parquet")
    twice_calls = calls[calls["method"] == "ask_twice"].set_index(["problem_id", "run", "call"])
    first, second = twice_calls.xs(0, level="call"), twice_calls.xs(1, level="call")
    assert len(second) == 12 and (second["prompt_hash"] != first["prompt_hash"]).all()  # it shows the first answer
    # the same first response gives the same second prompt: one second prompt per distinct (problem, first response)
    assert second["prompt_hash"].nunique() == first.reset_index()[["problem_id", "response"]].drop_duplicates().shape[0]
    estimates = pd.read_parquet(params.graded_path / "estimates.parquet")
    assert "sim-example+ask_twice" in set(estimates["strategy"])


# ---- add a backend ------------------------------------------------------------------------------------------
def register_calculator() -> None:
    """An in-process provider ``calc/<model>`` that adds the two numbers of the question (always right)."""
    import time

    from litellm import CustomLLM

    from helpers.collect.backends.provider import call_metadata, model_response, register_provider

    class Calculator(CustomLLM):
        def completion(self, model, messages, *args, **kwargs):
            call_metadata(kwargs, "problem_id", "calc")  # the call's identity, as every in-process backend gets it
            started = time.perf_counter()
            a, b = map(int, re.findall(r"(\d+) \+ (\d+)", messages[-1]["content"])[-1])
            text = f"<answer>{a + b}</answer>"
            return model_response(model, text, len(messages[-1]["content"]) // 4, len(text) // 4, started)

    register_provider("calc", Calculator)


def test_recipe_add_a_backend(write_set, monkeypatch):
    from helpers.collect import backends
    from helpers.core.models import LOCAL_PROVIDERS

    monkeypatch.setitem(backends.BACKENDS, "calc", register_calculator)
    LOCAL_PROVIDERS.add("calc")
    try:
        model = {"label": "Calculator", "litellm_id": "calc/adder", "family": "tools", "release_date": "2024-01-01",
                 "typical_completion_tokens": 5}
        params = example_set(write_set, {"calculator": model})
        _, attempts = collected_and_graded(params)
        assert len(attempts) == 12 and attempts["correct"].all() and (attempts["completion_tokens"] > 0).all()
        assert (attempts["usd"] > 0).all()
        assert run_collection(preflight(params), progress=False).made_calls == 0  # resumed: nothing to call again
    finally:
        LOCAL_PROVIDERS.discard("calc")


# ---- add an importer ----------------------------------------------------------------------------------------
def read_tsv(params, path, models):
    """The worked example's reader: tab-separated ``model, problem_id, run, answer, prompt, completion`` rows."""
    from helpers.collect.imports.common import Imported, source_error

    for number, line in enumerate(path.read_text().splitlines(), start=1):
        fields = line.split("\t")
        if len(fields) != 6:
            raise source_error(path, number, f"expected 6 tab-separated fields, got {len(fields)}")
        name, pid, run, answer, prompt, completion = fields
        if name in models:
            yield Imported("two_digit_addition", pid, models[name].name, int(run), f"<answer>{answer}</answer>",
                           int(prompt), int(completion), "the source's counts", "a worked example", row=number)


def test_recipe_add_an_importer(write_set, monkeypatch, tmp_path):
    from helpers.collect import imports
    from helpers.core import params as params_module

    monkeypatch.setattr(params_module, "IMPORT_FORMATS", [*params_module.IMPORT_FORMATS, "tsv_example"])
    monkeypatch.setitem(imports.READERS, "tsv_example", "test_recipes:read_tsv")
    source = tmp_path / "answers.tsv"
    source.write_text("")
    model = {"label": "Recorded", "litellm_id": "openai/recorded", "family": "large", "release_date": "2024-01-01",
             "imported": {"name": "recorded-v1"}}
    params = example_set(write_set, {"recorded": model}, import_from={"format": "tsv_example", "path": str(source)})
    problems = preflight(params).problems["two_digit_addition"]
    rows = [f"recorded-v1\t{p.problem_id}\t{run}\t{p.target if run == 0 else 0}\t30\t5"
            for p in problems for run in (0, 1)]
    source.write_text("\n".join(rows) + "\n")
    _, attempts = collected_and_graded(params)
    assert len(attempts) == 12 and list(attempts.sort_values("run")["correct"]) == [True] * 6 + [False] * 6
    assert (attempts["prompt_tokens"] == 30).all() and (attempts["completion_tokens"] == 5).all()
    source.write_text("recorded-v1\tbroken\n")
    with pytest.raises(Exception, match=r"answers.tsv: row 1: expected 6 tab-separated fields, got 2"):
        run_collection(preflight(example_set(write_set, {"recorded": model}, name="recipe2",
                                             import_from={"format": "tsv_example", "path": str(source)})))


# ---- add a figure -------------------------------------------------------------------------------------------
def attempts_per_model(frame: pd.DataFrame):
    """The worked example's drawing: mean USD per attempt of each model (frames in, a figure out)."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(4, 3))
    ax.bar(frame["model"], frame["usd"], color="#4C72B0")
    ax.set_ylabel("mean USD per attempt")
    return fig


def test_recipe_add_a_figure(write_set, monkeypatch):
    from helpers.analyze.estimates import load_analysis
    from helpers.publish import catalog
    from helpers.publish.report import ReportParts

    params = example_set(write_set, {"sim-example": sim_model(["two_digit_addition"])})
    ctx, attempts = collected_and_graded(params)
    example = catalog.Artifact("usd_per_model", "figure", "Mean USD per attempt of each model.", "03_frontier")
    monkeypatch.setitem(catalog.CATALOG, example.name, example)
    monkeypatch.setattr(catalog, "PARTS", {"Beyond the paper": {"Cost per attempt": (example.name,)}})
    data = attempts.groupby("model", as_index=False)["usd"].mean()
    caption = catalog.publish_figure(load_analysis(ctx), example.name, attempts_per_model(data), data)
    for suffix in (".png", ".svg", ".caption.md", ".layout.json"):
        assert (params.figures_path / f"{example.name}{suffix}").is_file()
    assert caption.startswith("Mean USD per attempt of each model.")
    blocks = list(ReportParts(params, renderer="offline").outline({"known_truth": True}))
    assert blocks[:2] == ["## Beyond the paper", "### 1. Cost per attempt"]
    assert 'id="sfig-usd-per-model"' in blocks[2] and "**Figure S1.** Mean USD per attempt of each model." in blocks[2]


def test_recipe_a_method_made_of_runs_owns_its_math_through_the_model_based_frontier_and_the_truth(monkeypatch):
    """Issue 39 item 3: registering ``any_of_kN`` with best-of-k's functions gave the same plug-in frontier and a
    different model-based one (the model-based estimator fell through to the majority vote's formula on any name it
    did not know). A method made of runs now carries its rate given one run's (``register_k``): the model-based
    frontier and the simulator's truth read it, and agree with best-of-k's."""
    import numpy as np

    from conftest import synthetic_attempts
    from helpers.analyze import bootstrap as bt
    from helpers.analyze.frontier_model import ModelFrontier
    from helpers.analyze.known_truth import _made_of_runs
    from helpers.core.methods import base, best_of_n, get_method

    monkeypatch.setattr(base, "_REGISTRY", list(base._REGISTRY))  # the registration is undone after the test
    base.register_k("any_of_k", best_of_n.best_of_k_estimates, best_of_n.any_pass_from_runs, best_of_n.any_pass_given,
                    best_of_n.any_pass_of_pattern)
    attempts = synthetic_attempts(problems=8)
    attempts = attempts[attempts["method"] == "vanilla"]
    cube = bt.run_cube(attempts, ["vanilla", "best_of_k2", "any_of_k2"])
    model = ModelFrontier(cube, np.full(len(cube.problems), 10.0))
    assert np.allclose(model.frontier(["a+any_of_k2"]), model.frontier(["a+best_of_k2"]))
    x, d, broken = np.array([0.2, 0.5, 0.9]), np.array([2, 3, 2]), np.array([False, False, True])
    assert np.allclose(_made_of_runs(get_method("any_of_k3"), x, d, broken, 0.05),
                       _made_of_runs(get_method("best_of_k3"), x, d, broken, 0.05))
    vote = _made_of_runs(get_method("majority_vote_k3"), x, d, broken, 0.05)
    assert not np.allclose(vote, _made_of_runs(get_method("best_of_k3"), x, d, broken, 0.05))  # a vote is not any-pass
