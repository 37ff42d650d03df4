"""Shared fixtures: offline settings for every test."""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import tempfile
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# Checkpoints revive only allowlisted types, in CI and locally alike (LangGraph reads this when
# first imported, below): a record missing from a saver's allowlist comes back as a plain dict
# and fails its test, rather than logging "Deserializing unregistered type".
os.environ.setdefault("LANGGRAPH_STRICT_MSGPACK", "true")
# The embedding model's ONNX graph is built into a cache of this session's own (inherited by the
# `cadre` processes the tests start), not into the user's; removed when the session ends (about
# 90 MB a session).
if "CADRE_CACHE" not in os.environ:
    os.environ["CADRE_CACHE"] = tempfile.mkdtemp(prefix="cadre-test-cache-")
    atexit.register(shutil.rmtree, os.environ["CADRE_CACHE"], ignore_errors=True)

# -- a small corpus for the research team tests ---------------------------------------------

import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest

from bench.crash import CrashLab, CrashReport, CrashSettings
from bench.crash_team import EFFECTS_VARIABLE, read_effects
from framework.database import DATABASE_VARIABLE
from framework.memory import (
    Corpus,
    MiniLMEmbedder,
    SemanticStore,
    default_embedder,
    ingest_corpus,
)
from framework.persistence.keys import KEYS_VARIABLE
from tests.postgres_server import REQUIRE_VARIABLE, find_bin_dir, postgres_server

SMALL_CORPUS = {
    "checkpoints.md": "# Checkpoints\n\nEvery run is checkpointed after each step. "
    "Checkpoints are encrypted at rest with AES in OCB mode.\n",
    "retries.md": "# Retries\n\nWorkers retry transient errors such as timeouts up to three "
    "times, with exponential backoff between attempts.\n",
    "review.md": "# Human review\n\nA human reviewer approves, edits or rejects the plan "
    "while the run is paused at a review point.\n",
}
"""Three documents, one paragraph each at line 3: their sources read ``docs/<name>:3``."""


@pytest.fixture(scope="session")
def embedder() -> MiniLMEmbedder:
    """The packaged MiniLM model, shared by the whole test session (it loads in seconds)."""
    return default_embedder()


@pytest.fixture
def umask_022() -> Iterator[None]:
    """The usual umask, whatever the test runner's."""
    previous = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(previous)


def write_corpus(root: Path, files: Mapping[str, str]) -> Path:
    """Write ``files`` (name -> text) into a new folder ``root`` and return it."""
    root.mkdir()
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


@pytest.fixture
def small_corpus(tmp_path: Path, embedder: MiniLMEmbedder) -> Iterator[Corpus]:
    """:data:`SMALL_CORPUS` under ``docs/``, ingested into an in-memory store (``.store``)."""
    root = write_corpus(tmp_path / "docs", SMALL_CORPUS)
    with SemanticStore(":memory:", embedder=embedder) as store:
        ingest_corpus(root, store)
        yield Corpus(store)


def one_line_error(result: Any) -> str:
    """The one line a refused ``cadre`` command printed (exit 2, nothing on stdout)."""
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ")
    return str(lines[0])


# -- a real PostgreSQL server, started once per session ---------------------------------------


@pytest.fixture(scope="session")
def postgres_server_url() -> Iterator[str]:
    """The URL of a throwaway PostgreSQL server's ``postgres`` database (see
    :mod:`tests.postgres_server`); skipped where PostgreSQL is not installed, unless
    ``CADRE_REQUIRE_POSTGRES=1``."""
    bin_dir = find_bin_dir()
    if bin_dir is None:
        if os.environ.get(REQUIRE_VARIABLE) == "1":
            pytest.fail("PostgreSQL is required but not installed (apt-get install postgresql)")
        pytest.skip("PostgreSQL is not installed (Debian: apt-get install postgresql)")
    with postgres_server(bin_dir) as url:
        yield url


@pytest.fixture
def postgres_url(postgres_server_url: str) -> str:
    """A new, empty database on the session's server."""
    return new_database(postgres_server_url)


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest) -> str | None:
    """None for the home's SQLite files, else a new PostgreSQL database (a test on both)."""
    if request.param == "sqlite":
        return None
    url: str = request.getfixturevalue("postgres_url")
    return url


def new_database(server_url: str) -> str:
    """Create an empty database on the server of ``server_url``; its URL."""
    name = f"cadre_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(server_url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    return f"{server_url.rsplit('/', 1)[0]}/{name}"


@pytest.fixture
def store(embedder: MiniLMEmbedder) -> Iterator[SemanticStore]:
    """An in-memory semantic store on the shared embedder."""
    with SemanticStore(":memory:", embedder=embedder) as opened:
        yield opened


def wait_for_effects(path: Path, process: subprocess.Popen[bytes], timeout: float) -> None:
    """Wait until a ``cadre run`` of the crash team has recorded a side effect in ``path``
    (a task started); fail if the process ends first or ``timeout`` passes."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.is_file() and read_effects(path):
            return
        assert process.poll() is None, f"`cadre run` ended early (exit {process.returncode})"
        time.sleep(0.05)
    pytest.fail("`cadre run` never started a task")


# -- the crash tests' team, held by a condition rather than timed by sleeps -------------------

HELD_TEAM = "held"
"""The crashy team whose workers can be held (``cadre run --team held``)."""
HOLD_AFTER_VARIABLE = "CADRE_TEST_HOLD_AFTER"
"""Hold the workers of a thread's first process once this many of its tasks have started."""
RELEASE_VARIABLE = "CADRE_TEST_RELEASE"
"""A file whose existence releases the held workers."""

_HELD_TEAM_SOURCE = '''"""The crashy team, its workers held by a condition (tests/conftest.py).

With $CADRE_TEST_HOLD_AFTER=K, the first process to work on a thread (every side effect so far
is its own) runs K tasks; each of its other workers waits before its task until the file
$CADRE_TEST_RELEASE exists (five minutes at most). The K are claimed by numbered files made
atomically, so tasks that start together cannot all pass before any has written its effect. A
kill or a second process then meets the run during its fan-out however busy the machine is; a
resumed run (another process) never waits. Without the variable this is the crashy team.
"""

from __future__ import annotations

import asyncio
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import crashy_team as crashy
from framework.engine.builder import TeamSettings, build_team
from framework.engine.roles import Roles

HOLD_AFTER_VARIABLE = "CADRE_TEST_HOLD_AFTER"
RELEASE_VARIABLE = "CADRE_TEST_RELEASE"
DEADLINE_S = 300.0
POLL_S = 0.01


def _holding(effects: Path) -> bool:
    """Whether workers of this process are held: the variable is set, the release file is not
    there, and every side effect so far is this process's."""
    release = os.environ.get(RELEASE_VARIABLE)
    if HOLD_AFTER_VARIABLE not in os.environ or (release and Path(release).exists()):
        return False
    lines = effects.read_bytes().split(b"\\n")[:-1] if effects.exists() else []
    mine = str(os.getpid()).encode()
    return all(line.split()[2] == mine for line in lines)


def _claimed(effects: Path) -> bool:
    """Whether this task is one of the K this process runs before it holds the rest."""
    for slot in range(int(os.environ[HOLD_AFTER_VARIABLE])):
        try:
            os.close(os.open(f"{effects}.slot-{os.getpid()}-{slot}", os.O_CREAT | os.O_EXCL))
        except FileExistsError:
            continue
        return True
    return False


def _waits(effects: Path) -> bool:
    return _holding(effects) and not _claimed(effects)


@dataclass(frozen=True)
class HeldWorker(crashy.EffectWorker):
    def run(self, task: Any, question: str, context: Any) -> Any:
        deadline = time.monotonic() + DEADLINE_S
        if _waits(self.effects):
            while _holding(self.effects) and time.monotonic() < deadline:
                time.sleep(POLL_S)
        return super().run(task, question, context)

    async def arun(self, task: Any, question: str, context: Any) -> Any:
        deadline = time.monotonic() + DEADLINE_S
        if _waits(self.effects):
            while _holding(self.effects) and time.monotonic() < deadline:
                await asyncio.sleep(POLL_S)
        return await super().arun(task, question, context)


def team(setup: Any) -> Any:
    tasks = int(os.environ.get(crashy.TASKS_VARIABLE, crashy.DEFAULT_TASKS))
    effects = Path(os.environ[crashy.EFFECTS_VARIABLE])
    roles = Roles(
        planner=crashy.CountPlanner(tasks),
        worker=HeldWorker(effects, crashy._delay(os.getenv(crashy.DELAY_VARIABLE))),
        aggregator=crashy.LineAggregator(),
        reviewer=crashy.FinishingReviewer(),
        curator=crashy.NoCurator(),
        formatter=crashy.AnswerFormatter(),
    )
    settings = TeamSettings(
        name=crashy.TEAM,
        max_parallel=setup.max_parallel,
        middleware=setup.middleware,
        max_iterations=1,
        review=setup.review,
        **crashy.batch_setting(),
    )
    return build_team(roles, settings)
'''


def write_held_team(env: Mapping[str, str]) -> None:
    """Install the ``held`` team beside the crashy team of ``env`` (the environment
    :func:`bench.crash_team.write_crash_team` returned: its folder is first on PYTHONPATH)."""
    folder = Path(env["PYTHONPATH"].split(os.pathsep)[0])
    (folder / "held_team.py").write_text(_HELD_TEAM_SOURCE, encoding="utf-8")
    info = folder / "held_team-0.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: held_team\nVersion: 0\n")
    (info / "entry_points.txt").write_text(f"[cadre.teams]\n{HELD_TEAM} = held_team:team\n")


@dataclass(frozen=True)
class HeldRun:
    """What a test needs to hold a ``cadre run`` of the held team after its first task: the
    environment, the side-effect file to wait on and the file that releases it."""

    env: dict[str, str]
    effects: Path
    release: Path


def held_run(env: Mapping[str, str], folder: Path, database: str | None) -> HeldRun:
    """Install the held team beside ``env``'s crashy team; the environment of a run held after
    its first task until ``release`` exists, on ``database`` (None: the home's SQLite)."""
    write_held_team(env)
    effects, release = folder / "effects.txt", folder / "release"
    held = {
        **env,
        EFFECTS_VARIABLE: str(effects),
        HOLD_AFTER_VARIABLE: "1",
        RELEASE_VARIABLE: str(release),
    }
    held.pop(DATABASE_VARIABLE, None)
    held.pop(KEYS_VARIABLE, None)
    if database is not None:
        held[DATABASE_VARIABLE] = database
    return HeldRun(env=held, effects=effects, release=release)


def as_default_database(database: str | None, monkeypatch: pytest.MonkeyPatch) -> str | None:
    """Make ``database`` the one every data home of the test opens (``$CADRE_DB``; unset for
    SQLite), with no ``$CADRE_KEYS``."""
    monkeypatch.delenv(KEYS_VARIABLE, raising=False)
    if database is None:
        monkeypatch.delenv(DATABASE_VARIABLE, raising=False)
    else:
        monkeypatch.setenv(DATABASE_VARIABLE, database)
    return database


def held_run_args(args: list[str]) -> list[str]:
    """``cadre run`` arguments of the crashy team, for the held team."""
    held = list(args)
    held[held.index("--team") + 1] = HELD_TEAM
    return held


class HeldLab(CrashLab):
    """A crash lab whose kills run the held team, held once the kill's side effects are
    written (the team and every other run are the crashy team's)."""

    def __init__(self, root: Path, settings: CrashSettings) -> None:
        super().__init__(root, settings)
        write_held_team(self.env)

    def crash(self, run: int, *, after_effects: int = 1, **options: Any) -> CrashReport:
        self.env[HOLD_AFTER_VARIABLE] = str(after_effects)
        try:
            return super().crash(run, after_effects=after_effects, **options)
        finally:
            del self.env[HOLD_AFTER_VARIABLE]

    def _run_args(self, thread: str) -> list[str]:
        args = super()._run_args(thread)
        return held_run_args(args) if HOLD_AFTER_VARIABLE in self.env else args


def copy_settled(source: str, target: str) -> None:
    """Copy a file of the template home; a SQLite sidecar (``-wal``, ``-shm``) that its last
    reader removed while the tree was walked is already in the database, so it is skipped."""
    try:
        shutil.copy2(source, target)
    except FileNotFoundError:
        if not source.endswith(("-wal", "-shm")):
            raise
