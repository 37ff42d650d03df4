"""``cadre tools list``: every tool a team file's workers can call, by worker kind and source.

MCP servers are started to list their tools and stopped again; a kind without tools says which
built-in worker it uses. ``--json`` prints the same as one JSON document.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from framework.cli._common import fail

__all__ = ["tools_app"]

tools_app = typer.Typer(help="The tools a team's workers can call.")

_BUILTIN = {
    "search": "the research worker: search_corpus with a model, passage search offline",
    "table": "rows of the corpus's CSV files, no model",
}


@tools_app.command("list")
def list_tools(
    config: Annotated[
        Path,
        typer.Option("--config", help="The team file (YAML) whose tools to list.", readable=False),
    ],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """List every tool a team file's worker kinds can call, with its argument schema."""
    from framework.errors import CadreError
    from framework.tools.team_file import load_team_file

    try:
        rows = _rows(load_team_file(config))
    except CadreError as error:
        fail(error)
    if as_json:
        typer.echo(json.dumps(rows, indent=2, sort_keys=True))
        return
    for row in rows:
        schema = json.dumps(row["arguments"], sort_keys=True, separators=(",", ":"))
        typer.echo(f"{row['kind']}  {row['source']}  {row['tool']}  {schema}")
        if row["description"]:
            typer.echo(f"    {row['description']}")


def _rows(loaded: Any) -> list[dict[str, Any]]:
    """One row per (kind, tool): kind, source (python, mcp:SERVER, builtin:NAME), tool name,
    description and JSON argument schema."""
    from framework.tools.mcp import McpToolbox, describe_tools

    rows: list[dict[str, Any]] = []
    for kind in loaded.spec.kinds:
        if kind.builtin is not None:
            what = _BUILTIN[kind.builtin]
            rows.append(_row(kind.name, f"builtin:{kind.builtin}", "-", what, {}))
            continue
        for tool in loaded.tools[kind.name]:
            schema = tool.tool_call_schema
            arguments = schema if isinstance(schema, dict) else schema.model_json_schema()
            rows.append(_row(kind.name, "python", tool.name, tool.description, arguments))
        if kind.mcp:
            with McpToolbox([loaded.servers[name] for name in kind.mcp]) as toolbox:
                for described in describe_tools(toolbox):
                    rows.append(
                        _row(
                            kind.name,
                            f"mcp:{described.server}",
                            described.name,
                            described.description,
                            described.input_schema,
                        )
                    )
    return rows


def _row(
    kind: str, source: str, tool: str, description: str, arguments: dict[str, Any]
) -> dict[str, Any]:
    return {
        "kind": kind,
        "source": source,
        "tool": tool,
        "description": " ".join((description or "").split()),
        "arguments": arguments,
    }
