"""How soon a client following a run over ``cadre serve`` sees a model's first token: a team
file whose model is an OpenAI-compatible provider on loopback that streams its answers a few
characters a chunk, served by ``cadre serve``, asked with langgraph-sdk's ``runs.stream`` in
``messages-tuple`` mode; the provider notes when it sent each chunk, the client when each
arrived (one clock: ``time.monotonic`` on one machine).

    PYTHONPATH=. .venv/bin/python bench/streaming.py --runs 5
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from tests.conftest import SMALL_CORPUS, write_corpus
from tests.openai_server import OpenAIServer, Reply, openai_server
from tests.served import serve
from tests.test_local_models import STRUCTURED as LOCAL_ANSWERS
from tests.test_openai_provider import completion

ANSWER = "Workers retry transient errors with backoff, then record the failure as a result."
PLAN = {
    "goal": "retries",
    "sub_questions": [
        {"id": None, "description": "How are errors retried?", "query": "retry", "kind": "docs"}
    ],
    "direct_answer": None,
    "rationale": "one lookup",
}
STRUCTURED: dict[str, Any] = {**LOCAL_ANSWERS, "PlanDraft": PLAN}
TEAM = """name: streamer
models: {{default: "openai-compatible:m@{url}"}}
kinds:
  - {{name: docs, description: passages, builtin: search}}
"""


def respond(body: dict[str, Any]) -> dict[str, Any] | Reply:
    """Structured answers whole; the aggregator's text streamed, a chunk every 20 ms."""
    response_format = body.get("response_format")
    if response_format is not None:
        return completion(json.dumps(STRUCTURED[response_format["json_schema"]["name"]]))
    return Reply(body=completion(ANSWER), chunk_s=0.02)


def first_words(server: OpenAIServer) -> tuple[float, str] | None:
    """When the provider sent the first words of a streamed answer, and those words."""
    for at, event in server.streamed:
        choices = json.loads(event).get("choices") if event != "[DONE]" else None
        if choices and choices[0]["delta"].get("content"):
            return at, str(choices[0]["delta"]["content"])
    return None


def first_token_gap(server: OpenAIServer, arrivals: list[tuple[float, str]]) -> float | None:
    """Seconds from the provider sending the answer's first words to the client seeing them."""
    sent = first_words(server)
    if sent is None:
        return None
    seen = next((at for at, text in arrivals if text == sent[1]), None)
    return None if seen is None else seen - sent[0]


def one_run(folder: Path, runs: int) -> list[float]:
    gaps: list[float] = []
    corpus = write_corpus(folder / "docs", SMALL_CORPUS)
    with openai_server(respond) as provider:
        team = folder / "team.yaml"
        team.write_text(TEAM.format(url=provider.base_url), encoding="utf-8")
        with serve(
            folder / "home", None, corpus=corpus, options=["--team-config", str(team)]
        ) as served:
            client = served.client()
            for run in range(runs):
                provider.streamed.clear()
                thread = client.threads.create()["thread_id"]
                arrivals: list[tuple[float, str]] = []
                for part in client.runs.stream(
                    thread,
                    "streamer",
                    input={"question": f"How are errors retried ({run})?"},
                    stream_mode="messages-tuple",
                ):
                    if part.event == "messages":
                        message, _ = part.data
                        arrivals.append((time.monotonic(), str(message.get("content") or "")))
                gap = first_token_gap(provider, arrivals)
                if gap is not None:
                    gaps.append(gap)
    return gaps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        gaps = one_run(Path(folder), args.runs)
    if not gaps:
        raise SystemExit("no streamed token reached the client")
    ms = sorted(g * 1000 for g in gaps)
    print(
        f"runs {len(ms)}: the first token reached the client {statistics.median(ms):.1f} ms "
        f"(median) after the provider sent it; min {ms[0]:.1f}, max {ms[-1]:.1f} "
        "(target <= 100)"
    )


if __name__ == "__main__":
    main()
