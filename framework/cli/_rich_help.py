"""Typer's rich help without what cadre's help never uses.

``typer.rich_utils`` imports rich's Markdown (markdown-it, pygments) for the markdown markup
mode and rich's tracebacks for pretty exceptions: about 0.04 s of CPU. cadre's help is rich
markup and its app turns pretty exceptions off, so those two classes are imported when first
used instead."""

from __future__ import annotations

import sys
from pkgutil import resolve_name
from types import ModuleType
from typing import Any

__all__ = ["import_rich_help"]

DEFERRED = {"rich.markdown": "Markdown", "rich.traceback": "Traceback"}
"""The modules imported when first used, and the class ``typer.rich_utils`` takes from each."""


class _Deferred(type):
    """A class standing for ``target``, imported when the class is called or an attribute of
    it read."""

    target: str

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        return resolve_name(cls.target)(*args, **kwargs)

    def __getattr__(cls, name: str) -> Any:
        return getattr(resolve_name(cls.target), name)


def import_rich_help() -> None:
    """Import ``typer.rich_utils``, its Markdown and Traceback standing in for rich's until
    used (rich's own modules are imported as usual by whoever imports them)."""
    if "typer.rich_utils" in sys.modules:
        return
    standing = [module for module in DEFERRED if module not in sys.modules]
    for module in standing:
        stand_in = sys.modules[module] = ModuleType(module)
        name = DEFERRED[module]
        setattr(stand_in, name, _Deferred(name, (), {"target": f"{module}:{name}"}))
    try:
        import typer.rich_utils  # noqa: F401
    finally:
        for module in standing:
            del sys.modules[module]
