"""Structured output repaired, then failed honestly.

A model asked for structured output may answer malformed JSON, miss a field, or say nothing.
:class:`RepairedOutput` asks it again with what was wrong (at most :data:`REPAIRS` times, each
a model call of its own, billed and counted as such), then fails with one
:class:`StructuredOutputError` line naming the model, the schema and what was wrong, instead of
a parser's traceback.
"""

from __future__ import annotations

import re
from typing import Any, Final, TypeVar

from langchain_core.language_models import LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.messages.utils import convert_to_messages
from langchain_core.prompt_values import PromptValue
from langchain_core.runnables import Runnable, RunnableConfig
from pydantic import BaseModel, ValidationError

from framework.errors import CadreError, ModelError

__all__ = [
    "REPAIRS",
    "AnswerRefusalError",
    "RepairedOutput",
    "StructuredOutputError",
    "UnfitAnswerError",
    "fitted",
]

SchemaT = TypeVar("SchemaT", bound=BaseModel)

_FENCE = re.compile(r"```(?:json)?\s*(.*?)\s*```", re.S)

REPAIRS: Final = 2
"""How often a structured answer that does not fit its schema is asked for again."""


class StructuredOutputError(ModelError):
    """A model's structured answer did not fit its schema, after every repair."""


class UnfitAnswerError(ValueError):
    """An answer that does not fit its schema; ``llm_output`` is the answer (as a parser's
    error keeps it)."""

    def __init__(self, answer: str, wrong: str) -> None:
        super().__init__(wrong)
        self.llm_output = answer


class AnswerRefusalError(ValueError):
    """The model refused to answer (it said why)."""


def fitted(schema: type[SchemaT], message: Any) -> SchemaT:
    """``message``'s text as an instance of ``schema`` (strict JSON, a Markdown code fence
    around it allowed).

    Raises:
        AnswerRefusalError: The model refused to answer.
        UnfitAnswerError: It is empty, not JSON, or does not fit the schema.
    """
    refused = message.additional_kwargs.get("refusal") if isinstance(message, AIMessage) else None
    if refused:
        raise AnswerRefusalError(str(refused))
    text = message.text if isinstance(message, BaseMessage) else str(message)
    if not text.strip():
        raise UnfitAnswerError(text, "it was empty")
    try:
        return schema.model_validate_json(_unfenced(text))
    except ValidationError as error:
        raise UnfitAnswerError(text, _what_is_wrong(error)) from error


def _unfenced(text: str) -> str:
    """``text`` without a Markdown code fence around it."""
    found = _FENCE.fullmatch(text.strip())
    return found[1] if found else text


class RepairedOutput(Runnable[LanguageModelInput, Any]):
    """Structured output whose answers are repaired (see the module).

    Args:
        structured: The model's structured output (its parser raises on an answer that does
            not fit).
        label: How the error names the model.
        schema: How the error names the schema.
    """

    def __init__(self, structured: Runnable[Any, Any], *, label: str, schema: str) -> None:
        self.structured = structured
        self.label = label
        self.schema = schema

    def invoke(
        self, input: LanguageModelInput, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Any:
        """The model's structured answer, repaired when it does not fit."""
        messages = _messages(input)
        for repair in range(REPAIRS + 1):
            try:
                return self.structured.invoke(messages, config, **kwargs)
            except Exception as error:
                messages = self._repair(error, messages, repair)
        raise AssertionError("unreachable: the last repair raises")  # pragma: no cover

    async def ainvoke(
        self, input: LanguageModelInput, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Any:
        """Async form of :meth:`invoke`."""
        messages = _messages(input)
        for repair in range(REPAIRS + 1):
            try:
                return await self.structured.ainvoke(messages, config, **kwargs)
            except Exception as error:
                messages = self._repair(error, messages, repair)
        raise AssertionError("unreachable: the last repair raises")  # pragma: no cover

    def _repair(self, error: Exception, sent: list[BaseMessage], repair: int) -> list[BaseMessage]:
        """The messages that ask again after ``error``.

        Raises:
            Exception: ``error`` itself when it is no answer that failed to fit (a provider's
                failure, a programming error).
            StructuredOutputError: The model refused, or no repair is left.
        """
        if "Refusal" in type(error).__name__:
            said = " ".join(str(error).split())[:200]
            raise StructuredOutputError(
                f"{self.label} refused to answer in {self.schema} ({said}): rephrase the "
                "question or use another model, then continue the thread with `cadre resume`"
            ) from error
        if isinstance(error, CadreError) or not isinstance(error, ValueError):
            raise error
        wrong = _what_is_wrong(error)
        if repair >= REPAIRS:
            raise StructuredOutputError(
                f"{self.label} answered output that does not fit {self.schema} ({wrong}; "
                f"asked {REPAIRS + 1} times): try a model that follows JSON schemas "
                "(docs/models.md), then continue the thread with `cadre resume`"
            ) from error
        told = f"Your answer does not fit the required schema: {wrong}. Answer again, fitting it."
        answered = _answer_of(error)
        return [*sent, *([AIMessage(answered)] if answered else []), HumanMessage(told)]


def _what_is_wrong(error: ValueError) -> str:
    """One line of what was wrong with an answer."""
    if isinstance(error, ValidationError):
        found = [
            f"{'.'.join(map(str, e['loc'])) or 'the answer'}: {e['msg']}" for e in error.errors()
        ]
        return "; ".join(found)[:300]
    said = str(error).split("Received message")[0]
    return " ".join(said.split())[:300] or "it was empty"


def _place(location: tuple[int | str, ...]) -> str:
    return ".".join(map(str, location)) or "the answer"


def _answer_of(error: ValueError) -> str:
    """The answer that failed to fit, when the error holds it."""
    given_text = getattr(error, "llm_output", None)  # a parser's error keeps the answer
    if isinstance(given_text, str):
        return given_text
    if isinstance(error, ValidationError):
        given = [e.get("input") for e in error.errors() if not e["loc"]]
        if given and isinstance(given[0], str):
            return given[0]
    return ""


def _messages(input: LanguageModelInput) -> list[BaseMessage]:
    if isinstance(input, PromptValue):
        return input.to_messages()
    if isinstance(input, str):
        return [HumanMessage(input)]
    return convert_to_messages(input)
