"""Retention: ``cadre threads`` (a status per thread) and ``cadre prune`` (old checkpoints go,
never one that resuming, a subgraph's state or a fork needs).

One data home is made per module with a thread of each status, and copied for each test:

* ``done``: ``cadre run`` that finished;
* ``held``: ``cadre run --review plan``, paused at its plan review;
* ``fork``: ``cadre fork held`` at its intake checkpoint, paused at its own plan review;
* ``broken``: a team run through the API whose formatter raised (failed);
* ``stopped``: a team run through the API with ``interrupt_before=["worker"]``, stopped with
  three workers due (as a crashed process leaves it).
"""

from __future__ import annotations

import dataclasses
import shutil
import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from langchain_core.runnables import RunnableConfig
from langgraph.graph.state import CompiledStateGraph
from typer.testing import CliRunner, Result

from framework.cli.app import app
from framework.cli.threads import human_bytes
from framework.database.home import DataHome
from framework.engine.builder import build_team, compile_team
from framework.engine.state import TeamState
from framework.memory import MiniLMEmbedder
from framework.persistence.saver import CadreSaver
from framework.retention.pruning import (
    ThreadStatus,
    next_nodes,
    prune,
    prune_threads,
    statuses_of,
    thread_statuses,
)
from framework.runs.launch import relaunch
from framework.runs.runner import run_team
from framework.runs.stores import home_checkpointer
from tests.conftest import SMALL_CORPUS, copy_settled, write_corpus
from tests.conftest import one_line_error as _one_line
from tests.roles import make_roles

QUESTION = "How are runs checkpointed? How do workers retry transient errors?"
App = CompiledStateGraph[Any, Any, Any, Any]
runner = CliRunner()


class FormatterError(RuntimeError):
    """What the broken team's formatter raises."""


class BrokenFormatter:
    """A formatter that always raises."""

    def format(self, state: TeamState, context: object) -> str:
        raise FormatterError("the formatter broke")


def broken_app(saver: CadreSaver) -> App:
    """A team whose formatter raises: its thread fails at the last step."""
    roles = dataclasses.replace(make_roles(), formatter=BrokenFormatter())
    return compile_team(build_team(roles), checkpointer=saver)


def fixed_app(saver: CadreSaver) -> App:
    """The same team with a working formatter (resumes the broken thread)."""
    return compile_team(build_team(make_roles()), checkpointer=saver)


def stopping_app(saver: CadreSaver) -> App:
    """A team that stops before its workers."""
    return compile_team(build_team(make_roles()), checkpointer=saver, interrupt_before=["worker"])


@dataclass
class Cadre:
    """A copy of the module's data home, with the ``cadre`` command pointed at it."""

    home: Path
    fork: str

    @property
    def data_home(self) -> DataHome:
        return DataHome(root=self.home)

    def __call__(self, *args: str) -> Result:
        env = {"CADRE_REVIEWER": "alice"}
        return runner.invoke(app, [*args, "--home", str(self.home)], env=env)

    def ok(self, *args: str) -> Result:
        result = self(*args)
        assert result.exit_code == 0, result.output
        return result

    @contextmanager
    def saver(self) -> Iterator[CadreSaver]:
        saver = home_checkpointer(self.data_home)
        try:
            yield saver
        finally:
            saver.close()

    def statuses(self) -> dict[str, ThreadStatus]:
        return {status.thread_id: status for status in thread_statuses(self.data_home)}

    def checkpoint_ids(self, thread: str) -> dict[str, list[str]]:
        """Namespace -> the ids of its checkpoints, newest first."""
        found: dict[str, list[str]] = {}
        with closing(sqlite3.connect(self.home / "checkpoints.sqlite")) as connection:
            for namespace, checkpoint_id in connection.execute(
                "SELECT checkpoint_ns, checkpoint_id FROM cadre_checkpoints "
                "WHERE thread_id = ? ORDER BY checkpoint_id DESC",
                (thread,),
            ):
                found.setdefault(namespace, []).append(checkpoint_id)
        return found

    def rows(self) -> list[Any]:
        """Every stored row of every thread."""
        with closing(sqlite3.connect(self.home / "checkpoints.sqlite")) as connection:
            return [
                connection.execute(f"SELECT * FROM {table} ORDER BY 1, 2, 3, 4").fetchall()
                for table in ("cadre_checkpoints", "cadre_blobs", "cadre_writes")
            ]


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory, embedder: MiniLMEmbedder) -> Cadre:
    """The module's home: a thread of each status (see the module docstring)."""
    root = tmp_path_factory.mktemp("retention")
    corpus = write_corpus(root / "docs", SMALL_CORPUS)
    made = Cadre(home=root / "home", fork="")
    base = ["--corpus", str(corpus), "--no-trace", "--thread"]
    made.ok("run", QUESTION, *base, "done")
    made.ok("run", QUESTION, *base, "held", "--review", "plan")
    history = made.ok("history", "held").stdout.splitlines()
    intake = next(line for line in history if line.split()[2] == "intake").split()[0]
    forked = made.ok("fork", "held", intake).stdout
    assert "paused for review:" in forked
    made.fork = forked.splitlines()[0].split()[-1]
    with made.saver() as saver:
        with pytest.raises(FormatterError):
            run_team(broken_app(saver), {"question": QUESTION}, "broken")
        stopped = run_team(stopping_app(saver), {"question": QUESTION}, "stopped")
        assert stopped.paused_before == ("worker", "worker", "worker")
    return made


@pytest.fixture
def cadre(template: Cadre, tmp_path: Path) -> Cadre:
    """A fresh copy of the module's home."""
    home = tmp_path / "home"
    shutil.copytree(template.home, home, copy_function=copy_settled)
    return Cadre(home=home, fork=template.fork)


# -- cadre threads -----------------------------------------------------------------------------


def test_threads_lists_each_thread_with_its_status_step_count_and_size(cadre: Cadre) -> None:
    lines = cadre.ok("threads").stdout.splitlines()
    assert lines[0].split() == [
        "thread",
        "team",
        "status",
        "last",
        "step",
        "updated",
        "(UTC)",
        "checkpoints",
        "size",
    ]
    rows = {line.split()[0]: line for line in lines[1:]}
    assert set(rows) == {"done", "held", cadre.fork, "broken", "stopped"}
    statuses = cadre.statuses()
    expected = {
        "done": ("meta", "done"),
        "held": ("meta", "paused at review"),
        cadre.fork: ("meta", "paused at review"),
        "broken": ("-", "failed"),
        "stopped": ("-", "interrupted"),
    }
    for thread, (team, label) in expected.items():
        status = statuses[thread]
        assert rows[thread].split()[1] == team
        assert f"  {label}  " in rows[thread]
        assert f"  {status.step}  " in rows[thread]
        ends = [str(status.checkpoints), *human_bytes(status.size_bytes).split()]
        assert rows[thread].split()[-3:] == ends  # right-aligned: the padding varies
        assert status.checkpoints == sum(len(ids) for ids in cadre.checkpoint_ids(thread).values())
        assert status.size_bytes > 1000
    assert [line.split()[0] for line in lines[1:]][:1] == ["stopped"]  # newest first


def test_each_status_is_read_from_what_langgraph_stored(cadre: Cadre) -> None:
    statuses = cadre.statuses()
    assert statuses["done"].status == "done"
    assert statuses["done"].next_nodes == ()
    assert statuses["held"].status == "paused"
    assert statuses["held"].interrupts == 1
    assert statuses["held"].next_nodes == ("research_team",)
    assert statuses["broken"].status == "failed"
    assert statuses["broken"].error == "FormatterError('the formatter broke')"
    assert statuses["broken"].next_nodes == ("formatter",)
    assert statuses["stopped"].status == "interrupted"
    assert statuses["stopped"].next_nodes == ("worker", "worker", "worker")
    assert statuses["done"].team == "meta"
    assert statuses["broken"].team is None
    # the statuses agree with LangGraph's own reading of each thread
    with cadre.saver() as saver:
        for thread, graph in (("broken", broken_app(saver)), ("stopped", stopping_app(saver))):
            state = graph.get_state({"configurable": {"thread_id": thread}})
            assert statuses[thread].next_nodes == state.next
            assert statuses[thread].step == state.metadata["step"]  # type: ignore[index]
        failed = broken_app(saver).get_state({"configurable": {"thread_id": "broken"}})
        assert [str(task.error) for task in failed.tasks] == [statuses["broken"].error]


def test_next_nodes_match_get_state_at_every_checkpoint_of_every_thread(cadre: Cadre) -> None:
    plain, _ = relaunch(cadre.data_home, "done")
    reviewed, _ = relaunch(cadre.data_home, "held")  # with its plan review point
    with plain, reviewed, cadre.saver() as saver:
        apps = {"done": plain.app, "held": reviewed.app, cadre.fork: reviewed.app}
        apps |= {"broken": broken_app(saver), "stopped": stopping_app(saver)}
        compared = 0
        for thread, graph in apps.items():
            for namespace in cadre.checkpoint_ids(thread):
                config: RunnableConfig = {
                    "configurable": {"thread_id": thread, "checkpoint_ns": namespace}
                }
                for snapshot in graph.get_state_history(config):
                    saved = saver.get_tuple(snapshot.config)
                    assert saved is not None
                    assert sorted(next_nodes(saved.checkpoint)) == sorted(snapshot.next), (
                        thread,
                        namespace,
                        snapshot.metadata,
                    )
                    compared += 1
    assert compared == sum(status.checkpoints for status in cadre.statuses().values())


def test_threads_in_a_home_without_threads_is_an_empty_list_and_creates_nothing(
    tmp_path: Path,
) -> None:
    home = tmp_path / "nowhere"
    result = runner.invoke(app, ["threads", "--home", str(home)])
    assert result.exit_code == 0, result.output
    assert result.stdout == f"no threads under {home}\n"
    assert not home.exists()


# -- cadre prune -------------------------------------------------------------------------------


def test_prune_keep_last_1_keeps_what_every_thread_needs_to_go_on(cadre: Cadre) -> None:
    before = cadre.statuses()
    shown = cadre.ok("show", "done").stdout
    pruned = cadre.ok("prune", "--keep-last", "1").stdout.splitlines()
    assert any(line.startswith("thread done: removed ") for line in pruned)
    assert pruned[-2].startswith("removed ")
    assert "from 5 of 5 thread(s)" in pruned[-2]
    assert pruned[-1].endswith("--vacuum")
    after = cadre.statuses()
    for thread, status in before.items():
        # same status, step and due nodes; fewer checkpoints, fewer bytes
        assert after[thread].status == status.status
        assert after[thread].step == status.step
        assert after[thread].next_nodes == status.next_nodes
        assert after[thread].checkpoints < status.checkpoints
        assert after[thread].size_bytes < status.size_bytes
    # a done thread still shows its final state
    assert cadre.ok("show", "done").stdout == shown
    # a paused thread (and its fork) can still be approved, and finish
    assert "thread held finished; its answer:" in cadre.ok("approve", "held").stdout
    approved = cadre.ok("approve", cadre.fork).stdout
    assert f"thread {cadre.fork} finished; its answer:" in approved
    # the interrupted and the failed thread resume from where they stopped, and finish
    with cadre.saver() as saver:
        resumed = run_team(stopping_app(saver), None, "stopped")
        assert resumed.state["final_answer"].startswith("ANSWER\n")
        fixed = run_team(fixed_app(saver), None, "broken")
        assert fixed.state["final_answer"].startswith("ANSWER\n")
    assert {status.status for status in cadre.statuses().values()} == {"done"}


def test_prune_keeps_the_last_k_of_each_namespace_and_the_parents_they_run_under(
    cadre: Cadre,
) -> None:
    before = cadre.checkpoint_ids("done")
    assert len(before) == 2  # the top graph and the research team's subgraph
    (nested,) = (ns for ns in before if ns)
    cadre.ok("prune", "--keep-last", "2", "--thread", "done")
    after = cadre.checkpoint_ids("done")
    with cadre.saver() as saver:
        latest = saver.get_tuple({"configurable": {"thread_id": "done", "checkpoint_ns": nested}})
        assert latest is not None
        parent = latest.metadata["parents"][""]  # the top checkpoint the subgraph ran under
    assert after[nested] == before[nested][:2]
    assert after[""] == [*before[""][:2], parent]
    assert parent not in before[""][:2]
    # a kept nested checkpoint can still be forked: its parent is there
    forked = cadre.ok("fork", "done", after[nested][0]).stdout
    assert "finished; its answer:" in forked


def test_prune_one_thread_leaves_the_others_byte_for_byte(cadre: Cadre) -> None:
    others = [cadre.checkpoint_ids(thread) for thread in ("held", "broken", "stopped")]
    blobs = [row for row in cadre.rows()[1] if row[0] != "done"]
    report = prune(cadre.data_home, 1, "done")
    assert [pruned.thread_id for pruned in report.threads] == ["done"]
    assert report.removed == report.threads[0].removed > 0
    assert report.bytes_freed == report.threads[0].bytes_freed > 0
    assert report.threads[0].pinned == 1
    assert [cadre.checkpoint_ids(thread) for thread in ("held", "broken", "stopped")] == others
    assert [row for row in cadre.rows()[1] if row[0] != "done"] == blobs


def test_a_fork_does_not_depend_on_the_thread_it_came_from(cadre: Cadre) -> None:
    with cadre.saver() as saver:
        saver.delete_thread("held")
    assert "held" not in cadre.statuses()
    assert cadre.statuses()[cadre.fork].status == "paused"
    approved = cadre.ok("approve", cadre.fork).stdout
    assert f"thread {cadre.fork} finished; its answer:" in approved


def test_pruning_twice_removes_nothing_more(cadre: Cadre) -> None:
    prune(cadre.data_home, 1)
    rows = cadre.rows()
    again = prune(cadre.data_home, 1)
    assert again.removed == 0
    assert again.bytes_freed == 0
    assert cadre.rows() == rows
    assert cadre.ok("prune", "--keep-last", "1").stdout.startswith(
        "removed 0 checkpoint(s) from 0 of 5 thread(s), freed 0 B"
    )


def test_prune_with_vacuum_shrinks_the_file(cadre: Cadre) -> None:
    out = cadre.ok("prune", "--keep-last", "1", "--vacuum").stdout.splitlines()
    assert out[-1].startswith("database file: ") and out[-1].endswith(" after VACUUM")
    report = prune(cadre.data_home, 1, vacuum=True)
    assert report.file_bytes_before is not None and report.file_bytes_after is not None
    assert report.file_bytes_after <= report.file_bytes_before


def test_prune_file_shrinks_after_vacuum_compared_with_the_copy(
    cadre: Cadre, template: Cadre
) -> None:
    def size(home: Path) -> int:
        return sum(path.stat().st_size for path in home.glob("checkpoints.sqlite*"))

    prune(cadre.data_home, 1, vacuum=True)
    assert size(cadre.home) < size(template.home)


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        (["--keep-last", "0"], "error: --keep-last must be at least 1, got 0"),
        (["--keep-last", "-3", "--thread", "done"], "error: --keep-last must be at least 1"),
        (["--keep-last", "1", "--thread", "nope"], "error: unknown thread 'nope'"),
    ],
)
def test_bad_prune_input_is_one_line_exit_2_and_changes_nothing(
    cadre: Cadre, args: list[str], reason: str
) -> None:
    rows = cadre.rows()
    assert _one_line(cadre("prune", *args)).startswith(reason)
    assert cadre.rows() == rows


def test_prune_in_a_home_without_threads_creates_nothing(tmp_path: Path) -> None:
    home = tmp_path / "nowhere"
    for args, reason in (
        (["--keep-last", "0"], "error: --keep-last must be at least 1, got 0"),
        (["--keep-last", "2"], f"error: no threads under {home}: run `cadre run` there first"),
    ):
        result = runner.invoke(app, ["prune", *args, "--home", str(home)])
        assert _one_line(result).startswith(reason)
    assert not home.exists()


def test_prune_threads_on_a_saver_refuses_a_k_below_1(tmp_path: Path) -> None:
    with CadreSaver(tmp_path / "plain.sqlite") as saver:
        run_team(fixed_app(saver), {"question": QUESTION}, "t1")
        with pytest.raises(ValueError, match="at least 1, got 0"):
            prune_threads(saver, 0)
        (pruned,) = prune_threads(saver, 3)
        assert pruned.kept == 3
        (status,) = statuses_of(saver)
        assert (status.thread_id, status.status, status.checkpoints) == ("t1", "done", 3)


@pytest.mark.parametrize(
    ("count", "text"),
    [
        (0, "0 B"),
        (1023, "1023 B"),
        (1024, "1.0 KiB"),
        (1536 * 1024, "1.5 MiB"),
        (5 << 40, "5120.0 GiB"),
    ],
)
def test_human_bytes(count: int, text: str) -> None:
    assert human_bytes(count) == text


def test_a_review_decided_by_a_process_that_died_says_to_resume(cadre: Cadre) -> None:
    """``cadre approve`` killed while the run went on after the decision: the thread is not
    "paused at review (0 pending)"; it says to resume, and ``cadre resume`` finishes it."""
    from framework.retention._pending import next_nodes, pending_state
    from framework.review import Decision, pending
    from framework.review.api import resume_command

    config: RunnableConfig = {"configurable": {"thread_id": "held"}}
    with cadre.saver() as saver:
        paused_top = saver.get_tuple(config)  # what the top level says until its task ends
    assert paused_top is not None and pending_state(paused_top).state == "paused"
    launched, _ = relaunch(cadre.data_home, "held")
    with launched:
        app = launched.app
        request = pending(app, "held")[0]
        decision = Decision(request_id=request.id, kind="approve", reviewer="alice")
        command = resume_command(app.get_state(config, subgraphs=True), "held", [decision])
        stream = app.stream(command, config, stream_mode="updates", subgraphs=True)
        for namespace, _update in stream:
            if namespace:  # the subteam went on past its review: stop there, as a kill does
                break
        stream.close()
        assert pending(app, "held") == []
    with cadre.saver() as saver:  # killed mid-dispatch: the subteam's workers were due
        dispatched = next(
            item
            for item in saver.list(config)
            if item.config["configurable"]["checkpoint_ns"]
            and "worker" in next_nodes(item.checkpoint)
        )
    assert pending_state(paused_top, dispatched).state == "interrupted"
    status = cadre.statuses()["held"]  # stopped after the subteam ended, before the top's step
    assert status.status == "interrupted", status
    shown = cadre.ok("show", "held").stdout
    assert "paused at review" not in shown and "cadre resume held" in shown
    listed = {line.split()[0]: line for line in cadre.ok("threads").stdout.splitlines()[1:]}
    assert "  interrupted  " in listed["held"]
    refused = cadre("approve", "held")
    assert refused.exit_code != 0 and "cadre resume held" in refused.output
    cadre.ok("resume", "held")
    assert cadre.statuses()["held"].status == "done"
