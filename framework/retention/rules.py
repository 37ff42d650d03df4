"""Retention rules per scope: how long memory items, the checkpoints of finished threads and
trace records are kept (``cadre retention apply [--dry-run]``).

A rules file (``retention.yaml`` in the data home, or ``--rules FILE``)::

    default:                # everything no scope below owns
      memory: 365d          # items not written for that long
      checkpoints: 90d      # threads finished (done) that long ago, every checkpoint
      traces: 30d           # spans, run index entries and metrics lines older than that
    scopes:
      user:alice:           # a scope as `cadre purge` names it; the first that owns wins
        memory: 30d

Ages are a number and a unit: ``m`` minutes, ``h`` hours, ``d`` days, ``w`` weeks, or
``forever``. A kind a scope leaves out follows the default; one the default leaves out is kept
forever. Memory rules cover memory items, not the corpus index (it follows its
files when a run indexes them again). A scope owns threads and namespaces as
:class:`~framework.retention.purge.DataScope` says.
"""

from __future__ import annotations

import math
import re
import time
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import datetime
from importlib.metadata import entry_points
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, ValidationError

from framework.database.home import DataHome
from framework.engine.config_file import invalid, read_yaml
from framework.errors import ConfigError, CryptoError, ReviewError
from framework.memory.corpus import CORPUS_NAMESPACE
from framework.retention._rows import thread_rows
from framework.retention.pruning import statuses_of
from framework.retention.purge import DataScope
from framework.runs.stores import home_cipher, home_store, open_checkpointer
from framework.runs.threads import thread_spec

if TYPE_CHECKING:
    from framework.memory.store import SemanticStore
    from framework.persistence.saver import CadreSaver
    from framework.runs.spec import RunSpec

__all__ = [
    "EXPIRY_GROUP",
    "RULES_FILE_NAME",
    "RetentionReport",
    "RetentionRules",
    "apply_retention",
    "read_rules",
]

RULES_FILE_NAME = "retention.yaml"
"""The rules file of a data home."""

EXPIRY_GROUP = "cadre.trace_expiry"
"""Other packages' expiry of thread records (telemetry's traces):
``(home, cutoff_of, dry_run) -> {what: count}``, ``cutoff_of(thread_id or None)`` being the
time before which a record of that thread (None: of no thread) goes, or None to keep it."""

_UNITS = {"m": 60, "h": 3600, "d": 86_400, "w": 604_800}
_AGE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([mhdw])\s*$")


def _seconds(value: Any) -> float:
    """An age such as ``30d`` in seconds (``forever``: infinity)."""
    if value == "forever":
        return math.inf
    match = _AGE.match(str(value)) if isinstance(value, str | int | float) else None
    if match is None or float(match.group(1)) <= 0:
        raise ValueError(
            f"an age is a positive number with a unit m, h, d or w (30d), not {value!r}"
        )
    return float(match.group(1)) * _UNITS[match.group(2)]


Age = Annotated[float, BeforeValidator(_seconds)]


class Ages(BaseModel):
    """How long each kind of record is kept (None: forever)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    memory: Age | None = None
    checkpoints: Age | None = None
    traces: Age | None = None


class RetentionRules(BaseModel):
    """The default ages and those of named scopes (the first scope that owns a record wins)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    default: Ages = Ages()
    scopes: dict[str, Ages] = {}

    def scope_rules(self) -> list[tuple[DataScope, Ages]]:
        """The scopes with their ages (what they leave out from the default), in file order."""
        return [
            (DataScope.parse(name), self._over_default(ages)) for name, ages in self.scopes.items()
        ]

    def _over_default(self, ages: Ages) -> Ages:
        return Ages.model_construct(
            **{
                kind: getattr(ages, kind) if getattr(ages, kind) is not None else value
                for kind, value in self.default.model_dump().items()
            }
        )

    def ages_of(self, info: RunSpec) -> Ages:
        """The ages of the thread recorded with ``info``."""
        owned = (ages for scope, ages in self.scope_rules() if scope.owns_thread(info))
        return next(owned, self.default)


def read_rules(path: Path) -> RetentionRules:
    """The rules in ``path``.

    Raises:
        ConfigError: It cannot be read, or is invalid (``FILE:LINE: location: message``).
    """
    path, _, data, where = read_yaml(path, "retention rules file")
    try:
        rules = RetentionRules.model_validate(data)
        rules.scope_rules()
    except ValidationError as error:
        raise invalid(where, error, "retention rules file") from None
    except ConfigError as error:
        raise ConfigError(f"{path}: {error}") from None
    return rules


@dataclass(kw_only=True)
class RetentionReport:
    """What applying the rules removed (or, dry, would remove)."""

    dry_run: bool
    threads: list[str] = field(default_factory=list)
    """Finished threads whose checkpoints went."""
    counts: dict[str, int] = field(default_factory=dict)


def apply_retention(home: DataHome, rules: RetentionRules, *, dry_run: bool) -> RetentionReport:
    """Remove (or, with ``dry_run``, count) what the rules no longer keep under ``home``.

    Raises:
        ThreadBusyError: A thread to remove is running in another process (nothing of it went).
    """

    now = time.time()
    report = RetentionReport(dry_run=dry_run)
    owners: dict[str, Ages] = {}
    if home.has_checkpoints():
        with open_checkpointer(home) as saver:
            owners = _thread_ages(saver, rules)
            report.threads = _expired_threads(saver, owners, now)
            report.counts["finished threads"] = len(report.threads)
            if not dry_run and report.threads:
                _delete_threads(saver, report.threads)
                saver.compact()  # nothing deleted stays in the file or its log
    if home.has_memory():
        with home_store(home, home_cipher(home)) as store:
            report.counts["memory items"] = _expire_memory(store, rules, now, dry_run)
            if not dry_run and report.counts["memory items"]:
                store.compact()

    def cutoff_of(thread_id: str | None) -> float | None:
        ages = owners.get(thread_id, rules.default) if thread_id else rules.default
        return None if ages.traces is None else now - ages.traces

    for expire in entry_points(group=EXPIRY_GROUP):
        report.counts.update(expire.load()(home, cutoff_of, dry_run))
    return report


def _thread_ages(saver: CadreSaver, rules: RetentionRules) -> dict[str, Ages]:
    """The ages of every thread ``cadre run`` recorded an owner for."""

    ages = {}
    for row in thread_rows(saver):
        try:
            info = thread_spec(saver, row.thread_id)
        except (ReviewError, CryptoError):
            ages[row.thread_id] = rules.default
            continue
        ages[row.thread_id] = rules.ages_of(info)
    return ages


def _expired_threads(saver: CadreSaver, ages: dict[str, Ages], now: float) -> list[str]:
    """The finished threads last written longer ago than their rule keeps checkpoints."""

    expired = []
    for status in statuses_of(saver):
        keep = ages.get(status.thread_id)
        if status.status != "done" or keep is None or keep.checkpoints is None:
            continue
        written = datetime.fromisoformat(status.updated_at).timestamp()
        if written < now - keep.checkpoints:
            expired.append(status.thread_id)
    return expired


def _delete_threads(saver: CadreSaver, threads: list[str]) -> None:

    with ExitStack() as held:
        for thread_id in threads:
            held.enter_context(saver.hold_thread(thread_id))
        saver.delete_threads(threads)


def _expire_memory(store: SemanticStore, rules: RetentionRules, now: float, dry_run: bool) -> int:
    """Delete (or count) the memory items older than their namespace's rule keeps."""

    scoped = rules.scope_rules()
    removed = 0
    for namespace in store.namespaces(live=False):
        if namespace == CORPUS_NAMESPACE:
            continue
        ages = next((a for s, a in scoped if s.owns_namespace(namespace)), rules.default)
        if ages.memory is not None:
            removed += store.delete_older(namespace, now - ages.memory, dry_run=dry_run)
    return removed
