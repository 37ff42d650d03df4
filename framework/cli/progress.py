"""Live progress of a run on the terminal, from the events its nodes emit, and the answer as it
is spoken."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from langchain_core.messages import AIMessageChunk
from rich.console import Console
from rich.markup import escape

from framework.cli._terminal import printable
from framework.engine.spoken import speaks_answer
from framework.runs.runner import Event

__all__ = ["AnswerPrinter", "ProgressPrinter"]


def _plan(event: Event) -> str:
    tasks = event.get("tasks") or []
    lines = [f"[bold]plan[/] {len(tasks)} task(s)"]
    lines += [f"  {escape(t['id'])}: {escape(t['description'])}" for t in tasks]
    return "\n".join(lines)


def _review(event: Event) -> str:
    forced = f" (forced by {event['forced_by']})" if event.get("forced_by") else ""
    reasons = "; ".join(event.get("reasons") or [])
    return (
        f"[bold]review {event.get('iteration')}[/] {event.get('decision')}{forced}, "
        f"confidence {float(event.get('confidence') or 0):.2f}: {escape(reasons)}"
    )


def _findings(event: Event) -> str:
    phase = str(event.get("event"))
    findings: list[dict[str, Any]] = event.get("findings") or []
    counts: dict[str, int] = {}
    for finding in findings:
        counts[finding["severity"]] = counts.get(finding["severity"], 0) + 1
    summary = ", ".join(f"{n} {severity}" for severity, n in sorted(counts.items()))
    lines = [f"[bold]{phase.replace('_', ' ')}[/] {summary or 'no findings'}"]
    lines += [
        f"  {escape(f['severity'])}: {escape(f['message'])}"
        for f in findings
        if f["severity"] != "info"
    ]
    return "\n".join(lines)


def _text(template: str) -> Callable[[Event], str]:
    """A one-line formatter filling ``template`` with the event's (escaped) fields."""

    def describe(event: Event) -> str:
        fields = {key: escape(str(value)) for key, value in event.items()}
        return template.format_map(_Blank(fields))

    return describe


class _Blank(dict[str, str]):
    def __missing__(self, key: str) -> str:
        return ""


_FORMATS: dict[str, Callable[[Event], str]] = {
    "plan": _plan,
    "dispatch": lambda e: f"[bold]dispatch[/] {len(e.get('task_ids') or [])} task(s)",
    "task_done": _text("  [green]done[/] {task_id}"),
    "task_failed": _text("  [red]failed[/] {task_id}: {error}"),
    "waiting": _text("  [yellow]waiting[/] {seconds} s: {reason}"),
    "running": _text("  [dim]running[/] {seconds} s: {reason}"),
    "review": _review,
    "memory": _text("[bold]memory[/] {facts} fact(s) kept"),
    "risk_assessment": _findings,
    "compliance_check": _findings,
    "started": _text("[bold]started[/] {memory_note}"),
    "next_step": _text("[bold]next[/] {step}: {reason}"),
    "searching": lambda e: f"[bold]searching[/] {len(e.get('queries') or [])} quer(ies)",
    "evidence_found": _text("  evidence from {source}: {found} found, {new} new"),
    "source_failed": _text("  [red]source {source} failed[/]: {error}"),
    "hypothesis_updated": _text("[bold]hypothesis[/] {status} {confidence}: {statement}"),
    "conflict_found": _text("[bold]conflict[/] {id}: {description}"),
    "conflict_resolved": _text("[bold]resolved[/] {id}: {resolution}"),
}


class ProgressPrinter:
    """Prints one line per known event: plan, dispatches, task outcomes, reviews, findings,
    hypotheses and conflicts. Unknown events are skipped."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self._teams: dict[tuple[str, ...], str] = {}

    def __call__(self, namespace: tuple[str, ...], event: Event) -> None:
        """Print ``event``, prefixed with the teams it comes through when it comes from a
        nested team (``middle > leaf``; a graph that says no team by its node's name)."""
        if namespace and event.get("team"):
            self._teams.setdefault(namespace, str(event["team"]))
        describe = _FORMATS.get(str(event.get("event")))
        if describe is None:
            return
        teams = [
            self._teams.get(namespace[: depth + 1], part.split(":")[0])
            for depth, part in enumerate(namespace)
        ]
        prefix = f"[dim]{escape(' > '.join(teams))}[/] " if teams else ""
        self.console.print(prefix + printable(describe(event)), highlight=False)


class AnswerPrinter:
    """Prints the team's answer on stdout as its formatter speaks it (``cadre run --stream``):
    a run's chunk handler, following its ``messages``."""

    def __init__(self) -> None:
        self.printed = ""
        """What it printed."""

    def __call__(self, namespace: tuple[str, ...], mode: str, payload: Any) -> None:
        if mode != "messages":
            return
        message, metadata = payload
        if isinstance(message, AIMessageChunk) and speaks_answer(metadata):
            sys.stdout.write(message.text)
            sys.stdout.flush()
            self.printed += message.text
