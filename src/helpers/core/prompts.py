"""The paper's prompts, exactly as its reference code sends them (one user message each).

Both are the reference's ``textwrap.dedent`` templates (mhamzaerol/Cost-of-Pass,
``testtime/basic.py``): note the leading and trailing newline. ``PROMPT_VERSION`` names them in
record fingerprints, so changing a prompt makes new calls instead of reusing old records.
"""

from __future__ import annotations

import hashlib
import json

PAPER_PROMPT = (
    "\nPlease solve the following question. You can explain your solution before presenting the final answer.\n"
    "\nFormat your final answer as:\n\n<answer>\n...\n</answer>\n\nInstructions:\n"
    "- For multiple-choice: Give only the letter (e.g., (A)).\n"
    "- For numeric: Give only the number (e.g., 42).\n"
    "- For free-response: Provide the full final answer text.\n\nINPUT:\n'''\n{input}\n'''\n"
)

# Self-refine (Madaan et al., 2023) as the reference runs it: one fresh user message that shows the
# question and the first response and asks for a verified, rewritten answer.
REFINE_PROMPT = (
    "\nReview the response below. First, verify the explanation and final answer. If incorrect, fix them.\n"
    "\nThen, rewrite the explanation to be clearer, more concise, and logically sound.\n"
    "\nFormat:\n\n<answer>\n...\n</answer>\n\nInstructions:\n"
    "- Multiple-choice: Only the letter (e.g., (A))\n"
    "- Numeric: Only the number (e.g., 42)\n"
    "- Free-response: Full final answer text\n"
    "\nINPUT:\n'''\n{input}\n'''\n\nRESPONSE:\n'''\n{response}\n'''\n\nYOUR REFINEMENT:\n"
)


def solve_messages(question: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": PAPER_PROMPT.format(input=question)}]


def refine_messages(question: str, response: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": REFINE_PROMPT.format(input=question, response=response)}]


def messages_hash(messages: list[dict[str, str]]) -> str:
    """sha256 of the messages (hex, 16 chars): identifies a prompt in records without storing it."""
    return hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).hexdigest()[:16]


def template_hash(*templates: str) -> str:
    """sha256 (hex, 16 chars) of prompt templates: part of a record's fingerprint."""
    return hashlib.sha256("\x00".join(templates).encode()).hexdigest()[:16]
