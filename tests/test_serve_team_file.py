"""``cadre serve --team-config FILE`` (several allowed): each file's team is an assistant named
by the file's team name, runs over real HTTP with ``langgraph-sdk``, pauses at the file's review
points, and its threads record the file as ``cadre run --team-config`` does; a caller naming a
model only a team file may name is answered 403 before a run or a thread is recorded; a bad
file, or a name another team has, is refused before the home is made."""

from __future__ import annotations

import uuid
from pathlib import Path

from typer.testing import CliRunner

from framework.cli.app import app
from framework.memory import MiniLMEmbedder
from tests.conftest import SMALL_CORPUS, one_line_error, write_corpus
from tests.served import serve
from tests.test_console_seams import _console

SUPPORT = """\
name: support
review: [plan]
kinds:
  - {name: docs, builtin: search}
"""
LOOKUP = """\
name: lookup
kinds:
  - {name: docs, builtin: search}
"""
QUESTION = "How do workers retry transient errors?"


def _files(folder: Path) -> tuple[Path, Path]:
    folder.mkdir()
    support, lookup = folder / "support.yaml", folder / "lookup.yaml"
    support.write_text(SUPPORT, encoding="utf-8")
    lookup.write_text(LOOKUP, encoding="utf-8")
    return support, lookup


def test_team_files_are_served_as_assistants_named_by_their_teams(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    support, lookup = _files(tmp_path / "conf")
    corpus = write_corpus(tmp_path / "docs", SMALL_CORPUS)
    options = ["--team-config", str(support), "--team-config", str(lookup)]
    home = tmp_path / "home"
    tokens = {"ada": ("acme", "run,review")}
    with serve(home, None, corpus=corpus, tokens=tokens, options=options) as served:
        client = served.client("ada")
        names = {a["name"]: a for a in client.assistants.search(limit=100)}
        assert {"support", "lookup", "research", "meta"} <= set(names)
        assert names["support"]["graph_id"] == "support"
        assert names["support"]["description"] == f"the team of {support.name}"

        thread = client.threads.create()["thread_id"]
        paused = client.runs.wait(thread, "support", input={"question": QUESTION})
        assert isinstance(paused, dict), paused
        [interrupt] = paused["__interrupt__"]  # the file's review point, no --review
        assert interrupt["value"]["kind"] == "plan"
        final = client.runs.wait(thread, "support", command={"resume": "approve"})
        assert isinstance(final, dict) and "retry" in final["final_answer"].lower()
        assert client.threads.get(thread)["metadata"]["graph_id"] == "support"

        by_id = names["lookup"]["assistant_id"]
        other = client.threads.create()["thread_id"]
        done = client.runs.wait(other, by_id, input={"question": QUESTION})
        assert isinstance(done, dict) and done["final_answer"]

        asked = client.threads.create()["thread_id"]
        unmade = str(uuid.uuid4())
        with served.http("ada") as http:
            for thread_id, creates in ((asked, None), (unmade, "create")):
                refused = http.post(
                    f"/threads/{thread_id}/runs/wait",
                    json={
                        "assistant_id": "lookup",
                        "input": {"question": QUESTION},
                        "config": {"configurable": {"model": "scripted:/etc/passwd"}},
                        "if_not_exists": creates,
                    },
                )
                assert refused.status_code == 403, refused.text  # at start: no run recorded
                assert "may not name the model scripted:" in refused.json()["detail"]
            assert http.get(f"/threads/{unmade}").status_code == 404  # no thread made either
        assert client.runs.list(asked) == []
        with _console(served) as console:  # the console names the team, never a server path
            listed = console.get("/console", params={"team": "support", "status": "done"}).text
        assert thread in listed and str(support.parent) not in listed
        assert "file:" not in listed

    shown = CliRunner().invoke(app, ["show", thread, "--home", str(home)])
    assert shown.exit_code == 0, shown.output
    assert f"team support ({support.resolve()}), model offline, review plan" in shown.stdout


def test_a_bad_team_file_or_a_taken_name_is_refused_before_the_home_is_made(
    tmp_path: Path,
) -> None:
    _, lookup = _files(tmp_path / "conf")
    home = tmp_path / "home"
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: bad\nkinds:\n  - {name: x, builtin: nope}\n", encoding="utf-8")
    taken = tmp_path / "taken.yaml"
    taken.write_text(LOOKUP.replace("lookup", "research"), encoding="utf-8")
    twice = tmp_path / "twice.yaml"
    twice.write_text(LOOKUP, encoding="utf-8")
    cases = [
        ([bad], f"{bad.resolve()}:3: kinds.0.builtin"),
        ([taken], "names its team 'research', as an installed team does"),
        ([lookup, twice], f"names its team 'lookup', as file:{lookup.resolve()} does"),
    ]
    for files, message in cases:
        options = [arg for file in files for arg in ("--team-config", str(file))]
        result = CliRunner().invoke(app, ["serve", "--no-auth", "--home", str(home), *options])
        assert message in one_line_error(result)
        assert not home.exists()
