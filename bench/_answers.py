"""What the quality cases share: reading an answer by section, and writing a case's files."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

__all__ = ["case_folder", "section_lines"]


def section_lines(answer: str) -> Iterator[tuple[str, str]]:
    """``(section, line)`` of every non-blank line that is not a heading: the line stripped,
    the title of the ``##`` section it is in, lower-cased ("" before the first)."""
    section = ""
    for line in answer.splitlines():
        stripped = line.strip()
        if stripped.startswith("## "):
            section = stripped[3:].strip().lower()
        elif stripped and not stripped.startswith("#"):
            yield section, stripped


def case_folder(root: Path, case: Mapping[str, Any]) -> Path:
    """A folder under ``root`` named after the case, holding its files."""
    folder = root / case["id"]
    folder.mkdir()
    for name, text in case["files"].items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder
