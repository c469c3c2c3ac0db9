"""A batch API server on 127.0.0.1 for the batch collection's tests: OpenAI's files and batches, and Anthropic's
message batches, answering as ``openai_stub`` does ("What is a + b?" -> the sum, wrong when it is a multiple of 5;
tokens: words of the prompt and of the reply).

Behaviour the tests control on ``BatchState``:
- ``hold``: while set, every batch stays ``in_progress`` (a run can be stopped with its batch pending);
- ``polls_to_end``: looks at a batch before it ends (default 1);
- ``faults``: kind -> predicate on a prompt's ``a``, applied to the first time a prompt is sent: ``server_error`` (a
  500 row: sent again), ``bad_request`` (a 400 row: final), ``expired`` (the row is not run; the batch ends
  ``expired``), ``missing`` (no row at all), ``no_usage`` (a 200 row without token counts: unusable);
- ``junk``: add an unreadable line, a line of an unknown custom_id and a repeat of the first row to every result file;
- ``fail_next``: that many next batches fail whole (OpenAI ``failed``: an input file refused);
- ``garble_creations``: that many next OpenAI batch creations succeed but reply with text that is not JSON.
It counts uploads and batch creations and keeps every request body received (``bodies``), and checks the key.
"""

from __future__ import annotations

import json
import re
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable

from loopback import LoopbackServer
from openai_stub import answer_for

FAULTS = ("server_error", "bad_request", "expired", "missing", "no_usage")


class BatchState:
    def __init__(self, api_key: str):
        self.api_key = api_key
        self.lock = threading.Lock()
        self.hold = threading.Event()
        self.polls_to_end = 1
        self.faults: dict[str, Callable[[int], bool]] = {}
        self.junk = False
        self.fail_next = 0
        self.garble_creations = 0  # that many next creations succeed but answer with text that is not JSON
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict] = {}
        self.uploads = 0
        self.creations = 0
        self.rows_run = 0  # rows answered (billed) over every batch
        self.sent: Counter[str] = Counter()  # prompt -> times sent in a batch
        self.bodies: list[bytes] = []

    def fault(self, prompt: str) -> str | None:
        """The fault of this prompt's first sending, if any."""
        self.sent[prompt] += 1
        m = re.search(r"What is (\d+) \+ (\d+)\?", prompt)
        if self.sent[prompt] > 1 or not m:
            return None
        return next((k for k in FAULTS if k in self.faults and self.faults[k](int(m.group(1)))), None)


def completion(body: dict) -> tuple[str, int, int]:
    """The reply text and token counts (prompt, completion) of a chat request's messages."""
    prompt = "".join(m.get("content", "") for m in body.get("messages", []))
    _, _, text = answer_for(prompt)
    return text, len(prompt.split()), len(text.split())


def openai_row(state: BatchState, line: dict) -> tuple[str | None, dict | None]:
    """(which file the row goes to: ``output`` / ``error`` / None for no row, the row)."""
    body = line["body"]
    text, prompt_tokens, completion_tokens = completion(body)
    fault = state.fault("".join(m.get("content", "") for m in body["messages"]))
    cid = line["custom_id"]
    if fault == "missing":
        return None, None
    if fault == "expired":
        return "error", {"id": "r", "custom_id": cid, "response": None,
                         "error": {"code": "batch_expired", "message": "This request could not be executed before the "
                                   "completion window expired."}}
    state.rows_run += 1
    if fault in ("server_error", "bad_request"):
        code = 500 if fault == "server_error" else 400
        return "output", {"id": "r", "custom_id": cid, "error": None, "response": {
            "status_code": code, "body": {"error": {"message": f"stub {fault}", "type": fault}}}}
    usage = {} if fault == "no_usage" else {"usage": {"prompt_tokens": prompt_tokens,
                                                      "completion_tokens": completion_tokens,
                                                      "total_tokens": prompt_tokens + completion_tokens}}
    reply = {"id": "chatcmpl-b", "object": "chat.completion", "model": body.get("model"),
             "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
             **usage}
    return "output", {"id": "r", "custom_id": cid, "error": None, "response": {"status_code": 200, "body": reply}}


def anthropic_row(state: BatchState, request: dict) -> dict | None:
    """A Message Batches result line, or None for no row."""
    params = request["params"]
    text, prompt_tokens, completion_tokens = completion(params)
    fault = state.fault("".join(m.get("content", "") for m in params["messages"]))
    cid = request["custom_id"]
    if fault == "missing":
        return None
    if fault == "expired":
        return {"custom_id": cid, "result": {"type": "expired"}}
    state.rows_run += 1
    if fault in ("server_error", "bad_request"):
        kind = "api_error" if fault == "server_error" else "invalid_request_error"
        return {"custom_id": cid, "result": {"type": "errored", "error": {"type": "error", "error": {
            "type": kind, "message": f"stub {fault}"}}}}
    usage = {} if fault == "no_usage" else {"input_tokens": prompt_tokens - 2, "output_tokens": completion_tokens,
                                            "cache_read_input_tokens": 2, "cache_creation_input_tokens": 0}
    return {"custom_id": cid, "result": {"type": "succeeded", "message": {
        "id": "msg", "type": "message", "role": "assistant", "model": params["model"],
        "content": [{"type": "text", "text": text}], "stop_reason": "end_turn", "usage": usage}}}


def _junk(rows: list[dict]) -> list[str]:
    return ["{not json", json.dumps({"custom_id": "cop-unknown", "result": {"type": "expired"},
                                     "response": None, "error": {"code": "x", "message": "y"}}),
            *([json.dumps(rows[0])] if rows else [])]


def end_openai(state: BatchState, batch: dict) -> None:
    """Run an OpenAI batch's rows: its output and error files, its final status."""
    if state.fail_next > 0:
        state.fail_next -= 1
        batch.update(status="failed", errors={"data": [{"code": "invalid", "message": "stub: the input is refused"}]})
        return
    files: dict[str, list[dict]] = {"output": [], "error": []}
    for line in state.files[batch["input_file_id"]].decode().splitlines():
        where, row = openai_row(state, json.loads(line))
        if where:
            files[where].append(row)
    for where, rows in files.items():
        lines = [json.dumps(r) for r in rows] + (_junk(rows) if state.junk and rows else [])
        if lines:
            fid = f"file-{where}-{batch['id']}"
            state.files[fid] = ("\n".join(lines) + "\n").encode()
            batch[f"{where}_file_id"] = fid
    expired = any(r["error"] and r["error"]["code"] == "batch_expired" for r in files["error"])
    batch["status"] = "expired" if expired else "completed"


def end_anthropic(state: BatchState, batch: dict) -> None:
    """Run an Anthropic batch's requests: its results, ``ended``."""
    rows = [r for r in (anthropic_row(state, q) for q in batch["requests"]) if r is not None]
    lines = [json.dumps(r) for r in rows] + (_junk(rows) if state.junk and rows else [])
    batch["results"] = ("\n".join(lines) + "\n").encode()
    batch["processing_status"] = "ended"


def make_handler(state: BatchState):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def _send(self, status: int, body: dict | bytes):
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _authorised(self) -> bool:
            ok = (self.headers.get("Authorization") == f"Bearer {state.api_key}"
                  or self.headers.get("x-api-key") == state.api_key)
            if not ok:
                self._send(401, {"error": {"message": "invalid key", "type": "authentication_error"}})
            return ok

        def do_POST(self):
            data = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            with state.lock:
                state.bodies.append(data)
                if not self._authorised():
                    return
                if self.path == "/v1/files":
                    return self._send(200, self._upload(data))
                if self.path == "/v1/batches":
                    made = self._create(json.loads(data))
                    if state.garble_creations > 0:
                        state.garble_creations -= 1
                        return self._send(200, b"<html>gateway</html>")
                    return self._send(200, made)
                if self.path == "/v1/messages/batches":
                    return self._send(200, self._create_anthropic(json.loads(data)))
            self._send(404, {"error": {"message": f"no route {self.path}"}})

        def _upload(self, data: bytes) -> dict:
            boundary = self.headers["Content-Type"].split("boundary=", 1)[1].strip('"').encode()
            parts = {}
            for part in data.split(b"--" + boundary)[1:-1]:
                head, _, body = part.partition(b"\r\n\r\n")
                parts[re.search(rb'name="(\w+)"', head).group(1)] = body.removesuffix(b"\r\n")
            assert parts[b"purpose"] == b"batch", "an upload says purpose=batch"
            content = parts[b"file"]
            state.uploads += 1
            fid = f"file-in-{state.uploads}"
            state.files[fid] = content
            return {"id": fid, "object": "file", "purpose": "batch", "bytes": len(content), "created_at": 1700000000,
                    "filename": "batch.jsonl", "status": "processed"}

        def _create(self, req: dict) -> dict:
            assert req["endpoint"] == "/v1/chat/completions" and req["completion_window"] == "24h"
            state.creations += 1
            batch = {"id": f"batch_{state.creations}", "object": "batch", "status": "validating", "polls": 0,
                     "input_file_id": req["input_file_id"], "endpoint": req["endpoint"], "errors": None,
                     "completion_window": "24h", "created_at": 1700000000}
            state.batches[batch["id"]] = batch
            return batch

        def _create_anthropic(self, req: dict) -> dict:
            state.creations += 1
            batch = {"id": f"msgbatch_{state.creations}", "type": "message_batch", "processing_status": "in_progress",
                     "polls": 0, "requests": req["requests"]}
            state.batches[batch["id"]] = batch
            return {k: v for k, v in batch.items() if k not in ("requests", "polls")}

        def do_GET(self):
            with state.lock:
                if not self._authorised():
                    return
                if self.path.startswith("/v1/batches?"):
                    return self._send(200, {"object": "list", "data": [self._shown(b) for b in state.batches.values()]})
                if m := re.fullmatch(r"/v1/(?:messages/)?batches/([\w-]+)", self.path):
                    return self._look(m.group(1))
                if m := re.fullmatch(r"/v1/files/([\w-]+)/content", self.path):
                    return self._send(200, state.files[m.group(1)])
                if m := re.fullmatch(r"/v1/messages/batches/([\w-]+)/results", self.path):
                    return self._send(200, state.batches[m.group(1)]["results"])
            self._send(404, {"error": {"message": f"no route {self.path}"}})

        def _look(self, batch_id: str):
            batch = state.batches.get(batch_id)
            if batch is None:
                return self._send(404, {"error": {"message": f"no batch {batch_id}"}})
            batch["polls"] += 1
            running = batch.get("status", batch.get("processing_status")) in ("validating", "in_progress")
            if running and not state.hold.is_set() and batch["polls"] >= state.polls_to_end:
                (end_anthropic if "requests" in batch else end_openai)(state, batch)
            elif running:
                batch["status" if "status" in batch else "processing_status"] = "in_progress"
            return self._send(200, self._shown(batch))

        @staticmethod
        def _shown(batch: dict) -> dict:
            return {k: v for k, v in batch.items() if k not in ("requests", "results", "polls")}

    return Handler


class _Server(ThreadingHTTPServer):
    daemon_threads = True


class BatchServer(LoopbackServer):
    """``with BatchServer(key) as s: s.base_url`` (``.../v1``: OpenAI's base; Anthropic's is the same host)."""

    def __init__(self, api_key: str, port: int = 0):
        self.state = BatchState(api_key)
        super().__init__(make_handler(self.state), port, _Server)


if __name__ == "__main__":  # run standalone: python tests/batch_stub.py KEY PORT
    import sys

    server = BatchServer(sys.argv[1], int(sys.argv[2]))
    print(server.base_url, flush=True)
    server.httpd.serve_forever()
