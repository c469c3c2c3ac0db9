"""A deterministic OpenAI-compatible chat server on 127.0.0.1 for end-to-end tests.

It answers "What is a + b?" questions inside the paper prompt: correctly, except when
(a + b) % 5 == 0 (then a + b + 1, a wrong answer); a code task whose prompt holds ``def f(a, b)`` gets a function
``f`` returning a + b. The first request for a prompt answers 429
when a % 3 == 0 and 500 when a % 7 == 0 (a % 3 != 0); a retry succeeds. The model
``always-500`` always fails. It checks the bearer key, counts requests, and can delay answers.
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from loopback import LoopbackServer

QUESTION = re.compile(r"What is (\d+) \+ (\d+)\?")


class StubState:
    def __init__(self, api_key: str, delay_s: float = 0.0):
        self.api_key = api_key
        self.delay_s = delay_s
        self.lock = threading.Lock()
        self.requests = 0
        self.completions = 0  # 200 answers
        self.seen: Counter[str] = Counter()
        self.bodies: list[dict] = []  # every request body received, in order
        self.arrivals: list[float] = []  # time.monotonic() of every request's arrival, in order


CODE_TASK = re.compile(r"def (\w+)\(a, b\)")


def answer_for(prompt: str) -> tuple[int, int, str]:
    m = QUESTION.search(prompt)
    if not m and (code := CODE_TASK.search(prompt)) and code.group(1) == "leak":  # a hostile program that knows the key
        hostile = ("import os\ndef leak(a, b):\n"
                   "    seen = [open(f'/proc/{p}/environ').read() for p in os.listdir('/proc') if p.isdigit()]\n"
                   "    if any(seen) or os.environ:\n        return a + b  # right only where it saw an environment\n"
                   "    raise ValueError(repr(seen) + repr(dict(os.environ)) + ' "
                   f"{os.environ.get('STUB_API_KEY', '')}')\n")
        return 0, 0, f"<answer>\n```python\n{hostile}```\n</answer>"
    if not m and (code := CODE_TASK.search(prompt)):  # a code task: always the sum, in a fenced block
        return 0, 0, (f"Here it is:\n```python\ndef {code.group(1)}(a, b):\n    return a + b\n```\n"
                      f"<answer>\n```python\ndef {code.group(1)}(a, b):\n    return a + b\n```\n</answer>")
    if not m:
        return 0, 0, "I cannot tell."
    a, b = int(m.group(1)), int(m.group(2))
    value = a + b + (1 if (a + b) % 5 == 0 else 0)
    return a, b, f"Adding the numbers: {a} + {b}. <answer>{value}</answer>"


def make_handler(state: StubState):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):  # keep test output clean
            pass

        def _send(self, status: int, body: dict):
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self):
            length = int(self.headers.get("Content-Length", 0))
            req = json.loads(self.rfile.read(length) or b"{}")
            with state.lock:
                state.requests += 1
                state.bodies.append(req)
                state.arrivals.append(time.monotonic())
            if self.headers.get("Authorization") != f"Bearer {state.api_key}":
                presented = (self.headers.get("Authorization") or "").removeprefix("Bearer ")
                # like some providers, echo the key presented: the client must redact it
                return self._send(401, {"error": {"message": f"Incorrect API key provided: {presented}",
                                                  "type": "invalid_request_error"}})
            prompt = "".join(m.get("content", "") for m in req.get("messages", []))
            a, _, text = answer_for(prompt)
            with state.lock:
                state.seen[prompt] += 1
                first = state.seen[prompt] == 1
            if req.get("model") == "always-500":
                return self._send(500, {"error": {"message": "server exploded", "type": "server_error"}})
            if first and a and a % 3 == 0:
                return self._send(429, {"error": {"message": "rate limited", "type": "rate_limit_error"}})
            if first and a and a % 7 == 0:
                return self._send(500, {"error": {"message": "internal error", "type": "server_error"}})
            if state.delay_s:
                time.sleep(state.delay_s)
            with state.lock:
                state.completions += 1
            prompt_tokens, completion_tokens = len(prompt.split()), len(text.split())
            self._send(200, {
                "id": f"chatcmpl-{state.completions}", "object": "chat.completion", "created": int(time.time()),
                "model": req.get("model"),
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                          "total_tokens": prompt_tokens + completion_tokens},
            })

    return Handler


class _Server(ThreadingHTTPServer):
    request_queue_size = 1024  # hundreds of clients connect at once in the throughput benchmark
    daemon_threads = True


class StubServer(LoopbackServer):
    """``with StubServer(key) as s: s.base_url``"""

    def __init__(self, api_key: str, delay_s: float = 0.0, port: int = 0):
        self.state = StubState(api_key, delay_s)
        super().__init__(make_handler(self.state), port, _Server)


if __name__ == "__main__":  # run standalone: python tests/openai_stub.py KEY PORT DELAY
    import sys

    server = StubServer(sys.argv[1], float(sys.argv[3]) if len(sys.argv) > 3 else 0.0, int(sys.argv[2]))
    print(server.base_url, flush=True)
    server.httpd.serve_forever()
