"""``cadre show`` and ``cadre reviews`` read a thread's checkpoints without compiling its graph
(:func:`framework.retention.snapshot.thread_snapshot`), and say what compiling it said.

One data home is made per module with a thread of every kind, each shown both ways: through the
snapshot read from the checkpoints, and through the thread's app compiled read-only and its
``get_state(subgraphs=True)`` (how the commands read it before):

* ``done``: the MetaCoordinator (the research team nested in it) finished;
* ``plan``, ``tasks``, ``answer``: paused at each review point inside the nested team;
* ``tasks-part``: paused at three task reviews, one of them approved (its writes recorded in the
  open step, the other two still asking);
* ``policy``: the research team paused where a policy asks before every worker, one approved
  (the finished worker's result, usage and policy decision recorded in the open step);
* ``meta-policy``: the same inside the MetaCoordinator's nested research team;
* ``rejected``: a run whose memory curator a reviewer refused (failed);
* ``failed``: a run whose formatter raised;
* ``stopped``: a run stopped before its workers (interrupted);
* ``file-review``: a team file's own ``review: [plan]``;
* ``file-tools``: a team file with a tool kind, run on a scripted model;
* ``nested``: a team file three levels deep (``team:`` kinds) paused at the plan review of its
  innermost team (shown with the nested teams' tasks under the task that ran them).
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

import pytest
from langchain_core.runnables import RunnableConfig
from langgraph.graph.state import StateGraph
from typer.testing import CliRunner, Result

import framework.runs.launch
from framework.cli import _teams as teams_named
from framework.cli import _thread_view as thread_view
from framework.cli._render import request_lines, thread_lines
from framework.cli._thread_view import merged_values, nested_review_points, team_review_points
from framework.cli.app import COMMANDS, app
from framework.database.home import DataHome
from framework.engine import builder
from framework.engine.roles import Roles
from framework.errors import ConfigError
from framework.kinds.team_file import TeamFile
from framework.memory import MiniLMEmbedder
from framework.persistence.reader import SavedCheckpoint
from framework.retention.pruning import statuses_of
from framework.retention.snapshot import thread_snapshot
from framework.retention.tree import nested_runs
from framework.review import (
    AnyReviewRequest,
    pending,
    pending_revision,
    requests_in,
    thread_ids,
)
from framework.review.points import REVIEW_POINTS
from framework.runs.launch import paused_at, relaunch
from framework.runs.runner import run_team
from framework.runs.spec import RunSpec
from framework.runs.stores import open_checkpointer, open_reader
from framework.runs.teams import TEAM_FILE_PREFIX, team_file_team
from framework.runs.threads import thread_spec, thread_team
from tests.conftest import SMALL_CORPUS, write_corpus
from tests.roles import make_roles
from tests.test_checkpoint_reader import stored_form
from tests.test_cli_daily import RUNTIME, _imported_by, loaded
from tests.test_cli_startup import RICH_HELP, other_commands
from tests.test_local_models import SCRIPT
from tests.test_nested_reviews import _conf as nested_files
from tests.test_nested_teams import QUESTION as NESTED_QUESTION
from tests.test_retention import BrokenFormatter, FormatterError

QUESTION = "How are runs checkpointed? How do workers retry transient errors?"
ASKING_WORKERS = 'approval: {nodes: [worker], question: "may it search?"}\n'
ASKING_CURATOR = "approval: {nodes: [memory_curator], teams: [research]}\n"
REVIEWED_FILE = "name: support\nreview: [plan]\nkinds:\n  - name: docs\n    builtin: search\n"
README = Path(__file__).parent.parent / "README.md"
THREADS = (
    "done", "plan", "tasks", "answer", "tasks-part", "policy", "meta-policy", "rejected",
    "failed", "stopped", "file-review", "file-tools", "nested",
)  # fmt: skip
runner = CliRunner()


@dataclasses.dataclass
class Home:
    """The module's data home, with the ``cadre`` command pointed at it."""

    root: Path

    @property
    def data_home(self) -> DataHome:
        return DataHome(root=self.root)

    def __call__(self, *args: str) -> Result:
        env = {"CADRE_REVIEWER": "alice"}
        return runner.invoke(app, [*args, "--home", str(self.root)], env=env)

    def ok(self, *args: str) -> Result:
        result = self(*args)
        assert result.exit_code == 0, result.output
        return result


def _tool_team_file(folder: Path) -> list[str]:
    """The README's team file with a tool kind, its tool and answers beside it: run arguments."""
    text = README.read_text(encoding="utf-8")
    section = text.split("## A local OpenAI-compatible model used with a team file", 1)[1]
    team = re.search(r"```yaml\n# team.yaml\n(.*?)```", section, re.S)
    tools = re.search(r"```python\n# mytools.py[^\n]*\n(.*?)```", section, re.S)
    assert team and tools
    (folder / "team.yaml").write_text(team[1], encoding="utf-8")
    (folder / "mytools.py").write_text(tools[1], encoding="utf-8")
    (folder / "answers.yaml").write_text(SCRIPT, encoding="utf-8")
    return ["--team-config", str(folder / "team.yaml"), "--model", "scripted:answers.yaml"]


def _api_run(made: Home, thread: str, corpus: Path, roles: Roles, **options: Any) -> None:
    """A research team run through the API, recording its spec as ``cadre run`` does (so both
    ways of showing it compile the research team)."""
    spec = RunSpec(team="research", corpus=str(corpus)).recorded({})
    with open_checkpointer(made.data_home) as saver:
        graph = builder.compile_team(builder.build_team(roles), checkpointer=saver, **options)
        run_team(graph, {"question": QUESTION}, thread, metadata=spec.metadata())


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory, embedder: MiniLMEmbedder) -> Home:
    root = tmp_path_factory.mktemp("fast-show")
    corpus = write_corpus(root / "docs", SMALL_CORPUS)
    made = Home(root=root / "home")
    base = ["--corpus", str(corpus), "--no-trace", "--thread"]
    made.ok("run", QUESTION, *base, "done")
    for point in ("plan", "tasks", "answer"):
        made.ok("run", QUESTION, *base, point, "--review", point)
    made.ok("run", QUESTION, *base, "tasks-part", "--review", "tasks")
    [first, *others] = [r.id for r in _requests(made, "tasks-part")]
    assert others, "the question plans several tasks"
    made.ok("approve", "tasks-part", first)
    policy = root / "policy.yaml"
    policy.write_text(ASKING_WORKERS, encoding="utf-8")
    asking = ["--team", "research", "--policy", str(policy)]
    made.ok("run", QUESTION, *base, "policy", *asking)
    made.ok("run", QUESTION, *base, "meta-policy", *asking[2:])
    for thread in ("policy", "meta-policy"):
        [first, *others] = [r.id for r in _requests(made, thread)]
        assert others, "every worker asks"
        made.ok("approve", thread, first)
    curator = root / "curator.yaml"
    curator.write_text(ASKING_CURATOR, encoding="utf-8")
    made.ok("run", QUESTION, *base, "rejected", "--team", "research", "--policy", str(curator))
    assert made("reject", "rejected", "--reason", "not this one").exit_code == 1
    broken = dataclasses.replace(make_roles(), formatter=BrokenFormatter())
    with pytest.raises(FormatterError):
        _api_run(made, "failed", corpus, broken)
    _api_run(made, "stopped", corpus, make_roles(), interrupt_before=["worker"])
    reviewed = root / "reviewed.yaml"
    reviewed.write_text(REVIEWED_FILE, encoding="utf-8")
    made.ok("run", QUESTION, *base, "file-review", "--team-config", str(reviewed))
    folder = root / "tools"
    folder.mkdir()
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        made.ok("run", "What is 6 times 7?", *base, "file-tools", *_tool_team_file(folder))
    top, _ = nested_files(root / "nested")
    made.ok("run", NESTED_QUESTION, *base, "nested", "--team-config", str(top))
    return made


def _requests(made: Home, thread: str) -> list[AnyReviewRequest]:
    with open_checkpointer(made.data_home) as saver:
        return requests_in(thread_snapshot(saver, thread), thread)


def _compiled(made: Home, thread: str) -> tuple[list[str], dict[str, Any], list[AnyReviewRequest]]:
    """What ``cadre show`` printed when it compiled the thread's app: its lines, the merged
    values and the pending requests (the review points of the team files it nests read from
    the files, as ``cadre show`` reads them: the compiled app holds only the top team's)."""
    launched, info = relaunch(made.data_home, thread, read_only=True)
    with launched:
        snapshot = launched.app.get_state({"configurable": {"thread_id": thread}}, subgraphs=True)
        values = merged_values(snapshot)
        requests = pending(launched.app, thread)
        [status] = statuses_of(launched.checkpointer, thread)
        points = paused_at(launched.app)
        nested = nested_runs(launched.checkpointer, thread)
    below = nested_review_points(info.team)
    return thread_lines(info, status, values, requests, points, nested, below), values, requests


def _read(made: Home, thread: str) -> tuple[dict[str, Any], list[AnyReviewRequest]]:
    with open_checkpointer(made.data_home) as saver:
        snapshot = thread_snapshot(saver, thread)
    return merged_values(snapshot), requests_in(snapshot, thread)


def test_the_home_has_a_thread_of_every_status(home: Home) -> None:
    listed = home.ok("threads").stdout
    rows = {line.split()[0]: line for line in listed.splitlines()[1:]}
    assert set(rows) == set(THREADS)
    paused = (
        "plan", "tasks", "answer", "tasks-part", "policy", "meta-policy", "file-review", "nested",
    )  # fmt: skip
    for thread in paused:
        assert "  paused at review  " in rows[thread], rows[thread]
    for thread in ("done", "file-tools"):
        assert "  done  " in rows[thread], rows[thread]
    for thread in ("failed", "rejected"):
        assert "  failed  " in rows[thread], rows[thread]
    assert "  interrupted  " in rows["stopped"]


@pytest.mark.parametrize("thread", THREADS)
def test_show_prints_what_compiling_the_thread_printed(home: Home, thread: str) -> None:
    lines, values, requests = _compiled(home, thread)
    read_values, read_requests = _read(home, thread)
    assert read_requests == requests  # the same requests, ids included, in the same order
    for key in values.keys() | read_values.keys():
        if key not in read_values:  # a reducer channel never written reads as empty
            assert values[key] in ({}, []), key
        else:
            assert read_values[key] == values[key], key
    assert home.ok("show", thread).stdout == "\n".join(lines) + "\n"


@pytest.mark.parametrize("thread", THREADS)
def test_a_reader_reads_every_checkpoint_as_the_saver_does(home: Home, thread: str) -> None:
    """The commands read with a reader (no LangGraph runtime): every checkpoint, its values and
    pending writes read as the saver reads them, a ``Send``, an ``Interrupt`` and a message in
    their stored form; the thread's status and requests are the same."""
    config: RunnableConfig = {"configurable": {"thread_id": thread}}
    with open_checkpointer(home.data_home) as saver:
        expected = [SavedCheckpoint(*stored_form(tuple(saved))) for saved in saver.list(config)]
        status, requests = statuses_of(saver, thread), _requests(home, thread)
    with open_reader(home.data_home) as reader:
        assert list(reader.list(config)) == expected
        assert statuses_of(reader, thread) == status
        assert requests_in(thread_snapshot(reader, thread), thread) == requests


def test_a_partly_decided_step_shows_what_its_finished_tasks_wrote(home: Home) -> None:
    values, requests = _read(home, "tasks-part")  # one task review approved, two asking
    assert [entry.decision_kind for entry in values["audit"]] == ["approve"]
    assert len(requests) == 2
    for thread in ("policy", "meta-policy"):  # one worker approved and run, the others asking
        values, requests = _read(home, thread)
        assert [entry.action for entry in values["policy_audit"]] == ["approved"], thread
        assert len(values["worker_results"]) == 1 and requests, thread


def _compiled_reviews(made: Home) -> str:
    """What ``cadre reviews`` printed when it compiled each group's app."""
    groups: dict[RunSpec, list[str]] = {}
    with open_checkpointer(made.data_home) as saver:
        for thread in thread_ids(saver):
            groups.setdefault(thread_spec(saver, thread), []).append(thread)
    lines = []
    for info, members in groups.items():
        launched, _ = relaunch(made.data_home, members[0], spec=info, read_only=True)
        with launched:
            for thread in members:
                requests = pending(launched.app, thread)
                if requests:
                    lines.append(
                        f"thread {thread} (team {info.team}): {len(requests)} pending "
                        f"(revision {pending_revision(requests)})"
                    )
                    lines += [f"  {line}" for r in requests for line in request_lines(r)]
    return "\n".join(lines) + "\n"


def test_reviews_lists_what_compiling_the_threads_listed(home: Home) -> None:
    assert home.ok("reviews").stdout == _compiled_reviews(home)
    one = home.ok("reviews", "--thread", "tasks-part").stdout
    assert one.startswith("thread tasks-part (team meta): 2 pending (revision ")
    assert home.ok("reviews", "--thread", "done").stdout == "no pending reviews in thread done\n"


def test_show_reviews_and_history_compile_no_graph(
    home: Home, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a graph was compiled")

    monkeypatch.setattr(framework.runs.launch, "launch", refuse)
    monkeypatch.setattr(StateGraph, "compile", refuse)
    for thread in THREADS:
        home.ok("show", thread)
        home.ok("reviews", "--thread", thread)
        home.ok("history", thread)
    home.ok("reviews")


@pytest.mark.parametrize(
    "args",
    [
        ["threads"],
        ["show", "done"],
        ["show", "tasks"],
        ["show", "failed"],
        ["show", "stopped"],
        ["show", "file-review"],
        ["show", "nested"],
        ["reviews"],
        ["reviews", "--thread", "tasks-part"],
    ],
)
def test_threads_show_and_reviews_load_no_langchain_no_langgraph_runtime_and_no_team(
    home: Home, args: list[str]
) -> None:
    """They start about as fast as ``cadre --help``: they read the checkpoints with a reader
    (no LangGraph saver, serializer, types or graph machinery, no LangChain), and the teams, the
    embedding model, the other commands and typer's rich help stay unloaded. (``show`` on a
    step left open with finished tasks, such as ``tasks-part``, applies their writes through
    the team state's reducers: that loads the graph machinery.)"""
    modules = _imported_by([*args, "--home", str(home.root)])
    teams = ("onnxruntime", "teams.meta", "teams.research", "teams.configured")
    ours = {"framework.runs.launch", "framework.engine.builder", "framework.engine.state"}
    ours |= other_commands(COMMANDS[args[0]].partition(":")[0])
    found = [*loaded(modules, (*RUNTIME, *teams, *RICH_HELP)), *sorted(modules & ours)]
    assert not found, found


def test_threads_reads_records_as_their_fields_and_loads_no_pydantic(home: Home) -> None:
    """``cadre threads`` reads cadre's records in their stored form (their fields) and each
    thread's team from its recorded spec's JSON: the statuses are those read with the records
    revived, and pydantic stays unloaded."""
    with open_reader(home.data_home) as revived, open_reader(home.data_home, records=False) as raw:
        assert statuses_of(raw) == statuses_of(revived)
        for thread in THREADS:
            assert thread_team(raw, thread) == thread_spec(revived, thread).team
    assert not loaded(_imported_by(["threads", "--home", str(home.root)]), ("pydantic",))


def test_a_team_files_review_points_are_read_from_the_file(tmp_path: Path) -> None:
    team = tmp_path / "team.yaml"
    team.write_text(REVIEWED_FILE, encoding="utf-8")
    assert team_review_points(f"file:{team}") == {"plan"}
    assert team_review_points(team_file_team(team)) == {"plan"}
    assert team_review_points("meta") == frozenset()
    assert nested_review_points(f"file:{team}") == nested_review_points("meta") == []
    (tmp_path / "top.yaml").write_text("name: top\nkinds:\n  - {name: deep, team: team.yaml}\n")
    assert nested_review_points(f"file:{tmp_path / 'top.yaml'}") == [("support", {"plan"})]
    # copied into the command's module: the modules that define them load the graph machinery
    assert teams_named.TEAM_FILE_PREFIX == TEAM_FILE_PREFIX
    assert TeamFile.model_fields["name"].default == teams_named.DEFAULT_TEAM_NAME
    assert set(REVIEW_POINTS) == thread_view._FILE_POINTS
    team.write_text(REVIEWED_FILE.replace("[plan]", "[later]"), encoding="utf-8")
    with pytest.raises(ConfigError, match=r"team\.yaml:2: review: review points are answer,"):
        team_review_points(f"file:{team}")
