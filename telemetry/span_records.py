"""Exported spans as records: one span read back from the spans file, its events and links."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from telemetry.spans import ATTR

__all__ = ["SpanEvent", "SpanLink", "SpanRecord"]

_RESUME_LINK = "resume"


@dataclass(frozen=True, kw_only=True)
class SpanEvent:
    """An event recorded on a span (``exception`` for errors)."""

    name: str
    time_unix_nano: int
    attributes: Mapping[str, Any]


@dataclass(frozen=True, kw_only=True)
class SpanLink:
    """A link from a span to another span (a resumed run part links to the part it continues)."""

    trace_id: str
    span_id: str
    attributes: Mapping[str, Any]


@dataclass(frozen=True, kw_only=True)
class SpanRecord:
    """One exported span, as read back from a line of the spans file."""

    trace_id: str
    span_id: str
    parent_span_id: str | None
    name: str
    kind: str
    start_time_unix_nano: int
    end_time_unix_nano: int
    status_code: str
    status_description: str | None
    attributes: Mapping[str, Any]
    events: tuple[SpanEvent, ...] = ()
    links: tuple[SpanLink, ...] = ()
    resource: Mapping[str, Any]
    scope: str | None = None

    @property
    def duration_ns(self) -> int:
        """The span's duration in nanoseconds (never negative)."""
        return max(0, self.end_time_unix_nano - self.start_time_unix_nano)

    @property
    def thread_id(self) -> str | None:
        """The ``cadre.thread_id`` attribute, when the span has one."""
        value = self.attributes.get(ATTR.THREAD_ID)
        return value if isinstance(value, str) else None

    @property
    def cadre_kind(self) -> str | None:
        """``cadre.span.kind``: run, team, node, step, task, model or tool."""
        value = self.attributes.get(ATTR.SPAN_KIND)
        return value if isinstance(value, str) else None

    @property
    def failed(self) -> bool:
        """Whether the span ended with status ERROR."""
        return self.status_code == "ERROR"

    @property
    def error(self) -> str | None:
        """``Type: message`` of a failed span's last exception, else its status description."""
        if not self.failed:
            return None
        for event in reversed(self.events):
            if event.name == "exception":
                kind = event.attributes.get("exception.type")
                message = event.attributes.get("exception.message")
                text = ": ".join(str(part) for part in (kind, message) if part not in (None, ""))
                if text:
                    return text
        return self.status_description or "error"

    @property
    def paused_before(self) -> tuple[str, ...]:
        """The nodes a paused run part stopped before; empty unless its outcome is paused."""
        if self.attributes.get(ATTR.RUN_OUTCOME) != "paused":
            return ()
        nodes = self.attributes.get(ATTR.PAUSED_BEFORE)
        if isinstance(nodes, str):
            return (nodes,)
        if isinstance(nodes, list | tuple):
            return tuple(str(node) for node in nodes)
        return ()

    @property
    def resumed_from(self) -> SpanLink | None:
        """The link to the run part this span resumes (``cadre.link.type`` = ``resume``)."""
        for link in self.links:
            if link.attributes.get(ATTR.LINK_TYPE) == _RESUME_LINK:
                return link
        return None
