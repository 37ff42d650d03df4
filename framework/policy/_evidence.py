"""The ``evidence`` hook: the texts of the worker results a node's update carries (each
result's output and its evidence passages) pass the policy chain before they enter the state.

A worker's result is the one place the data a run read enters its state, whatever produced it:
a tool call, passages read offline from a corpus or a store, a nested team, a remote agent. So
what the policies change here is changed in the state, its checkpoints and history, and every
surface that reads them (the API, the console, ``cadre show``, spans, protocol payloads); the
text as it was read is not kept.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeGuard

from framework.engine.records import WorkerResult
from framework.errors import PolicyFailure
from framework.policy.chain import PolicyChain
from framework.policy.frame import PolicyFrame

__all__ = ["governed_results"]


def governed_results(update: Any, kind: str, chain: PolicyChain, frame: PolicyFrame) -> Any:
    """``update`` with each of its ``worker_results`` as the ``evidence`` hook lets its texts
    through (``update`` itself when nothing changed); ``kind`` is the call's target (the task's
    worker kind).

    Raises:
        PolicyDenied: A policy refused a result's texts (its task fails with the reason).
        PolicyFailure: A policy's ``modify`` did not keep the shape of the texts.
    """
    results = update.get("worker_results") if isinstance(update, Mapping) else None
    if not isinstance(results, Mapping):
        return update  # no results, or a replacement of them all (a re-plan, a human's edit)
    governed = {key: _governed(result, kind, chain, frame) for key, result in results.items()}
    if all(governed[key] is result for key, result in results.items()):
        return update
    return {**update, "worker_results": governed}


def _governed(result: Any, kind: str, chain: PolicyChain, frame: PolicyFrame) -> Any:
    if not isinstance(result, WorkerResult) or not (result.output or result.evidence):
        return result
    texts = {"output": result.output, "evidence": [item.text for item in result.evidence]}
    written = chain.run(frame.call("evidence", kind, texts), frame)
    return result if written is texts else _rewritten(result, written)


def _rewritten(result: WorkerResult, written: Any) -> WorkerResult:
    """``result`` with the texts a policy wrote in place of its own."""
    output = written.get("output") if isinstance(written, Mapping) else None
    passages = written.get("evidence") if isinstance(written, Mapping) else None
    if not (isinstance(output, str) and _one_text_each(passages, len(result.evidence))):
        raise PolicyFailure(
            "a policy modified a worker result's texts at evidence into another shape: the task "
            'was refused; keep {"output": str, "evidence": [str, ...]}, one text per passage'
        )
    evidence = [
        item if item.text == text else item.model_copy(update={"text": text})
        for item, text in zip(result.evidence, passages, strict=True)
    ]
    return result.model_copy(update={"output": output, "evidence": evidence})


def _one_text_each(passages: Any, count: int) -> TypeGuard[Sequence[str]]:
    return (
        isinstance(passages, Sequence)
        and not isinstance(passages, str)
        and len(passages) == count
        and all(isinstance(text, str) for text in passages)
    )
