"""Worker kinds of team files: the kind-type table (one module per kind type: builtin workers,
tool calling, nested teams, remote graphs, A2A agents), the remote workers, and the team-file
reader with a coordinator's phases.

It may import the engine, models, storage, review, policy and tools; never runs or anything
above them (runs reads team files through it)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from framework._lazy import lazy_exports

if TYPE_CHECKING:
    from framework.kinds.a2a_agent import A2AWorker
    from framework.kinds.base import KindFile, KindSetup, KindType, Loaded, Route
    from framework.kinds.builtin import BUILTIN_KINDS
    from framework.kinds.remote import RemoteReply, RemoteWorker
    from framework.kinds.remote_graph import RemoteGraphWorker
    from framework.kinds.remote_specs import RemoteGraphSpec, RemoteSpec
    from framework.kinds.table import KIND_TYPES, register_kind_type
    from framework.kinds.team_file import (
        TEAMS_GROUP,
        KindSpec,
        LoadedTeamFile,
        TeamFile,
        load_team_file,
    )

__all__ = [
    "BUILTIN_KINDS",
    "KIND_TYPES",
    "TEAMS_GROUP",
    "A2AWorker",
    "KindFile",
    "KindSetup",
    "KindSpec",
    "KindType",
    "Loaded",
    "LoadedTeamFile",
    "RemoteGraphSpec",
    "RemoteGraphWorker",
    "RemoteReply",
    "RemoteSpec",
    "RemoteWorker",
    "Route",
    "TeamFile",
    "load_team_file",
    "register_kind_type",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "framework.kinds.a2a_agent": ("A2AWorker",),
        "framework.kinds.base": ("KindFile", "KindSetup", "KindType", "Loaded", "Route"),
        "framework.kinds.builtin": ("BUILTIN_KINDS",),
        "framework.kinds.remote": ("RemoteReply", "RemoteWorker"),
        "framework.kinds.remote_graph": ("RemoteGraphWorker",),
        "framework.kinds.remote_specs": ("RemoteGraphSpec", "RemoteSpec"),
        "framework.kinds.table": ("KIND_TYPES", "register_kind_type"),
        "framework.kinds.team_file": (
            "TEAMS_GROUP",
            "KindSpec",
            "LoadedTeamFile",
            "TeamFile",
            "load_team_file",
        ),
    },
)
