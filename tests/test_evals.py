"""``cadre eval``: datasets refused with FILE:LINE before any case runs, offline cases graded
with their reasons, a nested team's branches and trajectory, scripted reviews, a run kept
sealed and resumed after an interruption, reports, gates and comparisons."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest
from typer.testing import CliRunner

from framework.cli.app import app
from framework.database.home import DataHome
from framework.evals.cases import Case
from framework.evals.dataset import read_dataset
from framework.evals.graders import Outcome, grade
from framework.evals.report import junit_xml
from framework.evals.results import CaseResult, EvalRun, Verdict
from framework.evals.runner import EvalOptions, run_eval
from framework.evals.store import EvalStore
from framework.persistence.home_keys import home_cipher
from tests import test_openai_provider as provider
from tests.conftest import SMALL_CORPUS, write_corpus
from tests.openai_server import openai_server
from tests.test_nested_teams import PORTS, QUESTION, _files

DATASET = """\
name: small
team: research
corpus: docs
cases:
  - id: ocb
    question: How are checkpoints encrypted?
    facts: [OCB]
    sources: [checkpoints.md:3]
    forbidden: [AES-GCM]
    tags: [lookup]
  - id: retries
    question: How do workers retry transient errors?
    facts: [["three times", "3 times"]]
    sources: [retries.md:3]
    trajectory:
      includes: ["kind:search"]
      excludes: ["tool:delete"]
      counts: {"kind:search": "1.."}
    tags: [lookup, workers]
"""


def _cli(*args: str) -> Any:
    return CliRunner().invoke(app, list(args))


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    write_corpus(tmp_path / "docs", SMALL_CORPUS)
    (tmp_path / "small.yaml").write_text(DATASET)
    return tmp_path


def _error(result: Any) -> str:
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    return str(lines[0])


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("cases:\n  - id: a\n    question: a: b\n", "small.yaml:3: not YAML"),
        ("cases:\n  - id: a\n    question: q\n    colour: red\n", "small.yaml:4: cases.0.colour"),
        ("team: research\ncorpus: nowhere\ncases:\n  - {id: a, question: q}\n", "no corpus folder"),
        ("corpus: docs\ncases:\n  - id: a\n    question: q\n    team: nosuch\n", "unknown team"),
        (
            "corpus: docs\ncases:\n  - id: a\n    question: q\n    team: nofile.yaml\n",
            "no team file",
        ),
        (
            "team: research\ncorpus: docs\ncases:\n  - id: a\n    question: q\n"
            "    facts: [{regex: '(x'}]\n",
            "small.yaml:6: cases.0.facts.0.regex: regular expression '(x' does not compile",
        ),
        (
            "team: research\ncorpus: docs\ncases:\n  - {id: a, question: q}\n"
            "  - {id: a, question: r}\n",
            "small.yaml:5: cases.1.id: case id 'a' is used twice",
        ),
        (
            "team: research\ncorpus: docs\ncases:\n  - id: a\n    question: q\n"
            "    sources: [checkpoints.md]\n",
            "is not a source: write FILE:LINE",
        ),
        (
            "team: research\ncorpus: docs\ncases:\n  - id: a\n    question: q\n"
            "    trajectory: {includes: [search]}\n",
            "'search' is not a step",
        ),
    ],
)
def test_a_bad_dataset_is_one_line_naming_file_and_line_and_nothing_runs(
    folder: Path, text: str, said: str
) -> None:
    (folder / "small.yaml").write_text(text)
    home = folder / "home"
    line = _error(_cli("eval", str(folder / "small.yaml"), "--home", str(home)))
    assert line.startswith("error: ") and said in line
    assert not (home / "evals").exists()


def test_a_jsonl_dataset_names_the_line_of_its_bad_case(folder: Path) -> None:
    good = {"id": "a", "question": "How are checkpoints encrypted?", "facts": ["OCB"]}
    bad = {"id": "b", "question": "q", "facts": [{"regex": "("}]}
    (folder / "cases.jsonl").write_text(f"{json.dumps(good)}\n\n{json.dumps(bad)}\n")
    args = ["--team", "research", "--corpus", str(folder / "docs")]
    line = _error(_cli("eval", "check", str(folder / "cases.jsonl"), *args))
    assert "cases.jsonl:3: cases.1.facts.0.regex" in line
    (folder / "cases.jsonl").write_text(json.dumps(good) + "\n{not json\n")
    assert "cases.jsonl:2: not JSON" in _error(_cli("eval", "check", str(folder / "cases.jsonl")))


def test_check_finds_facts_missing_from_their_lines_and_facts_in_the_question(
    folder: Path,
) -> None:
    assert _cli("eval", "check", str(folder / "small.yaml")).exit_code == 0
    broken = DATASET.replace("checkpoints.md:3", "checkpoints.md:1").replace(
        "How do workers retry transient errors?", "Do workers retry three times?"
    )
    (folder / "small.yaml").write_text(broken)
    checked = _cli("eval", "check", str(folder / "small.yaml"))
    assert checked.exit_code == 2
    assert (
        "small.yaml:5: case ocb: fact 1 ('OCB'): not stated in checkpoints.md:1" in checked.stderr
    )
    assert "small.yaml:11: case retries: fact 1 ('three times') is in the question" in (
        checked.stderr
    )


def test_an_offline_eval_grades_each_case_with_reasons_and_writes_reports(folder: Path) -> None:
    home, junit, as_json = folder / "home", folder / "junit.xml", folder / "run.json"
    args = ["--home", str(home), "--jobs", "2", "--junit", str(junit), "--json", str(as_json)]
    ran = _cli("eval", str(folder / "small.yaml"), *args)
    assert ran.exit_code == 0, ran.output
    assert "ocb            PASS" in ran.stdout and "retries        PASS" in ran.stdout
    assert "by tag: lookup 2/2, workers 1/1" in ran.stdout
    assert "2/2 cases passed (100%)" in ran.stdout
    assert "[####################] 2/2" in ran.stderr
    run = json.loads(as_json.read_text())
    verdicts = {v["grader"]: v for v in run["cases"][0]["verdicts"]}
    assert set(verdicts) == {"answered", "facts", "cited", "forbidden", "citations", "tasks"}
    assert verdicts["cited"]["reason"] == "1/1 facts cited from a right source"
    trajectory = run["cases"][1]["verdicts"][-1]
    assert trajectory["grader"] == "trajectory" and trajectory["passed"]
    suite = ElementTree.parse(junit).getroot()
    assert suite.get("tests") == "2" and suite.get("failures") == "0"
    thread = run["cases"][0]["thread_id"]
    shown = _cli("show", thread, "--home", str(home))  # each case is a thread of the home
    assert shown.exit_code == 0 and "OCB" in shown.stdout
    [kept] = (home / "evals").iterdir()
    assert b"OCB" not in kept.read_bytes()  # sealed like the checkpoints


def test_gates_fail_the_command_and_compare_puts_regressions_first(folder: Path) -> None:
    home = ["--home", str(folder / "home")]
    first = _cli("eval", str(folder / "small.yaml"), *home, "--json", str(folder / "a.json"))
    assert first.exit_code == 0, first.output
    baseline = json.loads((folder / "a.json").read_text())["run_id"]
    (folder / "small.yaml").write_text(DATASET.replace("[OCB]", "[AES-GCM]"))
    second = _cli(
        "eval", str(folder / "small.yaml"), *home, "--json", str(folder / "b.json"),
        "--min-score", "0.9", "--no-regressions-against", baseline,
    )  # fmt: skip
    assert second.exit_code == 1
    assert "ocb            FAIL" in second.stdout
    assert "facts: 1/1 facts asserted" not in second.stdout
    assert "gate failed: score 0.50 is below --min-score 0.90" in second.stderr
    assert f"gate failed: 1 regression(s) against {baseline}: ocb" in second.stderr
    now = json.loads((folder / "b.json").read_text())["run_id"]
    compared = _cli("eval", "compare", baseline, now, *home)
    assert compared.exit_code == 1
    lines = compared.stdout.splitlines()
    assert lines[0] == "regressed      ocb"
    assert "    answer: unchanged" in lines and "still passing  retries" in lines
    listed = _cli("eval", "runs", *home)
    assert f"{baseline}  2/2 passed  live" in listed.stdout
    assert f"{now}  1/2 passed  live" in listed.stdout


class _StoppedError(Exception):
    """Stands for whatever stops an eval between two cases (Ctrl-C, a crash)."""


def test_an_interrupted_eval_keeps_finished_cases_and_runs_only_the_rest(folder: Path) -> None:
    """The eval stops after its first case: that case is kept, and the same eval run again
    goes on with the same run, running only the second case."""
    home = DataHome(root=folder / "home").create()
    store = EvalStore(home, home_cipher(home))
    dataset = read_dataset(folder / "small.yaml")

    def stop(case: Any, run: Any) -> None:
        raise _StoppedError

    with pytest.raises(_StoppedError):
        asyncio.run(run_eval(dataset, home, store, EvalOptions(trace=False), on_case=stop))
    [kept] = store.run_ids()
    stopped = store.load(kept)
    assert [case.case_id for case in stopped.cases] == ["ocb"] and not stopped.finished_at
    started: list[int] = []
    finished = asyncio.run(
        run_eval(
            dataset, home, store, EvalOptions(trace=False),
            on_start=lambda run: started.append(len(run.cases)),
        )
    )  # fmt: skip
    assert started == [1] and finished.run_id == kept  # the same run, one case done
    assert [case.case_id for case in finished.cases] == ["ocb", "retries"]
    assert finished.cases[0].thread_id == stopped.cases[0].thread_id  # not run again
    assert finished.finished_at and store.run_ids() == [kept]
    again = _cli("eval", str(folder / "small.yaml"), "--home", str(home.root), "--no-trace")
    assert "continuing eval" not in again.stderr  # the last run finished: a new one
    fresh = _cli("eval", str(folder / "small.yaml"), "--home", str(home.root), "--fresh")
    assert fresh.exit_code == 0 and len(store.run_ids()) == 3


NESTED = """\
team: top.yaml
corpus: corpus
cases:
  - id: port
    question: {question}
    facts: ["8443"]
    sources: [ports.md:3]
    trajectory:
      order: ["kind:deep", "team:middle", "kind:inner", "team:leaf", "kind:docs"]
      counts: {{"team:leaf": 1}}
    branches:
      - team: leaf
        facts: ["8443"]
        sources: [ports.md:3]
      - kind: deep
        facts: ["8443"]
      - where: "kind inner"
        forbidden: ["8080"]
      - task: q9
        facts: ["8443"]
"""


def test_a_nested_team_is_graded_branch_by_branch_with_its_trajectory(tmp_path: Path) -> None:
    _files(tmp_path)
    write_corpus(tmp_path / "corpus", {"ports.md": PORTS})
    (tmp_path / "nested.yaml").write_text(NESTED.format(question=QUESTION))
    as_json = tmp_path / "run.json"
    ran = _cli(
        "eval", str(tmp_path / "nested.yaml"), "--home", str(tmp_path / "home"),
        "--json", str(as_json),
    )  # fmt: skip
    assert ran.exit_code == 0, ran.output
    [case] = json.loads(as_json.read_text())["cases"]
    by_branch = {(v["branch"], v["grader"]): v for v in case["verdicts"]}
    assert by_branch[("", "trajectory")]["passed"], by_branch[("", "trajectory")]["reason"]
    assert by_branch[("team:leaf", "cited")]["passed"]
    assert by_branch[("kind:deep", "facts")]["passed"]
    assert by_branch[("where:kind inner", "forbidden")]["passed"]
    missing = by_branch[("task:q9", "branch")]
    assert not missing["passed"] and missing["reason"] == "no part of the tree ran there"
    assert case["status"] == "failed"
    tree = case["tree"]
    assert tree["team"] == "top" and tree["children"][0]["team"] == "middle"
    leaf = tree["children"][0]["children"][0]
    assert leaf["team"] == "leaf" and "8443" in leaf["text"]
    places = {step["place"] for step in case["trajectory"] if step["name"] == "docs"}
    assert places and all("kind inner" in place for place in places)


def test_review_pauses_are_answered_by_the_cases_script(folder: Path) -> None:
    reviewed = DATASET.replace(
        "    tags: [lookup]\n",
        "    tags: [lookup]\n    review: [plan, answer]\n"
        "    reviews: [approve, {kind: edit_answer, "
        'at: answer, answer: "- Sealed with OCB. (`docs/checkpoints.md:3`)"}]\n',
    ).replace("    tags: [lookup, workers]\n", "    tags: [lookup, workers]\n    review: [plan]\n")
    (folder / "small.yaml").write_text(reviewed)
    as_json = folder / "run.json"
    ran = _cli(
        "eval", str(folder / "small.yaml"), "--home", str(folder / "h"), "--json", str(as_json)
    )
    assert ran.exit_code == 1, ran.output  # a case that did not run fails the eval
    ocb, retries = json.loads(as_json.read_text())["cases"]
    assert ocb["status"] == "passed" and ocb["answer"].startswith("- Sealed with OCB.")
    assert retries["status"] == "error"
    assert (
        "small.yaml:13: case retries paused for a plan review (team research) with no scripted"
        in (retries["error"])
    )


def test_a_model_backed_eval_recorded_once_replays_with_no_provider(folder: Path) -> None:
    (folder / "model.yaml").write_text(
        "team: research\ncorpus: docs\ncases:\n"
        f"  - id: protected\n    question: {provider.QUESTION}\n"
        "    facts: [AES]\n    sources: [checkpoints.md:3]\n"
        "    limits: {model_calls: 50, tokens: 100000}\n"
        "    trajectory: {includes: ['model:gpt-test', 'kind:search']}\n"
    )
    home = ["--home", str(folder / "home")]
    with openai_server(provider.respond) as server:
        spec = f"openai-compatible:gpt-test@{server.base_url}"
        args = ["eval", str(folder / "model.yaml"), *home, "--model", spec]
        recorded = _cli(*args, "--record", "--json", str(folder / "a.json"))
        sent = len(server.requests)
    assert recorded.exit_code == 0, recorded.output
    assert sent > 0 and (folder / "home" / "cassettes").is_dir()
    gone = "openai-compatible:gpt-test@http://127.0.0.1:9/v1"  # nothing listens there
    replayed = _cli(
        "eval", str(folder / "model.yaml"), *home, "--model", gone, "--replay",
        "--json", str(folder / "b.json"),
    )  # fmt: skip
    assert replayed.exit_code == 0, replayed.output
    [before] = json.loads((folder / "a.json").read_text())["cases"]
    [after] = json.loads((folder / "b.json").read_text())["cases"]
    assert after["status"] == before["status"] == "passed"
    assert after["answer"] == before["answer"]
    assert after["usage"]["model_calls"] == before["usage"]["model_calls"] == sent
    assert after["usage"]["input_tokens"] == before["usage"]["input_tokens"] > 0
    assert [s["name"] for s in after["trajectory"]] == [s["name"] for s in before["trajectory"]]
    (folder / "model.yaml").write_text(
        (folder / "model.yaml").read_text().replace(provider.QUESTION, "How is data sealed?")
    )
    changed = _cli("eval", str(folder / "model.yaml"), *home, "--model", gone, "--replay")
    assert changed.exit_code == 1
    assert "protected      ERROR" in changed.stdout
    [said] = [line for line in changed.stderr.splitlines() if line.startswith("case protected")]
    assert "no longer matches its recording" in said and "record it again with --record" in said


def test_a_replay_without_recordings_is_refused_before_any_case_runs(folder: Path) -> None:
    line = _error(_cli("eval", str(folder / "small.yaml"), "--home", str(folder / "h"), "--replay"))
    assert "small.yaml:5: case ocb has no recording to replay" in line
    assert "--record` first" in line


def _judging(body: dict[str, Any]) -> dict[str, Any]:
    """The team's calls answered as the research test provider does; the judge's by the rubric:
    it passes an answer that cites the checkpoints page."""
    asked = str(body["messages"][-1].get("content"))
    if "Rubric:" not in asked:
        return provider.respond(body)
    passed = "checkpoints.md" in asked.split("Answer:", 1)[1]
    reason = "it cites the checkpoints page" if passed else "it cites nothing"
    return provider.completion(json.dumps({"passed": passed, "reason": reason}))


def test_a_model_judge_grades_by_its_rubric_through_the_gateway_and_replays(
    folder: Path,
) -> None:
    (folder / "judged.yaml").write_text(
        "team: research\ncorpus: docs\ncases:\n"
        "  - id: judged\n    question: How are checkpoints encrypted?\n"
        "    judge: {rubric: The answer cites the page on checkpoints.}\n"
    )
    home = ["--home", str(folder / "home")]
    refused = _error(_cli("eval", str(folder / "judged.yaml"), *home))
    assert "judged.yaml:4: case judged: the case has a judge but no model" in refused
    with openai_server(_judging) as server:
        judge = f"openai-compatible:judge@{server.base_url}"
        ran = _cli(
            "eval", str(folder / "judged.yaml"), *home, "--judge-model", judge, "--record",
            "--json", str(folder / "a.json"),
        )  # fmt: skip
        judged_calls = [r for r in server.requests if "Rubric:" in json.dumps(r)]
    assert ran.exit_code == 0, ran.output
    assert len(judged_calls) == 1  # the offline team made no call: the judge's only
    [case] = json.loads((folder / "a.json").read_text())["cases"]
    [verdict] = [v for v in case["verdicts"] if v["grader"] == "judge"]
    assert verdict["passed"] and verdict["reason"] == f"{judge}: it cites the checkpoints page"
    replayed = _cli(
        "eval", str(folder / "judged.yaml"), *home, "--replay", "--json", str(folder / "b.json"),
        "--judge-model", "openai-compatible:judge@http://127.0.0.1:9/v1",
    )  # fmt: skip
    assert replayed.exit_code == 0, replayed.output
    [again] = json.loads((folder / "b.json").read_text())["cases"]
    assert next(v for v in again["verdicts"] if v["grader"] == "judge")["passed"]


def test_an_eval_is_a_span_over_its_cases_each_linked_to_its_run(folder: Path) -> None:
    home = folder / "home"
    ran = _cli(
        "eval", str(folder / "small.yaml"), "--home", str(home), "--json", str(folder / "r.json")
    )
    assert ran.exit_code == 0, ran.output
    spans = [
        json.loads(line) for line in (home / "traces" / "spans.jsonl").read_text().splitlines()
    ]
    [evaluation] = [s for s in spans if s["name"] == "cadre.eval"]
    cases = [s for s in spans if s["name"] == "cadre.eval.case"]
    assert {s["attributes"]["cadre.eval.case"] for s in cases} == {"ocb", "retries"}
    assert all(s["parent_span_id"] == evaluation["span_id"] for s in cases)
    threads = {
        c["case_id"]: c["thread_id"] for c in json.loads((folder / "r.json").read_text())["cases"]
    }
    runs = {
        s["attributes"].get("cadre.thread_id"): s
        for s in spans
        if s["name"].startswith("cadre.run")
    }
    for case in cases:
        [link] = case["links"]
        run = runs[threads[case["attributes"]["cadre.eval.case"]]]
        assert link["trace_id"] == run["trace_id"]  # the case's own trace, one click away
        assert case["attributes"]["cadre.eval.status"] == "passed"


def test_the_readme_dataset_holds_against_the_docs_it_cites() -> None:
    """``bench/quality/docs.yaml`` (the README's example) cites lines of docs/: an edit of a
    page that moves them fails here, not in a reader's first eval."""
    dataset = Path(__file__).resolve().parent.parent / "bench" / "quality" / "docs.yaml"
    checked = _cli("eval", "check", str(dataset))
    assert checked.exit_code == 0, checked.stderr


def test_a_coordinators_phase_is_a_branch_graded_on_its_findings(folder: Path) -> None:
    (folder / "meta.yaml").write_text(
        "team: meta\ncorpus: docs\ncases:\n"
        "  - id: m\n    question: How are checkpoints encrypted?\n"
        "    branches:\n      - phase: intake\n        facts: ['question of 4 words']\n"
        "      - phase: compliance\n        forbidden: ['error:']\n"
        "      - phase: nosuch\n        facts: [x]\n"
    )
    ran = _cli(
        "eval",
        str(folder / "meta.yaml"),
        "--home",
        str(folder / "h"),
        "--json",
        str(folder / "r.json"),
    )
    assert ran.exit_code == 0, ran.output
    [case] = json.loads((folder / "r.json").read_text())["cases"]
    verdicts = {(v["branch"], v["grader"]): v["passed"] for v in case["verdicts"]}
    assert verdicts[("phase:intake", "facts")] and verdicts[("phase:compliance", "forbidden")]
    assert not verdicts[("phase:nosuch", "branch")]
    assert case["trajectory"][0] == {
        "type": "team",
        "name": "research",
        "place": "",
        "schema_version": 1,
    }


def test_an_openai_model_replays_with_no_key_and_is_not_built_for_nothing(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (folder / "openai.yaml").write_text(
        "team: research\ncorpus: docs\ncases:\n"
        f"  - id: protected\n    question: {provider.QUESTION}\n    facts: [AES]\n"
    )
    args = ["eval", str(folder / "openai.yaml"), "--home", str(folder / "h"), "--model"]
    with openai_server(provider.respond) as server:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-recording")
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        recorded = _cli(*args, "openai:gpt-test", "--record")
    assert recorded.exit_code == 0, recorded.output
    monkeypatch.delenv("OPENAI_API_KEY")  # CI replays with no secret and no provider
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    replayed = _cli(*args, "openai:gpt-test", "--replay")
    assert replayed.exit_code == 0, replayed.output
    assert "protected      PASS" in replayed.stdout


@pytest.mark.parametrize(
    ("answer", "passed", "reason"),
    [
        ("# Q\n\n## Findings\n\nNo evidence was found for this question.\n", True, "says it"),
        ("", False, "does not say it found nothing"),
        ("## Findings\n\n- The speed is 11 m/s.\n", False, "asserted 1 statement(s)"),
    ],
)
def test_an_unanswerable_case_passes_only_when_the_answer_says_it_found_nothing(
    answer: str, passed: bool, reason: str
) -> None:
    case = Case(id="u", question="How fast is it?", answerable=False)
    [verdict] = [v for v in grade(case, Outcome(answer=answer)) if v.grader == "answered"]
    assert verdict.passed == passed and reason in verdict.reason


def test_citations_never_count_a_file_outside_the_corpus(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "docs", SMALL_CORPUS)
    (tmp_path / "secret.md").write_text("one\ntwo\n")
    answer = "## Findings\n\n- It is so. (`../secret.md:1`)\n- So it is. (`docs/retries.md:3`)\n"
    case = Case(id="c", question="q")
    [verdict] = [
        v for v in grade(case, Outcome(answer=answer, corpus=corpus)) if v.grader == "citations"
    ]
    assert not verdict.passed and "../secret.md:1 (no such file in the corpus)" in verdict.reason


def test_a_cited_files_name_states_no_value_and_no_fact() -> None:
    answer = "## Findings\n\n- Python 3.9 or newer is needed. (`docs/v6.2.0.rst:67`)\n"
    case = Case.model_validate(
        {"id": "v", "question": "q", "facts": [["6.2.0"]], "forbidden": ["6.2.0"]}
    )
    verdicts = {v.grader: v for v in grade(case, Outcome(answer=answer))}
    assert verdicts["forbidden"].passed and not verdicts["facts"].passed


def test_reports_are_private_well_formed_and_tags_count_once(folder: Path) -> None:
    (folder / "small.yaml").write_text(DATASET.replace("tags: [lookup]", "tags: [lookup, lookup]"))
    junit = folder / "junit.xml"
    ran = _cli(
        "eval", "--home", str(folder / "h"), str(folder / "small.yaml"), "--junit", str(junit)
    )
    assert ran.exit_code == 0, ran.output  # options may come before the dataset
    assert "by tag: lookup 2/2, workers 1/1" in ran.stdout
    assert junit.stat().st_mode & 0o777 == 0o600
    run = EvalRun.model_validate_json(
        EvalRun(
            run_id="r", dataset="d", dataset_digest="x", started_at="t",
            cases=[CaseResult(case_id="a", question="q", status="failed", answer="x\x0cy\x1b[1m",
                              verdicts=[Verdict(grader="facts", passed=False, reason="no\x07")])],
        ).model_dump_json()
    )  # fmt: skip
    ElementTree.fromstring(junit_xml(run).split("\n", 1)[1])  # no character XML cannot hold
