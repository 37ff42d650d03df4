"""What the quality cases share: writing a case's files."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["case_folder"]


def case_folder(root: Path, case: Mapping[str, Any]) -> Path:
    """A folder under ``root`` named after the case, holding its files."""
    folder = root / case["id"]
    folder.mkdir()
    for name, text in case["files"].items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder
