"""Every reason a team file (or a file it names) cannot run is refused alike by the three doors
that take one: ``cadre run --team-config``, ``cadre serve --team-config`` (at start-up, before it
listens or makes its home) and ``cadre policies check --team-config``. Each prints the same one
line, naming the file as it was given and the line of the offending value, and exits 2."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import framework.server.stopping
from framework.cli.app import app
from tests.conftest import one_line_error

TEAM = "team.yaml"
POLICY = "policy.yaml"
GOOD_POLICY = "budget: {run: {model_calls: 50}}\n"
SEARCH = "  - {name: docs, builtin: search}\n"
TOOLS = 'def multiply(a: float, b: float) -> float:\n    """Multiply."""\n    return a * b\n'
UNSET = "CADRE_TEST_UNSET_TOKEN"

# reason -> (the files, by name, the team file among them; what the one line says)
REASONS: dict[str, tuple[dict[str, str], str]] = {
    "missing file": ({}, "cannot read team file team.yaml: No such file or directory"),
    "not YAML": ({TEAM: "kinds: [\n"}, "team.yaml:2: not YAML"),
    "unknown key": (
        {TEAM: "name: t\ncolour: red\nkinds:\n" + SEARCH},
        "team file team.yaml is invalid: team.yaml:2: colour: Extra inputs are not permitted",
    ),
    "unknown builtin": (
        {TEAM: "kinds:\n  - {name: a, builtin: nope}\n"},
        "team.yaml:2: kinds.0.builtin: Input should be 'search' or 'table'",
    ),
    "kind of no kind type": (
        {TEAM: "kinds:\n  - {name: a}\n"},
        "team.yaml:2: kinds.0: a kind needs builtin",
    ),
    "tool that does not import": (
        {TEAM: "kinds:\n  - {name: a, tools: ['nomod:x']}\n"},
        "team.yaml:2: kinds.0.tools.0: cannot import 'nomod:x'",
    ),
    "mcp server not declared": (
        {TEAM: "models: {default: openai:gpt-4o}\nkinds:\n  - {name: a, mcp: [ghost]}\n"},
        "team.yaml:3: kinds.0.mcp.0: names no server of mcp_servers: 'ghost'",
    ),
    "kind the offline planner cannot reach (no model)": (
        {TEAM: "kinds:\n" + SEARCH + "  - {name: calc, tools: ['mytools:multiply']}\n"},
        "team.yaml:3: kinds.1: kind 'calc' calls a model, and neither the file (models.default) "
        "nor the run names one: set models.default in the file or pass --model",
    ),
    "nested file whose kind needs a model": (
        {
            TEAM: "kinds:\n" + SEARCH + "  - {name: sub, team: calc.yaml}\n",
            "calc.yaml": "kinds:\n  - {name: calc, tools: ['mytools:multiply']}\n",
        },
        "team file team.yaml is invalid: calc.yaml:2: kinds.0: kind 'calc' calls a model",
    ),
    "nested file missing": (
        {TEAM: "kinds:\n  - {name: sub, team: legal.yaml}\n"},
        "team.yaml:2: kinds.0.team: no team file legal.yaml",
    ),
    "nested file invalid": (
        {
            TEAM: "kinds:\n" + SEARCH + "  - {name: sub, team: bad.yaml}\n",
            "bad.yaml": "kinds:\n  - {name: a, builtin: nope}\n",
        },
        "bad.yaml:2: kinds.0.builtin: Input should be 'search' or 'table' "
        "(included at team.yaml:3)",
    ),
    "nested files in a cycle": (
        {
            TEAM: "kinds:\n  - {name: b, team: b.yaml}\n",
            "b.yaml": "kinds:\n  - {name: a, team: team.yaml}\n",
        },
        "team files include each other: team.yaml:2 -> b.yaml:2 -> team.yaml",
    ),
    "unknown installed team": (
        {TEAM: "kinds:\n  - {name: sub, team: nosuch}\n"},
        "team.yaml:2: kinds.0.team: no installed team 'nosuch'",
    ),
    "remote kind whose token is not set": (
        {
            TEAM: "kinds:\n  - name: p\n    remote_graph: {url: 'http://127.0.0.1:9', "
            f"assistant: research, token_env: {UNSET}}}\n"
        },
        f"team.yaml:3: kinds.0.remote_graph.token_env: environment variable {UNSET} is not set",
    ),
    "bad model spec": (
        {TEAM: "models: {default: nonsense}\nkinds:\n" + SEARCH},
        "team.yaml:1: models.default: bad model spec 'nonsense'",
    ),
    "model that cannot be built": (
        {TEAM: "models: {planner: 'openai:gpt-4o-mini'}\nkinds:\n" + SEARCH},
        "team.yaml:1: models.planner: could not create the openai chat model 'gpt-4o-mini'",
    ),
    "scripted model file missing": (
        {TEAM: "models: {default: 'scripted:answers.yaml'}\nkinds:\n" + SEARCH},
        "team.yaml:1: models.default: cannot read scripted model file answers.yaml: "
        "No such file or directory",
    ),
    "unknown review point": (
        {TEAM: "review: [nope]\nkinds:\n" + SEARCH},
        "team.yaml:1: review.0: Input should be 'plan', 'tasks' or 'answer'",
    ),
    "unknown phase": (
        {TEAM: "phases:\n  - intake\n  - review\n"},
        "team.yaml:3: phases.1: unknown phase 'review'",
    ),
    "policy file that does not load": (
        {TEAM: "kinds:\n" + SEARCH, POLICY: "budget:\n  run: {tokens: -5}\n"},
        "policy file policy.yaml is invalid: policy.yaml:2: budget.run.tokens",
    ),
}

DOORS: dict[str, list[str]] = {
    "run": ["run", "q", "--team-config", TEAM, "--policy", POLICY, "--home", "home"],
    "serve": ["serve", "--no-auth", "--team-config", TEAM, "--policy", POLICY, "--home", "home"],
    "policies check": ["policies", "check", POLICY, "--team-config", TEAM],
}


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The working folder, holding the files as given (relative names); a serve that gets past
    its checks fails the test instead of listening."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv(UNSET, raising=False)
    monkeypatch.setattr(framework.server.stopping, "serve_until_stopped", _listened)
    (tmp_path / "mytools.py").write_text(TOOLS, encoding="utf-8")
    (tmp_path / POLICY).write_text(GOOD_POLICY, encoding="utf-8")
    return tmp_path


def _listened(*_: Any, **__: Any) -> None:
    raise AssertionError("cadre serve got as far as listening")


@pytest.mark.parametrize("reason", REASONS)
def test_each_reason_is_refused_with_the_same_line_at_every_door(folder: Path, reason: str) -> None:
    files, said = REASONS[reason]
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    lines = {door: one_line_error(_cadre(args)) for door, args in DOORS.items()}
    assert set(lines.values()) == {lines["run"]}, lines
    assert said in lines["run"]
    assert str(folder) not in lines["run"]  # the files as given, never where they lie
    assert not (folder / "home").exists()


def test_a_file_that_runs_passes_every_check(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (folder / TEAM).write_text("kinds:\n" + SEARCH, encoding="utf-8")
    listened: list[str] = []
    monkeypatch.setattr(
        framework.server.stopping, "serve_until_stopped", lambda *_, **__: listened.append("on")
    )
    assert _cadre(DOORS["serve"]).exit_code == 0 and listened == ["on"]
    checked = _cadre(DOORS["policies check"])
    assert checked.exit_code == 0 and "valid, version" in checked.stdout


def _cadre(args: list[str]) -> Any:
    return CliRunner().invoke(app, args)


def test_over_http_a_tenant_is_never_shown_the_files_paths() -> None:
    from framework.errors import TeamFileError
    from framework.server._http import refusal

    error = TeamFileError("team file /srv/team.yaml is invalid: /srv/team.yaml:2: review.0: ...")
    status, detail = refusal(error)
    assert status == 422 and "/srv" not in detail and "the server's log" in detail
