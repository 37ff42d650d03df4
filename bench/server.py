"""Load on ``cadre serve``: concurrent ``langgraph-sdk`` clients drive runs of a team whose
model calls are scripted sleeps, with the server left alone, or killed (SIGKILL) and started
again in the middle (``--kill``).

The bench starts its own server, ``cadre serve --no-auth --workers W`` on a free loopback
port over a fresh data home, in an environment where the ``crashy`` team of
``bench/crash_team.py`` is installed with 8 tasks and workers that sleep 200 ms (the scripted
model call) and append one fsynced line to a side-effects file. Then C clients (asyncio tasks
in this process, each with its own ``get_client``) share R runs. Each run:

1. ``threads.create()`` (timed: *thread create*);
2. ``runs.stream(thread, "crashy", input=..., stream_mode="values")``, timed from the request
   to its ``metadata`` event (*stream metadata*), to the first event after it (*first event*)
   and to its end (*run end-to-end*; it includes the wait for a free worker); every
   ``--create-every``-th run instead calls ``runs.create`` (timed: *run create*) and then
   ``runs.join``;
3. ``threads.get_state(thread)`` (timed: *get_state*): the run counts as finished only when
   ``next == []`` and ``values["final_answer"]`` is not empty; otherwise it is **lost**.

Every HTTP response is counted by status (5xx bodies are kept and printed). A call that meets
a connection error (the server is down) is retried with a short backoff; a call answered 5xx
is counted and retried. With ``--kill``, when half the runs have been submitted the server is
killed with SIGKILL and started again on the same home and port; streams that broke are left
to the SDK's own reconnect (``Location`` + ``Last-Event-ID``), and when that gives up, or the
request never got its answer, the run is found with ``runs.list`` and awaited with
``runs.join``, or created again when the server never recorded it (counted apart).

For comparison, the same R runs execute in this process without HTTP, the team compiled once
(``framework.runs.launch.launch``) and ``framework.runs.runner.run_team`` called from W threads,
with
the same observer as the server's runs (telemetry into the home).

With ``--postgres URL`` (a PostgreSQL server), every scenario, the in-process one too, runs
on a new database of that server instead of the home's SQLite files.

Run: ``.venv/bin/python bench/server.py [--runs 500] [--clients 50] [--workers 8 [16]]
[--kill] [--postgres URL] [--keep DIR]``; prints Markdown tables and exits 1 when a run was
lost or the server answered 5xx (see ``docs/benchmarks/server.md``).
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import platform
import re
import socket
import subprocess
import sys
import tempfile
import time
import uuid
import warnings
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextvars import ContextVar
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any, TypeVar

import httpx
from langgraph_sdk import get_client
from langgraph_sdk.client import LangGraphClient

CADRE = [sys.executable, "-c", "from framework.cli.main import main; main()"]
TEAM = "crashy"
TASKS = 8
DELAY_S = 0.2
START_TIMEOUT_S = 180.0
RUN_DEADLINE_S = 600.0
"""A run not finished this long after it started is lost (the bench always stops)."""
RETRY_PAUSE_S = (0.1, 1.0)
"""The first and the longest pause between retries of a call that met a dead server."""

T = TypeVar("T")

warnings.filterwarnings("ignore", message="Request failed, attempting reconnect")
warnings.filterwarnings("ignore", message="Reconnecting without a Last-Event-ID")


# -- the server ------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far (0 where /proc is missing)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _rss_mb(pid: int) -> float:
    """Resident memory of process ``pid`` in MiB (0 where /proc is missing)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


@dataclass
class Served:
    """``cadre serve`` in a subprocess, started (again) on one home and port; one log file per
    start under ``logs``."""

    home: Path
    workers: int
    env: dict[str, str]
    logs: Path
    port: int = field(default_factory=_free_port)
    process: subprocess.Popen[bytes] | None = None
    starts: int = 0
    cpu_s: float = 0.0
    """CPU seconds of the processes already stopped."""
    rss_mb: float = 0.0
    """Resident memory of the last process when it was stopped."""

    @property
    def url(self) -> str:
        """The server's address."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def log(self) -> Path:
        """The log of the current (latest) start."""
        return self.logs / f"serve-{self.port}-{self.starts}.log"

    def launch(self) -> None:
        """Start the process (it answers once :meth:`wait_up` returns)."""
        self.starts += 1
        args = [*CADRE, "serve", "--port", str(self.port), "--home", str(self.home)]
        args += ["--no-auth", "--workers", str(self.workers)]
        with self.log.open("wb") as out:
            self.process = subprocess.Popen(
                args, stdout=out, stderr=subprocess.STDOUT, env=self.env
            )

    async def wait_up(self) -> None:
        """Poll ``GET /ok`` until it answers 200.

        Raises:
            RuntimeError: The process exited, or did not answer in time.
        """
        assert self.process is not None
        deadline = time.monotonic() + START_TIMEOUT_S
        async with httpx.AsyncClient(timeout=2) as http:
            while time.monotonic() < deadline:
                if self.process.poll() is not None:
                    raise RuntimeError(f"cadre serve exited: {self.log.read_text()[-3000:]}")
                try:
                    if (await http.get(f"{self.url}/ok")).status_code == 200:
                        return
                except httpx.TransportError:
                    pass
                await asyncio.sleep(0.05)
        raise RuntimeError(f"cadre serve did not answer in time: {self.log.read_text()[-3000:]}")

    def cpu(self) -> float:
        """CPU seconds of every start so far."""
        alive = self.process is not None and self.process.poll() is None
        return self.cpu_s + (_cpu_seconds(self.process.pid) if alive and self.process else 0.0)

    def kill(self) -> None:
        """SIGKILL the process and reap it."""
        assert self.process is not None
        self.cpu_s += _cpu_seconds(self.process.pid)
        self.process.kill()
        self.process.wait()

    def stop(self) -> None:
        """Terminate the process (SIGKILL after 30 s)."""
        if self.process is None or self.process.poll() is not None:
            return
        self.cpu_s += _cpu_seconds(self.process.pid)
        self.rss_mb = _rss_mb(self.process.pid)
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


# -- one run, as a client drives it ---------------------------------------------------------


@dataclass
class Run:
    """One run of the load and what was measured of it (seconds)."""

    index: int
    way: str
    """``stream`` (runs.stream) or ``create`` (runs.create, then runs.join)."""
    thread_id: str = ""
    run_id: str | None = None
    thread_create_s: float | None = None
    run_create_s: float | None = None
    metadata_s: float | None = None
    first_event_s: float | None = None
    end_s: float | None = None
    state_s: float | None = None
    submitted_at: float | None = None
    ended_at: float | None = None
    in_flight_at_kill: bool = False
    submitted_while_down: bool = False
    broken: str = ""
    """The error that cut the stream or request the run was submitted with, if any."""
    reconnects: int = 0
    """How often the SDK reopened the run's stream (``GET .../stream``)."""
    retries: int = 0
    """How many of the run's calls were sent again (the server was down, or answered 5xx)."""
    recovery: str = ""
    """How a broken run was finished: ``joined`` (the server had it: runs.join), ``recreated``
    (the request reached a server that died before recording it), or ``resent`` (the request
    found no server: sent again once one answered)."""
    error_event: Any = None
    stream_ids: list[str] = field(default_factory=list)
    """The stream's events as ``name#id`` (stream runs)."""
    final_streamed: bool = False
    """The stream's last ``values`` event carried the final answer."""
    outcome: str = ""
    """``ok``, or why the run is lost."""


_CURRENT: ContextVar[Run | None] = ContextVar("bench_run", default=None)


@dataclass
class Load:
    """The shared state of the clients of one scenario."""

    runs: int
    create_every: int
    kill_at: int | None
    taken: list[Run] = field(default_factory=list)
    done: list[Run] = field(default_factory=list)
    statuses: Counter[int] = field(default_factory=Counter)
    server_errors: list[str] = field(default_factory=list)
    retried: Counter[str] = field(default_factory=Counter)
    issued: int = 0
    submitted: int = 0
    kill_now: asyncio.Event = field(default_factory=asyncio.Event)
    down: bool = False
    """The server is killed and not answering yet."""
    began: float = field(default_factory=time.perf_counter)

    def next_run(self) -> Run | None:
        """The next run to drive, None when all are taken."""
        if self.issued >= self.runs:
            return None
        index = self.issued
        self.issued += 1
        way = "create" if self.create_every and index % self.create_every == 0 else "stream"
        run = Run(index=index, way=way)
        self.taken.append(run)
        return run

    def in_flight(self) -> list[Run]:
        """The runs submitted and not yet ended."""
        return [r for r in self.taken if r.submitted_at is not None and r.ended_at is None]

    def submitting(self, run: Run) -> None:
        """Note that ``run`` is sent now; at the kill mark, wake the killer."""
        run.submitted_at = time.perf_counter()
        run.submitted_while_down = self.down
        self.submitted += 1
        if self.kill_at is not None and self.submitted == self.kill_at:
            self.kill_now.set()

    def finished(self, run: Run) -> None:
        """Note a run done (either way); print progress now and then."""
        self.done.append(run)
        if len(self.done) % 100 == 0 or len(self.done) == self.runs:
            lost = sum(r.outcome != "ok" for r in self.done)
            print(
                f"  {len(self.done)}/{self.runs} runs done, {lost} lost, "
                f"{time.perf_counter() - self.began:.1f} s",
                file=sys.stderr,
                flush=True,
            )

    async def on_request(self, request: httpx.Request) -> None:
        """An httpx hook: count the SDK's stream reconnects of the current run."""
        run = _CURRENT.get()
        if run is not None and request.method == "GET" and request.url.path.endswith("/stream"):
            run.reconnects += 1

    async def on_response(self, response: httpx.Response) -> None:
        """An httpx hook: count every status, keep what a 5xx said."""
        self.statuses[response.status_code] += 1
        if response.status_code >= 500:
            await response.aread()
            request = response.request
            self.server_errors.append(
                f"{request.method} {request.url.path} -> {response.status_code}: "
                f"{response.text[:500]}"
            )

    def client(self, url: str) -> LangGraphClient:
        """A client of its own (its own connection pool), its calls counted."""
        client = get_client(url=url, api_key=None)
        client.http.client.event_hooks = {
            "request": [self.on_request],
            "response": [self.on_response],
        }
        return client


async def _retried(load: Load, call: Callable[[], Awaitable[T]]) -> T:
    """``call()``, again after a short pause while the server is down or answers 5xx."""
    pause = RETRY_PAUSE_S[0]
    while True:
        try:
            return await call()
        except httpx.TransportError as error:
            load.retried[type(error).__name__] += 1
        except httpx.HTTPStatusError as error:
            if error.response.status_code < 500:
                raise
            load.retried[f"HTTP {error.response.status_code}"] += 1
        run = _CURRENT.get()
        if run is not None:
            run.retries += 1
        await asyncio.sleep(pause)
        pause = min(pause * 2, RETRY_PAUSE_S[1])


def _question(run: Run) -> dict[str, str]:
    return {"question": f"load run {run.index}"}


async def _streamed(client: LangGraphClient, run: Run, start: float) -> None:
    stream = client.runs.stream(run.thread_id, TEAM, input=_question(run), stream_mode="values")
    async for part in stream:
        now = time.perf_counter() - start
        run.stream_ids.append(f"{part.event}#{part.id}")
        if part.event == "values":
            run.final_streamed = bool(isinstance(part.data, dict) and part.data.get("final_answer"))
        if part.event == "metadata":
            if run.run_id is None:
                run.run_id = str(part.data["run_id"])
                run.metadata_s = now
        elif run.first_event_s is None:
            run.first_event_s = now
        if part.event == "error":
            run.error_event = part.data


async def _created(load: Load, client: LangGraphClient, run: Run, start: float) -> None:
    created = await client.runs.create(run.thread_id, TEAM, input=_question(run))
    run.run_create_s = time.perf_counter() - start
    run.run_id = str(created["run_id"])
    await _joined(load, client, run)


async def _joined(load: Load, client: LangGraphClient, run: Run) -> None:
    assert run.run_id is not None
    run_id = run.run_id
    final = await _retried(load, lambda: client.runs.join(run.thread_id, run_id))
    if isinstance(final, dict) and "__error__" in final:
        run.error_event = final["__error__"]


async def _recovered(load: Load, client: LangGraphClient, run: Run, *, reached: bool) -> None:
    """Finish a run whose submission or stream broke: join it if the server recorded it,
    else create it again (and join that); ``reached``: the submission reached a server."""
    pause = RETRY_PAUSE_S[0]
    while run.run_id is None:
        listed = await _retried(load, lambda: client.runs.list(run.thread_id))
        if listed:
            run.run_id = str(listed[0]["run_id"])
            break
        run.recovery = "recreated" if reached else "resent"
        try:
            created = await client.runs.create(run.thread_id, TEAM, input=_question(run))
            run.run_id = str(created["run_id"])
        except httpx.TransportError as error:
            load.retried[type(error).__name__] += 1
            await asyncio.sleep(pause)
            pause = min(pause * 2, RETRY_PAUSE_S[1])
    run.recovery = run.recovery or "joined"
    await _joined(load, client, run)


def _judged(state: Any) -> str:
    values = state.get("values") or {}
    if state.get("next"):
        return f"lost: the thread waits for {state['next']}"
    if not isinstance(values, dict) or not values.get("final_answer"):
        return "lost: no final answer"
    return "ok"


async def _drive(load: Load, client: LangGraphClient, run: Run) -> None:
    began = time.perf_counter()
    thread = await _retried(load, client.threads.create)
    run.thread_create_s = time.perf_counter() - began
    run.thread_id = str(thread["thread_id"])
    load.submitting(run)
    start = time.perf_counter()
    try:
        if run.way == "stream":
            await _streamed(client, run, start)
        else:
            await _created(load, client, run, start)
    except (httpx.TransportError, httpx.HTTPStatusError) as error:
        run.broken = f"{type(error).__name__}: {error}"[:200]
        await _recovered(load, client, run, reached=not isinstance(error, httpx.ConnectError))
    run.ended_at = time.perf_counter()
    run.end_s = run.ended_at - start
    began = time.perf_counter()
    state = await _retried(load, lambda: client.threads.get_state(run.thread_id))
    run.state_s = time.perf_counter() - began
    run.outcome = _judged(state)


async def _client(load: Load, url: str) -> None:
    """One client: runs one after the other until none is left."""
    async with load.client(url) as client:
        while (run := load.next_run()) is not None:
            token = _CURRENT.set(run)
            try:
                await asyncio.wait_for(_drive(load, client, run), RUN_DEADLINE_S)
            except TimeoutError:
                run.outcome = f"lost: not finished in {RUN_DEADLINE_S:.0f} s"
            except Exception as error:
                run.outcome = f"lost: {type(error).__name__}: {error}"[:300]
            finally:
                _CURRENT.reset(token)
            load.finished(run)


# -- the kill ----------------------------------------------------------------------------------


@dataclass
class Kill:
    """What the kill did."""

    at_submitted: int
    at_s: float
    """Seconds into the load."""
    in_flight: int
    """Runs submitted and not yet ended when the kill came."""
    down_s: float = 0.0
    """From the kill until the new process answered ``/ok``."""
    resumed: int | None = None
    """Runs the new process said it resumed (its log), None if it said nothing."""


_RESUMED = re.compile(r"resuming (\d+) run")


async def _killer(load: Load, served: Served, kills: list[Kill]) -> None:
    await load.kill_now.wait()
    now = time.perf_counter()
    await asyncio.to_thread(served.kill)
    live = load.in_flight()
    for run in live:
        run.in_flight_at_kill = True
    kill = Kill(at_submitted=load.submitted, at_s=now - load.began, in_flight=len(live))
    load.down = True
    served.launch()
    await served.wait_up()
    kill.down_s = time.perf_counter() - now
    load.down = False
    kills.append(kill)
    await asyncio.sleep(1.0)  # the resume line is written when the app starts
    found = _RESUMED.search(served.log.read_text(errors="replace"))
    kill.resumed = int(found.group(1)) if found else None


# -- scenarios ---------------------------------------------------------------------------------


def _database(server_url: str | None) -> str | None:
    """A new, empty database on the PostgreSQL server of ``server_url`` (None: SQLite)."""
    if server_url is None:
        return None
    import psycopg

    name = f"cadre_bench_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server_url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    return f"{server_url.rsplit('/', 1)[0]}/{name}"


@dataclass
class Result:
    """One scenario's numbers."""

    name: str
    workers: int
    clients: int
    runs: list[Run]
    wall_s: float
    server_cpu_s: float | None = None
    server_rss_mb: float = 0.0
    bench_cpu_s: float = 0.0
    statuses: Counter[int] = field(default_factory=Counter)
    server_errors: list[str] = field(default_factory=list)
    retried: Counter[str] = field(default_factory=Counter)
    kills: list[Kill] = field(default_factory=list)
    executions: int = 0
    """Side-effect lines: task executions (8 per run when no task ran twice)."""
    logs: list[Path] = field(default_factory=list)

    @property
    def lost(self) -> list[Run]:
        """The runs that did not end with an answer."""
        return [r for r in self.runs if r.outcome != "ok"]

    @property
    def per_minute(self) -> float:
        """Finished runs per minute of wall time."""
        return (len(self.runs) - len(self.lost)) / self.wall_s * 60

    @property
    def server_5xx(self) -> int:
        """Responses 500-599."""
        return sum(count for status, count in self.statuses.items() if status >= 500)


async def _load(served: Served, load: Load, clients: int, kills: list[Kill]) -> None:
    killer = asyncio.create_task(_killer(load, served, kills)) if load.kill_at else None
    await asyncio.gather(*(_client(load, served.url) for _ in range(clients)))
    if killer is not None:
        if not killer.done():
            killer.cancel()
        await asyncio.gather(killer, return_exceptions=True)


def _count_lines(path: Path) -> int:
    if not path.exists():
        return 0
    with path.open("rb") as lines:
        return sum(1 for _ in lines)


def served_scenario(
    folder: Path, env: dict[str, str], args: argparse.Namespace, workers: int
) -> Result:
    """The load on a fresh server with ``workers`` (killed once when ``args.kill``)."""
    name = "cadre serve, killed once" if args.kill else "cadre serve"
    name += ", PostgreSQL" if args.postgres else ""
    work = folder / f"served-{workers}{'-kill' if args.kill else ''}"
    work.mkdir(parents=True)
    effects = work / "effects.txt"
    database = _database(args.postgres)
    served_env = {**env, "CADRE_CRASH_EFFECTS": str(effects)}
    served_env.pop("CADRE_DB", None)
    if database is not None:
        served_env["CADRE_DB"] = database
    served = Served(home=work / "home", workers=workers, env=served_env, logs=work)
    load = Load(
        runs=args.runs,
        create_every=args.create_every,
        kill_at=args.runs // 2 if args.kill else None,
    )
    kills: list[Kill] = []

    async def scenario() -> float:
        served.launch()
        await served.wait_up()
        load.began = time.perf_counter()
        await _load(served, load, args.clients, kills)
        return time.perf_counter() - load.began

    cpu = time.process_time()
    try:
        wall = asyncio.run(scenario())
    finally:
        server_cpu = served.cpu()
        served.stop()
    return Result(
        name=name,
        workers=workers,
        clients=args.clients,
        runs=sorted(load.done, key=lambda r: r.index),
        wall_s=wall,
        server_cpu_s=server_cpu,
        server_rss_mb=served.rss_mb,
        bench_cpu_s=time.process_time() - cpu,
        statuses=load.statuses,
        server_errors=load.server_errors,
        retried=load.retried,
        kills=kills,
        executions=_count_lines(effects),
        logs=sorted(work.glob("serve-*.log")),
    )


def in_process(
    folder: Path, env: dict[str, str], runs: int, threads: int, postgres: str | None = None
) -> Result:
    """The same runs without HTTP: one compiled team, ``run_team`` from ``threads`` threads
    (on a new database of the PostgreSQL server ``postgres`` when given)."""
    from framework.database.home import DataHome
    from framework.runs.launch import LaunchRequest, launch
    from framework.runs.observe import ObserverOptions
    from framework.runs.runner import new_thread_id, run_team
    from framework.runs.spec import RunSpec

    work = folder / f"in-process-{threads}"
    work.mkdir(parents=True)
    effects = work / "effects.txt"
    os.environ.update({**env, "CADRE_CRASH_EFFECTS": str(effects)})
    request = LaunchRequest(
        spec=RunSpec(team=TEAM, observe=ObserverOptions(), memory_scope=("tenant", "default")),
        home=DataHome(root=work / "home", database=_database(postgres)).create(),
    )
    launched = launch(request)

    def one(index: int) -> Run:
        run = Run(index=index, way="in-process")
        began = time.perf_counter()
        result = run_team(
            launched.app,
            {"question": f"load run {index}"},
            new_thread_id(),
            observer=launched.observer,
        )
        run.end_s = time.perf_counter() - began
        run.outcome = "ok" if result.state.get("final_answer") else "lost: no final answer"
        return run

    cpu = time.process_time()
    began = time.perf_counter()
    try:
        with ThreadPoolExecutor(threads) as pool:
            done = list(pool.map(one, range(runs)))
    finally:
        launched.close()
    return Result(
        name="in-process run_team" + (", PostgreSQL" if postgres else ""),
        workers=threads,
        clients=threads,
        runs=done,
        wall_s=time.perf_counter() - began,
        bench_cpu_s=time.process_time() - cpu,
        executions=_count_lines(effects),
    )


# -- the report ----------------------------------------------------------------------------


def _percentile(values: Sequence[float], share: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def _p50_p99(values: Sequence[float | None]) -> str:
    present = [v * 1000 for v in values if v is not None]
    if not present:
        return "-"
    return f"{_percentile(present, 0.5):.0f} / {_percentile(present, 0.99):.0f}"


def _machine() -> str:
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    versions = ", ".join(
        f"{name} {metadata.version(name)}" for name in ("langgraph", "langgraph-sdk", "uvicorn")
    )
    return (
        f"{os.cpu_count()} CPUs ({model}), Python {platform.python_version()}, {versions}, "
        f"{platform.system()} {platform.release()}"
    )


def _summary(results: Sequence[Result], baseline: dict[int, Result]) -> list[str]:
    lines = [
        "| scenario | workers | clients | runs | wall s | runs/min | x in-process | 5xx "
        "| lost | server CPU s | bench CPU s |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for result in results:
        base = baseline.get(result.workers)
        ratio = f"{result.per_minute / base.per_minute:.2f}" if base is not None else "-"
        server_cpu = f"{result.server_cpu_s:.0f}" if result.server_cpu_s is not None else "-"
        fivexx = str(result.server_5xx) if result.server_cpu_s is not None else "-"
        lines.append(
            f"| {result.name} | {result.workers} | {result.clients} | {len(result.runs)} "
            f"| {result.wall_s:.1f} | {result.per_minute:.0f} | {ratio} | {fivexx} "
            f"| {len(result.lost)} | {server_cpu} | {result.bench_cpu_s:.0f} |"
        )
    return lines


def _latencies(results: Sequence[Result]) -> list[str]:
    lines = [
        "| scenario | workers | thread create | run create | stream metadata | first event "
        "| run end-to-end | get_state |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for result in results:
        runs = result.runs
        cells = [
            _p50_p99([r.thread_create_s for r in runs]),
            _p50_p99([r.run_create_s for r in runs]),
            _p50_p99([r.metadata_s for r in runs]),
            _p50_p99([r.first_event_s for r in runs]),
            _p50_p99([r.end_s for r in runs]),
            _p50_p99([r.state_s for r in runs]),
        ]
        lines.append(f"| {result.name} | {result.workers} | " + " | ".join(cells) + " |")
    return lines


def _fates(runs: Sequence[Run]) -> str:
    """How the runs in flight at a kill were finished."""
    fates = Counter[str]()
    for run in runs:
        if run.recovery == "recreated":
            fates["created again (never recorded)"] += 1
        elif run.recovery == "resent":
            fates["sent again (no server)"] += 1
        elif run.recovery == "joined":
            fates["found and joined after an error"] += 1
        elif run.reconnects:
            fates["finished on the SDK's stream reconnect"] += 1
        elif run.retries:
            fates["a call retried (join or get_state)"] += 1
        else:
            fates["untouched"] += 1
    ended = sum(r.outcome == "ok" for r in runs)
    told = ", ".join(f"{count} {fate}" for fate, count in fates.most_common())
    return f"{len(runs)} ({told}); {ended} ended with an answer"


def _reattached(runs: Sequence[Run]) -> list[str]:
    """What the streams the SDK reopened after the kill carried."""
    reopened = [r for r in runs if r.reconnects and not r.broken]
    stale = [r for r in reopened if r.outcome == "ok" and not r.final_streamed]
    lines = [
        f"  streams the SDK reopened: {len(reopened)}; {len(stale)} of them ended without a "
        "values event carrying the final answer (the thread had it)"
    ]
    lines += [f"    run {r.index}: {' '.join(r.stream_ids)}" for r in stale[:3]]
    return lines


def _details(result: Result) -> list[str]:
    runs = result.runs
    statuses = ", ".join(f"{s}: {n}" for s, n in sorted(result.statuses.items())) or "none"
    lines = [
        f"{result.name}, {result.workers} workers: HTTP statuses {statuses}; "
        f"{sum(r.way == 'create' for r in runs)} runs by runs.create + join, "
        f"{sum(r.way == 'stream' for r in runs)} by runs.stream; task executions "
        f"{result.executions} ({TASKS} x {len(runs)} = {TASKS * len(runs)}, "
        f"{result.executions - TASKS * len(runs)} more); server RSS at the end "
        f"{result.server_rss_mb:.0f} MiB",
    ]
    if result.retried:
        retried = ", ".join(f"{name} {count}" for name, count in result.retried.most_common())
        lines.append(f"  calls retried after: {retried}")
    for kill in result.kills:
        at_kill = [r for r in runs if r.in_flight_at_kill]
        lines.append(
            f"  kill (SIGKILL) at {kill.at_s:.1f} s, {kill.at_submitted} runs submitted, "
            f"{kill.in_flight} in flight; the new process answered {kill.down_s:.1f} s after "
            f"the kill and said it resumed {kill.resumed if kill.resumed is not None else '?'} "
            "run(s)"
        )
        lines.append(f"  runs in flight at the kill: {_fates(at_kill)}")
        lines += _reattached(at_kill)
        while_down = [r for r in runs if r.submitted_while_down]
        if while_down:
            lines.append(f"  runs submitted while no server answered: {_fates(while_down)}")
    broken = Counter(r.broken.split(":", 1)[0] for r in runs if r.broken)
    if broken:
        lines.append(f"  submissions or streams broken by: {dict(broken)}")
    for run in result.lost[:10]:
        lines.append(f"  lost run {run.index} (thread {run.thread_id}): {run.outcome}")
    errored = [r for r in runs if r.error_event is not None]
    for run in errored[:5]:
        lines.append(f"  run {run.index} answered an error: {run.error_event}")
    for text in result.server_errors[:10]:
        lines.append(f"  5xx: {text}")
    if result.server_errors or result.lost or errored:
        lines += [f"  server log: {log}" for log in result.logs]
    return lines


def report(results: Sequence[Result]) -> str:
    """The Markdown report of every scenario."""
    baseline = {r.workers: r for r in results if r.server_cpu_s is None}
    lines = [
        f"machine: {_machine()}",
        "",
        *_summary(results, baseline),
        "",
        "p50 / p99, ms:",
        "",
        *_latencies(results),
        "",
    ]
    for result in results:
        if result.server_cpu_s is not None:
            lines += _details(result)
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the scenarios; exit 1 when a run was lost or the server answered 5xx."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=500)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument(
        "--workers", type=int, nargs="+", default=[8], help="the server's --workers (each)"
    )
    parser.add_argument("--kill", action="store_true", help="SIGKILL the server mid-load")
    parser.add_argument(
        "--create-every", type=int, default=10, help="every Nth run uses runs.create + join"
    )
    parser.add_argument("--no-baseline", action="store_true", help="skip the in-process runs")
    parser.add_argument(
        "--postgres",
        metavar="URL",
        help="a PostgreSQL server (postgresql://USER@HOST:PORT/DB): each scenario on a new "
        "database there instead of SQLite",
    )
    parser.add_argument("--keep", type=Path, help="work in this folder and keep it (logs)")
    args = parser.parse_args(argv)
    root = Path(__file__).resolve().parent.parent
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    from bench.crash_team import write_crash_team

    with tempfile.TemporaryDirectory(prefix="cadre-serve-bench-") as temporary:
        folder = args.keep or Path(temporary)
        folder.mkdir(parents=True, exist_ok=True)
        env = write_crash_team(folder / "team", tasks=TASKS, delay=(DELAY_S, DELAY_S))
        sys.path.insert(0, str(folder / "team"))
        print(
            f"cadre serve under load: {args.runs} runs of {TEAM} ({TASKS} tasks x "
            f"{DELAY_S * 1000:.0f} ms), {args.clients} clients, workers {args.workers}"
            f"{', killed once' if args.kill else ''}; work in {folder}",
            file=sys.stderr,
            flush=True,
        )
        results: list[Result] = []
        failures = 0
        for workers in args.workers:
            kinds = ["served"] if args.no_baseline else ["in-process", "served"]
            for kind in kinds:
                try:
                    if kind == "served":
                        results.append(served_scenario(folder, env, args, workers))
                    else:
                        results.append(in_process(folder, env, args.runs, workers, args.postgres))
                except Exception as error:  # report the others all the same
                    failures += 1
                    print(f"{kind} ({workers} workers) failed: {error}", file=sys.stderr)
        print(report(results))
    failed = failures or any(r.lost or r.server_5xx for r in results)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
