"""Reading a YAML configuration file (a team file, a policy file) with line-numbered errors.

Every problem is reported as ``FILE:LINE: location: message``, the line being that of the
value the location names.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from framework.errors import ConfigError

if TYPE_CHECKING:
    from pydantic import ValidationError

__all__ = ["Where", "invalid", "read_yaml", "read_yaml_text", "shown_path", "unreadable"]


def shown_path(path: Path) -> str:
    """How an error names the file ``path`` (absolute): relative to the working folder when it is
    in it (as it was most likely given), else absolute."""
    relative = os.path.relpath(path)
    return path.as_posix() if relative == ".." or relative.startswith("../") else relative


def unreadable(what: str, path: Path, error: OSError | UnicodeDecodeError) -> ConfigError:
    """The refusal of file ``path`` (absolute) that cannot be read, naming it by
    :func:`shown_path` only (an OS error repeats the absolute path)."""
    reason = error.strerror if isinstance(error, OSError) and error.strerror else error
    return ConfigError(f"cannot read {what} {shown_path(path)}: {reason}")


class Where:
    """Finds the line of a value of the file by its location (keys and list indexes)."""

    def __init__(self, path: Path | str, root: yaml.Node | None) -> None:
        self.path = path
        self.root = root

    def line(self, location: Sequence[str | int]) -> int:
        """The line of the value at ``location`` (or of the nearest value above it)."""
        node, line = self.root, 1
        for step in location:
            if node is None:
                break
            line = node.start_mark.line + 1
            node = _child(node, step)
        if node is not None:
            line = node.start_mark.line + 1
        return line

    def at(self, location: Sequence[str | int], message: str) -> str:
        """``FILE:LINE: location: message`` (``FILE:LINE: message`` about the whole file)."""
        dotted = ".".join(str(step) for step in location)
        place = f"{dotted}: " if dotted else ""
        return f"{self.path}:{self.line(location)}: {place}{message}"


def _child(node: yaml.Node, step: str | int) -> yaml.Node | None:
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if key.value == step:
                return value  # type: ignore[no-any-return]
    if isinstance(node, yaml.SequenceNode) and isinstance(step, int) and step < len(node.value):
        return node.value[step]  # type: ignore[no-any-return]
    return None


def read_yaml(path: Path, what: str) -> tuple[Path, str, dict[str, Any], Where]:
    """The resolved path, text, mapping and line finder of the YAML file ``path`` (its errors
    name the file by :func:`shown_path`).

    Raises:
        ConfigError: The file cannot be read, is not YAML, or is not a mapping.
    """
    path = path.expanduser().resolve()
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise unreadable(what, path, error) from None
    data, where = read_yaml_text(text, shown_path(path), what)
    return path, text, data, where


def read_yaml_text(text: str, source: Path | str, what: str) -> tuple[dict[str, Any], Where]:
    """The mapping and line finder of YAML ``text`` read from ``source``.

    Raises:
        ConfigError: The text is not YAML, or not a mapping.
    """
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = f":{mark.line + 1}" if mark is not None else ""
        reason = getattr(error, "problem", None) or str(error)
        raise ConfigError(f"{source}{line}: not YAML: {reason}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"{source}:1: a {what} is a mapping of settings")
    return data, Where(source, root)


def invalid(where: Where, error: ValidationError, what: str) -> ConfigError:
    """One ConfigError listing every validation problem with its line."""
    lines = []
    for problem in error.errors():
        location = [step for step in problem["loc"] if not isinstance(step, str) or step]
        message = problem["msg"].removeprefix("Value error, ")
        lines.append(where.at(location, message))
    return ConfigError(f"{what} {where.path} is invalid: " + "; ".join(lines))
