"""The plan of a set's collection: every attempt (problem x model x method x run) with the fingerprint of each
of its calls, and which calls are still to make. Pure bookkeeping: nothing here calls a model or prices a call.
Must not import the calling, budget or collection modules (they import this one).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from helpers.collect.records import KEY, RecordStore, key_strings, keys_in
from helpers.core.methods import Method, collected_methods
from helpers.core.models import ModelSpec, call_sampling
from helpers.core.params import Params
from helpers.core.prompts import messages_hash, solve_messages, template_hash
from helpers.core.tasks import Problem


@dataclass(frozen=True)
class Attempt:
    """One attempt of a method by a model on a problem (it may make several calls).

    ``fingerprints[c]`` identifies what determines the response of call ``c`` (see ``fingerprint``).
    """

    problem: Problem
    model: ModelSpec
    method: Method
    run: int
    fingerprints: tuple[str, ...] = ()

    def key(self, call: int) -> tuple:
        """The record key of call ``call``: (task, problem_id, model, method, run, call, fingerprint)."""
        return (self.problem.task, self.problem.problem_id, self.model.name, self.method.name, self.run, call,
                self.fingerprints[call])


_PROMPT = "@@prompt@@"  # where a call's prompt hash goes in its fingerprint's text (``fingerprint_text``)


def fingerprint_text(model: ModelSpec, sampling: dict[str, Any], seed: int, method: Method, call: int) -> str:
    """The JSON text ``fingerprint`` hashes, with ``_PROMPT`` where the prompt's hash goes: everything but the prompt
    (the same for every problem of a model, method and call, so a plan builds it once)."""
    parts: dict[str, Any] = {
        "litellm_model": model.litellm_id, "sampling": sampling, "method": method.name, "call": call,
        "prompt": _PROMPT, "templates": template_hash(*method.templates[: call + 1]),
    }
    if model.sim:
        parts["backend"] = {"seed": seed, "sim": model.sim.model_dump()}
    if model.local:
        parts["backend"] = {"seed": seed, "sha256": model.local.sha256, "chat": model.local.chat,
                            "n_ctx": model.local.n_ctx}
    return json.dumps(parts, sort_keys=True)


def fingerprint(model: ModelSpec, sampling: dict[str, Any], seed: int, question: str, method: Method, call: int,
                text: str | None = None, prompt: str | None = None) -> str:
    """sha256 (hex, 16 chars) of what determines a call's response.

    The litellm model id, the sampling arguments sent, the prompt (hash of the first message and of
    the templates the call's messages are built from), the method and the call index; for the
    in-process backends also the seed and the simulated profile or the weights' sha256. An imported model's
    response was made by others with their own prompt and sampling: its fingerprint is the source's name of the
    model, the question, the method and the call. ``text`` (``fingerprint_text``) and ``prompt`` (the question's
    ``messages_hash``): already computed, when given.
    """
    if model.imported:
        parts = {"imported": model.imported.name, "question": hashlib.sha256(question.encode()).hexdigest(),
                 "method": method.name, "call": call}
        return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:16]
    text = text or fingerprint_text(model, sampling, seed, method, call)
    prompt = prompt or messages_hash(solve_messages(question))  # hex: nothing in it needs escaping
    return hashlib.sha256(text.replace(f'"{_PROMPT}"', f'"{prompt}"', 1).encode()).hexdigest()[:16]


def plan_attempts(problems: dict[str, list[Problem]], models: list[ModelSpec], methods: list[str], n_runs: int,
                  sampling: dict[str, Any] | None = None, seed: int = 0) -> list[Attempt]:
    """Every attempt of the set, in a stable order (task, problem, model, method, run), with fingerprints."""
    out: list[Attempt] = []
    texts: dict[tuple[str, str, int], str] = {}  # (model, method, call) -> its fingerprint's text
    args = {m.name: call_sampling(m, sampling or {}) for m in models}
    for task_problems in problems.values():
        for p in task_problems:
            prompt = messages_hash(solve_messages(p.question))
            for m in models:
                for method in collected_methods(methods):
                    fps = []
                    for c in range(method.collected_calls):
                        if (m.name, method.name, c) not in texts and not m.imported:
                            texts[m.name, method.name, c] = fingerprint_text(m, args[m.name], seed, method, c)
                        fps.append(fingerprint(m, args[m.name], seed, p.question, method, c,
                                               texts.get((m.name, method.name, c)), prompt))
                    out.extend(Attempt(p, m, method, run, tuple(fps)) for run in range(n_runs))
    return out


def plan_for(params: Params, problems: dict[str, list[Problem]], models: list[ModelSpec]) -> list[Attempt]:
    """``plan_attempts`` for a parameter set: in a shard's run (``--shard i/N``) only the attempts of that shard
    (``core.shards``), so its bill, its calls and its grading are the shard's."""
    attempts = plan_attempts(problems, models, params.methods, params.n_runs, params.sampling.model_dump(),
                             params.seed)
    part = params.settings.part
    if part is None:
        return attempts
    return [a for a in attempts if part.holds(a.problem.task, a.problem.problem_id, a.model.name, a.method.name, a.run)]


def plan_keys(attempts: list[Attempt]) -> tuple[pd.Series, np.ndarray, np.ndarray]:
    """Every planned call's key as one string (``records.key_strings``' format), its attempt's index in
    ``attempts`` and its call number: arrays of one row per call, in plan order."""
    n_calls = np.array([a.method.collected_calls for a in attempts], dtype=np.int64)
    attempt = np.repeat(np.arange(len(attempts)), n_calls)
    call = np.arange(len(attempt)) - np.repeat(np.cumsum(n_calls) - n_calls, n_calls)
    sep = "\x1f"
    keys = [sep.join((a.problem.task, a.problem.problem_id, a.model.name, a.method.name, str(a.run), str(c),
                      a.fingerprints[c])) for a in attempts for c in range(a.method.collected_calls)]
    return pd.Series(keys, dtype="str"), attempt, call


def in_plan(records: pd.DataFrame, attempts: list[Attempt], planned: pd.Series | None = None) -> pd.Series:
    """Boolean mask of the records (rows with the KEY columns) whose key and fingerprint a plan makes
    (``planned``: the plan's ``plan_keys``, when already at hand)."""
    wanted = plan_keys(attempts)[0] if planned is None else planned
    return pd.Series(keys_in(key_strings(records), wanted), index=records.index, dtype=bool)


def pending(attempts: list[Attempt], done: pd.DataFrame,
            planned: tuple[pd.Series, np.ndarray, np.ndarray] | None = None) -> list[tuple[Attempt, list[int]]]:
    """Attempts with calls still to make, and those calls' indices. ``done``: ``RecordStore.done()``."""
    keys, attempt, call = planned or plan_keys(attempts)
    todo = np.flatnonzero(~keys_in(keys, key_strings(done)))
    out: dict[int, list[int]] = {}
    for i in todo.tolist():
        out.setdefault(int(attempt[i]), []).append(int(call[i]))
    return [(attempts[i], calls) for i, calls in out.items()]


def needed_responses(todo: list[tuple[Attempt, list[int]]], store: RecordStore) -> dict[tuple, str]:
    """The recorded responses that pending attempts build on (a refinement needs its first response), by key."""
    wanted = {a.key(c) for a, calls in todo for c in range(a.method.collected_calls) if c not in calls}
    if not wanted:
        return {}
    done = store.done(responses=True)
    keys = key_strings(pd.DataFrame(list(wanted), columns=list(KEY)))
    rows = done[keys_in(key_strings(done), keys)]
    return dict(zip(rows[list(KEY)].itertuples(index=False, name=None), rows["response"]))


def to_call(todo: list[tuple[Attempt, list[int]]]) -> list[tuple[Attempt, list[int]]]:
    """The pending calls collection makes: an imported model's are imported, never called."""
    return [(a, c) for a, c in todo if not a.model.imported]
