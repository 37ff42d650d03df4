"""The model-backed research roles: structured output for decisions, a tool-calling worker.

They work with any langchain-core ``BaseChatModel`` that supports ``with_structured_output`` and
``bind_tools``. Each role validates the model's draft into a framework record, so a bad answer
is refused before it enters the state.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage

from framework.engine.records import Evidence, MemoryFact, Plan, ReviewVerdict
from framework.engine.roles import Roles
from framework.engine.runtime import NodeContext
from framework.engine.state import TeamState
from framework.errors import ConfigError
from framework.memory import Corpus, Namespace, SemanticStore
from teams.language.answer_layout import claim_heading, note_section
from teams.research.facts import FACTS_NAMESPACE, fact_provenance, remember_facts
from teams.research.model_worker import ModelWorker
from teams.research.prompts import (
    AGGREGATOR_SYSTEM,
    CURATOR_SYSTEM,
    FORMATTER_SYSTEM,
    PLANNER_SYSTEM,
    REVIEWER_SYSTEM,
    ResearchPrompts,
    aggregator_request,
    curator_request,
    formatter_request,
    kinds_prompt,
    planner_request,
    reviewer_request,
)
from teams.research.report import cited_report, failure_note, results_in_order
from teams.research.schemas import (
    FactsDraft,
    PlanDraft,
    ReportDraft,
    ReviewVerdictDraft,
    StructuredCall,
    to_tasks,
    unit,
)

__all__ = [
    "NO_FINDINGS",
    "ModelAggregator",
    "ModelCurator",
    "ModelFormatter",
    "ModelPlanner",
    "ModelReviewer",
    "ModelWorker",
    "build_model_roles",
    "render_report",
]

NO_FINDINGS = "No task has finished with results yet."
"""What the aggregator consolidates, without asking the model, when no task succeeded."""


class ModelPlanner:
    """Asks the model for sub-questions (or a direct answer); a re-plan sees the progress so far.

    Args:
        model: The chat model.
        max_tasks: Sub-questions kept from one plan.
        system: The system prompt, a template with the field ``{max_tasks}``.
        kinds: The worker kinds of the team and what each does (None: one kind of worker); the
            model is shown them and chooses one per sub-question, the first when it names none.
    """

    def __init__(
        self,
        model: BaseChatModel,
        max_tasks: int = 6,
        system: str = PLANNER_SYSTEM,
        kinds: Mapping[str, str] | None = None,
    ) -> None:
        if max_tasks < 1:
            raise ConfigError(f"max_tasks must be >= 1, got {max_tasks}")
        self.max_tasks = max_tasks
        self.task_kinds = frozenset(kinds) if kinds else None
        self._default_kind = next(iter(kinds)) if kinds else None
        prompt = system.format(max_tasks=max_tasks) + (kinds_prompt(kinds) if kinds else "")
        self._ask = StructuredCall(model, PlanDraft, prompt)

    def plan(self, state: TeamState, context: NodeContext) -> Plan:
        """The plan: tasks ``q0``, ``q1``... unless the model named them, or a direct answer."""
        draft = self._ask(planner_request(state))
        goal = draft.goal.strip() or state.get("question", "")
        rationale = draft.rationale or ""
        if draft.direct_answer is not None and draft.direct_answer.strip():
            return Plan(goal=goal, direct_answer=draft.direct_answer.strip(), rationale=rationale)
        tasks = to_tasks(draft.sub_questions[: self.max_tasks], default_kind=self._default_kind)
        return Plan(goal=goal, tasks=tasks, rationale=rationale)


class ModelAggregator:
    """Summarises the finished tasks' answers and evidence, keeping their citations.

    The prompt is a deterministic rendering of the findings, and the summary of a prompt seen
    before is reused, so an unchanged round gives the same consolidated text (the delta rule
    can see that nothing changed) without another model call.

    Args:
        model: The chat model.
        memo_size: Summaries remembered by prompt.
        system: The system prompt.
    """

    def __init__(
        self, model: BaseChatModel, memo_size: int = 32, system: str = AGGREGATOR_SYSTEM
    ) -> None:
        self.model = model
        self.memo_size = memo_size
        self.system = system
        self._memo: OrderedDict[str, str] = OrderedDict()
        self._lock = threading.Lock()

    def consolidate(self, state: TeamState, context: NodeContext) -> str:
        """The summary of the findings; :data:`NO_FINDINGS` when no task succeeded."""
        if not results_in_order(state):
            return NO_FINDINGS
        request = aggregator_request(state)
        with self._lock:
            if request in self._memo:
                self._memo.move_to_end(request)
                return self._memo[request]
        reply = self.model.invoke([SystemMessage(self.system), HumanMessage(request)])
        summary = reply.text.strip()
        with self._lock:
            self._memo[request] = summary
            while len(self._memo) > self.memo_size:
                self._memo.popitem(last=False)
        return summary


class ModelReviewer:
    """Asks the model for a verdict from the progress, the last changes and the findings."""

    def __init__(self, model: BaseChatModel, system: str = REVIEWER_SYSTEM) -> None:
        self._ask = StructuredCall(model, ReviewVerdictDraft, system)

    def review(self, state: TeamState, context: NodeContext) -> ReviewVerdict:
        """The verdict; new tasks get free ids, retries carry their new queries."""
        draft = self._ask(reviewer_request(state))
        return ReviewVerdict(
            decision=draft.decision,
            confidence=unit(draft.confidence),
            reasons=draft.reasons,
            retry_task_ids=[retry.task_id for retry in draft.retry],
            retry_inputs={r.task_id: {"query": r.query} for r in draft.retry if r.query},
            new_tasks=to_tasks(draft.new_tasks, taken=state.get("tasks") or {}),
        )


def _evidence_by_source(state: TeamState) -> dict[str, tuple[str, Evidence]]:
    """Every source the finished tasks found, with the task that found it, in plan order."""
    found: dict[str, tuple[str, Evidence]] = {}
    for task, result in results_in_order(state):
        for item in result.evidence:
            found.setdefault(item.source, (task.id, item))
    return found


class ModelCurator:
    """Asks the model for the facts worth keeping; keeps those citing a source a worker found.

    Args:
        model: The chat model.
        store: Where facts are written; ``None`` keeps none.
        system: The system prompt.
        namespace: Their namespace (see :func:`~teams.research.facts.facts_namespace`).
    """

    def __init__(
        self,
        model: BaseChatModel,
        store: SemanticStore | None = None,
        system: str = CURATOR_SYSTEM,
        namespace: Namespace = FACTS_NAMESPACE,
    ) -> None:
        self.store = store
        self.namespace = namespace
        self._ask = StructuredCall(model, FactsDraft, system)

    def curate(self, state: TeamState, context: NodeContext) -> Sequence[MemoryFact]:
        """The facts, with provenance; none (and no model call) when there is no evidence."""
        sources = _evidence_by_source(state)
        if not sources:
            return []
        draft = self._ask(curator_request(state))
        facts = [
            MemoryFact(
                subject=fact.subject,
                predicate=fact.predicate,
                object=fact.object,
                confidence=unit(fact.confidence),
                provenance=fact_provenance(context, sources[fact.source][0], fact.source),
            )
            for fact in draft.facts
            if fact.source in sources
        ]
        remember_facts(self.store, facts, self.namespace)
        return facts


def _claim_lines(draft: ReportDraft, known: set[str]) -> tuple[list[str], list[str], int]:
    """The sections' Markdown, the sources cited (in order), and how many claims were left out."""
    lines: list[str] = []
    cited: dict[str, None] = {}
    dropped = 0
    for section in draft.sections:
        claims = [(" ".join(c.text.split()), c.source) for c in section.claims if c.text.strip()]
        valid = [(text, source) for text, source in claims if source in known]
        dropped += len(claims) - len(valid)
        if valid:
            lines += [f"## {claim_heading(section.heading)}", ""]
            lines += [f"- {text} (`{source}`)" for text, source in valid]
            lines.append("")
            cited.update(dict.fromkeys(source for _, source in valid))
    return lines, list(cited), dropped


def render_report(state: TeamState, draft: ReportDraft) -> str | None:
    """Markdown in which every claim line cites its ``path:line``; ``None`` if no claim holds.

    A claim citing a source no finished task found is left out, and counted under "Review";
    failed tasks are listed under "Not answered by the corpus".
    """
    claims, cited, dropped = _claim_lines(draft, set(_evidence_by_source(state)))
    if not cited:
        return None
    lines = [f"# {state.get('question', '')}", "", *claims]
    failures = [
        failure_note(task, result)
        for task, result in results_in_order(state, include_failed=True)
        if result.status == "failed"
    ]
    if failures:
        lines += note_section("Not answered by the corpus", failures)
    if dropped:
        lines += note_section(
            "Review", [f"{dropped} claim(s) left out: no worker found their source."]
        )
    lines += note_section("Sources", [f"- `{source}`" for source in cited])
    return "\n".join(lines).rstrip() + "\n"


class ModelFormatter:
    """Asks the model for a report of cited claims and renders it as Markdown.

    A direct answer, a run without evidence, or a report whose claims all cite unknown sources
    falls back to the offline cited report.
    """

    def __init__(self, model: BaseChatModel, system: str = FORMATTER_SYSTEM) -> None:
        self._ask = StructuredCall(model, ReportDraft, system)

    def format(self, state: TeamState, context: NodeContext) -> str:
        """The final answer."""
        plan = state.get("plan")
        if (plan is not None and plan.direct_answer is not None) or not _evidence_by_source(state):
            return cited_report(state)
        report = render_report(state, self._ask(formatter_request(state)))
        return report if report is not None else cited_report(state)


def build_model_roles(
    model: BaseChatModel,
    corpus: Corpus,
    store: SemanticStore | None = None,
    prompts: ResearchPrompts | None = None,
    *,
    kinds: Mapping[str, str] | None = None,
    facts: Namespace = FACTS_NAMESPACE,
) -> Roles:
    """The research roles on one chat model, searching ``corpus``, keeping facts in ``store``
    under ``facts``, with the system ``prompts`` (the packaged defaults when None); the planner
    chooses among the worker ``kinds`` when given (see :class:`ModelPlanner`)."""
    prompts = prompts or ResearchPrompts()
    return Roles(
        planner=ModelPlanner(model, system=prompts.planner, kinds=kinds),
        worker=ModelWorker(model, corpus, system=prompts.worker),
        aggregator=ModelAggregator(model, system=prompts.aggregator),
        reviewer=ModelReviewer(model, prompts.reviewer),
        curator=ModelCurator(model, store, prompts.curator, facts),
        formatter=ModelFormatter(model, prompts.formatter),
    )
