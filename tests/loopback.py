"""An HTTP server on 127.0.0.1 (never another address) on a thread of its own, for the provider stubs of the
tests (``openai_stub``, ``fault_server``): ``with Server(...) as s: s.base_url`` is an OpenAI-style ``/v1`` base."""

from __future__ import annotations

import threading
from http.server import ThreadingHTTPServer


class LoopbackServer:
    """Serves ``handler`` on 127.0.0.1:``port`` (0: any free port) with ``server_class`` while in a ``with`` block."""

    def __init__(self, handler, port: int = 0, server_class: type[ThreadingHTTPServer] = ThreadingHTTPServer):
        self.httpd = server_class(("127.0.0.1", port), handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
