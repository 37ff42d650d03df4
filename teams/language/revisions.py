"""Lines a page marks as not its own claim, read the way the page means them.

- A unified diff in a fenced block (a "diff" or "patch" fence, or one whose every line is "+",
  "-", "@@" or unchanged): on a page that says the change was accepted, the "+" lines are
  stated and the "-" lines withdrawn; on any other page (proposed, rejected, silent) neither.
- A "Myth:" line states what the page denies: withdrawn, and the label of the page's "Fact:"
  lines dropped.
- A reply ("Re: ..." heading, or an "... wrote:" line) quotes the message it answers on ">"
  lines: those are the other message's words, withdrawn.

Lines keep their breaks (a withdrawn line is left empty), so ``path:line`` citations hold.

Example:
    >>> drop_myths("Myth: the tower is 64 metres tall.\\nFact: the tower is 52 metres tall.")
    '\\nThe tower is 52 metres tall.'
"""

from __future__ import annotations

import re

__all__ = ["apply_accepted_diffs", "drop_myths", "drop_quoted_replies", "read_revisions"]

_FENCE = re.compile(r"^\s*(```+|~~~+)\s*([\w-]*)")
_ACCEPTED = re.compile(
    r"\b(?:accepted|approved|merged|applied|adopted|agreed)\b(?![^.\n]{0,20}\?)", re.IGNORECASE
)
_NOT_ACCEPTED = re.compile(
    r"\b(?:not\s+(?:yet\s+)?(?:accepted|approved|merged|applied|adopted|agreed)|rejected|"
    r"declined|withdrawn|proposed|pending|draft|under review)\b",
    re.IGNORECASE,
)


def accepted(text: str) -> bool:
    """Whether ``text`` says its change was accepted, and nothing says it was not."""
    return bool(_ACCEPTED.search(text)) and not _NOT_ACCEPTED.search(text)


def apply_accepted_diffs(text: str, *, heading: str = "") -> str:
    """``text`` with each fenced unified diff read (module docstring); line for line."""
    lines = text.split("\n")
    taken = accepted(f"{heading}\n{text}")
    for start, end, tag in _fences(lines):
        body = lines[start + 1 : end]
        if not _is_diff(tag, body):
            continue
        for index in range(start, end + 1):
            line = lines[index]
            new = index not in (start, end) and line.startswith("+") and not line.startswith("++")
            lines[index] = line[1:].strip() if new and taken else ""
    return "\n".join(lines)


def _fences(lines: list[str]) -> list[tuple[int, int, str]]:
    """Each fenced block: its opening line, its closing line and its info tag."""
    found = []
    index = 0
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        if opening is None:
            index += 1
            continue
        mark = opening.group(1)
        end = next(
            (i for i in range(index + 1, len(lines)) if lines[i].strip().startswith(mark)), None
        )
        if end is None:
            break
        found.append((index, end, opening.group(2).lower()))
        index = end + 1
    return found


def _is_diff(tag: str, body: list[str]) -> bool:
    """Whether a fence holds a unified diff: tagged so, or only diff lines, both signs in it."""
    filled = [line for line in body if line.strip()]
    signs = {line[0] for line in filled if line[0] in "+-"}
    if tag in ("diff", "patch", "udiff"):
        return True
    return signs == {"+", "-"} and all(line[0] in "+- @" for line in filled)


_MYTH = re.compile(r"^\s*[*_]*(?:myth|misconception|false)[*_]*\s*[:—–][*_]*\s*", re.IGNORECASE)
_FACT = re.compile(
    r"^(\s*)[*_]*(?:fact|reality|truth|true)[*_]*\s*[:—–][*_]*\s*(\S)", re.IGNORECASE
)


def drop_myths(text: str) -> str:
    """``text`` with its "Myth:" lines withdrawn and, when it has one, the label of its
    "Fact:" lines dropped (module docstring); line for line."""
    lines = text.split("\n")
    if not any(_MYTH.match(line) for line in lines):
        return text
    return "\n".join(
        "" if _MYTH.match(line) else _FACT.sub(lambda m: m[1] + m[2].upper(), line)
        for line in lines
    )


_REPLY_HEADING = re.compile(r"^\s*(?:re|fwd?|aw|sv)\s*:", re.IGNORECASE)
_WROTE = re.compile(r"\bwrote:\s*$", re.IGNORECASE | re.MULTILINE)
_QUOTED = re.compile(r"^\s*>")


def drop_quoted_replies(text: str, *, heading: str = "") -> str:
    """``text`` without the ">" lines a reply quotes the other message with, when it is a
    reply (module docstring); line for line."""
    if not (_REPLY_HEADING.match(heading) or _WROTE.search(text)):
        return text
    return "\n".join("" if _QUOTED.match(line) else line for line in text.split("\n"))


def read_revisions(text: str, *, heading: str = "") -> str:
    """``text`` through :func:`apply_accepted_diffs`, :func:`drop_myths` and
    :func:`drop_quoted_replies`."""
    text = apply_accepted_diffs(text, heading=heading)
    return drop_quoted_replies(drop_myths(text), heading=heading)
