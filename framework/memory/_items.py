"""The values a :class:`~framework.memory.store.SemanticStore` takes and returns, and its
namespaces."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from framework.errors import ConfigError
from framework.policy.wrappers import governed_memory_write

__all__ = [
    "Namespace",
    "SearchHit",
    "SourceRecord",
    "StoreItem",
    "checked_item",
    "checked_ttl",
    "governed_items",
    "namespace_path",
]

Namespace = tuple[str, ...]
"""A namespace such as ``("corpus",)`` or ``("memory", "user-42")``."""


@dataclass(frozen=True, kw_only=True)
class StoreItem:
    """One stored text with its JSON-serialisable metadata.

    ``context`` (a heading, a title) is embedded with the text to place it better in search,
    without becoming part of the stored text. An item with nothing to embed is stored without
    a vector and found by key or filter only. ``ttl_minutes``: the item expires that long after
    it was written (or last read, where reads refresh); None keeps it.
    """

    key: str
    text: str
    metadata: dict[str, Any] = field(default_factory=dict)
    context: str = ""
    ttl_minutes: float | None = None

    @property
    def embedded_text(self) -> str:
        """What is embedded: the context line, then the text."""
        return f"{self.context}\n{self.text}" if self.context else self.text


@dataclass(frozen=True, kw_only=True)
class SearchHit:
    """A search result; ``score`` is the cosine similarity to the query."""

    key: str
    text: str
    metadata: dict[str, Any]
    score: float


@dataclass(frozen=True, kw_only=True)
class SourceRecord:
    """A source (such as a file) whose items a namespace holds, with the hash it was read at."""

    source: str
    content_hash: str
    keys: tuple[str, ...]


def namespace_path(namespace: Namespace) -> str:
    """Validate ``namespace`` and return its stored form, the parts joined with ``/``.

    Raises:
        ConfigError: It is not a non-empty tuple of non-empty strings without ``/``.
    """
    if not isinstance(namespace, tuple) or not namespace:
        raise ConfigError(f"a namespace is a non-empty tuple of strings, got {namespace!r}")
    for part in namespace:
        if not isinstance(part, str) or not part or "/" in part:
            raise ConfigError(
                f"namespace {namespace!r}: each part must be a non-empty string without '/', "
                f"got {part!r}; pass the levels as separate parts, e.g. ('memory', 'user-1')"
            )
    return "/".join(namespace)


def checked_item(item: StoreItem) -> StoreItem:
    """``item`` if it is a StoreItem with a non-empty key and a string text.

    Raises:
        ConfigError: It is not.
    """
    if not isinstance(item, StoreItem):
        raise ConfigError(f"put_many() takes StoreItem objects, got {type(item).__name__}")
    if not isinstance(item.key, str) or not item.key:
        raise ConfigError(f"a StoreItem needs a non-empty string key, got {item.key!r}")
    if not isinstance(item.text, str):
        raise ConfigError(
            f"item {item.key!r}: text must be a string, got {type(item.text).__name__}"
        )
    checked_ttl(item.ttl_minutes, f"item {item.key!r}")
    return item


def checked_ttl(minutes: float | None, what: str) -> float | None:
    """``minutes`` if it is None or a positive finite number of minutes.

    Raises:
        ConfigError: It is zero, negative, not finite or not a number.
    """
    if minutes is None:
        return None
    if isinstance(minutes, bool) or not isinstance(minutes, int | float):
        raise ConfigError(f"{what}: a TTL is a number of minutes, got {minutes!r}")
    if not math.isfinite(minutes) or minutes <= 0:
        raise ConfigError(
            f"{what}: a TTL must be a positive number of minutes, got {minutes!r}; "
            "pass None to keep it until it is deleted"
        )
    return float(minutes)


def governed_items(namespace: str, items: Iterable[StoreItem]) -> list[StoreItem]:
    """``items`` as the active policies let them be written to ``namespace`` (changed, or left
    out when refused); all of them, unchanged, outside a governed node."""
    kept: list[StoreItem] = []
    for item in items:
        proposed = {"text": item.text, "metadata": dict(item.metadata)}
        written = governed_memory_write(namespace, proposed)
        if written is proposed:
            kept.append(item)
        elif written is not None:
            text, metadata = written.get("text"), written.get("metadata")
            kept.append(
                replace(
                    item,
                    text=text if isinstance(text, str) else item.text,
                    metadata=dict(metadata) if isinstance(metadata, Mapping) else {},
                )
            )
    return kept
