"""One trace across processes: a caller's W3C trace context comes in at ``cadre serve``'s door,
the run executes under it, and a ``remote_graph:`` kind sends it on to the server that answers
its task, whose run joins the same trace (two real servers, each with its own home); an MCP
tool called over HTTP is sent the context in its call's ``_meta`` (a real MCP server reports
what it got), and ``cadre serve``'s MCP door takes it from there (over the HTTP header), a
malformed one starting a trace of its own.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest
from langgraph.checkpoint.memory import InMemorySaver
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from framework.engine.builder import compile_team
from framework.memory import Corpus
from framework.runs.runner import arun_team, run_team
from framework.runs.teams import TeamSetup
from framework.testing import Reply
from teams.configured.app import team_from_file
from telemetry.instrument import Telemetry
from tests.conftest import SMALL_CORPUS, write_corpus
from tests.served import CADRE, Served, make_tokens, start
from tests.test_mcp_tools import http_demo
from tests.test_team_config import one_tool_task

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
CALLER_SPAN = "00f067aa0ba902b7"
QUESTION = "How are checkpoints encrypted?"


def _spans(home: Path) -> list[dict[str, Any]]:
    path = home / "traces" / "spans.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def test_a_question_answered_by_two_servers_is_one_trace(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "docs", SMALL_CORPUS)
    remote = Served(url="", home=tmp_path / "remote", database=None)
    remote.tokens = make_tokens(remote.home, None, {"ada": ("acme", "run,review")})
    team = tmp_path / "top.yaml"
    with start(remote, corpus=corpus):
        kind = f"url: '{remote.url}', assistant: research, token_env: REMOTE_TOKEN"
        team.write_text(f"name: top\nkinds:\n  - name: remote\n    remote_graph: {{{kind}}}\n")
        local = Served(url="", home=tmp_path / "local", database=None)
        env = {**os.environ, "REMOTE_TOKEN": remote.tokens["ada"]}
        options = ["--team-config", str(team)]
        with start(local, corpus=corpus, env=env, options=options), local.http() as http:
            answer = http.post(
                "/runs/wait",
                json={"assistant_id": "top", "input": {"question": QUESTION}},
                headers={"traceparent": f"00-{TRACE_ID}-{CALLER_SPAN}-01"},
            )
            assert answer.status_code == 200, answer.text
            assert "AES" in json.dumps(answer.json())
    here, there = _spans(local.home), _spans(remote.home)
    assert here and there
    assert {span["trace_id"] for span in here} == {TRACE_ID}
    assert len([span for span in here if span["parent_span_id"] == CALLER_SPAN]) == 1  # the run
    assert {span["trace_id"] for span in there} == {TRACE_ID}  # the remote's run joined it
    ours = {span["span_id"]: span for span in here}
    [joined] = [span for span in there if span["parent_span_id"] in ours]  # the remote's run
    assert ours[joined["parent_span_id"]]["name"] == "execute_tool remote"  # the call made


@pytest.mark.parametrize("traceparent", [f"00-{TRACE_ID}-{CALLER_SPAN}-01", "00-not-a-trace"])
def test_a_cadre_run_joins_the_trace_its_parent_process_names(
    tmp_path: Path, traceparent: str
) -> None:
    # OpenTelemetry's environment carriers: a CI job or a script that starts cadre names its
    # trace in TRACEPARENT, and the run's spans join it (a malformed one: a trace of its own)
    corpus = write_corpus(tmp_path / "docs", SMALL_CORPUS)
    home = tmp_path / "home"
    done = subprocess.run(
        [*CADRE, "run", QUESTION, "--corpus", str(corpus), "--home", str(home)],
        env={**os.environ, "TRACEPARENT": traceparent},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    spans = _spans(home)
    traces = {span["trace_id"] for span in spans}
    roots = [span for span in spans if span["parent_span_id"] == CALLER_SPAN]
    if traceparent.endswith("-01"):
        assert traces == {TRACE_ID} and len(roots) == 1
    else:
        assert len(traces) == 1 and traces != {TRACE_ID} and not roots


# -- MCP -------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_an_mcp_tool_over_http_is_sent_the_callers_trace_in_its_meta(
    tmp_path: Path, small_corpus: Corpus, mode: str
) -> None:
    spans = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(spans))
    telemetry = Telemetry(provider, MeterProvider())
    team = tmp_path / "traced.yaml"
    with http_demo() as server:
        team.write_text(
            "kinds:\n  - {name: traced, mcp: [demo]}\n"
            f"mcp_servers:\n  - {{name: demo, transport: http, url: '{server.url}'}}\n",
            encoding="utf-8",
        )
        setup = TeamSetup(
            corpus=small_corpus,
            store=small_corpus.store,
            model=one_tool_task("traced", "traceparent", {}, Reply("The server saw it.")),
            middleware=telemetry.middleware,
        )
        with setup.resources:
            app = compile_team(team_from_file(team)(setup), checkpointer=InMemorySaver())
            question = {"question": "Which trace am I in?"}
            if mode == "sync":
                final = run_team(app, question, "t", observer=telemetry).state
            else:
                final = asyncio.run(arun_team(app, question, "t", observer=telemetry)).state
    telemetry.close()
    [result] = final["worker_results"].values()
    assert result.status == "ok", result.error
    seen = result.evidence[0].text  # what the server found in the call's _meta
    assert seen.count("-") == 3, f"the server saw no traceparent: {seen!r}"
    version, trace_id, parent, _ = seen.split("-")
    finished = {f"{span.context.span_id:016x}": span for span in spans.get_finished_spans()}
    assert version == "00"
    assert {f"{span.context.trace_id:032x}" for span in finished.values()} == {trace_id}
    assert finished[parent].name == "execute_tool traceparent"  # the call that was made


async def _call(served: Served, meta: dict[str, str] | None, headers: dict[str, str]) -> str:
    """Ask ``research`` through the MCP door with ``meta`` as the call's ``_meta`` and
    ``headers`` on its HTTP requests; the thread it ran on."""
    headers = {"Authorization": f"Bearer {served.tokens['ada']}", **headers}
    async with (
        httpx.AsyncClient(headers=headers, timeout=httpx.Timeout(30, read=120)) as http,
        streamable_http_client(f"{served.url}/mcp", http_client=http) as (read, write, _),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        result = await session.call_tool("research", {"question": QUESTION}, meta=meta)
    assert not result.isError, result
    assert result.structuredContent is not None
    assert result.structuredContent["status"] == "answered"
    return str(result.structuredContent["thread_id"])


def test_the_mcp_door_takes_the_callers_trace_from_the_calls_meta(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "docs", SMALL_CORPUS)
    served = Served(url="", home=tmp_path / "home", database=None)
    served.tokens = make_tokens(served.home, None, {"ada": ("acme", "run,review")})
    header_trace = "0af7651916cd43dd8448eb211c80319c"
    header = {"traceparent": f"00-{header_trace}-b7ad6b7169203331-01"}
    in_meta = {"traceparent": f"00-{TRACE_ID}-{CALLER_SPAN}-01", "tracestate": "rojo=00f067aa"}
    malformed = {"traceparent": "00-nonsense-01"}
    with start(served, corpus=corpus):
        threads = {
            "meta": asyncio.run(_call(served, in_meta, {})),
            "meta over header": asyncio.run(_call(served, in_meta, header)),
            "header": asyncio.run(_call(served, None, header)),
            "malformed meta": asyncio.run(_call(served, malformed, {})),
            "malformed meta, header": asyncio.run(_call(served, malformed, header)),
        }
    spans = _spans(served.home)
    runs = {
        case: [span for span in spans if span["attributes"].get("cadre.thread_id") == thread]
        for case, thread in threads.items()
    }
    for case in ("meta", "meta over header"):
        assert {span["trace_id"] for span in runs[case]} == {TRACE_ID}, case
        [root] = [span for span in runs[case] if span["parent_span_id"] == CALLER_SPAN]
        assert root["name"] == "cadre.run", root["name"]
    for case in ("header", "malformed meta, header"):
        assert {span["trace_id"] for span in runs[case]} == {header_trace}, case
    alone = {span["trace_id"] for span in runs["malformed meta"]}
    assert len(alone) == 1 and not alone & {TRACE_ID, header_trace}  # a trace of its own
