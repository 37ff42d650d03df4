"""What the model gateway costs a call: N calls of a scripted model through
:class:`~framework.models.chat.ProviderChatModel` (its gateway: the limiter, the retry loop, the
error translation) against the same model called directly, call by call in turn.

    .venv/bin/python bench/gateway.py --calls 1000 --repeats 7
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from framework.models.chat import ProviderChatModel
from framework.models.gateway import DEFAULT_LIMITS, Gateway, ProviderLimiter


def _script(folder: Path, calls: int) -> Path:
    path = folder / "answers.yaml"
    path.write_text("steps:\n" + '  - reply: "ok"\n' * calls, encoding="utf-8")
    return path


def measure(calls: int, repeats: int) -> tuple[float, float]:
    """Median seconds of ``calls`` calls: direct, then through the gateway. Each repeat calls one
    scripted model both ways in turn, call by call, so both meet the same script and drift."""
    direct, gateway = [], []
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(repeats):
            script = _script(Path(folder), 2 * calls)
            through = ProviderChatModel(f"scripted:{script}", build_now=True)
            model = through.built()  # the same model, called without the gateway
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    direct, gateway = measure(args.calls, args.repeats)
    print(f"calls {args.calls}, repeats {args.repeats} (medians)")
    print(f"direct  {direct * 1e6 / args.calls:8.1f} us/call")
    print(f"gateway {gateway * 1e6 / args.calls:8.1f} us/call")
    print(f"gateway/direct {gateway / direct:.3f} (target <= 1.02)")
    print(f"the gateway's own work: {loop_cost() * 1e6:.2f} us/call")


if __name__ == "__main__":
    main()
