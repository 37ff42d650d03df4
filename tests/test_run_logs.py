"""Ended runs' event logs are kept for joins a while, and within a byte budget: a server that
ran runs with very large questions does not keep them all in memory."""

from __future__ import annotations

import asyncio

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
