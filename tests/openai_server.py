"""A local OpenAI-compatible chat server for tests: stdlib ``http.server`` on loopback, each
real request recorded and answered by a function (a failed assertion in it answers 400).

The function answers a body (200), or a :class:`Reply` to misbehave as real providers do: another
status, headers (``Retry-After``), a stall before answering. A request with ``stream: true`` is
answered as the OpenAI API streams (server-sent events over a chunked body: the text a few
characters a chunk, each tool call, the finish, the usage when ``stream_options`` asks for it,
``[DONE]``); a reply can pause before each chunk, or cut the stream after some chunks (the
connection dropped, or the body ended early but cleanly)."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["OpenAIServer", "Reply", "openai_server", "stream_events"]


@dataclass(frozen=True)
class Reply:
    """An answer other than a plain 200: its status, body, headers, and seconds to stall first."""

    status: int = 200
    body: dict[str, Any] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    stall_s: float = 0.0
    chunk_s: float = 0.0
    """Seconds to pause before each chunk of a stream."""
    cut_after: int | None = None
    """Chunks of a stream sent before it is cut (None: it is not)."""
    cut_cleanly: bool = False
    """Whether a cut stream's body ends properly (else the connection drops mid-body)."""


Respond = Callable[[dict[str, Any]], "dict[str, Any] | Reply"]


class _Handler(BaseHTTPRequestHandler):
    server: OpenAIServer
    protocol_version = "HTTP/1.1"

    def setup(self) -> None:
        """Send each write at once (no Nagle delay), as a provider's streaming server does."""
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def handle_one_request(self) -> None:
        """One request; a client that hung up between requests ends the connection quietly."""
        try:
            super().handle_one_request()
        except ConnectionResetError:
            self.close_connection = True

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
        except Exception as error:  # a script run out (StopIteration): a server error, said
            answer = Reply(500, {"error": {"message": repr(error), "type": "test"}})
        reply = answer if isinstance(answer, Reply) else Reply(body=answer)
        time.sleep(reply.stall_s)
        if body.get("stream") and reply.status == 200:
            self._stream(reply, bool((body.get("stream_options") or {}).get("include_usage")))
            return
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

    def _stream(self, reply: Reply, usage: bool) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        events = [*(json.dumps(e) for e in stream_events(reply.body, usage=usage)), "[DONE]"]
        try:
            for number, event in enumerate(events):
                if number == reply.cut_after:
                    self.close_connection = True
                    if reply.cut_cleanly:
                        self.wfile.write(b"0\r\n\r\n")
                    return
                time.sleep(reply.chunk_s)
                data = f"data: {event}\n\n".encode()
                self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                self.wfile.flush()
                with self.server.lock:
                    self.server.streamed.append((time.monotonic(), event))
            self.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def log_message(self, format: str, *args: Any) -> None:
        """Keep the test output quiet."""


def stream_events(completion: dict[str, Any], *, usage: bool) -> list[dict[str, Any]]:
    """A ``chat.completion`` body as the ``chat.completion.chunk`` events that stream it."""
    choice = completion["choices"][0]
    message = choice["message"]

    def event(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        shown = {"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}
        return {**_chunk_head(completion), "choices": [shown]}

    content = message.get("content") or ""
    events = [event({"role": "assistant", "content": ""})]
    events += [event({"content": content[at : at + 4]}) for at in range(0, len(content), 4)]
    for index, call in enumerate(message.get("tool_calls") or []):
        events.append(event({"tool_calls": [{"index": index, **call}]}))
    if message.get("refusal"):
        events.append(event({"refusal": message["refusal"]}))
    events.append(event({}, choice.get("finish_reason") or "stop"))
    if usage and completion.get("usage") is not None:
        events.append({**_chunk_head(completion), "choices": [], "usage": completion["usage"]})
    return events


def _chunk_head(completion: dict[str, Any]) -> dict[str, Any]:
    head = {key: completion.get(key) for key in ("id", "created", "model")}
    return {**head, "object": "chat.completion.chunk"}


class OpenAIServer(ThreadingHTTPServer):
    """The server: ``requests`` holds (path, body) of every request, in order, ``keys`` the
    ``Authorization`` header each sent, ``arrivals`` when each came (``time.monotonic``), and
    ``streamed`` each streamed event as it was sent (``time.monotonic``, its JSON)."""

    daemon_threads = True

    def __init__(self, respond: Respond) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.respond = respond
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.keys: list[str] = []
        self.arrivals: list[float] = []
        self.streamed: list[tuple[float, str]] = []
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
