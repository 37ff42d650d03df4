"""The bodies the API accepts, checked: an unknown field, a wrong type or a parameter cadre
does not support answers 422 naming it, before anything is done."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = [
    "AssistantSearchBody",
    "DeleteItemBody",
    "HistoryBody",
    "NamespacesBody",
    "PutItemBody",
    "RunBody",
    "SearchItemsBody",
    "StateBody",
    "StateUpdateBody",
    "ThreadBody",
    "ThreadSearchBody",
]

StreamModeName = Literal[
    "values",
    "updates",
    "custom",
    "messages",
    "messages-tuple",
    "events",
    "debug",
    "tasks",
    "checkpoints",
]
SUPPORTED_MODES = frozenset({"values", "updates", "custom"})
"""The stream modes cadre relays (the others answer 422)."""


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RunBody(_Body):
    """``POST /threads/{id}/runs`` (and ``/runs/stream``, ``/runs/wait``)."""

    assistant_id: str = Field(min_length=1)
    input: dict[str, Any] | None = None
    command: dict[str, Any] | None = None
    stream_mode: StreamModeName | list[StreamModeName] = "values"
    stream_subgraphs: bool = False
    stream_resumable: bool = False
    config: dict[str, Any] | None = None
    context: dict[str, Any] | None = None
    metadata: dict[str, Any] | None = None
    interrupt_before: Literal["*"] | list[str] | None = None
    interrupt_after: Literal["*"] | list[str] | None = None
    checkpoint: dict[str, Any] | None = None
    checkpoint_id: str | None = None
    multitask_strategy: Literal["reject", "enqueue", "interrupt", "rollback"] | None = None
    if_not_exists: Literal["create", "reject"] | None = None
    on_disconnect: Literal["cancel", "continue"] | None = None
    feedback_keys: list[str] | None = None
    checkpoint_during: bool | None = None
    durability: Literal["sync", "async", "exit"] | None = None
    langsmith_tracer: dict[str, Any] | None = None
    strict_resume: bool | None = None
    webhook: None = Field(default=None, description="not supported: must be left out")
    after_seconds: None = Field(default=None, description="not supported: must be left out")
    on_completion: Literal["keep"] | None = None

    @model_validator(mode="after")
    def _supported(self) -> RunBody:
        unsupported = sorted(set(self.modes()) - SUPPORTED_MODES)
        if unsupported:
            raise ValueError(
                f"stream mode {', '.join(unsupported)} is not supported: use values, updates "
                "or custom"
            )
        if self.command is not None:
            extra = sorted(set(self.command) - {"resume", "update", "goto"})
            if extra:
                raise ValueError(f"command carries unknown fields {', '.join(extra)}")
            if self.command.get("goto") is not None:
                raise ValueError("command.goto is not supported: resume or update instead")
        return self

    def modes(self) -> list[str]:
        """The stream modes asked for, as a list."""
        return [self.stream_mode] if isinstance(self.stream_mode, str) else list(self.stream_mode)

    def start_checkpoint(self) -> str | None:
        """The checkpoint the run starts from (a fork), if one is named."""
        if self.checkpoint_id:
            return self.checkpoint_id
        if self.checkpoint and self.checkpoint.get("checkpoint_id"):
            return str(self.checkpoint["checkpoint_id"])
        return None


class AssistantSearchBody(_Body):
    """``POST /assistants/search``."""

    metadata: dict[str, Any] | None = None
    graph_id: str | None = None
    name: str | None = None
    limit: int = Field(default=10, ge=1, le=1000)
    offset: int = Field(default=0, ge=0)
    sort_by: str | None = None
    sort_order: Literal["asc", "desc"] | None = None
    select: list[str] | None = None


class ThreadBody(_Body):
    """``POST /threads``."""

    thread_id: str | None = Field(default=None, min_length=1, max_length=128)
    metadata: dict[str, Any] | None = None
    if_exists: Literal["raise", "do_nothing"] | None = None
    ttl: dict[str, Any] | None = None
    supersteps: None = Field(default=None, description="not supported: must be left out")


class ThreadSearchBody(_Body):
    """``POST /threads/search``."""

    metadata: dict[str, Any] | None = None
    values: dict[str, Any] | None = None
    ids: list[str] | None = None
    status: Literal["idle", "busy", "interrupted", "error"] | None = None
    limit: int = Field(default=10, ge=1, le=1000)
    offset: int = Field(default=0, ge=0)
    sort_by: Literal["thread_id", "status", "created_at", "updated_at"] | None = None
    sort_order: Literal["asc", "desc"] | None = None
    select: list[str] | None = None
    extract: dict[str, Any] | None = None


class StateBody(_Body):
    """``POST /threads/{id}/state/checkpoint``."""

    checkpoint: dict[str, Any]
    subgraphs: bool = False
    select: list[str] | None = None


class StateUpdateBody(_Body):
    """``POST /threads/{id}/state``."""

    values: dict[str, Any] | list[dict[str, Any]] | None
    as_node: str | None = None
    checkpoint: dict[str, Any] | None = None
    checkpoint_id: str | None = None


class HistoryBody(_Body):
    """``POST /threads/{id}/history``."""

    limit: int = Field(default=10, ge=1, le=1000)
    before: str | dict[str, Any] | None = None
    metadata: dict[str, Any] | None = None
    checkpoint: dict[str, Any] | None = None
    select: list[str] | None = None


class PutItemBody(_Body):
    """``PUT /store/items``."""

    namespace: list[str] = Field(min_length=1)
    key: str = Field(min_length=1)
    value: dict[str, Any]
    index: Literal[False] | list[str] | None = None
    ttl: float | None = Field(default=None, gt=0)


class DeleteItemBody(_Body):
    """``DELETE /store/items``."""

    namespace: list[str] = Field(min_length=1)
    key: str = Field(min_length=1)


class SearchItemsBody(_Body):
    """``POST /store/items/search``."""

    namespace_prefix: list[str] = Field(default_factory=list)
    filter: dict[str, Any] | None = None
    limit: int = Field(default=10, ge=1, le=1000)
    offset: int = Field(default=0, ge=0)
    query: str | None = None
    refresh_ttl: bool | None = None


class NamespacesBody(_Body):
    """``POST /store/namespaces``."""

    prefix: list[str] | None = None
    suffix: list[str] | None = None
    max_depth: int | None = Field(default=None, ge=1)
    limit: int = Field(default=100, ge=1, le=1000)
    offset: int = Field(default=0, ge=0)
