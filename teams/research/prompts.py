"""Prompts of the model-backed research roles, and the renderers that fill them from the state.

Renderers are deterministic: the same state gives the same prompt, so an unchanged round can be
recognised as unchanged. The planner and reviewer read the rolling summary and the last changes,
never the message log, so a long review loop does not grow their input.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from framework.engine.records import Evidence, Task
from framework.engine.state import TeamState
from framework.memory import Passage
from framework.runs.prompts import PromptRegistry
from teams.research.report import results_in_order

__all__ = [
    "AGGREGATOR_SYSTEM",
    "CURATOR_SYSTEM",
    "EXCERPT_CHARS",
    "FORMATTER_SYSTEM",
    "PLANNER_SYSTEM",
    "REVIEWER_SYSTEM",
    "WORKER_SYSTEM",
    "ResearchPrompts",
    "aggregator_request",
    "curator_request",
    "evidence_lines",
    "formatter_request",
    "kinds_prompt",
    "planner_request",
    "reviewer_request",
    "search_results",
    "worker_request",
]

EXCERPT_CHARS = 300
"""Characters of each evidence passage shown in a prompt."""

ANSWER_CHARS = 4000
"""Characters of one task's answer shown in a later role's prompt: a worker's model that
answered at length must not overflow the next call's context window (the whole answer stays in
the task's result)."""

PLANNER_SYSTEM = (
    "You plan research over a local document corpus. Split the question into at most "
    "{max_tasks} sub-questions that a corpus search can answer, each with a short search "
    "query. When no search is needed, give a direct_answer and no sub-questions."
)
WORKER_SYSTEM = (
    "You research one task in a local document corpus. Call search_corpus with focused "
    "queries (refine and search again if the passages miss the point), then answer in a few "
    "sentences using only the passages found, citing each fact's source as `path:line`. "
    "If nothing relevant is found, say so."
)
AGGREGATOR_SYSTEM = (
    "Consolidate the findings of research tasks into a short summary, one paragraph per task. "
    "Use only the findings given and keep each `path:line` citation next to the fact it supports."
)
REVIEWER_SYSTEM = (
    "You review a round of research. Decide: finish when the findings answer the question; "
    "retry_workers naming the tasks that failed or found weak evidence (with better queries); "
    "dispatch with new tasks for aspects nobody searched; revise_plan when the plan is wrong. "
    "Give your confidence in [0, 1] that the findings answer the question, and short reasons."
)
CURATOR_SYSTEM = (
    "Extract the durable facts the evidence states, as subject-predicate-object triples. Each "
    "fact names the one listed `path:line` source it comes from and a confidence in [0, 1]."
)
FORMATTER_SYSTEM = (
    "Write the final report as sections of claims. Each claim is one sentence the evidence "
    "supports and cites exactly one of the listed `path:line` sources. Never invent a source."
)


@dataclass(frozen=True, kw_only=True)
class ResearchPrompts:
    """The system prompts of the model-backed roles: the packaged defaults unless given."""

    planner: str = PLANNER_SYSTEM
    """A template with the field ``{max_tasks}``."""
    worker: str = WORKER_SYSTEM
    aggregator: str = AGGREGATOR_SYSTEM
    reviewer: str = REVIEWER_SYSTEM
    curator: str = CURATOR_SYSTEM
    formatter: str = FORMATTER_SYSTEM

    @classmethod
    def from_registry(cls, roles: PromptRegistry) -> ResearchPrompts:
        """The current versions of the ``research.*`` roles; ConfigError for a planner prompt
        whose format fields are not exactly ``{max_tasks}``."""
        return cls(
            planner=roles.prompt("research.planner", PLANNER_SYSTEM).template("max_tasks"),
            worker=roles.prompt("research.worker", WORKER_SYSTEM).text,
            aggregator=roles.prompt("research.aggregator", AGGREGATOR_SYSTEM).text,
            reviewer=roles.prompt("research.reviewer", REVIEWER_SYSTEM).text,
            curator=roles.prompt("research.curator", CURATOR_SYSTEM).text,
            formatter=roles.prompt("research.formatter", FORMATTER_SYSTEM).text,
        )


def _excerpt(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= EXCERPT_CHARS else flat[: EXCERPT_CHARS - 3] + "..."


def _answer(output: str) -> str:
    flat = " ".join(output.split())
    if len(flat) <= ANSWER_CHARS:
        return flat
    return f"{flat[:ANSWER_CHARS]} [... {len(flat) - ANSWER_CHARS} more characters not shown]"


def evidence_lines(evidence: Iterable[Evidence]) -> list[str]:
    """One line per evidence item: ``- `path:line` (score): excerpt``."""
    return [f"- `{item.source}` ({item.score:.2f}): {_excerpt(item.text)}" for item in evidence]


def _results(state: TeamState, with_outputs: bool) -> str:
    blocks = []
    for task, result in results_in_order(state):
        lines = [f"[{task.id}] {task.description}"]
        if with_outputs and result.output:
            lines.append(f"Answer: {_answer(result.output)}")
        lines += evidence_lines(result.evidence) or ["- no evidence"]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) or "No task has finished."


def kinds_prompt(kinds: Mapping[str, str]) -> str:
    """What the planner's system prompt adds when the team has several kinds of worker."""
    listed = "\n".join(f"- {name}: {description}" for name, description in kinds.items())
    return (
        "\n\nThe team has several kinds of worker. Give each sub-question the `kind` of the "
        f"worker that can answer it, one of:\n{listed}"
    )


def planner_request(state: TeamState) -> str:
    """The question; on a re-plan, the progress so far and why the reviewer asked for a new plan."""
    lines = [f"Question: {state.get('question', '')}"]
    reflection = state.get("reflection")
    if reflection is not None:
        lines += ["", "Progress so far:", state.get("rolling_summary", "") or "none"]
        lines += ["", "The reviewer asked for a new plan because:"]
        lines += [f"- {reason}" for reason in reflection.reasons] or ["- no reason given"]
    return "\n".join(lines)


def worker_request(task: Task, question: str) -> str:
    """The task of one worker, with the query to start from."""
    query = task.inputs.get("query") or task.description
    return f"Question: {question}\nTask {task.id}: {task.description}\nFirst query: {query}"


def search_results(query: str, passages: Sequence[Passage]) -> str:
    """What the ``search_corpus`` tool answers: numbered passages with their sources."""
    if not passages:
        return f"Results for {query!r}: no passage matches."
    lines = [f"Results for {query!r}:"]
    for number, passage in enumerate(passages, start=1):
        lines.append(f"[{number}] `{passage.source}` (score {passage.score:.2f})")
        lines.append(" ".join(passage.text.split()))
    return "\n".join(lines)


def aggregator_request(state: TeamState) -> str:
    """The question and every finished task's answer and evidence, in plan order."""
    return f"Question: {state.get('question', '')}\n\nFindings:\n{_results(state, True)}"


def _task_line(task: Task, state: TeamState) -> str:
    result = (state.get("worker_results") or {}).get(task.id)
    line = f"- {task.id} [{task.status}, attempt {task.attempt}] {task.description}"
    if task.status == "rejected":  # by a human reviewer: never dispatched, not to be retried
        reason = (state.get("rejections") or {}).get(task.id, "no reason given")
        return f"{line}: rejected in review ({reason}); do not retry it"
    if result is not None and result.status == "failed":
        return f"{line}: failed ({result.error})"
    if result is not None:
        return f"{line}: confidence {result.confidence:.2f}"
    return line


def reviewer_request(state: TeamState) -> str:
    """Progress, this round's changes, the tasks and the consolidated findings."""
    tasks = [_task_line(task, state) for task in (state.get("tasks") or {}).values()]
    return "\n".join(
        [
            f"Question: {state.get('question', '')}",
            "",
            "Progress so far:",
            state.get("rolling_summary", "") or "none",
            f"Changed this round: {', '.join(state.get('last_changes') or []) or 'nothing'}",
            "",
            "Tasks:",
            *(tasks or ["none"]),
            "",
            "Consolidated findings:",
            state.get("consolidated", "") or "none",
        ]
    )


def curator_request(state: TeamState) -> str:
    """The question and the evidence of every finished task, with its sources."""
    return f"Question: {state.get('question', '')}\n\nEvidence:\n{_results(state, False)}"


def formatter_request(state: TeamState) -> str:
    """The question, the consolidated findings and the evidence that claims may cite."""
    return (
        f"Question: {state.get('question', '')}\n\n"
        f"Findings:\n{state.get('consolidated', '') or 'none'}\n\n"
        f"Evidence you may cite:\n{_results(state, False)}"
    )
