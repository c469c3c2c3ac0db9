"""A simulated provider, reached through litellm like any other (model ids ``sim/<name>``).

Generative model (after the capability-frontier paper, §4.3.2): every problem p of task t has a
difficulty ``z_p ~ N(0, 1)`` drawn from a hash of (seed, task, problem id), shared by all models;
every model m has an aptitude ``A_{m,t}`` on the task. One attempt succeeds with probability

    pi(m, p) = sigmoid(A_{m,t} - s_m * z_p)

where ``s_m`` is the difficulty spread. ``A_{m,t}`` is the profile's ``aptitude`` for t when given
(calibration solves it so that the mean of pi over the set's sampled problems equals the target
accuracy), else solved so that the population mean of pi over z ~ N(0, 1) does. A self-refine call succeeds with
``pi + refine_gain * (1 - pi)``. Completion tokens are log-normal with the profile's mean for t
(sigma 0.5); prompt tokens are ceil(characters / 4). A wrong attempt answers a plausible
distractor (a nearby number, another letter), and with ``format_error_rate`` omits the
``<answer>`` tags. Every draw is a function of (seed, model, task, problem, method, run, call), so
runs are reproducible, and ``true_probability`` exports pi so tests can compare estimates with truth.
Everything it produces is simulated and is labelled so.
"""

from __future__ import annotations

import hashlib
import math
import time
from functools import lru_cache

import numpy as np
from scipy import optimize, special

from helpers.core.models import SimProfile

LOG_NORMAL_SIGMA = 0.5
_NODES, _WEIGHTS = np.polynomial.hermite_e.hermegauss(64)  # E over z ~ N(0, 1)
_WEIGHTS = _WEIGHTS / _WEIGHTS.sum()


def _unit(*parts) -> float:
    """A uniform number in [0, 1) from a hash of ``parts``."""
    h = hashlib.sha256(":".join(map(str, parts)).encode()).digest()
    return int.from_bytes(h[:8], "big") / 2**64


@lru_cache(maxsize=65536)
def difficulty(seed: int, task: str, problem_id: str) -> float:
    """Problem difficulty z ~ N(0, 1), fixed by (seed, task, problem id)."""
    u = min(max(_unit("difficulty", seed, task, problem_id), 1e-12), 1 - 1e-12)
    return float(special.ndtri(u))


@lru_cache(maxsize=4096)
def aptitude(target_accuracy: float, spread: float) -> float:
    """A such that E_z[sigmoid(A - spread * z)] = target_accuracy (z ~ N(0, 1))."""
    return aptitude_on(target_accuracy, spread, _NODES, _WEIGHTS)


def aptitude_on(target_accuracy: float, spread: float, z: np.ndarray, weights: np.ndarray | None = None) -> float:
    """A such that the (weighted) mean of sigmoid(A - spread * z) over difficulties ``z`` = target (0-1)."""
    t = min(max(target_accuracy, 1e-6), 1 - 1e-6)
    w = np.full(len(z), 1 / len(z)) if weights is None else weights
    f = lambda a: float(w @ special.expit(a - spread * np.asarray(z))) - t  # noqa: E731
    return optimize.brentq(f, -60.0, 60.0, xtol=1e-12)


def expected_accuracy(profile: SimProfile, seed: int, task: str, problem_ids: list[str]) -> float:
    """The mean of pi over ``problem_ids``: the accuracy a twin has in expectation on them (0-1)."""
    return float(np.mean([true_probability(profile, seed, task, pid) for pid in problem_ids]))


def true_probability(profile: SimProfile, seed: int, task: str, problem_id: str, method_call: str = "solve") -> float:
    """pi(m, p): the probability one attempt (``solve``) or a refinement (``refine``) is correct."""
    if task not in profile.accuracy:
        raise KeyError(f"simulated profile has no accuracy for task '{task}'")
    a = profile.aptitude.get(task)
    if a is None:
        a = aptitude(profile.accuracy[task], profile.difficulty_spread)
    p = float(special.expit(a - profile.difficulty_spread * difficulty(seed, task, problem_id)))
    return p + profile.refine_gain * (1 - p) if method_call == "refine" else p


def distractor(target: str, n_choices: int, u: float) -> str:
    """A plausible wrong answer: another letter, or a nearby number."""
    if n_choices:
        letters = [chr(65 + i) for i in range(n_choices) if chr(65 + i) != target]
        return letters[int(u * len(letters))]
    try:
        value = float(target.replace(",", ""))
    except ValueError:
        return f"{target} + 1"
    offsets = [-10, -2, -1, 1, 2, 10]
    wrong = value + offsets[int(u * len(offsets))]
    return str(int(wrong)) if wrong.is_integer() else f"{wrong:g}"


def simulate(profile: SimProfile, *, model: str, seed: int, task: str, problem_id: str, target: str,
             n_choices: int, method: str, run: int, call: int, prompt_chars: int) -> dict:
    """One simulated call: response text and token counts."""
    tag = (seed, model, task, problem_id, method, run, call)
    kind = "refine" if (method == "self_refine" and call == 1) else "solve"
    correct = _unit("correct", *tag) < true_probability(profile, seed, task, problem_id, kind)
    answer = target if correct else distractor(target, n_choices, _unit("distractor", *tag))
    mean = profile.completion_tokens.get(task, 300.0)
    z = special.ndtri(min(max(_unit("tokens", *tag), 1e-12), 1 - 1e-12))
    completion = max(1, int(round(math.exp(math.log(mean) - LOG_NORMAL_SIGMA**2 / 2 + LOG_NORMAL_SIGMA * z))))
    if _unit("format", *tag) < profile.format_error_rate:
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


def _provider():
    from litellm import CustomLLM

    from helpers.collect.backends.provider import call_metadata, model_response

    class SimulatedLLM(CustomLLM):
        """litellm handler for ``sim/<name>``: the call's metadata carries the problem and profile."""

        def completion(self, model, messages, *args, **kwargs):
            meta = call_metadata(kwargs, "sim", "sim")
            started = time.perf_counter()
            prompt_chars = sum(len(m.get("content") or "") for m in messages)
            out = simulate(_profile(meta["sim"]), prompt_chars=prompt_chars,
                           **{k: meta[k] for k in ("model", "seed", "task", "problem_id", "target",
                                                   "n_choices", "method", "run", "call")})
            return model_response(model, out["text"], out["prompt_tokens"], out["completion_tokens"], started)

    return SimulatedLLM()


def register() -> None:
    """Make ``sim/<name>`` callable through ``litellm.completion`` (idempotent)."""
    from helpers.collect.backends.provider import register_provider

    register_provider("sim", _provider)
