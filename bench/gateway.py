"""What the model gateway costs a call: N calls of a model of constant cost through
:class:`~framework.models.chat.ProviderChatModel` (its gateway: the limiter, the retry loop, the
error translation) against the same model called directly, call by call in turn; and how it
rides out a rate-limit spell: W parallel calls to a provider on loopback that answers 429 with
a ``Retry-After`` for S seconds (HTTP calls per model call, calls answered, recovery after the
spell against the ``Retry-After``).

    .venv/bin/python bench/gateway.py --calls 1000 --repeats 7 --spell-s 20 --retry-after 2
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any

from langchain_core.language_models.fake_chat_models import FakeListChatModel

from framework.models.chat import ProviderChatModel
from framework.models.gateway import DEFAULT_LIMITS, Gateway
from framework.models.provider_limiter import ProviderLimiter
from tests.openai_server import Reply, openai_server
from tests.test_openai_provider import completion


def measure(calls: int, repeats: int) -> tuple[float, float]:
    """Median seconds of ``calls`` calls: direct, then through the gateway. Each repeat calls one
    model of constant cost (LangChain's fake chat model, answering ``ok``) both ways in turn,
    call by call, so both meet the same drift: directly, and through a
    :class:`~framework.models.chat.ProviderChatModel` whose provider model it is."""
    direct, gateway = [], []
    for _ in range(repeats):
        model = FakeListChatModel(responses=["ok"])
        through = ProviderChatModel("openai-compatible:m@http://127.0.0.1:9/v1")
        through._core.model = model  # the provider model it would build, without a provider
        spent = [0.0, 0.0]
        for _ in range(calls):
            for side, call in enumerate((model.invoke, through.invoke)):
                started = time.perf_counter()
                call("hello")
                spent[side] += time.perf_counter() - started
        direct.append(spent[0])
        gateway.append(spent[1])
    return statistics.median(direct), statistics.median(gateway)


def loop_cost(calls: int = 100_000) -> float:
    """Seconds per call of the gateway's own work around a call that does nothing."""
    gateway = Gateway(
        label="a model",
        limiter=ProviderLimiter(),
        limits=DEFAULT_LIMITS,
        translate=lambda error: None,
        transient=lambda error: False,
    )
    started = time.perf_counter()
    for _ in range(calls):
        gateway.call(lambda: None)
    return (time.perf_counter() - started) / calls


@dataclass(frozen=True)
class Spell:
    """What a rate-limit spell cost."""

    answered: int
    requests: int
    most_per_call: int
    recovery_s: float
    """From the spell's end to the last answer."""


def spell(workers: int, spell_s: float, retry_after: float) -> Spell:
    """``workers`` parallel calls, each of its own prompt, during a spell of ``spell_s``."""
    ends = time.monotonic() + spell_s

    def respond(body: dict[str, Any]) -> dict[str, Any] | Reply:
        if time.monotonic() < ends:
            limited = {"error": {"message": "rate limited", "type": "rate"}}
            return Reply(429, limited, {"Retry-After": f"{retry_after:g}"})
        return completion("ok")

    with openai_server(respond) as server:
        model = ProviderChatModel(f"openai-compatible:m@{server.base_url}")

        async def ask_all() -> list[Any]:
            return await asyncio.gather(
                *(model.ainvoke(f"task {n}") for n in range(workers)), return_exceptions=True
            )

        answers = asyncio.run(ask_all())
        last = time.monotonic()
        sent = Counter(body["messages"][-1]["content"] for _, body in server.requests)
    answered = sum(1 for a in answers if not isinstance(a, BaseException))
    return Spell(answered, sum(sent.values()), max(sent.values()), last - ends)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--workers", type=int, default=6)
    parser.add_argument("--spell-s", type=float, default=20.0)
    parser.add_argument("--retry-after", type=float, default=2.0)
    args = parser.parse_args()
    direct, gateway = measure(args.calls, args.repeats)
    print(f"calls {args.calls}, repeats {args.repeats} (medians)")
    print(f"direct  {direct * 1e6 / args.calls:8.1f} us/call")
    print(f"gateway {gateway * 1e6 / args.calls:8.1f} us/call")
    print(f"gateway/direct {gateway / direct:.3f} (target <= 1.02)")
    print(f"the gateway's own work: {loop_cost() * 1e6:.2f} us/call")
    cost = spell(args.workers, args.spell_s, args.retry_after)
    print(
        f"spell of {args.spell_s:g} s, Retry-After {args.retry_after:g} s, {args.workers} calls: "
        f"{cost.answered} answered, {cost.requests} HTTP calls "
        f"(at most {cost.most_per_call} per call, target <= {DEFAULT_LIMITS.attempts}), "
        f"recovered {cost.recovery_s:.2f} s after the spell "
        f"({cost.recovery_s / args.retry_after:.2f}x Retry-After, target <= 2)"
    )


if __name__ == "__main__":
    main()
