"""A real ``cadre serve`` (uvicorn on 127.0.0.1, a subprocess) for the server tests, with
API tokens made first, and ``langgraph-sdk`` clients for it."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from langgraph_sdk import get_sync_client
from langgraph_sdk.client import SyncLangGraphClient

from framework.database import DATABASE_VARIABLE
from framework.database.home import DataHome
from framework.server.tokens import TokenStore

__all__ = ["Served", "make_tokens", "serve", "start"]

CADRE = [sys.executable, "-c", "from framework.cli.main import main; main()"]
START_TIMEOUT_S = 120.0


@dataclass(kw_only=True)
class Served:
    """A running server: its address, home, and the tokens made for it by name."""

    url: str
    home: Path
    database: str | None
    tokens: dict[str, str] = field(default_factory=dict)
    process: subprocess.Popen[bytes] | None = None
    log: Path | None = None

    def client(self, name: str | None = None) -> SyncLangGraphClient:
        """A client sending the token called ``name`` (None: no token)."""
        key = self.tokens[name] if name is not None else None
        return get_sync_client(url=self.url, api_key=key)

    def http(self, name: str | None = None) -> httpx.Client:
        """A plain HTTP client for what the SDK does not send."""
        headers = {"x-api-key": self.tokens[name]} if name is not None else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=120)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _environment(database: str | None, base: Mapping[str, str] | None) -> dict[str, str]:
    env = {**(os.environ if base is None else base), "HF_HUB_OFFLINE": "1"}
    env["TRANSFORMERS_OFFLINE"] = "1"
    env.pop(DATABASE_VARIABLE, None)
    if database is not None:
        env[DATABASE_VARIABLE] = database
    return env


def make_tokens(
    home: Path, database: str | None, wanted: Mapping[str, tuple[str, str]]
) -> dict[str, str]:
    """Tokens by name: ``name -> (tenant, "run,review")``."""
    data_home = DataHome(root=home, database=database).create()
    made = {}
    with TokenStore(data_home.server_target) as tokens:
        for name, (tenant, scopes) in wanted.items():
            _, text = tokens.create(tenant, name, scopes.split(","))
            made[name] = text
    return made


@contextmanager
def serve(
    home: Path,
    database: str | None,
    *,
    corpus: Path | None = None,
    tokens: Mapping[str, tuple[str, str]] | None = None,
    options: Sequence[str] = (),
) -> Iterator[Served]:
    """Start ``cadre serve`` over ``home`` (with ``tokens``, else ``--no-auth``; with more
    ``options``); stop it after."""
    served = Served(url="", home=home, database=database)
    if tokens:
        served.tokens = make_tokens(home, database, tokens)
    with start(served, corpus=corpus, options=options):
        yield served


@contextmanager
def start(
    served: Served,
    *,
    corpus: Path | None = None,
    env: Mapping[str, str] | None = None,
    options: Sequence[str] = (),
) -> Iterator[Served]:
    """Start (or start again) the server of ``served`` (in ``env``, this process's by
    default); stop it when the block ends."""
    port = _free_port()
    served.url = f"http://127.0.0.1:{port}"
    served.log = served.home.parent / f"serve-{port}.log"
    args = [*CADRE, "serve", "--port", str(port), "--home", str(served.home)]
    if not served.tokens:
        args.append("--no-auth")
    if corpus is not None:
        args += ["--corpus", str(corpus)]
    args += options
    with served.log.open("wb") as log:
        served.process = subprocess.Popen(
            args, stdout=log, stderr=subprocess.STDOUT, env=_environment(served.database, env)
        )
    try:
        _wait_until_up(served)
        yield served
    finally:
        if served.process.poll() is None:
            served.process.terminate()
            try:
                served.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                served.process.kill()
                served.process.wait()


def _wait_until_up(served: Served) -> None:
    assert served.process is not None and served.log is not None
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if served.process.poll() is not None:
            raise AssertionError(f"cadre serve exited: {served.log.read_text()}")
        try:
            if httpx.get(f"{served.url}/ok", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    raise AssertionError(f"cadre serve did not answer in time: {served.log.read_text()}")
