"""Runs: the life of a thread. Its specification, the team and role-prompt registries, the
home's stores, launching a team for a thread, the runner, reading a thread's record back, and
run observers.

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
        PromptRegistry,
        RolePrompt,
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
    from framework.runs.spec import (
        METADATA_KEY,
        RunSpec,
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
        FunctionTeam,
        TeamBuilder,
        TeamFactory,
        TeamSetup,
        available_teams,
        load_team,
    )
    from framework.runs.threads import (
        read_thread_spec,
        refuse_existing_thread,
        thread_spec,
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
    "FunctionTeam",
    "LaunchRequest",
    "Launched",
    "ObserverFactory",
    "ObserverOptions",
    "PolicySet",
    "PromptRegistry",
    "RolePrompt",
    "RunObserver",
    "RunPart",
    "RunResult",
    "RunSpec",
    "StreamOptions",
    "TeamBuilder",
    "TeamFactory",
    "TeamOptions",
    "TeamSetup",
    "arun_team",
    "available_teams",
    "hold_thread",
    "home_checkpointer",
    "home_cipher",
    "home_store",
    "load_observer",
    "load_policies",
    "load_team",
    "new_thread_id",
    "open_checkpointer",
    "open_team",
    "packaged_roles",
    "read_thread_spec",
    "refuse_existing_thread",
    "relaunch",
    "review_points",
    "run_team",
    "thread_spec",
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
            "PromptRegistry",
            "RolePrompt",
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
        "framework.runs.spec": (
            "METADATA_KEY",
            "RunSpec",
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
            "FunctionTeam",
            "TeamBuilder",
            "TeamFactory",
            "TeamSetup",
            "available_teams",
            "load_team",
        ),
        "framework.runs.threads": (
            "read_thread_spec",
            "refuse_existing_thread",
            "thread_spec",
        ),
    },
)
