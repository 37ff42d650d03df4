"""Where a fan-out's time goes: one warm run of a ``bench/fanout.py`` variant under cProfile,
its event loop's busy time split by area.

Each function's own time (cProfile's ``tottime``, the event loop's thread only: the checkpoint
saver's commits on its worker thread are not in it) is filed under the first area whose
pattern its file or name matches (:data:`AREAS`). The time the loop waits in ``epoll`` (the
tasks' sleeps, the saver's thread) is idle and left out, so the shares are of busy time.
The run is timed without the profiler first (a warm run, then a timed one), since the profiler
slows Python code more than C code.

Run: ``python bench/fanout_profile.py [--sizes 1000,10000] [--variants raw,cadre,encrypted]
[--top K]`` (K: the functions with the most own time, printed under each table).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import pstats
import re
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass

try:  # imported as bench.fanout_profile, or run as a script (bench/ is on sys.path)
    from bench import fanout
except ModuleNotFoundError:
    import fanout  # type: ignore[no-redef]

IDLE = r"select\.epoll"
"""The event loop waiting for something to do: not counted."""

AREAS: tuple[tuple[str, str], ...] = (
    (
        "LangGraph: a step's pending writes listed again per task (PregelLoop.put_writes)",
        r"pregel/_loop\.py:\d+\((put_writes|<listcomp>)\)",
    ),
    ("LangGraph: Send packets read per task (Topic.get)", r"channels/topic\.py"),
    ("LangGraph: scheduling, task preparation, runner", r"langgraph/"),
    ("langchain-core: run configs and callbacks", r"langchain_core/"),
    ("asyncio: event loop, tasks, futures, thread hand-offs", r"asyncio/|_asyncio|_queue"),
    (
        "checkpoint sealing (cadre cipher, pycryptodome)",
        r"persistence/(cipher|_rows|_bundles)\.py|Crypto/",
    ),
    (
        "checkpoint serialisation (msgpack)",
        r"ormsgpack|persistence/checkpointer\.py|checkpoint/serde",
    ),
    ("checkpoint saver (cadre persistence, SQLite)", r"framework/persistence/|sqlite3"),
    ("cadre engine: nodes, middleware, records", r"framework/engine/|framework/"),
    ("pydantic: records built and copied", r"pydantic"),
    ("the bench's own work (sleeps, counters)", r"bench/"),
    ("other (builtins, dataclasses, typing)", r"."),
)
"""Areas and the pattern (on ``file:line(function)``) that files a function under each; the
first match wins, the last catches the rest."""

PREPARE = {
    "raw": fanout.prepare_raw,
    "cadre": fanout.prepare_cadre,
    "telemetry": fanout.prepare_telemetry,
    "plain": fanout.prepare_plain,
    "encrypted": fanout.prepare_encrypted,
}


@dataclass(frozen=True)
class Profile:
    """One variant at one size: its wall time unprofiled, and busy seconds by area."""

    variant: str
    n: int
    wall_ms: float
    busy_s: float
    areas: dict[str, float]
    top: list[tuple[str, float]]


def _label(key: tuple[str, int, str]) -> str:
    path, line, name = key
    return f"{path}:{line}({name})"


def _area(label: str) -> str:
    for area, pattern in AREAS:
        if re.search(pattern, label):
            return area
    raise AssertionError(f"no area for {label}")  # the last pattern matches everything


async def profile(variant: str, n: int, top: int) -> Profile:
    """Warm the variant up, time one run, then profile one more."""
    run = PREPARE[variant](n, None)
    opener, closer = getattr(run, "open", None), getattr(run, "aclose", None)
    if opener is not None:
        await opener()
    try:
        outcome = await run()
        fanout.require(outcome.results == n, f"{variant}: {outcome.results} results, not {n}")
        start = time.perf_counter()
        await run()
        wall_ms = (time.perf_counter() - start) * 1000
        profiler = cProfile.Profile()
        profiler.enable()
        await run()
        profiler.disable()
    finally:
        if closer is not None:
            await closer()
        elif (close := getattr(run, "close", None)) is not None:
            close()
    stats = pstats.Stats(profiler).stats  # type: ignore[attr-defined]
    areas: dict[str, float] = {area: 0.0 for area, _ in AREAS}
    own = {
        label: value[2] for key, value in stats.items() if not re.search(IDLE, label := _label(key))
    }
    for label, seconds in own.items():
        areas[_area(label)] += seconds
    heaviest = sorted(own.items(), key=lambda item: item[1], reverse=True)[:top]
    return Profile(variant, n, wall_ms, sum(own.values()), areas, heaviest)


def table(profile: Profile) -> str:
    """The profile as Markdown: each area's CPU seconds and share, then the heaviest functions."""
    lines = [
        f"**{profile.variant}, N={profile.n}**: {profile.wall_ms:.0f} ms unprofiled; "
        f"{profile.busy_s:.2f} s of busy event loop under the profiler",
        "",
        "| area | own s | share |",
        "|---|---:|---:|",
    ]
    for area, seconds in sorted(profile.areas.items(), key=lambda item: item[1], reverse=True):
        if seconds > 0:
            share = 100 * seconds / profile.busy_s
            lines.append(f"| {area} | {seconds:.3f} | {share:.1f} % |")
    if profile.top:
        lines += ["", "| function | own s |", "|---|---:|"]
        lines += [f"| `{label.rsplit('/', 1)[-1]}` | {sec:.3f} |" for label, sec in profile.top]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000", help="task counts N, comma-separated")
    parser.add_argument("--variants", default="raw,cadre,encrypted", help=", ".join(PREPARE))
    parser.add_argument("--top", type=int, default=8, help="heaviest functions listed")
    args = parser.parse_args(argv)
    variants = [name.strip() for name in args.variants.split(",") if name.strip()]
    unknown = sorted(set(variants) - set(PREPARE))
    if unknown:
        parser.error(f"unknown variant(s) {unknown}: pick from {sorted(PREPARE)}")
    for n in (int(size) for size in args.sizes.split(",")):
        for variant in variants:
            print(table(asyncio.run(profile(variant, n, args.top))), end="\n\n", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
