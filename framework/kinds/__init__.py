"""Worker kinds of team files: the kind-type table (one module per kind type: builtin workers,
tool calling, nested teams, remote graphs, A2A agents), the remote workers, and the team-file
reader with a coordinator's phases.

It may import the engine, models, storage, review, policy and tools; never runs or anything
above them (runs reads team files through it)."""

from typing import TYPE_CHECKING

from framework._lazy import lazy_exports

if TYPE_CHECKING:
    from framework.kinds.a2a_agent import A2AWorker as A2AWorker
    from framework.kinds.base import KindFile as KindFile
    from framework.kinds.base import KindSetup as KindSetup
    from framework.kinds.base import KindType as KindType
    from framework.kinds.base import Loaded as Loaded
    from framework.kinds.base import Route as Route
    from framework.kinds.builtin import BUILTIN_KINDS as BUILTIN_KINDS
    from framework.kinds.remote import RemoteReply as RemoteReply
    from framework.kinds.remote import RemoteWorker as RemoteWorker
    from framework.kinds.remote_graph import RemoteGraphWorker as RemoteGraphWorker
    from framework.kinds.remote_specs import RemoteGraphSpec as RemoteGraphSpec
    from framework.kinds.remote_specs import RemoteSpec as RemoteSpec
    from framework.kinds.table import KIND_TYPES as KIND_TYPES
    from framework.kinds.table import register_kind_type as register_kind_type
    from framework.kinds.team_file import TEAMS_GROUP as TEAMS_GROUP
    from framework.kinds.team_file import KindSpec as KindSpec
    from framework.kinds.team_file import LoadedTeamFile as LoadedTeamFile
    from framework.kinds.team_file import TeamFile as TeamFile
    from framework.kinds.team_file import load_team_file as load_team_file

__getattr__, __dir__ = lazy_exports(__name__)
