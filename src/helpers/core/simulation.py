"""The one generative model of simulated attempts, shared by the ``sim`` backend (one call at a time, every draw a
hash of its coordinates) and the validity study (whole sets at once, draws from a numpy ``Generator``). Imports
nothing above ``core``.

A problem p of a task has a difficulty z_p (N(0, 1) unless a ``Generator`` says otherwise), shared by all models;
model m has an aptitude A_m on the task, a difficulty spread s_m and, optionally, a problem × model interaction
e_pm ~ N(0, sd_m²). Its logit on p is eta = A_m − s_m·z_p + e_pm, and one attempt's answer is the true one with

    pi = sigmoid(eta)                      (or Phi(g_m · eta / 1.7) under a probit link with per-model slopes g_m)

except below the model's capability cliff (eta < cliff), where pi = 0. A self-refine call passes with
pi + g·(1 − pi). A wrong answer is one of D distractors, uniformly (another letter of a multiple-choice problem,
one of six nearby numbers for a numeric target, the target plus 1, 2 or 3 otherwise); with the model's format-error rate
a reply carries no tagged answer. Completion tokens are log-normal (sigma 0.5) around the model's mean for the task;
prompt tokens are ceil(characters / 4). Everything drawn from it is SIMULATED.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy import optimize, special

LOG_NORMAL_SIGMA = 0.5  # sd of log completion tokens
NODES, WEIGHTS = np.polynomial.hermite_e.hermegauss(64)  # E over z ~ N(0, 1): nodes (64,), weights (64,) summing to 1
WEIGHTS = WEIGHTS / WEIGHTS.sum()
_GRID = np.linspace(-8.0, 8.0, 4001)  # E over x ~ N(0, 1) where the integrand jumps
_GRID_WEIGHTS = np.exp(-_GRID**2 / 2) / np.exp(-_GRID**2 / 2).sum()
NUMERIC_OFFSETS = (-10, -2, -1, 1, 2, 10)  # a numeric target's distractors: the target plus one of these
EXPRESSION_OFFSETS = (1, 2, 3)  # another target's distractors: "<target> + k"
PROBIT_SCALE = 1.7  # logit ≈ 1.7 · probit


@dataclass(frozen=True)
class Generator:
    """How simulated problems and attempts depart from the item-response model the model-based estimator fits
    (own model: every field at its default).

    ``interaction_sd``: e_pm ~ N(0, sd²), a problem × model interaction on the logit scale (a float, or one per
    model); ``broken``: the share of problems whose reference answer is wrong (a true answer is graded wrong, a wrong
    answer equal to the reference passes: rate (1 − pi)/D); ``difficulty``: z ~ N(0, 1), ``"t3"`` (Student t with
    3 df scaled to sd 1: heavy tails) or ``"bimodal"`` (±0.9 with sd 0.44: sd 1); ``link``: ``"probit"`` passes with
    Phi(g_m · eta / 1.7), g_m ~ logN(0, ``slope_sd``²) per model and set; ``cliff``: a model solves nothing where its
    logit is below this (a capability cliff; a float, one per model, None for none); ``interaction_shape``:
    ``"bimodal"`` makes e_pm = ±sd with equal odds (each model finds a problem easy or hard, not in between);
    ``floor``: an attempt passes with floor + (1 − floor)·pi (a guessing floor); ``token_tail``: completion tokens
    Pareto with this tail index (mean kept) instead of log-normal (heavy-tailed attempt costs)."""

    name: str
    interaction_sd: float | tuple[float, ...] = 0.0
    broken: float = 0.0
    difficulty: str = "normal"
    link: str = "logit"
    slope_sd: float = 0.0
    cliff: float | tuple[float | None, ...] | None = None
    interaction_shape: str = "normal"
    floor: float = 0.0
    token_tail: float | None = None

    @property
    def has_interaction(self) -> bool:
        return bool(np.any(np.asarray(self.interaction_sd, float)))

    @property
    def cliffs(self) -> np.ndarray:
        """The cliff per model (or one for all), −inf where there is none."""
        if self.cliff is None:
            return np.array(-np.inf)
        cliff = np.asarray(self.cliff, dtype=object)
        return np.array([-np.inf if c is None else c for c in np.atleast_1d(cliff)], float).reshape(cliff.shape)

    def pass_probability(self, eta: np.ndarray | float, slope: np.ndarray | float = 1.0) -> np.ndarray:
        """pi for logits ``eta`` (any shape; per-model arrays broadcast on the last axis)."""
        pi = special.ndtr(slope * eta / PROBIT_SCALE) if self.link == "probit" else special.expit(eta)
        return np.where(eta < self.cliffs, 0.0, self.floor + (1 - self.floor) * pi)

    @property
    def departs_from_population(self) -> bool:
        """Whether this generator departs in a way the population truth (``population_nodes``) does not integrate:
        anything but normal interactions and cliffs."""
        return (self.difficulty != "normal" or bool(self.broken) or self.link != "logit" or bool(self.floor)
                or self.interaction_shape != "normal" or self.token_tail is not None)

    def draw_interaction(self, rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray | float:
        """Problem × model interactions e (P, M) on the logit scale (0.0 where there are none)."""
        if not self.has_interaction:
            return 0.0
        sd = np.asarray(self.interaction_sd, float)
        if self.interaction_shape == "bimodal":
            return sd * np.where(rng.random(shape) < 0.5, -1.0, 1.0)
        if self.interaction_shape != "normal":
            raise ValueError(f"unknown interaction shape '{self.interaction_shape}'")
        return sd * rng.standard_normal(shape)

    def tokens(self, mean: np.ndarray | float, z: np.ndarray | float) -> np.ndarray:
        """Completion tokens (≥ 1, whole) with mean ``mean`` for standard normal ``z``: log-normal
        (``completion_tokens``), or Pareto with tail index ``token_tail`` (its quantile at Phi(z))."""
        if self.token_tail is None:
            return completion_tokens(mean, z)
        a = self.token_tail
        scale = np.asarray(mean, float) * (a - 1) / a  # Pareto(scale, a) has mean scale·a/(a − 1)
        return np.maximum(1, np.round(scale * special.ndtr(-np.asarray(z)) ** (-1 / a)))

    def draw_difficulty(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """``n`` difficulties z from this generator's distribution (sd 1)."""
        if self.difficulty == "t3":
            return rng.standard_t(3, n) / np.sqrt(3.0)
        if self.difficulty == "bimodal":
            return np.where(rng.random(n) < 0.5, -0.9, 0.9) + 0.44 * rng.standard_normal(n)
        if self.difficulty != "normal":
            raise ValueError(f"unknown difficulty distribution '{self.difficulty}'")
        return rng.standard_normal(n)


OWN = Generator("own model")


def refined(pi: np.ndarray | float, gain: np.ndarray | float) -> np.ndarray | float:
    """The pass probability of a self-refine call: pi + g·(1 − pi)."""
    return pi + gain * (1 - pi)


# ---- draws fixed by their coordinates (the sim backend's) ----------------------------------------------
def unit(*parts) -> float:
    """A uniform number in [0, 1) from a hash of ``parts``."""
    h = hashlib.sha256(":".join(map(str, parts)).encode()).digest()
    return int.from_bytes(h[:8], "big") / 2**64


def hashed_normal(*parts) -> float:
    """A standard normal number from a hash of ``parts``."""
    return float(special.ndtri(min(max(unit(*parts), 1e-12), 1 - 1e-12)))


@lru_cache(maxsize=65536)
def difficulty(seed: int, task: str, problem_id: str) -> float:
    """Problem difficulty z ~ N(0, 1), fixed by (seed, task, problem id)."""
    return hashed_normal("difficulty", seed, task, problem_id)


def interaction(seed: int, task: str, problem_id: str, model: str, sd: float) -> float:
    """The problem × model interaction e ~ N(0, sd²) on the logit scale, fixed by (seed, task, problem, model)."""
    return sd * hashed_normal("interaction", seed, task, problem_id, model) if sd else 0.0


# ---- aptitudes that hit a target accuracy ------------------------------------------------------------
def aptitude_on(target_accuracy: float, spread: float, z: np.ndarray, weights: np.ndarray | None = None,
                offset: np.ndarray | float = 0.0, cliff: float | None = None) -> float:
    """A such that the (weighted) mean of pi(A − spread·z + offset) over difficulties ``z`` (n,) equals the target
    (0-1); below ``cliff`` pi is 0, so on a finite sample the mean jumps and A lands on the jump nearest the target."""
    t = min(max(target_accuracy, 1e-6), 1 - 1e-6)
    z = np.asarray(z, float)
    w = np.full(len(z), 1 / len(z)) if weights is None else weights
    g = Generator("", cliff=cliff)
    def f(a):
        return float(w @ g.pass_probability(a - spread * z + offset)) - t
    return optimize.brentq(f, -60.0, 60.0, xtol=1e-12)


@lru_cache(maxsize=4096)
def aptitude(target_accuracy: float, spread: float, interaction_sd: float = 0.0, cliff: float | None = None) -> float:
    """A such that E[pi(A − spread·z + e)] = target over z ~ N(0, 1) and e ~ N(0, interaction_sd²): the logit is
    A − x with x ~ N(0, spread² + interaction_sd²), integrated by Gauss–Hermite quadrature, or on a fine grid
    (4,001 points over ±8 sd) where a cliff makes pi jump."""
    sd = math.hypot(spread, interaction_sd)
    if cliff is None:
        return aptitude_on(target_accuracy, sd, NODES, WEIGHTS)
    return aptitude_on(target_accuracy, sd, _GRID, _GRID_WEIGHTS, cliff=cliff)


def population_nodes(generator: Generator) -> tuple[np.ndarray, np.ndarray]:
    """Difficulties (K,) and weights (K,) summing to 1 that integrate over z ~ N(0, 1): 64 Gauss–Hermite nodes where
    pi is smooth in z, else (a cliff makes it jump) the midpoints of 128 equally likely slices."""
    if np.isfinite(generator.cliffs).any():
        return special.ndtri((np.arange(128) + 0.5) / 128), np.full(128, 1 / 128)
    return NODES, WEIGHTS


# ---- answers and tokens ------------------------------------------------------------------------------
def distractor(target: str, n_choices: int, u: float) -> str:
    """A plausible wrong answer for uniform ``u``: another letter, or a nearby number."""
    if n_choices:
        letters = [chr(65 + i) for i in range(n_choices) if chr(65 + i) != target]
        return letters[int(u * len(letters))]
    try:
        value = float(target.replace(",", ""))
    except ValueError:
        return f"{target} + {EXPRESSION_OFFSETS[int(u * len(EXPRESSION_OFFSETS))]}"
    wrong = value + NUMERIC_OFFSETS[int(u * len(NUMERIC_OFFSETS))]
    return str(int(wrong)) if wrong.is_integer() else f"{wrong:g}"


def n_distractors(target: str, n_choices: int) -> int:
    """D: how many distinct wrong answers ``distractor`` gives a problem."""
    if n_choices:
        return n_choices - 1
    try:
        float(target.replace(",", ""))
        return len(NUMERIC_OFFSETS)
    except ValueError:
        return len(EXPRESSION_OFFSETS)


def completion_tokens(mean: np.ndarray | float, z: np.ndarray | float) -> np.ndarray:
    """Completion tokens (≥ 1, whole) log-normal around ``mean`` for standard normal ``z`` (any shapes that
    broadcast)."""
    return np.maximum(1, np.round(np.exp(np.log(mean) - LOG_NORMAL_SIGMA**2 / 2 + LOG_NORMAL_SIGMA * np.asarray(z))))


# ---- where a set's random numbers come from ----------------------------------------------------------------
class SeededDraws:
    """One task's draws for a simulated set's cells (P problems, M models, n runs) from a numpy ``Generator``, in the
    order the calls come (the validity study's sets: fast, a fresh stream per set)."""

    def __init__(self, rng: np.random.Generator):
        self.rng = rng

    def uniform(self, kind: str, shape: tuple[int, int, int], method: str = "vanilla", call: int = 0) -> np.ndarray:
        return self.rng.random(shape)

    def normal(self, kind: str, shape: tuple[int, int, int], method: str = "vanilla", call: int = 0) -> np.ndarray:
        return self.rng.standard_normal(shape)

    def wrong_class(self, d: np.ndarray | int, shape: tuple[int, int, int], method: str = "vanilla",
                    call: int = 0) -> np.ndarray:
        """The distractor a wrong answer is, 1..D (broadcast with ``d``)."""
        return 1 + self.rng.integers(0, d, shape)


@dataclass(frozen=True)
class HashedDraws:
    """One task's draws for a set's own cells as the ``sim`` backend makes them: each number a hash of (kind, seed,
    model, task, problem, method, run, call), so a study drawing with these makes exactly the attempts the backend
    recorded for the same seed (``problem_ids`` (P,) and ``models`` (M,) in the cells' order)."""

    seed: int
    task: str
    problem_ids: tuple[str, ...]
    models: tuple[str, ...]

    def uniform(self, kind: str, shape: tuple[int, int, int], method: str = "vanilla", call: int = 0) -> np.ndarray:
        runs = range(shape[2])
        return np.array([[[unit(kind, self.seed, m, self.task, p, method, r, call) for r in runs]
                          for m in self.models] for p in self.problem_ids]).reshape(shape)

    def normal(self, kind: str, shape: tuple[int, int, int], method: str = "vanilla", call: int = 0) -> np.ndarray:
        return special.ndtri(np.clip(self.uniform(kind, shape, method, call), 1e-12, 1 - 1e-12))

    def wrong_class(self, d: np.ndarray | int, shape: tuple[int, int, int], method: str = "vanilla",
                    call: int = 0) -> np.ndarray:
        return 1 + np.floor(self.uniform("distractor", shape, method, call) * d).astype(np.int64)
