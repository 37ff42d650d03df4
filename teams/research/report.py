"""The cited Markdown report of a research run: every claim carries its ``path:line``."""

from __future__ import annotations

from framework.engine.records import Evidence, Task, WorkerResult
from framework.engine.state import TeamState
from teams.language.answer_layout import note_section

__all__ = ["CLAIM_MIN_SCORE", "cited_report", "rejected_tasks", "results_in_order"]

CLAIM_MIN_SCORE = 0.3
"""Evidence below this score is too weak to state as a claim."""
_CLAIMS_PER_TASK = 4


def results_in_order(
    state: TeamState, include_failed: bool = False
) -> list[tuple[Task, WorkerResult]]:
    """Tasks with their results, in plan order; failed ones only when asked."""
    results = state.get("worker_results") or {}
    return [
        (task, results[task_id])
        for task_id, task in (state.get("tasks") or {}).items()
        if task_id in results and (include_failed or results[task_id].status == "ok")
    ]


def rejected_tasks(state: TeamState) -> list[tuple[Task, str]]:
    """Tasks a human reviewer rejected (never dispatched), with the reason, in plan order."""
    reasons = state.get("rejections") or {}
    return [
        (task, reasons.get(task_id, "no reason given"))
        for task_id, task in (state.get("tasks") or {}).items()
        if task.status == "rejected"
    ]


def _claims(evidence: list[Evidence], seen: set[str]) -> list[Evidence]:
    claims: list[Evidence] = []
    for item in evidence:
        if len(claims) == _CLAIMS_PER_TASK:
            break
        if item.score >= CLAIM_MIN_SCORE and item.text not in seen:
            seen.add(item.text)
            claims.append(item)
    return claims


def cited_report(state: TeamState) -> str:
    """Render the report: findings per sub-question with citations, gaps, and sources."""
    question = state.get("question", "")
    lines = [f"# {question}", ""]
    plan = state.get("plan")
    if plan is not None and plan.direct_answer is not None:
        return "\n".join([*lines, plan.direct_answer, ""])
    seen: set[str] = set()
    sources: dict[str, None] = {}
    gaps, failures = [], []
    lines += ["## Findings", ""]
    for task, result in results_in_order(state, include_failed=True):
        if result.status == "failed":
            failures.append(f"{task.description}: {result.error}")
            continue
        claims = _claims(result.evidence, seen)
        if not claims:
            if not any(e.text in seen for e in result.evidence):
                gaps.append(task.description)
            continue
        lines += [f"### {task.description}", ""]
        for claim in claims:
            lines.append(f"- {claim.text} (`{claim.source}`)")
            sources.setdefault(claim.source, None)
        lines.append("")
    if gaps or failures:
        notes = [f"> No passage answers: {gap}" for gap in gaps]
        notes += [f"> Search failed: {failure}" for failure in failures]
        lines += note_section("Not answered by the corpus", notes)
    rejected = rejected_tasks(state)
    if rejected:
        notes = [f"> Not researched: {task.description} ({reason})" for task, reason in rejected]
        lines += note_section("Rejected in review", notes)
    reflection = state.get("reflection")
    if reflection is not None:
        rounds = state.get("iteration", 0)
        review = (
            f"{rounds} review round(s); confidence {reflection.confidence:.2f}; "
            f"{'; '.join(reflection.reasons) or 'no notes'}."
        )
        lines += note_section("Review", [review])
    lines += note_section("Sources", [f"- `{source}`" for source in sources])
    return "\n".join(lines).rstrip() + "\n"
