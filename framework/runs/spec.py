"""The run specification: how a thread runs, as one frozen record passed whole.

A :class:`RunSpec` is what a caller asks for (team, corpus, model, review points, caps,
observation, policy, principal) and what the thread records, in its run config metadata under
:data:`METADATA_KEY` (one JSON string: LangGraph copies only string, number and boolean
metadata values into the checkpoint metadata). Every checkpoint that run writes carries it, so
another process compiles the same app again (:func:`framework.runs.launch.relaunch`). Like
every metadata value outside the allowlist (step, source, parents, run id), it is sealed in
the encrypted checkpoint body, not in the plaintext metadata column. A variant is a copy:
``spec.model_copy(update=...)``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pydantic import AliasChoices, Field, ValidationError, field_validator

from framework.engine.records import Record
from framework.policy.records import Principal, policy_version
from framework.runs.observe import ObserverOptions
from framework.runs.recorded import METADATA_KEY

__all__ = ["METADATA_KEY", "RunSpec"]


class RunSpec(Record):
    """How a thread runs: enough to compile its app again (a versioned record, since it is
    persisted with the thread's checkpoints).

    Attributes:
        team: The team name (a ``cadre.teams`` entry point, or ``file:PATH`` for a team file).
        corpus: The corpus folder to index first (absolute once recorded); None indexes
            nothing (the inputs of ``cadre extract`` and ``cadre ask`` are in their checkpoints).
        model: The chat model spec (``provider:name``, see docs/models.md); None runs offline.
        review: The review points to pause at (``plan``, ``tasks``, ``answer``), sorted.
        memory_scope: Whose research memory the run reads and extends.
        max_parallel: The cap on workers per dispatch; None keeps the team's default.
        observe: How the run is observed (telemetry); None observes nothing.
        prompt_versions: The role prompt versions to build with, as sorted (role, version)
            pairs; empty builds with the current versions. (Read from ``roles`` in threads
            recorded before the name changed.)
        policy: The text of the policy file the run is governed by (None: no policies).
        principal: Who the run acts for (None: the policy file's default, else ``local``).
    """

    team: str
    corpus: str | None = None
    model: str | None = None
    review: tuple[str, ...] = ()
    memory_scope: tuple[str, ...] = ("default",)
    max_parallel: int | None = None
    observe: ObserverOptions | None = None
    prompt_versions: tuple[tuple[str, int], ...] = Field(
        default=(), validation_alias=AliasChoices("prompt_versions", "roles")
    )
    policy: str | None = None
    principal: Principal | None = None

    @field_validator("review", mode="before")
    @classmethod
    def _sorted_points(cls, value: Any) -> Any:
        """One order for any iterable of review points, so equal specs dump equal JSON."""
        if isinstance(value, str) or not isinstance(value, Iterable):
            return value
        return tuple(sorted(set(value)))

    @property
    def corpus_dir(self) -> Path | None:
        """The corpus folder as a path (None: no corpus)."""
        return Path(self.corpus) if self.corpus is not None else None

    @property
    def policy_version(self) -> str | None:
        """The digest of the policy text the thread runs under (None: no policies)."""
        return None if self.policy is None else policy_version(self.policy)

    def recorded(self, prompt_versions: Mapping[str, int]) -> RunSpec:
        """The spec a thread records once its team was built with ``prompt_versions``: the
        corpus (and a ``scripted:`` model's file) made absolute, the versions pinned."""
        from framework.models.specs import anchored_spec  # noqa: PLC0415 - LangChain's models

        corpus = str(Path(self.corpus).resolve()) if self.corpus is not None else None
        model = anchored_spec(self.model, Path.cwd()) if self.model is not None else None
        versions = tuple(sorted(prompt_versions.items()))
        return self.model_copy(
            update={"corpus": corpus, "model": model, "prompt_versions": versions}
        )

    def metadata(self) -> dict[str, str]:
        """The run config metadata recording this spec (one JSON string under ``cadre``)."""
        return {METADATA_KEY: self.model_dump_json()}

    @classmethod
    def from_metadata(cls, metadata: Mapping[str, Any]) -> RunSpec | None:
        """The spec recorded in a checkpoint's metadata; None when it holds none (or a bad one)."""
        raw = metadata.get(METADATA_KEY)
        if not isinstance(raw, str):
            return None
        try:
            return cls.model_validate_json(raw)
        except ValidationError:
            return None
