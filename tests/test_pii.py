"""PII detectors and redaction: each kind found and checked (Luhn, mod-97, SSN ranges), prose
that only looks like PII left alone, each action, custom detectors, configuration errors, and
the labelled corpus as a regression floor."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pytest
from langchain_core.messages import ToolMessage
from langchain_core.tools import tool

from bench.pii import evaluate
from framework.engine.runtime import NodeContext
from framework.errors import ConfigError
from framework.memory import Passage
from framework.policy import governed
from framework.tools._calls import Answer
from framework.tools._evidence import gathered
from policies.pii import KINDS, PiiBlocked, Redactor, Span
from policies.redaction import PiiRedaction
from tests.test_policy_hooks import State, _run

ALL = Redactor(dict.fromkeys(KINDS, "redact"))


def _found(text: str) -> list[tuple[str, str]]:
    return [(span.kind, text[span.start : span.end]) for span in ALL.find(text)]


@pytest.mark.parametrize(
    ("text", "kind", "value"),
    [
        ("mail ana.lima@example.org now", "email", "ana.lima@example.org"),
        ("card 4242 4242 4242 4242.", "card", "4242 4242 4242 4242"),
        ("paid with 3782 822463 10005", "card", "3782 822463 10005"),
        ("IBAN DE89 3704 0044 0532 0130 00 please", "iban", "DE89 3704 0044 0532 0130 00"),
        ("SSN 078-05-1121.", "ssn", "078-05-1121"),
        ("NINO AB 12 34 56 C", "nino", "AB 12 34 56 C"),
        ("call +44 20 7946 0958.", "phone", "+44 20 7946 0958"),
        ("desk (415) 555-0134", "phone", "(415) 555-0134"),
        ("from 203.0.113.195 at night", "ip", "203.0.113.195"),
        ("host 2001:db8::8a2e:370:7334 up", "ip", "2001:db8::8a2e:370:7334"),
        ("key AKIAIOSFODNN7EXAMPLE leaked", "secret", "AKIAIOSFODNN7EXAMPLE"),
        ('api_key = "Zx9Qw8Er7Ty6Ui5O"', "secret", "Zx9Qw8Er7Ty6Ui5O"),
    ],
)
def test_each_kind_is_found(text: str, kind: str, value: str) -> None:
    assert (kind, value) in _found(text)


def test_a_private_key_block_is_one_secret_across_lines() -> None:
    text = "x\n-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nAAKC\n-----END RSA PRIVATE KEY-----\ny"
    [(kind, value)] = _found(text)
    assert kind == "secret" and value.startswith("-----BEGIN") and value.endswith("KEY-----")


@pytest.mark.parametrize(
    "text",
    [
        "Upgrade to Python 3.11.7 and langgraph 1.2.22 on 2026-11-23 at 14:05:09.",
        "It costs $1,299.00, 12% off; order 4815 shipped 16 items.",
        "Request 123e4567-e89b-12d3-a456-426614174000 and commit 9f2c1e7a3b.",
        "Card-like 4242 4242 4242 4241 fails Luhn; 0000 0000 0000 0000 is not a card.",
        "GB00 WEST 1234 5698 7654 32 has wrong check digits.",
        "SSNs never start 000-12-3456, 666-12-3456 or 900-12-3456.",
        "Serial 2024 1107 0031; between 100-200-300 users; see section 4.5.3.1.",
        "version 10.0.0.1 of the firmware; a MAC 00:1a:2b:3c:4d:5e; time 12:30:45.",
        'password = "short" is too short to be a secret.',
    ],
)
def test_prose_that_looks_like_pii_is_left_alone(text: str) -> None:
    assert _found(text) == []


def test_actions_redact_mask_and_hash_per_tenant() -> None:
    text = "mail ana@example.org, card 4242 4242 4242 4242"
    rules = {"email": "hash", "card": "mask"}
    one = Redactor(rules, tenant_key=b"tenant-one").redact(text)
    again = Redactor(rules, tenant_key=b"tenant-one").redact(text)
    other = Redactor(rules, tenant_key=b"tenant-two").redact(text)
    assert one.text == again.text
    assert one.text.startswith("mail [EMAIL:") and one.text.endswith("**** **** **** 4242")
    assert one.text != other.text
    assert [(f.kind, f.action) for f in one.findings] == [("email", "hash"), ("card", "mask")]
    assert "ana@example.org" not in repr(one.findings)
    assert Redactor({"email": "redact"}).redact(text).text.startswith("mail [EMAIL], card 4242")


def test_block_names_the_kinds_never_the_values() -> None:
    with pytest.raises(PiiBlocked) as caught:
        Redactor({"ssn": "block", "email": "redact"}).redact("ssn 078-05-1121 ana@example.org")
    assert "ssn" in str(caught.value) and "078-05-1121" not in str(caught.value)


def test_overlaps_keep_the_longest_span() -> None:
    spans = ALL.find("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIx.sig1234567890")
    assert [span.kind for span in spans] == ["secret"]


class TicketIds:
    """A custom detector: ticket ids like TCK-123456."""

    kind = "ticket"

    def find(self, text: str) -> Iterable[Span]:
        at = text.find("TCK-")
        if at >= 0:
            yield Span(at, at + 10, self.kind)


def test_a_custom_detector_plugs_in() -> None:
    redactor = Redactor({"ticket": "redact"}, detectors=[TicketIds()])
    assert redactor.redact("see TCK-123456 now").text == "see [TICKET] now"


@pytest.mark.parametrize(
    ("rules", "message"),
    [
        ({"email": "shred"}, "unknown PII action 'shred'"),
        ({"dna": "redact"}, "no detector finds 'dna'"),
        ({"email": "hash"}, "needs the tenant's key"),
    ],
)
def test_bad_rules_are_refused(rules: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        Redactor(rules)  # type: ignore[arg-type]


def test_the_labelled_corpus_keeps_its_quality() -> None:
    """A floor under what bench/pii.py measures on the corpus (written and tuned for cadre, so
    text it has not seen will score lower)."""
    for quality in evaluate().values():
        assert quality.precision >= 0.97, quality
        assert quality.recall >= 0.9, quality


ARGUMENTS = '{"to": "bob@example.com"}'


def test_model_input_redaction_covers_the_arguments_of_earlier_tool_calls() -> None:
    from langchain_core.messages import AIMessage, HumanMessage

    from framework.policy import Call, Principal
    from policies.redaction import PiiRedaction

    asked = AIMessage(
        content="",
        tool_calls=[{"name": "send_mail", "args": {"to": "bob@example.com"}, "id": "c1"}],
        additional_kwargs={
            "tool_calls": [
                {
                    "id": "c1",
                    "function": {"name": "send_mail", "arguments": '{"to": "bob@example.com"}'},
                }
            ]
        },
    )
    call = Call(
        hook="before_model", target="m", value=[HumanMessage("hi"), asked], principal=Principal()
    )
    verdict = PiiRedaction({"email": "redact"}, apply_to=("model_input",)).before_model(call)
    assert verdict.action == "modify"
    sent = verdict.value[1]
    assert "bob@example.com" not in repr(sent.tool_calls) + repr(sent.additional_kwargs)
    assert sent.tool_calls[0]["name"] == "send_mail" and sent.tool_calls[0]["id"] == "c1"
    assert asked.tool_calls[0]["args"] == {"to": "bob@example.com"}  # the state's copy is kept


def test_a_redacted_tool_output_keeps_its_citations() -> None:
    """Redacting a search's output redacts each passage's text and keeps the passage: its
    source (file and line) and score still cite it, instead of ``tool:NAME(digest)`` at 1.0."""
    passage = Passage(
        source="corpus/shipping.md:5",
        path="corpus/shipping.md",
        line=5,
        heading="Refunds",
        text="Refunds take ten days; ask refunds@example.com.",
        score=0.69,
    )

    @tool(response_format="content_and_artifact")
    def search_corpus(query: str) -> tuple[str, list[Passage]]:
        """Search the corpus."""
        return f"{passage.source}: {passage.text}", [passage]

    seen: list[ToolMessage] = []

    def body(state: State, context: NodeContext) -> dict[str, Any]:
        call = {"type": "tool_call", "name": "search_corpus", "args": {"query": "q"}, "id": "c1"}
        seen.append(governed(search_corpus).invoke(call))
        return {}

    _run(body, PiiRedaction({"email": "redact"}, apply_to=("tool_output",)))
    [message] = seen
    assert "refunds@example.com" not in str(message.content)
    [kept] = message.artifact
    assert (kept.source, kept.line, kept.score) == ("corpus/shipping.md:5", 5, 0.69)
    assert "refunds@example.com" not in kept.text and kept.text.startswith("Refunds take ten")
    answer = Answer(name="search_corpus", args={"query": "q"}, message=message, output="")
    [evidence] = gathered([answer], output_score=1.0)
    assert evidence["source"] == "corpus/shipping.md:5" and evidence["score"] == 0.69
