"""Runs: the life of a thread. The team and role-prompt registries, the home's stores, launching
a team for a thread, the runner, the thread's record and run observers.

It may import the engine, models, storage (database, persistence, memory, knowledge), policy,
review and tools; never retention, the server, the fleet or the CLI. Names load on first use."""

from __future__ import annotations

from typing import TYPE_CHECKING

from framework._lazy import lazy_exports

if TYPE_CHECKING:
    from framework.runs.launch import (
        POLICY_FILE_GROUP,
        Launched,
        LaunchRequest,
        PolicySet,
        TeamOptions,
        launch,
        load_policies,
        open_team,
        relaunch,
        review_points,
    )
    from framework.runs.observe import (
        OBSERVER_ENTRY_POINTS,
        ObserverFactory,
        ObserverOptions,
        RunObserver,
        RunPart,
        load_observer,
    )
    from framework.runs.prompts import (
        ROLES_ENTRY_POINT_GROUP,
        ROLES_FOLDER,
        RolePrompt,
        RoleRegistry,
        packaged_roles,
    )
    from framework.runs.runner import (
        Event,
        RunResult,
        StreamOptions,
        arun_team,
        hold_thread,
        new_thread_id,
        run_team,
    )
    from framework.runs.stores import (
        home_checkpointer,
        home_cipher,
        home_store,
        open_checkpointer,
    )
    from framework.runs.teams import (
        ENTRY_POINT_GROUP,
        TEAM_FILE_GROUP,
        TEAM_FILE_PREFIX,
        TeamFactory,
        TeamSetup,
        available_teams,
        load_team,
    )
    from framework.runs.threads import (
        METADATA_KEY,
        ThreadInfo,
        read_thread_info,
        refuse_existing_thread,
        thread_info,
    )

__all__ = [
    "ENTRY_POINT_GROUP",
    "METADATA_KEY",
    "OBSERVER_ENTRY_POINTS",
    "POLICY_FILE_GROUP",
    "ROLES_ENTRY_POINT_GROUP",
    "ROLES_FOLDER",
    "TEAM_FILE_GROUP",
    "TEAM_FILE_PREFIX",
    "Event",
    "LaunchRequest",
    "Launched",
    "ObserverFactory",
    "ObserverOptions",
    "PolicySet",
    "RolePrompt",
    "RoleRegistry",
    "RunObserver",
    "RunPart",
    "RunResult",
    "StreamOptions",
    "TeamFactory",
    "TeamOptions",
    "TeamSetup",
    "ThreadInfo",
    "arun_team",
    "available_teams",
    "hold_thread",
    "home_checkpointer",
    "home_cipher",
    "home_store",
    "launch",
    "load_observer",
    "load_policies",
    "load_team",
    "new_thread_id",
    "open_checkpointer",
    "open_team",
    "packaged_roles",
    "read_thread_info",
    "refuse_existing_thread",
    "relaunch",
    "review_points",
    "run_team",
    "thread_info",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "framework.runs.launch": (
            "POLICY_FILE_GROUP",
            "LaunchRequest",
            "Launched",
            "PolicySet",
            "TeamOptions",
            "launch",
            "load_policies",
            "open_team",
            "relaunch",
            "review_points",
        ),
        "framework.runs.observe": (
            "OBSERVER_ENTRY_POINTS",
            "ObserverFactory",
            "ObserverOptions",
            "RunObserver",
            "RunPart",
            "load_observer",
        ),
        "framework.runs.prompts": (
            "ROLES_ENTRY_POINT_GROUP",
            "ROLES_FOLDER",
            "RolePrompt",
            "RoleRegistry",
            "packaged_roles",
        ),
        "framework.runs.runner": (
            "Event",
            "RunResult",
            "StreamOptions",
            "arun_team",
            "hold_thread",
            "new_thread_id",
            "run_team",
        ),
        "framework.runs.stores": (
            "home_checkpointer",
            "home_cipher",
            "home_store",
            "open_checkpointer",
        ),
        "framework.runs.teams": (
            "ENTRY_POINT_GROUP",
            "TEAM_FILE_GROUP",
            "TEAM_FILE_PREFIX",
            "TeamFactory",
            "TeamSetup",
            "available_teams",
            "load_team",
        ),
        "framework.runs.threads": (
            "METADATA_KEY",
            "ThreadInfo",
            "read_thread_info",
            "refuse_existing_thread",
            "thread_info",
        ),
    },
)
