"""A checkpoint serializer wrapper that counts the bytes written."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from langgraph.checkpoint.serde.base import SerializerProtocol

from telemetry.metrics import Instrument

__all__ = ["CountingSerializer"]


class CountingSerializer(SerializerProtocol):
    """Delegates to ``inner``; adds the size of every serialized value to ``counter``."""

    def __init__(self, inner: SerializerProtocol, counter: Instrument) -> None:
        self.inner = inner
        self.counter = counter

    def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
        """Serialize with the inner serializer and count the bytes."""
        kind, data = self.inner.dumps_typed(obj)
        self.counter.add(len(data))
        return kind, data

    def loads_typed(self, data: tuple[str, bytes]) -> Any:
        """Deserialize with the inner serializer."""
        return self.inner.loads_typed(data)

    def with_msgpack_allowlist(
        self, extra_allowlist: Iterable[tuple[str, ...] | type]
    ) -> CountingSerializer:
        """The same counter over the inner serializer with a wider allowlist (LangGraph widens
        it with a graph's state types when the graph is compiled)."""
        widen = getattr(self.inner, "with_msgpack_allowlist", None)
        if widen is None:
            return self
        inner = widen(extra_allowlist)
        return self if inner is self.inner else CountingSerializer(inner, self.counter)
