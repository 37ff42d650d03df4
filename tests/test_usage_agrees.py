"""``cadre show`` and ``cadre trace`` count a run's tokens the same: the provider's counts where
it reports them, else one estimate marked as estimated in both.

Each run is the README's team file (a planner, reviewer, curator and formatter with structured
output, a worker calling a tool, an aggregator's plain call) under a policy file (so ``cadre
show`` prints the usage the policies recorded), traced, on a model that reports usage (a local
OpenAI-compatible server), on the same server reporting none, and on a scripted model. ``cadre
trace`` totals the ``gen_ai.usage.*`` attributes of every span of the thread (its footer).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.outputs import ChatGeneration
from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.config import ensure_config, var_child_runnable_config
from typer.testing import CliRunner, Result

from framework.cli.app import app
from framework.memory import MiniLMEmbedder
from framework.policy.usage import ReportedUsage, observed_by, response_usage, stamped
from tests.conftest import SMALL_CORPUS, write_corpus
from tests.openai_server import openai_server
from tests.test_local_models import SCRIPT, _readme_example, respond

POLICY = "budget: {run: {model_calls: 50}}\n"


def _silent(body: dict[str, Any]) -> dict[str, Any]:
    """The same answers, without the ``usage`` a provider may leave out."""
    answer = respond(body)
    answer.pop("usage")
    return answer


def _cadre(home: Path, *args: str) -> Result:
    return CliRunner().invoke(app, [*args, "--home", str(home)], env={"COLUMNS": "400"})


def _show_usage(home: Path, thread: str) -> tuple[dict[str, float], int]:
    """``cadre show``'s usage counts, and how many model calls it says were estimated."""
    lines = _cadre(home, "show", thread).stdout.splitlines()
    [usage] = [line for line in lines if line.startswith("usage: ")]
    counts = {
        key: float(amount)
        for key, amount in (part.split() for part in usage.removeprefix("usage: ").split(", "))
    }
    estimated = [line for line in lines if "reported no usage" in line]
    return counts, int(estimated[0].split()[0]) if estimated else 0


def _trace_usage(home: Path, thread: str) -> tuple[int, int, int, int]:
    """What ``cadre trace`` totals over the thread's spans: tokens in and out, model spans,
    and spans marked estimated; the footer says the same."""
    shown = _cadre(home, "trace", thread, "--json")
    assert shown.exit_code == 0, shown.output
    spans = []

    def walk(node: dict[str, Any]) -> None:
        spans.append(node["attributes"])
        for child in node["children"]:
            walk(child)

    for root in json.loads(shown.stdout)["spans"]:
        walk(root)
    models = [span for span in spans if span.get("cadre.span.kind") == "model"]
    tokens_in = sum(span.get("gen_ai.usage.input_tokens", 0) for span in spans)
    tokens_out = sum(span.get("gen_ai.usage.output_tokens", 0) for span in spans)
    estimated = sum(span.get("cadre.usage.estimated") is True for span in models)
    footer = _cadre(home, "trace", thread).stdout.strip().splitlines()[-1]
    assert f"tokens {tokens_in} in / {tokens_out} out" in footer, footer
    if estimated:
        assert f"({estimated} model calls estimated)" in footer, footer
    return tokens_in, tokens_out, len(models), estimated


@pytest.fixture
def readme_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, embedder: MiniLMEmbedder
) -> Iterator[Callable[..., Path]]:
    monkeypatch.chdir(tmp_path)
    write_corpus(tmp_path / "docs", SMALL_CORPUS)
    (tmp_path / "policy.yaml").write_text(POLICY, encoding="utf-8")
    (tmp_path / "answers.yaml").write_text(SCRIPT, encoding="utf-8")
    args = _readme_example(tmp_path)
    home = tmp_path / "home"

    def run(thread: str, model: str) -> Path:
        given = list(args)
        given[given.index("--model") + 1] = model
        ran = _cadre(home, *given, "--policy", str(tmp_path / "policy.yaml"), "--thread", thread)
        assert ran.exit_code == 0, ran.output
        return home

    yield run


@pytest.mark.parametrize("reports", [True, False])
def test_show_and_trace_count_the_same_tokens(
    readme_run: Callable[..., Path], reports: bool
) -> None:
    with openai_server(respond if reports else _silent) as server:
        home = readme_run("t", f"openai-compatible:qwen2.5:7b@{server.base_url}")
        calls = len(server.requests)
    counts, estimated = _show_usage(home, "t")
    tokens_in, tokens_out, models, marked = _trace_usage(home, "t")
    assert counts["model_calls"] == calls == models  # every call has its span
    assert (counts["input_tokens"], counts["output_tokens"]) == (tokens_in, tokens_out)
    if reports:  # the server's 10 in / 5 out per call
        assert (tokens_in, tokens_out) == (10 * calls, 5 * calls) and estimated == marked == 0
    else:
        assert estimated == marked == calls


def test_a_scripted_models_counts_agree_too(readme_run: Callable[..., Path]) -> None:
    home = readme_run("s", "scripted:answers.yaml")
    counts, estimated = _show_usage(home, "s")
    tokens_in, tokens_out, models, marked = _trace_usage(home, "s")
    assert counts["model_calls"] == models and estimated == marked == 0
    assert (counts["input_tokens"], counts["output_tokens"]) == (tokens_in, tokens_out)


def test_observing_a_call_keeps_the_callbacks_it_inherits() -> None:
    """A governed call adds its usage counter to the node's callbacks (its span's handler)
    instead of replacing them."""
    inherited = ReportedUsage()
    token = var_child_runnable_config.set({"callbacks": [inherited]})
    try:
        counter = ReportedUsage()
        config: RunnableConfig = observed_by(None, counter)
        assert ensure_config(config)["callbacks"] == [inherited, counter]
    finally:
        var_child_runnable_config.reset(token)


def test_one_count_reads_the_provider_else_estimates_and_marks() -> None:
    asked = [HumanMessage("x" * 40)]
    answer = AIMessage("y" * 8)
    assert response_usage(asked, [ChatGeneration(message=answer)]) == {
        "input_tokens": 10,
        "output_tokens": 2,
        "estimated": 1,
    }
    legacy = {"token_usage": {"prompt_tokens": 7, "completion_tokens": 3}}
    assert response_usage(asked, [ChatGeneration(message=answer)], legacy) == {
        "input_tokens": 7,
        "output_tokens": 3,
    }
    marked = stamped(answer, {"input_tokens": 10, "output_tokens": 2, "estimated": 1})
    assert response_usage([], [ChatGeneration(message=marked)])["estimated"] == 1
    assert stamped(marked, {"input_tokens": 10, "output_tokens": 2, "estimated": 1}) is marked
