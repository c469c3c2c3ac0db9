"""The paper's prompt (Appendix B) and the self-refine prompt, as chat messages."""

from __future__ import annotations

import hashlib
import json

PAPER_PROMPT = (
    "Please solve the following question. You can explain your solution before presenting the final "
    "answer. Format your final answer as: <answer> ... </answer> Instructions: - For multiple-choice: "
    "Give only the letter (e.g., (A)). - For numeric: Give only the number (e.g., 42). - For "
    "free-response: Provide the full final answer text. INPUT: '''\n{input}\n'''"
)

# Self-refine (Madaan et al., 2023) in the paper's setting: one generation, then one call that sees
# the question and that response and returns a revised final answer. The wording is ours.
REFINE_PROMPT = (
    "Here is a question and a previous response to it. Check the response step by step for errors, "
    "then give your own final answer, corrected if needed. Format your final answer as: "
    "<answer> ... </answer> Instructions: - For multiple-choice: Give only the letter (e.g., (A)). "
    "- For numeric: Give only the number (e.g., 42). - For free-response: Provide the full final "
    "answer text. QUESTION: '''\n{input}\n''' PREVIOUS RESPONSE: '''\n{response}\n'''"
)


def solve_messages(question: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": PAPER_PROMPT.format(input=question)}]


def refine_messages(question: str, response: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": REFINE_PROMPT.format(input=question, response=response)}]


def messages_hash(messages: list[dict[str, str]]) -> str:
    """sha256 of the messages (hex, 16 chars): identifies a prompt in records without storing it."""
    return hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).hexdigest()[:16]
