"""What ran in a case, and what it used: read from the run's progress events and callbacks.

The team's progress events tell which tasks started (their kinds) and which nested teams ran;
LangChain's callbacks, which follow a run into nested teams and tool calls, tell the tool and
model calls and what each model call used. Each step is placed where reviews place things: the
``where`` of the nested team it ran in (``team top > kind legal (task q0)``), empty at the top.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.outputs import LLMResult

from framework.engine.nesting import NESTING_KEY, Nesting
from framework.evals.results import Step, Usage

__all__ = ["CaseRecorder", "Price"]

Price = tuple[float, float]
"""A model's price per million input and output tokens."""


def _namespace(metadata: Mapping[str, Any] | None) -> tuple[str, ...]:
    """The stream namespace of the graph a callback's node runs in (its checkpoint namespace
    without the node's own segment)."""
    ns = str((metadata or {}).get("langgraph_checkpoint_ns") or "")
    return tuple(part for part in ns.split("|") if part)[:-1]


class CaseRecorder(BaseCallbackHandler):
    """Collects one case's steps and usage (thread-safe: parallel workers report at once).

    Args:
        top_team: The team the case asked (``file:PATH`` for a team file).
        prices: Model name -> :data:`Price` (a model without one costs nothing).
    """

    raise_error = True
    run_inline = True

    def __init__(self, top_team: str, prices: Mapping[str, Price] | None = None) -> None:
        self.top_team = top_team
        """The name the asked team gives itself in its events (until one came: as asked)."""
        self.prices = dict(prices or {})
        self.steps: list[Step] = []
        self._where: dict[tuple[str, ...], str] = {}
        self._teams_seen: set[tuple[str, ...]] = set()
        self._models: dict[UUID, str] = {}
        self._lock = threading.Lock()
        self._started = time.monotonic()
        self._usage = Usage()

    def usage(self) -> Usage:
        """What the case used so far, its time included."""
        with self._lock:
            seconds = round(time.monotonic() - self._started, 3)
            return self._usage.model_copy(update={"seconds": seconds})

    def on_event(self, namespace: tuple[str, ...], event: Mapping[str, Any]) -> None:
        """Take a progress event of the run (the runner's ``on_event``)."""
        place = self._where.get(namespace, "")
        with self._lock:
            if not namespace and event.get("team"):
                self.top_team = str(event["team"])
            if namespace and namespace not in self._teams_seen and event.get("team"):
                self._teams_seen.add(namespace)
                self.steps.append(Step(type="team", name=str(event["team"]), place=place))
            if event.get("event") == "task_started" and event.get("kind"):
                self.steps.append(Step(type="kind", name=str(event["kind"]), place=place))

    def _place(self, metadata: Mapping[str, Any] | None) -> str:
        nesting = Nesting.loads((metadata or {}).get(NESTING_KEY))
        return nesting.where if nesting is not None else ""

    def on_chain_start(
        self,
        serialized: dict[str, Any] | None,
        inputs: Any,
        *,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """Learn the place of a nested team's namespace from its nodes' metadata."""
        if metadata and NESTING_KEY in metadata and "langgraph_checkpoint_ns" in metadata:
            namespace = _namespace(metadata)
            if namespace and namespace not in self._where:
                with self._lock:
                    self._where[namespace] = self._place(metadata)

    def on_tool_start(
        self,
        serialized: dict[str, Any] | None,
        input_str: str,
        *,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """A tool call."""
        name = (serialized or {}).get("name") or kwargs.get("name") or "tool"
        with self._lock:
            self.steps.append(Step(type="tool", name=str(name), place=self._place(metadata)))

    def on_chat_model_start(
        self,
        serialized: dict[str, Any] | None,
        messages: Any,
        *,
        run_id: UUID,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """A model call: named by the model the call reports (``ls_model_name``)."""
        name = str(
            (metadata or {}).get("ls_model_name") or (serialized or {}).get("name") or "model"
        )
        with self._lock:
            self._models[run_id] = name
            self.steps.append(Step(type="model", name=name, place=self._place(metadata)))

    def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kwargs: Any) -> None:
        """Count the call and the tokens it used (the gateway has checked them)."""
        took_in = took_out = 0
        for generations in response.generations:
            for generation in generations:
                usage = getattr(getattr(generation, "message", None), "usage_metadata", None)
                if usage:
                    took_in += int(usage.get("input_tokens") or 0)
                    took_out += int(usage.get("output_tokens") or 0)
        with self._lock:
            model = self._models.pop(run_id, "")
            price_in, price_out = self.prices.get(model, (0.0, 0.0))
            self._usage = self._usage.plus(
                Usage(
                    model_calls=1,
                    input_tokens=took_in,
                    output_tokens=took_out,
                    cost=(took_in * price_in + took_out * price_out) / 1_000_000,
                )
            )
