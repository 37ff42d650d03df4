"""The checkpoint reader the commands that show threads open (``framework.persistence.reader``):
its serializer reads every frame LangGraph's reads, with a ``Send``, an ``Interrupt`` and any
class that is not cadre's or the standard library's in its stored form, and it imports none of
LangGraph's runtime. ``tests/test_fast_show.py`` reads threads of every kind both ways."""

from __future__ import annotations

import dataclasses
import enum
import json
import re
import subprocess
import sys
from collections import deque
from datetime import UTC, date, datetime, time, timedelta, timezone
from decimal import Decimal
from ipaddress import IPv4Address
from pathlib import Path
from typing import Any
from uuid import UUID

import ormsgpack
import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langgraph.checkpoint.serde._msgpack import SAFE_MSGPACK_TYPES
from langgraph.types import Interrupt, Send

from framework.engine.records import Plan, Task
from framework.errors import ConfigError
from framework.persistence._stored import STANDARD_TYPES
from framework.persistence.checkpointer import default_serializer
from framework.persistence.reader import StoredFormSerializer, StoredInterrupt, StoredSend
from framework.review.records import AuditEntry
from tests.test_cli_daily import RUNTIME, loaded


class Color(enum.Enum):
    RED = "red"


@dataclasses.dataclass
class Point:
    x: int
    y: int


def stored_form(value: Any) -> Any:
    """``value`` as LangGraph's serializer reads it, put as a reader reads it: a ``Send`` and an
    ``Interrupt`` as their stored forms, a LangChain message and LangGraph's other types (a
    ``TimeoutPolicy``) as their fields."""
    if isinstance(value, Send):
        return StoredSend(value.node, stored_form(value.arg), stored_form(value.timeout))
    if isinstance(value, Interrupt):
        return StoredInterrupt(stored_form(value.value), value.id, value.response_schema)
    if isinstance(value, BaseMessage):
        return value.model_dump()
    if dataclasses.is_dataclass(value) and type(value).__module__.startswith("langgraph"):
        value = {field.name: getattr(value, field.name) for field in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {key: stored_form(item) for key, item in value.items()}
    if isinstance(value, list) or type(value) is tuple:
        return type(value)(stored_form(item) for item in value)
    return value


TASK = Task(id="q0", description="How do workers retry?")
AUDIT = AuditEntry(
    request_id="r1", request_kind="plan", decision_kind="approve", reviewer="alice", at="now"
)
SAMPLES: dict[str, Any] = {
    "none": None,
    "bytes": b"\x00\x01",
    "bytearray": bytearray(b"ab"),
    "scalars": {"text": "a", "number": 1.5, "list": [1, "b", None], "tuple": (1, 2)},
    "datetime": datetime(2026, 11, 27, 9, 24, 10, tzinfo=UTC),
    "date": date(2026, 1, 31),
    "time": time(14, 5, 9),
    "timedelta": timedelta(days=2, seconds=3),
    "timezone": timezone(timedelta(hours=2)),
    "uuid": UUID("12345678123456781234567812345678"),
    "decimal": Decimal("1.25"),
    "sets": [{1, 2}, frozenset({"a"}), deque([3, 4])],
    "path": Path("/tmp/corpus/a.md"),
    "pattern": re.compile("retr(y|ies)", re.IGNORECASE),
    "address": IPv4Address("127.0.0.1"),
    "records": {"q0": TASK, "plan": Plan(goal="retries", tasks=[TASK]), "audit": [AUDIT]},
    "messages": [HumanMessage("How?", id="h1"), AIMessage("Like this.", id="a1")],
    "send": Send("worker", {"task": TASK}),
    "sends": [Send("worker", {"task": TASK}), Send("worker", {"task": TASK}, timeout=5.0)],
    "interrupt": [Interrupt({"kind": "plan", "allowed": ["approve"]}, id="abc")],
    "outside the allowlist": [Color.RED, Point(1, 2)],
}


@pytest.mark.parametrize("name", SAMPLES)
def test_the_stored_form_serializer_reads_what_langgraph_reads(name: str) -> None:
    serde = default_serializer()
    frame = serde.dumps_typed(SAMPLES[name])
    assert StoredFormSerializer().loads_typed(frame) == stored_form(serde.loads_typed(frame))


def test_a_send_and_an_interrupt_are_read_in_their_stored_form() -> None:
    serde = default_serializer()
    read = StoredFormSerializer().loads_typed(serde.dumps_typed(SAMPLES["send"]))
    assert read == StoredSend("worker", {"task": TASK})
    [interrupt] = StoredFormSerializer().loads_typed(serde.dumps_typed(SAMPLES["interrupt"]))
    assert (interrupt.value["kind"], interrupt.id) == ("plan", "abc")
    assert StoredFormSerializer().loads_typed(serde.dumps_typed(SAMPLES["messages"]))[1][
        "content"
    ] == ("Like this.")


def test_a_frame_it_does_not_know_is_read_by_langgraphs_serializer() -> None:
    """An ``Interrupt`` of an older shape (LangGraph works its id out of its namespace) and a
    JSON frame are read by LangGraph's serializer, as the saver reads them."""
    old = ("langgraph.types", "Interrupt", {"value": "ok?", "ns": ["plan:1"], "when": "during"})
    frame = ("msgpack", ormsgpack.packb([ormsgpack.Ext(2, ormsgpack.packb(old))]))
    [read] = StoredFormSerializer().loads_typed(frame)
    assert type(read) is Interrupt
    assert read == default_serializer().loads_typed(frame)[0]
    plain = ("json", json.dumps({"a": [1, 2]}).encode())
    assert StoredFormSerializer().loads_typed(plain) == {"a": [1, 2]}


def test_the_stored_form_serializer_writes_nothing() -> None:
    with pytest.raises(ConfigError, match="only reads"):
        StoredFormSerializer().dumps_typed({"a": 1})


def test_the_standard_types_are_the_standard_library_part_of_langgraphs_safe_list() -> None:
    """Checked against LangGraph's list (a private module of it, read in this test only), so an
    upgrade that revives another type of the standard library is noticed."""
    theirs = {kind for kind in SAFE_MSGPACK_TYPES if not kind[0].startswith("lang")}
    assert theirs == STANDARD_TYPES


def test_importing_the_reader_imports_no_langchain_and_no_langgraph_runtime() -> None:
    probe = (
        "import json, sys\n"
        "import framework.persistence.reader, framework.runs.stores\n"
        "import framework.retention.pruning, framework.retention.snapshot\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True
    )
    assert not loaded(set(json.loads(done.stdout)), RUNTIME)
