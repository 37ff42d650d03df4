"""``scripted:FILE``: a chat model that answers from a YAML (or JSON) file, to try a team
without a provider (see docs/models.md).

The file lists ``steps``, each taken once, in order; a step with ``match`` is taken only by a
request whose last human or tool message contains that text (so parallel workers get their
own answers)::

    steps:
      - structured: {goal: "...", sub_questions: [...]}   # answers with_structured_output
      - tools: [{name: multiply, args: {a: 6, b: 7}}]      # calls tools
        match: "Task q0:"
      - reply: "42"                                         # a plain answer

A request no step fits fails the run with the file named.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from framework.engine.config_file import invalid, read_yaml
from framework.testing import CallTools, Reply, ScriptedChatModel, Step, Structured, ToolCallSpec

__all__ = ["scripted_model"]


class _Call(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1)
    args: dict[str, Any] = Field(default_factory=dict)


class _Step(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    reply: str | None = None
    tools: list[_Call] | None = Field(default=None, min_length=1)
    structured: dict[str, Any] | None = None
    match: str | None = Field(default=None, min_length=1)

    @model_validator(mode="after")
    def _one_answer(self) -> _Step:
        given = [self.reply is not None, self.tools is not None, self.structured is not None]
        if sum(given) != 1:
            raise ValueError("a step answers with one of reply, tools or structured")
        return self

    def step(self) -> Step:
        if self.reply is not None:
            return Reply(self.reply, match=self.match)
        if self.tools is not None:
            calls = [ToolCallSpec(call.name, call.args) for call in self.tools]
            return CallTools(calls, match=self.match)
        return Structured(self.structured or {}, match=self.match)


class _Script(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    steps: list[_Step] = Field(min_length=1)


def scripted_model(path: Path) -> ScriptedChatModel:
    """The scripted model of the answers file ``path``.

    Raises:
        ConfigError: The file cannot be read or is not a script (``FILE:LINE``).
    """
    path, _, data, where = read_yaml(path, "scripted model file")
    try:
        script = _Script.model_validate(data)
    except ValidationError as error:
        raise invalid(where, error, "scripted model file") from None
    return ScriptedChatModel([step.step() for step in script.steps])
