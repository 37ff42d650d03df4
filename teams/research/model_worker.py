"""The model-backed research worker: a :class:`~framework.tools.worker.ToolWorker` over one
corpus search tool."""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel
from langchain_core.tools import BaseTool, StructuredTool

from framework.memory import Corpus, Passage
from framework.tools.worker import ToolWorker
from teams.research.prompts import WORKER_SYSTEM, search_results, worker_request

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


class ModelWorker(ToolWorker):
    """Researches a task by letting the model call ``search_corpus`` until it answers.

    A :class:`~framework.tools.worker.ToolWorker` with one tool: every passage a search returns
    is kept as evidence (the best score per source); the confidence is the best passage score,
    or 0 when nothing was found. A worker that runs out of steps still succeeds with the
    evidence it found and a note instead of an answer, so the reviewer can judge it by its
    confidence. Model errors propagate: the worker node turns them into failed results and
    retries the transient ones.

    Args:
        model: A chat model that supports ``bind_tools``.
        corpus: The corpus to search.
        k: Passages per search.
        min_score: Passages scoring lower are not returned.
        max_steps: Model calls per task.
        system: The system prompt.
        tool_timeout_s: Seconds a search may take (None: no limit).
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
        tool_timeout_s: float | None = 30.0,
    ) -> None:
        self.tool = corpus_search_tool(corpus, k, min_score)
        super().__init__(
            model,
            [self.tool],
            system=system,
            request=worker_request,
            max_steps=max_steps,
            tool_timeout_s=tool_timeout_s,
        )
