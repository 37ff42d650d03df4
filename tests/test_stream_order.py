"""A streamed run's events reach the client as the run makes them, not when a node or the run
ends: checked by order, with the run's fan-out held until the client has its first event."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench.crash_team import read_effects, write_crash_team
from tests.conftest import HELD_TEAM, HOLD_AFTER_VARIABLE, held_run
from tests.served import Served, start

TASKS = 3


def test_the_first_event_is_sent_while_the_fan_out_is_held(tmp_path: Path) -> None:
    held = held_run(write_crash_team(tmp_path / "team", tasks=TASKS), tmp_path, None)
    env = {**held.env, HOLD_AFTER_VARIABLE: "0"}  # every worker waits for the release file
    served = Served(url="", home=tmp_path / "home", database=None)
    with start(served, env=env):
        client = served.client()
        thread_id = client.threads.create()["thread_id"]
        events = []
        for part in client.runs.stream(
            thread_id, HELD_TEAM, input={"question": "held"}, stream_mode="values"
        ):
            if part.event != "metadata" and not held.release.exists():
                # the first event after metadata came while no worker could have ended
                assert read_effects(held.effects) == []
                assert part.event == "values" and part.data["question"] == "held"
                held.release.touch()
            events.append(part.event)
        assert events[0] == "metadata" and events[-1] == "end" and "error" not in events
        assert len(read_effects(held.effects)) == TASKS
        state: dict[str, Any] = dict(client.threads.get_state(thread_id))
        assert state["values"]["final_answer"]
