"""``cadre run``: research a question over a corpus with a team, and print the answer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from framework.cli.common import (
    DatabaseOption,
    HomeOption,
    announce_thread,
    fail,
    use_database,
)
from framework.cli.policies import PolicyOption, read_policy
from framework.database.home import DataHome, resolve_home
from framework.errors import CadreError, ConfigError

if TYPE_CHECKING:
    from rich.console import Console

    from framework.memory.corpus import IngestProgress, IngestReport
    from framework.policy import Principal

__all__ = ["IngestPrinter", "run"]


def run(
    question: Annotated[str, typer.Argument(help="The question to research.")],
    corpus: Annotated[
        Path, typer.Option(help="Folder of .md/.txt/.rst files.", readable=False)
    ] = Path("docs"),
    team: Annotated[
        str | None,
        typer.Option(
            help="Team: meta (the default), research, analyst, hypothesis, meta-hypothesis, "
            "meta-knowledge, extraction, supervisor, or another installed one."
        ),
    ] = None,
    team_config: Annotated[
        Path | None,
        typer.Option(
            help="A team file (YAML: worker kinds, tools, MCP servers, models); instead of "
            "--team. See docs/team-config.md.",
            readable=False,
        ),
    ] = None,
    model: Annotated[
        str | None,
        typer.Option(
            help="Chat model: provider:name, openai-compatible:NAME@URL[#key=VAR] or "
            "scripted:FILE (docs/models.md); offline when left out."
        ),
    ] = None,
    thread: Annotated[str | None, typer.Option(help="Thread id (default: a new one).")] = None,
    max_parallel: Annotated[
        int | None, typer.Option(help="Workers at once per dispatch (default 8).")
    ] = None,
    home: HomeOption = None,
    database: DatabaseOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the final state as JSON.")] = False,
    otlp_endpoint: Annotated[
        str | None, typer.Option(help="Send spans and metrics over OTLP/HTTP to this URL.")
    ] = None,
    trace_console: Annotated[bool, typer.Option(help="Print spans on the console.")] = False,
    trace_content: Annotated[
        bool, typer.Option(help="Put prompts, outputs and tool arguments in spans.")
    ] = False,
    trace: Annotated[bool, typer.Option(help="Record spans and metrics (default on).")] = True,
    memory_scope: Annotated[
        str,
        typer.Option(
            help="Whose research memory to read and extend: a scope such as a user or a "
            "project, parts separated by '/'."
        ),
    ] = "default",
    review: Annotated[
        str,
        typer.Option(help="Pause for a human at these review points: plan, tasks, answer."),
    ] = "",
    policy: PolicyOption = None,
    user: Annotated[
        str | None, typer.Option(help="Who the run acts for (default: the policy file's).")
    ] = None,
    tenant: Annotated[str | None, typer.Option(help="The user's tenant.")] = None,
    scopes: Annotated[
        str | None, typer.Option(help="The user's scopes, comma-separated (db:write,tickets).")
    ] = None,
    stream: Annotated[
        bool, typer.Option("--stream", help="Print the answer as it is written.")
    ] = False,
) -> None:
    """Research QUESTION over a corpus and print a cited report."""
    import asyncio

    from rich.console import Console

    from framework.cli._render import report_outcome
    from framework.cli.progress import AnswerPrinter, ProgressPrinter
    from framework.cli.stopping import stoppable
    from framework.engine.state import to_jsonable
    from framework.models.specs import anchored_spec
    from framework.review import pending
    from framework.runs.launch import LaunchRequest, launch
    from framework.runs.observe import ObserverOptions
    from framework.runs.runner import StreamOptions, arun_team, new_thread_id
    from framework.runs.spec import RunSpec
    from framework.runs.threads import refuse_existing_thread

    err = Console(stderr=True)
    if not question.strip():
        fail(ConfigError("the question is empty: pass the question to research"))
    use_database(database)
    team = _team_name(team, team_config)
    try:
        policy_text = read_policy(policy) if policy is not None else None
    except CadreError as error:
        fail(error)
    spec = RunSpec(
        team=team,
        corpus=str(corpus) if corpus is not None else None,
        model=anchored_spec(model, Path.cwd()) if model is not None else None,
        max_parallel=max_parallel,
        memory_scope=tuple(part for part in memory_scope.split("/") if part),
        review=frozenset(point.strip() for point in review.split(",") if point.strip()),
        observe=ObserverOptions(
            otlp_endpoint=otlp_endpoint, console=trace_console, capture_content=trace_content
        )
        if trace
        else None,
        policy=policy_text,
        principal=_principal(user, tenant, scopes),
    )
    request = LaunchRequest(spec=spec, home=resolve_home(home))
    try:
        if thread is not None:
            refuse_existing_thread(request.home, thread)
            _refuse_tenants_thread(request.home, thread)
        with launch(request, on_ingest=IngestPrinter(err)) as launched:
            if (ingest := launched.ingest) is not None:
                _print_ingest(err, ingest)
            thread_id = thread or new_thread_id()
            announce_thread(thread_id, home)
            err.print(f"[dim]thread {thread_id}, team {team}[/]")
            answer = AnswerPrinter() if stream and not as_json else None
            with stoppable():  # async: each task's results are saved as it finishes
                result = asyncio.run(
                    arun_team(
                        launched.app,
                        {"question": question},
                        thread_id,
                        on_event=ProgressPrinter(err),
                        observer=launched.observer,
                        metadata=spec.recorded(launched.prompts.used()).metadata(),
                        options=StreamOptions(modes=("messages",), on_chunk=answer)
                        if answer is not None
                        else StreamOptions(),
                    )
                )
            # a team file's review points and a policy's ask pause too, not only --review
            requests = pending(launched.app, thread_id)
            if not requests and (failure := result.failure()) is not None:
                raise failure
    except CadreError as error:
        fail(error)
    if as_json:
        payload = {
            "thread_id": result.thread_id,
            **to_jsonable(result.state),
            "pending": to_jsonable(requests),
        }
        typer.echo(json.dumps(payload, indent=2, ensure_ascii=False))
    else:
        report_outcome(result, requests, home, shown=answer.printed if answer else "")


class IngestPrinter:
    """Prints ``indexing PATH: DONE/TOTAL chunks, F/N files`` on stderr after each committed
    batch; an ingest done in one batch prints nothing but its summary."""

    def __init__(self, err: Console) -> None:
        self.err = err
        self.printed = False

    def __call__(self, progress: IngestProgress) -> None:
        from rich.markup import escape

        if not self.printed and progress.files_done == progress.files_total:
            return
        self.printed = True
        self.err.print(
            f"[dim]indexing {escape(progress.path)}: {progress.chunks_done}/"
            f"{progress.chunks_total} chunks, {progress.files_done}/{progress.files_total} "
            "files[/]",
            highlight=False,
            soft_wrap=True,
        )


def _print_ingest(err: Console, ingest: IngestReport) -> None:
    """The corpus summary, then one line per skipped file with why."""
    from rich.markup import escape

    resumed = f", {ingest.files_resumed} resumed" if ingest.files_resumed else ""
    err.print(
        f"[dim]corpus: {ingest.files_seen} files ({ingest.files_indexed} indexed{resumed}, "
        f"{ingest.files_unchanged} unchanged), {ingest.chunks_written} new chunks[/]"
    )
    for skipped in ingest.skipped:
        err.print(
            f"[yellow]skipped {escape(skipped.path)}: {escape(skipped.reason)}[/]",
            highlight=False,
            soft_wrap=True,
        )


def _refuse_tenants_thread(home: DataHome, thread: str) -> None:
    """Refuse ``--thread`` when a tenant of ``cadre serve`` has that id (the gate's claim: a
    thread belongs to one tenant or to the local principal, and no other)."""
    from framework.runs.stores import home_cipher
    from framework.server import ServerTables, claim_for_local

    if home.database is None and not home.server.is_file():
        return
    tables = ServerTables(home.server_target, home_cipher(home))
    try:
        claim_for_local(tables, thread)
    finally:
        tables.close()


def _principal(user: str | None, tenant: str | None, scopes: str | None) -> Principal | None:
    """The principal the options name; None when they name none (the policy file's)."""
    from framework.policy import Principal

    if user is None and tenant is None and scopes is None:
        return None
    granted = frozenset(scope.strip() for scope in (scopes or "").split(",") if scope.strip())
    return Principal(user=user or "local", tenant=tenant or "default", scopes=granted)


def _team_name(team: str | None, team_config: Path | None) -> str:
    """The team ``--team`` or ``--team-config`` names (``file:/abs/team.yaml`` for a file)."""
    from framework.runs.teams import DEFAULT_TEAM, team_file_team

    if team is not None and team_config is not None:
        fail(ConfigError("--team and --team-config both name the team: give one of them"))
    if team_config is not None:
        return team_file_team(team_config)
    return team or DEFAULT_TEAM
