"""An e-mail set out as text (often in a fenced block): its header's ``From:`` is who writes its
"I", its ``Subject:`` what its body is about. The message is read as prose of its own: from the
``From:`` line to the end of its block, under its subject (without "Re:" or "Fwd:"), so that
"I finished building it" under "Subject: The Polgooth footbridge" from Wenna Tregear says that
she built the footbridge. Its other header lines (``To:``, ``Date:``) are left blank: they
say nothing of the subject.

Example:
    >>> mail = ["```", "From: Ann Roe <ann@ex.org>", "Subject: Re: The mill", "", "I built it."]
    >>> messages([*mail, "```"])
    [(2, 'The mill', 'From: Ann Roe <ann@ex.org>\\n\\n\\nI built it.')]
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["REPLY_MARK", "messages", "sender"]

_FROM = re.compile(
    r"^\s*From:\s+(?P<name>[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*){0,3})\s*(?:<[^<>\s]+>)?\s*$"
)
"""A message's ``From:`` line with the writer's name: "From: Wenna Tregear <wenna@...>"."""
REPLY_MARK = re.compile(r"^\s*(?:(?:Re|Fwd?|Aw|Sv)\s*:\s*)+", re.IGNORECASE)
"""A reply's or a forward's mark before the subject it keeps: "Re: the Tarn mill"."""
_SUBJECT = re.compile(r"^\s*Subject:\s+(?P<subject>\S.*?)\s*$", re.I)
_HEADER = re.compile(r"^\s*[A-Z][\w-]*:\s")
_FENCE = re.compile(r"^\s*(?:```|~~~)")


def sender(text: str) -> str:
    """The name a message's ``From:`` line gives ("" when it has none): its "I"."""
    return next((found["name"] for line in text.split("\n") if (found := _FROM.match(line))), "")


def messages(lines: Sequence[str]) -> list[tuple[int, str, str]]:
    """Each message of ``lines`` whose header (a run of ``Name: value`` lines) has a ``From:``
    with a name and a ``Subject:``: the line its header starts on (1-based), its subject, and
    its text from there to the end of its fenced block (or of ``lines``), line for line."""
    found, at = [], 0
    while at < len(lines):
        if not _HEADER.match(lines[at]):
            at += 1
            continue
        start = at
        while at < len(lines) and _HEADER.match(lines[at]):
            at += 1
        header = lines[start:at]
        subject = next((m["subject"] for text in header if (m := _SUBJECT.match(text))), "")
        subject = REPLY_MARK.sub("", subject)
        if subject and any(_FROM.match(text) for text in header):
            end = next((n for n in range(at, len(lines)) if _FENCE.match(lines[n])), len(lines))
            kept = [text if _FROM.match(text) else "" for text in header]  # who writes "I"
            found.append((start + 1, subject, "\n".join([*kept, *lines[at:end]])))
    return found
