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
from pydantic import BaseModel, ConfigDict, Field

from helpers.core.errors import CostOfPassError
from helpers.core.paths import repo_root


class ExpertCost(BaseModel):
    model_config = ConfigDict(extra="forbid")
    qualification: str
    hourly_rate_usd: tuple[float, float] = Field(description="low, high (USD per hour)")
    minutes_per_question: float = Field(gt=0)
    published_usd: tuple[float, float] | None = Field(None, description="the paper's Table 3 (low, high), as printed")
    sources: str

    def derived_usd(self, bound: str = "high") -> float:
        """Hourly rate at the bound x minutes per question / 60 (USD)."""
        rate = self.hourly_rate_usd[0 if bound == "low" else 1]
        return rate * self.minutes_per_question / 60.0

    def usd(self, bound: str = "high", rule: str = "printed") -> float:
        """USD per problem: Table 3 as printed (``rule="printed"``, when the paper prints one), else derived."""
        if rule == "printed" and self.published_usd is not None:
            return float(self.published_usd[0 if bound == "low" else 1])
        return self.derived_usd(bound)


def default_path() -> Path:
    return repo_root() / "params" / "registry" / "expert_costs.yaml"


def load_expert_costs(path: Path | None = None) -> dict[str, ExpertCost]:
    path = path or default_path()
    data = yaml.safe_load(path.read_text()) or {}
    return {k: ExpertCost.model_validate(v) for k, v in (data.get("experts") or {}).items()}


def expert_per_problem(index: pd.MultiIndex, bound: str = "high", costs: dict[str, ExpertCost] | None = None,
                       rule: str = "printed") -> pd.Series:
    """Expert USD per problem for an index of (task, problem_id) (``ExpertCost.usd(bound, rule)``)."""
    costs = costs or load_expert_costs()
    tasks = index.get_level_values("task")
    missing = sorted(set(tasks) - set(costs))
    if missing:
        raise CostOfPassError(f"no human-expert cost for task(s) {', '.join(missing)} in {default_path().name}")
    return pd.Series([costs[t].usd(bound, rule) for t in tasks], index=index, name="expert_usd")


def expert_table(tasks: list[str], bound: str = "high", rule: str = "printed") -> pd.DataFrame:
    """Per dataset (its label): qualification, hourly rate (USD; a range only where it is one), minutes per
    question, the derived and the paper's USD per problem ("–" where the paper has none), the USD used and the
    sources."""
    from helpers.core.tasks import get_task

    costs = load_expert_costs()
    rows = []
    for t in tasks:
        e = costs[t]
        low, high = e.hourly_rate_usd
        paper = e.published_usd[0 if bound == "low" else 1] if e.published_usd else None
        rows.append({"dataset": get_task(t).label, "qualification": e.qualification,
                     "hourly rate (USD)": f"{low:g}" if low == high else f"{low:g}–{high:g}",
                     "minutes per question": f"{e.minutes_per_question:g}",
                     f"derived USD ({bound} bound)": f"{e.derived_usd(bound):.4g}",
                     "paper's USD": "–" if paper is None else f"{paper:g}",
                     "USD used": f"{e.usd(bound, rule):.4g}", "sources": e.sources})
    return pd.DataFrame(rows)
