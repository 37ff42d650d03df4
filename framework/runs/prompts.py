"""Versioned role prompts: the system prompts of model-backed roles, kept under the data home.

A team asks for a role's prompt at build time with ``setup.prompts.prompt(NAME, DEFAULT)``: it gets
the current version, and version 1 is seeded from the team's default the first time. ``set``
stores a new version that becomes current; an unchanged text stores nothing. The registry
remembers which versions it handed out, so a run can record them.

Storage: ``roles/NAME/v0001.txt``, one plaintext file per version (prompts are configuration,
not run data). A version file appears whole or not at all (written aside, then hard-linked under
its final name, which fails if the name is taken), so two processes setting the same role at once
get distinct versions and a reader never sees half a prompt.

A role whose default has named format fields (``{max_tasks}``) is a template: every version
must have exactly those fields, with literal braces doubled (``{{``). A role whose default has
none (or braces that are not named fields, such as a JSON example) is used as is.

Packaged defaults are declared through the ``cadre.roles`` entry point group, one line a role:
``"research.planner" = "teams.research.prompts:PLANNER_SYSTEM"``, so the registry lists a role
before its first use without the framework importing any team.
"""

from __future__ import annotations

import os
import re
import string
import tempfile
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path
from typing import Protocol

from framework.database.home import DataHome
from framework.errors import ConfigError

__all__ = [
    "ROLES_ENTRY_POINT_GROUP",
    "ROLES_FOLDER",
    "PromptRegistry",
    "RolePrompt",
    "packaged_prompts",
]

ROLES_ENTRY_POINT_GROUP = "cadre.roles"
ROLES_FOLDER = "roles"
"""The registry's folder under the data home."""

_NAME = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}")
_NAME_RULE = (
    "a role name is 1 to 64 lowercase letters, digits, dots, dashes or underscores, "
    "starting with a letter or digit"
)
_VERSION_FILE = re.compile(r"v(\d+)\.txt")


@dataclass(frozen=True)
class RolePrompt:
    """One version of a role's prompt."""

    name: str
    version: int
    text: str

    def template(self, *fields: str) -> str:
        """The text, checked to be a format template with exactly ``fields``; ConfigError if not.

        Call it at build time, so a stored version that cannot be formatted fails the build, not
        the run.
        """
        _check_fields(self.name, f"version {self.version}", self.text, frozenset(fields))
        return self.text


def _format_fields(text: str) -> frozenset[str] | None:
    """The names of the format fields of ``text``; None when it is not a format template."""
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError:
        return None
    return frozenset(name for _, name, _, _ in parsed if name is not None)


def _template_fields(default: str) -> frozenset[str]:
    """The fields a role's default declares; empty when the default is plain text."""
    fields = _format_fields(default)
    if not fields or not all(name.isidentifier() for name in fields):
        return frozenset()
    return fields


def _check_fields(name: str, what: str, text: str, expected: frozenset[str]) -> None:
    found = _format_fields(text)
    if found is None:
        raise ConfigError(
            f"role {name!r} {what} is not a valid format template (unbalanced braces): "
            "write literal braces as {{ and }}"
        )
    problems = [f"lacks {{{field}}}" for field in sorted(expected - found)]
    problems += [f"has the unknown field {{{field}}}" for field in sorted(found - expected)]
    if problems:
        takes = ", ".join(f"{{{field}}}" for field in sorted(expected)) or "no fields"
        raise ConfigError(
            f"role {name!r} {what} {' and '.join(problems)}: the role takes {takes}; "
            "write literal braces as {{ and }}"
        )


def _checked_name(name: str) -> str:
    if not _NAME.fullmatch(name):
        raise ConfigError(f"invalid role name {name!r}: {_NAME_RULE}")
    return name


def _checked_text(name: str, text: str) -> str:
    stripped = text.strip()
    if not stripped:
        raise ConfigError(f"the prompt of role {name!r} is empty: give the text of the prompt")
    return stripped


def packaged_prompts() -> dict[str, str]:
    """Role name -> entry point value (``module:ATTRIBUTE``) of the installed packaged defaults."""
    return {point.name: point.value for point in entry_points(group=ROLES_ENTRY_POINT_GROUP)}


def _load_packaged_default(name: str) -> str | None:
    for point in entry_points(group=ROLES_ENTRY_POINT_GROUP, name=name):
        text = point.load()
        if not isinstance(text, str) or not text.strip():
            raise ConfigError(
                f"the packaged default of role {name!r} ({point.value}) is not a non-empty "
                "string: point the cadre.roles entry at a prompt constant"
            )
        return text.strip()
    return None


class _Versions(Protocol):
    """Where the versions live: ``add`` is exclusive, it never replaces a version."""

    def all(self, name: str) -> dict[int, str]: ...

    def names(self) -> list[str]: ...

    def add(self, name: str, version: int, text: str) -> bool: ...


class _MemoryVersions:
    """Versions held by one registry instance (tests, runs without a data home)."""

    def __init__(self) -> None:
        self._texts: dict[str, dict[int, str]] = {}
        self._lock = threading.Lock()

    def all(self, name: str) -> dict[int, str]:
        with self._lock:
            return dict(self._texts.get(name, {}))

    def names(self) -> list[str]:
        with self._lock:
            return list(self._texts)

    def add(self, name: str, version: int, text: str) -> bool:
        with self._lock:
            texts = self._texts.setdefault(name, {})
            if version in texts:
                return False
            texts[version] = text
            return True


class _DirectoryVersions:
    """``ROOT/NAME/v0001.txt``; a version file is linked into place whole, never overwritten."""

    def __init__(self, root: Path) -> None:
        self._root = root

    def all(self, name: str) -> dict[int, str]:
        folder = self._root / name
        if not folder.is_dir():
            return {}
        texts = {}
        for path in folder.iterdir():
            match = _VERSION_FILE.fullmatch(path.name)
            if match:
                texts[int(match.group(1))] = path.read_text(encoding="utf-8")
        return texts

    def names(self) -> list[str]:
        if not self._root.is_dir():
            return []
        return [path.name for path in self._root.iterdir() if _NAME.fullmatch(path.name)]

    def add(self, name: str, version: int, text: str) -> bool:
        folder = self._root / name
        for missing in reversed([path for path in (folder, *folder.parents) if not path.exists()]):
            missing.mkdir(exist_ok=True, mode=0o700)  # private, like the data home
        handle, aside = tempfile.mkstemp(dir=folder, prefix=".writing-", suffix=".tmp")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                file.write(text)
                file.flush()
                os.fsync(file.fileno())
            os.link(aside, folder / f"v{version:04d}.txt")
        except FileExistsError:
            return False
        finally:
            os.unlink(aside)
        return True


class PromptRegistry:
    """Role prompts by name and version, under ``root`` (None: in memory, for tests).

    Args:
        root: The folder of the versions (``roles/`` under the data home).
        defaults: Role names -> packaged default prompts; None reads them from the
            ``cadre.roles`` entry points when they are needed.
        pinned: Role names -> the version :meth:`prompt` gives instead of the current one (a
            resumed thread keeps the prompts it started with).
    """

    def __init__(
        self,
        root: Path | None,
        *,
        defaults: Mapping[str, str] | None = None,
        pinned: Mapping[str, int] | None = None,
    ) -> None:
        self._versions: _Versions = _MemoryVersions() if root is None else _DirectoryVersions(root)
        self._defaults = None if defaults is None else dict(defaults)
        self._pinned = dict(pinned or {})
        self._used: dict[str, int] = {}
        self._lock = threading.Lock()

    @classmethod
    def of_home(cls, home: DataHome, *, pinned: Mapping[str, int] | None = None) -> PromptRegistry:
        """The registry of the data home ``home`` (its ``roles/`` folder)."""
        return cls(home.root / ROLES_FOLDER, pinned=pinned)

    @classmethod
    def in_memory(cls) -> PromptRegistry:
        """A registry that keeps nothing after the process: packaged defaults and what is set."""
        return cls(None)

    def prompt(self, name: str, default: str) -> RolePrompt:
        """The current (or pinned) version of ``name``, seeding version 1 from ``default`` when
        there is none.

        Records the version as used by this run (see :meth:`used`). ConfigError when a pinned
        version is not stored.
        """
        current = self._store(_checked_name(name), _checked_text(name, default), seed=True)
        if name in self._pinned:
            current = self._pinned_version(name)
        with self._lock:
            self._used[name] = current.version
        return current

    def used(self) -> dict[str, int]:
        """Role name -> version, of every prompt handed out by :meth:`prompt` so far."""
        with self._lock:
            return dict(self._used)

    def set(self, name: str, text: str) -> RolePrompt:
        """Store ``text`` as the new current version of ``name``; an unchanged text stores nothing.

        Raises ConfigError for an unknown role, an empty text, or a text whose format fields
        differ from those of the role's default.
        """
        text = _checked_text(_checked_name(name), text)
        stored = self._versions.all(name)
        reference = self._default(name) or (stored[min(stored)] if stored else None)
        if reference is None:
            known = ", ".join(self.names()) or "none yet"
            raise ConfigError(
                f"unknown role {name!r}: known roles are {known}; a team's role becomes known "
                "when its team declares it in the cadre.roles entry points or first runs"
            )
        fields = _template_fields(reference)
        if fields:  # a role without fields is used as is: any braces are literal
            _check_fields(name, "new text", text, fields)
        self._store(name, reference, seed=True)  # the default stays version 1
        return self._store(name, text, seed=False)

    def names(self) -> list[str]:
        """Every known role: the packaged defaults and the roles with stored versions."""
        return sorted(set(self._packaged()) | set(self._versions.names()))

    def versions(self, name: str) -> list[RolePrompt]:
        """Every version of ``name``, oldest first; a packaged role not used yet shows its default
        as version 1. Empty for an unknown role."""
        stored = self._versions.all(_checked_name(name))
        if not stored:
            default = self._default(name)
            return [] if default is None else [RolePrompt(name, 1, default)]
        return [RolePrompt(name, version, text) for version, text in sorted(stored.items())]

    def _pinned_version(self, name: str) -> RolePrompt:
        version = self._pinned[name]
        text = self._versions.all(name).get(version)
        if text is None:
            raise ConfigError(
                f"role {name!r} has no version {version}, which this run was started with: "
                f"see `cadre prompts show {name}`"
            )
        return RolePrompt(name, version, text)

    def _packaged(self) -> list[str]:
        return list(packaged_prompts() if self._defaults is None else self._defaults)

    def _default(self, name: str) -> str | None:
        if self._defaults is None:
            return _load_packaged_default(name)
        default = self._defaults.get(name)
        return None if default is None else _checked_text(name, default)

    def _store(self, name: str, text: str, *, seed: bool) -> RolePrompt:
        """Add ``text`` as the next version unless the current one is the same text (or, with
        ``seed``, unless any version exists). A version number taken meanwhile is retried."""
        while True:
            stored = self._versions.all(name)
            if stored:
                latest = max(stored)
                if seed or stored[latest] == text:
                    return RolePrompt(name, latest, stored[latest])
            version = max(stored, default=0) + 1
            if self._versions.add(name, version, text):
                return RolePrompt(name, version, text)
