"""Where a memory item came from: the run, checkpoint, task and team that wrote it, the policy
version it ran under, and the document, line or tool its text was taken from.

Read from LangGraph's run config when the write happens inside a node (any node: cadre's roles
or a platform team's own), and from the item's own metadata for its source. Stored sealed in
the item's ``provenance`` column.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from framework.policy.records import policy_version

__all__ = ["ItemProvenance", "from_source", "writing_run"]

_RUN_METADATA = "cadre"  # the run config metadata key a run records its run spec under


@dataclass(frozen=True, kw_only=True)
class ItemProvenance:
    """Where an item came from (fields are None when the write did not know them)."""

    written_at: float
    """When it was written (seconds since the epoch)."""
    thread_id: str | None = None
    checkpoint_id: str | None = None
    """The checkpoint the writing step started from."""
    checkpoint_ns: str | None = None
    """The subgraph the writing node ran in ("" at the top)."""
    task_id: str | None = None
    node: str | None = None
    step: int | None = None
    team: str | None = None
    policy_version: str | None = None
    """The digest of the policy file the run was governed by."""
    source: str | None = None
    """The document, URL or ``path:line`` the text was taken from."""
    line: int | None = None
    origin: str | None = None
    """The tool or source that found it."""

    def to_json(self) -> str:
        """The record as stored (only the fields it knows)."""
        known = {name: value for name, value in vars(self).items() if value is not None}
        return json.dumps(known, ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> ItemProvenance:
        """The record :meth:`to_json` wrote (unknown fields of a newer cadre are ignored)."""
        data = json.loads(text)
        names = {field.name for field in fields(cls)}
        return cls(**{name: value for name, value in data.items() if name in names})


def writing_run(now: float) -> ItemProvenance:
    """The provenance of a write made now, in the node running (if any)."""
    run = _run_config()
    configurable = run.get("configurable") or {}
    meta = run.get("metadata") or {}
    task_ns = str(configurable.get("checkpoint_ns") or meta.get("langgraph_checkpoint_ns") or "")
    graph_ns, _, task = task_ns.rpartition("|")  # the node's task is the last segment
    checkpoints = configurable.get("checkpoint_map") or {}
    info = _thread_info(meta.get(_RUN_METADATA))
    policy = info.get("policy")
    step = meta.get("langgraph_step")
    return ItemProvenance(
        written_at=now,
        thread_id=_text(configurable.get("thread_id")),
        checkpoint_id=_text(configurable.get("checkpoint_id") or checkpoints.get(graph_ns)),
        checkpoint_ns=graph_ns if task_ns else None,
        task_id=_text(task.rpartition(":")[2]),
        node=_text(meta.get("langgraph_node")),
        step=_number(step),
        team=_text(info.get("team")),
        policy_version=policy_version(policy) if isinstance(policy, str) else None,
    )


def from_source(run: ItemProvenance, metadata: Mapping[str, Any]) -> ItemProvenance:
    """``run``'s provenance with the source an item's metadata names (a document's path and
    line, a URL, the tool or source that found it)."""
    source = _text(metadata.get("source") or metadata.get("path") or metadata.get("url"))
    line = _number(metadata.get("start_line", metadata.get("line")))
    if source is not None and line is None:  # "path:line"
        path, _, number = source.rpartition(":")
        if path and number.isdigit():
            source, line = path, int(number)
    return replace(
        run, source=source, line=line, origin=_text(metadata.get("origin") or metadata.get("tool"))
    )


def _run_config() -> Mapping[str, Any]:
    """The config of the runnable being executed, or an empty one outside a run."""
    from langgraph.config import get_config  # noqa: PLC0415 - graph machinery, when writing

    try:
        return get_config()
    except RuntimeError:
        return {}


def _thread_info(recorded: Any) -> Mapping[str, Any]:
    if not isinstance(recorded, str):
        return {}
    try:
        info = json.loads(recorded)
    except ValueError:
        return {}
    return info if isinstance(info, Mapping) else {}


def _text(value: Any) -> str | None:
    return str(value) if isinstance(value, str | int) and str(value) else None


def _number(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
