"""``self_refine`` (Madaan et al., 2023, as the paper's reference code runs it): the vanilla call, then
one fresh call that shows the question and the first response and asks for a verified rewrite.
Both calls are collected and billed."""

from __future__ import annotations

from helpers.core.methods.base import Method, register
from helpers.core.prompts import PAPER_PROMPT, REFINE_PROMPT, refine_messages, solve_messages


class SelfRefine(Method):
    def messages(self, question: str, call: int, responses: dict[int, str]) -> list[dict[str, str]]:
        return solve_messages(question) if call == 0 else refine_messages(question, responses[call - 1])


register("self_refine", "self_refine",
         lambda m: SelfRefine("self_refine", collected_calls=2, billed_calls=2,
                              templates=(PAPER_PROMPT, REFINE_PROMPT)))
