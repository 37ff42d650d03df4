"""One trace across processes: a caller's W3C trace context comes in at ``cadre serve``'s door,
the run executes under it, and a ``remote_graph:`` kind sends it on to the server that answers
its task, whose run joins the same trace (two real servers, each with its own home).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from tests.conftest import SMALL_CORPUS, write_corpus
from tests.served import Served, make_tokens, start

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
    ours = {span["span_id"] for span in here}
    assert any(span["parent_span_id"] in ours for span in there)
