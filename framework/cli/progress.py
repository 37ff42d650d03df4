"""Live progress of a run on the terminal, from the events its nodes emit."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape

from framework.runner import Event

__all__ = ["ProgressPrinter"]


class ProgressPrinter:
    """Prints one line per event: plan, dispatches, task outcomes, reviews, findings."""

    def __init__(self, console: Console) -> None:
        self.console = console

    def __call__(self, namespace: tuple[str, ...], event: Event) -> None:
        """Print ``event``, prefixed with the team path when it comes from a nested team."""
        line = self._describe(event)
        if line is None:
            return
        team = "/".join(part.split(":")[0] for part in namespace)
        prefix = f"[dim]{escape(team)}[/] " if team else ""
        self.console.print(prefix + line, highlight=False)

    def _describe(self, event: Event) -> str | None:  # noqa: PLR0911 - one line per event kind
        kind = event.get("event")
        if kind == "plan":
            tasks = event.get("tasks") or []
            lines = [f"[bold]plan[/] {len(tasks)} task(s)"]
            lines += [f"  {escape(t['id'])}: {escape(t['description'])}" for t in tasks]
            return "\n".join(lines)
        if kind == "dispatch":
            return f"[bold]dispatch[/] {len(event.get('task_ids') or [])} task(s)"
        if kind == "task_done":
            return f"  [green]done[/] {escape(str(event.get('task_id')))}"
        if kind == "task_failed":
            failed = f"{event.get('task_id')}: {event.get('error')}"
            return f"  [red]failed[/] {escape(failed)}"
        if kind == "review":
            return self._review(event)
        if kind == "memory":
            return f"[bold]memory[/] {event.get('facts')} fact(s) kept"
        if kind in ("risk_assessment", "compliance_check"):
            return self._findings(str(kind), event.get("findings") or [])
        return None

    @staticmethod
    def _review(event: Event) -> str:
        forced = f" (forced by {event['forced_by']})" if event.get("forced_by") else ""
        reasons = "; ".join(event.get("reasons") or [])
        return (
            f"[bold]review {event.get('iteration')}[/] {event.get('decision')}{forced}, "
            f"confidence {float(event.get('confidence') or 0):.2f}: {escape(reasons)}"
        )

    @staticmethod
    def _findings(phase: str, findings: list[dict[str, Any]]) -> str:
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
