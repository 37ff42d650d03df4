"""The review commands: ``cadre run --review``, reviews, show, approve, edit, reject, history,
fork; every failure is one line on stderr, exit 2, and leaves the thread byte-for-byte as it
was."""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from typer.testing import CliRunner

from framework.cli.app import app
from framework.database.home import DataHome
from framework.memory import MiniLMEmbedder
from framework.review import pending_revision
from framework.runs.launch import relaunch
from framework.runs.observe import ObserverOptions
from framework.runs.runner import run_team
from framework.runs.spec import RunSpec
from framework.runs.stores import open_checkpointer
from framework.runs.threads import thread_spec
from tests.conftest import SMALL_CORPUS, copy_settled, write_corpus
from tests.conftest import one_line_error as _one_line

QUESTION = (
    "How are runs checkpointed? How do workers retry transient errors? Who approves the plan?"
)

PLAN_YAML = """\
goal: How are runs checkpointed and retried, and who reviews them?
rationale: one task per topic
tasks:
  - {id: q1, description: How are runs checkpointed, inputs: {query: How are runs checkpointed}}
  - {id: q2, description: How are checkpoints encrypted, inputs: {query: checkpoint encryption}}
  - {id: q3, description: How do workers retry transient errors, inputs: {query: worker retries}}
  - {id: q4, description: How long is the backoff between retries, inputs: {query: backoff}}
  - {id: q5, description: Who approves the plan, inputs: {query: Who approves the plan}}
"""

runner = CliRunner()


@dataclass
class Cadre:
    """Runs ``cadre`` commands against one data home and corpus."""

    home: Path
    corpus: Path
    files: Path

    def __call__(self, *args: str, reviewer: str | None = "alice") -> Result:
        env = {"CADRE_REVIEWER": reviewer}
        return runner.invoke(app, [*args, "--home", str(self.home)], env=env)

    def start(self, thread: str, review: str = "", question: str = QUESTION, *extra: str) -> Result:
        args = ["run", question, "--corpus", str(self.corpus), "--thread", thread, *extra]
        result = self(*args, *(["--review", review] if review else []))
        assert result.exit_code == 0, result.stderr
        return result

    def file(self, name: str, text: str) -> str:
        path = self.files / name
        path.write_text(text, encoding="utf-8")
        return str(path)

    def rows(self, thread: str) -> list[Any]:
        """Every stored row of ``thread``: checkpoints, channel values and pending writes, bytes
        included."""
        with closing(sqlite3.connect(self.home / "checkpoints.sqlite")) as connection:
            return [
                connection.execute(
                    f"SELECT * FROM {table} WHERE thread_id = ? ORDER BY 1, 2, 3, 4",
                    (thread,),
                ).fetchall()
                for table in ("cadre_checkpoints", "cadre_blobs", "cadre_writes")
            ]


@pytest.fixture
def cadre(tmp_path: Path, embedder: MiniLMEmbedder) -> Cadre:
    files = tmp_path / "files"
    files.mkdir()
    return Cadre(
        home=tmp_path / "home", corpus=write_corpus(tmp_path / "docs", SMALL_CORPUS), files=files
    )


@dataclass(frozen=True)
class _Request:
    """Stands for a pending request where only its id matters (its revision)."""

    id: str


def _ids(out: str, kind: str) -> list[str]:
    """The ids of the pending requests of ``kind`` (``plan``, ``task``, ``answer``) listed."""
    return [line.split()[0] for line in out.splitlines() if f"  {kind} review  at " in line]


# -- cadre run --review ------------------------------------------------------------------------


def test_run_with_review_pauses_and_prints_the_requests_and_how_to_continue(cadre: Cadre) -> None:
    out = cadre.start("t1", "plan,answer").stdout
    (plan_id,) = _ids(out, "plan")
    revision = pending_revision([_Request(plan_id)])
    assert out.startswith(
        f"paused for review: thread t1 has 1 pending request(s) (revision {revision})\n"
    )
    where = "node research_team > team research"
    assert f"{plan_id}  plan review  at {where} (node plan_review)" in out
    assert "q3  search    pending   Who approves the plan" in out
    assert "allowed: approve, edit_plan, edit_tasks, reject_tasks" in out
    home = f"--revision {revision} --home {cadre.home}"
    for command in (
        f"cadre show t1 --home {cadre.home}",
        f"cadre approve t1 {home}",
        f"cadre edit t1 --plan FILE {home}",
        f"cadre reject t1 TASK_ID... --reason TEXT {home}",
    ):
        assert command in out
    with open_checkpointer(DataHome(root=cadre.home)) as checkpointer:
        info = thread_spec(checkpointer, "t1")
    assert info == RunSpec(
        team="meta",
        corpus=str(cadre.corpus.resolve()),
        review=("answer", "plan"),
        observe=ObserverOptions(),
    )


def test_run_json_lists_the_pending_requests(cadre: Cadre) -> None:
    state = json.loads(cadre.start("t1", "plan", "How are runs checkpointed?", "--json").stdout)
    assert [request["kind"] for request in state["pending"]] == ["plan"]
    assert state["pending"][0]["path"] == ["research_team", "research"]


def test_run_refuses_an_unknown_review_point_and_writes_nothing(cadre: Cadre) -> None:
    result = cadre("run", "why?", "--corpus", str(cadre.corpus), "--review", "plan,typo")
    line = _one_line(result)
    assert line == "error: unknown review point 'typo': choose among plan, tasks, answer"
    assert not cadre.home.exists()


def test_run_refuses_review_points_the_team_does_not_have(cadre: Cadre) -> None:
    args = ["--corpus", str(cadre.corpus), "--team", "hypothesis", "--review", "plan,answer"]
    line = _one_line(cadre("run", "How are runs checkpointed?", *args))
    assert line.startswith("error: team 'hypothesis' has no answer, plan review point:")
    assert "run it without --review" in line


def test_run_spec_round_trips_through_the_metadata_and_skips_what_it_cannot_read() -> None:
    info = RunSpec(
        team="research",
        corpus="/data/docs",
        model="openai:gpt-4o-mini",
        review=("plan",),
        memory_scope=("acme", "alice"),
        max_parallel=2,
    )
    metadata = info.metadata()
    assert list(metadata) == ["cadre"]
    assert RunSpec.from_metadata(metadata) == info
    for stored in ("{not json", '{"corpus": "/x"}', 3, None):
        assert RunSpec.from_metadata({"cadre": stored}) is None


def test_a_spec_recorded_before_prompt_versions_had_their_name_reads_its_pins() -> None:
    older = '{"schema_version": 1, "team": "meta", "review": ["plan"], "roles": [["x.planner", 2]]}'
    spec = RunSpec.from_metadata({"cadre": older})
    assert spec is not None
    assert spec.prompt_versions == (("x.planner", 2),)
    assert RunSpec.from_metadata(spec.metadata()) == spec


def test_a_spec_sorts_its_review_points_so_equal_specs_dump_equal_json() -> None:
    one, other = (
        RunSpec(team="t", review={"tasks", "plan"}),
        RunSpec(team="t", review=["plan", "tasks"]),
    )
    assert one.review == ("plan", "tasks")
    assert one.model_dump_json() == other.model_dump_json()


# -- reading: reviews, show, history -----------------------------------------------------------


def test_reviews_lists_the_pending_requests_of_every_thread_or_one(cadre: Cadre) -> None:
    cadre.start("t1", "plan")
    cadre.start("t2", "plan,tasks,answer")
    cadre.start("t3")  # no review: finished
    out = cadre("reviews").stdout
    assert "thread t1 (team meta): 1 pending" in out
    assert "thread t2 (team meta): 1 pending" in out
    assert "t3" not in out
    assert len(_ids(out, "plan")) == 2
    one = cadre("reviews", "--thread", "t2").stdout
    assert one.startswith("thread t2 (team meta): 1 pending (revision ")
    assert "t1" not in one
    assert set(_ids(one, "plan")) < set(_ids(out, "plan"))
    assert cadre("reviews", "--thread", "t3").stdout == "no pending reviews in thread t3\n"


def test_reviews_skips_a_thread_not_started_by_cadre_run(cadre: Cadre) -> None:
    cadre.start("t1", "plan")
    launched, _ = relaunch(DataHome(root=cadre.home), "t1")
    with launched:
        run_team(launched.app, {"question": "How are runs checkpointed?"}, "api")
    result = cadre("reviews")
    assert "thread t1 (team meta): 1 pending" in result.stdout
    assert "skipped: thread 'api'" in result.stderr
    line = _one_line(cadre("show", "api"))
    assert "thread 'api' under" in line
    assert "was not started by `cadre run`" in line


def test_show_prints_plan_tasks_pending_audit_and_answer(cadre: Cadre) -> None:
    cadre.start("t1", "plan")
    out = cadre("show", "t1").stdout
    assert out.startswith("thread t1: team meta, model offline, review plan\n")
    assert f"corpus: {cadre.corpus.resolve()}\n" in out
    assert "status: paused at review (1 pending, revision " in out
    assert f"question: {QUESTION}" in out
    assert "  rationale: 3 sub-questions plus the whole question" in out
    assert "tasks: 4\n" in out
    assert "  q2  search    pending   How do workers retry transient errors" in out
    assert "pending: 1\n" in out
    assert "audit: 0 decision(s)" in out
    assert out.endswith("draft answer: none yet\n")


def test_history_lists_top_and_nested_checkpoints_newest_first(cadre: Cadre) -> None:
    cadre.start("t1", "plan")
    lines = cadre("history", "t1").stdout.splitlines()
    assert lines[0].split() == ["checkpoint", "step", "written", "by", "state", "place"]
    assert lines[1].split("  ", 1)[1].split() == [
        *"1 planner plan: 4 tasks; paused for plan review node research_team".split()
    ]
    assert any(line.split()[2] == "intake" and line.endswith("  team meta") for line in lines)
    assert lines[-1].split()[1:3] == ["-1", "input"] and lines[-1].endswith("  team meta")


# -- deciding: a reviewer's session ------------------------------------------------------------


def test_a_reviewer_edits_the_plan_rejects_two_tasks_approves_and_edits_the_answer(
    cadre: Cadre,
) -> None:
    (plan_id,) = _ids(cadre.start("t1", "plan,tasks,answer").stdout, "plan")
    plan = cadre.file("plan.yaml", PLAN_YAML)
    edited = cadre("edit", "t1", "--plan", plan)
    assert edited.exit_code == 0, edited.stderr
    assert edited.stdout.startswith(f"alice edited the plan of plan review {plan_id} (5 tasks)")
    assert "paused for review: thread t1 has 5 pending request(s)" in edited.stdout
    assert len(_ids(edited.stdout, "task")) == 5

    rejected = cadre("reject", "t1", "q2", "q4", "--reason", "out of scope", reviewer="bob")
    assert rejected.exit_code == 0, rejected.stderr
    did = rejected.stdout.splitlines()[:2]
    assert all(line.startswith("bob rejected q") for line in did)
    assert all(line.endswith(": out of scope") for line in did)
    assert "has 3 pending request(s)" in rejected.stdout

    approved = cadre("approve", "t1")
    assert approved.exit_code == 0, approved.stderr
    assert approved.stdout.count("alice approved task review") == 3
    assert "dispatch 3 task(s)" in approved.stderr
    assert "done q2" not in approved.stderr
    assert "done q4" not in approved.stderr
    # the team's reviewer asks to retry q5: the retry is reviewed too
    assert "retry_workers" in approved.stderr
    assert "q5  search    pending   Who approves the plan" in approved.stdout
    retried = cadre("approve", "t1")
    again = 0
    while _ids(retried.stdout, "task") and again < 2:  # the reviewer may ask for q5 once more
        retried, again = cadre("approve", "t1"), again + 1  # (its retries are bounded)
    (answer_id,) = _ids(retried.stdout, "answer")

    answer = cadre.file("answer.md", "# Checkpoints and retries\n\nReviewed by a human.\n")
    finished = cadre("edit", "t1", "--answer", answer, reviewer="carol")
    assert finished.exit_code == 0, finished.stderr
    assert finished.stdout.startswith(f"carol edited the answer of answer review {answer_id}\n")
    assert "thread t1 finished; its answer:\n\n# Checkpoints and retries" in finished.stdout

    shown = cadre("show", "t1").stdout
    assert "status: done" in shown
    assert "q2  search    rejected  How are checkpoints encrypted (out of scope)" in shown
    assert "q1  search    done      How are runs checkpointed" in shown
    assert f"audit: {8 + again} decision(s)" in shown
    assert shown.count("  bob  reject_tasks on task review") == 2
    assert "  carol  edit_answer on answer review" in shown
    assert shown.endswith("answer:\n# Checkpoints and retries\n\nReviewed by a human.\n\n")
    assert "nothing to decide" in _one_line(cadre("approve", "t1"))


def test_approve_one_request_by_id_prefix_and_edit_a_task(cadre: Cadre) -> None:
    out = cadre.start("t1", "tasks", question="How are runs checkpointed?").stdout
    assert "has 1 pending request(s)" in out
    (task_id,) = _ids(out, "task")
    tasks = cadre.file(
        "tasks.json",
        json.dumps([{"id": "q0", "description": "How are checkpoints encrypted"}]),
    )
    edited = cadre("edit", "t1", "--tasks", tasks, "--request", task_id[:6])
    assert edited.exit_code == 0, edited.stderr
    assert edited.stdout.startswith(f"alice edited q0 in task review {task_id}\n")
    assert "thread t1 finished; its answer:" in edited.stdout
    assert "How are checkpoints encrypted" in cadre("show", "t1").stdout


def test_a_rejected_task_is_not_an_uncited_claim_for_the_compliance_check(cadre: Cadre) -> None:
    cadre.start("t1", "tasks")
    rejected = cadre("reject", "t1", "q3", "--reason", "out of scope")
    assert rejected.exit_code == 0, rejected.stderr
    done = cadre("approve", "t1")
    while "paused for review" in done.stdout:
        done = cadre("approve", "t1")
    assert done.exit_code == 0, done.stderr
    assert "## Rejected in review\n\n> Not researched: Who approves the plan" in done.stdout
    assert "compliance check 1 info" in done.stderr
    assert "uncited claim" not in done.stderr


def test_approve_one_of_several_pending_requests(cadre: Cadre) -> None:
    out = cadre.start("t1", "tasks").stdout
    first, *rest = _ids(out, "task")
    approved = cadre("approve", "t1", first)
    assert approved.exit_code == 0, approved.stderr
    assert approved.stdout.startswith(f"alice approved task review {first}\n")
    assert _ids(approved.stdout, "task") == rest


def test_fork_a_nested_checkpoint_with_an_edited_plan_reruns_only_changed_tasks(
    cadre: Cadre,
) -> None:
    cadre.start("t1")
    lines = cadre("history", "t1").stdout.splitlines()
    nested = next(
        line for line in lines if " reviewer " in line and line.endswith("node research_team")
    ).split()[0]
    before = cadre.rows("t1")
    plan = cadre.file("plan.yaml", PLAN_YAML)
    forked = cadre("fork", "t1", nested, "--plan", plan, reviewer="dana")
    assert forked.exit_code == 0, forked.stderr
    first = forked.stdout.splitlines()[0]
    assert first.startswith(f"forked thread t1 at checkpoint {nested} in research_team into ")
    assert first.endswith(" with the edited plan")
    new = first.split()[-5]
    assert f"thread {new} finished; its answer:" in forked.stdout
    assert "dispatch 4 task(s)" in forked.stderr  # q1 is unchanged: its result is reused
    assert "done q1" not in forked.stderr
    assert cadre.rows("t1") == before
    shown = cadre("show", new).stdout
    assert "dana  edit_plan on plan review fork:" in shown
    plain = cadre("fork", "t1", nested, "--ns", "", reviewer=None)
    assert "no checkpoint" in _one_line(plain)  # the checkpoint is nested, not at the top


def test_fork_without_an_edit_needs_no_reviewer(cadre: Cadre) -> None:
    cadre.start("t1", "plan")
    top = cadre("history", "t1").stdout.splitlines()
    start = next(line for line in top if line.split()[2] == "intake").split()[0]
    forked = cadre("fork", "t1", start, reviewer=None)
    assert forked.exit_code == 0, forked.stderr
    assert forked.stdout.startswith(f"forked thread t1 at checkpoint {start} into thread ")
    assert "paused for review:" in forked.stdout
    assert len(_ids(forked.stdout, "plan")) == 1


# -- failures: one line, exit 2, the thread unchanged ------------------------------------------


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory, embedder: MiniLMEmbedder) -> Path:
    """A home with ``t1`` paused at a plan review and ``done`` finished (built once)."""
    root = tmp_path_factory.mktemp("review-template")
    files = root / "files"
    files.mkdir()
    made = Cadre(home=root / "home", corpus=write_corpus(root / "docs", SMALL_CORPUS), files=files)
    made.start("t1", "plan,answer")
    made.start("done")
    return root


@pytest.fixture
def paused(template: Path, tmp_path: Path) -> Iterator[Cadre]:
    home = tmp_path / "home"
    shutil.copytree(template / "home", home, copy_function=copy_settled)
    files = tmp_path / "files"
    files.mkdir()
    yield Cadre(home=home, corpus=template / "docs", files=files)


BAD_PLAN = "goal: g\ntasks:\n  - {id: q1, description: ''}\n"
GOOD_PLAN = "goal: g\ntasks:\n  - {id: q1, description: How are runs checkpointed}\n"

FAILURES: list[tuple[list[str], str | None, str]] = [
    (["show", "nope"], "alice", "unknown thread 'nope' under"),
    (["reviews", "--thread", "nope"], "alice", "unknown thread 'nope'"),
    (["history", "nope"], "alice", "unknown thread 'nope'"),
    (["approve", "nope"], "alice", "unknown thread 'nope'"),
    (["approve", "t1", "f00"], "alice", "request id 'f00' matches no pending request"),
    (["approve", "t1"], None, "no reviewer: pass --reviewer NAME or set CADRE_REVIEWER"),
    (["approve", "t1"], " ", "no reviewer"),
    (["approve", "done"], "alice", "thread 'done' is finished: there is nothing to decide"),
    (
        ["edit", "t1", "--plan", "{bad.yaml}"],
        "alice",
        "tasks.0.description: String should have at least 1 character",
    ),
    (["edit", "t1", "--plan", "{broken.yaml}"], "alice", "is not valid YAML"),
    (["edit", "t1", "--plan", "{missing.yaml}"], "alice", "cannot read the plan file"),
    (["edit", "t1", "--tasks", "{bad.json}"], "alice", "invalid tasks in"),
    (["edit", "t1", "--tasks", "{other.json}"], "alice", "q9"),
    (["edit", "t1", "--answer", "{empty.md}"], "alice", "is empty"),
    (["edit", "t1", "--answer", "{answer.md}"], "alice", "allows edit_answer"),
    (["edit", "t1"], "alice", "give exactly one of --plan FILE, --tasks FILE or --answer FILE"),
    (["edit", "t1", "--plan", "{good.yaml}", "--answer", "{answer.md}"], "alice", "exactly one"),
    (["edit", "t1", "--plan", "{good.yaml}"], None, "no reviewer"),
    (["reject", "t1", "q1"], "alice", "no reason: pass --reason TEXT"),
    (["reject", "t1", "q9", "--reason", "x"], "alice", "covers task 'q9'"),
    (["fork", "t1", "nope"], "alice", "unknown checkpoint 'nope' in thread 't1'"),
    (["fork", "t1", "nope", "--plan", "{good.yaml}"], None, "no reviewer"),
    (["fork", "t1", "nope", "--plan", "{bad.yaml}"], "alice", "bad.yaml is invalid: tasks.0"),
    (["edit", "t1", "--plan", "{twice.yaml}"], "alice", "more than once"),
]


@pytest.mark.parametrize(("args", "reviewer", "reason"), FAILURES)
def test_bad_input_is_one_line_exit_2_and_leaves_the_threads_unchanged(
    paused: Cadre, args: list[str], reviewer: str | None, reason: str
) -> None:
    files = {
        "bad.yaml": BAD_PLAN,
        "broken.yaml": "goal: [unclosed\n",
        "good.yaml": GOOD_PLAN,
        "twice.yaml": GOOD_PLAN + "  - {id: q1, description: again}\n",
        "bad.json": json.dumps([{"id": "q1"}]),
        "other.json": json.dumps([{"id": "q9", "description": "not in the plan"}]),
        "empty.md": "  \n",
        "answer.md": "An answer.\n",
    }
    paths = {f"{{{name}}}": paused.file(name, text) for name, text in files.items()}
    paths["{missing.yaml}"] = str(paused.files / "missing.yaml")
    before = [paused.rows("t1"), paused.rows("done")]
    line = _one_line(paused(*[paths.get(arg, arg) for arg in args], reviewer=reviewer))
    assert reason in line
    assert [paused.rows("t1"), paused.rows("done")] == before


def test_a_thread_whose_corpus_is_gone_is_shown_but_not_continued(cadre: Cadre) -> None:
    cadre.start("t1", "plan")
    shutil.rmtree(cadre.corpus)
    shown = cadre("show", "t1")
    assert shown.exit_code == 0, shown.output
    assert "status: paused at review (1 pending, revision " in shown.stdout
    assert "1 pending" in cadre("reviews").stdout
    line = _one_line(cadre("approve", "t1"))
    assert f"thread 't1' ran over the corpus {cadre.corpus.resolve()}" in line
    assert "restore it to review the thread" in line


def test_a_home_without_threads_has_no_reviews_and_is_not_created(tmp_path: Path) -> None:
    home = tmp_path / "nowhere"
    result = runner.invoke(app, ["reviews", "--home", str(home)])
    assert result.exit_code == 0, result.output
    assert result.stdout == f"no pending reviews in {home}\n"
    assert not home.exists()


def test_resume_refuses_finished_paused_and_unknown_threads(
    tmp_path: Path, embedder: object
) -> None:
    corpus = write_corpus(tmp_path / "docs", SMALL_CORPUS)
    home = str(tmp_path / "home")
    runner = CliRunner()
    base = ["--corpus", str(corpus), "--home", home, "--no-trace"]
    assert (
        runner.invoke(app, ["run", "How do workers retry?", *base, "--thread", "done"]).exit_code
        == 0
    )
    paused = runner.invoke(
        app, ["run", "How do workers retry?", *base, "--thread", "held", "--review", "plan"]
    )
    assert paused.exit_code == 0 and "paused for review" in paused.stdout
    for thread, reason in (
        ("done", "has finished: there is nothing to resume"),
        ("held", "is paused for review"),
        ("nope", "unknown thread 'nope'"),
    ):
        refused = runner.invoke(app, ["resume", thread, "--home", home])
        assert refused.exit_code == 2, refused.stdout
        assert reason in refused.stderr and len(refused.stderr.strip().splitlines()) == 1


def test_a_run_without_traces_stays_untraced_when_it_goes_on(cadre: Cadre) -> None:
    cadre.start("quiet", "plan", QUESTION, "--no-trace")
    approved = cadre("approve", "quiet")
    assert approved.exit_code == 0, approved.stderr
    assert not (cadre.home / "traces").exists()
    cadre.start("loud", "plan")
    assert cadre("approve", "loud").exit_code == 0
    assert (cadre.home / "traces" / "spans.jsonl").is_file()


def test_run_on_an_existing_thread_is_refused_and_keeps_its_pending_review(cadre: Cadre) -> None:
    cadre.start("t1", "plan")
    before = cadre("show", "t1").stdout
    line = _one_line(
        cadre("run", "Another question?", "--corpus", str(cadre.corpus), "--thread", "t1")
    )
    assert line.startswith("error: thread 't1' already exists under ")
    assert "continue it with `cadre resume t1`" in line
    assert cadre("show", "t1").stdout == before
    assert "1 pending" in cadre("reviews").stdout


def test_a_decision_on_a_stale_revision_is_refused_and_changes_nothing(cadre: Cadre) -> None:
    out = cadre.start("t1", "plan,answer").stdout
    stale = out.split("(revision ")[1].split(")")[0]
    first = cadre("approve", "t1", "--revision", stale)
    assert first.exit_code == 0, first.output
    assert "paused for review" in first.stdout  # now at the answer review
    before = cadre("show", "t1").stdout
    line = _one_line(cadre("approve", "t1", "--revision", stale))
    assert line.startswith(f"error: thread 't1' changed since revision {stale}: its pending")
    assert "look at them with `cadre show t1`" in line
    assert cadre("show", "t1").stdout == before
