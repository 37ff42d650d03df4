"""The model-backed research worker: a bounded tool-calling loop over a corpus search tool."""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.messages.tool import ToolCall
from langchain_core.tools import BaseTool, StructuredTool

from framework.errors import ConfigError
from framework.memory import Corpus, Passage
from framework.records import Evidence, Task, WorkerResult
from framework.runtime import NodeContext
from teams.research.prompts import WORKER_SYSTEM, search_results, worker_request
from teams.research.schemas import unit

__all__ = ["SEARCH_TOOL", "ModelWorker", "corpus_search_tool"]

SEARCH_TOOL = "search_corpus"
"""The name of the worker's only tool."""


def corpus_search_tool(corpus: Corpus, k: int = 4, min_score: float = 0.2) -> BaseTool:
    """The ``search_corpus(query)`` tool; its artifact is the list of passages found."""

    def search_corpus(query: str) -> tuple[str, list[Passage]]:
        """Search the document corpus; returns numbered passages with their `path:line`."""
        passages = corpus.search(query, k=k, min_score=min_score)
        return search_results(query, passages), passages

    return StructuredTool.from_function(
        search_corpus,
        name=SEARCH_TOOL,
        response_format="content_and_artifact",
        handle_validation_error=True,
    )


class _Search:
    """One task's conversation with the model, and the best passage found per source."""

    def __init__(self, task: Task, question: str, system: str) -> None:
        self.messages: list[BaseMessage] = [
            SystemMessage(system),
            HumanMessage(worker_request(task, question)),
        ]
        self.found: dict[str, Passage] = {}
        self.answer: str | None = None

    def take(self, reply: AIMessage) -> list[ToolCall]:
        """Record the model's reply; return the tool calls to answer (none: it has answered)."""
        self.messages.append(reply)
        if not reply.tool_calls:
            self.answer = reply.text
        return reply.tool_calls

    def add(self, message: ToolMessage) -> None:
        """Record a tool's answer and the passages it carries."""
        self.messages.append(message)
        for passage in message.artifact or ():
            known = self.found.get(passage.source)
            if known is None or passage.score > known.score:
                self.found[passage.source] = passage

    def result(self, task: Task, max_steps: int) -> WorkerResult:
        """The task's result: the answer (or a note) and every passage found as evidence."""
        ranked = sorted(self.found.values(), key=lambda p: (-p.score, p.source))
        evidence = [
            Evidence(source=p.source, text=" ".join(p.text.split()), score=p.score) for p in ranked
        ]
        output = self.answer
        if output is None:
            output = (
                f"No final answer after {max_steps} model steps; "
                f"{len(evidence)} passages were found."
            )
        return WorkerResult(
            task_id=task.id,
            status="ok",
            output=output,
            evidence=evidence,
            confidence=unit(ranked[0].score) if ranked else 0.0,
            attempt=task.attempt,
        )


def _unknown_tool(call: ToolCall) -> ToolMessage:
    return ToolMessage(
        f"unknown tool {call['name']!r}: the only tool is {SEARCH_TOOL}",
        tool_call_id=call["id"] or "",
        name=call["name"],
        status="error",
    )


class ModelWorker:
    """Researches a task by letting the model call ``search_corpus`` until it answers.

    Every passage a search returns is kept as evidence (the best score per source); the
    confidence is the best passage score, or 0 when nothing was found. The loop makes at most
    ``max_steps`` model calls: a worker that runs out of steps still succeeds with the evidence
    it found and a note instead of an answer, so the reviewer can judge it by its confidence.
    Model errors propagate: the worker node turns them into failed results and retries the
    transient ones.

    Args:
        model: A chat model that supports ``bind_tools``.
        corpus: The corpus to search.
        k: Passages per search.
        min_score: Passages scoring lower are not returned.
        max_steps: Model calls per task.
        system: The system prompt.
    """

    def __init__(
        self,
        model: BaseChatModel,
        corpus: Corpus,
        *,
        k: int = 4,
        min_score: float = 0.2,
        max_steps: int = 4,
        system: str = WORKER_SYSTEM,
    ) -> None:
        if max_steps < 1:
            raise ConfigError(f"max_steps must be >= 1, got {max_steps}")
        self.max_steps = max_steps
        self.system = system
        self.tool = corpus_search_tool(corpus, k, min_score)
        self.model = model.bind_tools([self.tool])

    def run(self, task: Task, question: str, context: NodeContext) -> WorkerResult:
        """Run the loop with ``invoke`` (sync graphs)."""
        search = _Search(task, question, self.system)
        for _ in range(self.max_steps):
            calls = search.take(self.model.invoke(search.messages))
            if not calls:
                break
            for call in calls:
                known = call["name"] == SEARCH_TOOL
                search.add(self.tool.invoke(call) if known else _unknown_tool(call))
        return search.result(task, self.max_steps)

    async def arun(self, task: Task, question: str, context: NodeContext) -> WorkerResult:
        """Run the loop with ``ainvoke`` (async graphs)."""
        search = _Search(task, question, self.system)
        for _ in range(self.max_steps):
            calls = search.take(await self.model.ainvoke(search.messages))
            if not calls:
                break
            for call in calls:
                known = call["name"] == SEARCH_TOOL
                search.add(await self.tool.ainvoke(call) if known else _unknown_tool(call))
        return search.result(task, self.max_steps)
