"""The cited Markdown report of a research run: every claim carries its ``path:line``."""

from __future__ import annotations

from framework.engine.records import Evidence, Task, WorkerResult
from framework.engine.state import TeamState
from teams.language.answer_layout import note_section
from teams.language.questions import asks_one_value, premise
from teams.language.sentence_choice import given

__all__ = [
    "CLAIM_MIN_SCORE",
    "cited_report",
    "failure_note",
    "rejected_tasks",
    "results_in_order",
]

CLAIM_MIN_SCORE = 0.3
"""Evidence below this score is too weak to state as a claim."""
_CLAIMS_PER_TASK = 4
_SEARCH = "search"
"""The research team's own search kind (a task's default kind)."""
_REFUSED = "refused: "


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


def failure_note(task: Task, result: WorkerResult) -> str:
    """A failed task as the report notes it, saying what happened: refused (by a policy, a
    budget or a reviewer, with the reason), a search that failed, or a task of another kind
    (a remote agent's, a nested team's) that failed."""
    if result.refused:
        reason = (result.error or "no reason given").removeprefix(_REFUSED)
        return f"> Refused: {task.description}: {reason}"
    if task.kind == _SEARCH:
        return f"> Search failed: {task.description}: {result.error}"
    return f"> Task failed (kind {task.kind}): {task.description}: {result.error}"


def rejected_tasks(state: TeamState) -> list[tuple[Task, str]]:
    """Tasks a human reviewer rejected (never dispatched), with the reason, in plan order."""
    reasons = state.get("rejections") or {}
    return [
        (task, reasons.get(task_id, "no reason given"))
        for task_id, task in (state.get("tasks") or {}).items()
        if task.status == "rejected"
    ]


def _claims(evidence: list[Evidence], seen: set[str]) -> list[Evidence]:
    """The task's evidence strong enough and not yet stated, up to :data:`_CLAIMS_PER_TASK`
    claims; a claim that opens with the one before it and says more (a sentence cited alone at
    its own line, then quoted with the pronoun sentence that leans on it) counts with it."""
    claims: list[Evidence] = []
    counted = 0
    for item in evidence:
        if item.score < CLAIM_MIN_SCORE or item.text in seen:
            continue
        extends = bool(claims) and item.text.startswith(claims[-1].text)
        if counted == _CLAIMS_PER_TASK and not extends:
            break
        seen.add(item.text)
        claims.append(item)
        counted += not extends
    return claims


def _rivals(state: TeamState) -> set[tuple[str, str]]:
    """For a question that asks for one value, the evidence found for a statement of the
    asker's own case ("I run the consumer in Docker.") that gives a rival to the whole
    question's answer, each as its task's id and its text: the case is searched for context,
    not for another answer."""
    question = state.get("question", "")
    kind = asks_one_value(question)
    done = results_in_order(state)
    whole = next((result for task, result in done if task.description == question), None)
    if not kind or whole is None:
        return set()
    answer = _first_values(whole, kind, question)
    return {
        (task.id, text)
        for task, result in done
        if task.description != question and premise(task.description)
        for text in _rivals_of(result, kind, answer, question)
    }


_FIGURES = ("quantity", "version")
"""The kinds of value a rival is told apart by for sure: a figure, a version."""


def _beside_the_parts(state: TeamState) -> set[tuple[str, str]]:
    """For a question split into parts, the whole question's statements that give a figure or
    a version of the kind a part asks one of, none of the values the parts of that kind answer
    with ("Prior to 0.28 ..." beside a part's "0.61", for "Since which release ..., and what
    ...?"), where the whole question's first such value is one of them; none for a kind of which
    some part found no one answer (none, or a list), or whose answers the whole question's first
    value is not one of (a part searched alone may miss what the whole finds): each as its
    task's id and its text."""
    question = state.get("question", "")
    done = results_in_order(state)
    whole = next(((task, result) for task, result in done if task.description == question), None)
    if whole is None:
        return set()
    answers: dict[str, list[set[str]]] = {}
    for task, result in done:
        asking = task is not whole[0] and not premise(task.description)
        kind = asks_one_value(task.description) if asking else ""
        if kind in _FIGURES:  # a name is given by too many words to tell a rival
            answers.setdefault(kind, []).append(_first_values(result, kind, task.description))
    agreed = {
        kind: answer
        for kind, found in answers.items()
        if all(len(values) == 1 for values in found)  # each part's one value, not a list
        and (answer := set().union(*found)) & _first_values(whole[1], kind, question)
    }
    return {
        (whole[0].id, text)
        for kind, answer in agreed.items()
        for text in _rivals_of(whole[1], kind, answer, question)
    }


def _first_values(result: WorkerResult, kind: str, question: str) -> set[str]:
    """The values of ``kind`` the first statement of ``result`` that gives any gives."""
    found = (given(kind, item.text, question) for item in result.evidence if not item.disputed)
    return next((values for values in found if values), set())


def _rivals_of(result: WorkerResult, kind: str, answer: set[str], question: str) -> list[str]:
    """The statements of ``result`` that give values of ``kind``, none of them ``answer``'s;
    for a figure or a version, also one of them beside another ("tell (401) from (403)")."""
    if not answer:
        return []
    found = ((item.text, given(kind, item.text, question)) for item in result.evidence)
    if kind in _FIGURES:
        return [text for text, values in found if values - answer]
    return [text for text, values in found if values and not values & answer]


def _disagreements(state: TeamState) -> list[str]:
    """An "Unresolved" note of the rival answers other sources give as well as the stated one
    (evidence marked disputed), none when there are none."""
    disputes = [
        f"> Another source answers {task.description!r} otherwise: {item.text} (`{item.source}`)"
        for task, result in results_in_order(state)
        for item in result.evidence
        if item.disputed
    ]
    return note_section("Unresolved", disputes) if disputes else []


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
    rivals = _rivals(state) | _beside_the_parts(state)
    for task, result in results_in_order(state, include_failed=True):
        if result.status == "failed":
            failures.append(failure_note(task, result))
            continue
        stated = [e for e in result.evidence if not e.disputed and (task.id, e.text) not in rivals]
        claims = _claims(stated, seen)
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
        notes += failures
        lines += note_section("Not answered by the corpus", notes)
    lines += _disagreements(state)
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
