"""The one gate every door goes through: the CLI, the HTTP API, the reviewer console and the
fleet's workers hand it the caller and the action, and it alone decides.

- Who: a :class:`Caller` is an API token's tenant, name and scopes, or :data:`LOCAL_CALLER`
  (the CLI, and a server started with ``--no-auth``).
- What: each :data:`Action` needs one scope (:data:`ACTION_SCOPES`, the table docs/server.md
  shows); ``admin`` grants them all. A run whose command resumes a review or updates the state
  is a review decision (:func:`run_action`).
- Whose thread: a thread belongs to the tenant that made it, or to the local principal when
  ``cadre run`` made it (its checkpoints exist outside any tenant's table): nobody else may
  claim its id (:func:`claim_thread`).
- For whom a run acts: always the caller, never the thread's first principal
  (:func:`acting_spec`); which model it may name (:func:`caller_model`).
- Review rules: a state update is a review decision: refused while a review is pending (the
  decision goes through the review's checks and audit), and its keys and values are checked
  against the state before anything is written (:func:`checked_update`).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Final, Literal, get_args, get_type_hints

from langchain_core.messages import BaseMessage
from pydantic import TypeAdapter, ValidationError

from framework.errors import AccessDenied, InvalidUpdate, UnknownThread
from framework.models.specs import COMPATIBLE, SCRIPTED
from framework.policy import Principal
from framework.runs.spec import RunSpec

__all__ = [
    "ACTION_SCOPES",
    "LOCAL_CALLER",
    "Action",
    "Caller",
    "Scope",
    "acting_spec",
    "admit",
    "caller_model",
    "checked_update",
    "claim_thread",
    "run_action",
]

Scope = Literal["run", "review", "admin"]

Action = Literal[
    "read",
    "create_thread",
    "update_thread",
    "copy_thread",
    "start_run",
    "cancel_run",
    "decide_review",
    "update_state",
    "fork",
    "delete_thread",
    "store_read",
    "store_write",
]

ACTION_SCOPES: Final[Mapping[Action, frozenset[Scope]]] = {
    "read": frozenset({"run", "review"}),
    "create_thread": frozenset({"run"}),
    "update_thread": frozenset({"run"}),
    "copy_thread": frozenset({"run"}),
    "start_run": frozenset({"run"}),
    "cancel_run": frozenset({"run"}),
    "decide_review": frozenset({"review"}),
    "update_state": frozenset({"review"}),
    "fork": frozenset({"run"}),
    "delete_thread": frozenset({"admin"}),
    "store_read": frozenset({"run"}),
    "store_write": frozenset({"run"}),
}
"""The scopes each action accepts, any one of them (``admin`` grants every scope): reading
a thread is for those who run it and those who review it."""


@dataclass(frozen=True, kw_only=True)
class Caller:
    """Who asks: a tenant, a name (the reviewer the audit records) and scopes."""

    tenant: str
    name: str
    scopes: frozenset[str]

    def allows(self, scope: Scope) -> bool:
        """Whether the caller holds ``scope`` (``admin`` holds every scope)."""
        return "admin" in self.scopes or scope in self.scopes

    def principal(self) -> Principal:
        """The policy principal of the runs the caller starts or continues."""
        return Principal(user=self.name, tenant=self.tenant, scopes=self.scopes)

    def to_json(self) -> dict[str, Any]:
        """The caller as a run's arguments keep it (to resume the run after a restart)."""
        return {"tenant": self.tenant, "name": self.name, "scopes": sorted(self.scopes)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Caller:
        """The caller :meth:`to_json` kept."""
        return cls(tenant=data["tenant"], name=data["name"], scopes=frozenset(data["scopes"]))


LOCAL_CALLER = Caller(tenant="default", name="local", scopes=frozenset({"admin"}))
"""The local principal: the CLI, and a server started with ``--no-auth``."""


def admit(caller: Caller, action: Action) -> Caller:
    """``caller``, when it may do ``action``.

    Raises:
        AccessDenied: The caller lacks the scope the action needs (the message names both).
    """
    scopes = ACTION_SCOPES[action]
    if not any(caller.allows(scope) for scope in scopes):
        needed = " or ".join(repr(scope) for scope in sorted(scopes))
        raise AccessDenied(
            f"{caller.name!r} lacks the {needed} scope, which {action.replace('_', ' ')} "
            "needs: ask an admin for a token with it"
        )
    return caller


_END = "__end__"
"""LangGraph's end node, as a command's ``goto`` names it."""


def run_action(command: Mapping[str, Any] | None) -> Action:
    """The action a run asks for: resuming a review, updating the state or marking the
    reviews resolved (``goto`` LangGraph's end) is a review decision; anything else starts or
    continues a run."""
    if command and ("resume" in command or "update" in command or command.get("goto") == _END):
        return "decide_review"
    return "start_run"


def claim_thread(
    caller: Caller, thread_id: str, *, another_tenants: bool, recorded_elsewhere: bool
) -> None:
    """Refuse a new thread of ``caller`` under the id of a thread that is not theirs: another
    tenant's, or one whose checkpoints exist outside the tenants' tables (``cadre run`` made it
    for the local principal, who alone may take it up). The refusal reads as for any thread
    the caller cannot see, so ids are not learnt by trying them.

    Raises:
        UnknownThread: The id is another principal's.
    """
    if another_tenants or (recorded_elsewhere and caller != LOCAL_CALLER):
        raise UnknownThread(f"thread {thread_id} not found: choose another id")


def acting_spec(spec: RunSpec, caller: Caller) -> RunSpec:
    """``spec`` as a run of ``caller`` runs it: for the caller, whoever started the thread."""
    return spec.model_copy(update={"principal": caller.principal()})


def caller_model(caller: Caller, model: str | None) -> str | None:
    """The model a new run of ``caller`` may name. Only the local principal may name a model
    that reads the server's files or variables or sends its prompts to an address of the
    caller's choosing (``scripted:``, ``openai-compatible:``); a served team file may name one.

    Raises:
        AccessDenied: Another caller named one.
    """
    if model is None or caller == LOCAL_CALLER:
        return model
    if model.partition(":")[0] in (COMPATIBLE, SCRIPTED):
        raise AccessDenied(
            f"a run over the API may not name the model {model.partition(':')[0]}:...: it "
            "would reach the server's files, variables or network; serve a team file whose "
            "models name it (cadre serve --team-config FILE)"
        )
    return model


def checked_update(
    values: Any, channels: Collection[str], state_schema: Any, *, pending: int
) -> dict[str, Any]:
    """A state update's values, checked as a review decision before anything is written.

    Raises:
        InvalidUpdate: A review is pending (decide it instead), the values are not one mapping,
            a key is not a key of the state (internal channels included), or a value does not
            fit the state's type for its key.
    """
    if pending:
        raise InvalidUpdate(
            f"the thread waits for {pending} review(s): decide them with a run whose command "
            "resumes it (an edit goes through the review's checks and audit trail)"
        )
    if not isinstance(values, Mapping):
        raise InvalidUpdate("the update must be one mapping of state keys")
    public = {name for name in channels if ":" not in name and not name.startswith("__")}
    unknown = sorted(str(key) for key in values if key not in public)
    if unknown:
        raise InvalidUpdate(f"{', '.join(unknown)} are not keys of the state")
    adapters = _value_checks(state_schema)
    problems = []
    for key, value in values.items():
        adapter = adapters.get(key)
        if adapter is None:
            continue
        try:
            adapter.validate_python(value)
        except ValidationError as error:
            problems.append(f"{key}: {error.errors()[0]['msg']}")
    if problems:
        raise InvalidUpdate("; ".join(problems))
    return dict(values)


@lru_cache(maxsize=64)
def _value_checks(state_schema: Any) -> dict[str, TypeAdapter[Any]]:
    """A validator per key of the state (its reducer annotation dropped), built once per
    schema; none for messages (LangGraph reads them in any of their forms) and none for a
    schema that is not a TypedDict."""
    try:
        hints = get_type_hints(state_schema)
    except (TypeError, NameError):
        return {}
    return {key: TypeAdapter(hint) for key, hint in hints.items() if not _holds_messages(hint)}


def _holds_messages(hint: Any) -> bool:
    """Whether a state key's type holds chat messages (``list[AnyMessage]`` and the like)."""
    if isinstance(hint, type) and issubclass(hint, BaseMessage):
        return True
    return any(_holds_messages(arg) for arg in get_args(hint))
