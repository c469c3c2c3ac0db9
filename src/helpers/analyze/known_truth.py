"""Known truth for simulated sets: a simulated set's generative model, its exact values, and fresh sets drawn from it
(the validity study's raw material: ``validity``, ``policy_study``, ``racing_study`` judge estimators against it).

The generative model is ``core.simulation``'s, the one the ``sim`` backend draws from, with the set's own models,
prices and profiles (aptitude, spread, interaction, cliff, refine gain, format errors); with strict extraction a
reply without a tagged answer is wrong; prompt tokens are ceil(characters / 4) of the prompt actually sent.

Two truths. The *benchmark* truth is the value of a set's own problems (each problem's true R and C,
averaged over the set's problems, as the paper's tables are): what the estimators are judged against.
The *population* truth integrates over new problems: prompts as the set's (each equally likely) and
z ~ N(0, 1) (``core.simulation.population_nodes``; a fixed Monte-Carlo draw of the interaction per node); it is the
benchmark truth's expectation over sets, so biases are the same, but a set of 30-128 problems rarely holds the
hardest problems, which no model solves and which carry much of the population's frontier (``tail_share``) —
coverage of it is reported beside.
A fresh set (``draw_problems``, ``draw_cube``) has the same size — prompts with replacement, new z, n runs per
(problem, strategy) — straight from the model (no collection), vectorised. Everything here is SIMULATED.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from helpers.analyze.bootstrap import Replicates, RunCube
from helpers.analyze.costofpass import release_steps
from helpers.analyze.headline import Spec, all_specs, evaluate
from helpers.analyze.statistic import Key
from helpers.collect.backends.sim import task_aptitude
from helpers.core.context import Context
from helpers.core.experts import expert_per_problem
from helpers.core.methods import get_method
from helpers.core.prompts import refine_messages, solve_messages
from helpers.core.simulation import (
    OWN,
    Generator,
    HashedDraws,
    SeededDraws,
    difficulty,
    interaction,
    n_distractors,
    population_nodes,
    refined,
)
from helpers.grade.estimates import strategy_name

RESPONSE = "[simulated response] Working through the problem gives <answer>{}</answer>"


@dataclass
class TaskModel:
    """One task's generative model: per model (M,) and per problem prompt (P,) arrays."""

    task: str
    solve_tokens: np.ndarray  # (P,) prompt tokens of a first call
    refine_tokens: np.ndarray  # (P,) prompt tokens of a refinement call (it quotes a typical response)
    aptitude: np.ndarray  # (M,) A
    spread: np.ndarray  # (M,) s
    completion: np.ndarray  # (M,) mean completion tokens
    distractors: np.ndarray | int  # D per problem prompt (P,), or one for all
    expert_usd: float


@dataclass
class GenerativeModel:
    """The simulated set's truth: models, prices and per-task generative models."""

    models: list[str]
    families: dict[str, str]
    methods: list[str]
    usd_in: np.ndarray  # (M,) USD per prompt token
    usd_out: np.ndarray  # (M,) USD per completion token
    fee: np.ndarray  # (M,) USD per call
    refine_gain: np.ndarray  # (M,)
    format_error: np.ndarray  # (M,)
    tasks: list[TaskModel]
    n_runs: int
    steps: list[list[str]] = field(default_factory=list)  # models added at each release step (Figures 2, 4)
    denominator: str = "without_family"  # Figure 3's (``fidelity.family_denominator``)
    generator: Generator = OWN  # how the set's own attempts are drawn (its profiles' interaction and cliffs)

    def __post_init__(self) -> None:
        gain = np.asarray(self.refine_gain, float)
        if not ((gain >= 0) & (gain <= 1)).all():  # ``simulation.refined``: a share of the failures fixed
            raise ValueError(f"refine_gain must lie in [0, 1] (the share of failures a refinement fixes), got "
                             f"{gain.tolist()}")

    def statistics(self, F) -> dict[Key, np.ndarray]:
        """Every statistic the study checks, of a frontier function: the headline (Tables 1, 2), the frontier
        over release steps and each release's gain (Figures 2, 4), and the counterfactuals (Figures 3, 5)."""
        return evaluate(self.specs, F)

    @property
    def specs(self) -> dict[Key, Spec]:
        """What ``statistics`` computes (``headline.all_specs``)."""
        return all_specs(self.models, self.families, self.methods, self.steps, self.denominator)

    @property
    def strategies(self) -> list[str]:
        """Collected strategies in the order ``run_cube`` sorts them, then the derived ones."""
        collected = [strategy_name(m, me) for m in self.models for me in self.methods if get_method(me).is_collected]
        return sorted(collected) + [strategy_name(m, me) for me in self.methods if not get_method(me).is_collected
                                    for m in sorted(self.models)]


def has_known_truth(ctx: Context) -> bool:
    """Whether every model of a set is simulated (so the validity study applies)."""
    return all(m.simulated for m in ctx.models)


def generative_model(ctx: Context, refine_gain: float | None = None) -> GenerativeModel:
    """The generative model of a simulated set (every model simulated); ``refine_gain`` overrides the
    profiles' true self-refine effect g (0-1), and adds self-refine to the set's methods if it lacks it."""
    models = [m for m in ctx.models]
    profiles = [m.sim for m in models if m.sim is not None]
    if not all(m.simulated for m in models) or len(profiles) < len(models):
        raise ValueError(f"set '{ctx.params.name}' has models that are not simulated: no known truth")
    prices = [ctx.snapshot.price(m.name) for m in models]
    expert = expert_per_problem(pd.MultiIndex.from_tuples([(t, "") for t in ctx.params.tasks],
                                                          names=["task", "problem_id"]),
                                ctx.params.expert_bound, rule=ctx.params.fidelity.expert_cost,
                                given=ctx.params.expert_usd).to_numpy()
    tasks = []
    for t, e in zip(ctx.params.tasks, expert, strict=True):
        problems = ctx.problems[t]
        solve = np.array([math.ceil(sum(len(x["content"]) for x in solve_messages(p.question)) / 4) for p in problems])
        refine = np.array([math.ceil(sum(len(x["content"])
                                         for x in refine_messages(p.question, RESPONSE.format(p.target)))
                                     / 4) for p in problems])
        a = np.array([task_aptitude(pr, t) for pr in profiles])
        tasks.append(TaskModel(t, solve, refine, a, np.array([pr.difficulty_spread for pr in profiles]),
                               np.array([pr.completion_tokens.get(t, 300.0) for pr in profiles]),
                               np.array([n_distractors(p.target, p.n_choices) for p in problems]), float(e)))
    gain = np.array([pr.refine_gain if refine_gain is None else refine_gain for pr in profiles])
    return GenerativeModel(
        [m.name for m in models], {m.name: m.family for m in models}, _methods(ctx, refine_gain),
        np.array([p.input_usd_per_mtok for p in prices]) / 1e6, np.array([p.output_usd_per_mtok for p in prices]) / 1e6,
        np.array([p.usd_per_call for p in prices]), gain, np.array([pr.format_error_rate for pr in profiles]),
        tasks, ctx.params.n_runs,
        [names for _, names in release_steps(pd.Series({m.name: m.release_date for m in models}),
                                             ctx.params.fidelity.release_steps == "one_model")],
        ctx.params.fidelity.family_denominator, set_generator(profiles))


def set_generator(profiles: list) -> Generator:
    """The generator a simulated set's attempts are drawn from: its profiles' interaction sd and cliff, per model
    (the own model when no profile has either)."""
    sd = tuple(float(p.interaction_sd) for p in profiles)
    cliff = tuple(p.cliff for p in profiles)
    if not any(sd) and all(c is None for c in cliff):
        return OWN
    parts = ([f"interaction sd {sd[0]:g}"] if len(set(sd)) == 1 and sd[0] else ["interactions"] if any(sd) else []) + (
        [f"cliffs at {cliff[0]:g}"] if len(set(cliff)) == 1 and cliff[0] is not None
        else ["cliffs"] if any(c is not None for c in cliff) else [])
    return Generator(f"this set's own ({', '.join(parts)})", interaction_sd=sd, cliff=cliff)


def _methods(ctx: Context, refine_gain: float | None) -> list[str]:
    methods = list(ctx.params.methods)
    return methods + ["self_refine"] if refine_gain is not None and "self_refine" not in methods else methods


# ---- exact values ------------------------------------------------------------------------------
def _made_of_runs(made, x: np.ndarray, d: np.ndarray, broken: np.ndarray, no_answer: float) -> np.ndarray:
    """A method made of k runs (``Method.rate_given``, ``Method.rate_of_pattern``): its true success rate per
    problem from one run's P(correct answer) ``x`` (P,), ``d`` (P,) equally likely wrong answers, ``broken`` (P,)
    wrong references and the P(no answer) ``no_answer``. Where the reference is wrong the true answer is one wrong
    class and the reference a distractor."""
    rate = np.empty(len(x))
    for dj in np.unique(d):  # one closed form per number of wrong classes
        here = (d == dj) & ~broken
        rate[here] = made.rate_given(x[here], int(dj), no_answer)
    for p in np.flatnonzero(broken):
        wrong, dj = (1 - no_answer - x[p]) / d[p], int(d[p])
        pattern = ((wrong, True), (x[p], False), *[(wrong, False)] * (dj - 1), (no_answer, False))
        rate[p] = made.rate_of_pattern(tuple((float(w), o) for w, o in pattern))
    return rate


def _cell_truth(gm: GenerativeModel, tm: TaskModel, problems: TaskProblems) -> tuple[np.ndarray, np.ndarray]:
    """True C (USD per attempt) and R of every strategy (``gm.strategies`` order) for ``problems``: (P, S)."""
    prompt, z = problems.prompt, problems.z
    pi = problems.success(tm)  # (P, M)
    broken = np.broadcast_to(problems.broken, (len(z),))
    ok = 1 - gm.format_error
    def call(tokens):
        return tokens[:, None] * gm.usd_in + tm.completion * gm.usd_out + gm.fee
    solve = call(tm.solve_tokens[prompt])
    cost, rate = {}, {}
    for i, m in enumerate(gm.models):
        for method in gm.methods:
            name = strategy_name(m, method)
            d = np.broadcast_to(tm.distractors, (len(tm.solve_tokens),))[prompt]
            # a wrong reference passes a matching distractor
            graded = np.where(broken, (1 - pi[:, i]) / d, pi[:, i]) * ok[i]
            if method == "vanilla":
                cost[name], rate[name] = solve[:, i], graded
            elif method == "self_refine":
                cost[name] = solve[:, i] + call(tm.refine_tokens[prompt])[:, i]
                better = refined(pi[:, i], gm.refine_gain[i])
                rate[name] = np.where(broken, (1 - better) / d, better) * ok[i]
            elif (made := get_method(method)).rate_given is not None:  # made of k vanilla runs: the method's math
                cost[name] = made.billed_calls * solve[:, i]
                rate[name] = _made_of_runs(made, pi[:, i] * ok[i], d, broken, float(gm.format_error[i]))
            else:
                raise ValueError(f"no generative model for method '{method}'")
    names = gm.strategies
    return np.stack([cost[s] for s in names], axis=-1), np.stack([rate[s] for s in names], axis=-1)


GENERATORS = (OWN, Generator("interaction sd 0.5", interaction_sd=0.5),
              Generator("interaction sd 1", interaction_sd=1.0), Generator("broken items 2%", broken=0.02),
              Generator("broken items 5%", broken=0.05),
              Generator("heavy-tailed difficulty (t, 3 df)", difficulty="t3"),
              Generator("bimodal difficulty", difficulty="bimodal"),
              Generator("probit, per-model slopes", link="probit", slope_sd=0.3),
              Generator("capability cliffs", cliff=-1.0),
              Generator("bimodal interaction (±2 logits)", interaction_sd=2.0, interaction_shape="bimodal"),
              Generator("guessing floor 25%", floor=0.25),
              Generator("heavy-tailed attempt costs (Pareto, tail 2.5)", token_tail=2.5))


@dataclass
class TaskProblems:
    """One task's problems of a simulated set: prompt index (P,) into the task's prompts, difficulty z (P,), and
    what a ``Generator`` adds: logit offsets (P, M), wrong references (P,) bool, per-model probit slopes (M,)."""

    prompt: np.ndarray
    z: np.ndarray
    offset: np.ndarray | float = 0.0
    broken: np.ndarray | bool = False
    slope: np.ndarray | float = 1.0
    generator: Generator = OWN

    def __iter__(self):  # (prompt, z), as the problems of the own model were given
        return iter((self.prompt, self.z))

    def success(self, tm: "TaskModel") -> np.ndarray:
        """π (P, M): the probability that an attempt's answer is the true one."""
        return self.generator.pass_probability(tm.aptitude - tm.spread * self.z[:, None] + self.offset, self.slope)


Problems = list[TaskProblems]


def truth(gm: GenerativeModel, problems: Problems | None = None) -> Replicates:
    """The true values as one 'replicate', so ``frontier(strategies)`` (1, T) is the true V(M ∪ {expert}):
    of the given ``problems`` (the benchmark truth: each problem once), else of the population (problems =
    (prompt, quadrature node) pairs weighted by the node's weight)."""
    cops, weights, experts, codes, costs, rates = [], [], [], [], [], []
    for t, tm in enumerate(gm.tasks):
        P = len(tm.solve_tokens)
        if problems is None:
            here, w = population_problems(gm, P, t), np.tile(population_nodes(gm.generator)[1], P)
        else:
            here = problems[t] if isinstance(problems[t], TaskProblems) else TaskProblems(*problems[t])
            w = np.ones(len(here.z))
        z = here.z
        cost, rate = _cell_truth(gm, tm, here)
        costs.append(cost)
        rates.append(rate)
        with np.errstate(divide="ignore"):
            cops.append(np.where(rate > 0, cost / np.maximum(rate, 1e-300), np.inf))
        weights.append(w)
        experts.append(np.full(len(z), tm.expert_usd))
        codes.append(np.full(len(z), t))
    cube = _shell(gm, np.concatenate(codes))
    return Replicates(cube, np.concatenate(cops)[None], np.concatenate(weights)[None], np.concatenate(experts),
                      np.concatenate(costs)[None], np.concatenate(rates)[None])


def population_problems(gm: GenerativeModel, n_prompts: int, task: int) -> TaskProblems:
    """The population of a task's problems for ``truth``: every (prompt, node) pair of ``population_nodes``, in that
    order (P·K,), with one fixed draw of the set generator's interaction per pair (seeded by the task's index)."""
    g = gm.generator
    if g.departs_from_population:
        raise ValueError(f"no population truth for generator '{g.name}': only interactions and cliffs")
    nodes = population_nodes(g)[0]
    n = n_prompts * len(nodes)
    sd = np.asarray(g.interaction_sd, float)
    offset = sd * np.random.default_rng([7, task]).standard_normal((n, len(gm.models))) if g.has_interaction else 0.0
    return TaskProblems(np.repeat(np.arange(n_prompts), len(nodes)), np.tile(nodes, n_prompts), offset, generator=g)


def _shell(gm: GenerativeModel, task_codes: np.ndarray) -> RunCube:
    """A cube with the strategies and tasks of ``gm`` and no runs (what frontiers need)."""
    collected = [s for s in gm.strategies if "+" not in s or get_method(s.split("+", 1)[1]).is_collected]
    derived = [(s, collected.index(s.split("+", 1)[0]), s.split("+", 1)[1])
               for s in gm.strategies if s not in collected]
    empty = np.empty((len(task_codes), len(collected), 0))
    problems = pd.MultiIndex.from_arrays([[gm.tasks[c].task for c in task_codes],
                                          np.arange(len(task_codes)).astype(str)],
                                         names=["task", "problem_id"])
    return RunCube(problems, task_codes, [tm.task for tm in gm.tasks], collected, empty, empty.astype(bool),
                   np.zeros(empty.shape[:2], dtype=np.int64), empty.astype(np.int64), empty.astype(bool), derived)


# ---- one simulated set -------------------------------------------------------------------------
def draw_problems(gm: GenerativeModel, rng: np.random.Generator, generator: Generator | None = None) -> Problems:
    """New problems for a set of the same size: per task, prompts drawn with replacement, z from the ``generator``'s
    distribution and what else it departs by (``Generator``; default: the set's own, ``gm.generator``)."""
    generator = gm.generator if generator is None else generator
    out = []
    M = len(gm.models)
    for tm in gm.tasks:
        P = len(tm.solve_tokens)
        prompt = rng.integers(0, P, P)
        z = generator.draw_difficulty(rng, P)
        offset = generator.draw_interaction(rng, (P, M))
        broken = np.zeros(P, bool)
        if generator.broken:  # (no draw otherwise: the own model's sets are those drawn before generators existed)
            broken[rng.permutation(P)[:int(round(generator.broken * P))]] = True
        slope = np.exp(generator.slope_sd * rng.standard_normal(M)) if generator.slope_sd else 1.0
        out.append(TaskProblems(prompt, z, offset, broken, slope, generator))
    return out


def own_problems(ctx: Context) -> Problems:
    """The simulated set's own problems: each prompt once, with the difficulty and interactions the simulator gave
    it (``core.simulation``'s hashes of the set's seed, task, problem and model)."""
    seed, models = ctx.params.seed, ctx.models
    profiles = [m.sim for m in models if m.sim is not None]
    if len(profiles) != len(models):
        raise ValueError("own_problems: every model of the set must be simulated (a sim profile)")
    generator = set_generator(profiles)
    out = []
    for t in ctx.params.tasks:
        ids = [p.problem_id for p in ctx.problems[t]]
        pairs = list(zip(models, profiles, strict=True))
        offset = (np.array([[interaction(seed, t, pid, m.name, sim.interaction_sd) for m, sim in pairs] for pid in ids])
                  if generator.has_interaction else 0.0)
        out.append(TaskProblems(np.arange(len(ids)), np.array([difficulty(seed, t, pid) for pid in ids]), offset,
                                generator=generator))
    return out


def problem_ids(ctx: Context) -> list[tuple[str, str]]:
    """(task, problem_id) of ``own_problems``' rows, in their order."""
    return [(t, p.problem_id) for t in ctx.params.tasks for p in ctx.problems[t]]


def hashed_draws(ctx: Context) -> list[HashedDraws]:
    """Per task, the ``sim`` backend's own random numbers for the set's cells (its seed, problems and models): with
    ``own_problems``, ``draw_cube`` then draws exactly the attempts the backend records."""
    models = tuple(m.name for m in ctx.models)
    return [HashedDraws(ctx.params.seed, t, tuple(p.problem_id for p in ctx.problems[t]), models)
            for t in ctx.params.tasks]


def _rng(rng: np.random.Generator | None) -> np.random.Generator:
    """``draw_cube``'s generator, needed where it draws problems or attempts itself."""
    if rng is None:
        raise ValueError("draw_cube: an rng is needed unless both problems and draws are given")
    return rng


# long: one pass of random draws whose order is the seed discipline (a split would hide the order a seed fixes)
def draw_cube(gm: GenerativeModel, rng: np.random.Generator | None, problems: Problems | None = None,
              draws: list | None = None) -> tuple[RunCube, np.ndarray]:
    """A simulated set of the same shape — ``problems`` (default: new ones, ``draw_problems``; their ``Generator``
    says how attempts depart from the own model), ``n_runs`` runs per cell — and its expert costs: a RunCube
    ready for ``point_estimate`` / ``bootstrap``. ``draws``: per task, where the attempts' random numbers come from
    (``core.simulation.SeededDraws`` of ``rng`` by default; ``hashed_draws`` gives the ``sim`` backend's own)."""
    n = gm.n_runs
    collected = [s for s in gm.strategies if "+" not in s or get_method(s.split("+", 1)[1]).is_collected]
    problems = draw_problems(gm, _rng(rng)) if problems is None else problems
    blocks = []
    for t, tm in enumerate(gm.tasks):
        P = len(tm.solve_tokens)
        here = problems[t] if isinstance(problems[t], TaskProblems) else TaskProblems(*problems[t])
        prompt = here.prompt
        pi = here.success(tm)[:, :, None]  # (P, M, 1)
        broken = np.broadcast_to(here.broken, (P,))[:, None, None]
        draw, shape = SeededDraws(_rng(rng)) if draws is None else draws[t], (P, len(gm.models), n)
        ok = draw.uniform("format", shape) >= gm.format_error[:, None]

        def calls(tokens, method="vanilla", call=0, tm=tm, draw=draw, shape=shape, gen=here.generator):  # bound (B023)
            c = gen.tokens(tm.completion[:, None], draw.normal("tokens", shape, method, call))
            return tokens[:, None, None] * gm.usd_in[:, None] + c * gm.usd_out[:, None] + gm.fee[:, None]

        per = {}
        right = draw.uniform("correct", shape) < pi
        d = np.broadcast_to(tm.distractors, (P,))[prompt][:, None, None]
        wrong_class = draw.wrong_class(d, shape)
        cls = np.where(~ok, d + 1, np.where(right, 0, wrong_class))

        def graded(right, cls, ok, broken=broken):  # a wrong reference: class 1
            return ok & np.where(broken, cls == 1, right)

        per["vanilla"] = (calls(tm.solve_tokens[prompt]), graded(right, cls, ok), cls)
        if "self_refine" in gm.methods:
            p_refine = refined(pi, gm.refine_gain[:, None])
            ok2 = draw.uniform("format", shape, "self_refine", 1) >= gm.format_error[:, None]
            right2 = (draw.uniform("correct", shape, "self_refine", 1) < p_refine) & ok2
            if broken.any():  # the refinement's answer against a wrong reference: a matching distractor passes
                cls2 = np.where(~ok2, d + 1, np.where(right2, 0, draw.wrong_class(d, shape, "self_refine", 1)))
                right2 = graded(right2, cls2, ok2)
            usd = calls(tm.solve_tokens[prompt], "self_refine", 0) + calls(tm.refine_tokens[prompt], "self_refine", 1)
            per["self_refine"] = (usd, right2, np.where(right2, 0, 1))
        cols = []
        for s in collected:
            m, method = (s.split("+", 1) + ["vanilla"])[:2]
            cols.append([a[:, gm.models.index(m)] for a in per[method]])
        blocks.append(([np.stack([c[i] for c in cols], axis=1) for i in range(3)], np.full(P, t), tm.expert_usd))
    usd = np.concatenate([b[0][0] for b in blocks])
    correct = np.concatenate([b[0][1] for b in blocks])
    cls = np.concatenate([b[0][2] for b in blocks])
    codes = np.concatenate([b[1] for b in blocks])
    expert = np.concatenate([np.full(len(b[1]), b[2]) for b in blocks])
    first = np.argmax(cls[..., :, None] == cls[..., None, :], axis=-1)  # a class = its first run's position
    class_ok = np.zeros(correct.shape, dtype=bool)
    np.put_along_axis(class_ok, first, correct, axis=-1)
    shell = _shell(gm, codes)
    cube = RunCube(shell.problems, codes, shell.tasks, collected, usd, correct,
                   np.full(correct.shape[:2], n, dtype=np.int64), first, class_ok, shell.derived)
    return cube, expert


def tail_share(gm: GenerativeModel, z: float = 2.0) -> tuple[float, np.ndarray]:
    """(share of the population's problems harder than ``z``, (T,) share of each dataset's true frontier of all
    models that those problems carry), both 0-1: how much of the population value lies where a set seldom looks."""
    tr = truth(gm)
    nodes, weights = population_nodes(gm.generator)
    hard = np.concatenate([np.tile(nodes, len(tm.solve_tokens)) for tm in gm.tasks]) > z  # truth's problem order
    share = float(weights[nodes > z].sum())
    tail = dataclasses.replace(tr, weights=tr.weights * hard)
    return share, share * tail.frontier(gm.models)[0] / tr.frontier(gm.models)[0]


def true_statistics(gm: GenerativeModel, problems: Problems | None = None) -> dict[Key, np.ndarray]:
    """Every statistic of the study (``GenerativeModel.statistics``) at the truth of ``problems`` (default: the
    population; ``truth``): statistic -> (T,) values."""
    return {k: v[0] for k, v in gm.statistics(truth(gm, problems).frontier).items()}


def set_truths(ctx: Context) -> dict[Key, np.ndarray] | None:
    """A set's statistics at the simulator's truth of its own problems (``true_statistics`` of ``own_problems``) where
    every model of its headline is simulated (``ctx``: the set's ``Context``), for a reading written before the
    validity stage; None for a set of real models."""
    ctx = ctx.split()[0]
    if not has_known_truth(ctx):
        return None
    return true_statistics(generative_model(ctx), own_problems(ctx))
