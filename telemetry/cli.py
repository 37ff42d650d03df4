"""``cadre trace``: the span waterfall of one thread, read from the data home's spans file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from framework.database.home import resolve_home

__all__ = ["trace"]


def trace(
    thread: Annotated[str, typer.Argument(help="The thread id of the run to show.")],
    home: Annotated[
        Path | None, typer.Option(help="Data home (default $CADRE_HOME or ./.cadre).")
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the span tree as JSON instead.")
    ] = False,
) -> None:
    """Show the spans of THREAD as a waterfall: nesting, durations, parallel work, failures."""
    from rich.console import Console

    from telemetry.export import SPANS_FILE_NAME
    from telemetry.view import build_tree, read_span_file, render_waterfall, tree_to_json

    path = resolve_home(home).traces / SPANS_FILE_NAME
    loaded = read_span_file(path, thread)
    if not loaded.spans:
        typer.echo(f"error: no spans for thread {thread!r} under {path}", err=True)
        raise typer.Exit(2)
    tree = build_tree(loaded.spans)
    if as_json:
        payload = {
            "thread_id": thread,
            "trace_ids": sorted({span.trace_id for span in loaded.spans}),
            "span_count": len(loaded.spans),
            "failed": sum(span.failed for span in loaded.spans),
            "skipped_lines": loaded.skipped_lines,
            "spans": tree_to_json(tree),
        }
        typer.echo(json.dumps(payload, indent=2, ensure_ascii=False))
    else:
        render_waterfall(tree, Console(highlight=False), skipped_lines=loaded.skipped_lines)
