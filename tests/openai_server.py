"""A local OpenAI-compatible chat server for tests: stdlib ``http.server`` on loopback, each
real request recorded and answered by a function (a failed assertion in it answers 400)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["OpenAIServer", "openai_server"]

Respond = Callable[[dict[str, Any]], dict[str, Any]]


class _Handler(BaseHTTPRequestHandler):
    server: OpenAIServer

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with self.server.lock:
            self.server.requests.append((self.path, body))
            self.server.keys.append(self.headers.get("Authorization", ""))
        try:
            status, answer = 200, self.server.respond(body)
        except (AssertionError, KeyError) as error:
            status, answer = 400, {"error": {"message": repr(error), "type": "test"}}
        data = json.dumps(answer).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        """Keep the test output quiet."""


class OpenAIServer(ThreadingHTTPServer):
    """The server: ``requests`` holds (path, body) of every request, in order, and ``keys``
    the ``Authorization`` header each sent."""

    daemon_threads = True

    def __init__(self, respond: Respond) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.respond = respond
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.keys: list[str] = []
        self.lock = threading.Lock()

    @property
    def base_url(self) -> str:
        """The ``/v1`` address clients are pointed at."""
        return f"http://127.0.0.1:{self.server_port}/v1"


@contextmanager
def openai_server(respond: Respond) -> Iterator[OpenAIServer]:
    """The server, serving on a loopback port in a thread until the block ends."""
    httpd = OpenAIServer(respond)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield httpd
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()
