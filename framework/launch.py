"""Putting a team together for a run: validate everything first, then open the data home."""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel
from langgraph.checkpoint.serde.base import SerializerProtocol
from langgraph.graph.state import CompiledStateGraph

from framework.builder import compile_team
from framework.errors import ConfigError
from framework.home import DataHome
from framework.memory import (
    Corpus,
    IngestReport,
    SemanticStore,
    checked_corpus_files,
    ingest_corpus,
)
from framework.models import resolve_model
from framework.observe import ObserverOptions, RunObserver, load_observer
from framework.persistence.checkpointer import default_serializer, sqlite_checkpointer
from framework.registry import TeamFactory, TeamSetup, load_team

__all__ = ["LaunchRequest", "Launched", "launch"]


@dataclass(frozen=True, kw_only=True)
class LaunchRequest:
    """What a run asks for: the team, the corpus, the model (None: offline), caps, home."""

    team: str
    corpus: Path
    home: DataHome
    model: str | None = None
    max_parallel: int | None = None
    memory_scope: tuple[str, ...] = ("default",)
    observe: ObserverOptions | None = None
    """How to observe the run (telemetry); None observes nothing."""


@dataclass(kw_only=True)
class Launched:
    """A compiled team over an indexed corpus; close it to release its databases."""

    app: CompiledStateGraph[Any, Any, Any, Any]
    ingest: IngestReport
    store: SemanticStore
    observer: RunObserver | None
    resources: ExitStack = field(repr=False)

    def close(self) -> None:
        """Close the store and the checkpointer connection."""
        self.resources.close()

    def __enter__(self) -> Launched:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def _validate(request: LaunchRequest) -> tuple[TeamFactory, BaseChatModel | None]:
    """Check every input before anything is written; the first problem raises."""
    factory = load_team(request.team)
    if request.max_parallel is not None and request.max_parallel < 1:
        raise ConfigError(f"--max-parallel must be at least 1, got {request.max_parallel}")
    model = resolve_model(request.model) if request.model is not None else None
    checked_corpus_files(request.corpus)
    return factory, model


def launch(request: LaunchRequest) -> Launched:
    """Validate the request, then open the home, index the corpus and compile the team."""
    factory, model = _validate(request)
    home = request.home.create()
    resources = ExitStack()
    try:
        store = resources.enter_context(SemanticStore(home.memory))
        report = ingest_corpus(request.corpus, store)
        observer = load_observer(home, request.observe) if request.observe else None
        if observer is not None:
            resources.callback(observer.close)
        serde: SerializerProtocol = default_serializer()
        if observer is not None:
            serde = observer.serializer(serde)
        checkpointer = sqlite_checkpointer(home.checkpoints, serde)
        resources.callback(checkpointer.conn.close)
        setup = TeamSetup(
            corpus=Corpus(store),
            store=store,
            model=model,
            max_parallel=request.max_parallel,
            memory_scope=request.memory_scope,
            middleware=observer.middleware if observer is not None else (),
        )
        app = compile_team(factory(setup), checkpointer=checkpointer, name=request.team)
    except BaseException:
        resources.close()
        raise
    return Launched(app=app, ingest=report, store=store, observer=observer, resources=resources)
