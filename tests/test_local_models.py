"""Models beyond a provider's: ``openai-compatible:NAME@URL`` runs a team file with a tool kind
against a local OpenAI-compatible server (the README's example, as written), keyless or with a
key from a named variable, and ``cadre serve --team-config`` serves the file naming it;
``scripted:FILE`` runs it from a file of answers (docs/models.md's, as written); their failures
are one line that names the server or the file."""

from __future__ import annotations

import itertools
import json
import re
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from typer.testing import CliRunner

from framework.cli.app import app
from framework.memory import MiniLMEmbedder
from framework.models.specs import ModelSpec, parse_model_spec
from teams.research.prompts import AGGREGATOR_SYSTEM, ANSWER_CHARS
from tests.conftest import SMALL_CORPUS, one_line_error, write_corpus
from tests.openai_server import OpenAIServer, Reply, openai_server
from tests.served import serve
from tests.test_openai_provider import completion

README = Path(__file__).parent.parent / "README.md"
PLAN = {
    "goal": "multiply",
    "sub_questions": [
        {"id": None, "description": "What is 6 times 7?", "query": "6*7", "kind": "calc"}
    ],
    "direct_answer": None,
    "rationale": "one product",
}
STRUCTURED: dict[str, Any] = {
    "PlanDraft": PLAN,
    "ReviewVerdictDraft": {
        "decision": "finish",
        "confidence": 1.0,
        "reasons": ["answered"],
        "retry": [],
        "new_tasks": [],
    },
    "FactsDraft": {"facts": []},
    "ReportDraft": {"sections": []},
}


def _documented_script() -> str:
    """The answers file of docs/models.md, for the README's team file."""
    text = (README.parent / "docs" / "models.md").read_text(encoding="utf-8")
    found = re.search(r"```yaml\n# answers.yaml\n(.*?)```", text, re.S)
    assert found is not None
    return found[1]


SCRIPT = _documented_script()


def respond(body: dict[str, Any]) -> dict[str, Any]:
    """A model that plans one multiplication, calls the tool and reports."""
    response_format = body.get("response_format")
    if response_format is not None:
        return completion(json.dumps(STRUCTURED[response_format["json_schema"]["name"]]))
    if body.get("tools"):
        last = body["messages"][-1]
        if last["role"] == "tool":
            return completion(f"6 times 7 is {last['content']}.")
        names = [tool["function"]["name"] for tool in body["tools"]]
        assert "multiply" in names, names
        call = {
            "id": "call_1",
            "type": "function",
            "function": {"name": "multiply", "arguments": json.dumps({"a": 6, "b": 7})},
        }
        return completion(tool_calls=[call])
    return completion("Findings: 6 times 7 is 42.")


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    with openai_server(respond) as httpd:
        yield httpd


def _readme_example(folder: Path) -> list[str]:
    """The README's team file and tool written into ``folder``; its command's arguments."""
    text = README.read_text(encoding="utf-8")
    section = text.split("## A local OpenAI-compatible model used with a team file", 1)[1]
    team = re.search(r"```yaml\n# team.yaml\n(.*?)```", section, re.S)
    tools = re.search(r"```python\n# mytools.py[^\n]*\n(.*?)```", section, re.S)
    command = re.search(r"^(cadre run .*?)$\n(?!    )", section, re.S | re.M)
    assert team and tools and command, section[:400]
    (folder / "team.yaml").write_text(team[1], encoding="utf-8")
    (folder / "mytools.py").write_text(tools[1], encoding="utf-8")
    return shlex.split(command[1].replace("\\\n", " "))[1:]


def _cadre(*args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(app, list(args), env=env)


def _worker_answer(result: Result) -> str:
    assert result.exit_code == 0, result.output
    [worker] = json.loads(result.stdout)["worker_results"].values()
    assert worker["status"] == "ok", worker
    return str(worker["evidence"][0]["text"])


def test_the_readmes_team_file_runs_on_a_local_openai_compatible_server(
    tmp_path: Path, server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    write_corpus(tmp_path / "docs", SMALL_CORPUS)
    args = _readme_example(tmp_path)
    args = [arg.replace("http://localhost:11434/v1", server.base_url) for arg in args]
    env = {"OPENAI_API_KEY": "sk-not-for-this-server"}

    ran = _cadre(*args, "--home", str(tmp_path / "home"), "--json", env=env)

    assert _worker_answer(ran) == "42.0"
    paths = {path for path, _ in server.requests}
    assert paths == {"/v1/chat/completions"}
    assert {body["model"] for _, body in server.requests} == {"qwen2.5:7b"}
    tool_requests = [body for _, body in server.requests if body.get("tools")]
    assert tool_requests and tool_requests[-1]["messages"][-1]["role"] == "tool"
    assert set(server.keys) == {"Bearer not-needed"}  # never $OPENAI_API_KEY


def test_the_readmes_team_file_naming_its_model_is_served_over_http(
    tmp_path: Path, server: OpenAIServer, embedder: MiniLMEmbedder
) -> None:
    """The README's way to serve the team with that model: the file names it in ``models:``
    and ``cadre serve --team-config`` serves it as the assistant ``calc-team``, whose runs over
    ``langgraph-sdk`` reach the local server (a second run too: the served model outlives the
    event loop of the first), the model's tokens streamed to the client as they come."""
    conf = tmp_path / "conf"
    conf.mkdir()
    _readme_example(conf)
    readme = README.read_text(encoding="utf-8")
    models = re.search(r"`(models: \{default: .*?\})`", readme)
    assert models, "the README names the file's model"
    team = conf / "team.yaml"
    named = models[1].replace("http://localhost:11434/v1", server.base_url)
    team.write_text(f"{named}\n{team.read_text(encoding='utf-8')}", encoding="utf-8")
    corpus = write_corpus(tmp_path / "docs", SMALL_CORPUS)
    tokens = {"ada": ("acme", "run")}
    options = ["--team-config", str(team)]
    question = {"question": "What is 6 times 7?"}
    with serve(tmp_path / "home", None, corpus=corpus, tokens=tokens, options=options) as served:
        client = served.client("ada")
        thread = client.threads.create()["thread_id"]
        final = client.runs.wait(thread, "calc-team", input=question)
        again = client.threads.create()["thread_id"]  # the served model outlives the first run
        parts = list(
            client.runs.stream(again, "calc-team", input=question, stream_mode="messages-tuple")
        )
        second = client.threads.get_state(again)["values"]
    for values in (final, second):
        assert isinstance(values, dict), values
        [worker] = values["worker_results"].values()
        assert worker["status"] == "ok" and worker["evidence"][0]["text"] == "42.0", worker
    assert {body["model"] for _, body in server.requests} == {"qwen2.5:7b"}
    tokens_seen = [
        message["content"]
        for message, metadata in (part.data for part in parts if part.event == "messages")
        if metadata["langgraph_node"] == "worker" and message["type"] == "AIMessageChunk"
    ]
    assert "".join(tokens_seen) == "6 times 7 is 42.0."  # the worker's answer, as it came
    assert len(tokens_seen) > 3


def test_a_key_is_read_from_the_variable_the_spec_names(
    tmp_path: Path, server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    write_corpus(tmp_path / "docs", SMALL_CORPUS)
    args = _readme_example(tmp_path)
    model = f"openai-compatible:qwen2.5:7b@{server.base_url}#key=LOCAL_LLM_KEY"
    args[args.index("--model") + 1] = model
    home = ["--home", str(tmp_path / "home")]

    unset = _cadre(*args, *home, env={"LOCAL_LLM_KEY": ""})
    line = one_line_error(unset)
    assert "reads its key from $LOCAL_LLM_KEY, which is not set" in line
    assert not server.requests and not (tmp_path / "home").exists()

    ran = _cadre(*args, *home, "--json", env={"LOCAL_LLM_KEY": "s3cret"})
    assert _worker_answer(ran) == "42.0"
    assert set(server.keys) == {"Bearer s3cret"}


def test_a_server_that_is_not_there_is_named_with_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    write_corpus(tmp_path / "docs", SMALL_CORPUS)
    args = _readme_example(tmp_path)
    args[args.index("--model") + 1] = "openai-compatible:qwen2.5:7b@http://127.0.0.1:9/v1"
    ran = _cadre(*args, "--home", str(tmp_path / "home"))
    assert ran.exit_code == 1, ran.output
    line = ran.stderr.strip().splitlines()[-1]  # after the progress lines
    assert "Traceback" not in ran.stderr
    assert line.startswith(
        "error: the openai-compatible chat model 'qwen2.5:7b' at http://127.0.0.1:9/v1 "
        "could not be reached"
    )
    assert "check that the server at http://127.0.0.1:9/v1 is running" in line


def test_a_server_without_structured_output_says_what_the_roles_need(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(body: dict[str, Any]) -> dict[str, Any]:
        raise AssertionError("response_format is not supported")  # answered 400

    monkeypatch.chdir(tmp_path)
    write_corpus(tmp_path / "docs", SMALL_CORPUS)
    args = _readme_example(tmp_path)
    with openai_server(refuse) as httpd:
        args[args.index("--model") + 1] = f"openai-compatible:m@{httpd.base_url}"
        ran = _cadre(*args, "--home", str(tmp_path / "home"))
    assert ran.exit_code == 1, ran.output
    line = ran.stderr.strip().splitlines()[-1]
    assert "chat model 'm' at http://127.0.0.1:" in line and "refused the request" in line
    assert "need tool calls and JSON-schema structured output" in line


def test_a_scripted_model_runs_a_team_file_offline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    write_corpus(tmp_path / "docs", SMALL_CORPUS)
    args = _readme_example(tmp_path)
    (tmp_path / "answers.yaml").write_text(SCRIPT, encoding="utf-8")
    args[args.index("--model") + 1] = "scripted:answers.yaml"
    ran = _cadre(*args, "--home", str(tmp_path / "home"), "--json", "--thread", "s1")
    assert _worker_answer(ran) == "42.0"
    shown = _cadre("show", "s1", "--home", str(tmp_path / "home"))
    assert f"model scripted:{tmp_path / 'answers.yaml'}," in shown.stdout  # recorded absolute


def test_a_team_files_scripted_model_is_found_beside_the_file(tmp_path: Path) -> None:
    folder = tmp_path / "conf"
    folder.mkdir()
    args = _readme_example(folder)
    (folder / "answers.yaml").write_text(SCRIPT, encoding="utf-8")
    team = folder / "team.yaml"
    team.write_text("models: {default: scripted:answers.yaml}\n" + team.read_text())
    corpus = write_corpus(tmp_path / "docs", SMALL_CORPUS)
    args = args[: args.index("--model")]
    args[args.index("--team-config") + 1] = str(team)
    args[args.index("--corpus") + 1] = str(corpus)
    ran = _cadre(*args, "--home", str(tmp_path / "home"), "--json")
    assert _worker_answer(ran) == "42.0"


def test_a_script_that_runs_out_fails_the_run_naming_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    write_corpus(tmp_path / "docs", SMALL_CORPUS)
    args = _readme_example(tmp_path)
    first_step = SCRIPT.split("  - tools", maxsplit=1)[0]
    (tmp_path / "answers.yaml").write_text(first_step, encoding="utf-8")
    args[args.index("--model") + 1] = "scripted:answers.yaml"
    ran = _cadre(*args, "--home", str(tmp_path / "home"))
    assert ran.exit_code == 1, ran.output
    assert "Traceback" not in ran.stderr
    assert f"the scripted chat model '{tmp_path / 'answers.yaml'}' has no answer" in ran.stderr


def test_a_bad_script_or_spec_is_refused_with_its_line(tmp_path: Path) -> None:
    script = tmp_path / "answers.yaml"
    script.write_text("steps:\n  - reply: hi\n  - {reply: a, tools: [{name: x}]}\n")
    ran = _cadre("run", "q", "--model", f"scripted:{script}", "--home", str(tmp_path / "h"))
    assert f"{script}:3: steps.1" in one_line_error(ran)
    team = tmp_path / "team.yaml"
    team.write_text("models: {default: openai-compatible:x}\nkinds: [{name: d, builtin: search}]\n")
    ran = _cadre("run", "q", "--team-config", str(team), "--home", str(tmp_path / "h"))
    assert f"{team}:1: models.default: bad model spec" in one_line_error(ran)


@pytest.mark.parametrize(
    ("spec", "parsed"),
    [
        (
            "openai-compatible:qwen2.5:7b@http://localhost:11434/v1",
            ModelSpec(
                provider="openai-compatible",
                name="qwen2.5:7b",
                base_url="http://localhost:11434/v1",
            ),
        ),
        (
            "openai-compatible:org/model@https://llm.example:8443/v1/#key=LLM_KEY",
            ModelSpec(
                provider="openai-compatible",
                name="org/model",
                base_url="https://llm.example:8443/v1",
                key_env="LLM_KEY",
            ),
        ),
        ("scripted:my answers.yaml", ModelSpec(provider="scripted", name="my answers.yaml")),
    ],
)
def test_spec_forms(spec: str, parsed: ModelSpec) -> None:
    assert parse_model_spec(spec) == parsed


def test_a_rate_limit_spell_is_waited_out_by_every_role_and_said_in_the_progress(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    write_corpus(tmp_path / "docs", SMALL_CORPUS)
    limited = itertools.count()

    def spell(body: dict[str, Any]) -> dict[str, Any] | Reply:
        if next(limited) < 2:  # the planner's first two attempts
            return Reply(
                429, {"error": {"message": "slow down", "type": "rate"}}, {"Retry-After": "0.2"}
            )
        return respond(body)

    with openai_server(spell) as httpd:
        args = [
            a.replace("http://localhost:11434/v1", httpd.base_url)
            for a in _readme_example(tmp_path)
        ]
        ran = _cadre(*args, "--home", str(tmp_path / "home"))
        calls = len(httpd.requests)
    assert ran.exit_code == 0, ran.output
    assert "waiting 0.2 s:" in ran.stderr and "asked to wait (Retry-After 0.2 s)" in ran.stderr
    with openai_server(respond) as calm:
        args = [
            a.replace("http://localhost:11434/v1", calm.base_url) for a in _readme_example(tmp_path)
        ]
        assert _cadre(*args, "--home", str(tmp_path / "home2")).exit_code == 0
        assert calls == len(calm.requests) + 2  # the two refused, nothing else sent again


def test_an_outage_at_the_workers_stops_the_run_and_resume_runs_only_what_failed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    write_corpus(tmp_path / "docs", SMALL_CORPUS)
    down = True

    def outage(body: dict[str, Any]) -> dict[str, Any] | Reply:
        if body.get("tools") and down:  # the worker's calls: the provider is down for them
            return Reply(503, {"error": {"message": "overloaded", "type": "server"}})
        return respond(body)

    home = str(tmp_path / "home")
    with openai_server(outage) as httpd:
        args = [
            a.replace("http://localhost:11434/v1", f"{httpd.base_url}#attempts=2")
            for a in _readme_example(tmp_path)
        ]
        stopped = _cadre(*args, "--home", home, "--thread", "t-outage")
        assert stopped.exit_code == 1, stopped.output
        assert httpd.base_url in stopped.stderr and "gave up after 2 attempts" in stopped.stderr
        assert "cadre resume t-outage" in stopped.stderr
        planned = sum(1 for _, body in httpd.requests if _schema(body) == "PlanDraft")
        down = False
        resumed = _cadre("resume", "t-outage", "--home", home)
        assert resumed.exit_code == 0, resumed.output
        assert "42" in resumed.stdout
        replanned = sum(1 for _, body in httpd.requests if _schema(body) == "PlanDraft")
    assert planned == replanned == 1  # the plan was kept: only the worker ran again


def _schema(body: dict[str, Any]) -> str | None:
    response_format = body.get("response_format")
    return response_format["json_schema"]["name"] if response_format else None


def test_a_worker_answer_of_200k_characters_is_kept_whole_and_shown_cut_to_the_next_role(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    write_corpus(tmp_path / "docs", SMALL_CORPUS)
    long_answer = ("6 times 7 is 42. " * 12_000).strip()  # 203,999 characters

    def verbose(body: dict[str, Any]) -> dict[str, Any]:
        if body.get("tools") and body["messages"][-1]["role"] == "tool":
            return completion(long_answer)
        return respond(body)

    with openai_server(verbose) as httpd:
        args = [
            a.replace("http://localhost:11434/v1", httpd.base_url)
            for a in _readme_example(tmp_path)
        ]
        ran = _cadre(*args, "--home", str(tmp_path / "home"), "--json")
        aggregated = [
            body["messages"][-1]["content"]
            for _, body in httpd.requests
            if body["messages"][0]["content"] == AGGREGATOR_SYSTEM
        ]
    assert ran.exit_code == 0, ran.output
    [worker] = json.loads(ran.stdout)["worker_results"].values()
    assert worker["status"] == "ok" and worker["output"] == long_answer
    [request] = aggregated  # the aggregator's: the answer cut, and said so
    assert len(request) < ANSWER_CHARS + 2_000
    assert f"[... {len(long_answer) - ANSWER_CHARS} more characters not shown]" in request
