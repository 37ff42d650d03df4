"""``builtin: search|table``: kinds whose worker is one the team has without tools: passages
of the corpus text (``search``), rows of its CSV files (``table``).

The workers are the team's own (a team file's team supplies them: ``teams/configured``);
this kind type declares and describes them, and routes the offline planner's tasks to them.
"""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict

from framework.engine.roles import Worker
from framework.kinds.base import KindSetup, KindType, Route

__all__ = ["BUILTIN_KINDS", "BuiltinKeys", "BuiltinKind"]

BuiltinName = Literal["search", "table"]

BUILTIN_KINDS: tuple[str, ...] = get_args(BuiltinName)
"""Workers a kind may use without tools: passages of the corpus text, rows of its CSV files."""

DESCRIPTIONS = {
    "search": "find passages in the corpus that answer a question",
    "table": "look up rows of the corpus's CSV files",
}


class BuiltinKeys(BaseModel):
    """How a team file declares a builtin kind."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    builtin: BuiltinName | None = None


class BuiltinKind(KindType[BuiltinKeys]):
    """``builtin:`` kinds: the team's own worker of that name each."""

    key = "builtin"
    spec = BuiltinKeys
    wanted = "builtin: search|table"

    def description(self, spec: BuiltinKeys) -> str:
        """What the builtin worker does."""
        return DESCRIPTIONS.get(spec.builtin or "", "")

    def route(self, spec: BuiltinKeys) -> Route | None:
        """``table`` for the table worker, else ``search``."""
        return "table" if spec.builtin == "table" else "search"

    def worker(self, spec: BuiltinKeys, setup: KindSetup) -> Worker:
        """The team's worker of that name."""
        return setup.builtin(spec.builtin or "search")
