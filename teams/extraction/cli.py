"""``cadre extract FILE_OR_DIR...``: documents into the knowledge graph, one document per task.

Every path is read before anything is written: a missing path, a folder without documents or an
unreadable file is one line on stderr and exit 2, and the data home is left untouched. The run
uses the home's encrypted store and checkpointer and records its :class:`RunSpec` (team
``extraction``, no corpus: the documents are in the run's input, the role prompt versions), so
``cadre threads`` lists it and ``cadre resume`` can continue it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape

from framework.cli.common import HomeOption, announce_thread, fail
from framework.database.home import DataHome, resolve_home
from framework.errors import CadreError, ConfigError
from framework.runs.observe import ObserverOptions

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel
    from rich.console import Console

    from framework.runs.runner import Event, RunResult
    from framework.runs.spec import RunSpec
    from teams.extraction.documents import Document

__all__ = ["TEAM", "extract"]

TEAM = "extraction"


class _Progress:
    """One line per document saved (``[3/8] docs/cli.md: ...``) and per revision asked."""

    def __init__(self, console: Console, documents: int) -> None:
        self.console = console
        self.documents = documents
        self.done = 0

    def __call__(self, namespace: tuple[str, ...], event: Event) -> None:
        kind, path = event.get("event"), escape(str(event.get("path", "")))
        if kind == "document_saved":
            self.done += 1
            flagged = f", [yellow]{event['flagged']} flagged[/]" if event["flagged"] else ""
            counter = escape(f"[{self.done}/{self.documents}]")
            self._print(
                f"{counter} {path}: {event['relations']} relations, "
                f"{event['dropped']} dropped{flagged}"
            )
        elif kind == "critique" and not event.get("passed"):
            reasons = escape("; ".join(event.get("critiques") or [])[:160])
            step = "for review" if event.get("needs_review") else f"revision {event['revisions']}"
            self._print(f"  [dim]{path}: {step}: {reasons}[/]")

    def _print(self, line: str) -> None:
        self.console.print(line, highlight=False, soft_wrap=True)


def _run(
    home: DataHome,
    documents: list[Document],
    model: BaseChatModel | None,
    info: RunSpec,
    *,
    thread_id: str,
    err: Console,
) -> RunResult:
    """Extract ``documents`` into the home's graph under ``thread_id``."""
    import asyncio

    from framework.cli.stopping import stoppable
    from framework.runs.launch import TeamOptions, open_team
    from framework.runs.runner import arun_team
    from teams.extraction.app import extraction_team
    from teams.extraction.state import dump

    with open_team(home, extraction_team, TeamOptions(spec=info, model=model)) as launched:
        info = info.recorded(launched.prompts.used())
        err.print(f"[dim]{len(documents)} documents; thread {thread_id}, team {TEAM}[/]")
        inputs: dict[str, Any] = {
            "question": f"extract {len(documents)} documents",
            "documents": [dump(document) for document in documents],
        }
        with stoppable():  # SIGTERM or Ctrl-C: the tasks going on finish and are saved
            return asyncio.run(
                arun_team(
                    launched.app,
                    inputs,
                    thread_id,
                    on_event=_Progress(err, len(documents)),
                    observer=launched.observer,
                    metadata=info.metadata(),
                )
            )


def extract(  # noqa: PLR0917 - a typer command takes its options as parameters
    paths: Annotated[
        list[Path],
        typer.Argument(
            help="Files or folders of .md/.markdown/.txt/.rst documents.",
            readable=False,  # read_documents refuses an unreadable path in one line, naming it
        ),
    ],
    model: Annotated[
        str | None, typer.Option(help="Chat model as provider:name; offline when left out.")
    ] = None,
    thread: Annotated[str | None, typer.Option(help="Thread id (default: a new one).")] = None,
    max_parallel: Annotated[
        int | None,
        typer.Option(help="Cartographer and critic executions at once (default: the team's)."),
    ] = None,
    home: HomeOption = None,
    memory_scope: Annotated[
        str, typer.Option(help="Whose knowledge graph to extend (user or project).")
    ] = "default",
    trace: Annotated[bool, typer.Option(help="Record spans and metrics (default on).")] = True,
) -> None:
    """Extract entities and relations from documents into the knowledge graph."""
    from rich.console import Console

    from framework.models.chat import ProviderChatModel
    from framework.runs.runner import new_thread_id
    from framework.runs.spec import RunSpec
    from framework.runs.threads import refuse_existing_thread
    from teams.extraction.documents import read_documents
    from teams.extraction.graph import ExtractionSettings
    from teams.extraction.report import ExtractionTotals
    from teams.extraction.state import DocumentReport

    err = Console(stderr=True)
    scope = tuple(part for part in memory_scope.split("/") if part)
    try:  # everything is checked before the home is touched
        settings = (
            ExtractionSettings()
            if max_parallel is None
            else ExtractionSettings(max_parallel=max_parallel)
        )
        if not scope:
            raise ConfigError("--memory-scope is empty: name a user or project, e.g. default")
        documents = read_documents(paths)
        chat = ProviderChatModel(model, build_now=True) if model is not None else None
        info = RunSpec(
            team=TEAM,
            model=model,
            memory_scope=scope,
            max_parallel=settings.max_parallel,
            observe=ObserverOptions() if trace else None,
        )
        data_home = resolve_home(home)
        if thread is not None:
            refuse_existing_thread(data_home, thread)
        thread_id = thread or new_thread_id()
        announce_thread(thread_id, home)
        result = _run(data_home, documents, chat, info, thread_id=thread_id, err=err)
    except CadreError as error:
        fail(error)
    reports = [DocumentReport.model_validate(r) for r in result.state.get("reports") or []]
    totals = ExtractionTotals.of(reports)
    typer.echo(
        f"documents: {totals.documents}\nentities: {totals.entities}\n"
        f"relations: {totals.relations}\ndropped: {totals.dropped}\nflagged: {totals.flagged}"
    )
    if totals.review_documents:
        typer.echo("for manual review: " + ", ".join(totals.review_documents))
