"""A team's schemas as JSON Schema (every key of its state typed; the keys a run's input must
hold ``required``), and the check of a run's input against them before the run is recorded."""

from __future__ import annotations

import threading
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import BaseMessage
from langgraph.graph.state import CompiledStateGraph
from langgraph.pregel.protocol import PregelProtocol
from pydantic import TypeAdapter, ValidationError
from starlette.exceptions import HTTPException

from framework.runs.gate import Caller
from framework.runs.launch import LaunchRequest
from framework.runs.spec import RunSpec
from framework.server._chat_input import chat_input
from framework.server._http import Server, blocking

__all__ = ["RUN_INPUTS", "TeamSchemas", "checked_input", "graph_schemas", "team_schemas"]

RUN_INPUTS = ("question",)
"""The keys every team reads from a new run's input (what ``cadre run QUESTION`` sends):
required wherever a team's input schema has them."""


@dataclass(frozen=True, kw_only=True)
class TeamSchemas:
    """What a team accepts and answers: its JSON schemas and the input's checks."""

    graph_id: str
    input: dict[str, Any]
    output: dict[str, Any]
    state: dict[str, Any]
    checks: Mapping[str, TypeAdapter[Any]]
    """A validator per input key whose value cadre checks (not chat messages)."""
    chat: bool = False
    """Whether the input takes a question and chat ``messages`` (see :mod:`._chat_input`)."""

    def required(self) -> list[str]:
        """The keys a run's input must hold."""
        return list(self.input.get("required", ()))

    def json(self) -> dict[str, Any]:
        """The ``GraphSchema`` the API answers (no config or context schema)."""
        return {
            "graph_id": self.graph_id,
            "input_schema": self.input,
            "output_schema": self.output,
            "state_schema": self.state,
            "config_schema": None,
            "context_schema": None,
        }


def graph_schemas(graph_id: str, app: PregelProtocol[Any, Any, Any, Any]) -> TeamSchemas:
    """The schemas of a compiled graph (a team, or one of its nested teams)."""
    if not isinstance(app, CompiledStateGraph):  # no state schema to read
        unknown = {"title": graph_id, "type": "object"}
        return TeamSchemas(
            graph_id=graph_id, input=unknown, output=unknown, state=unknown, checks={}
        )
    builder = app.builder
    return TeamSchemas(
        graph_id=graph_id,
        input=_json_schema(builder.input_schema, required=RUN_INPUTS),
        output=_json_schema(builder.output_schema),
        state=_json_schema(builder.state_schema),
        checks=_checks(builder.input_schema),
        chat=_takes_chat(builder.input_schema),
    )


def _json_schema(typ: Any, required: tuple[str, ...] = ()) -> dict[str, Any]:
    """A TypedDict's JSON schema, key by key (pydantic derives none for a ``typing``
    TypedDict on Python 3.11); a required string may not be empty."""
    hints = _hints(typ)
    if hints is None:
        return _langgraph_schema(typ)
    properties: dict[str, Any] = {}
    definitions: dict[str, Any] = {}
    for key, hint in hints.items():
        properties[key] = _property(hint, definitions)
    needed = sorted(set(getattr(typ, "__required_keys__", ())) | (set(required) & set(hints)))
    for key in needed:
        if properties[key].get("type") == "string":
            properties[key] = {**properties[key], "minLength": 1}
    schema: dict[str, Any] = {
        "title": typ.__name__,
        "type": "object",
        "properties": properties,
        "required": needed,
    }
    if definitions:
        schema["$defs"] = definitions
    return schema


def _hints(typ: Any) -> dict[str, Any] | None:
    """The keys and types of a TypedDict (reducer annotations dropped); None for another
    kind of schema."""
    if not typing.is_typeddict(typ):
        return None
    return typing.get_type_hints(typ)


def _property(hint: Any, definitions: dict[str, Any]) -> dict[str, Any]:
    """One key's schema (its models moved to ``definitions``); any value where pydantic
    cannot derive one."""
    try:
        found = TypeAdapter(hint).json_schema(ref_template="#/$defs/{model}")
    except Exception:
        return {}
    definitions.update(found.pop("$defs", {}))
    return found


def _langgraph_schema(typ: Any) -> dict[str, Any]:
    """The schema of a pydantic model or another kind LangGraph's builder accepts."""
    try:
        found: dict[str, Any] = TypeAdapter(typ).json_schema()
        return found
    except Exception:
        return {"title": getattr(typ, "__name__", "state"), "type": "object"}


def _checks(typ: Any) -> dict[str, TypeAdapter[Any]]:
    checks = {}
    for key, hint in (_hints(typ) or {}).items():
        if _holds_messages(hint):
            continue
        try:
            checks[key] = TypeAdapter(hint)
        except Exception:  # a type pydantic cannot check: LangGraph's reducer reads it
            continue
    return checks


def _takes_chat(typ: Any) -> bool:
    hints = _hints(typ) or {}
    return "question" in hints and _holds_messages(hints.get("messages"))


def _holds_messages(hint: Any) -> bool:
    """Whether a key holds chat messages (LangGraph reads them in any of their forms)."""
    if isinstance(hint, type) and issubclass(hint, BaseMessage):
        return True
    return any(_holds_messages(arg) for arg in typing.get_args(hint))


def check_input(schemas: TeamSchemas, values: Mapping[str, Any]) -> None:
    """Refuse a run's input that lacks a required key, names a key the team does not take,
    or holds a value of the wrong type.

    Raises:
        HTTPException: 422 naming the key.
    """
    team = schemas.graph_id
    accepted = schemas.input.get("properties", {})
    unknown = sorted(key for key in values if key not in accepted)
    if unknown:
        raise HTTPException(
            422,
            f"input.{unknown[0]} is not a key of team {team}'s input: it takes "
            f"{', '.join(sorted(accepted))}",
        )
    for key in schemas.required():
        if values.get(key) in (None, ""):
            what = "is missing" if key not in values else "is empty"
            raise HTTPException(
                422,
                f"input.{key} {what}: every run of team {team} starts from one "
                f'(send input {{"{key}": "..."}})',
            )
    for key, value in values.items():
        check = schemas.checks.get(key)
        if check is None:
            continue
        try:
            check.validate_python(value)
        except ValidationError as error:
            raise HTTPException(422, f"input.{key}: {error.errors()[0]['msg']}") from None


_cache: dict[str, TeamSchemas] = {}
_cache_lock = threading.Lock()
_deriving: dict[str, threading.Lock] = {}
"""One lock per team while its schemas are derived: the requests that ask at once (a server's
first clients) wait for the first instead of each deriving them again."""


def team_schemas(server: Server, team: str) -> TeamSchemas:
    """A team's schemas, derived once per process (the installed teams do not change)."""
    with _cache_lock:
        if team in _cache:
            return _cache[team]
        deriving = _deriving.setdefault(team, threading.Lock())
    with deriving:
        with _cache_lock:
            if team in _cache:  # derived while this request waited
                return _cache[team]
        launch = LaunchRequest(spec=RunSpec(team=team), home=server.home, read_only=True)
        with server.apps.use(launch) as launched:
            made = graph_schemas(team, launched.app)
        with _cache_lock:
            _cache[team] = made
            _deriving.pop(team, None)
        return made


async def checked_input(
    server: Server, team: str, caller: Caller, thread_id: str, values: Mapping[str, Any] | None
) -> dict[str, Any] | None:
    """The input a run starts from, checked: a chat front end's messages or cadre's question
    completed with the other (see :mod:`._chat_input`), then refused where the team cannot
    start from it. No input (None) goes on from the thread's state: it is refused where the
    thread is not the caller's (whether another tenant's thread has a state is not told) or
    has no state and no run to wait for.

    Raises:
        HTTPException: 422 naming the key (see :func:`check_input`).
    """
    checked: dict[str, Any] | None = await blocking(
        _check_run_input, server, team, caller, thread_id, values
    )
    return checked


def _check_run_input(
    server: Server, team: str, caller: Caller, thread_id: str, values: Mapping[str, Any] | None
) -> dict[str, Any] | None:
    if values is None and _goes_on(server, caller, thread_id):
        return None
    schemas = team_schemas(server, team)
    completed = chat_input(values or {}) if schemas.chat else dict(values or {})
    check_input(schemas, completed)
    return completed


def _goes_on(server: Server, caller: Caller, thread_id: str) -> bool:
    """Whether a run without input has a state of the caller's thread to go on from."""
    if server.tables.thread(caller.tenant, thread_id) is None:
        return False
    runs = server.runs
    return runs.thread_spec(thread_id) is not None or runs.active_run(thread_id) is not None
