"""A page that is a configuration file shown whole, read as what it sets: each setting of a
figure in its fenced block becomes a statement on its own line ("max_passengers = 96" as
"max_passengers is 96 passengers."; one that replaced a setting commented out above it keeps
rejecting the old figure: see :func:`~teams.language.outdated.drop_outdated`), so that a live
configuration speaks against a page that repeats an old figure; a key set twice in one
section is set by its last line, which rejects the figure before it ("THREADS=4" then
"THREADS=12": "THREADS is 12 threads, not 4."). A block beside prose is an example the prose
explains, not what is set, and stays code; so do a block's other lines (its section headers,
comments and settings of no figure).

Example:
    >>> print(setting_statements("```ini\\n[sailings]\\n# old\\nmax_passengers = 96\\n```"))
    <BLANKLINE>
    <BLANKLINE>
    <BLANKLINE>
    max_passengers is 96 passengers.
    <BLANKLINE>
"""

from __future__ import annotations

import re

from framework.memory import prose_sentences
from teams.language.tables import cell_phrase

__all__ = ["setting_statements"]

_FENCE = re.compile(r"^\s*(?:```|~~~)\s*(?P<info>[\w.+-]*)\s*$")
_CONFIG_LANGUAGES = frozenset({"", "ini", "cfg", "conf", "toml", "properties", "env", "dotenv"})
"""A fenced block's languages that hold settings (a block with none may too)."""
_SETTING = re.compile(
    r"^\s*(?P<key>[A-Za-z_][\w.-]*)\s*=\s*(?P<quote>[\"']?)(?P<value>[^\"'#;,\s]+)(?P=quote)"
    r"(?P<rejected>,\s*not\s+[\d,.]+)?\s*(?:[#;].*)?$"
)
_OTHER = re.compile(r"^\s*(?:\[[^\]]+\]|[#;].*|)\s*$")
"""A block's line that sets nothing: a section header, a comment, a blank."""
_FIGURE = re.compile(r"^\d[\d_,]*(?:\.\d+)?$")


def setting_statements(text: str, title: str = "") -> str:
    """``text`` with its settings of a figure as statements, line for line, where ``text`` is
    a configuration file's block and no prose beside it (see the module), each of what the
    page's ``title`` names before a colon ("Tarnmouth ferry booking system: live
    configuration"); as it is otherwise."""
    lines = text.split("\n")
    fences = [(at, found["info"]) for at, line in enumerate(lines) if (found := _FENCE.match(line))]
    if len(fences) != 2 or fences[0][1].lower() not in _CONFIG_LANGUAGES:
        return text
    (opening, _), (closing, _) = fences
    inside = lines[opening + 1 : closing]
    outside = "\n".join([*lines[:opening], *lines[closing + 1 :]])
    if prose_sentences(outside) or not inside:
        return text
    if not all(_SETTING.match(line) or _OTHER.match(line) for line in inside):
        return text
    subject = title.split(":", maxsplit=1)[0].strip(" #")
    read = [_statement(line, subject, _set_before(inside, at)) for at, line in enumerate(inside)]
    if not any(read):
        return text
    return "\n".join([*lines[:opening], "", *read, "", *lines[closing + 1 :]])


def _set_before(block: list[str], at: int) -> str | None:
    """What the setting on line ``at`` of ``block`` replaces: the other figure the same key was
    set to last above it, in the same section (a key set twice: the last is what is set); ""
    for none; None when the same key is set again below it (this one is not what is set)."""
    found = _SETTING.match(block[at])
    if found is None:
        return ""
    headers = [n for n, line in enumerate(block) if line.strip().startswith("[")]
    start = max((n for n in headers if n < at), default=-1) + 1
    end = min((n for n in headers if n > at), default=len(block))
    same = [
        (n, other["value"])
        for n in range(start, end)
        if (other := _SETTING.match(block[n])) and other["key"] == found["key"]
    ]
    if same[-1][0] != at:
        return None
    above = [value for _, value in same[:-1] if value != found["value"]]
    return above[-1] if above else ""


def _statement(line: str, subject: str, replaced: str | None = "") -> str:
    """A setting of a figure as a statement ("Tarnmouth ferry booking system: max_passengers is
    96 passengers."), rejecting the figure it ``replaced`` (", not 4"); "" for none, or for a
    setting ``replaced`` (None) by the same key set again below it."""
    found = _SETTING.match(line)
    if found is None or not _FIGURE.match(found["value"]) or replaced is None:
        return ""
    key = found["key"]
    named = key.replace("_", " ").replace("-", " ").replace(".", " ").split()
    phrase = cell_phrase(named[-1], found["value"].replace("_", ""))
    rejected = found["rejected"] or (f", not {replaced}" if _FIGURE.match(replaced) else "")
    said = f"{key} is {phrase}{rejected}."
    return f"{subject}: {said}" if subject else said
