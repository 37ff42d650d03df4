"""``cadre ask``: answer a question from the knowledge graph ``cadre extract`` built, citing the
documents.

The run uses the data home's encrypted store and checkpointer, under a thread of its own; what
it ran with (the model, the memory scope, the role prompt versions) is sealed in the thread's
checkpoints as its :class:`~framework.runs.threads.RunSpec` (no corpus: the graph is read as it
is), so ``cadre threads`` lists it as team ``supervisor`` and ``cadre resume`` can continue it.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

import typer

from framework.cli.common import HomeOption, announce_thread, fail
from framework.database.home import DataHome, resolve_home
from framework.errors import CadreError, ConfigError
from framework.runs.observe import ObserverOptions

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel
    from rich.console import Console

    from framework.runs.runner import RunResult
    from framework.runs.spec import RunSpec

__all__ = ["TEAM", "ask", "empty_graph_message"]

TEAM = "supervisor"


def empty_graph_message(home: DataHome) -> str:
    """What ``cadre ask`` says when there is no graph to answer from."""
    return (
        f"The knowledge graph under {home.describe()} holds no entities: no extraction has "
        "stored a relation there (`cadre extract` prints how many relations each document "
        "gave). Extract documents with `cadre extract PATH` (files or folders), then ask again."
    )


def _answer(
    home: DataHome,
    question: str,
    *,
    model: BaseChatModel | None,
    info: RunSpec,
    thread_id: str,
    err: Console,
) -> RunResult | None:
    """Run the team on the home's graph; None when the graph is empty."""
    import asyncio

    from framework.cli.progress import ProgressPrinter
    from framework.cli.stopping import stoppable
    from framework.knowledge import KnowledgeGraph
    from framework.runs.launch import TeamOptions, open_team
    from framework.runs.runner import arun_team
    from teams.supervisor.app import supervisor_team

    with open_team(home, supervisor_team, TeamOptions(spec=info, model=model)) as launched:
        counts = KnowledgeGraph(launched.store, scope=info.memory_scope).counts()
        if not counts.entities:
            return None
        info = info.recorded(launched.prompts.used())
        err.print(
            f"[dim]knowledge graph: {counts.entities} entities, {counts.relations} relations "
            f"({counts.needs_review} to review); thread {thread_id}, team {TEAM}[/]"
        )
        with stoppable():  # SIGTERM or Ctrl-C: the tasks going on finish and are saved
            return asyncio.run(
                arun_team(
                    launched.app,
                    {"question": question},
                    thread_id,
                    on_event=ProgressPrinter(err),
                    observer=launched.observer,
                    metadata=info.metadata(),
                )
            )


def ask(  # noqa: PLR0917 - a typer command takes its options as parameters
    question: Annotated[str, typer.Argument(help="The question to answer from the graph.")],
    model: Annotated[
        str | None, typer.Option(help="Chat model as provider:name; offline when left out.")
    ] = None,
    thread: Annotated[str | None, typer.Option(help="Thread id (default: a new one).")] = None,
    home: HomeOption = None,
    memory_scope: Annotated[
        str, typer.Option(help="Whose knowledge graph to read (as `cadre extract` wrote it).")
    ] = "default",
    as_json: Annotated[bool, typer.Option("--json", help="Print the final state as JSON.")] = False,
    trace: Annotated[bool, typer.Option(help="Record spans and metrics (default on).")] = True,
) -> None:
    """Answer QUESTION from the knowledge graph `cadre extract` built, citing the documents."""
    from rich.console import Console

    from framework.engine.state import to_jsonable
    from framework.models.chat import ProviderChatModel
    from framework.runs.runner import new_thread_id
    from framework.runs.spec import RunSpec
    from framework.runs.threads import refuse_existing_thread

    err = Console(stderr=True)
    scope = tuple(part for part in memory_scope.split("/") if part)
    try:
        if not question.strip():
            raise ConfigError("the question is empty: pass the question to answer")
        if not scope:
            raise ConfigError("--memory-scope is empty: pass a name such as 'default'")
        chat_model = ProviderChatModel(model, build_now=True) if model is not None else None
        data_home = resolve_home(home)
        result = None
        if thread is not None:
            refuse_existing_thread(data_home, thread)
        thread_id = thread or new_thread_id()
        announce_thread(thread_id, home)
        if data_home.has_memory():
            result = _answer(
                data_home,
                question,
                model=chat_model,
                info=RunSpec(
                    team=TEAM,
                    model=model,
                    memory_scope=scope,
                    observe=ObserverOptions() if trace else None,
                ),
                thread_id=thread_id,
                err=err,
            )
    except CadreError as error:
        fail(error)
    if result is None:
        message = empty_graph_message(data_home)
        typer.echo(json.dumps({"final_answer": message}) if as_json else message)
    elif as_json:
        payload = {"thread_id": result.thread_id, **to_jsonable(result.state)}
        typer.echo(json.dumps(payload, indent=2, ensure_ascii=False))
    else:
        typer.echo(result.state.get("final_answer", ""))
