"""Reading a document file as text: binary and undecodable files are told apart from text."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from framework.errors import CorpusError, NotTextError

__all__ = ["SkippedFile", "read_bytes", "read_text", "text_of"]

_CONTROL = re.compile(r"[\x01-\x08\x0e-\x1a\x1c-\x1f\x7f-\x9f]")
"""Control characters text does not hold (tab, newlines, form feed and escape are text's)."""
_MAX_CONTROL_SHARE = 0.05


@dataclass(frozen=True, kw_only=True)
class SkippedFile:
    """A file that was not read as a document, and why (``binary: it holds NUL bytes``)."""

    path: str
    reason: str


def read_bytes(path: Path) -> bytes:
    """The bytes of ``path``.

    Raises:
        CorpusError: The file cannot be read; the message names it and the reason.
    """
    try:
        return path.read_bytes()
    except OSError as exc:
        raise CorpusError(f"cannot read {path}: {exc.strerror or exc}") from exc


def text_of(data: bytes) -> str:
    """The text of a document file's bytes: UTF-8, a leading byte-order mark dropped.

    Raises:
        NotTextError: The bytes are binary (NUL bytes, or over 5% control characters) or not
            UTF-8; the message says which.
    """
    if b"\x00" in data:
        raise NotTextError("binary: it holds NUL bytes")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise NotTextError(f"not UTF-8 text ({error.reason})") from None
    controls = len(_CONTROL.findall(text))
    if controls > len(text) * _MAX_CONTROL_SHARE:
        raise NotTextError(f"binary: {controls} of its {len(text)} characters are control codes")
    return text


def read_text(path: Path) -> str:
    """The text of the document file ``path`` (see :func:`text_of`).

    Raises:
        NotTextError: The file is binary or not UTF-8; the message names it.
        CorpusError: The file cannot be read.
    """
    try:
        return text_of(read_bytes(path))
    except NotTextError as error:
        raise NotTextError(f"{path} is not a text document ({error})") from None
