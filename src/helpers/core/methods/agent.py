"""Agent strategies of "AI Agents That Matter" (Kapoor, Stroebl et al., 2024), as inference-time techniques whose
attempts are imported (``collect.imports.agent_evals``): this project does not run their loops itself. One attempt
is one imported record holding every call the agent made; its cost is the sum of its calls, each at its own model's
price (``grade.stage``), so an escalation's cheap first calls and expensive last ones are both billed.

- ``retry_k<N>``: call again while the solution fails the problem's public tests, at most N calls ("Retry").
- ``warming_k<N>``: the same with the temperature rising on each retry, at most N calls ("Warming").
- ``escalation_<name>``: start with a cheap model and move to a stronger one after each failure of the public
  tests ("Escalation"), the strategy's model being the last of the cascade; ``<name>`` names the cascade.
- ``ldb``: LDB, the "LLM Debugger" (Zhong et al., 2024): the model's own single attempt (its ``simple`` run of the
  same number) debugged by the same model against the public tests, at most 10 iterations; its cost is the seed's
  call plus the debugging calls.
- ``ldb_seed_<name>``: LDB with another model's single attempt as the seed (``<name>`` names the seeding model),
  debugged by the strategy's model; the seed's call is billed at the seeding model's price.
"""

from __future__ import annotations

from helpers.core.methods.base import Method, register

AGENT = "recorded agent runs ('AI Agents That Matter', 2024)"

register(r"retry_k(?P<k>[1-9]\d*)", "retry_k5", lambda m: Method(
    m.group(0), collected_calls=1, billed_calls=1,
    recorded_by_others=f"retry while the public tests fail, at most {m['k']} calls; {AGENT}"))
register(r"warming_k(?P<k>[1-9]\d*)", "warming_k5", lambda m: Method(
    m.group(0), collected_calls=1, billed_calls=1,
    recorded_by_others=f"retry with rising temperature while the public tests fail, at most {m['k']} calls; {AGENT}"))
register(r"escalation_(?P<name>[a-z0-9_]+)", "escalation_llama3", lambda m: Method(
    m.group(0), collected_calls=1, billed_calls=1,
    recorded_by_others=f"escalation from cheaper models ({m['name']}) while the public tests fail; {AGENT}"))
register(r"ldb", "ldb", lambda m: Method(
    "ldb", collected_calls=1, billed_calls=1,
    recorded_by_others=f"LDB: the model's own single attempt debugged against the public tests (at most 10 "
                       f"iterations); {AGENT}"))
register(r"ldb_seed_(?P<name>[a-z0-9_]+)", "ldb_seed_gpt4", lambda m: Method(
    m.group(0), collected_calls=1, billed_calls=1,
    recorded_by_others=f"LDB on another model's single attempt ({m['name']}), debugged by this model; {AGENT}"))
