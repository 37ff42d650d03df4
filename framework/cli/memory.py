"""``cadre memory``: what the home's semantic store holds, where each item came from, and the
sweep of expired items.

An item is named ``NAMESPACE#KEY``, the namespace's labels joined with ``/`` (as ``list``
prints them): ``corpus#guide.md:12``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from framework.cli.common import HomeOption, one_line
from framework.database.home import DataHome, resolve_home
from framework.errors import ConfigError, ReviewError

if TYPE_CHECKING:
    from framework.memory import ItemProvenance
    from framework.memory.store import SemanticStore, StoredEntry

__all__ = ["memory_app"]

memory_app = typer.Typer(help="The semantic store: list, search, show, why, sweep.")

NamespaceOption = Annotated[
    str | None,
    typer.Option("--namespace", "-n", help="Only this namespace (labels joined with '/')."),
]


@contextmanager
def _store(home: Path | None) -> Iterator[tuple[DataHome, SemanticStore]]:
    from framework.runs.stores import home_cipher, home_store

    data_home = resolve_home(home)
    if not data_home.has_memory():
        raise ReviewError(f"no memory under {data_home.describe()}: run `cadre run` there first")
    with home_store(data_home, home_cipher(data_home)) as store:
        yield data_home, store


def _namespace(text: str) -> tuple[str, ...]:
    parts = tuple(text.split("/"))
    if not text or not all(parts):
        raise ConfigError(f"namespace {text!r}: write its labels joined with '/', e.g. corpus")
    return parts


def _item_id(text: str) -> tuple[tuple[str, ...], str]:
    namespace, mark, key = text.partition("#")
    if not mark or not key:
        raise ConfigError(f"item {text!r}: name it NAMESPACE#KEY as `cadre memory list` prints it")
    return _namespace(namespace), key


def _entry(store: SemanticStore, item: str) -> StoredEntry:
    """The live item named ``NAMESPACE#KEY``.

    Raises:
        ReviewError: There is none.
    """
    space, key = _item_id(item)
    entry = store.entries(space, [key]).get(key)
    if entry is None:
        raise ReviewError(f"no item {item} (deleted, expired, or never written)")
    return entry


def _when(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


@memory_app.command("list")
@one_line
def list_items(
    namespace: NamespaceOption = None,
    limit: Annotated[int, typer.Option(min=1, help="At most this many items.")] = 50,
    home: HomeOption = None,
) -> None:
    """Namespaces with their item counts, or the items of one namespace (newest first)."""
    with _store(home) as (_, store):
        if namespace is None:
            spaces = store.namespaces()
            if not spaces:
                typer.echo("the store holds no items")
            for space in spaces:
                typer.echo(f"{'/'.join(space)}  {store.count(space)} item(s)")
            return
        space = _namespace(namespace)
        keys = store.keys(space)
        if not keys:
            typer.echo(f"namespace {namespace} holds no items (see `cadre memory list`)")
            return
        entries = store.entries(space, keys)
        newest = sorted(entries.values(), key=lambda entry: -entry.updated_at)[:limit]
        for entry in newest:
            expiry = f"  ttl {entry.ttl_minutes:g} min" if entry.ttl_minutes else ""
            typer.echo(f"{namespace}#{entry.key}  {_when(entry.updated_at)}{expiry}")
        if len(keys) > limit:
            typer.echo(f"... {len(keys) - limit} more (--limit)")


@memory_app.command("search")
@one_line
def search_items(
    query: str,
    namespace: Annotated[str, typer.Option("--namespace", "-n", help="Where to search.")],
    limit: Annotated[int, typer.Option(min=1, help="At most this many hits.")] = 5,
    home: HomeOption = None,
) -> None:
    """The items of a namespace nearest to QUERY, best first."""
    with _store(home) as (_, store):
        hits = store.search(_namespace(namespace), query, k=limit)
        if not hits:
            typer.echo(f"nothing in namespace {namespace} (see `cadre memory list`)")
        for hit in hits:
            typer.echo(f"{hit.score:.3f}  {namespace}#{hit.key}  {_first_line(hit.text)}")


@memory_app.command("show")
@one_line
def show_item(item: str, home: HomeOption = None) -> None:
    """An item's text, metadata and provenance."""
    space, key = _item_id(item)
    with _store(home) as (_, store):
        entry = _entry(store, item)
        typer.echo(f"item: {item}")
        typer.echo(f"created: {_when(entry.created_at)}  updated: {_when(entry.updated_at)}")
        if entry.ttl_minutes:
            typer.echo(f"ttl: {entry.ttl_minutes:g} minutes (from the last write or read)")
        typer.echo(f"text: {entry.text}")
        typer.echo(f"metadata: {json.dumps(entry.metadata, ensure_ascii=False, sort_keys=True)}")
        _echo_provenance(store.provenance(space, key))


@memory_app.command("why")
@one_line
def why(item: str, home: HomeOption = None) -> None:
    """Walk from an item to the run that wrote it and the evidence it was taken from."""
    space, key = _item_id(item)
    with _store(home) as (data_home, store):
        entry = _entry(store, item)
        provenance = store.provenance(space, key)
        typer.echo(f"item: {item}: {_first_line(entry.text)}")
        _echo_provenance(provenance)
        if provenance is not None and provenance.thread_id:
            _echo_run(data_home, provenance)
        if provenance is not None and provenance.source:
            _echo_evidence(store, provenance)


def _echo_provenance(provenance: ItemProvenance | None) -> None:
    if provenance is None:
        typer.echo("provenance: not recorded (written before cadre recorded it)")
        return
    typer.echo(f"written: {_when(provenance.written_at)}")
    for label, value in (
        ("thread", provenance.thread_id),
        ("team", provenance.team),
        ("node", provenance.node),
        ("task", provenance.task_id),
        ("checkpoint", provenance.checkpoint_id),
        ("subgraph", provenance.checkpoint_ns),
        ("step", provenance.step),
        ("policy version", provenance.policy_version),
        ("source", _source(provenance)),
        ("found by", provenance.origin),
    ):
        if value not in (None, ""):
            typer.echo(f"{label}: {value}")
    if provenance.thread_id is None:
        typer.echo("run: none (written outside a run, e.g. by indexing a corpus)")


def _source(provenance: ItemProvenance) -> str | None:
    if provenance.source is None or provenance.line is None:
        return provenance.source
    return f"{provenance.source}:{provenance.line}"


def _echo_run(data_home: DataHome, provenance: ItemProvenance) -> None:
    """The run's thread as its checkpoints recorded it (or why it cannot be shown)."""
    from framework.runs.stores import open_checkpointer
    from framework.runs.threads import thread_spec

    thread_id = provenance.thread_id
    assert thread_id is not None
    checkpoint = {
        "thread_id": thread_id,
        "checkpoint_ns": provenance.checkpoint_ns or "",
        "checkpoint_id": provenance.checkpoint_id,
    }
    try:
        with open_checkpointer(data_home) as saver:
            info = thread_spec(saver, thread_id, where=data_home.describe())
            step = (
                saver.get_tuple({"configurable": checkpoint})
                if checkpoint["checkpoint_id"]
                else None
            )
    except ReviewError as error:
        typer.echo(f"run: {error}")
        return
    scope = "/".join(info.memory_scope)
    typer.echo(f"run: thread {thread_id} of team {info.team}, memory scope {scope}")
    if checkpoint["checkpoint_id"] and step is None:
        typer.echo("checkpoint: no longer kept (pruned, or the thread was purged)")
    elif step is not None:
        typer.echo(
            f"checkpoint kept: step {step.metadata.get('step')} (the state it was written from)"
        )


def _echo_evidence(store: SemanticStore, provenance: ItemProvenance) -> None:
    """The corpus passage the item's source names, when the store still holds it."""
    from framework.memory.corpus import CORPUS_NAMESPACE

    path, line = provenance.source or "", provenance.line
    passages = store.entries(CORPUS_NAMESPACE, store.keys(CORPUS_NAMESPACE))
    for key, passage in sorted(passages.items()):
        start, end = passage.metadata.get("start_line"), passage.metadata.get("end_line")
        if passage.metadata.get("path") != path:
            continue
        if line is None or (
            isinstance(start, int) and isinstance(end, int) and start <= line <= end
        ):
            typer.echo(
                f"evidence: corpus#{key} ({path}:{start}-{end}): {_first_line(passage.text)}"
            )
            return
    typer.echo(
        f"evidence: {_source(provenance)} is not in the store's corpus (a URL, a tool, or removed)"
    )


def _first_line(text: str, width: int = 100) -> str:
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


@memory_app.command("sweep")
@one_line
def sweep(home: HomeOption = None) -> None:
    """Delete the items whose TTL has passed, with their vectors."""
    with _store(home) as (_, store):
        typer.echo(f"swept {store.sweep()} expired item(s)")
