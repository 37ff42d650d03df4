"""A checkpoint serializer wrapper that counts the bytes written."""

from __future__ import annotations

from typing import Any

from langgraph.checkpoint.serde.base import SerializerProtocol
from opentelemetry.metrics import Counter

__all__ = ["CountingSerializer"]


class CountingSerializer(SerializerProtocol):
    """Delegates to ``inner``; adds the size of every serialized value to ``counter``."""

    def __init__(self, inner: SerializerProtocol, counter: Counter) -> None:
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
