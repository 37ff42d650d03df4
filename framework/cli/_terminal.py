"""What ``cadre`` writes to a terminal: text only. Answers, findings, review requests and
errors carry text from models and remote agents, which may hold terminal control codes (colour,
cursor moves, a clipboard write, a hyperlink); the console script's standard output and error
drop every such code before it reaches the terminal (or a file), so no printed text can act on
the terminal. ``cadre`` prints no control codes of its own that this would remove but colour."""

from __future__ import annotations

import re
from typing import Any, TextIO

__all__ = ["PrintableStream", "printable"]

_CONTROL = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"  # CSI: colour, cursor moves, erasing
    r"|(?:\x1b\]|\x9d)[^\x07\x1b\x9c\n]*(?:\x07|\x9c|\x1b\\)?"  # OSC: titles, clipboard, links
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"  # DCS, SOS, PM, APC strings
    r"|\x1b[ -~]?"  # any other escape
    r"|[\x00-\x08\x0b-\x1f\x7f-\x9f]"  # the other C0 and C1 controls (tab and newline stay)
)


def printable(text: str) -> str:
    """``text`` without terminal control codes (tabs and newlines kept)."""
    return _CONTROL.sub("", text)


class PrintableStream:
    """A text stream that writes what :func:`printable` keeps of each write to ``stream``."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        """Write ``text`` without its control codes; the length asked, as streams answer."""
        self._stream.write(printable(text))
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)
