"""The trace view: spans read back from JSON lines, their tree, the waterfall, ``cadre trace``."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from typer.testing import CliRunner

from framework.cli.app import app
from telemetry.export import SPANS_FILE_NAME
from telemetry.view import (
    SpanNode,
    build_tree,
    load_spans,
    read_span_file,
    render_waterfall,
    tree_to_json,
)

T0 = 1_700_000_000_000_000_000
META_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
PAUSE_TRACE = "0af7651916cd43dd8448eb211c80319c"
OTHER_TRACE = "f" * 32
CORRUPT_TAIL = '{"trace_id": "4bf92f3577b34da6a3ce929d0e0e4736", "span_id": "00000000'


def span(
    number: int,
    name: str,
    kind: str,
    parent: int | None,
    window: tuple[float, float],
    *,
    trace: str = META_TRACE,
    thread: str | None = "t-meta",
    error: tuple[str, str] | None = None,
    attributes: dict[str, Any] | None = None,
    links: Sequence[dict[str, Any]] = (),
) -> dict[str, Any]:
    """One span line as the JSON-lines exporter writes it; ``window`` in ms after :data:`T0`."""
    start_ms, end_ms = window
    attrs: dict[str, Any] = {"cadre.span.kind": kind}
    if thread is not None:
        attrs["cadre.thread_id"] = thread
    attrs.update(attributes or {})
    start, end = T0 + int(start_ms * 1e6), T0 + int(end_ms * 1e6)
    events = []
    if error is not None:
        exc = {"exception.type": error[0], "exception.message": error[1]}
        events.append({"name": "exception", "time_unix_nano": end, "attributes": exc})
    return {
        "trace_id": trace,
        "span_id": f"{number:016x}",
        "parent_span_id": None if parent is None else f"{parent:016x}",
        "name": name,
        "kind": "CLIENT" if kind in ("model", "tool") else "INTERNAL",
        "start_time_unix_nano": start,
        "end_time_unix_nano": end,
        "status": {
            "code": "ERROR" if error else "OK",
            "description": f"{error[0]}: {error[1]}" if error else None,
        },
        "attributes": attrs,
        "events": events,
        "links": list(links),
        "resource": {"service.name": "cadre"},
        "scope": "cadre",
    }


def node(number: int, node_name: str, parent: int, start: float, end: float) -> dict[str, Any]:
    team_path = "meta" if parent == 2 else "meta/research_team"
    extra = {"cadre.node": node_name, "cadre.team.path": team_path}
    return span(number, f"cadre.node {node_name}", "node", parent, (start, end), attributes=extra)


def task(number: int, task_id: str, start: float, end: float, **kwargs: Any) -> dict[str, Any]:
    extra = {"cadre.node": "worker", "cadre.team.path": "meta/research_team"}
    extra["cadre.task.id"] = task_id
    return span(
        number, f"cadre.task {task_id}", "task", 8, (start, end), attributes=extra, **kwargs
    )


def meta_run() -> list[dict[str, Any]]:
    """A finished meta run whose research team fans out three overlapping tasks; q3 fails."""
    model = {
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": "gpt-4o",
        "gen_ai.usage.input_tokens": 120,
        "gen_ai.usage.output_tokens": 45,
    }
    tool = {"gen_ai.tool.name": "search_corpus"}
    return [
        span(1, "cadre.run", "run", None, (0, 1000), attributes={"cadre.run.outcome": "finished"}),
        span(2, "cadre.team meta", "team", 1, (1, 999)),
        node(3, "intake", 2, 2, 50),
        span(4, "cadre.team research_team", "team", 2, (55, 900)),
        node(5, "planner", 4, 60, 150),
        span(6, "chat gpt-4o", "model", 5, (65, 145), attributes=model),
        node(7, "dispatcher", 4, 155, 160),
        span(8, "cadre.step worker", "step", 4, (165, 600)),
        task(9, "q1", 170, 550),
        # A tool span without a thread id: kept, since it belongs to the thread's trace.
        span(10, "execute_tool search_corpus", "tool", 9, (180, 220), thread=None, attributes=tool),
        task(11, "q2", 172, 500),
        task(12, "q3", 175, 400, error=("TimeoutError", "worker timed out after 0.2 s")),
        node(13, "aggregator", 4, 605, 700),
        node(14, "risk_assessment", 2, 905, 950),
        node(15, "compliance_check", 2, 955, 990),
    ]


def other_thread() -> list[dict[str, Any]]:
    """Spans of another thread in the same file, one of them without a thread id."""
    return [
        span(1, "cadre.run", "run", None, (0, 10), trace=OTHER_TRACE, thread="t-other"),
        span(2, "chat gpt-4o", "model", 1, (1, 9), trace=OTHER_TRACE, thread=None),
    ]


def paused_and_resumed(*, nest_resume: bool = False) -> list[dict[str, Any]]:
    """A run that pauses before the reviewer, and the part that resumes it a minute later."""
    first = {"cadre.run.outcome": "paused", "cadre.paused_before": ["reviewer"]}
    second = {"cadre.run.outcome": "finished", "cadre.run.resumed": True}
    link = {"trace_id": PAUSE_TRACE, "span_id": f"{21:016x}", "attributes": {}}
    link["attributes"] = {"cadre.link.type": "resume"}
    common: dict[str, Any] = {"trace": PAUSE_TRACE, "thread": "t-pause"}
    return [
        span(21, "cadre.run", "run", None, (0, 300), attributes=first, **common),
        span(22, "cadre.team research_team", "team", 21, (1, 299), **common),
        span(23, "cadre.node planner", "node", 22, (2, 290), **common),
        span(
            31,
            "cadre.run",
            "run",
            21 if nest_resume else None,
            (60_000, 60_500),
            attributes=second,
            links=[link],
            **common,
        ),
        span(32, "cadre.team research_team", "team", 31, (60_001, 60_499), **common),
        span(33, "cadre.node reviewer", "node", 32, (60_002, 60_490), **common),
    ]


def write_spans(path: Path, spans: Iterable[dict[str, Any]], tail: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = "".join(json.dumps(item) + "\n" for item in spans)
    path.write_text(lines + tail, encoding="utf-8")
    return path


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A data home whose spans file holds three threads and a line cut short by a crash."""
    root = tmp_path / "home"
    spans = [*meta_run(), *other_thread(), *paused_and_resumed()]
    write_spans(root / "traces" / SPANS_FILE_NAME, spans, tail=CORRUPT_TAIL)
    return root


@pytest.fixture
def spans_file(home: Path) -> Path:
    return home / "traces" / SPANS_FILE_NAME


def shape(nodes: Sequence[SpanNode]) -> list[Any]:
    """Names, nested: ``[name, [children...]]`` for a node with children, else ``name``."""
    return [
        [item.span.name, shape(item.children)] if item.children else item.span.name
        for item in nodes
    ]


def draw(tree: Sequence[SpanNode], skipped_lines: int = 0) -> list[str]:
    console = Console(record=True, width=120)
    render_waterfall(tree, console, skipped_lines=skipped_lines)
    return console.export_text().splitlines()


def row(lines: Sequence[str], name: str) -> str:
    (found,) = [line for line in lines if line.strip().startswith(name)]
    return found


def bar_cells(line: str) -> set[int]:
    return {column for column, char in enumerate(line) if char == "█"}


# -- reading -----------------------------------------------------------------------------------


def test_spans_of_one_thread_are_read_and_the_cut_line_is_counted(spans_file: Path) -> None:
    loaded = read_span_file(spans_file, "t-meta")
    assert loaded.skipped_lines == 1
    assert len(loaded.spans) == 15
    assert {span.trace_id for span in loaded.spans} == {META_TRACE}
    tool = next(span for span in loaded.spans if span.name.startswith("execute_tool"))
    assert tool.thread_id is None
    assert [span.span_id for span in load_spans(spans_file, "t-meta")] == [
        span.span_id for span in loaded.spans
    ]
    assert len(load_spans(spans_file, "t-other")) == 2
    assert load_spans(spans_file, "nobody") == []


def test_a_missing_file_reads_as_no_spans(tmp_path: Path) -> None:
    assert load_spans(tmp_path / "nothing.jsonl", "t-meta") == []
    assert read_span_file(tmp_path / "nothing.jsonl", "t-meta").skipped_lines == 0


def test_malformed_lines_are_skipped_not_fatal(tmp_path: Path) -> None:
    good = span(1, "cadre.run", "run", None, (0, 10))
    no_start = {key: value for key, value in good.items() if key != "start_time_unix_nano"}
    lines = [json.dumps(good), "[1, 2]", json.dumps(no_start), "", "\xff not json"]
    path = tmp_path / SPANS_FILE_NAME
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    loaded = read_span_file(path, "t-meta")
    assert [span.name for span in loaded.spans] == ["cadre.run"]
    assert loaded.skipped_lines == 3


# -- the tree ----------------------------------------------------------------------------------


def test_the_tree_nests_teams_nodes_steps_and_tasks(spans_file: Path) -> None:
    tree = build_tree(load_spans(spans_file, "t-meta"))
    research = [
        "cadre.team research_team",
        [
            ["cadre.node planner", ["chat gpt-4o"]],
            "cadre.node dispatcher",
            [
                "cadre.step worker",
                [
                    ["cadre.task q1", ["execute_tool search_corpus"]],
                    "cadre.task q2",
                    "cadre.task q3",
                ],
            ],
            "cadre.node aggregator",
        ],
    ]
    meta = [
        "cadre.team meta",
        [
            "cadre.node intake",
            research,
            "cadre.node risk_assessment",
            "cadre.node compliance_check",
        ],
    ]
    assert shape(tree) == [["cadre.run", [meta]]]


def test_spans_whose_parent_was_never_exported_become_roots(tmp_path: Path) -> None:
    # A crash: the run and team spans never ended, so only their children were exported.
    spans = [item for item in meta_run() if item["name"] not in ("cadre.run", "cadre.team meta")]
    path = write_spans(tmp_path / SPANS_FILE_NAME, spans)
    tree = build_tree(load_spans(path, "t-meta"))
    assert [item.span.name for item in tree] == [
        "cadre.node intake",
        "cadre.team research_team",
        "cadre.node risk_assessment",
        "cadre.node compliance_check",
    ]


def test_a_paused_run_and_its_resume_form_one_picture(spans_file: Path) -> None:
    tree = build_tree(load_spans(spans_file, "t-pause"))
    assert [item.span.name for item in tree] == ["cadre.run", "cadre.run"]
    paused, resumed = (item.span for item in tree)
    assert paused.trace_id == resumed.trace_id == PAUSE_TRACE
    assert paused.paused_before == ("reviewer",)
    assert resumed.resumed_from is not None
    assert resumed.resumed_from.span_id == paused.span_id
    assert shape(tree[1].children) == [["cadre.team research_team", ["cadre.node reviewer"]]]


def test_a_resumed_part_parented_to_the_paused_part_is_nested_after_its_work(
    tmp_path: Path,
) -> None:
    path = write_spans(tmp_path / SPANS_FILE_NAME, paused_and_resumed(nest_resume=True))
    (root,) = build_tree(load_spans(path, "t-pause"))
    assert [child.span.name for child in root.children] == [
        "cadre.team research_team",
        "cadre.run",
    ]


# -- the waterfall -----------------------------------------------------------------------------


def test_parallel_tasks_are_drawn_side_by_side(spans_file: Path) -> None:
    loaded = read_span_file(spans_file, "t-meta")
    lines = draw(build_tree(loaded.spans), loaded.skipped_lines)
    assert all(len(line) <= 120 for line in lines)
    q1, q2, q3 = (bar_cells(row(lines, f"cadre.task {name}")) for name in ("q1", "q2", "q3"))
    assert q1 & q2 and q2 & q3 and q1 & q3
    assert len(q3) < len(q2) < len(q1)
    aggregator = bar_cells(row(lines, "cadre.node aggregator"))
    assert min(aggregator) >= max(q1)
    run = bar_cells(row(lines, "cadre.run"))
    assert run >= q1 | q2 | q3 | aggregator
    # Depth shows as indentation.
    assert row(lines, "cadre.task q1").startswith("        cadre.task q1")


def test_header_durations_and_footer(spans_file: Path) -> None:
    loaded = read_span_file(spans_file, "t-meta")
    lines = draw(build_tree(loaded.spans), loaded.skipped_lines)
    header = lines[0]
    for part in ("thread t-meta", f"trace {META_TRACE}", "wall 1.00 s", "15 spans"):
        assert part in header
    assert "1.00 s" in row(lines, "cadre.run")
    assert "5.00 ms" in row(lines, "cadre.node dispatcher")
    assert "380 ms" in row(lines, "cadre.task q1")
    assert lines[-1] == "15 spans, 1 failed, 1 skipped line, tokens 120 in / 45 out"


def test_a_failed_task_is_marked_with_its_error(spans_file: Path) -> None:
    lines = draw(build_tree(load_spans(spans_file, "t-meta")))
    failed = row(lines, "cadre.task q3")
    assert "✗" in failed
    after = lines[lines.index(failed) + 1]
    assert after.strip() == "↳ error: TimeoutError: worker timed out after 0.2 s"
    assert "✗" not in row(lines, "cadre.task q2")


def test_failed_rows_are_red(spans_file: Path) -> None:
    console = Console(record=True, width=120, force_terminal=True, color_system="standard")
    render_waterfall(build_tree(load_spans(spans_file, "t-meta")), console)
    styled = console.export_text(styles=True)
    failed = next(line for line in styled.splitlines() if "cadre.task q3" in line)
    assert "\x1b[1;31m" in failed  # bold red


def test_paused_and_resumed_parts_are_marked(spans_file: Path) -> None:
    lines = draw(build_tree(load_spans(spans_file, "t-pause")))
    assert "2 run parts" in lines[0]
    assert "wall 1m 00s" in lines[0]
    runs = [index for index, line in enumerate(lines) if line.startswith("cadre.run")]
    assert len(runs) == 2
    assert lines[runs[0] + 1].strip() == "↳ paused before reviewer"
    assert lines[runs[1] + 1].strip() == "↳ resumed, continues part 1"
    # The minute of waiting is shrunk, so both parts keep readable bars.
    first, second = (bar_cells(lines[index]) for index in runs)
    assert max(first) < min(second)
    assert len(first) > 20 and len(second) > 20
    assert "idle not to scale" in lines[-1]


# -- JSON --------------------------------------------------------------------------------------


def test_tree_to_json_nests_spans_with_relative_times(spans_file: Path) -> None:
    data = tree_to_json(build_tree(load_spans(spans_file, "t-meta")))
    json.dumps(data)
    (run,) = data
    assert set(run) == {
        "name",
        "kind",
        "trace_id",
        "span_id",
        "parent_span_id",
        "start_ms",
        "duration_ms",
        "status",
        "error",
        "attributes",
        "children",
    }
    assert (run["name"], run["start_ms"], run["duration_ms"]) == ("cadre.run", 0.0, 1000.0)
    assert run["parent_span_id"] is None
    assert run["attributes"]["cadre.run.outcome"] == "finished"
    research = run["children"][0]["children"][1]
    step = research["children"][2]
    assert step["name"] == "cadre.step worker"
    q1, q2, q3 = step["children"]
    assert (q1["start_ms"], q1["duration_ms"]) == (170.0, 380.0)
    assert (q1["status"], q1["error"]) == ("OK", None)
    assert q2["parent_span_id"] == step["span_id"]
    assert q3["status"] == "ERROR"
    assert q3["error"] == "TimeoutError: worker timed out after 0.2 s"
    assert q1["children"][0]["kind"] == "CLIENT"


# -- the command -------------------------------------------------------------------------------


runner = CliRunner()


def test_cadre_trace_prints_the_waterfall(home: Path) -> None:
    result = runner.invoke(app, ["trace", "t-meta", "--home", str(home)])
    assert result.exit_code == 0, result.stderr
    assert "thread t-meta" in result.stdout
    assert "cadre.task q3" in result.stdout
    assert "1 failed, 1 skipped line" in result.stdout


def test_cadre_trace_reads_the_home_from_the_environment(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CADRE_HOME", str(home))
    result = runner.invoke(app, ["trace", "t-pause"])
    assert result.exit_code == 0, result.stderr
    assert "paused before reviewer" in result.stdout


def test_cadre_trace_json(home: Path) -> None:
    result = runner.invoke(app, ["trace", "t-meta", "--home", str(home), "--json"])
    assert result.exit_code == 0, result.stderr
    payload = json.loads(result.stdout)
    assert payload["thread_id"] == "t-meta"
    assert payload["trace_ids"] == [META_TRACE]
    assert (payload["span_count"], payload["failed"], payload["skipped_lines"]) == (15, 1, 1)
    assert payload["spans"][0]["name"] == "cadre.run"


@pytest.mark.parametrize("thread", ["nobody", ""])
def test_cadre_trace_of_an_unknown_thread_fails_in_one_line(home: Path, thread: str) -> None:
    result = runner.invoke(app, ["trace", thread, "--home", str(home)])
    assert result.exit_code == 2
    expected = f"error: no spans for thread {thread!r} under {home / 'traces' / SPANS_FILE_NAME}"
    assert result.stderr == expected + "\n"
    assert result.stdout == ""


def test_cadre_trace_without_a_spans_file_fails_in_one_line(tmp_path: Path) -> None:
    result = runner.invoke(app, ["trace", "t-meta", "--home", str(tmp_path / "empty")])
    assert result.exit_code == 2
    assert result.stderr.startswith("error: no spans for thread 't-meta' under ")
    assert len(result.stderr.splitlines()) == 1
