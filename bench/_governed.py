"""The workers of the policy variants of ``bench/fanout.py``: each task makes one model call
and one tool call, then sleeps; ``policies`` runs them under five typical policies.

* ``calls``: the worker's model (a canned chat model) and tool, plain, and no policy middleware;
* ``policies``: the same worker with the model and tool governed, and the team's nodes under
  tool authorization (two rules), PII redaction (four kinds, on tool arguments, model input,
  memory and the answer), a budget (run, task limits; every call reserved and settled), a rate
  limit (high enough never to wait) and memory validation. The run is checked to have counted
  every model and tool call in the budget, so a policy that was skipped cannot look fast.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import BaseTool, tool

from framework.engine.middleware import Middleware
from framework.engine.records import Task, WorkerResult
from framework.engine.runtime import NodeContext
from framework.policy import PolicyMiddleware, governed
from policies.authorization import ToolAuthorization, ToolRule
from policies.budgets import Budget, Limits
from policies.memory_rules import MemoryValidation
from policies.rate_limits import Rate, RateLimit
from policies.redaction import PiiRedaction

__all__ = ["CallingWorker", "governed_setup"]


class CannedModel(BaseChatModel):
    """Answers every call at once with the same short message and its token usage."""

    @property
    def _llm_type(self) -> str:
        return "canned"

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        usage = {"input_tokens": 12, "output_tokens": 3, "total_tokens": 15}
        message = AIMessage("The task is done.", usage_metadata=usage)  # type: ignore[arg-type]
        return ChatResult(generations=[ChatGeneration(message=message)])


@tool
def lookup(query: str) -> str:
    """Look a query up."""
    return f"found: {query}"


class CallingWorker:
    """One model call, one tool call, then the task's sleep."""

    def __init__(
        self, model: BaseChatModel, lookup_tool: BaseTool, sleep: Callable[[], Awaitable[None]]
    ) -> None:
        self.model = model
        self.tool = lookup_tool
        self.sleep = sleep

    def run(self, task: Task, question: str, context: NodeContext) -> WorkerResult:
        raise NotImplementedError("the bench runs async")

    async def arun(self, task: Task, question: str, context: NodeContext) -> WorkerResult:
        reply = await self.model.ainvoke([HumanMessage(f"{task.id}: {task.description}")])
        found = await self.tool.ainvoke({"query": task.description})
        await self.sleep()
        return WorkerResult(task_id=task.id, status="ok", output=f"{reply.text} {found}")


def governed_setup(
    n: int, sleep: Callable[[], Awaitable[None]], *, with_policies: bool
) -> tuple[CallingWorker, tuple[Middleware, ...], Callable[[str], None]]:
    """The worker, the team middleware, and a check of a finished run's thread."""
    model, lookup_tool = CannedModel(), lookup
    if not with_policies:
        return CallingWorker(model, lookup_tool, sleep), (), lambda thread: None
    budget = Budget(
        run=Limits(tokens=10**9, model_calls=10**6, tool_calls=10**6),
        task=Limits(tokens=10**6, model_calls=10, tool_calls=10),
    )
    policies = [
        ToolAuthorization(
            [
                ToolRule(tools="delete_*", action="deny", reason="not from a run"),
                ToolRule(
                    tools="sql", args={"query": "(?i)^drop"}, unless="db:write", action="deny"
                ),
            ]
        ),
        PiiRedaction(
            {"email": "redact", "card": "mask", "phone": "redact", "secret": "block"},
            apply_to=("tool_args", "model_input", "memory", "answer"),
        ),
        budget,
        RateLimit({"model:*": Rate(requests_per_minute=1e9, tokens_per_minute=1e12)}),
        MemoryValidation(),
    ]

    def check(thread: str) -> None:
        used = budget.used(thread)
        if used.get("run/model_calls") != n or used.get("run/tool_calls") != n:
            raise SystemExit(f"policies: the budget counted {used}, not {n} calls of each kind")

    worker = CallingWorker(governed(model), governed(lookup_tool), sleep)
    return worker, (PolicyMiddleware(policies),), check
