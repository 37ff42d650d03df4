"""Reading a document file as text, safely: only regular files within a size limit are read,
and binary or undecodable files are told apart from text.

A file is checked with :func:`os.stat` before it is opened (a FIFO, a device, a socket, a
symbolic link loop or a broken link is refused without being opened), opened with
``O_NONBLOCK`` and checked again on the open descriptor, and read up to the size limit plus
one byte: nothing hangs, nothing is read unbounded.

A file that cannot be opened or read (permission denied, deleted or replaced since it was
listed, an I/O error) is skipped by :func:`read_document` with the reason in a few words, and
refused by :func:`read_bytes` with a message naming it.
"""

from __future__ import annotations

import codecs
import errno
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from framework.errors import ConfigError, CorpusError, NotTextError

__all__ = [
    "DEFAULT_MAX_FILE_MB",
    "MAX_FILE_MB_VARIABLE",
    "SkippedFile",
    "file_size_limit",
    "read_bytes",
    "read_document",
    "read_text",
    "text_of",
    "unreadable_reason",
]

MAX_FILE_MB_VARIABLE = "CADRE_MAX_FILE_MB"
"""The environment variable that sets the size limit per document file, in megabytes."""

DEFAULT_MAX_FILE_MB = 10.0
"""The size limit per document file when :data:`MAX_FILE_MB_VARIABLE` is not set."""

_MB = 1024 * 1024
_CONTROL = re.compile(r"[\x01-\x08\x0e-\x1a\x1c-\x1f\x7f-\x9f]")
"""Control characters text does not hold (tab, newlines, form feed and escape are text's)."""
_MAX_CONTROL_SHARE = 0.05
_BOMS = (  # longest first: the UTF-32 LE mark starts with the UTF-16 LE one
    (codecs.BOM_UTF32_LE, "utf-32-le", "UTF-32"),
    (codecs.BOM_UTF32_BE, "utf-32-be", "UTF-32"),
    (codecs.BOM_UTF8, "utf-8", "UTF-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le", "UTF-16"),
    (codecs.BOM_UTF16_BE, "utf-16-be", "UTF-16"),
)
_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)
_DENIED = frozenset({errno.EACCES, errno.EPERM})
_GONE = frozenset({errno.ENOENT, errno.ENOTDIR})  # ENOTDIR: a folder on its path is a file now
_NOT_THE_FILES = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOMEM})
"""Errors of the process, not of the file: every file after it would fail the same way."""


@dataclass(frozen=True, kw_only=True)
class SkippedFile:
    """A file that was not read as a document, and why (``binary: it holds NUL bytes``)."""

    path: str
    reason: str


def file_size_limit(value: str | None = None) -> int:
    """The size limit per document file in bytes: ``value`` (megabytes), else
    ``$CADRE_MAX_FILE_MB``, else :data:`DEFAULT_MAX_FILE_MB`.

    Raises:
        ConfigError: The setting is not a positive number.
    """
    setting = value if value is not None else os.environ.get(MAX_FILE_MB_VARIABLE, "")
    if not setting.strip():
        return int(DEFAULT_MAX_FILE_MB * _MB)
    try:
        megabytes = float(setting)
    except ValueError:
        megabytes = -1.0
    if not megabytes > 0 or megabytes == float("inf"):
        raise ConfigError(
            f"${MAX_FILE_MB_VARIABLE} must be a positive number of megabytes, got {setting!r}"
        )
    return max(1, int(megabytes * _MB))


def read_bytes(path: Path, limit: int | None = None) -> bytes:
    """The bytes of the regular file ``path`` (a symbolic link is followed to one).

    Args:
        path: The file.
        limit: Most bytes a file may hold; :func:`file_size_limit` when omitted.

    Raises:
        NotTextError: It is not a regular file (a FIFO, a device, a socket, a folder), a
            symbolic link loop or a broken link, or it is over ``limit``; the message says which.
        CorpusError: The file cannot be opened or read (permission denied, deleted before it
            was read, an I/O error); the message names it and says why.
    """
    limit = file_size_limit() if limit is None else limit
    try:
        return _read(path, limit)
    except OSError as error:
        reason = unreadable_reason(error, gone="deleted before it was read")
        raise CorpusError(f"cannot read {path}: {reason}") from None


def read_document(path: Path, name: str, limit: int) -> tuple[bytes, str] | SkippedFile:
    """The bytes and the text of the document file ``path``, or why it is skipped (a
    :class:`SkippedFile` named ``name``): it is not a regular file, is over ``limit`` or is not
    text (see :func:`read_bytes` and :func:`text_of`), or it cannot be opened or read
    (``permission denied``, ``deleted during ingest``: see :func:`unreadable_reason`).

    Raises:
        CorpusError: Reading failed for a reason that is not the file's own (too many open
            files, out of memory), which every file after it would meet too; the message names
            the file and the reason.
    """
    try:
        data = _read(path, limit)
        return data, text_of(data)
    except NotTextError as error:
        return SkippedFile(path=name, reason=str(error))
    except OSError as error:
        if error.errno in _NOT_THE_FILES:
            raise CorpusError(f"cannot read {path}: {unreadable_reason(error)}") from None
        return SkippedFile(path=name, reason=unreadable_reason(error))


def unreadable_reason(error: OSError, *, gone: str = "deleted during ingest") -> str:
    """Why a file or folder could not be opened, listed or read, in a few words:
    ``permission denied``, ``gone`` (it no longer exists), else the system's reason in lower
    case (``input/output error``)."""
    if error.errno in _DENIED:
        return "permission denied"
    if error.errno in _GONE:
        return gone
    reason = error.strerror or str(error) or type(error).__name__
    return reason[:1].lower() + reason[1:]


def text_of(data: bytes) -> str:
    """The text of a document file's bytes: UTF-8, or UTF-8, UTF-16 or UTF-32 with a
    byte-order mark (the mark dropped).

    Raises:
        NotTextError: The bytes are binary (NUL characters, or over 5% control characters) or
            not text in their encoding (Latin-1, cp1252, broken UTF-8); the message says which.
    """
    encoding, label, data = _encoding_of(data)
    if encoding == "utf-8" and b"\x00" in data:
        raise NotTextError(_nul_reason(data))
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as error:
        raise NotTextError(f"not {label} text ({error.reason})") from None
    if "\x00" in text:
        raise NotTextError("binary: it holds NUL bytes")
    controls = len(_CONTROL.findall(text))
    if controls > len(text) * _MAX_CONTROL_SHARE:
        raise NotTextError(f"binary: {controls} of its {len(text)} characters are control codes")
    return text


def read_text(path: Path, limit: int | None = None) -> str:
    """The text of the document file ``path`` (see :func:`read_bytes` and :func:`text_of`).

    Raises:
        NotTextError: The file is not a regular file, is over the size limit, or is not text;
            the message names it.
        CorpusError: The file cannot be read.
    """
    try:
        return text_of(read_bytes(path, limit))
    except NotTextError as error:
        raise NotTextError(f"{path} is not a text document ({error})") from None


def _read(path: Path, limit: int) -> bytes:
    """:func:`read_bytes`, but an OSError met opening or reading the file is raised as it is
    (a symbolic link loop or a broken link is a :class:`NotTextError`)."""
    try:
        _check(os.stat(path), limit)
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as error:
        raise _not_a_file(path, error) or error from None
    try:
        _check(os.fstat(fd), limit)  # the path may have changed since: a folder, a FIFO
        file = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    with file:
        data = file.read(limit + 1)
    if len(data) > limit:
        raise NotTextError(_too_large(len(data), limit, grew=True))
    return data


def _check(info: os.stat_result, limit: int) -> None:
    """Refuse what is not a regular file of at most ``limit`` bytes."""
    if not stat.S_ISREG(info.st_mode):
        kind = next((name for test, name in _KINDS if test(info.st_mode)), "a special file")
        raise NotTextError(f"not a regular file: {kind}")
    if info.st_size > limit:
        raise NotTextError(_too_large(info.st_size, limit))


def _not_a_file(path: Path, error: OSError) -> NotTextError | None:
    """The refusal of a symbolic link loop or a broken link, met opening ``path``."""
    if error.errno == errno.ELOOP:
        return NotTextError("a symbolic link loop (or a chain of links too long to follow)")
    if error.errno == errno.ENOENT and os.path.islink(path):
        try:
            return NotTextError(f"a broken symbolic link (to {os.readlink(path)})")
        except OSError:  # it went in the meantime
            return None
    return None


def _too_large(size: int, limit: int, *, grew: bool = False) -> str:
    held = "it grew while it was read" if grew else _size(size)
    return (
        f"too large: {held}, over the {_size(limit)} limit per file "
        f"(raise ${MAX_FILE_MB_VARIABLE} to index it)"
    )


def _size(count: int) -> str:
    """``count`` bytes in MB, KB or bytes, as a person reads them."""
    if count >= _MB:
        return f"{count / _MB:.1f} MB"
    return f"{count / 1024:.1f} KB" if count >= 1024 else f"{count} bytes"


def _encoding_of(data: bytes) -> tuple[str, str, bytes]:
    """``(codec, label, bytes without the byte-order mark)``; UTF-8 when there is no mark."""
    for mark, encoding, label in _BOMS:
        if data.startswith(mark):
            return encoding, label, data[len(mark) :]
    return "utf-8", "UTF-8", data


def _nul_reason(data: bytes) -> str:
    """Why bytes holding NUL bytes are not text: UTF-16 without its mark, or binary."""
    even, odd = data[0::2].count(0), data[1::2].count(0)
    half = len(data) // 2
    if half >= 2 and max(even, odd) > 0.4 * half and min(even, odd) < 0.05 * half:
        return (
            "binary: it holds NUL bytes (UTF-16 without a byte-order mark? "
            "save it as UTF-8, or as UTF-16 with a mark)"
        )
    return "binary: it holds NUL bytes"
