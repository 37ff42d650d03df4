"""Putting a team together for a run: validate everything first, then open the data home."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, Protocol, cast

from langchain_core.language_models import BaseChatModel
from langgraph.graph.state import CompiledStateGraph

from framework.database.home import DataHome
from framework.engine.builder import TeamSettings, compile_team
from framework.engine.middleware import Middleware
from framework.errors import ConfigError, CorpusError
from framework.memory import (
    Corpus,
    IngestReport,
    SemanticStore,
    checked_corpus_files,
    ingest_corpus,
)
from framework.memory.corpus import ProgressCallback
from framework.memory.langgraph_store import LangGraphStore
from framework.models.chat import ProviderChatModel
from framework.persistence.saver import CadreSaver
from framework.policy import NameReference, Policy, PolicyMiddleware, Principal, governed
from framework.policy.rates import UsesRateSchedules, schedules_for
from framework.review.points import REVIEW_NODES
from framework.review.records import ReviewKind
from framework.runs.observe import ObserverOptions, RunObserver, load_observer
from framework.runs.prompts import PromptRegistry
from framework.runs.spec import RunSpec
from framework.runs.stores import home_checkpointer, home_cipher, home_store
from framework.runs.teams import TeamBuilder, TeamFactory, TeamSetup, check_team
from framework.runs.threads import read_thread_spec

__all__ = [
    "POLICY_FILE_GROUP",
    "LaunchRequest",
    "Launched",
    "PolicySet",
    "TeamOptions",
    "launch",
    "load_policies",
    "open_team",
    "paused_at",
    "relaunch",
    "review_points",
]


POLICY_FILE_GROUP = "cadre.policy_files"
"""The entry point group of the function that reads a policy file's text into policies."""


class PolicySet(Protocol):
    """What a policy file loader returns."""

    @property
    def policies(self) -> tuple[Policy, ...]:
        """The policies, in the order they are asked."""
        ...

    @property
    def principal(self) -> Principal | None:
        """The file's default principal."""
        ...

    @property
    def references(self) -> Sequence[NameReference]:
        """The tools, teams and nodes its rules name, each with its line."""
        ...


@dataclass(frozen=True, kw_only=True)
class LaunchRequest:
    """What a run asks for (its :class:`RunSpec`, whole) and where: the data home."""

    spec: RunSpec
    home: DataHome
    read_only: bool = False
    """Compile the app only to read its threads: the corpus is not indexed and the chat model
    is not built (a thread whose model cannot be built is still shown)."""

    @classmethod
    def for_thread(
        cls,
        spec: RunSpec,
        home: DataHome,
        observe: ObserverOptions | None = None,
        *,
        read_only: bool = False,
    ) -> LaunchRequest:
        """The request that compiles a thread's app again under ``home`` from its recorded
        ``spec``; observed with ``observe`` only where the thread was observed (a
        ``--no-trace`` run stays untraced)."""
        observed = observe if spec.observe is not None else None
        return cls(
            spec=spec.model_copy(update={"observe": observed}), home=home, read_only=read_only
        )


def review_points(names: Iterable[str]) -> frozenset[ReviewKind]:
    """The review points called ``names``; ConfigError naming the points there are."""
    points = frozenset(cast(ReviewKind, name) for name in names)
    TeamSettings(review=points)  # refuses an unknown point, listing the ones there are
    return points


@dataclass(frozen=True, kw_only=True)
class TeamOptions:
    """How to build a team for a run, once its inputs are checked: its spec, and what the spec
    names made real (the chat model, the policies and who the run acts for)."""

    spec: RunSpec
    model: BaseChatModel | None = None
    policies: tuple[Policy, ...] = ()
    """The policies governing every node of the team (and the teams nested in it)."""
    principal: Principal | None = None
    """Who the run acts for."""


@dataclass(kw_only=True)
class Launched:
    """A compiled team over the home's store; close it to release its databases."""

    app: CompiledStateGraph[Any, Any, Any, Any]
    ingest: IngestReport | None
    """What indexing the corpus did (None when the run indexed none)."""
    store: SemanticStore
    checkpointer: CadreSaver
    observer: RunObserver | None
    prompts: PromptRegistry
    """The role prompts the team was built with: ``prompts.used()`` are the run's versions."""
    resources: ExitStack = field(repr=False)
    policies: PolicyMiddleware | None = field(default=None, repr=False)
    """The team's policies (None: ungoverned)."""

    def close(self) -> None:
        """Close the store and the checkpointer connection."""
        self.resources.close()

    def run_ended(self, thread_id: str) -> None:
        """Forget what the app keeps in memory of a thread whose run ended (what its policies
        counted: the thread's state has it, and its next run takes it up from there), so an
        app shared by a server's runs does not grow with every thread it ran."""
        if self.policies is not None:
            self.policies.forget(thread_id)

    def __enter__(self) -> Launched:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def load_policies(text: str, source: str) -> PolicySet:
    """The policies of a policy file's text, through the installed loader (``policies``).

    Raises:
        ConfigError: The text is invalid (``SOURCE:LINE``), or no loader is installed.
    """
    points = list(entry_points(group=POLICY_FILE_GROUP))
    if not points:
        raise ConfigError("no policy file loader is installed: install cadre's policies package")
    loader: Callable[[str, str], PolicySet] = points[0].load()
    return loader(text, source)


def _validate(request: LaunchRequest) -> tuple[TeamFactory, BaseChatModel | None]:
    """Check every input before anything is written; the first problem raises."""
    spec = request.spec
    factory = check_team(spec.team, model=spec.model, build_models=not request.read_only)
    if spec.max_parallel is not None and spec.max_parallel < 1:
        raise ConfigError(f"--max-parallel must be at least 1, got {spec.max_parallel}")
    model = (
        ProviderChatModel(spec.model, build_now=not request.read_only)
        if spec.model is not None
        else None
    )
    review_points(spec.review)
    if spec.corpus_dir is not None and not request.read_only:
        # every file is checked and read, so a corpus that would be refused is refused here,
        # before the home (keys.json, memory.sqlite) is created
        checked_corpus_files(spec.corpus_dir)
    return factory, model


def _node_names(app: CompiledStateGraph[Any, Any, Any, Any]) -> set[str]:
    """The nodes of ``app`` and of every team nested in it."""
    nodes = set(app.nodes)
    for _, graph in app.get_subgraphs(recurse=True):
        nodes.update(getattr(graph, "nodes", {}))
    return nodes


def paused_at(app: CompiledStateGraph[Any, Any, Any, Any]) -> frozenset[str]:
    """The review points ``app`` pauses at (``--review``'s and those its team turns on itself,
    such as a team file's ``review:``)."""
    nodes = _node_names(app)
    return frozenset(kind for kind, node in REVIEW_NODES.items() if node in nodes)


def _check_review_support(
    app: CompiledStateGraph[Any, Any, Any, Any], request: LaunchRequest
) -> None:
    """Refuse review points the team has no node for: the run would never pause there."""
    nodes = _node_names(app)
    points = review_points(request.spec.review)
    missing = sorted(kind for kind in points if REVIEW_NODES.get(kind) not in nodes)
    if missing:
        raise ConfigError(
            f"team {request.spec.team!r} has no {', '.join(missing)} review point: run it without "
            "--review, or pick a team that plans with workers (meta or research)"
        )


def launch(request: LaunchRequest, *, on_ingest: ProgressCallback | None = None) -> Launched:
    """Validate the request, then open the home, index the corpus and compile the team.

    Args:
        request: What to run.
        on_ingest: Called after every batch of corpus chunks committed (for progress).
    """
    factory, model = _validate(request)
    spec = request.spec
    loaded = load_policies(spec.policy, "the thread's policy") if spec.policy else None
    if loaded is not None and not request.read_only:
        _share_rates(loaded.policies, request.home)
    options = TeamOptions(
        spec=spec,
        model=model,
        policies=loaded.policies if loaded is not None else (),
        principal=spec.principal or (loaded.principal if loaded is not None else None),
    )
    corpus = None if request.read_only else spec.corpus_dir
    launched = open_team(request.home, factory, options, corpus=corpus, on_ingest=on_ingest)
    try:
        _check_review_support(launched.app, request)
    except BaseException:
        launched.close()
        raise
    return launched


def _share_rates(policies: Iterable[Policy], home: DataHome) -> None:
    """Rate limits keep their schedules where every run of the home sees them: the process,
    or the home's PostgreSQL database (every worker of the fleet)."""
    schedules = schedules_for(home.database, str(home.root))
    for policy in policies:
        if isinstance(policy, UsesRateSchedules):
            policy.use_schedules(schedules)


def open_team(
    home: DataHome,
    factory: TeamBuilder,
    options: TeamOptions,
    *,
    corpus: Path | None = None,
    on_ingest: ProgressCallback | None = None,
) -> Launched:
    """Open the home (its cipher, store, observer and checkpointer), index ``corpus`` when
    given (``on_ingest`` told of every committed batch), and compile the team ``factory``
    builds; everything is closed again if a step fails.
    """
    home = home.create()
    resources = ExitStack()
    try:
        cipher = home_cipher(home)
        store = resources.enter_context(home_store(home, cipher))
        report = ingest_corpus(corpus, store, on_progress=on_ingest) if corpus is not None else None
        spec = options.spec
        observer = load_observer(home, spec.observe) if spec.observe else None
        if observer is not None:
            resources.callback(observer.close)
        checkpointer = home_checkpointer(home, observer, cipher)
        resources.callback(checkpointer.close)
        policies = _policies(observer, options)
        setup = TeamSetup(
            corpus=Corpus(store),
            store=store,
            model=governed(options.model) if options.model is not None else None,
            max_parallel=spec.max_parallel,
            memory_scope=spec.memory_scope,
            review=frozenset(spec.review),
            middleware=_middleware(observer, policies),
            prompts=PromptRegistry.of_home(home, pinned=dict(spec.prompt_versions)),
            corpus_dir=corpus,
            resources=resources,
        )
        app = compile_team(
            factory(setup),
            checkpointer=checkpointer,
            store=LangGraphStore(store),
            name=spec.team,
        )
    except BaseException:
        resources.close()
        raise
    return Launched(
        app=app,
        ingest=report,
        store=store,
        checkpointer=checkpointer,
        observer=observer,
        prompts=setup.prompts,
        resources=resources,
        policies=policies,
    )


def _policies(observer: RunObserver | None, options: TeamOptions) -> PolicyMiddleware | None:
    """The policies' middleware, telling the observer of every decision (None: no policy)."""
    if not options.policies:
        return None
    listeners = (observer.policy_decided,) if observer is not None else ()
    return PolicyMiddleware(options.policies, principal=options.principal, listeners=listeners)


def _middleware(
    observer: RunObserver | None, policies: PolicyMiddleware | None
) -> tuple[Middleware, ...]:
    """The observer's middleware, then the policies (inside the node's span)."""
    chain = observer.middleware if observer is not None else ()
    return chain if policies is None else (*chain, policies)


def relaunch(
    home: DataHome,
    thread_id: str,
    *,
    observe: ObserverOptions | None = None,
    spec: RunSpec | None = None,
    read_only: bool = False,
) -> tuple[Launched, RunSpec]:
    """Compile the app of an existing thread again, as ``cadre run`` launched it.

    The corpus is indexed again on the way (unchanged files are skipped), so it must still
    exist; an app compiled ``read_only`` indexes nothing and builds no chat model.

    Args:
        home: The data home the thread ran under.
        thread_id: The thread.
        observe: How to observe what the app runs next (None: nothing).
        spec: The thread's recorded spec when already read (threads that share it share one
            app).
        read_only: Compile it only to read the thread (see :attr:`LaunchRequest.read_only`).

    Returns:
        The launched app (close it when done) and the thread's spec.

    Raises:
        ReviewError: The thread is unknown, or was not started by ``cadre run``.
        CorpusError: The thread's corpus folder is gone or unreadable.
    """
    spec = spec if spec is not None else read_thread_spec(home, thread_id)
    try:
        launched = launch(LaunchRequest.for_thread(spec, home, observe, read_only=read_only))
    except CorpusError as error:
        raise CorpusError(
            f"thread {thread_id!r} ran over the corpus {spec.corpus}, which cannot be read "
            f"any more ({error}): restore it to review the thread"
        ) from error
    return launched, spec
