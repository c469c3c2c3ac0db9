"""A fault-injecting OpenAI-compatible chat server on 127.0.0.1, for the collector's tests.

It answers "What is a + b?" questions (correctly, except when (a + b) % 5 == 0). With ``faults``
on, the first request for the k-th distinct prompt gets the fault ``FAULTS[k % len(FAULTS)]`` (so
any 12 prompts see every fault); a later request for the same prompt is answered normally. One
prompt in 10, by its hash, gets a long reply (≈40 KB) every time, with or without faults, so a
fault-free run is the same data.

Every 200 the server sends is logged as ``Served(prompt_hash, kind, prompt_tokens, completion_tokens)``
(``None`` where it reported no count); a reply to a timed-out request is logged as ``timeout``.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from collections import Counter
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from loopback import LoopbackServer

QUESTION = re.compile(r"What is (\d+) \+ (\d+)\?")
FAULTS = ["ok", "429", "malformed", "500", "empty_choices", "503", "no_usage", "timeout", "partial_usage",
          "ok", "surrogate", "ok"]
UNUSABLE = {"malformed", "empty_choices", "no_usage", "partial_usage", "surrogate"}


@dataclass(frozen=True)
class Served:
    prompt_hash: str
    kind: str
    prompt_tokens: int | None
    completion_tokens: int | None


def prompt_hash(messages: list[dict]) -> str:
    """The collector's ``messages_hash`` of the request's messages."""
    plain = [{"role": m.get("role"), "content": m.get("content")} for m in messages]
    return hashlib.sha256(json.dumps(plain, sort_keys=True).encode()).hexdigest()[:16]


def too_long(h: str) -> bool:
    return int(h, 16) % 10 == 0


def reply_text(prompt: str, long: bool) -> str:
    m = QUESTION.search(prompt)
    if not m:
        return "I cannot tell. <answer>0</answer>"
    a, b = int(m.group(1)), int(m.group(2))
    value = a + b + (1 if (a + b) % 5 == 0 else 0)
    padding = "Let me think about this very carefully. " * 1000 if long else ""
    return f"{padding}Adding {a} and {b}. <answer>{value}</answer>"


class FaultState:
    def __init__(self, faults: bool = True, timeout_sleep_s: float = 1.5, usage_factor: float = 1.0,
                 delay_s: float = 0.0, api_key: str | None = None):
        self.faults = faults
        self.api_key = api_key  # when set, another key gets a 401 that echoes it, as some providers do
        self.timeout_sleep_s = timeout_sleep_s
        self.usage_factor = usage_factor  # reported tokens x this (a budget test's "real usage")
        self.delay_s = delay_s
        self.lock = threading.Lock()
        self.visits: Counter[str] = Counter()
        self.served: list[Served] = []
        self.requests = 0
        self.started_at: list[float] = []  # arrival time of each chat request


def make_handler(state: FaultState):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def _raw(self, status: int, data: bytes):
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def _error(self, status: int, message: str):
            self._raw(status, json.dumps({"error": {"message": message, "type": "server_error"}}).encode())

        def do_POST(self):
            length = int(self.headers.get("Content-Length", 0))
            req = json.loads(self.rfile.read(length) or b"{}")
            messages = req.get("messages", [])
            h = prompt_hash(messages)
            prompt = "".join(m.get("content") or "" for m in messages)
            with state.lock:
                state.requests += 1
                state.started_at.append(time.monotonic())
                first = state.visits[h] == 0
                state.visits[h] += 1
                presented = (self.headers.get("Authorization") or "").removeprefix("Bearer ")
            if state.api_key and presented != state.api_key:
                return self._error(401, f"Incorrect API key provided: {presented}")
            kind = FAULTS[len(state.visits) % len(FAULTS)] if first and state.faults else "ok"
            if kind == "ok" and too_long(h):
                kind = "too_long"
            if state.delay_s:
                time.sleep(state.delay_s)
            if kind == "429":
                return self._error(429, "rate limited")
            if kind in ("500", "503"):
                return self._error(int(kind), "temporarily unavailable")
            text = reply_text(prompt, long=kind == "too_long")
            pt = max(1, round(len(prompt.split()) * state.usage_factor))
            ct = max(1, round(len(text.split()) * state.usage_factor))
            usage = {"prompt_tokens": pt, "completion_tokens": ct, "total_tokens": pt + ct}
            choice = {"index": 0, "message": {"role": "assistant", "content": text},
                      "finish_reason": "length" if kind == "too_long" else "stop"}
            body = {"id": "chatcmpl-x", "object": "chat.completion", "created": 1, "model": req.get("model"),
                    "choices": [choice], "usage": usage}
            if kind == "timeout":
                time.sleep(state.timeout_sleep_s)
                with state.lock:
                    state.served.append(Served(h, "timeout", pt, ct))
                return self._raw(200, json.dumps(body).encode())
            reported = (pt, ct)
            if kind == "empty_choices":
                body["choices"] = []
            elif kind == "no_usage":
                choice["message"]["content"] = ""
                del body["usage"]
                reported = (None, None)
            elif kind == "partial_usage":
                body["usage"] = {"completion_tokens": ct}
                reported = (None, ct)
            elif kind == "surrogate":
                choice["message"]["content"] = "broken \ud800 text " + text
            data = json.dumps(body).encode()
            if kind == "malformed":
                data = data[: len(data) // 2]
            with state.lock:
                state.served.append(Served(h, kind, *reported))
            self._raw(200, data)

    return Handler


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):  # a client killed mid-request resets its connection
        pass


class FaultServer(LoopbackServer):
    """``with FaultServer() as s: s.base_url``"""

    def __init__(self, **state_args):
        self.state = FaultState(**state_args)
        super().__init__(make_handler(self.state), server_class=_QuietServer)
