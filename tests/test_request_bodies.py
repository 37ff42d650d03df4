"""Request bodies: read only for a known caller, and only as JSON every part of cadre can store
and send back; anything else is a 422 that stores nothing and keeps the connection."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.exceptions import HTTPException

from framework.server._http import MAX_JSON_DEPTH, strict_json
from tests.served import Served, serve


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b'{"x": NaN}', "NaN is not a JSON number"),
        (b'{"x": -Infinity}', "-Infinity is not a JSON number"),
        (b'{"x": ' + b"9" * 5000 + b"}", "digit"),
        (b"[" * 2000 + b"]" * 2000, "nests deeper"),
        (b"[" * (MAX_JSON_DEPTH + 1) + b"]" * (MAX_JSON_DEPTH + 1), "nests deeper"),
        (b'{"x": "\\ud800"}', "lone surrogate"),
        (b'{"\\udfff": 1}', "lone surrogate"),
        (b'{"x": "\xff"}', "not UTF-8: invalid start byte at byte 7"),
        (b'{"x": ', "not JSON"),
    ],
)
def test_what_is_not_strict_json_is_a_422(raw: bytes, message: str) -> None:
    with pytest.raises(HTTPException) as refused:
        strict_json(raw)
    assert refused.value.status_code == 422
    assert message in str(refused.value.detail)


def test_strict_json_reads_what_clients_send() -> None:
    nested: object = "deep"
    for _ in range(MAX_JSON_DEPTH - 1):
        nested = [nested]
    body = {"q": "Grüße 🌍", "n": 10**100, "f": 1.5, "nested": nested, "none": None}

    assert strict_json(json.dumps(body).encode()) == body


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    with serve(tmp_path / "home", None, tokens={"ada": ("acme", "run,review")}) as server:
        yield server


def test_a_body_is_read_after_the_token_and_a_bad_one_stores_nothing(served: Served) -> None:
    deep = b'{"input": ' + b"[" * 1000 + b"]" * 1000 + b"}"
    with served.http() as anonymous:
        refused = anonymous.post("/threads/t/runs/wait", content=deep)
        assert refused.status_code == 401
    with served.http("ada") as http:
        for raw in (deep, b'{"metadata": {"x": NaN}}', b'{"thread_id": "\\ud800"}'):
            answer = http.post("/threads", content=raw)
            assert answer.status_code == 422, answer.text
        answer = http.put(
            "/store/items", content=b'{"namespace": ["a"], "key": "k", "value": {"x": NaN}}'
        )
        assert answer.status_code == 422, answer.text
        for label in ("a.b", "x/y", "nul\u0000", ".."):
            item = {"namespace": ["notes", label], "key": "k", "value": {"x": 1}}
            answer = http.put("/store/items", json=item)
            assert answer.status_code == 422 and "namespace" in answer.text, answer.text
        assert http.post("/threads/search", json={}).json() == []
        assert http.post("/store/items/search", json={"namespace_prefix": ["a"]}).status_code == 200
        assert http.post("/store/namespaces", json={}).json() == {"namespaces": []}


def test_a_server_without_tokens_answers_only_its_own_address_and_json(tmp_path: Path) -> None:
    with serve(tmp_path / "home", None) as served, served.http() as http:
        body = b'{"thread_id": "from-a-page"}'
        page_post = http.post("/threads", content=body, headers={"content-type": "text/plain"})
        assert page_post.status_code == 403 and "application/json" in page_post.text
        rebound = http.post("/threads", json={}, headers={"host": "attacker.example:8123"})
        assert rebound.status_code == 403 and "loopback" in rebound.text
        framed = http.post("/threads", json={}, headers={"origin": "http://localhost:1"})
        assert framed.status_code == 403
        assert http.post("/threads/search", json={}).json() == []
        own = http.post("/threads", json={"thread_id": "mine"})
        assert own.status_code == 200, own.text
        assert [t["thread_id"] for t in served.client().threads.search()] == ["mine"]


HOSTILE = {
    "not JSON": (b'{"question": ', -32700),
    "invalid UTF-8": (b'{"question": "\xff"}', -32700),
    "nested 20,000 deep": (b"[" * 20_000 + b"]" * 20_000, -32600),
    "a 5,000-digit number": (b'{"id": ' + b"9" * 5000 + b"}", -32600),
    "a lone surrogate": (b'{"question": "\\ud800"}', -32600),
    "NaN": (b'{"id": NaN}', -32600),
}
"""Bodies no door takes, with the JSON-RPC error code they get at a JSON-RPC door."""


def test_every_door_refuses_a_hostile_body_the_same_way_in_its_own_shape(served: Served) -> None:
    doors = {
        "/threads/t/runs/wait": None,  # LangGraph's API: 422 and a one-line detail
        "/agui/research": None,  # AG-UI: the same
        "/a2a/research": 200,  # A2A: a JSON-RPC error, as a2a-sdk answers one
        "/mcp": 400,  # MCP: a JSON-RPC error, as the MCP SDK answers one
    }
    with served.http("ada") as http:
        for door, rpc_status in doors.items():
            for name, (raw, code) in HOSTILE.items():
                answer = http.post(door, content=raw, headers={"content-type": "application/json"})
                said = answer.json()
                if rpc_status is None:
                    assert answer.status_code == 422, (door, name, answer.text)
                    detail = said["detail"]
                else:
                    assert answer.status_code == rpc_status, (door, name, answer.text)
                    assert said["jsonrpc"] == "2.0" and said["id"] is None, (door, name)
                    assert said["error"]["code"] == code, (door, name, said)
                    detail = said["error"]["message"]
                assert detail.startswith("the body ") and "\n" not in detail, (door, name)
        run = {"assistant_id": "research", "input": {"question": "q"}, "if_not_exists": "create"}
        answer = http.post(f"/threads/{'t' * 129}/runs/wait", json=run)
        assert answer.status_code == 422 and "1 to 128 characters" in answer.text
        arguments = {"question": "q", "thread_id": "t" * 100_000}
        call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "research", "arguments": arguments}}  # fmt: skip
        accept = {"accept": "application/json, text/event-stream"}
        answer = http.post("/mcp", json=call, headers=accept)
        assert "1 to 128 characters" in answer.text, answer.text
    assert served.client("ada").threads.search() == []  # nothing was stored
    assert served.log is not None and "Traceback" not in served.log.read_text()
