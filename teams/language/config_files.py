"""A page that is a configuration file shown whole, read as what it sets: each setting of a
figure in its fenced block becomes a statement on its own line ("max_passengers = 96" as
"max_passengers is 96 passengers."; one that replaced a setting commented out above it keeps
rejecting the old figure: see :func:`~teams.language.outdated.drop_outdated`), so that a live
configuration speaks against a page that repeats an old figure. A block beside prose is an
example the prose explains, not what is set, and stays code; so do a block's other lines (its
section headers, comments and settings of no figure).

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
    read = [_statement(line, subject) for line in inside]
    if not any(read):
        return text
    return "\n".join([*lines[:opening], "", *read, "", *lines[closing + 1 :]])


def _statement(line: str, subject: str) -> str:
    """A setting of a figure as a statement ("Tarnmouth ferry booking system: max_passengers is
    96 passengers."), or ""."""
    found = _SETTING.match(line)
    if found is None or not _FIGURE.match(found["value"]):
        return ""
    key = found["key"]
    named = key.replace("_", " ").replace("-", " ").replace(".", " ").split()
    phrase = cell_phrase(named[-1], found["value"].replace("_", ""))
    said = f"{key} is {phrase}{found['rejected'] or ''}."
    return f"{subject}: {said}" if subject else said
