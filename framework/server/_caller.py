"""Who calls the server: an API token's tenant, name and scopes."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from framework.policy import Principal

__all__ = ["Caller"]


@dataclass(frozen=True, kw_only=True)
class Caller:
    """Who asks: the API token's tenant, name (the reviewer) and scopes."""

    tenant: str
    name: str
    scopes: frozenset[str]

    def principal(self) -> Principal:
        """The policy principal of the runs the caller starts."""
        return Principal(user=self.name, tenant=self.tenant, scopes=self.scopes)

    def to_json(self) -> dict[str, Any]:
        """The caller as a run's arguments keep it (to resume the run after a restart)."""
        return {"tenant": self.tenant, "name": self.name, "scopes": sorted(self.scopes)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Caller:
        """The caller :meth:`to_json` kept."""
        return cls(tenant=data["tenant"], name=data["name"], scopes=frozenset(data["scopes"]))
