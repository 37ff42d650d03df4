"""Ended runs' event logs are kept for joins a while, and within a byte budget: a server that
ran runs with very large questions does not keep them all in memory."""

from __future__ import annotations

import asyncio
import threading

from framework.server.run_path.run_log import EndedLogs, RunLog


def _ended_log(loop: asyncio.AbstractEventLoop, text: str) -> RunLog:
    log = RunLog(loop)
    log.add("values", {"question": text})
    log.finish()
    return log


async def test_the_oldest_ended_logs_are_forgotten_beyond_the_byte_budget() -> None:
    loop = asyncio.get_running_loop()
    logs: dict[str, RunLog] = {}
    forgotten: list[str] = []
    ended = EndedLogs(logs, seconds=60, max_bytes=25_000, forgotten=forgotten.append)
    for run_id in ("r1", "r2", "r3"):
        logs[run_id] = _ended_log(loop, "x" * 10_000)
        ended.ended(run_id)
    assert sorted(logs) == ["r2", "r3"] and forgotten == ["r1"]
    assert 20_000 < ended.total <= 25_000
    logs["huge"] = _ended_log(loop, "y" * 100_000)  # over the budget on its own
    ended.ended("huge")
    assert logs == {} and ended.total == 0 and forgotten == ["r1", "r2", "r3", "huge"]


async def test_an_ended_log_is_forgotten_after_its_time() -> None:
    loop = asyncio.get_running_loop()
    logs = {"r1": _ended_log(loop, "short")}
    ended = EndedLogs(logs, seconds=0.01)
    ended.ended("r1")
    assert "r1" in logs
    for _ in range(500):
        if not logs:
            break
        await asyncio.sleep(0.01)
    assert logs == {} and ended.total == 0


async def test_a_follower_gets_every_event_of_bursts_from_another_thread_in_order() -> None:
    loop = asyncio.get_running_loop()
    log = RunLog(loop)
    burst_added = threading.Event()
    next_burst = threading.Event()

    def run() -> None:  # two bursts, the second once the follower has read the first
        for index in range(50):
            log.add("values", index)
        burst_added.set()
        next_burst.wait()
        for index in range(50, 100):
            log.add("values", index)
        log.finish()

    followed: list[int] = []

    async def follow() -> None:
        async for _, _, data in log.follow():
            followed.append(data)
            if len(followed) == 50:
                assert burst_added.is_set()
                next_burst.set()

    runner = threading.Thread(target=run, daemon=True)
    runner.start()
    await asyncio.wait_for(follow(), 60)  # a burst left unwoken would wait forever
    await asyncio.to_thread(runner.join)
    assert followed == list(range(100))
