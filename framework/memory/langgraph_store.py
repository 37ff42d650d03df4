"""cadre's semantic store as a LangGraph :class:`~langgraph.store.base.BaseStore`.

:class:`LangGraphStore` reads and writes the rows of a :class:`SemanticStore` (the same file or
database, sealed the same way), so a node written only against ``BaseStore`` (``runtime.store``)
or a library made for LangGraph stores works on cadre's encrypted memory beside the research
memory and the knowledge graph.

How values map to rows: a value put here is kept whole (sealed, as an item's metadata) and the
text of its index fields is embedded; an item cadre wrote (a corpus passage, a finding) reads
as the value ``{"text": ..., "metadata": {...}}``. Differences from LangGraph's own stores:

* an item whose index fields hold several texts gets one vector of those texts joined by new
  lines (LangGraph's stores keep one per text and score the best of them);
* search without a query returns the newest updates first (as LangGraph's SQLite and
  PostgreSQL stores do; its in-memory store keeps insertion order);
* items without a vector follow the scored ones and are paged with them;
* a namespace is listed while it holds a live item (the in-memory store lists one once named).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from langgraph.store.base import (
    NOT_PROVIDED,
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    NotProvided,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    TTLConfig,
    validate_op_namespace,
)
from langgraph.store.base.embed import get_text_at_path, tokenize_path

from framework.errors import ConfigError
from framework.memory._filters import matches_filter
from framework.memory._items import Namespace, StoreItem, checked_ttl
from framework.memory._rows import StoredEntry
from framework.memory.store import SemanticStore

__all__ = ["LangGraphStore"]

_log = logging.getLogger("cadre.memory")

VALUE = "value"
"""The form of rows written here."""


class LangGraphStore(BaseStore):
    """A :class:`SemanticStore` behind LangGraph's store interface, with TTL.

    Args:
        store: The semantic store whose rows this reads and writes (not closed by this).
        index_fields: Which fields of a value are embedded when a put names none (LangGraph's
            path syntax; ``"$"``, the default, is the whole value as JSON).
        ttl: LangGraph's TTL configuration: ``default_ttl`` (minutes), ``refresh_on_read``
            (default True), ``sweep_interval_minutes`` (for :meth:`start_ttl_sweeper`).
        namespace_ttl: Default TTL in minutes by namespace prefix, for puts that name none (the
            longest matching prefix wins over ``default_ttl``).

    Raises:
        ConfigError: A TTL is not a positive number of minutes, or a prefix is not a
            namespace.
    """

    supports_ttl = True

    def __init__(
        self,
        store: SemanticStore,
        *,
        index_fields: Sequence[str] = ("$",),
        ttl: TTLConfig | None = None,
        namespace_ttl: Mapping[Namespace, float] | None = None,
    ) -> None:
        self.semantic = store
        self.index_fields = [(path, tokenize_path(path)) for path in index_fields]
        self.ttl_config = TTLConfig(**ttl) if ttl is not None else None
        checked_ttl(self.ttl_config.get("default_ttl") if self.ttl_config else None, "default_ttl")
        self.namespace_ttl = {
            _checked_prefix(prefix): float(checked_ttl(minutes, f"namespace {prefix!r}") or 0)
            for prefix, minutes in (namespace_ttl or {}).items()
        }
        self._stop = threading.Event()
        self._sweeper: threading.Thread | None = None

    # -- writes with a namespace default TTL -----------------------------------------------

    def put(
        self,
        namespace: tuple[str, ...],
        key: str,
        value: Mapping[str, Any],
        index: Any = None,
        *,
        ttl: float | NotProvided | None = NOT_PROVIDED,
    ) -> None:
        """Store ``value`` (see :meth:`BaseStore.put`); without ``ttl``, the namespace's
        default TTL applies, then the store's."""
        super().put(namespace, key, value, index, ttl=self._default_ttl(namespace, ttl))

    async def aput(
        self,
        namespace: tuple[str, ...],
        key: str,
        value: Mapping[str, Any],
        index: Any = None,
        *,
        ttl: float | NotProvided | None = NOT_PROVIDED,
    ) -> None:
        """Async :meth:`put`."""
        await super().aput(namespace, key, value, index, ttl=self._default_ttl(namespace, ttl))

    def _default_ttl(
        self, namespace: tuple[str, ...], ttl: float | NotProvided | None
    ) -> float | NotProvided | None:
        if ttl is not NOT_PROVIDED:
            return ttl
        prefixes = [p for p in self.namespace_ttl if tuple(namespace[: len(p)]) == p]
        return self.namespace_ttl[max(prefixes, key=len)] if prefixes else NOT_PROVIDED

    # -- batches ---------------------------------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run ``ops``: reads see the store as it was before the batch's writes, and a later
        write of the same key wins (as LangGraph's in-memory store does)."""
        ops = list(ops)
        for op in ops:
            validate_op_namespace(op)
        results: list[Result] = []
        puts: dict[tuple[tuple[str, ...], str], PutOp] = {}
        for op in ops:
            if isinstance(op, GetOp):
                results.append(self._get(op))
            elif isinstance(op, SearchOp):
                results.append(self._search(op))
            elif isinstance(op, ListNamespacesOp):
                results.append(self._list_namespaces(op))
            elif isinstance(op, PutOp):
                puts[(op.namespace, op.key)] = op
                results.append(None)
            else:
                raise ConfigError(f"unknown store operation {type(op).__name__}")
        self._apply(puts.values())
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """:meth:`batch` in a worker thread (the semantic store is synchronous)."""
        return await asyncio.to_thread(self.batch, list(ops))

    # -- operations ------------------------------------------------------------------------

    def _get(self, op: GetOp) -> Item | None:
        namespace = _checked(op.namespace)
        entry = self.semantic.entries(namespace, [op.key]).get(op.key)
        if entry is None:
            return None
        if op.refresh_ttl and entry.ttl_minutes is not None:
            self.semantic.refresh(namespace, [op.key])
        return Item(namespace=namespace, key=op.key, value=_value(entry), **_times(entry))

    def _apply(self, puts: Iterable[PutOp]) -> None:
        writes: dict[tuple[str, ...], list[StoreItem]] = {}
        deletes: dict[tuple[str, ...], list[str]] = {}
        for op in puts:
            namespace = _checked(op.namespace)
            if op.value is None:
                deletes.setdefault(namespace, []).append(op.key)
                continue
            if not isinstance(op.value, Mapping):
                raise ConfigError(
                    f"a store value is a dict, got {type(op.value).__name__} for {op.key!r}"
                )
            item = StoreItem(
                key=op.key,
                text=self._indexed_text(op),
                metadata=dict(op.value),
                ttl_minutes=checked_ttl(op.ttl, f"item {op.key!r}"),
            )
            writes.setdefault(namespace, []).append(item)
        for namespace, keys in deletes.items():
            self.semantic.delete_many(namespace, keys)
        for namespace, items in writes.items():
            self.semantic.put_many(namespace, items, form=VALUE)

    def _indexed_text(self, op: PutOp) -> str:
        """The text of the value's index fields, joined (empty when it is not indexed)."""
        if op.index is False:
            return ""
        fields = (
            self.index_fields
            if op.index is None
            else [(path, tokenize_path(path)) for path in op.index]
        )
        value = dict(op.value or {})
        texts = [
            text
            for path, tokens in fields
            for text in get_text_at_path(value, "$" if path == "$" else tokens)
        ]
        return "\n".join(texts)

    def _search(self, op: SearchOp) -> list[SearchItem]:
        if op.limit < 0 or op.offset < 0:
            raise ConfigError(f"limit and offset must not be negative: {op.limit}, {op.offset}")
        spaces = self.semantic.namespaces(tuple(op.namespace_prefix), live=False)
        needs_text = "text" in (op.filter or {})
        scored: list[tuple[float | None, tuple[str, ...], str]] = []
        rest: list[tuple[float, tuple[str, ...], str]] = []
        vector = self.semantic.embed([op.query]) if op.query and spaces else None
        for namespace in spaces:
            texts = self._texts(namespace) if needs_text else {}
            test = _value_test(op.filter, texts) if op.filter else None
            found, unscored = self.semantic.select(namespace, test, vector, op.offset + op.limit)
            scored.extend((score, namespace, key) for key, score in found)
            rest.extend((updated, namespace, key) for key, updated in unscored)
        scored.sort(key=lambda hit: -(hit[0] or 0.0))
        rest.sort(key=lambda hit: -hit[0])
        page = scored + [(None, namespace, key) for _, namespace, key in rest]
        return self._items(page[op.offset : op.offset + op.limit], op.refresh_ttl)

    def _texts(self, namespace: tuple[str, ...]) -> dict[str, str]:
        keys = self.semantic.keys(namespace)
        return {key: entry.text for key, entry in self.semantic.entries(namespace, keys).items()}

    def _items(
        self, page: Sequence[tuple[float | None, tuple[str, ...], str]], refresh: bool
    ) -> list[SearchItem]:
        by_namespace: dict[tuple[str, ...], list[str]] = {}
        for _, namespace, row in page:
            by_namespace.setdefault(namespace, []).append(row)
        entries = {
            (namespace, row): entry
            for namespace, rows in by_namespace.items()
            for row, entry in self.semantic.entries_at(namespace, rows).items()
        }
        if refresh:
            for namespace, rows in by_namespace.items():
                found = [entries.get((namespace, row)) for row in rows]
                timed = [e.key for e in found if e is not None and e.ttl_minutes is not None]
                self.semantic.refresh(namespace, timed)
        items = []
        for score, namespace, row in page:
            entry = entries.get((namespace, row))
            if entry is not None:  # expired or deleted since it was found
                items.append(
                    SearchItem(
                        namespace=namespace,
                        key=entry.key,
                        value=_value(entry),
                        score=score,
                        **_times(entry),
                    )
                )
        return items

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        if op.limit < 0 or op.offset < 0:
            raise ConfigError(f"limit and offset must not be negative: {op.limit}, {op.offset}")
        spaces = [
            ns
            for ns in self.semantic.namespaces()
            if all(_matches_condition(condition, ns) for condition in op.match_conditions or ())
        ]
        if op.max_depth is not None:
            spaces = sorted({ns[: op.max_depth] for ns in spaces})
        return spaces[op.offset : op.offset + op.limit]

    # -- expiry ----------------------------------------------------------------------------

    def sweep_ttl(self) -> int:
        """Delete the expired items with their vectors; how many went."""
        return self.semantic.sweep()

    def start_ttl_sweeper(
        self, sweep_interval_minutes: float | None = None
    ) -> concurrent.futures.Future[None]:
        """Sweep every ``sweep_interval_minutes`` (or the TTL configuration's, or 5) in a
        daemon thread until :meth:`stop_ttl_sweeper`; cancelling the future stops it too."""
        future: concurrent.futures.Future[None] = concurrent.futures.Future()
        configured = self.ttl_config.get("sweep_interval_minutes") if self.ttl_config else None
        interval = float(sweep_interval_minutes or configured or 5)
        checked_ttl(interval, "sweep interval")
        if self._sweeper is not None and self._sweeper.is_alive():
            raise ConfigError("the TTL sweeper is running already: stop it first")
        self._stop.clear()

        def loop() -> None:
            while not self._stop.wait(interval * 60):
                try:
                    self.sweep_ttl()
                except Exception as error:
                    _log.warning("TTL sweep failed, trying again in %g min: %s", interval, error)
            future.set_result(None)

        future.add_done_callback(lambda done: self._stop.set() if done.cancelled() else None)
        self._sweeper = threading.Thread(target=loop, daemon=True, name="cadre-ttl-sweeper")
        self._sweeper.start()
        return future

    def stop_ttl_sweeper(self, timeout: float | None = None) -> bool:
        """Stop the sweeper; False when it did not stop within ``timeout`` seconds."""
        self._stop.set()
        if self._sweeper is None:
            return True
        self._sweeper.join(timeout)
        stopped = not self._sweeper.is_alive()
        if stopped:
            self._sweeper = None
        return stopped


def _checked(namespace: tuple[str, ...]) -> tuple[str, ...]:
    """``namespace`` if cadre can store it (LangGraph forbids ``.``; cadre also ``/``)."""
    for label in namespace:
        if "/" in label:
            raise InvalidNamespaceError(
                f"Invalid namespace label {label!r} found in {namespace}: cadre's namespace "
                "labels cannot contain '/'"
            )
    return tuple(namespace)


def _checked_prefix(prefix: Namespace) -> tuple[str, ...]:
    if (
        not isinstance(prefix, tuple)
        or not prefix
        or not all(isinstance(label, str) and label for label in prefix)
    ):
        raise ConfigError(f"a namespace prefix is a non-empty tuple of strings, got {prefix!r}")
    return _checked(prefix)


def _value_test(
    filter: Mapping[str, Any] | None, texts: Mapping[str, str]
) -> Callable[[str, dict[str, Any], str], bool]:
    """Whether a row's value (a cadre item's with its text from ``texts``) passes ``filter``."""

    def test(key: str, metadata: dict[str, Any], form: str) -> bool:
        shown = metadata if form == VALUE else _cadre_value(texts.get(key, ""), metadata)
        return matches_filter(shown, filter)

    return test


def _cadre_value(text: str, metadata: dict[str, Any]) -> dict[str, Any]:
    return {"text": text, "metadata": metadata}


def _value(entry: StoredEntry) -> dict[str, Any]:
    """The LangGraph value of a stored row."""
    return entry.metadata if entry.form == VALUE else _cadre_value(entry.text, entry.metadata)


def _times(entry: StoredEntry) -> dict[str, datetime]:
    return {
        "created_at": datetime.fromtimestamp(entry.created_at, UTC),
        "updated_at": datetime.fromtimestamp(entry.updated_at, UTC),
    }


def _matches_condition(condition: MatchCondition, namespace: tuple[str, ...]) -> bool:
    """A prefix or suffix condition, ``*`` matching any one label."""
    path = tuple(condition.path)
    if len(namespace) < len(path):
        return False
    if condition.match_type == "prefix":
        part = namespace[: len(path)]
    elif condition.match_type == "suffix":
        part = namespace[len(namespace) - len(path) :]
    else:
        raise ConfigError(f"unknown namespace match type {condition.match_type!r}")
    return all(want in ("*", got) for want, got in zip(path, part, strict=True))
