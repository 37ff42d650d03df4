"""A local OpenAI-compatible chat server for tests: stdlib ``http.server`` on loopback, each
real request recorded and answered by a function (a failed assertion in it answers 400).

The function answers a body (200), or a :class:`Reply` to misbehave as real providers do: another
status, headers (``Retry-After``), a stall before answering."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["OpenAIServer", "Reply", "openai_server"]


@dataclass(frozen=True)
class Reply:
    """An answer other than a plain 200: its status, body, headers, and seconds to stall first."""

    status: int = 200
    body: dict[str, Any] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    stall_s: float = 0.0


Respond = Callable[[dict[str, Any]], "dict[str, Any] | Reply"]


class _Handler(BaseHTTPRequestHandler):
    server: OpenAIServer

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with self.server.lock:
            self.server.requests.append((self.path, body))
            self.server.arrivals.append(time.monotonic())
            self.server.keys.append(self.headers.get("Authorization", ""))
        try:
            answer = self.server.respond(body)
        except (AssertionError, KeyError) as error:
            answer = Reply(400, {"error": {"message": repr(error), "type": "test"}})
        reply = answer if isinstance(answer, Reply) else Reply(body=answer)
        time.sleep(reply.stall_s)
        data = json.dumps(reply.body).encode()
        try:
            self.send_response(reply.status)
            for name, value in {"Content-Type": "application/json", **reply.headers}.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up on a stall
            pass

    def log_message(self, format: str, *args: Any) -> None:
        """Keep the test output quiet."""


class OpenAIServer(ThreadingHTTPServer):
    """The server: ``requests`` holds (path, body) of every request, in order, ``keys`` the
    ``Authorization`` header each sent, and ``arrivals`` when each came (``time.monotonic``)."""

    daemon_threads = True

    def __init__(self, respond: Respond) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.respond = respond
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.keys: list[str] = []
        self.arrivals: list[float] = []
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
