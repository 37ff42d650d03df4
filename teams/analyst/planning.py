"""The analyst's offline planner: the research sub-questions, each given the kind of worker
whose sources match it best."""

from __future__ import annotations

from framework.engine.records import Plan, Task
from framework.engine.runtime import NodeContext
from framework.engine.state import TeamState
from framework.memory import Corpus
from teams.analyst.tables import TableIndex
from teams.language.questions import split_question

__all__ = ["KINDS", "KindChoosingPlanner"]

KINDS = {
    "search": "find passages in the corpus's text files that answer a question",
    "table": "look up rows of the corpus's CSV files: a value of a named thing, by column",
}
"""The analyst's task kinds and what each does."""


class KindChoosingPlanner:
    """Plans the whole question and its sub-questions; a part whose words pick out a table row
    (a cell and the column it asks about) is a ``table`` task, any other a ``search`` task.

    Args:
        corpus: The indexed text of the corpus.
        tables: The rows of its CSV files.
        min_table_score: How much of a part's words a row must cover to make it a table task.
        max_parts: Sub-questions besides the whole question.
        remote_search: Whether ``search`` tasks are answered elsewhere (a team file's remote
            kind): text parts are ``search`` tasks even when the corpus has no text.
    """

    task_kinds = frozenset(KINDS)

    def __init__(
        self,
        corpus: Corpus,
        tables: TableIndex,
        min_table_score: float = 0.5,
        max_parts: int = 4,
        *,
        remote_search: bool = False,
    ) -> None:
        self.corpus = corpus
        self.tables = tables
        self.min_table_score = min_table_score
        self.max_parts = max_parts
        self.remote_search = remote_search

    def plan(self, state: TeamState, context: NodeContext) -> Plan:
        """One task per part; a direct answer when nothing can answer it (the corpus has neither
        text nor tables, and search is not remote)."""
        question = state["question"]
        if not self._searchable and len(self.tables) == 0:
            return Plan(goal=question, direct_answer="The corpus is empty: nothing to search.")
        parts = [question, *split_question(question, self.max_parts)]
        tasks = [
            Task(id=f"q{index}", description=part, kind=self._kind(part), inputs={"query": part})
            for index, part in enumerate(parts)
        ]
        kinds = ", ".join(sorted({task.kind for task in tasks}))
        rationale = f"{len(parts) - 1} sub-questions plus the whole question ({kinds})"
        return Plan(goal=question, tasks=tasks, rationale=rationale)

    def _kind(self, part: str) -> str:
        best = self.tables.lookup(part, k=1)
        if best and best[0].wanted and best[0].score >= self.min_table_score:
            return "table"
        return "search" if self._searchable else "table"

    @property
    def _searchable(self) -> bool:
        return self.remote_search or len(self.corpus) > 0
