"""The racing design's bill, forecast: a Monte-Carlo of the race (``collect.racing``) over what the options may pass.

Per dataset the race's problems (all but the Table-1 sample) are simulated ``draws`` times: each option's pass rate on
each problem is drawn, its runs' passes drawn from it (binomial), and the race decided from them by its own rule
(``Race.needed``, the same order, margin and Jeffreys bound the collection uses); the USD of the cells it runs are
summed, with the Table-1 sample's pending calls and what is already spent. The USD of a cell is the token model's
(``collect.budget``) times a calibration per option.

Where the pass rates come from:

- **pilot** (the Table-1 sample recorded): every draw resamples the sample's problems with replacement (a bootstrap:
  the uncertainty of a small sample), and each raced problem takes the records (passes of its runs) of one of them.
  The sample is a simple random sample of the dataset's problems and each of its records a draw of what a raced
  problem records, so this is unbiased for the race's bill; a problem's options stay tied as the sample shows them (a
  problem hard for one model is hard for the others), which is what decides where the race stops. Redrawing each
  option's passes from a posterior of its rate instead (Jeffreys) lets options that never passed pass now and then,
  and forecast bills 11-20% short of the actual ones (``benchmarks/racing_forecast.py``, while it was built). The same
  bootstrap calibrates the token model: per option, the sample's measured USD over the token model's. A bootstrap of
  k problems is too narrow for a small k (``widened``: each dataset's bills are widened about their mean to a
  Student-t interval's width).
- **prior** (nothing recorded yet): the simulator's own form with every parameter unknown (``PRIOR``): on a problem,
  option o passes with probability expit(tau + delta_o + 2 g_o): tau ~ N(0, 2^2) the dataset's ease, delta_o ~ N(0, 1)
  the option's, g a standard normal difficulty shared by the options with correlation rho ~ U(0, 1), all drawn anew
  per simulated race; the token model taken as exact.
  Wide by design: it says what the race may cost before anything is known.

What is not modelled: the spread of one cell's USD around its expectation (a sum over thousands of cells averages
it), records of waves already made (their calls count as spent; the race on them is simulated anew), and failed calls
made again. Pure: nothing here reads records, calls or prices; ``grade.forecast`` assembles a set's inputs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from helpers.collect.racing import ALPHA, Race, pass_rate_lower

DRAWS = 250  # simulated races per forecast
LEVEL = 0.90  # the forecast's range: the 5th to the 95th percentile of the simulated bills
PRIOR = ("prior (nothing recorded yet): pass rates expit(tau + delta + 2g), tau ~ N(0, 2^2) per dataset, delta ~ "
         "N(0, 1) per option, g a problem's difficulty shared with correlation rho ~ U(0, 1); the token model's USD")
PILOT = "pilot: the Table-1 sample's records, its problems bootstrapped (passes, and USD per attempt per option)"


@dataclass(frozen=True)
class Pilot:
    """One dataset's Table-1 sample as recorded: (k problems, O options) arrays in the race's option order —
    ``passes`` and ``runs`` (complete attempts), ``usd`` the measured mean USD per attempt (NaN where none),
    ``ledger`` the token model's USD per attempt."""

    passes: np.ndarray
    runs: np.ndarray
    usd: np.ndarray
    ledger: np.ndarray


@dataclass(frozen=True)
class TaskCase:
    """One dataset's race and what it costs: ``attempt_usd`` (P, O) the token model's USD per attempt on the P problems
    the race decides (not the sample), ``pending_usd`` (P, O) its USD of those cells' calls not yet recorded,
    ``fee`` (P,) the expert's USD, ``sample_usd`` (O,) the token model's USD of the sample's calls not yet recorded,
    ``pilot`` the sample's records (None: the prior)."""

    race: Race
    attempt_usd: np.ndarray
    pending_usd: np.ndarray
    fee: np.ndarray
    n_runs: int
    sample_usd: np.ndarray
    pilot: Pilot | None = None


@dataclass(frozen=True)
class Forecast:
    """Simulated bills of a set: ``bills`` (D,) USD of the pending calls per draw, ``spent_usd`` already recorded,
    ``uniform_usd`` the uniform design's bill (spent + pending, the token model's), ``source`` the pass rates' origin
    (``PILOT``, ``PRIOR`` or both, by dataset), ``share`` the Table-1 share it was made for."""

    bills: np.ndarray
    spent_usd: float
    uniform_usd: float
    source: str
    share: float

    @property
    def totals(self) -> np.ndarray:
        """(D,) USD: what the set will have spent at the end, per draw."""
        return self.spent_usd + self.bills

    @property
    def expected(self) -> float:
        return float(self.totals.mean())

    @property
    def low(self) -> float:
        return float(np.quantile(self.totals, (1 - LEVEL) / 2))

    @property
    def high(self) -> float:
        return float(np.quantile(self.totals, (1 + LEVEL) / 2))

    def over(self, budget_usd: float) -> float:
        """Share of the draws (0-1) whose bill passes ``budget_usd``."""
        return float((self.totals > budget_usd).mean())

    def line(self) -> str:
        """The dry run's line: expected bill, range, the uniform bill and where the pass rates come from."""
        return (f"forecast: ${self.expected:,.2f} expected, {LEVEL:.0%} range ${self.low:,.2f}–${self.high:,.2f} "
                f"(uniform design: ${self.uniform_usd:,.2f}); {self.source}")


def race_runs(race: Race, cost_usd: np.ndarray, passes: np.ndarray, n_runs: int, fee: np.ndarray,
              alpha: float = ALPHA) -> np.ndarray:
    """``racing.run_race`` where every option that runs makes ``n_runs`` runs: bool [rows x options], the same decisions
    (``tests/test_forecast.py``) in O(rows x subsets) per option: each subset's least upper bound so far is kept as the
    options are decided (``Race.needed`` takes it anew over the options before), and the Jeffreys bounds are looked up
    per number of passes. ``cost_usd`` (rows, O) USD per attempt; ``passes`` (rows, O) ints 0..n_runs; ``fee`` (rows,)
    the expert's USD, in every subset's frontier."""
    low = pass_rate_lower(np.arange(n_runs + 1), np.full(n_runs + 1, n_runs), alpha)  # per number of passes
    rows, n_options = cost_usd.shape
    ran = np.zeros((rows, n_options), dtype=bool)
    least = np.repeat(np.asarray(fee, dtype=float)[:, None], race.subsets.shape[0], axis=1)  # (rows, subsets)
    for j in range(n_options):
        holding = race.subsets[:, j]
        ran[:, j] = (race.margin * race.expected_usd[j] <= least[:, holding]).any(axis=1)
        bound = low[passes[:, j]]
        upper = np.where(ran[:, j] & (bound > 0), cost_usd[:, j] / np.where(bound > 0, bound, 1), np.inf)
        least[:, holding] = np.minimum(least[:, holding], upper[:, None])
    return ran


def prior_rates(rng: np.random.Generator, draws: int, problems: int, options: int) -> np.ndarray:
    """(D, P, O) pass rates from ``PRIOR`` (module docstring)."""
    theta = 2.0 * rng.standard_normal((draws, 1, 1)) + rng.standard_normal((draws, 1, options))
    rho = rng.uniform(0, 1, (draws, 1, 1))
    g = np.sqrt(rho) * rng.standard_normal((draws, problems, 1)) + np.sqrt(1 - rho) * rng.standard_normal(
        (draws, problems, options))
    return 1 / (1 + np.exp(-(theta + 2.0 * g)))


def pilot_passes(rng: np.random.Generator, pilot: Pilot, draws: int, problems: int,
                 n_runs: int) -> tuple[np.ndarray, np.ndarray]:
    """((D, P, O) passes, (D, O) USD calibration) from ``pilot`` (module docstring): per draw a bootstrap of the
    sample's k problems; each raced problem takes the records of one of them (a cell with fewer than ``n_runs``
    complete attempts: its passes drawn at its rate); the calibration is the bootstrap's measured USD over its
    token-model USD, per option (1 where the option has no complete attempt)."""
    k = pilot.passes.shape[0]
    boot = rng.integers(0, k, (draws, k))  # (D, k) the bootstrap's rows
    rows = np.take_along_axis(boot, rng.integers(0, k, (draws, problems)), axis=1)  # (D, P)
    s, n = pilot.passes[rows], pilot.runs[rows]
    with np.errstate(invalid="ignore", divide="ignore"):
        redrawn = rng.binomial(n_runs, np.clip(np.nan_to_num(s / n), 0, 1))
    passes = np.where(n == n_runs, s, redrawn).astype(np.int64)
    measured = np.nan_to_num(pilot.usd * pilot.runs)[boot].sum(axis=1)  # (D, O)
    token = (pilot.ledger * pilot.runs)[boot].sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(token > 0, measured / np.where(token > 0, token, 1), 1.0)
    return passes, ratio


def task_bills(case: TaskCase, rng: np.random.Generator, draws: int, alpha: float = ALPHA) -> np.ndarray:
    """(D,) USD of one dataset's pending calls per simulated race: the sample's and the raced cells'."""
    P, n_options = case.attempt_usd.shape
    if case.pilot is None:
        passes = rng.binomial(case.n_runs, prior_rates(rng, draws, P, n_options))
        ratio = np.ones((draws, n_options))
    else:
        passes, ratio = pilot_passes(rng, case.pilot, draws, P, case.n_runs)
    sample = (ratio * case.sample_usd).sum(axis=1)
    if P == 0:
        return sample
    cost = case.attempt_usd[None] * ratio[:, None, :]
    ran = race_runs(case.race, cost.reshape(-1, n_options), passes.reshape(-1, n_options), case.n_runs,
                    np.tile(case.fee, draws), alpha).reshape(draws, P, n_options)
    bills = sample + (ran * case.pending_usd[None] * ratio[:, None, :]).sum(axis=(1, 2))
    return bills if case.pilot is None else widened(bills, case.pilot.passes.shape[0])


def widened(bills: np.ndarray, k: int) -> np.ndarray:
    """A dataset's bootstrapped bills (D,) widened about their mean for a sample of ``k`` problems: the bootstrap's
    spread of a mean is the plug-in's, (k - 1)/k of the unbiased variance, and its percentiles ignore that the spread
    is itself estimated from k problems; the factor sqrt(k / (k - 1)) t_{k-1} / z (at the range's upper level) makes
    its width a Student-t interval's."""
    from scipy.stats import norm, t

    if k < 2:
        return bills
    q = (1 + LEVEL) / 2
    factor = np.sqrt(k / (k - 1)) * t.ppf(q, k - 1) / norm.ppf(q)
    return bills.mean() + factor * (bills - bills.mean())


def simulate(cases: list[TaskCase], draws: int = DRAWS, seed: int = 0, alpha: float = ALPHA) -> np.ndarray:
    """(D,) USD of a set's pending calls per simulated race, summed over its datasets (``cases``), seeded. The cells'
    USD are the token model's as ``cases`` give them (a batch API's discount: ``budget.call_rows``)."""
    rng = np.random.default_rng([seed, 66])
    total = np.zeros(draws)
    for case in cases:
        total += task_bills(case, rng, draws, alpha)
    return total


def source_of(cases: list[TaskCase], tasks: list[str]) -> str:
    """Where the forecast's pass rates come from: ``PILOT``, ``PRIOR``, or which datasets have which."""
    piloted = [t for t, c in zip(tasks, cases) if c.pilot is not None]
    if len(piloted) == len(cases):
        return PILOT
    if not piloted:
        return PRIOR
    return f"{PILOT} of {', '.join(piloted)}; elsewhere the {PRIOR}"
