"""Real Inspect logs, made here: a small Inspect task run with ``inspect_ai.eval`` against an OpenAI-compatible stub on
127.0.0.1 whose ``usage`` carries cached prompt tokens (``prompt_tokens_details.cached_tokens``) and reasoning tokens
(``completion_tokens_details.reasoning_tokens``).

Inspect's own OpenAI providers need ``openai>=3.4``, which the pinned litellm (``openai<3``) rules out in this
environment, so the model provider here is a small ``inspect_ai.model.ModelAPI`` (registered as ``stubopenai``) that
posts OpenAI chat completions to the stub with httpx and maps the reply's usage as Inspect's OpenAI provider does
(``inspect_ai/model/_openai.py``, ``model_output_from_openai``): ``input_tokens`` = prompt − cached − cache writes,
``input_tokens_cache_read`` = cached, ``output_tokens`` = completion (reasoning included), ``reasoning_tokens``. Nothing
connects anywhere but 127.0.0.1: the base URL is the stub's, the key a dummy.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler
from pathlib import Path

from loopback import LoopbackServer

QUESTION = re.compile(r"What is (\d+) \+ (\d+)\?")
DUMMY_KEY = "sk-dummy-inspect-stub"


def usage_for(model: str, a: int, b: int, k: int) -> dict:
    """The stub's usage of the ``k``-th reply (from 0) of ``model`` to the question a + b: the first reads nothing from
    the cache, later ones part of the prompt; reasoning tokens vary with the question and the model."""
    prompt = 40 + a % 7 + (5 if model.endswith("b") else 0)
    cached = 0 if k == 0 else 8 * (1 + (a + k) % 3)
    reasoning = 3 * (b % 5) + (10 if model.endswith("b") else 0)
    completion = 6 + reasoning + k % 2
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion,
            "prompt_tokens_details": {"cached_tokens": cached},
            "completion_tokens_details": {"reasoning_tokens": reasoning}}


def answer_for(model: str, a: int, b: int, k: int) -> str:
    """The ``k``-th answer of ``model``: model-a is wrong on every third question on its first two replies, model-b
    on every fourth on its first; both are wrong every time on a multiple of 11 (no model passes)."""
    wrong = (a % 3 == 0 and k < 2) if model.endswith("a") else (a % 4 == 0 and k < 1)
    return str(a + b + (1 if wrong or (a + b) % 11 == 0 else 0))


SEEN: Counter[tuple[str, str]] = Counter()  # (model, prompt) -> replies so far
LOCK = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):
        req = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        prompt = "".join(m.get("content") or "" for m in req.get("messages", []) if isinstance(m.get("content"), str))
        m = QUESTION.search(prompt)
        a, b = (int(m.group(1)), int(m.group(2))) if m else (0, 0)
        model = req.get("model", "")
        with LOCK:
            k = SEEN[(model, prompt)]
            SEEN[(model, prompt)] += 1
        body = {"id": "chatcmpl-stub", "object": "chat.completion", "created": int(time.time()), "model": model,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": answer_for(model, a, b, k)},
                             "finish_reason": "stop"}],
                "usage": usage_for(model, a, b, k)}
        ok = self.headers.get("Authorization") == f"Bearer {DUMMY_KEY}"
        data = json.dumps(body if ok else {"error": {"message": "bad key"}}).encode()
        self.send_response(200 if ok else 401)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def register_provider() -> None:
    """Register the ``stubopenai`` model API with Inspect (once per process)."""
    import httpx
    from inspect_ai.model import ChatCompletionChoice, ChatMessageAssistant, ModelAPI, ModelOutput, ModelUsage, modelapi

    @modelapi(name="stubopenai")
    class StubOpenAI(ModelAPI):
        def __init__(self, model_name, base_url=None, api_key=None, config=None, **model_args):
            super().__init__(model_name, base_url, api_key or DUMMY_KEY, [], config)

        async def generate(self, input, tools, tool_choice, config):
            messages = [{"role": m.role, "content": m.text} for m in input]
            async with httpx.AsyncClient() as client:
                reply = await client.post(f"{self.base_url}/chat/completions", timeout=30,
                                          headers={"Authorization": f"Bearer {self.api_key}"},
                                          json={"model": self.model_name, "messages": messages})
            reply.raise_for_status()
            data = reply.json()
            u = data["usage"]
            cached = u["prompt_tokens_details"]["cached_tokens"]
            usage = ModelUsage(input_tokens=u["prompt_tokens"] - cached, output_tokens=u["completion_tokens"],
                               input_tokens_cache_read=cached, total_tokens=u["total_tokens"],
                               reasoning_tokens=u["completion_tokens_details"]["reasoning_tokens"])
            text = data["choices"][0]["message"]["content"]
            return ModelOutput(model=self.model_name, usage=usage, choices=[ChatCompletionChoice(
                message=ChatMessageAssistant(content=text, model=self.model_name), stop_reason="stop")])

    return StubOpenAI


def questions(n: int) -> list[tuple[int, int]]:
    return [(10 + 3 * i, 20 + (7 * i) % 13) for i in range(n)]


def make_logs(log_dir: Path, n: int = 24, epochs: int = 4, models=("model-a", "model-b"),
              formats=("eval", "json"), costs: dict | None = None) -> list[Path]:
    """Run the task (``n`` samples x ``epochs``, exact match) once per model against the stub; one log each, in the
    formats given in turn. ``costs``: model -> (input, cached input, output) USD per 1M tokens, given to Inspect so its
    log carries ``total_cost`` for that model. Returns the logs' paths."""
    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelCost, ModelInfo, set_model_info
    from inspect_ai.scorer import match
    from inspect_ai.solver import generate

    register_provider()
    task = Task(dataset=[Sample(input=f"What is {a} + {b}?", target=str(a + b), id=f"q{i:02d}")
                         for i, (a, b) in enumerate(questions(n))],
                solver=generate(), scorer=match(numeric=True), name="addition")
    out = []
    SEEN.clear()
    with LoopbackServer(Handler) as server:
        for model, fmt in zip(models, formats):
            rates = (costs or {}).get(model)
            if rates:  # Inspect prices only the models its database (or this) knows
                set_model_info(f"stubopenai/{model}", ModelInfo(organization="stub", context_length=8192))
            priced = {f"stubopenai/{model}": ModelCost(input=rates[0], input_cache_read=rates[1], output=rates[2],
                                                       input_cache_write=rates[0])} if rates else None
            logs = eval(task, model=f"stubopenai/{model}", epochs=epochs, log_dir=str(log_dir), log_format=fmt,
                        display="none", max_connections=8, model_cost_config=priced,
                        model_base_url=server.base_url)  # this server's (Inspect keeps a model's client per URL)
            assert logs[0].status == "success", logs[0].error
            out.append(Path(logs[0].location))
    return out
