"""Human-expert cost per problem (the paper's Table 3 / Appendix A), kept as data.

``params/registry/expert_costs.yaml`` gives per dataset the qualification, an hourly rate range
(USD), minutes per question, the paper's printed USD (Table 3) and sources. The cost of one problem
is, by default, Table 3's printed value at the ``low`` or ``high`` bound (the paper and its reference
code use these, at ``high``); ``rule="derived"`` recomputes ``rate · minutes / 60`` (USD) instead.
A task without a printed value (not in the paper) always uses the derivation. The expert's
success rate is taken as 1.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from helpers.core.errors import CostOfPassError
from helpers.core.paths import repo_root, shown


class ExpertCost(BaseModel):
    model_config = ConfigDict(extra="forbid")
    qualification: str
    hourly_rate_usd: tuple[float, float] = Field(description="low, high (USD per hour)")
    minutes_per_question: float = Field(gt=0)
    published_usd: tuple[float, float] | None = Field(None, description="the paper's Table 3 (low, high), as printed")
    minutes_by_difficulty: dict[str, float] | None = Field(None, description="minutes per problem by the problem's "
                                                           "difficulty (its metadata "
                                                           "'difficulty'), where the task has one")
    sources: str

    @field_validator("hourly_rate_usd", "published_usd")
    @classmethod
    def _a_positive_range(cls, value: tuple[float, float] | None) -> tuple[float, float] | None:
        """A rate or a printed cost is a range (low, high) of positive USD: an expert who costs nothing, or is paid
        to answer, is no baseline (the fee is what every cost-of-pass falls back to)."""
        if value is not None and not (0 < value[0] <= value[1]):
            raise ValueError(f"must be [low, high] with 0 < low <= high (USD), got {list(value)}")
        return value

    @field_validator("minutes_by_difficulty")
    @classmethod
    def _positive_minutes(cls, value: dict[str, float] | None) -> dict[str, float] | None:
        if value and (bad := {k: v for k, v in value.items() if not v > 0}):
            raise ValueError(f"minutes must be more than 0, got {bad}")
        return value

    def minutes(self, difficulty: str | None = None) -> float:
        """Minutes of one problem: by its difficulty where the entry prices difficulties, else per question."""
        if self.minutes_by_difficulty and difficulty is not None:
            if difficulty not in self.minutes_by_difficulty:
                raise CostOfPassError(f"no expert minutes for difficulty {difficulty!r} (known: "
                                      f"{', '.join(self.minutes_by_difficulty)}) in {default_path().name}")
            return self.minutes_by_difficulty[difficulty]
        return self.minutes_per_question

    def derived_usd(self, bound: str = "high", difficulty: str | None = None) -> float:
        """Hourly rate at the bound x minutes (per question, or by ``difficulty``) / 60 (USD)."""
        rate = self.hourly_rate_usd[0 if bound == "low" else 1]
        return rate * self.minutes(difficulty) / 60.0

    def usd(self, bound: str = "high", rule: str = "printed", difficulty: str | None = None) -> float:
        """USD per problem: Table 3 as printed (``rule="printed"``, when the paper prints one), else derived."""
        if rule == "printed" and self.published_usd is not None:
            return float(self.published_usd[0 if bound == "low" else 1])
        return self.derived_usd(bound, difficulty)


def default_path() -> Path:
    return repo_root() / "params" / "registry" / "expert_costs.yaml"


GIVEN = "given by the set (expert_usd)"  # the qualification and sources of an expert a set prices itself


def given_expert(usd: float) -> ExpertCost:
    """The expert of a task whose set gives its fee (``Params.expert_usd``, USD per problem): that fee as printed and
    as derived (an hour at ``usd`` per hour)."""
    return ExpertCost(qualification=GIVEN, hourly_rate_usd=(usd, usd), minutes_per_question=60.0,
                      published_usd=(usd, usd), sources=f"{GIVEN}: {usd:g} USD per problem, the importer's own figure")


def load_expert_costs(path: Path | None = None, given: dict[str, float] | None = None) -> dict[str, ExpertCost]:
    """Every task's expert in the registry (``path``, default ``params/registry/expert_costs.yaml``), and those a set
    gives itself (``given``: task -> USD per problem, ``Params.expert_usd``), which win; an entry that is not one is
    one line naming the file, the task and the field."""
    if given:
        return {**load_expert_costs(path), **{t: given_expert(usd) for t, usd in given.items()}}
    path = path or default_path()
    data = yaml.safe_load(path.read_text()) or {}
    out = {}
    for task, entry in (data.get("experts") or {}).items():
        try:
            out[task] = ExpertCost.model_validate(entry)
        except ValidationError as err:
            e = err.errors()[0]
            field = ".".join(str(x) for x in e["loc"]) or "(entry)"
            raise CostOfPassError(f"{shown(path)}: expert '{task}': field '{field}': "
                                  f"{e['msg'].removeprefix('Value error, ')}") from None
    return out


def check_experts(tasks: list[str], source: str, given: dict[str, float] | None = None) -> None:
    """Before anything runs: the expert registry reads, and has an entry for each of ``tasks`` not in ``given`` (the
    set's own fees, ``Params.expert_usd``; one line if not, naming the file to edit)."""
    missing = [t for t in tasks if t not in load_expert_costs(given=given)]
    if missing:
        raise CostOfPassError(f"{source}: field 'tasks': no human-expert cost for {', '.join(missing)}; add an entry "
                              f"to {shown(default_path())}")


def expert_per_problem(index: pd.MultiIndex, bound: str = "high", costs: dict[str, ExpertCost] | None = None,
                       rule: str = "printed", difficulty: dict[tuple[str, str], str] | None = None,
                       given: dict[str, float] | None = None) -> pd.Series:
    """Expert USD per problem for an index of (task, problem_id) (``ExpertCost.usd(bound, rule)``); ``difficulty``:
    (task, problem_id) -> the problem's difficulty, for tasks whose entry prices difficulties; ``given``: the set's own
    fees (``Params.expert_usd``)."""
    costs = costs or load_expert_costs(given=given)
    tasks = index.get_level_values("task")
    missing = sorted(set(tasks) - set(costs))
    if missing:
        raise CostOfPassError(f"no human-expert cost for task(s) {', '.join(missing)} in {default_path().name}")
    level = difficulty or {}
    return pd.Series([costs[t].usd(bound, rule, level.get((t, p))) for t, p in index], index=index, name="expert_usd")


def difficulties(problems: dict[str, list]) -> dict[tuple[str, str], str]:
    """(task, problem_id) -> difficulty of the problems that carry one (``Problem.metadata["difficulty"]``)."""
    return {(p.task, p.problem_id): p.metadata["difficulty"] for ps in problems.values() for p in ps
            if "difficulty" in p.metadata}


def expert_table(tasks: list[str], bound: str = "high", rule: str = "printed",
                 given: dict[str, float] | None = None) -> pd.DataFrame:
    """Per dataset (its label): qualification, hourly rate (USD; a range only where it is one), minutes per
    question, the derived and the paper's USD per problem ("–" where the paper has none), the USD used and the
    sources."""
    from helpers.core.tasks import get_task

    costs = load_expert_costs(given=given)
    rows = []
    for t in tasks:
        e = costs[t]
        low, high = e.hourly_rate_usd
        paper = e.published_usd[0 if bound == "low" else 1] if e.published_usd else None
        rows.append({"dataset": get_task(t).label, "qualification": e.qualification,
                     "hourly rate (USD)": f"{low:g}" if low == high else f"{low:g}–{high:g}",
                     "minutes per question": (", ".join(f"{k}: {v:g}" for k, v in e.minutes_by_difficulty.items())
                                              if e.minutes_by_difficulty else f"{e.minutes_per_question:g}"),
                     f"derived USD ({bound} bound)": (", ".join(f"{e.derived_usd(bound, k):.4g}"
                                                                for k in e.minutes_by_difficulty)
                                                      if e.minutes_by_difficulty else f"{e.derived_usd(bound):.4g}"),
                     "paper's USD": "–" if paper is None else f"{paper:g}",
                     "USD used": (", ".join(f"{e.usd(bound, rule, k):.4g}" for k in e.minutes_by_difficulty)
                                  if e.minutes_by_difficulty else f"{e.usd(bound, rule):.4g}"), "sources": e.sources})
    return pd.DataFrame(rows)
