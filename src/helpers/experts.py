"""Human-expert cost per problem (the paper's Table 3 / Appendix A), kept as data.

``params/registry/expert_costs.yaml`` gives per dataset the qualification, an hourly rate range
(USD), minutes per question, and sources. The cost of one problem is ``rate · minutes / 60`` (USD),
at the ``low`` or ``high`` end of the rate range (the paper uses ``high``); the expert's
success rate is taken as 1.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import yaml
from pydantic import BaseModel, ConfigDict, Field

from .errors import CostOfPassError
from .paths import repo_root


class ExpertCost(BaseModel):
    model_config = ConfigDict(extra="forbid")
    qualification: str
    hourly_rate_usd: tuple[float, float] = Field(description="low, high (USD per hour)")
    minutes_per_question: float = Field(gt=0)
    published_usd: tuple[float, float] | None = Field(None, description="the paper's Table 3 (low, high), as printed")
    sources: str

    def usd(self, bound: str = "high") -> float:
        rate = self.hourly_rate_usd[0 if bound == "low" else 1]
        return rate * self.minutes_per_question / 60.0


def default_path() -> Path:
    return repo_root() / "params" / "registry" / "expert_costs.yaml"


def load_expert_costs(path: Path | None = None) -> dict[str, ExpertCost]:
    path = path or default_path()
    data = yaml.safe_load(path.read_text()) or {}
    return {k: ExpertCost.model_validate(v) for k, v in (data.get("experts") or {}).items()}


def expert_per_problem(index: pd.MultiIndex, bound: str = "high", costs: dict[str, ExpertCost] | None = None) -> pd.Series:
    """Expert USD per problem for an index of (task, problem_id)."""
    costs = costs or load_expert_costs()
    tasks = index.get_level_values("task")
    missing = sorted(set(tasks) - set(costs))
    if missing:
        raise CostOfPassError(f"no human-expert cost for task(s) {', '.join(missing)} in {default_path().name}")
    return pd.Series([costs[t].usd(bound) for t in tasks], index=index, name="expert_usd")


def expert_table(tasks: list[str], bound: str = "high") -> pd.DataFrame:
    """The derivation per task: qualification, rate, minutes, derived and published USD."""
    costs = load_expert_costs()
    rows = []
    for t in tasks:
        e = costs[t]
        rows.append({"task": t, "qualification": e.qualification,
                     "hourly_rate_usd": f"{e.hourly_rate_usd[0]:g}-{e.hourly_rate_usd[1]:g}",
                     "minutes_per_question": e.minutes_per_question, f"usd_{bound}": round(e.usd(bound), 4),
                     "paper_usd": e.published_usd[0 if bound == "low" else 1] if e.published_usd else None,
                     "sources": e.sources})
    return pd.DataFrame(rows)
