"""Telemetry: the span tree of runs (sync and async), model and tool spans, metrics, exports."""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from opentelemetry import trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from typer.testing import CliRunner

from framework.cli.app import app as cli
from framework.engine.builder import TeamSettings, build_team, compile_team
from framework.errors import ConfigError
from framework.memory import Corpus
from framework.persistence.checkpointer import default_serializer, sqlite_checkpointer
from framework.runs.runner import arun_team, run_team
from framework.testing import Reply, ScriptedChatModel, Structured
from teams.meta import CitationCompliance, EvidenceRisk, build_meta_coordinator
from teams.research import build_research_team, offline_roles
from teams.research.model_roles import build_model_roles
from teams.research.schemas import FactsDraft
from telemetry.instrument import Telemetry
from telemetry.settings import TelemetrySettings
from tests.conftest import SMALL_CORPUS, write_corpus
from tests.roles import CountingPlanner, ProgrammableWorker, make_roles
from tests.test_research_model import plan, report, search, verdict


class Recorder:
    """A Telemetry over in-memory span and metric readers."""

    def __init__(self, capture_content: bool = False) -> None:
        self.spans = InMemorySpanExporter()
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(self.spans))
        self.reader = InMemoryMetricReader()
        self.telemetry = Telemetry(
            provider, MeterProvider(metric_readers=[self.reader]), capture_content=capture_content
        )

    def finished(self) -> list[ReadableSpan]:
        return list(self.spans.get_finished_spans())

    def metrics(self) -> dict[str, list[Any]]:
        data = self.reader.get_metrics_data()
        found: dict[str, list[Any]] = {}
        assert data is not None
        for resource in data.resource_metrics:
            for scope in resource.scope_metrics:
                for metric in scope.metrics:
                    found.setdefault(metric.name, []).extend(metric.data.data_points)
        return found


@pytest.fixture
def recorder() -> Iterator[Recorder]:
    recorder = Recorder()
    yield recorder
    recorder.telemetry.close()


def children(spans: Sequence[ReadableSpan], parent: ReadableSpan) -> list[ReadableSpan]:
    """The children of ``parent`` in start order: use it only where they ran one after another
    (parallel tasks start in any order; see :func:`tasks_of`)."""
    return sorted(
        (s for s in spans if s.parent and s.parent.span_id == parent.context.span_id),
        key=lambda s: s.start_time or 0,
    )


def tasks_of(spans: Sequence[ReadableSpan], step: ReadableSpan) -> list[ReadableSpan]:
    """The task spans under a step span by task id: parallel tasks have no order in time."""
    return sorted(children(spans, step), key=lambda s: str(s.attributes["cadre.task.id"]))


def names(spans: Sequence[ReadableSpan]) -> list[str]:
    return [s.name for s in spans]


def roots(spans: Sequence[ReadableSpan]) -> list[ReadableSpan]:
    ids = {s.context.span_id for s in spans}
    return [s for s in spans if s.parent is None or s.parent.span_id not in ids]


def _meta(corpus: Corpus, telemetry: Telemetry) -> Any:
    research = build_research_team(
        offline_roles(corpus, corpus.store), middleware=telemetry.middleware
    )
    return build_meta_coordinator(
        research, EvidenceRisk(), CitationCompliance(), telemetry.middleware
    )


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_meta_run_is_one_trace_with_the_expected_tree(
    small_corpus: Corpus, recorder: Recorder, mode: str
) -> None:
    app = compile_team(_meta(small_corpus, recorder.telemetry), checkpointer=InMemorySaver())
    question = {"question": "How are runs checkpointed, and how do workers retry errors?"}
    if mode == "sync":
        run_team(app, question, "t-tree", observer=recorder.telemetry)
    else:
        asyncio.run(arun_team(app, question, "t-tree", observer=recorder.telemetry))
    spans = recorder.finished()
    assert len({s.context.trace_id for s in spans}) == 1
    [run] = roots(spans)
    assert run.name == "cadre.run"
    assert run.attributes["cadre.run.outcome"] == "finished"
    assert all(s.attributes["cadre.thread_id"] == "t-tree" for s in spans)
    [meta] = children(spans, run)
    assert names(children(spans, meta)) == [
        "cadre.node intake",
        "cadre.team research",
        "cadre.node risk_assessment",
        "cadre.node compliance_check",
    ]
    research = children(spans, meta)[1]
    assert research.attributes["cadre.team.path"] == "meta/research"
    assert names(children(spans, research)) == [
        "cadre.node planner",
        "cadre.node dispatcher",
        "cadre.step worker",
        "cadre.node aggregator",
        "cadre.node reviewer",
        "cadre.node memory_curator",
        "cadre.node formatter",
    ]
    step = children(spans, research)[2]
    tasks = tasks_of(spans, step)
    assert names(tasks) == ["cadre.task q0", "cadre.task q1", "cadre.task q2"]
    assert [t.attributes["cadre.task.id"] for t in tasks] == ["q0", "q1", "q2"]
    assert step.start_time <= min(t.start_time for t in tasks)
    assert step.end_time >= max(t.end_time for t in tasks)
    planner = children(spans, research)[0]
    assert planner.attributes["cadre.control_signal"] == "dispatch"
    assert planner.attributes["gen_ai.operation.name"] == "invoke_agent"
    assert planner.attributes["gen_ai.agent.name"] == "research.planner"
    assert planner.attributes["cadre.checkpoint.ns"].startswith("research_team:")
    assert "cadre.checkpoint.id" in planner.attributes
    assert isinstance(planner.attributes["cadre.step"], int)
    for parent in (run, meta, research, step):
        assert parent.start_time <= min(c.start_time for c in children(spans, parent))
        assert parent.end_time >= max(c.end_time for c in children(spans, parent))


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_task_spans_time_execution_not_the_queue(recorder: Recorder, mode: str) -> None:
    worker = ProgrammableWorker(delay=0.05)
    graph = build_team(
        make_roles(CountingPlanner(n=4), worker),
        TeamSettings(name="research", max_parallel=1, middleware=recorder.telemetry.middleware),
    )
    app = compile_team(graph)
    if mode == "sync":
        run_team(app, {"question": "q"}, "t-cap", observer=recorder.telemetry)
    else:
        asyncio.run(arun_team(app, {"question": "q"}, "t-cap", observer=recorder.telemetry))
    tasks = [s for s in recorder.finished() if s.name.startswith("cadre.task")]
    assert len(tasks) == 4
    assert worker.peak == 1
    durations = [((s.end_time or 0) - (s.start_time or 0)) / 1e9 for s in tasks]
    assert all(d >= 0.045 for d in durations), durations  # each span holds its execution
    # ... and no queueing: a span opened when its task was queued would overlap the one
    # running before it (no upper bound on durations: a busy machine may stretch a sleep).
    ordered = sorted(tasks, key=lambda s: s.start_time or 0)
    assert all(a.end_time <= b.start_time for a, b in itertools.pairwise(ordered))


def test_failed_tasks_set_error_status_and_count(recorder: Recorder) -> None:
    worker = ProgrammableWorker(fail=lambda t: ValueError("bad input") if t.id == "t1" else None)
    graph = build_team(
        make_roles(CountingPlanner(n=3), worker),
        TeamSettings(name="research", middleware=recorder.telemetry.middleware),
    )
    run_team(compile_team(graph), {"question": "q"}, "t-fail", observer=recorder.telemetry)
    [failed] = [s for s in recorder.finished() if s.name == "cadre.task t1"]
    assert failed.status.status_code == trace.StatusCode.ERROR
    assert failed.status.description == "ValueError: bad input"
    [event] = [e for e in failed.events if e.name == "exception"]
    assert event.attributes == {"exception.type": "ValueError", "exception.message": "bad input"}
    others = [s for s in recorder.finished() if s.name in ("cadre.task t0", "cadre.task t2")]
    assert all(s.status.status_code == trace.StatusCode.UNSET for s in others)
    metrics = recorder.metrics()
    assert sum(p.value for p in metrics["cadre.tasks.failed"]) == 1
    assert [p.sum for p in metrics["cadre.dispatch.width"]] == [3]


def test_a_node_that_raises_records_the_exception(recorder: Recorder) -> None:
    planner = CountingPlanner(n=0, direct_answer=None)
    planner.plan = lambda state, context: (_ for _ in ()).throw(RuntimeError("planner down"))  # type: ignore[method-assign]
    graph = build_team(make_roles(planner), TeamSettings(middleware=recorder.telemetry.middleware))
    with pytest.raises(RuntimeError, match="planner down"):
        run_team(compile_team(graph), {"question": "q"}, "t-raise", observer=recorder.telemetry)
    spans = recorder.finished()
    [node] = [s for s in spans if s.name == "cadre.node planner"]
    [run] = [s for s in spans if s.name == "cadre.run"]
    for span in (node, run):
        assert span.status.status_code == trace.StatusCode.ERROR
        assert any(e.name == "exception" for e in span.events)
    assert run.attributes["cadre.run.outcome"] == "failed"


def _model_script() -> list[Any]:
    return [
        plan(("How are checkpoints protected?", "checkpoint encryption")),
        *search("q0", "checkpoint encryption", "Encrypted with AES (docs/checkpoints.md:3)."),
        Reply("Checkpoints use AES (docs/checkpoints.md:3).", match="Findings:"),
        verdict("finish", 0.9, "answered"),
        Structured(FactsDraft(facts=[]), match="Evidence:"),
        report(("Storage", "Checkpoints are encrypted with AES.", "docs/checkpoints.md:3")),
    ]


@pytest.mark.parametrize("capture", [False, True])
def test_model_and_tool_calls_are_spans_under_their_node(
    small_corpus: Corpus, capture: bool
) -> None:
    recorder = Recorder(capture_content=capture)
    model = ScriptedChatModel(_model_script())
    roles = build_model_roles(model, small_corpus, small_corpus.store)
    graph = build_research_team(roles, middleware=recorder.telemetry.middleware)
    run_team(
        compile_team(graph),
        {"question": "How are checkpoints protected?"},
        "t-model",
        observer=recorder.telemetry,
    )
    model.assert_complete()
    spans = recorder.finished()
    by_id = {s.context.span_id: s for s in spans}
    chats = [s for s in spans if s.name == "chat scripted"]
    tools = [s for s in spans if s.name == "execute_tool search_corpus"]
    assert len(chats) == 7 and len(tools) == 1  # the worker asks twice: search, then answer
    [task] = [s for s in spans if s.name == "cadre.task q0"]
    assert tools[0].parent.span_id == task.context.span_id  # type: ignore[union-attr]
    parents = {by_id[s.parent.span_id].name for s in chats if s.parent}  # type: ignore[union-attr]
    assert parents == {
        "cadre.node planner",
        "cadre.task q0",
        "cadre.node aggregator",
        "cadre.node reviewer",
        "cadre.node memory_curator",
        "cadre.node formatter",
    }
    chat = chats[0]
    assert chat.kind == trace.SpanKind.CLIENT
    assert chat.attributes["gen_ai.operation.name"] == "chat"
    assert chat.attributes["gen_ai.request.model"] == "scripted"
    assert chat.attributes["gen_ai.usage.input_tokens"] > 0
    assert chat.attributes["cadre.thread_id"] == "t-model"
    assert tools[0].attributes["gen_ai.tool.name"] == "search_corpus"
    content_keys = {"gen_ai.input.messages", "gen_ai.tool.call.arguments", "cadre.input"}
    seen = {key for s in spans for key in s.attributes if key in content_keys}
    assert seen == (content_keys if capture else set())
    tokens = recorder.metrics()["gen_ai.client.token.usage"]
    assert {p.attributes["gen_ai.token.type"] for p in tokens} == {"input", "output"}
    recorder.telemetry.close()


def test_pause_and_resume_share_a_trace_and_record_the_wait(
    small_corpus: Corpus, recorder: Recorder, tmp_path: Path
) -> None:
    serde = recorder.telemetry.serializer(default_serializer())
    checkpointer = sqlite_checkpointer(tmp_path / "c.sqlite", serde)
    app = compile_team(
        _meta(small_corpus, recorder.telemetry),
        checkpointer=checkpointer,
        interrupt_before=["risk_assessment"],
    )
    first = run_team(
        app, {"question": "How are runs checkpointed?"}, "t-pause", observer=recorder.telemetry
    )
    assert first.paused_before == ("risk_assessment",)
    second = run_team(app, None, "t-pause", observer=recorder.telemetry)
    assert second.paused_before == ()
    spans = recorder.finished()
    runs = sorted((s for s in spans if s.name == "cadre.run"), key=lambda s: s.start_time or 0)
    assert len(runs) == 2 and len({s.context.trace_id for s in spans}) == 1
    assert runs[0].attributes["cadre.run.outcome"] == "paused"
    assert runs[0].attributes["cadre.paused_before"] == ("risk_assessment",)
    [link] = runs[1].links
    assert link.context.span_id == runs[0].context.span_id
    assert link.attributes == {"cadre.link.type": "resume"}
    assert runs[1].parent.span_id == runs[0].context.span_id  # type: ignore[union-attr]
    assert roots(spans) == [runs[0]]
    metrics = recorder.metrics()
    assert len(metrics["cadre.review.wait"]) == 1
    assert sum(p.value for p in metrics["cadre.checkpoint.bytes"]) > 1000
    checkpointer.conn.close()


def test_no_global_tracer_provider_is_installed(recorder: Recorder) -> None:
    before = trace.get_tracer_provider()
    graph = build_team(make_roles(), TeamSettings(middleware=recorder.telemetry.middleware))
    run_team(compile_team(graph), {"question": "q"}, "t-global", observer=recorder.telemetry)
    assert trace.get_tracer_provider() is before
    assert not isinstance(before, TracerProvider)


def test_otlp_is_chosen_by_the_standard_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert TelemetrySettings.from_environment(tmp_path).exporter == "jsonl"
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318")
    assert TelemetrySettings.from_environment(tmp_path).exporter == "otlp"
    with pytest.raises(ConfigError, match="traces_dir"):
        TelemetrySettings(exporter="jsonl")


def test_cadre_run_writes_spans_that_cadre_trace_shows(tmp_path: Path, embedder: object) -> None:
    corpus = write_corpus(tmp_path / "docs", SMALL_CORPUS)
    home = tmp_path / "home"
    runner = CliRunner()

    def run(folder: Path, *extra: str) -> Any:
        args = ["run", "How do workers retry?", "--corpus", str(corpus), "--home", str(folder)]
        return runner.invoke(cli, [*args, *extra])

    done = run(home, "--thread", "t-cli")
    assert done.exit_code == 0, done.stderr
    lines = (home / "traces" / "spans.jsonl").read_text().splitlines()
    spans = [json.loads(line) for line in lines]
    assert {s["attributes"]["cadre.thread_id"] for s in spans} == {"t-cli"}
    assert sum(1 for s in spans if s["parent_span_id"] is None) == 1
    assert (home / "traces" / "metrics.jsonl").stat().st_size > 0
    shown = runner.invoke(cli, ["trace", "t-cli", "--home", str(home)])
    assert shown.exit_code == 0
    for name in ("cadre.run", "cadre.team research", "cadre.task q0", "cadre.node formatter"):
        assert name in shown.stdout
    quiet = tmp_path / "quiet"
    done = run(quiet, "--no-trace")
    assert done.exit_code == 0
    assert not (quiet / "traces").exists()


def test_a_pause_names_its_review_request(recorder: Recorder) -> None:
    from langgraph.types import interrupt

    class AskingPlanner(CountingPlanner):
        def plan(self, state: Any, context: Any) -> Any:
            interrupt({"kind": "plan"})
            return super().plan(state, context)

    graph = build_team(
        make_roles(AskingPlanner(n=1)), TeamSettings(middleware=recorder.telemetry.middleware)
    )
    app = compile_team(graph, checkpointer=InMemorySaver())
    paused = run_team(app, {"question": "q"}, "t-ask", observer=recorder.telemetry)
    state = app.get_state({"configurable": {"thread_id": "t-ask"}})
    [request] = [i.id for task in state.tasks for i in task.interrupts]
    assert paused.paused_before == ("planner",)
    [planner] = [s for s in recorder.finished() if s.name == "cadre.node planner"]
    assert planner.attributes["cadre.review.request_id"] == request
    assert any(e.name == "interrupt" for e in planner.events)
    assert planner.status.status_code == trace.StatusCode.UNSET


def test_cadre_trace_draws_a_paused_and_resumed_run_as_one_picture(
    small_corpus: Corpus, tmp_path: Path
) -> None:
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    from telemetry.export import JsonLinesSpanExporter
    from telemetry.view import build_tree, load_spans

    spans_file = tmp_path / "traces" / "spans.jsonl"
    provider = TracerProvider()
    provider.add_span_processor(BatchSpanProcessor(JsonLinesSpanExporter(spans_file)))
    telemetry = Telemetry(provider)
    app = compile_team(
        _meta(small_corpus, telemetry),
        checkpointer=InMemorySaver(),
        interrupt_before=["risk_assessment"],
    )
    run_team(app, {"question": "How are runs checkpointed?"}, "t-pic", observer=telemetry)
    run_team(app, None, "t-pic", observer=telemetry)
    telemetry.close()
    [root] = build_tree(load_spans(spans_file, "t-pic"))
    assert root.span.name == "cadre.run"
    assert root.span.attributes["cadre.run.outcome"] == "paused"
    resumed = [child for child in root.children if child.span.name == "cadre.run"]
    assert [r.span.attributes["cadre.run.outcome"] for r in resumed] == ["finished"]
    shown = CliRunner().invoke(cli, ["trace", "t-pic", "--home", str(tmp_path)])
    assert shown.exit_code == 0, shown.stderr
    assert "paused before risk_assessment" in shown.stdout
    assert "resumed" in shown.stdout


def test_a_replan_that_drops_old_results_is_traced(recorder: Recorder) -> None:
    from framework.engine.records import ReviewVerdict
    from tests.roles import ScriptedReviewer

    reviewer = ScriptedReviewer([ReviewVerdict(decision="revise_plan", confidence=0.2)])
    graph = build_team(
        make_roles(CountingPlanner(n=2, replan_n=1), reviewer=reviewer),
        TeamSettings(middleware=recorder.telemetry.middleware),
    )
    final = run_team(
        compile_team(graph), {"question": "q"}, "t-replan", observer=recorder.telemetry
    )
    assert list(final.state["worker_results"]) == ["r2-0"]
    planners = [s for s in recorder.finished() if s.name == "cadre.node planner"]
    assert len(planners) == 2
    assert all(s.status.status_code == trace.StatusCode.UNSET for s in planners)
