"""Redaction everywhere data leaves: a PII policy on ``tool_output`` redacts every worker's
evidence, here the offline search worker's passages (read from the corpus, no tool called), at
the worker's result, so no surface shows the e-mail address or phone number it read: the state
and history over LangGraph's own client (``langgraph-sdk``) against a real ``cadre serve``, the
console's thread page, an AG-UI run's whole event stream, an A2A answer (a2a-sdk's client) and
an MCP answer (the ``mcp`` package's), ``cadre show`` of a paused run (its draft answer is
consolidated from the evidence), the spans ``--trace-content`` captures, and the policy audit
names each redaction without the values. A kind the policy blocks in evidence refuses the task,
and a policy that rewrites the texts into another shape fails closed. The hypothesis team's
sources are tool calls under the policy too."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from ag_ui.core import RunAgentInput, UserMessage
from click.testing import Result
from google.protobuf.json_format import MessageToJson
from typer.testing import CliRunner

from framework.cli.app import app
from framework.memory import MiniLMEmbedder
from tests.conftest import SMALL_CORPUS, write_corpus
from tests.served import Served, make_tokens, start
from tests.test_a2a_server import _agent, _sent, _text
from tests.test_mcp_server import connected

QUESTION = "Who handles billing questions and how do I reach them?"
CONTACTS = (
    "# Support contacts\n\n## Billing\n\nFor billing questions, write to "
    "billing.desk@example.com or call +1 415-555-0134 during office hours. The billing team "
    "answers within two working days.\n\n## Security\n\nSecurity reports go to the security "
    "officer at dana.reyes@example.org; phone +44 20 7946 0958.\n"
)
RAW = ("billing.desk@example.com", "415-555-0134", "dana.reyes@example.org", "7946 0958")
PII = "pii:\n  rules: {email: redact, phone: redact}\n  apply_to: [tool_output, memory, answer]\n"
CORPUS = {**SMALL_CORPUS, "contacts.md": CONTACTS}

runner = CliRunner()


def _raw_in(text: str) -> list[str]:
    """The raw values ``text`` shows (none, once redacted)."""
    return [value for value in RAW if value in text]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, embedder: MiniLMEmbedder) -> Iterator[Served]:
    """A server whose runs go under the PII policy, over a corpus holding contact details."""
    root = tmp_path_factory.mktemp("evidence")
    corpus = write_corpus(root / "docs", CORPUS)
    policy = root / "policy.yaml"
    policy.write_text(PII, encoding="utf-8")
    served = Served(url="", home=root / "home", database=None)
    served.tokens = make_tokens(served.home, None, {"ada": ("acme", "run,review")})
    with start(served, corpus=corpus, options=["--policy", str(policy)]):
        yield served


@pytest.fixture(scope="module")
def answered(served: Served) -> str:
    """A thread of ada's whose run of the MetaCoordinator ended."""
    client = served.client("ada")
    thread_id: str = client.threads.create()["thread_id"]
    client.runs.wait(thread_id, "meta", input={"question": QUESTION})
    return thread_id


def _evidence(values: dict[str, Any]) -> list[str]:
    return [
        item["text"] for result in values["worker_results"].values() for item in result["evidence"]
    ]


def test_the_state_and_history_over_the_api_hold_the_evidence_redacted(
    served: Served, answered: str
) -> None:
    client = served.client("ada")
    values = client.threads.get_state(answered)["values"]
    cited = _evidence(values)
    assert any("[EMAIL]" in text and "[PHONE]" in text for text in cited), cited
    assert _raw_in(json.dumps(values)) == []  # results, consolidated draft, facts, answer
    history = client.threads.get_history(answered, limit=100)
    assert len(history) > 5 and _raw_in(json.dumps(history)) == []

    audit = [entry for entry in values["policy_audit"] if entry["hook"] == "evidence"]
    assert audit and {entry["target"] for entry in audit} == {"search"}
    assert all(entry["reason"].startswith("evidence: ") for entry in audit)
    assert _raw_in(json.dumps(audit)) == []


def test_the_consoles_evidence_section_shows_the_redacted_text(
    served: Served, answered: str
) -> None:
    with httpx.Client(base_url=served.url, timeout=120) as console:
        signed = console.post("/console/login", data={"token": served.tokens["ada"]})
        assert signed.status_code == 303
        page = console.get(f"/console/threads/{answered}").text
    evidence = page.split("<h2>Evidence</h2>", 1)[1]
    assert "[EMAIL]" in evidence and "[PHONE]" in evidence
    assert _raw_in(page) == []


def test_an_agui_run_streams_no_raw_value(served: Served) -> None:
    body = RunAgentInput(
        thread_id=str(uuid.uuid4()),
        run_id=str(uuid.uuid4()),
        messages=[UserMessage(id="m1", content=QUESTION)],
        tools=[],
        context=[],
        state={},
        forwarded_props={},
    ).model_dump(mode="json", by_alias=True)
    headers = {"x-api-key": served.tokens["ada"], "accept": "text/event-stream"}
    with httpx.Client(base_url=served.url, timeout=120) as http:
        streamed = http.post("/agui/research", json=body, headers=headers)
    assert streamed.status_code == 200, streamed.text
    assert '"STATE_SNAPSHOT"' in streamed.text and "[EMAIL]" in streamed.text
    assert _raw_in(streamed.text) == []


async def test_an_a2a_answer_carries_its_sources_redacted(served: Served) -> None:
    async with _agent(served, "research") as client:
        events = await _sent(client, _text(QUESTION))
    said = "".join(MessageToJson(event) for event in events)
    assert '"evidence"' in said and "[EMAIL]" in said  # the answer's cited sources, as data
    assert _raw_in(said) == []


async def test_an_mcp_answer_carries_no_raw_value(served: Served) -> None:
    async with connected(served, "ada") as session:
        result = await session.call_tool("research", {"question": QUESTION})
    said = result.model_dump_json()
    assert not result.isError and "[EMAIL]" in said, said
    assert _raw_in(said) == []


def _cadre(home: Path, *args: str) -> Result:
    return runner.invoke(app, [*args, "--home", str(home)], env={"CADRE_REVIEWER": "dana"})


def _run(tmp_path: Path, policy: str, *options: str, team: str = "research") -> tuple[Path, Result]:
    """``cadre run`` of ``team`` under ``policy`` over the contacts corpus."""
    corpus = write_corpus(tmp_path / "docs", CORPUS)
    (tmp_path / "policy.yaml").write_text(policy, encoding="utf-8")
    home = tmp_path / "home"
    ran = _cadre(
        home, "run", QUESTION, "--corpus", str(corpus), "--team", team,
        "--policy", str(tmp_path / "policy.yaml"), "--thread", "t1", *options,
    )  # fmt: skip
    return home, ran


def test_cadre_show_of_a_paused_run_prints_its_draft_redacted(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    home, ran = _run(tmp_path, "approval: {nodes: [memory_curator]}\n" + PII)
    assert ran.exit_code == 0 and "paused for review" in ran.output, ran.output
    shown = _cadre(home, "show", "t1")
    assert shown.exit_code == 0, shown.output
    draft = shown.output.split("draft answer:\n", 1)[1]
    assert "write to [EMAIL] or call [PHONE]" in draft
    assert _raw_in(shown.output) == []


def test_spans_with_captured_content_hold_no_raw_value(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    home, ran = _run(tmp_path, PII, "--trace-content")
    assert ran.exit_code == 0, ran.output
    spans = (home / "traces" / "spans.jsonl").read_text(encoding="utf-8")
    assert "[EMAIL]" in spans and '"worker"' in spans
    assert _raw_in(spans) == []


BLOCKING = "pii:\n  rules: {email: block}\n  apply_to: [tool_output]\n"


def test_evidence_holding_a_blocked_kind_refuses_its_task(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    _, ran = _run(tmp_path, BLOCKING, "--json")
    state = json.loads(ran.stdout)
    refused = [result for result in state["worker_results"].values() if result["refused"]]
    assert refused, state["worker_results"]
    assert all(
        "denied the evidence of a task of kind 'search'" in result["error"]
        and "holds email, which the policy blocks" in result["error"]
        for result in refused
    )
    assert _raw_in(json.dumps(state)) == []


RESHAPING = '''"""Rewrites a worker result's texts into a single string: not the hook's shape."""

from framework.policy import Policy, modify


class Reshaping(Policy):
    name = "reshaping"

    def evidence(self, call):
        return modify("all gone", "flattened")
'''


def test_a_policy_that_reshapes_the_evidence_fails_the_task_closed(
    tmp_path: Path, embedder: MiniLMEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "modules").mkdir()
    (tmp_path / "modules" / "reshaping_policy.py").write_text(RESHAPING, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path / "modules"))
    _, ran = _run(tmp_path, 'custom: ["reshaping_policy:Reshaping"]\n', "--json")
    results = json.loads(ran.stdout)["worker_results"].values()
    assert results and all(result["status"] == "failed" for result in results)
    assert all("into another shape: the task was refused" in r["error"] for r in results)


def test_the_hypothesis_teams_sources_are_tool_calls_under_the_policy(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    policy = "pii:\n  rules: {email: redact, phone: redact}\n  apply_to: [tool_output, answer]\n"
    _, ran = _run(tmp_path, policy, "--json", team="hypothesis")
    assert ran.exit_code == 0, ran.output  # its state read the policy audit's reducer as its own
    state = json.loads(ran.stdout)
    assert "[EMAIL]" in json.dumps(state["evidence"]) and "[EMAIL]" in state["final_answer"]
    assert _raw_in(json.dumps(state)) == []  # evidence, hypotheses, report, answer
    assert {(e["hook"], e["target"]) for e in state["policy_audit"]} >= {("after_tool", "corpus")}
