"""The bodies the API accepts, checked: an unknown field, a wrong type or a parameter cadre
does not support answers 422 naming it, before anything is done."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

__all__ = [
    "AssistantCountBody",
    "AssistantLatestBody",
    "AssistantSearchBody",
    "AssistantVersionsBody",
    "DeleteItemBody",
    "HistoryBody",
    "NamespacesBody",
    "PutItemBody",
    "RunBody",
    "SearchItemsBody",
    "StateBody",
    "StateUpdateBody",
    "StreamModeName",
    "ThreadBody",
    "ThreadCountBody",
    "ThreadPruneBody",
    "ThreadSearchBody",
    "ThreadTTL",
    "ThreadUpdateBody",
    "checked_state_fields",
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
    "tools",
    "lifecycle",
]


RESOLVE_GOTO = "__end__"
"""A command's ``goto`` that ends a thread paused for review as the caller's decision (Agent
Chat UI's "Mark as resolved"; see :func:`framework.review.api.resolve`)."""


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
    on_completion: Literal["keep", "delete"] | None = None
    """What becomes of a stateless run's thread when it ends (default: deleted)."""

    @model_validator(mode="after")
    def _supported(self) -> RunBody:
        if self.command is not None:
            extra = sorted(set(self.command) - {"resume", "update", "goto"})
            if extra:
                raise ValueError(f"command carries unknown fields {', '.join(extra)}")
            goto = self.command.get("goto")
            resolving = goto == RESOLVE_GOTO and not set(self.command) - {"goto"}
            if goto and not resolving:  # RemoteGraph sends an empty one with every command
                raise ValueError(
                    "command.goto is not supported: resume or update instead (goto __end__ "
                    "alone marks the thread's reviews resolved)"
                )
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


AssistantField = Literal[
    "assistant_id",
    "graph_id",
    "name",
    "description",
    "config",
    "context",
    "created_at",
    "updated_at",
    "metadata",
    "version",
]
ThreadField = Literal[
    "thread_id",
    "created_at",
    "updated_at",
    "metadata",
    "config",
    "context",
    "status",
    "values",
    "interrupts",
]
ThreadStatus = Literal["idle", "busy", "interrupted", "error"]


class AssistantCountBody(_Body):
    """``POST /assistants/count``: ``metadata`` matches key by key, ``name`` as a substring
    (any case)."""

    metadata: dict[str, Any] | None = None
    graph_id: str | None = None
    name: str | None = None


class AssistantSearchBody(AssistantCountBody):
    """``POST /assistants/search``."""

    limit: int = Field(default=10, ge=1, le=1000)
    offset: int = Field(default=0, ge=0)
    sort_by: Literal["assistant_id", "graph_id", "name", "created_at", "updated_at"] | None = None
    sort_order: Literal["asc", "desc"] | None = None
    select: list[AssistantField] | None = None


class AssistantVersionsBody(_Body):
    """``POST /assistants/{id}/versions``."""

    metadata: dict[str, Any] | None = None
    limit: int = Field(default=10, ge=1, le=1000)
    offset: int = Field(default=0, ge=0)


class AssistantLatestBody(_Body):
    """``POST /assistants/{id}/latest``."""

    version: int = Field(ge=1)


class ThreadTTL(_Body):
    """A thread's time to live: it is deleted ``ttl`` minutes after it was last updated."""

    ttl: float = Field(gt=0, le=5_256_000)  # ten years
    strategy: Literal["delete"] = "delete"


THREAD_ID_MAX = 128
"""The longest thread id a caller may choose (at every door)."""


class ThreadBody(_Body):
    """``POST /threads``."""

    thread_id: str | None = Field(default=None, min_length=1, max_length=THREAD_ID_MAX)
    metadata: dict[str, Any] | None = None
    if_exists: Literal["raise", "do_nothing"] | None = None
    ttl: ThreadTTL | None = None
    supersteps: None = Field(default=None, description="not supported: must be left out")


class ThreadUpdateBody(_Body):
    """``PATCH /threads/{id}``: ``metadata`` is merged into the thread's."""

    metadata: dict[str, Any] = Field(default_factory=dict)
    ttl: ThreadTTL | None = None


class ThreadCountBody(_Body):
    """``POST /threads/count``: ``metadata`` and ``values`` match key by key."""

    metadata: dict[str, Any] | None = None
    values: dict[str, Any] | None = None
    ids: list[str] | None = None
    status: ThreadStatus | None = None


class ThreadSearchBody(ThreadCountBody):
    """``POST /threads/search``; ``extract`` maps names to paths in a thread
    (``values.plan.tasks[0]``), answered in its ``extracted``."""

    limit: int = Field(default=10, ge=1, le=1000)
    offset: int = Field(default=0, ge=0)
    sort_by: (
        Literal["thread_id", "status", "created_at", "updated_at", "state_updated_at"] | None
    ) = None
    sort_order: Literal["asc", "desc"] | None = None
    select: list[ThreadField] | None = None
    extract: dict[str, str] | None = Field(default=None, max_length=10)


class ThreadPruneBody(_Body):
    """``POST /threads/prune``: ``delete`` the threads, or keep only their ``latest``
    checkpoint of each namespace."""

    thread_ids: list[str] = Field(max_length=1000)
    strategy: Literal["delete", "keep_latest"] = "delete"


STATE_FIELDS = frozenset(
    {
        "values",
        "next",
        "tasks",
        "checkpoint",
        "metadata",
        "created_at",
        "parent_checkpoint",
        "interrupts",
    }
)
"""What ``select`` may name of a thread state, besides ``values.KEY``."""


def checked_state_fields(select: list[str] | None) -> list[str] | None:
    """``select`` of a thread state, checked.

    Raises:
        ValueError: A name is neither a field of a state nor ``values.KEY``.
    """
    unknown = [name for name in select or () if not _state_field(name)]
    if unknown:
        raise ValueError(
            f"cannot select {', '.join(unknown)}: choose among {', '.join(sorted(STATE_FIELDS))}"
            " or values.KEY"
        )
    return select


def _state_field(name: str) -> bool:
    return name in STATE_FIELDS or (name.startswith("values.") and len(name) > len("values."))


StateSelect = Annotated[list[str] | None, AfterValidator(checked_state_fields)]


class StateBody(_Body):
    """``POST /threads/{id}/state/checkpoint``."""

    checkpoint: dict[str, Any]
    subgraphs: bool = False
    select: StateSelect = None


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
    select: StateSelect = None


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
