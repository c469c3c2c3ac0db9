"""Validity on known truth: a simulated set's generative model, its exact values, and a repeated-draws study
of the estimators (bias, RMSE, interval coverage).

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
A study repetition draws a fresh set of the same size — prompts with replacement, new z, n runs per
(problem, strategy) — straight from the model (no collection), vectorised. Everything here is SIMULATED.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from helpers.analyze import routing
from helpers.analyze.bootstrap import Replicates, RunCube, bootstrap, problem_weights
from helpers.analyze.costofpass import release_steps
from helpers.analyze.frontier_model import ModelFrontier
from helpers.analyze.headline import all_specs, evaluate
from helpers.analyze.statistic import KINDS, POLICY_FRONTIER, items, kind_of
from helpers.analyze.unseen import ranges
from helpers.collect.backends.sim import task_aptitude
from helpers.core.context import Context
from helpers.core.experts import expert_per_problem
from helpers.core.methods import get_method
from helpers.core.pool import forked_map
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

    def statistics(self, F) -> dict[str, np.ndarray]:
        """Every statistic the study checks, of a frontier function: the headline (Tables 1, 2), the frontier
        over release steps and each release's gain (Figures 2, 4), and the counterfactuals (Figures 3, 5)."""
        return evaluate(self.specs, F)

    @property
    def specs(self) -> dict:
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
    expert = expert_per_problem(pd.MultiIndex.from_tuples([(t, "") for t in ctx.params.tasks], names=["task", "problem_id"]),
                                ctx.params.expert_bound, rule=ctx.params.fidelity.expert_cost).to_numpy()
    tasks = []
    for t, e in zip(ctx.params.tasks, expert, strict=True):
        problems = ctx.problems[t]
        solve = np.array([math.ceil(sum(len(x["content"]) for x in solve_messages(p.question)) / 4) for p in problems])
        refine = np.array([math.ceil(sum(len(x["content"]) for x in refine_messages(p.question, RESPONSE.format(p.target)))
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
    call = lambda tokens: tokens[:, None] * gm.usd_in + tm.completion * gm.usd_out + gm.fee  # noqa: E731
    solve = call(tm.solve_tokens[prompt])
    cost, rate = {}, {}
    for i, m in enumerate(gm.models):
        for method in gm.methods:
            name = strategy_name(m, method)
            d = np.broadcast_to(tm.distractors, (len(tm.solve_tokens),))[prompt]
            graded = np.where(broken, (1 - pi[:, i]) / d, pi[:, i]) * ok[i]  # a wrong reference passes a matching distractor
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
              Generator("broken items 5%", broken=0.05), Generator("heavy-tailed difficulty (t, 3 df)", difficulty="t3"),
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
    derived = [(s, collected.index(s.split("+", 1)[0]), s.split("+", 1)[1]) for s in gm.strategies if s not in collected]
    empty = np.empty((len(task_codes), len(collected), 0))
    problems = pd.MultiIndex.from_arrays([[gm.tasks[c].task for c in task_codes], np.arange(len(task_codes)).astype(str)],
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
    return [HashedDraws(ctx.params.seed, t, tuple(p.problem_id for p in ctx.problems[t]), models) for t in ctx.params.tasks]


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


def true_statistics(gm: GenerativeModel, problems: Problems | None = None) -> dict[str, np.ndarray]:
    """Every statistic of the study (``GenerativeModel.statistics``) at the truth of ``problems`` (default: the
    population; ``truth``): name -> (T,) values."""
    return {k: v[0] for k, v in gm.statistics(truth(gm, problems).frontier).items()}


# ---- the study ---------------------------------------------------------------------------------
ESTIMATORS = ("plug-in", "bootstrap-corrected", "model-based")
ZERO = 1e-12  # a truth this close to 0 is 0: a model or technique that never lowers the frontier
ROUTING_BUDGETS = 5  # budgets per dataset at which the oracle-routing frontier is checked
CROSSFIT_ROUTING = f"Oracle routing, cross-fitted: accuracy at {ROUTING_BUDGETS} budgets (0-1)"


@dataclass(frozen=True)
class Estimate:
    """One estimator's values on one simulated set: (T,) each, per dataset."""
    value: np.ndarray
    low: np.ndarray
    high: np.ndarray


@dataclass(frozen=True)
class StatisticDraw:
    """One statistic on one simulated set: the truth of the set's own problems, each estimator's ``Estimate``
    (``ESTIMATORS``), and the range the records allow, widened by every cell's sampling error and by the plug-in's
    interval (``unseen.ranges`` of ``Replicates.box``). (T,) arrays."""
    truth: np.ndarray
    estimates: dict[str, Estimate]
    range_low: np.ndarray
    range_high: np.ndarray


@dataclass(frozen=True)
class RoutingDraw:
    """One simulated set's oracle-routing accuracy (0-1, (K, T)) at the study's budgets: what the plug-in and the
    model-based oracles claim (``claimed``; their truth is ``routing_truth``'s, routing on the true rates), and the
    cross-fitted router's estimate with its interval as the report prints it (``crossfit``) beside its own truth
    (``crossfit_truth``: the same choices, made on half of the runs, valued at the true rates and costs)."""
    claimed: dict[str, np.ndarray]
    crossfit: Estimate | None = None
    crossfit_truth: np.ndarray | None = None


@dataclass(frozen=True)
class SetDraw:
    """One simulated set of the study, estimated (``_repetition``): every statistic by name, and with routing budgets
    the oracle-routing accuracies there (``RoutingDraw``)."""
    statistics: dict[str, StatisticDraw]
    routing: RoutingDraw | None = None


@dataclass(frozen=True)
class Pooled:
    """Coverage pooled over a statistic family's cells and the sets (rate, its Monte-Carlo standard error, sets as
    clusters): where the truth is not 0, where it is 0 (and the share of such cells), and of a non-zero population
    truth."""
    rate: float
    se: float
    zero_rate: float
    zero_se: float
    zero_share: float
    population_rate: float
    population_se: float


@dataclass(frozen=True)
class StudyResult:
    """What ``summarise_study`` measured over ``repetitions`` simulated sets: ``table``, one row per (statistic, task,
    estimator) (truth, mean, bias, rmse, coverage, coverage_se, coverage_population); ``routing``, per dataset and
    budget, the oracle-routing frontier's true accuracy and each oracle's mean and RMSE; ``pooled``, per (family,
    estimator), the pooled coverage."""
    table: pd.DataFrame
    routing: pd.DataFrame
    pooled: dict[tuple[str, str], Pooled]
    repetitions: int
    replicates: int
    level: float


def routing_truth(gm: GenerativeModel) -> tuple[np.ndarray, np.ndarray]:
    """(budgets (T, K) USD per problem, true accuracy (K, T)) of the oracle-routing frontier: K budgets log-spaced
    over the middle of each dataset's true envelope."""
    tr = truth(gm)
    acc, usd = routing.envelope(tr.cost, tr.rate, tr.weights, tr.cube.task_starts, tr.expert)
    lo, hi = np.nanmin(usd[0], axis=0), np.nanmax(usd[0], axis=0)
    budgets = np.stack([np.geomspace(a, b, ROUTING_BUDGETS + 2)[1:-1] for a, b in zip(lo, hi, strict=True)])
    return budgets, routing.at_budgets(acc, usd, budgets)[0]


def _routing_estimates(point: Replicates, model: ModelFrontier, budgets: np.ndarray, tr: Replicates, seed: int,
                       replicates: int, level: float) -> RoutingDraw:
    """``RoutingDraw`` at ``budgets`` (T, K) of one set (``point``, ``model``; ``tr``: the truth of its problems)."""
    out = {}
    for name, (cost, rate, w) in (("plug-in", (point.cost, point.rate, point.weights)),
                                  ("model-based", (*model.posterior_rates(), model.weights))):
        acc, usd = routing.envelope(cost, rate, w, point.cube.task_starts, point.expert)
        out[name] = routing.at_budgets(acc, usd, budgets)[0]
    if point.cube.runs.max(initial=0) < 2:
        return RoutingDraw(out)
    return RoutingDraw(out, *_crossfit_draw(point.cube, point.expert, tr, budgets, seed, replicates, level))


def _crossfit_draw(cube: RunCube, expert: np.ndarray, tr: Replicates, budgets: np.ndarray, seed: int, replicates: int,
                   level: float) -> tuple[Estimate, np.ndarray]:
    """The cross-fitted router's accuracy (K, T) at ``budgets`` with its ``level`` interval from ``replicates`` problem
    draws, as ``intervals.routing_frames`` publishes it (``CrossFitted.at``), and its truth: the same choices valued at
    the truth ``tr`` of the set's problems (true USD per attempt and rate)."""
    cols = [tr.strategies.index(s) for s in cube.strategies]
    fitted = routing.crossfit_envelope(cube.usd, cube.correct, cube.runs, cube.task_starts, expert, seed=seed,
                                       weights=problem_weights(cube, replicates, seed), level=level)
    true = routing.crossfit_problems(cube.usd, cube.correct, cube.runs, expert, seed=seed,
                                     truth=(tr.cost[0][:, cols], tr.rate[0][:, cols]))
    ones = np.ones((1, len(expert)))
    true_acc, true_usd = (routing.by_task(v, ones, cube.task_starts) for v in true)
    true_at = routing.at_budgets(true_acc, true_usd, budgets)[0]
    return Estimate(*fitted.at(budgets, level)), true_at


def _repetition(gm: GenerativeModel, seed: int, replicates: int, level: float,
                budgets: np.ndarray | None = None, generator: Generator | None = None) -> SetDraw:
    """One simulated set drawn by ``generator`` (default: the set's own), estimated by every estimator with its
    ``level`` interval (the plug-in's percentile interval of the two-level bootstrap; shifted by twice the bootstrap's
    bias estimate for the corrected one; the model-based posterior interval of ``benchmark_draws``), beside the truth
    of its own problems; with ``budgets``, also the oracle-routing accuracy each oracle claims there."""
    rng = np.random.default_rng(seed)
    problems = draw_problems(gm, rng, generator)
    cube, expert = draw_cube(gm, rng, problems)
    point, reps = bootstrap(cube, expert, replicates, seed=seed)
    model = ModelFrontier(cube, expert)
    stats = gm.statistics
    est, boot = stats(point.frontier), stats(reps.frontier)
    drawn = model.benchmark_draws(replicates, seed, costs=reps.cost[:, :, :len(cube.strategies)])  # the replicates' runs
    est_model, boot_model = stats(model.frontier), stats(drawn.frontier)
    tr = truth(gm, problems)
    true = {k: v[0] for k, v in stats(tr.frontier).items()}  # ``true_statistics`` of these problems
    q = 100 * (1 - level) / 2
    box = ranges(gm.specs, point.box())
    at_point = ranges(gm.specs, point.bounds())
    out = {}
    for name, values in est.items():
        p, b = values[0], boot[name]
        lo, hi = np.nanpercentile(b, [q, 100 - q], axis=0)
        shift = np.nanmean(b, axis=0) - p  # the bootstrap's estimate of the plug-in's bias
        lo_m, hi_m = np.nanpercentile(boot_model[name], [q, 100 - q], axis=0)
        estimates = {"plug-in": Estimate(p, lo, hi), "bootstrap-corrected": Estimate(p - shift, lo - 2 * shift, hi - 2 * shift),
                     "model-based": Estimate(est_model[name][0], lo_m, hi_m)}
        out[name] = StatisticDraw(true[name], estimates, np.fmin(np.fmin(box[name][0][0], at_point[name][0][0]), lo),
                                  np.fmax(np.fmax(box[name][1][0], at_point[name][1][0]), hi))
    return SetDraw(out, None if budgets is None else _routing_estimates(point, model, budgets, tr, seed, replicates,
                                                                         level))


def _draw_sets(gm: GenerativeModel, jobs: list[tuple[int, Generator | None]], replicates: int, level: float,
               budgets: np.ndarray | None, workers: int) -> list[SetDraw]:
    """``_repetition`` of every (seed, generator) job, in the jobs' order, on ``workers`` forked processes."""
    return forked_map(lambda s, g: _repetition(gm, s, replicates, level, budgets, g), jobs, workers,
                      "simulated sets")


def study_sets(gm: GenerativeModel, repetitions: int = 100, replicates: int = 200, seed: int = 0, level: float = 0.95,
               workers: int = 1) -> list[SetDraw]:
    """``repetitions`` fresh simulated sets drawn from the set's own generator, each estimated (``_repetition``, with
    the oracle-routing budgets of ``routing_truth``): what ``summarise_study`` and ``generator_study`` read."""
    seeds = [seed * 100_003 + r for r in range(repetitions)]
    return _draw_sets(gm, [(s, None) for s in seeds], replicates, level, routing_truth(gm)[0], workers)


def study(gm: GenerativeModel, repetitions: int = 100, replicates: int = 200, seed: int = 0, level: float = 0.95,
          workers: int = 1) -> StudyResult:
    """``summarise_study`` of ``study_sets``."""
    return summarise_study(gm, study_sets(gm, repetitions, replicates, seed, level, workers), replicates, level)


def summarise_study(gm: GenerativeModel, reps: list[SetDraw], replicates: int, level: float = 0.95) -> StudyResult:
    """Bias, RMSE and interval coverage of each estimator of every headline statistic over the simulated sets
    ``reps`` (``study_sets``; ``replicates`` bootstrap replicates each), as a ``StudyResult``.

    Its table has one row per (statistic, task, estimator): truth (the benchmark truths' mean, which is the population
    value), mean estimate, bias and RMSE against each set's benchmark truth, coverage of its ``level`` interval of the
    benchmark truth with its Monte-Carlo standard error, and of the population truth."""
    population = true_statistics(gm)
    tasks = [tm.task for tm in gm.tasks]
    rows: list[dict] = []
    cells: dict[tuple[str, str], list[tuple[np.ndarray, ...]]] = {}  # (family, estimator) -> per statistic, (R, T) each
    for name, p_values in population.items():
        t_values = np.array([r.statistics[name].truth for r in reps])  # (R, T) each set's benchmark truth
        for estimator in ESTIMATORS:
            drawn = [r.statistics[name].estimates[estimator] for r in reps]
            values, low, high = (np.array([getattr(d, part) for d in drawn]) for part in ("value", "low", "high"))
            covered, covered_pop = (low <= t_values) & (t_values <= high), (low <= p_values) & (p_values <= high)
            cells.setdefault((family(name), estimator), []).append(
                (covered, np.abs(t_values) > ZERO, covered_pop, np.broadcast_to(np.abs(p_values) > ZERO, covered.shape)))
            rows += _study_rows(name, estimator, tasks, t_values, values, covered, covered_pop)
    return StudyResult(pd.DataFrame(rows), _routing_table(gm, reps, tasks),
                       {key: _pooled(parts) for key, parts in cells.items()}, len(reps), replicates, level)


def _study_rows(name: str, estimator: str, tasks: list[str], truth: np.ndarray, values: np.ndarray, covered: np.ndarray,
                covered_pop: np.ndarray) -> list[dict]:
    """``summarise_study``'s rows of one statistic and estimator, one per dataset; arrays (R, T)."""
    rows = []
    for j, task in enumerate(tasks):
        cov = covered[:, j].mean()
        err = values[:, j] - truth[:, j]
        rows.append({"statistic": name, "task": task, "estimator": estimator, "truth": truth[:, j].mean(),
                     "mean": values[:, j].mean(), "bias": err.mean(), "rmse": float(np.sqrt(np.mean(err**2))),
                     "coverage": cov, "coverage_se": float(np.sqrt(max(cov * (1 - cov), 1e-12) / len(truth))),
                     "coverage_population": covered_pop[:, j].mean()})
    return rows


def _pooled(parts: list[tuple[np.ndarray, ...]]) -> Pooled:
    """``Pooled`` of a family's statistics: each part (covered, truth not 0, population covered, population not 0),
    (R, T) arrays, joined over the family's cells."""
    hits, nonzero, pop_hits, pop_nonzero = (np.concatenate([p[i] for p in parts], axis=1) for i in range(4))
    rate, se = pooled_rate(hits, nonzero)
    zero_rate, zero_se = pooled_rate(hits, ~nonzero)
    return Pooled(rate, se, zero_rate, zero_se, float((~nonzero).mean()), *pooled_rate(pop_hits, pop_nonzero))


def _routing_table(gm: GenerativeModel, reps: list[SetDraw], tasks: list[str]) -> pd.DataFrame:
    """Per dataset and budget: the oracle-routing frontier's true accuracy and each oracle's mean and RMSE; the
    cross-fitted router's mean, RMSE and interval coverage (%) against its own truth (its choices valued at the true
    rates; mean over the sets)."""
    budgets, true = routing_truth(gm)
    drawn = [r.routing for r in reps if r.routing is not None]
    claimed = {e: np.array([r.claimed[e] for r in drawn]) for e in ("plug-in", "model-based")}
    crossed = [r for r in drawn if r.crossfit is not None and r.crossfit_truth is not None]
    rows = [{"task": task, "budget_usd": budgets[j, k], "truth": true[k, j],
             **{f"{e} mean": float(c[:, k, j].mean()) for e, c in claimed.items()},
             **{f"{e} rmse": float(np.sqrt(np.mean((c[:, k, j] - true[k, j]) ** 2))) for e, c in claimed.items()}}
            for j, task in enumerate(tasks) for k in range(budgets.shape[1])]
    if crossed:
        value, low, high, own = _crossfit_arrays(crossed)
        for row, (k, j) in zip(rows, [(k, j) for j in range(len(tasks)) for k in range(budgets.shape[1])], strict=True):
            ok = np.isfinite(value[:, k, j]) & np.isfinite(own[:, k, j])
            err = value[ok, k, j] - own[ok, k, j]
            row.update({"cross-fitted truth": float(own[ok, k, j].mean()) if ok.any() else np.nan,
                        "cross-fitted mean": float(value[ok, k, j].mean()) if ok.any() else np.nan,
                        "cross-fitted rmse": float(np.sqrt(np.mean(err**2))) if ok.any() else np.nan,
                        "cross-fitted coverage %": 100 * float(((low[ok, k, j] <= own[ok, k, j])
                                                                & (own[ok, k, j] <= high[ok, k, j])).mean())
                        if ok.any() else np.nan})
    return pd.DataFrame(rows)


def routing_in_percent(table: pd.DataFrame) -> pd.DataFrame:
    """``StudyResult.routing`` with its accuracies and RMSEs in % (the coverage is already in %)."""
    out = table.copy()
    for col in [c for c in out.columns if c == "truth" or c.endswith((" mean", " rmse", " truth"))]:
        out[col] = 100 * out[col]
    return out


def _crossfit_arrays(crossed: list[RoutingDraw]) -> tuple[np.ndarray, ...]:
    """(value, low, high, truth), each (R, K, T), of the cross-fitted router over the sets ``crossed``."""
    return tuple(np.array([getattr(r.crossfit, part) for r in crossed]) for part in ("value", "low", "high")) + (
        np.array([r.crossfit_truth for r in crossed]),)


def _crossfit_row(generator: str, drawn: list[RoutingDraw]) -> list[dict]:
    """``generator_study``'s row of the cross-fitted routing envelope (accuracy 0-1 at the study's budgets), judged
    against each set's own truth (its choices valued at the true rates); none where no set has it."""
    crossed = [r for r in drawn if r.crossfit is not None]
    if not crossed:
        return []
    value, low, high, own = (a.reshape(len(crossed), -1) for a in _crossfit_arrays(crossed))
    ok = np.isfinite(value) & np.isfinite(own)
    cov, se = pooled_rate((low <= own) & (own <= high), ok)
    err = np.where(ok, value - own, np.nan)
    return [{"generator": generator, "statistic": CROSSFIT_ROUTING, "estimator": "cross-fitted", "headline": False,
             "mean_abs_bias": float(np.nanmean(np.abs(np.nanmean(err, axis=0)))),
             "rel_bias_pct": 100 * float(np.nansum(err) / np.abs(np.where(ok, own, 0)).sum()),
             "coverage_pct": 100 * cov, "coverage_se_pct": 100 * se,
             "mean_width": float(np.nanmean(np.where(ok, high - low, np.nan))), "range_coverage_pct": np.nan}]


def pooled_rate(hits: np.ndarray, mask: np.ndarray) -> tuple[float, float]:
    """(share of ``hits`` among the ``mask``ed (set, cell) pairs, its standard error over sets), both (R, cells):
    the ratio estimator's clustered standard error, sets as clusters (NaN, NaN when nothing is masked)."""
    n = mask.sum(axis=1)
    if n.sum() == 0:
        return float("nan"), float("nan")
    rate = float((hits & mask).sum() / n.sum())
    dev = (hits & mask).sum(axis=1) - rate * n
    return rate, float(np.sqrt((dev**2).sum()) / n.sum())


def family(statistic: str) -> str:
    """The family of a statistic's name ('table1', 'frontier', 'technique gain', 'release gain', ...)."""
    return kind_of(statistic)


FAMILY_LABELS = {name: k.label for name, k in KINDS.items()}  # the study tables' words for each kind
POLICY_LABELS = {**FAMILY_LABELS, "frontier": POLICY_FRONTIER.label}  # the headline's: its frontier is another quantity


def summary(result: StudyResult) -> pd.DataFrame:
    """Per statistic family and estimator: mean |bias|, its ratio to the plug-in's, mean RMSE, the pooled
    coverage (%) of the benchmark truth where it is not 0 with its Monte-Carlo standard error (sets as
    clusters), the share (%) of (set, cell) pairs whose truth is 0 (a model or technique that never lowers the
    frontier) and how often those are covered (%), and the pooled coverage (%) of a non-zero population truth."""
    df = result.table.assign(family=result.table["statistic"].map(family), abs_bias=result.table["bias"].abs())
    out = df.groupby(["family", "estimator"], sort=False).agg(cells=("bias", "size"), mean_abs_bias=("abs_bias", "mean"),
                                                             mean_rmse=("rmse", "mean")).reset_index()
    plug = out[out["estimator"] == "plug-in"].set_index("family")["mean_abs_bias"]
    out["bias_vs_plug_in"] = out["mean_abs_bias"] / out["family"].map(plug)
    pooled = [result.pooled[(f, e)] for f, e in zip(out["family"], out["estimator"], strict=True)]
    for column, part in (("coverage_pct", "rate"), ("coverage_se_pct", "se"), ("zero_truth_pct", "zero_share"),
                         ("zero_truth_coverage_pct", "zero_rate"), ("population_coverage_pct", "population_rate")):
        out[column] = [100 * getattr(p, part) for p in pooled]
    out["family"] = out["family"].map(FAMILY_LABELS)
    return out


TECHNIQUE_COLUMNS = ["technique", "task", "true gain %", *[f"{e} mean" for e in ESTIMATORS],
                     *[f"{e} coverage %" for e in ESTIMATORS]]


def technique_table(result: StudyResult, task_labels: dict[str, str] | None = None) -> pd.DataFrame:
    """Per technique and dataset: the true gain, each estimator's mean, and the coverage of its interval (%)."""
    df = result.table[result.table["statistic"].map(family) == "technique gain"]
    if df.empty:  # a set without techniques
        return pd.DataFrame(columns=TECHNIQUE_COLUMNS)
    wide = df.pivot_table(index=["statistic", "task", "truth"], columns="estimator", values=["mean", "coverage"],
                          sort=False)
    wide.columns = [f"{est} {'mean' if what == 'mean' else 'coverage %'}" for what, est in wide.columns]
    wide = wide.reset_index()
    for col in [c for c in wide.columns if c.endswith("coverage %")]:
        wide[col] = 100 * wide[col]
    for col in ["truth", *[c for c in wide.columns if c.endswith(" mean")]]:
        wide[col] = 100 * wide[col]  # gains in %
    wide.insert(0, "technique", items(wide.pop("statistic")))
    wide["task"] = wide["task"].map(task_labels or {}).fillna(wide["task"])
    return wide.rename(columns={"truth": "true gain %"})[TECHNIQUE_COLUMNS]


# ---- the study over generators that are not the estimator's own model ---------------------------------
GENERATOR_COLUMNS = ["generator", "statistic", "estimator", "headline", "mean_abs_bias", "rel_bias_pct", "coverage_pct",
                     "coverage_se_pct", "mean_width", "range_coverage_pct"]
HEADLINE_ESTIMATOR = "up to k tries, then the expert"  # what the report leads with (``policy_study``; issue 35)


def study_generators(gm: GenerativeModel) -> tuple[Generator, ...]:
    """The generators of ``generator_study``: the set's own (when it is not the estimator's) and ``GENERATORS``."""
    return GENERATORS if gm.generator == OWN else (gm.generator, *GENERATORS)


def generator_study(gm: GenerativeModel, generators=GENERATORS, repetitions: int = 8, replicates: int = 100,
                    seed: int = 0, level: float = 0.95, workers: int = 1,
                    drawn: dict[Generator, list[SetDraw]] | None = None) -> pd.DataFrame:
    """Bias and coverage of the plug-in and model-based estimators, per generator (``Generator``: the own model and
    its departures) and statistic family (Table 1, the frontier of all models, Figures 2-5, Table 2), each judged
    against every simulated set's own truth, ``repetitions`` sets per generator (``GENERATOR_COLUMNS``):
    mean |bias| (the family's units), relative bias (%: Σ bias / Σ |truth| over its cells), coverage of the
    ``level`` interval where the truth is not 0 (%; where every truth of a family is 0, as a technique without
    effect has, of all its cells) with its Monte-Carlo standard error (sets as clusters), mean
    interval width, and how often the plug-in's range (what never-passed problems allow, with its interval) holds
    the truth (%). ``headline``: the estimator the report leads with (``HEADLINE_ESTIMATOR``). With 2 runs or more,
    a row of the cross-fitted routing envelope (``CROSSFIT_ROUTING``) judged against its own truth. ``drawn``: sets
    already drawn from a generator (e.g. the set's own, ``study_sets``), read instead of drawing new ones."""
    drawn = drawn or {}
    jobs = [(seed * 100_003 + 7_919 * i + r, g) for i, g in enumerate(generators) if g not in drawn
            for r in range(repetitions)]
    budgets = routing_truth(gm)[0]  # the own model's: where the cross-fitted router is judged
    done = dict(zip([s for s, _ in jobs], _draw_sets(gm, jobs, replicates, level, budgets, workers), strict=True))
    rows = []
    for g in generators:
        reps = drawn[g] if g in drawn else [done[s] for s, gg in jobs if gg is g]
        for fam in dict.fromkeys(family(n) for n in reps[0].statistics):
            rows += _family_rows(g.name, fam, [[r.statistics[n] for n in reps[0].statistics if family(n) == fam]
                                               for r in reps])
        rows += _crossfit_row(g.name, [r.routing for r in reps if r.routing is not None])
    return pd.DataFrame(rows, columns=GENERATOR_COLUMNS)


def crossfit_routing_study(gm: GenerativeModel, generators=GENERATORS, repetitions: int = 40, replicates: int = 200,
                           seed: int = 0, level: float = 0.95, workers: int = 1) -> pd.DataFrame:
    """``generator_study``'s cross-fitted routing rows alone (``CROSSFIT_ROUTING``; no other estimator runs, so many
    more sets fit in the time): ``repetitions`` sets per generator, the same draws as ``generator_study``'s."""
    budgets = routing_truth(gm)[0]
    jobs = [(seed * 100_003 + 7_919 * i + r, g) for i, g in enumerate(generators) for r in range(repetitions)]
    drawn = forked_map(lambda s, g: _routing_only(gm, s, g, budgets, replicates, level), jobs, workers,
                       "simulated sets")
    rows = []
    for g in generators:
        rows += _crossfit_row(g.name, [d for d, (_, gg) in zip(drawn, jobs, strict=True) if gg is g])
    return pd.DataFrame(rows, columns=GENERATOR_COLUMNS)


def _routing_only(gm: GenerativeModel, seed: int, generator: Generator, budgets: np.ndarray, replicates: int,
                  level: float) -> RoutingDraw:
    """The cross-fitted router of the set ``_repetition`` draws from ``seed`` and ``generator``, beside its truth."""
    rng = np.random.default_rng(seed)
    problems = draw_problems(gm, rng, generator)
    cube, expert = draw_cube(gm, rng, problems)
    return RoutingDraw({}, *_crossfit_draw(cube, expert, truth(gm, problems), budgets, seed, replicates, level))


def _family_rows(generator: str, fam: str, draws: list[list[StatisticDraw]]) -> list[dict]:
    """``generator_study``'s rows of one statistic family: ``draws`` per set, its statistics of the family."""
    def cells(get) -> np.ndarray:  # (R, cells): every statistic's (T,) values side by side, per set
        return np.array([np.concatenate([get(d) for d in ds]) for ds in draws])

    truth = cells(lambda d: d.truth)
    nonzero = np.abs(truth) > ZERO
    mask = nonzero if nonzero.any() else np.ones_like(nonzero)  # every truth 0: all cells
    rows = []
    for estimator in ("plug-in", "model-based"):
        value, low, high = (cells(lambda d, e=estimator, part=part: getattr(d.estimates[e], part))
                            for part in ("value", "low", "high"))
        cov, se = pooled_rate((low <= truth) & (truth <= high), mask)
        row = {"generator": generator, "statistic": FAMILY_LABELS.get(fam, fam), "estimator": estimator,
               "headline": estimator == HEADLINE_ESTIMATOR, "mean_abs_bias": float(np.abs((value - truth).mean(0)).mean()),
               "rel_bias_pct": (100 * float((value - truth).sum() / np.abs(truth).sum())
                                if np.abs(truth).sum() > ZERO else np.nan),  # no relative bias of a zero truth
               "coverage_pct": 100 * cov, "coverage_se_pct": 100 * se, "mean_width": float((high - low).mean()),
               "range_coverage_pct": np.nan}
        if estimator == "plug-in":
            r_lo, r_hi = cells(lambda d: d.range_low), cells(lambda d: d.range_high)
            row["range_coverage_pct"] = 100 * pooled_rate((r_lo <= truth) & (truth <= r_hi), mask)[0]
        rows.append(row)
    return rows
