"""A page that is a configuration (or code) file shown whole, read as what it sets: each setting
of a figure in its fenced block becomes a statement on its own line ("max_passengers = 96" as
"max_passengers is 96 passengers."; one that replaced a setting commented out above it keeps
rejecting the old figure: see :func:`~teams.language.outdated.drop_outdated`), so that a live
configuration speaks against a page that repeats an old figure; a key set twice in one
section is set by its last line, which rejects the figure before it ("THREADS=4" then
"THREADS=12": "THREADS is 12 threads, not 4."). A code file shown whole is read the same way
(a Python or Dockerfile assignment, a YAML or JSON key, a C ``#define``, a shell ``export``):
a class's attributes are said of the class, lines inside ``#if 0`` set nothing, and a diff is
a change, not a file. A setting whose comment says not to rely on it ("# FIXME: out of date")
sets nothing. A block beside prose is an example the prose explains, not what is set, and
stays code; so do a block's other lines (its section headers, comments and settings of no
figure).

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
from dataclasses import dataclass

from framework.memory import prose_sentences
from teams.language.tables import cell_phrase

__all__ = ["setting_statements"]

_FENCE = re.compile(r"^\s*(?:```|~~~)\s*(?P<info>[\w.+-]*)\s*$")
_CONFIG_LANGUAGES = frozenset({"", "ini", "cfg", "conf", "toml", "properties", "env", "dotenv"})
"""A fenced block's languages that hold settings (a block with none may too): every line of
such a block is a setting or sets nothing."""
_CODE_LANGUAGES = frozenset(
    "python py c h cpp c++ dockerfile docker yaml yml json jsonc js javascript ts typescript "
    "go rust rs java kotlin ruby rb php sh bash zsh".split()
)
"""Languages of code whose other lines (a class, a ``FROM``) may stand between its settings."""
_SETTING = re.compile(
    r"^\s*(?P<key>[A-Za-z_][\w.-]*)\s*=\s*(?P<quote>[\"']?)(?P<value>[^\"'#;,\s]+)(?P=quote)"
    r"(?P<rejected>,\s*not\s+[\d,.]+)?\s*(?P<comment>[#;].*)?$"
)
_CODE_SETTINGS = (
    re.compile(
        r"^\s*(?P<q>[\"']?)(?P<key>[A-Za-z_][\w.-]*)(?P=q)\s*:\s*(?P<value>\d[\d_.]*)\s*,?\s*"
        r"(?P<comment>#.*)?$"
    ),
    re.compile(
        r"^\s*#\s*define\s+(?P<key>[A-Za-z_]\w*)\s+\(?(?P<value>\d[\d_.]*)[uUlL]*\)?\s*"
        r"(?P<comment>/[/*].*)?$"
    ),
    re.compile(
        r"^\s*(?:ENV|ARG|export)\s+(?P<key>[A-Za-z_]\w*)(?:=|\s+)(?P<q>[\"']?)"
        r"(?P<value>\d[\d_.]*)(?P=q)\s*(?P<comment>#.*)?$"
    ),
)
"""A code block's other settings of a figure: a YAML or JSON key (``"pool_size": 80,``), a C
``#define``, a Dockerfile's ``ENV`` or ``ARG``, a shell's ``export``."""
_DOUBTED = re.compile(
    r"\b(?:fixme|todo|xxx|hack|out of date|outdated|stale|obsolete|deprecated|wrong|unused|"
    r"placeholder|temporary|(?:do not|don't|never) (?:trust|use|rely))\b",
    re.IGNORECASE,
)
"""A comment beside a setting that says it is not to be relied on ("# FIXME: out of date")."""
_OTHER = re.compile(r"^\s*(?:\[[^\]]+\]|[#;].*|)\s*$")
"""A block's line that sets nothing: a section header, a comment, a blank."""
_FIGURE = re.compile(r"^\d[\d_,]*(?:\.\d+)?$")
_CLASS = re.compile(r"^\s*class\s+(?P<name>[A-Za-z_]\w*)")
"""A class, whose attributes are its own settings: said of it, not of the page's subject."""
_SECTION = re.compile(r"^\s*\[[^\]]+\]\s*$")
_NEVER = re.compile(r"^\s*#\s*if\s+0\b")
_END_IF = re.compile(r"^\s*#\s*(?P<kind>if|ifdef|ifndef|endif)\b")
_DIFF = re.compile(r"^(?:@@ |\+\+\+ |--- a/|diff --git )")


@dataclass(frozen=True)
class _Set:
    """A figure a line of a block sets: its key, its figure, what it rejects as written
    (", not 120"), what it is said of (the page's subject, or its class) and the number of
    its ``[section]``."""

    key: str
    value: str
    rejected: str
    scope: str
    section: int


def setting_statements(text: str, title: str = "", *, whole_page: bool = True) -> str:
    """``text`` with its settings of a figure as statements, line for line, where ``text`` is
    a configuration file's (or, on a ``whole_page``, a code file's) block and no prose beside
    it (see the module), each of what the page's ``title`` names before a colon ("Tarnmouth
    ferry booking system: live configuration"); as it is otherwise. A code block under a
    section of a longer page is an example, even alone in its passage: ``whole_page`` False."""
    lines = text.split("\n")
    fences = [(at, found["info"]) for at, line in enumerate(lines) if (found := _FENCE.match(line))]
    if len(fences) != 2:
        return text
    (opening, language), (closing, _) = fences
    code = whole_page and language.lower() in _CODE_LANGUAGES
    inside = lines[opening + 1 : closing]
    outside = "\n".join([*lines[:opening], *lines[closing + 1 :]])
    if not (code or language.lower() in _CONFIG_LANGUAGES) or prose_sentences(outside):
        return text
    if not inside or any(_DIFF.match(line) for line in inside):  # a diff sets nothing whole
        return text
    subject = title.split(":", maxsplit=1)[0].strip(" #")
    sets = _settings(inside, subject, code)
    if not code and not all(_SETTING.match(line) or _OTHER.match(line) for line in inside):
        return text
    read = [_statement(sets, at) for at in range(len(inside))]
    if not any(read):
        return text
    return "\n".join([*lines[:opening], "", *read, "", *lines[closing + 1 :]])


def _settings(block: list[str], subject: str, code: bool) -> list[_Set | None]:
    """What each line of ``block`` sets (None for a line that sets no figure): a code block's
    lines inside ``#if 0`` set nothing, and a class's attributes are said of the class."""
    found: list[_Set | None] = []
    scope, skipped, depth, section = subject, False, 0, 0
    for line in block:
        section += bool(_SECTION.match(line))
        if code and (opened := _CLASS.match(line)):
            scope = opened["name"]
        if code and _NEVER.match(line) and not skipped:
            skipped, depth = True, 0
        elif skipped and (directive := _END_IF.match(line)):
            depth += 1 if directive["kind"] != "endif" else -1
            skipped = depth >= 0
        setting = _SETTING.match(line)
        if setting is None and code:
            setting = next((m for pattern in _CODE_SETTINGS if (m := pattern.match(line))), None)
        doubted = setting is not None and _DOUBTED.search(setting["comment"] or "")
        if skipped or doubted or setting is None or not _FIGURE.match(setting["value"]):
            found.append(None)
            continue
        rejected = setting.groupdict().get("rejected") or ""
        found.append(_Set(setting["key"], setting["value"], rejected, scope, section))
    return found


def _statement(sets: list[_Set | None], at: int) -> str:
    """The setting on line ``at`` as a statement ("Tarnmouth ferry booking system:
    max_passengers is 96 passengers."), rejecting the other figure the same key was set to
    last above it in its section (a key set twice: the last is what is set, ", not 4"); "" for
    a line that sets nothing, or a setting the same key sets again below it."""
    found = sets[at]
    if found is None:
        return ""
    place = (found.key, found.scope, found.section)
    same = [(n, other) for n, other in enumerate(sets) if other and place == _place(other)]
    if same[-1][0] != at:
        return ""
    replaced = [other.value for _, other in same[:-1] if other.value != found.value]
    named = found.key.replace("_", " ").replace("-", " ").replace(".", " ").split()
    phrase = cell_phrase(named[-1], found.value.replace("_", ""))
    rejected = found.rejected or (f", not {replaced[-1]}" if replaced else "")
    said = f"{found.key} is {phrase}{rejected}."
    return f"{found.scope}: {said}" if found.scope else said


def _place(found: _Set) -> tuple[str, str, int]:
    """Where a setting is made: its key, what it is said of, and its section."""
    return found.key, found.scope, found.section
