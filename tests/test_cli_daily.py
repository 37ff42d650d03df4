"""Daily use of ``cadre``: what commands import, provider failures, read-only commands on a
thread whose model cannot be built, Ctrl-C, and the exit codes of docs/cli.md."""

from __future__ import annotations

import importlib
import json
import os
import pkgutil
import re
import signal
import socket
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

import httpx
import openai
import pytest
from typer.testing import CliRunner

from bench.crash import CrashLab, CrashSettings
from bench.crash_team import EFFECTS_VARIABLE
from framework.cli.app import app
from framework.errors import TransientError
from framework.models.provider_errors import (
    ProviderError,
    ProviderUnavailableError,
    provider_error,
)
from framework.models.specs import ModelSpec
from tests.conftest import (
    HOLD_AFTER_VARIABLE,
    SMALL_CORPUS,
    held_run_args,
    wait_for_effects,
    write_corpus,
    write_held_team,
)

runner = CliRunner()

HEAVY = ("torch", "sentence_transformers", "transformers", "langchain_openai")
"""Modules a command that needs neither a model nor embeddings must not import."""
GRAPH = "langgraph.graph"
"""LangGraph's graph machinery: only commands that compile a team's graph import it."""
RUNTIME = (
    "langchain",
    "langchain_core.runnables",
    "langchain_core.messages",
    "langsmith",
    "langgraph.checkpoint.base",
    "langgraph.checkpoint.serde.jsonplus",
    "langgraph.graph",
    "langgraph.pregel",
    "langgraph.types",
    "numpy",
)
"""What the commands that only read threads (``threads``, ``show``, ``reviews``) must not import,
nor anything inside it: LangChain, its runnables and messages, LangGraph's saver, serializer,
graph machinery and types, numpy. Each costs a command a tenth of a second or more."""


def loaded(modules: set[str], packages: Iterable[str]) -> list[str]:
    """The modules of ``modules`` that are one of ``packages`` or inside one."""
    return sorted(m for m in modules if any(m == p or m.startswith(f"{p}.") for p in packages))


def _imported_by(args: list[str]) -> set[str]:
    """The modules a fresh process imports to run ``cadre ARGS`` (exit code checked)."""
    probe = (
        "import json, sys\n"
        "from framework.cli.app import run_app\n"
        f"code = run_app({args!r})\n"
        "print(json.dumps([code, sorted(sys.modules)]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True
    )
    code, modules = json.loads(done.stdout.splitlines()[-1])
    assert code == 0, done.stderr
    return set(modules)


@pytest.mark.parametrize(
    ("args", "compiles"),
    [
        (["--help"], False),
        (["threads"], False),
        (["keys", "--help"], False),
        (["roles", "list"], True),  # role prompts are composed from team modules
        (["run", "--help"], False),
        (["reviews"], False),
    ],
)
def test_commands_that_need_no_model_import_neither_torch_nor_a_provider(
    tmp_path: Path, args: list[str], compiles: bool
) -> None:
    home = ["--home", str(tmp_path / "home")] if args[-1] != "--help" else []
    modules = _imported_by([*args, *home])
    heavy = set(HEAVY) if compiles else {*HEAVY, GRAPH}
    assert not modules.intersection(heavy), sorted(modules.intersection(heavy))


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def unreachable_openai(monkeypatch: pytest.MonkeyPatch) -> None:
    """OpenAI's client pointed at a loopback port where nothing listens."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{_closed_port()}/v1")


def test_a_provider_that_cannot_be_reached_is_one_line_naming_it_and_the_fix(
    tmp_path: Path, embedder: object, unreachable_openai: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = write_corpus(tmp_path / "docs", SMALL_CORPUS)
    home = str(tmp_path / "home")
    args = ["run", "How are runs checkpointed?", "--corpus", str(corpus), "--home", home]
    ran = runner.invoke(app, [*args, "--model", "openai:gpt-4o-mini", "--thread", "m1"])
    assert ran.exit_code == 1, ran.output
    [line] = [line for line in ran.stderr.splitlines() if line.startswith("error:")]
    assert line.startswith("error: the openai chat model 'gpt-4o-mini' could not be reached")
    assert "check the network and the provider's base URL" in line
    assert "Traceback" not in ran.stderr

    # without credentials, the thread is still listed, shown and looked into; only going on
    # with it needs the model
    monkeypatch.delenv("OPENAI_API_KEY")
    listed = runner.invoke(app, ["threads", "--home", home])
    assert listed.exit_code == 0 and "m1" in listed.stdout, listed.output
    for command in (["show", "m1"], ["history", "m1"], ["reviews"]):
        result = runner.invoke(app, [*command, "--home", home])
        assert result.exit_code == 0, (command, result.output)
    shown = runner.invoke(app, ["show", "m1", "--home", home]).stdout
    assert "model openai:gpt-4o-mini" in shown
    resumed = runner.invoke(app, ["resume", "m1", "--home", home])
    assert resumed.exit_code == 2, resumed.output
    assert resumed.stderr.startswith("error: could not create the openai chat model")


def _status_error(kind: type[openai.APIStatusError], status: int) -> openai.APIStatusError:
    request = httpx.Request("POST", "http://127.0.0.1/v1/chat/completions")
    return kind("refused", response=httpx.Response(status, request=request), body=None)


@pytest.mark.parametrize(
    ("error", "kind", "words"),
    [
        (_status_error(openai.AuthenticationError, 401), ProviderError, "refused the credentials"),
        (_status_error(openai.RateLimitError, 429), ProviderUnavailableError, "limited the rate"),
        (_status_error(openai.NotFoundError, 404), ProviderError, "does not know the model"),
        (
            openai.APITimeoutError(httpx.Request("POST", "http://127.0.0.1")),
            ProviderUnavailableError,
            "timed out",
        ),
    ],
)
def test_provider_failures_are_classified(error: Exception, kind: type, words: str) -> None:
    translated = provider_error(error, ModelSpec(provider="openai", name="gpt-4o-mini"))
    assert type(translated) is kind
    assert words in str(translated) and "openai" in str(translated)
    assert isinstance(translated, TransientError) == (kind is ProviderUnavailableError)


def test_a_programming_error_is_not_mistaken_for_a_provider_failure() -> None:
    assert provider_error(TypeError("bad"), ModelSpec(provider="openai", name="x")) is None


def test_ctrl_c_while_the_commands_load_is_one_line_and_exit_130() -> None:
    probe = (
        "import builtins, sys\n"
        "real = builtins.__import__\n"
        "def interrupting(name, *args, **kwargs):\n"
        "    if name == 'framework.cli.app':\n"
        "        raise KeyboardInterrupt\n"
        "    return real(name, *args, **kwargs)\n"
        "builtins.__import__ = interrupting\n"
        "sys.argv = ['cadre', 'threads']\n"
        "from framework.cli.main import main\n"
        "main()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 130
    assert done.stderr == "interrupted\n"


def test_ctrl_c_mid_run_says_how_to_resume_and_threads_and_show_agree(tmp_path: Path) -> None:
    lab = CrashLab(tmp_path, CrashSettings(tasks=12, max_parallel=2))
    write_held_team(lab.env)  # the run's workers wait after its first side effect: Ctrl-C
    effects = tmp_path / "effects.txt"  # always comes mid-run, however slow the machine
    env = {**lab.env, EFFECTS_VARIABLE: str(effects), HOLD_AFTER_VARIABLE: "1"}
    # A child inherits an ignored Ctrl-C (pytest run as a background job of a script ignores
    # it): a handled one is reset at exec, so the run gets the default, as in a terminal.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        run = subprocess.Popen(
            held_run_args(lab._run_args("stop")),
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
    finally:
        signal.signal(signal.SIGINT, previous if previous is not None else signal.SIG_DFL)
    try:
        wait_for_effects(effects, run, timeout=120)
        run.send_signal(signal.SIGINT)
        _, err = run.communicate(timeout=120)
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    stderr = err.decode()
    assert run.returncode == 143, stderr
    assert "Traceback" not in stderr
    home = str(lab.home.root)
    # A held task that had entered the drain never finishes: the deadline cuts it off. When the
    # signal came before any had (the tasks before them finishing), the stop comes as they end.
    stopped = (
        r"the run stopped after 8 s with \d+ step\(s\) still going on, cut off \(they run "
        r"again\); every task that had finished was saved",
        r"the run stopped once the tasks going on had finished, each one saved",
    )
    assert re.fullmatch(
        rf"stopped: SIGINT received: (?:{'|'.join(stopped)}); then "
        rf"`cadre resume stop --home {re.escape(home)}` goes on from its last checkpoint",
        stderr.splitlines()[-1],
    ), stderr

    def cadre(*args: str) -> str:
        done = subprocess.run(
            [*lab.cadre, *args, "--home", home],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    [row] = [line for line in cadre("threads").splitlines() if line.startswith("stop ")]
    [status] = [line for line in cadre("show", "stop").splitlines() if line.startswith("status:")]
    label = status.removeprefix("status: ").split(" (")[0].split(":")[0]
    assert label in {"interrupted", "failed"}
    assert f"  {label}  " in row
    finished = cadre("resume", "stop")
    assert "thread stop finished" in finished


def test_the_makefile_quotes_a_corpus_with_spaces() -> None:
    makefile = (Path(__file__).parent.parent / "Makefile").read_text(encoding="utf-8")
    assert '--corpus "$(CORPUS)"' in makefile


def test_a_debug_run_shows_the_traceback_and_a_normal_one_does_not(tmp_path: Path) -> None:
    probe = (
        "import sys\n"
        "from framework.cli import app as cli\n"
        "def broken(*args, **kwargs):\n"
        "    raise RuntimeError('boom')\n"
        "import framework.retention.pruning as retention\n"
        "retention.thread_statuses = broken\n"
        f"sys.exit(cli.run_app(sys.argv[1:] + ['threads', '--home', {str(tmp_path)!r}]))\n"
    )
    env = {key: value for key, value in os.environ.items() if key != "CADRE_DEBUG"}
    plain = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=False
    )
    assert plain.returncode == 1
    assert plain.stderr.strip().splitlines() == [
        "error: unexpected RuntimeError: boom (run again with --debug, or CADRE_DEBUG=1, for "
        "the traceback)"
    ]
    debug = subprocess.run(
        [sys.executable, "-c", probe, "--debug"], capture_output=True, text=True, check=False
    )
    assert debug.returncode == 1
    assert "Traceback (most recent call last)" in debug.stderr


@pytest.mark.parametrize("package", ["framework", "teams.supervisor", "teams.extraction"])
def test_a_lazy_package_exports_every_name_and_no_name_of_a_submodule(package: str) -> None:
    module = importlib.import_module(package)
    submodules = {info.name for info in pkgutil.iter_modules(module.__path__)}
    assert not submodules.intersection(module.__all__)  # the import system would shadow them
    for name in module.__all__:
        assert getattr(module, name) is not None


def test_a_run_over_a_corpus_imports_neither_torch_nor_sentence_transformers(
    tmp_path: Path,
) -> None:
    corpus = write_corpus(tmp_path / "docs", SMALL_CORPUS)
    home = ["--home", str(tmp_path / "home"), "--no-trace"]
    modules = _imported_by(["run", "How are runs checkpointed?", "--corpus", str(corpus), *home])
    assert not modules.intersection(HEAVY), sorted(modules.intersection(HEAVY))


def test_a_traced_run_keeps_the_msgpack_allowlist_through_the_byte_counter(
    tmp_path: Path, embedder: object, caplog: pytest.LogCaptureFixture
) -> None:
    corpus = write_corpus(tmp_path / "docs", SMALL_CORPUS)
    ran = runner.invoke(
        app, ["run", "How are runs checkpointed?", "--corpus", str(corpus), "--home", str(tmp_path)]
    )
    assert ran.exit_code == 0, ran.output
    assert "does not support msgpack allowlist" not in caplog.text
