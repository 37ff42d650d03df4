"""``cadre policies check FILE --team-config TEAMFILE --model MODEL`` refuses rules naming tools,
teams or nodes the team (run on MODEL) does not have, each with its ``FILE:LINE``: a tool rule
naming ``reorder_prat`` would match nothing while the real ``reorder_part`` stays allowed."""

from __future__ import annotations

import sys
from pathlib import Path

from typer.testing import CliRunner

from framework.cli.app import app
from tests.conftest import one_line_error

DEMO_SERVER = Path(__file__).parent / "mcp_servers" / "demo.py"
TOOLS = '''\
from langchain_core.tools import tool


@tool
def reorder_part(part: str, count: int) -> str:
    """Reorder COUNT of a part."""
    return f"ordered {count} {part}"
'''
TEAM = f"""\
name: shop
kinds:
  - {{name: docs, builtin: search}}
  - {{name: stock, tools: ["shoptools:reorder_part"]}}
  - {{name: weather, mcp: [ops]}}
mcp_servers:
  - name: ops
    transport: stdio
    command: {sys.executable}
    args: [{DEMO_SERVER}]
    tools: [forecast]
    prefix: true
"""
GOOD = """\
approval: {nodes: [memory_curator, "work*"], teams: [shop]}
tool_authorization:
  rules:
    - {tools: reorder_part, action: ask, reason: orders need a human}
    - {tools: forecast, action: allow}
    - {tools: ops_forecast, action: allow}
    - {tools: "search_*", action: allow}
    - {tools: "*", action: deny}
rate_limits:
  "tool:reorder_*": {requests_per_minute: 10}
  "model:openai:*": {requests_per_minute: 100}
budget: {teams: {shop: {tokens: 1000}}}
"""
BAD = """\
approval: {nodes: [memory_curtor], teams: [shopp]}
tool_authorization:
  rules:
    - {tools: reorder_part, action: allow}
    - {tools: reorder_prat, action: deny}
rate_limits:
  "tool:lookup_*": {requests_per_minute: 10}
budget: {teams: {research: {tokens: 1000}}}
"""


def _check(tmp_path: Path, policy_text: str) -> object:
    team = tmp_path / "team.yaml"
    team.write_text(TEAM, encoding="utf-8")
    (tmp_path / "shoptools.py").write_text(TOOLS, encoding="utf-8")
    policy = tmp_path / "policy.yaml"
    policy.write_text(policy_text, encoding="utf-8")
    model = ["--model", "openai:gpt-4o-mini"]  # what its tool kinds run on (never built)
    args = ["policies", "check", str(policy), "--team-config", str(team), *model]
    return CliRunner().invoke(app, args)


def test_rules_naming_the_teams_tools_teams_and_nodes_pass(tmp_path: Path) -> None:
    result = _check(tmp_path, GOOD)
    assert result.exit_code == 0, result.output  # type: ignore[attr-defined]
    assert "valid, version" in result.stdout  # type: ignore[attr-defined]


def test_rules_naming_what_the_team_does_not_have_are_refused_with_their_lines(
    tmp_path: Path,
) -> None:
    line = one_line_error(_check(tmp_path, BAD))
    policy = (tmp_path / "policy.yaml").resolve()
    assert f"{policy}:5: tool_authorization.rules.1.tools: the team has no tool 'reorder_prat'" in (
        line
    )
    assert "(its tools: forecast, ops_forecast, reorder_part, search_corpus)" in line
    assert f"{policy}:7: rate_limits.tool:lookup_*: the team has no tool 'lookup_*'" in line
    assert f"{policy}:1: approval.nodes.0: the team has no node 'memory_curtor'" in line
    assert f"{policy}:1: approval.teams.0: the team has no team 'shopp' (its teams: shop)" in line
    assert f"{policy}:8: budget.teams.research: the team has no team 'research'" in line
    assert "reorder_part, action: allow" not in line
    assert line.count("the team has no") == 5


def test_without_a_team_file_the_names_are_not_checked(tmp_path: Path) -> None:
    policy = tmp_path / "policy.yaml"
    policy.write_text(BAD, encoding="utf-8")
    result = CliRunner().invoke(app, ["policies", "check", str(policy)])
    assert result.exit_code == 0, result.output
