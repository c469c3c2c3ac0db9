"""A simulated provider, reached through litellm like any other (model ids ``sim/<name>``).

Each call is one draw of the generative model of ``core.simulation`` (after the capability-frontier paper,
§4.3.2), with every random number a hash of (seed, model, task, problem, method, run, call), so runs are
reproducible: the problem's difficulty z and the (problem, model) interaction e are hashes of their coordinates,
the profile gives the model's aptitude A per task (calibration solves it so that the mean of pi over the set's
sampled problems equals the target accuracy; without it, so that the population mean does), spread s,
interaction sd and capability cliff. ``true_probability`` exports pi so tests can compare estimates with truth.
Everything it produces is simulated and is labelled so.
"""

from __future__ import annotations

import math
import time

import numpy as np

from helpers.core.models import SimProfile
from helpers.core.simulation import (
    Generator,
    aptitude,
    completion_tokens,
    difficulty,
    distractor,
    hashed_normal,
    interaction,
    refined,
    unit,
)


def profile_generator(profile: SimProfile) -> Generator:
    """The generator of a profile: its interaction sd and cliff."""
    return Generator("profile", interaction_sd=profile.interaction_sd, cliff=profile.cliff)


def task_aptitude(profile: SimProfile, task: str) -> float:
    """A on ``task``: the profile's, else solved on the population for its target accuracy."""
    if task not in profile.accuracy:
        raise KeyError(f"simulated profile has no accuracy for task '{task}'")
    a = profile.aptitude.get(task)
    if a is None:
        a = aptitude(profile.accuracy[task], profile.difficulty_spread, profile.interaction_sd, profile.cliff)
    return a


def true_probability(profile: SimProfile, seed: int, task: str, problem_id: str, method_call: str = "solve", *,
                     model: str = "") -> float:
    """pi(m, p): the probability one attempt (``solve``) or a refinement (``refine``) of ``model`` is correct
    (the model's name fixes its interaction draws: required when the profile has an interaction)."""
    if profile.interaction_sd and not model:
        raise ValueError("a profile with an interaction needs the model's name")
    eta = (task_aptitude(profile, task) - profile.difficulty_spread * difficulty(seed, task, problem_id)
           + interaction(seed, task, problem_id, model, profile.interaction_sd))
    p = float(profile_generator(profile).pass_probability(np.float64(eta)))
    return float(refined(p, profile.refine_gain)) if method_call == "refine" else p


def expected_accuracy(profile: SimProfile, seed: int, task: str, problem_ids: list[str], model: str = "") -> float:
    """The mean of pi over ``problem_ids``: the accuracy a twin has in expectation on them (0-1)."""
    return float(np.mean([true_probability(profile, seed, task, pid, model=model) for pid in problem_ids]))


def simulate(profile: SimProfile, *, model: str, seed: int, task: str, problem_id: str, target: str,
             n_choices: int, method: str, run: int, call: int, prompt_chars: int) -> dict:
    """One simulated call: response text and token counts."""
    tag = (seed, model, task, problem_id, method, run, call)
    kind = "refine" if (method == "self_refine" and call == 1) else "solve"
    correct = unit("correct", *tag) < true_probability(profile, seed, task, problem_id, kind, model=model)
    answer = target if correct else distractor(target, n_choices, unit("distractor", *tag))
    completion = int(completion_tokens(profile.completion_tokens.get(task, 300.0), hashed_normal("tokens", *tag)))
    if unit("format", *tag) < profile.format_error_rate:
        text = f"[simulated response] The answer is {answer}."
    else:
        text = f"[simulated response] Working through the problem gives <answer>{answer}</answer>"
    return {"text": text, "prompt_tokens": max(1, math.ceil(prompt_chars / 4)), "completion_tokens": completion}


# ---- litellm custom provider --------------------------------------------------------------------
_PROFILES: dict[int, tuple[dict, SimProfile]] = {}


def _profile(settings: dict) -> SimProfile:
    """The validated profile of a call's settings; the collector passes one dict per model, so it is
    validated once (an entry holds its dict, so its id is not reused; at most 256 are kept)."""
    entry = _PROFILES.get(id(settings))
    if entry is None or entry[0] is not settings:
        if len(_PROFILES) >= 256:
            _PROFILES.clear()
        entry = _PROFILES[id(settings)] = (settings, SimProfile.model_validate(settings))
    return entry[1]


def _simulated(messages: list[dict], meta: dict) -> dict:
    """One simulated call of a call's messages and its ``cop`` metadata (``simulate``)."""
    prompt_chars = sum(len(m.get("content") or "") for m in messages)
    return simulate(_profile(meta["sim"]), prompt_chars=prompt_chars,
                    **{k: meta[k] for k in ("model", "seed", "task", "problem_id", "target", "n_choices", "method",
                                            "run", "call")})


def direct_completion(messages: list[dict], meta: dict):
    """The reply litellm's ``sim/<name>`` would give, without litellm (``provider.plain_response``): what the
    collector calls for simulated models (``calling.Caller.direct_sim``)."""
    from helpers.collect.backends.provider import plain_response

    if "sim" not in meta:
        raise ValueError("sim provider: call metadata 'cop.sim' is missing")
    out = _simulated(messages, meta)
    return plain_response(out["text"], out["prompt_tokens"], out["completion_tokens"])


def _provider():
    from litellm import CustomLLM

    from helpers.collect.backends.provider import call_metadata, model_response

    class SimulatedLLM(CustomLLM):
        """litellm handler for ``sim/<name>``: the call's metadata carries the problem and profile."""

        def completion(self, model, messages, *args, **kwargs):
            meta = call_metadata(kwargs, "sim", "sim")
            started = time.perf_counter()
            out = _simulated(messages, meta)
            return model_response(model, out["text"], out["prompt_tokens"], out["completion_tokens"], started)

    return SimulatedLLM()


def register() -> None:
    """Make ``sim/<name>`` callable through ``litellm.completion`` (idempotent)."""
    from helpers.collect.backends.provider import register_provider

    register_provider("sim", _provider)
