"""Lines a page marks as not its own claim, read the way the page means them.

- A unified diff in a fenced block (a "diff" or "patch" fence, or one whose every line is "+",
  "-", "@@" or unchanged): on a page that says the change was accepted, the "+" lines are
  stated and the "-" lines withdrawn; on any other page (proposed, rejected, silent) neither.
- A "Myth:" line states what the page denies: withdrawn, and the label of the page's "Fact:"
  lines dropped; the fact right after a myth rejects the myth's figure when the two differ in
  that figure alone. So does an accepted diff's "+" line its "-" line's.
- A reply ("Re: ..." heading, or an "... wrote:" line) quotes the message it answers on ">"
  lines: those are the other message's words, withdrawn; the reply's next line, when it opens
  by denying them ("Not any more:") and gives one count of the same thing, rejects theirs.
- A sentence that only supposes ("Suppose ... that", "Imagine", "For the sake of argument")
  states nothing: withdrawn.
- A sentence that only proposes a figure ("Motion 14 proposed cutting the ferry to 6 sailings
  a day.") states nothing: withdrawn; a later sentence saying the proposal was defeated, with
  a figure of its own, rejects the proposed one ("... so the ferry keeps its 9 sailings a day,
  not 6.").
- A text that owns up to an April fool ("April fool! Nothing in this item is true.") states
  nothing: every line withdrawn.

Lines keep their breaks (a withdrawn line is left empty), so ``path:line`` citations hold.

Example:
    >>> drop_myths("Myth: the tower is 64 metres tall.\\nFact: the tower is 52 metres tall.")
    '\\nThe tower is 52 metres tall, not 64.'
"""

from __future__ import annotations

import re

from teams.language.values import values_in

__all__ = [
    "apply_accepted_diffs",
    "drop_april_fools",
    "drop_myths",
    "drop_proposals",
    "drop_quoted_replies",
    "drop_suppositions",
    "read_revisions",
    "rejecting",
]

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
        olds = [line[1:].strip() for line in body if line[:1] == "-" and line[:2] != "--"]
        news = [line[1:].strip() for line in body if line[:1] == "+" and line[:2] != "++"]
        paired = len(olds) == len(news)
        for index in range(start, end + 1):
            line = lines[index]
            new = index not in (start, end) and line[:1] == "+" and line[:2] != "++"
            lines[index] = ""
            if new and taken:
                text = line[1:].strip()
                lines[index] = rejecting(text, olds[news.index(text)]) if paired else text
    return "\n".join(lines)


def rejecting(new: str, old: str) -> str:
    """``new``, rejecting the figure of ``old`` at its end when the two differ in that figure
    alone ("is 95 metres long." over "is 80 metres long." is "is 95 metres long, not 80.")."""
    a, b = new.split(), old.split()
    differ = [i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x.lower() != y.lower()]
    if len(a) != len(b) or len(differ) != 1:
        return new
    figure = b[differ[0]].rstrip(".,;:")
    if not (_NUMBER.fullmatch(figure) and _NUMBER.fullmatch(a[differ[0]].rstrip(".,;:"))):
        return new
    stop = re.search(r"[.!?]?\s*$", new)
    end = stop.start() if stop is not None else len(new)
    return f"{new[:end]}, not {figure}{new[end:]}"


_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")


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
    "Fact:" lines dropped, the fact after a myth rejecting its figure (module docstring); line
    for line."""
    lines = text.split("\n")
    if not any(_MYTH.match(line) for line in lines):
        return text
    myth = ""
    for index, line in enumerate(lines):
        found = _MYTH.match(line)
        if found is not None:
            myth, lines[index] = line[found.end() :].strip(), ""
        elif _FACT.match(line):
            fact = _FACT.sub(lambda m: m[1] + m[2].upper(), line)
            lines[index] = rejecting(fact, myth[:1].upper() + myth[1:]) if myth else fact
            myth = ""
    return "\n".join(lines)


_REPLY_HEADING = re.compile(r"^\s*(?:re|fwd?|aw|sv)\s*:", re.IGNORECASE)
_WROTE = re.compile(r"\bwrote:\s*$", re.IGNORECASE | re.MULTILINE)
_QUOTED = re.compile(r"^\s*>")


def drop_quoted_replies(text: str, *, heading: str = "") -> str:
    """``text`` without the ">" lines a reply quotes the other message with, when it is a
    reply (module docstring); line for line."""
    if not (_REPLY_HEADING.match(heading) or _WROTE.search(text)):
        return text
    lines = text.split("\n")
    quoted = ""
    for index, line in enumerate(lines):
        if _QUOTED.match(line):
            quoted, lines[index] = f"{quoted} {line.lstrip(' >')}", ""
        elif line.strip():
            lines[index] = _answering(line, quoted) if quoted else line
            quoted = ""
    return "\n".join(lines)


_DENIAL = re.compile(
    r"^\W*(?:not any ?more|no longer|not so|not quite|that'?s (?:wrong|out of date)|"
    r"no\b|actually)",
    re.IGNORECASE,
)


def _answering(line: str, quoted: str) -> str:
    """The reply ``line`` right after a quote, rejecting the quote's count at its end when it
    opens by denying it and gives one count of the same thing ("Not any more: ... makes 18
    crossings a day." after "> ... makes 14 crossings a day.")."""
    if not _DENIAL.match(line):
        return line
    old = [v for v in values_in(quoted) if v.kind == "count"]
    new = [v for v in values_in(line) if v.kind == "count"]
    if len(old) != 1 or len(new) != 1 or old[0].key != new[0].key or old[0] == new[0]:
        return line
    if old[0].number == new[0].number:
        return line
    stop = re.search(r"[.!?]?\s*$", line)
    end = stop.start() if stop is not None else len(line)
    return f"{line[:end]}, not {' '.join(old[0].words)}{line[end:]}"


_SUPPOSED = re.compile(
    r"^(?:suppose|supposing|imagine|let(?: us|'s) (?:say|suppose|imagine)|"
    r"for the sake of (?:the )?(?:argument|exercise|example))\b",
    re.IGNORECASE,
)
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+")


def drop_suppositions(text: str) -> str:
    """``text`` without the sentences that only suppose a figure ("Suppose, for the sake of
    the exercise, that the harbour has 90 berths."); line for line."""
    return "\n".join(_unsupposed(line) for line in text.split("\n"))


def _unsupposed(line: str) -> str:
    sentences = _SENTENCE_BREAK.split(line)
    kept = [part for part in sentences if not _SUPPOSED.match(part.lstrip(" \t>*-_#"))]
    return " ".join(kept) if len(kept) < len(sentences) else line


_PROPOSED = re.compile(
    r"\b(?:propos(?:ed|es)|moved|call(?:ed|s)\s+for)\s+(?:to\s+\w+|that\b|\w+ing\b)"
    r"|^(?:a|the)\s+(?:motion|proposal|amendment|bill)\s+to\b",
    re.IGNORECASE,
)
"""A sentence that proposes a step: "proposed cutting", "moved that", "a motion to" (not
"recommends that" or "suggested that", which state what a guide advises or a study found)."""
_DEFEATED = re.compile(
    r"\b(?:motion|proposal|amendment|bill|plan|it)\s+(?:was|were|has\s+been)\s+(?:defeated|"
    r"rejected|voted\s+down|withdrawn|turned\s+down|dropped|not\s+(?:carried|passed|adopted))\b",
    re.IGNORECASE,
)
"""A sentence saying a proposal was not taken up."""


def drop_proposals(text: str) -> str:
    """``text`` without the sentences that only propose a figure; a later sentence that says
    the proposal was defeated and gives a figure of its own rejects the proposed one (see the
    module); line for line."""
    proposed: list[str] = []
    lines = []
    for line in text.split("\n"):
        sentences = _SENTENCE_BREAK.split(line)
        kept = []
        for sentence in sentences:
            figures = _NUMBER.findall(sentence)
            if figures and _PROPOSED.search(sentence.lstrip(" \t>*-_#")):
                proposed += figures
                continue
            own = set(figures)
            rejected = [figure for figure in proposed if figure not in own]
            if own and rejected and _DEFEATED.search(sentence):
                stop = re.search(r"[.!?]?\s*$", sentence)
                end = stop.start() if stop is not None else len(sentence)
                kept.append(f"{sentence[:end]}, not {rejected[-1]}{sentence[end:]}")
            else:
                kept.append(sentence)
        lines.append(line if kept == sentences else " ".join(kept))
    return "\n".join(lines)


_FOOLED = re.compile(
    r"\bapril[- ]fool(?:s|'s)?\b(?:!|[^\n]{0,80}?\b(?:not true|untrue|a joke|a hoax|made up|"
    r"nothing\b[^\n]{0,40}\btrue))",
    re.IGNORECASE,
)


def drop_april_fools(text: str) -> str:
    """``text`` with every line withdrawn when it owns up to an April fool ("April fool!
    Nothing in this item is true."); line for line."""
    if not _FOOLED.search(text):
        return text
    return "\n".join("" for _ in text.split("\n"))


def read_revisions(text: str, *, heading: str = "") -> str:
    """``text`` through :func:`apply_accepted_diffs`, :func:`drop_myths`,
    :func:`drop_quoted_replies`, :func:`drop_suppositions`, :func:`drop_proposals` and
    :func:`drop_april_fools`."""
    text = apply_accepted_diffs(drop_april_fools(text), heading=heading)
    return drop_proposals(drop_suppositions(drop_quoted_replies(drop_myths(text), heading=heading)))
