"""A model judge: grades an answer against a case's rubric, through the model gateway.

The judge is asked for a structured verdict (passed, and why); the call is a
:class:`~framework.models.chat.ProviderChatModel` call like any role's, so it is bounded,
retried, its usage checked, and with ``--record``/``--replay`` recorded and replayed.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from framework.evals.results import Verdict

__all__ = ["JUDGE_PROMPT", "JudgeVerdict", "judge_answer"]

JUDGE_PROMPT = (
    "You grade an answer to a question against a rubric. Read the rubric, the question and the "
    "answer; decide whether the answer meets every point of the rubric; say why in one "
    "sentence, naming what is missing or wrong when it does not.\n\n"
    "Rubric:\n{rubric}\n\nQuestion:\n{question}\n\nAnswer:\n{answer}"
)


class JudgeVerdict(BaseModel):
    """What the judge answers."""

    passed: bool = Field(description="Whether the answer meets every point of the rubric.")
    reason: str = Field(description="Why, in one sentence.")


async def judge_answer(question: str, answer: str, rubric: str, model: str) -> Verdict:
    """The ``judge`` verdict of ``answer`` to ``question`` by ``model`` (a model spec) against
    ``rubric``.

    Raises:
        ModelError: The model could not be called (the gateway's error: which provider, what
            happened, what to do).
    """
    from framework.models.chat import ProviderChatModel  # noqa: PLC0415 - LangChain's models

    grader = ProviderChatModel(model).with_structured_output(JudgeVerdict)
    prompt = JUDGE_PROMPT.format(rubric=rubric, question=question, answer=answer)
    said = await grader.ainvoke(prompt)
    verdict = said if isinstance(said, JudgeVerdict) else JudgeVerdict.model_validate(said)
    reason = " ".join(verdict.reason.split())[:300] or "no reason given"
    return Verdict(grader="judge", passed=verdict.passed, reason=f"{model}: {reason}")
