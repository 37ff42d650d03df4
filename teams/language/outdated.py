"""Text a page itself marks as out of date, withdrawn before its figures are read.

- A collapsed HTML block (``<details>``) whose ``<summary>`` says it holds old figures ("Figures
  before the 2020 extension", "Previous figures", "Archived data"): its lines are withdrawn,
  and the nearest line above it that gives one other figure rejects the block's ("holds
  61,000 books, not 52,000.").
- A note that what came before it in its section is out of date ("Speaker notes: this slide is
  out of date. ... climbs 214 metres."), when it gives a figure of its own: the section's
  earlier lines that give other figures are withdrawn, and the note rejects the last of those
  figures at its end ("..., not 180.").

- A Sphinx ``versionchanged`` note (or a "Changed in version X:" line) that says what a figure
  was ("The default was 30 seconds."): the note is withdrawn, and the nearest line above it that
  gives one other figure rejects the old one ("... after 10 seconds by default, not 30.").
- A page whose banner says it is the documentation of a release no longer maintained, an
  account's profile that says it is a parody, a footer that says its answers may be inaccurate
  (a chat assistant's, an OCR text not proofread), a proposal's status that says it was not
  adopted ("Closed without merging"), a history whose edit was reverted as vandalism, a comment
  that says it was marked misleading, a release whose note says what it states is wrong ("the
  default timeout stated in this release is wrong"), or a drill's scenario sheet ("EXERCISE EXERCISE
  EXERCISE"): each of its other lines that gives a figure says so at its end ("... by default
  (in a release no longer maintained)."); so does a line that ends in a sarcasm tag ("/s").
- A fact-check rated false ("Rating: False"): each of its lines that gives one other figure
  rejects the figure its title asks about ("..., not 410.").
- A sentence the next one says is not yet confirmed ("The time is not yet ratified") says so
  at its end ("... a new course record (not yet confirmed).").
- A clause a consolidated text keeps in place marked "[Repealed]" (or revoked, superseded ...)
  above the clause that replaced it, or a setting commented out above the active one ("#
  max_passengers = 120" over "max_passengers = 96"): the old line is withdrawn, and the
  nearest line below it that gives one other figure rejects its figure ("..., not 120").
- A chat message that mends the one before with an asterisk and the right figure ("*33
  metres" under "... is 330 metres long"), or a result declared after a recount under the
  first count: the first is withdrawn, and the mending line says it in full, rejecting the old
  figure ("... is 33 metres long, not 330").
- A clause that says it prevails over an earlier numbered one ("9. Notwithstanding rule 4, a
  member must give 14 days' notice ..."): the earlier clause is withdrawn, and the later one
  rejects its figure when both give the same measure.
- A shop's reduced price ("Was £85 Now £64"): the line states the price now, of what the
  page's title names, rejecting the old one.
- A change undone by a later one ("October 2022: the change of March 2022 is undone; ... is
  reverted to 48 seats."): the lines of the change undone (those naming its date) are
  withdrawn, and the undoing line rejects their last other figure ("..., not 60.").

Lines keep their breaks (a withdrawn line is left empty), so ``path:line`` citations hold.

Example:
    >>> drop_outdated("## Slide 2\\nThe mast is 40 m.\\nNote: this slide is out of date: 46 m.")
    '## Slide 2\\n\\nNote: this slide is out of date: 46 m, not 40.'
"""

from __future__ import annotations

import re

from teams.language.standing import STATES_WRONG

__all__ = ["before_stop", "drop_outdated", "rejecting_at_end", "self_doubting"]

_DETAILS = re.compile(r"^\s*<details\b", re.IGNORECASE)
_DETAILS_END = re.compile(r"</details\s*>", re.IGNORECASE)
_SUMMARY = re.compile(r"<summary\b[^>]*>(?P<text>.*?)</summary\s*>", re.IGNORECASE | re.DOTALL)
_OLD = re.compile(
    r"\b(?:before|prior\s+to|until|previous(?:ly)?|former|old(?:er)?|earlier|historic(?:al)?|"
    r"archived?|superseded|outdated|out[- ]of[- ]date)\b",
    re.IGNORECASE,
)
"""Words of a summary that say its block holds the old state of things."""
_DISOWNS = re.compile(
    r"\b(?:this|the\s+above|the\s+previous|that)\s+(?:slide|section|figure|entry|paragraph|"
    r"table|text|page|number|statement|line|information|data)\s+(?:is|was|are)\s+(?:now\s+)?"
    r"(?:out[- ]of[- ]date|outdated|wrong|incorrect|inaccurate|superseded|"
    r"no\s+longer\s+(?:correct|accurate|true|valid|current))\b",
    re.IGNORECASE,
)
"""A note that the text before it is out of date: "this slide is out of date"."""
_UNDOES = re.compile(
    r"\b(?:change|entry|edit|decision|increase|decrease|cut|rise)\s+(?:of|from|made\s+(?:in|on))\s+"
    r"(?P<when>[^;,.]+?)\s+(?:is|was|has\s+been|were|have\s+been)\s+(?:undone|reverted|"
    r"reversed|rolled\s+back|cancell?ed|withdrawn|rescinded)\b",
    re.IGNORECASE,
)
"""A later entry undoing an earlier one, named by its date: "the change of March 2022 is
undone"."""
_HEADING = re.compile(r"^\s*#{1,6}\s")
_NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?![\w.]*\w)")


def drop_outdated(text: str, title: str = "") -> str:
    """``text`` without what it marks as out of date (see the module); line for line. The
    page's ``title`` may ask what a fact-check rates."""
    text = _drop_changed_notes(_drop_old_blocks(_reject_rated_false(text, title)))
    text = _reduced_prices(text, title)
    text = _drop_mended(_drop_replaced(_drop_named_lie(text)))
    text = _mark_sarcastic(_mark_disclaimed(_drop_undone(_drop_disowned(text))))
    return _mark_unconfirmed(text)


_WAS_NOW = re.compile(
    r"^\W*was\s+(?P<old>[£$€¥]\s?\d[\d,]*(?:\.\d+)?)\W*?\s+now\s+"
    r"(?P<new>[£$€¥]\s?\d[\d,]*(?:\.\d+)?)\W*$",
    re.IGNORECASE,
)
"""A shop's reduced price: "Was £85 Now £64"."""


def _reduced_prices(text: str, title: str) -> str:
    """``text`` with each "Was £85 Now £64" line a statement of the price now, of what the
    page's ``title`` names, rejecting the old one ("...: the price is now £64, not £85.")."""
    lines = text.split("\n")
    for at, line in enumerate(lines):
        if (found := _WAS_NOW.match(line)) is not None:
            said = f"the price is now {found['new']}, not {found['old']}."
            lines[at] = f"{title.strip(' #')}: {said}" if title.strip(" #") else said.capitalize()
    return "\n".join(lines)


_SARCASM_TAG = re.compile(r"\s+/(?:s|sarcasm)\s*$", re.IGNORECASE)
"""The tag a post ends with to say it means the opposite of what it says: "... long. /s"."""


def _mark_sarcastic(text: str) -> str:
    """``text`` with each line that ends in a sarcasm tag saying so instead of the tag."""
    lines = text.split("\n")
    for at, line in enumerate(lines):
        if (tag := _SARCASM_TAG.search(line)) and _NUMBER.search(line):
            lines[at] = _marked(line[: tag.start()], _SARCASM_MARK)
    return "\n".join(lines)


_NAMED_LIE = re.compile(
    r"^\W*(?:the\s+)?(?:lie|false\s+(?:one|statement))\W*(?:is\W*)?(?:number|no\.?|#|"
    r"statement)?\s*(?P<number>\d{1,2})\b",
    re.IGNORECASE,
)
"""The line of a game of statements that names the false one: "The lie: number 2."."""


def _drop_named_lie(text: str) -> str:
    """``text`` without the numbered statement a later line names as the lie ("1. ... 2. The
    tower holds 12 bells. 3. ..." then "The lie: number 2."): it states the opposite of a
    fact, on purpose."""
    lines = text.split("\n")
    for named in [found for line in lines if (found := _NAMED_LIE.match(line))]:
        item = re.compile(rf"^\s*{named['number']}[.)]\s")
        lines = ["" if item.match(line) else line for line in lines]
    return "\n".join(lines)


_NOT_CONFIRMED = re.compile(
    r"(?<=[.!?])\s+(?:The|This|That|Its|His|Her|Their)\s+(?:[a-z]+\s+){0,2}?(?:is|was|are|were|"
    r"has|have)\s+(?:not\s+(?:yet\s+)?(?:been\s+)?(?:ratified|confirmed|verified|certified|"
    r"validated|official)|still\s+(?:unconfirmed|unverified|provisional))\b"
)
"""A sentence that says the one before it is not yet confirmed: "... in 1:02:41, which would be
a new course record. The time is not yet ratified"."""


def _mark_unconfirmed(text: str) -> str:
    """``text`` with a sentence that the next one says is not yet confirmed saying so at its
    end ("... a new course record (not yet confirmed). The time is not yet ratified: ...")."""
    lines = text.split("\n")
    for at, line in enumerate(lines):
        if found := _NOT_CONFIRMED.search(line):
            said = before_stop(line[: found.start()], " (not yet confirmed)")
            lines[at] = said + line[found.start() :]
    return "\n".join(lines)


_RATED_FALSE = re.compile(
    r"^\W*(?:(?:our\s+)?rating|verdict|claim\s+rating)\W*:?\W*(?:false|fake|incorrect|wrong|"
    r"mostly\s+false|pants\s+on\s+fire)\b",
    re.IGNORECASE,
)
"""A fact-check's rating of the claim it checks as false: "Rating: False."."""


def _reject_rated_false(text: str, title: str) -> str:
    """``text`` with each line of a fact-check rated false that gives one other figure
    rejecting the figure its title (or a heading) asks about ("Fact check: is the mast 410
    metres tall?", "Rating: False.", "The mast is 214 metres tall, not 410.")."""
    lines = text.split("\n")
    if not any(_RATED_FALSE.match(line) for line in lines):
        return text
    headings = [title, *(line for line in lines if _HEADING.match(line))]
    asked = {figure for line in headings if "?" in line for figure in _NUMBER.findall(line)}
    if len(asked) != 1:
        return text
    old = asked.pop()
    return "\n".join(
        line if _HEADING.match(line) or _RATED_FALSE.match(line) else _rejecting(line, old)
        for line in lines
    )


_CHANGED = re.compile(
    r"^(?P<indent>\s*)(?:\.\.\s+versionchanged::\s*(?P<version>\S+)|[*_]*changed\s+in\s+"
    r"(?:version\s+)?(?P<named>v?\d[\w.]*)[*_]*\s*:?)(?P<rest>.*)$",
    re.IGNORECASE,
)
"""A note of a change in a release: ".. versionchanged:: 4.0", "*Changed in version 4.0:*"."""
_WAS = re.compile(r"\b(?:was|were|used\s+to\s+be|previously|formerly)\b", re.IGNORECASE)
"""Words that give a figure as what it was."""


def _drop_changed_notes(text: str) -> str:
    """``text`` with each change note that says what a figure was withdrawn, the nearest line
    above it with one other figure rejecting that figure."""
    lines = text.split("\n")
    for index, line in enumerate(lines):
        note = _CHANGED.match(line)
        if note is None:
            continue
        end = _note_end(lines, index, len(note["indent"]))
        said = " ".join([note["rest"], *lines[index + 1 : end]])
        version = note["version"] or note["named"]
        old = [figure for figure in _NUMBER.findall(said) if figure != version]
        above = _figure_above(lines, index)
        if len(old) != 1 or not _WAS.search(said) or above is None:
            continue
        lines[index:end] = [""] * (end - index)
        lines[above] = _rejecting(lines[above], old[0])
    return "\n".join(lines)


def _note_end(lines: list[str], index: int, indent: int) -> int:
    """Where the note on line ``index`` ends: after the lines indented under it (one blank
    line may come first)."""
    end = index + 1
    if end < len(lines) and not lines[end].strip():
        end += 1
    while end < len(lines) and lines[end].strip():
        if len(lines[end]) - len(lines[end].lstrip()) <= indent:
            break
        end += 1
    return end


_PARODY_MARK = "says a parody account"
_INACCURATE_MARK = "its page says it may be inaccurate"
_VANDALISED_MARK = "in an edit reverted as vandalism"
_WRONG_ONLY_MARK = "in a thread of wrong answers only"
_SARCASM_MARK = "said as sarcasm"
_DRILL_MARK = "in a drill's invented scenario"
"""The marks of the pages that doubt their own figures (see :data:`_SELF_DOUBT`)."""
_DISCLAIMERS = (
    (
        re.compile(
            r"\b(?:documentation|docs|page)\s+(?:is\s+)?(?:for|of)\s+an?\s+(?:old|older|"
            r"previous|outdated|unmaintained|legacy)\s+(?:release|version)\b|"
            r"\bno\s+longer\s+maintained\b|\bnot\s+the\s+(?:latest|current)\s+(?:release|"
            r"version)\b",
            re.IGNORECASE,
        ),
        "in a release no longer maintained",
    ),
    (
        re.compile(r"\bparody\s+account\b|\bnot\s+affiliated\s+with\b", re.IGNORECASE),
        _PARODY_MARK,
    ),
    (
        re.compile(
            r"\b(?:answers?|responses?|replies|output|text|transcripts?|content|information)\s+"
            r"(?:may|might|can|could)\s+(?:be\s+)?(?:inaccurate|wrong|incorrect|unreliable|"
            r"contain\s+(?:errors|mistakes))\b|\bnot\s+(?:been\s+)?proof-?read\b|"
            r"\b(?:characters|letters|words|figures|digits)\s+may\s+be\s+misread\b|"
            r"\btranslated\s+(?:automatically|by\s+machine)\b|\bmachine[\s-]translat(?:ed|ion)\b|"
            r"\btranslation\s+(?:has\s+|have\s+)?not\s+(?:been\s+|yet\s+been\s+)?(?:checked|"
            r"reviewed|proof-?read|verified)\b|\bthis\s+(?:comment|post|reply|answer|message|"
            r"review)\s+(?:has\s+been|was|is)\s+(?:marked|flagged|labell?ed)\s+as\s+(?:misleading|"
            r"false|inaccurate|incorrect|disputed|misinformation)\b",
            re.IGNORECASE,
        ),
        _INACCURATE_MARK,
    ),
    (STATES_WRONG, _INACCURATE_MARK),
    (
        re.compile(
            r"\bclosed\s+without\s+(?:being\s+)?merg(?:ed|ing)\b|^\W*status\W*:?\W*(?:rejected|"
            r"declined|withdrawn|abandoned|not\s+adopted)\b|\b(?:proposal|motion|amendment|"
            r"pull\s+request|change\s+request)\s+(?:was\s+)?(?:rejected|declined|withdrawn|"
            r"voted\s+down|not\s+adopted)\b",
            re.IGNORECASE,
        ),
        "in a proposal not adopted",
    ),
    (
        re.compile(r"\breverted\b[^\n]{0,80}\bvandalism\b", re.IGNORECASE),
        _VANDALISED_MARK,
    ),
    (
        re.compile(r"\bwrong\s+answers\s+only\b", re.IGNORECASE),
        _WRONG_ONLY_MARK,
    ),
    (
        re.compile(
            r"\b(?-i:EXERCISE\s+EXERCISE\s+EXERCISE)\b|\b(?:drill|exercise)\s+scenario\b|"
            r"\bthis\s+is\s+(?:a|an)\s+(?:drill|exercise)\b",
            re.IGNORECASE,
        ),
        _DRILL_MARK,
    ),
    (
        re.compile(
            r"^\W*(?:labels?|tags?)\W*:[^\n]*\bbug\b|^\W*status\W*:\W*(?:closed|resolved)\b"
            r"[^\n]*\bfixed\b",
            re.IGNORECASE | re.MULTILINE,
        ),
        "in a bug report",
    ),
)
"""A page's word on itself, and what each of its figures then says of where it comes from."""


_SELF_DOUBT = tuple(
    f" ({mark})"
    for mark in (
        _PARODY_MARK,
        _INACCURATE_MARK,
        _VANDALISED_MARK,
        _WRONG_ONLY_MARK,
        _SARCASM_MARK,
        _DRILL_MARK,
    )
)
"""The marks (:data:`_DISCLAIMERS`) of a figure whose own page doubts it: no finding stands on
such a page alone."""


def self_doubting(statement: str) -> bool:
    """Whether ``statement`` carries the mark of a page that doubts its own figures: a parody,
    one that says it may be inaccurate (an unchecked machine translation, an AI assistant's
    answer), an edit reverted as vandalism."""
    return any(marker in statement for marker in _SELF_DOUBT)


def _mark_disclaimed(text: str) -> str:
    """``text`` with each line that gives a figure saying, at its end, what the page's own
    banner says it is (see :data:`_DISCLAIMERS`)."""
    lines = text.split("\n")
    for pattern, marker in _DISCLAIMERS:
        banners = {at for at, line in enumerate(lines) if pattern.search(line)}
        if not banners:
            continue
        for at, line in enumerate(lines):
            if at not in banners and not _HEADING.match(line) and _NUMBER.search(line):
                lines[at] = _marked(line, marker)
    return "\n".join(lines)


def _marked(statement: str, marker: str) -> str:
    """``statement`` with ``marker`` in brackets before its closing stop."""
    return before_stop(statement, f" ({marker})")


def _drop_old_blocks(text: str) -> str:
    """``text`` with the lines of each ``<details>`` block whose summary says it holds old
    figures withdrawn."""
    lines = text.split("\n")
    index = 0
    while index < len(lines):
        if not _DETAILS.match(lines[index]):
            index += 1
            continue
        end = next(
            (at for at in range(index, len(lines)) if _DETAILS_END.search(lines[at])),
            len(lines) - 1,
        )
        block = "\n".join(lines[index : end + 1])
        summary = _SUMMARY.search(block)
        if summary is not None and _OLD.search(summary["text"]):
            lines[index : end + 1] = [""] * (end + 1 - index)
            old = _NUMBER.findall(_SUMMARY.sub("", block))
            above = _figure_above(lines, index)
            if len(old) == 1 and above is not None:
                lines[above] = _rejecting(lines[above], old[0])
        index = end + 1
    return "\n".join(lines)


_REPEALED = re.compile(
    r"\s*[\[(](?:repealed|revoked|rescinded|superseded|spent|deleted|omitted)[\])]\.?\s*$",
    re.IGNORECASE,
)
"""A consolidated text's mark on a clause no longer in force: "... is 6 knots. [Repealed]"."""
_CLAUSE_NUMBER = re.compile(r"^\s*(?:\d+[A-Za-z]?|[A-Za-z]|[ivx]+)[.)]\s+")
_COMMENTED_SETTING = re.compile(r"^\s*(?:#|;|//)\s*(?P<key>[A-Za-z_][\w.-]*)\s*[=:]\s*\S")
"""A setting commented out: "# max_passengers = 120"."""
_SETTING_GAP = 3
"""How many lines below a setting commented out the active one may be."""


def _drop_replaced(text: str) -> str:
    """``text`` without each clause marked repealed and each setting commented out above the
    active one, the line that replaced it rejecting its figure."""
    lines = text.split("\n")
    for index in range(len(lines)):
        found = _replaced(lines, index)
        if found is not None:
            old, below = found
            lines[index] = ""
            lines[below] = _rejecting(_without_reference(lines[below]), old)
    return "\n".join(lines)


def _replaced(lines: list[str], index: int) -> tuple[str, int] | None:
    """The figure of line ``index`` and the line that replaced it, when line ``index`` is a
    clause marked repealed, a setting commented out, or a numbered clause a later one
    overrides ("9. Notwithstanding rule 4, ..."), with its one figure; None otherwise."""
    line = lines[index]
    numbered, setting = _CLAUSE_NUMBER.match(line), _COMMENTED_SETTING.match(line)
    if (mark := _REPEALED.search(line)) is not None:
        said, below = _CLAUSE_NUMBER.sub("", line[: mark.start()]), _figure_below(lines, index)
    elif setting is not None:
        said, below = line[setting.end() - 1 :], _active(lines, index, setting["key"])
    elif numbered is not None and (below := _overriding(lines, index, numbered[0])) is not None:
        said = line[numbered.end() :]
    else:
        return None
    figures = _NUMBER.findall(said)
    if len(figures) != 1 or below is None:
        return None
    if setting is None and not _same_count(said, figures[0], lines[below]):
        return None  # the clause below is of another measure ("... 6 knots" over "£40 a night")
    return figures[0], below


_NOTWITHSTANDING = re.compile(
    r"\b(?:notwithstanding|despite|in\s+place\s+of|instead\s+of|overriding)\s+(?:rule|section|"
    r"clause|article|paragraph|regulation|bylaw|by-law|condition)\s+(?P<number>\d+[A-Za-z]?)\b",
    re.IGNORECASE,
)
"""A clause that says it prevails over another by its number: "Notwithstanding rule 4, ..."."""


def _without_reference(line: str) -> str:
    """``line`` without the clause it says it prevails over ("9. Notwithstanding rule 4, a
    member ...": "9. A member ..."), whose number is no figure of its statement."""
    found = _NOTWITHSTANDING.search(line)
    if found is None:
        return line
    rest = line[found.end() :].lstrip(" ,")
    return f"{line[: found.start()]}{rest[:1].upper()}{rest[1:]}"


def _overriding(lines: list[str], index: int, number: str) -> int | None:
    """The line below line ``index`` (numbered ``number``: "4.") that says it prevails over
    clause ``number`` and gives a figure, or None."""
    bare = number.strip().rstrip(".)")
    for at in range(index + 1, len(lines)):
        found = _NOTWITHSTANDING.search(lines[at])
        if found is not None and found["number"] == bare and _NUMBER.search(lines[at]):
            return at
    return None


def _active(lines: list[str], index: int, key: str) -> int | None:
    """The line a few below line ``index`` that sets ``key`` to a figure, or None."""
    setting = re.compile(rf"^\s*{re.escape(key)}\s*[=:]")
    for at in range(index + 1, min(len(lines), index + 1 + _SETTING_GAP)):
        if setting.match(lines[at]) and _NUMBER.search(lines[at]):
            return at
    return None


_STAR_MEND = re.compile(r"^\s*\*(?P<figure>\d[\d,]*(?:\.\d+)?)(?:\s*(?P<unit>[^\W\d]+)\W*)?$")
"""A chat message that mends a figure of the one before: "*33 metres" (its unit, if any, the
one that figure is written with: not a footnote's "*1 Figures are estimates")."""
_RECOUNT = re.compile(
    r"^\W*(?:after|following|on)\s+(?:a|the)\s+(?:full\s+)?re-?count\b", re.IGNORECASE
)
"""A result declared after a recount: "After a recount, the returning officer declared ..."."""
_MENDED_WITHIN = 4
"""How many lines above its mending line (a chat's name and time line between) a message may
be."""
_CHAT_HEADER = re.compile(r"^\s*\S.*?\s(?:[01]?\d|2[0-3])[:.][0-5]\d(?:\s*[AaPp]\.?[Mm]\.?)?\s*$")
"""A chat export's line of a message's sender and time: "Morwen Hosken  7:02 PM"."""


def _drop_mended(text: str) -> str:
    """``text`` without each message an asterisk mends and each first count a recount
    overturns, the mending line saying it in full and rejecting the old figure."""
    lines = text.split("\n")
    for index, line in enumerate(lines):
        star, recount = _STAR_MEND.match(line), _RECOUNT.match(line)
        above = _message_above(lines, index) if star or recount else None
        if above is None or index - above > _MENDED_WITHIN:
            continue
        figures = _NUMBER.findall(lines[above])
        if len(figures) != 1 or (star and not _mends(star, figures[0], lines[above])):
            continue
        if recount and not _same_count(lines[above], figures[0], line):
            continue
        if star:
            mended = lines[above].replace(figures[0], star["figure"], 1)
            lines[index] = rejecting_at_end(mended.strip(), figures[0])
            if _CHAT_HEADER.match(lines[index - 1]):  # its sender and time: no part of it
                lines[index - 1] = ""
        else:
            lines[index] = _rejecting(line, figures[0])
        lines[above] = ""
    return "\n".join(lines)


def _mends(star: re.Match[str], old: str, message: str) -> bool:
    """Whether the asterisk's figure ``star`` mends the figure ``old`` of ``message``: another
    figure, in the unit ``old`` is written with when it names one."""
    unit = star["unit"]
    written = (
        re.search(rf"(?<![\w.]){re.escape(old)}\s*{re.escape(unit)}\b", message) if unit else True
    )
    return star["figure"] != old and bool(written)


def _same_count(first: str, old: str, recount: str) -> bool:
    """Whether the figure ``old`` of ``first`` counts or measures what a figure of ``recount``
    does (the word after both: "1,482 votes" and "1,428 votes", "6 knots" and "4 knots")."""
    counted = re.search(rf"(?<![\w.]){re.escape(old)}\s+(?P<what>[^\W\d]+)", first)
    return (
        counted is not None
        and re.search(rf"\d\s+{re.escape(counted['what'])}\b", recount) is not None
    )


def _message_above(lines: list[str], index: int) -> int | None:
    """The nearest line above line ``index`` in its section that gives a figure, past a chat's
    sender and time lines, or None."""
    for at in range(index - 1, -1, -1):
        if _HEADING.match(lines[at]):
            return None
        if _NUMBER.search(lines[at]) and not _CHAT_HEADER.match(lines[at]):
            return at
    return None


def _figure_below(lines: list[str], index: int) -> int | None:
    """The nearest line below line ``index`` in its section that gives a figure, or None."""
    for at in range(index + 1, len(lines)):
        if _HEADING.match(lines[at]):
            return None
        if _NUMBER.search(lines[at]):
            return at
    return None


def _figure_above(lines: list[str], index: int) -> int | None:
    """The nearest line above line ``index`` in its section that gives a figure, or None (a
    heading is no statement to reject with)."""
    for at in range(index - 1, -1, -1):
        if _HEADING.match(lines[at]):
            return None
        if _NUMBER.search(lines[at]):
            return at
    return None


def _rejecting(line: str, old: str) -> str:
    """``line`` rejecting the figure ``old`` at its end, when it gives one other figure."""
    figures = _NUMBER.findall(_CLAUSE_NUMBER.sub("", line))  # not a clause's "9."
    return line if len(figures) != 1 or figures[0] == old else rejecting_at_end(line, old)


def rejecting_at_end(statement: str, old: str) -> str:
    """``statement`` rejecting ``old`` before its closing stop ("is 46 m, not 40.")."""
    return before_stop(statement, f", not {old}")


def before_stop(statement: str, words: str) -> str:
    """``statement`` with ``words`` put before its closing stop (at its end when it has none)."""
    stop = re.search(r"[.!?]?\s*$", statement)
    end = stop.start() if stop is not None else len(statement)
    return f"{statement[:end]}{words}{statement[end:]}"


def _drop_disowned(text: str) -> str:
    """``text`` with the lines a note disowns withdrawn, the note rejecting their figure."""
    lines = text.split("\n")
    start = 0
    for index, line in enumerate(lines):
        if _HEADING.match(line):
            start = index + 1
            continue
        note = _DISOWNS.search(line)
        own = set(_NUMBER.findall(line[note.end() :])) if note else set()
        if not own:
            continue
        old = [
            (at, figure)
            for at in range(start, index)
            for figure in _NUMBER.findall(lines[at])
            if figure not in own
        ]
        if not old:
            continue
        for at in {at for at, _ in old}:
            lines[at] = ""
        lines[index] = rejecting_at_end(line, old[-1][1])
    return "\n".join(lines)


def _drop_undone(text: str) -> str:
    """``text`` with each change a later line undoes withdrawn, that line rejecting its
    figure."""
    lines = text.split("\n")
    for index, line in enumerate(lines):
        undoes = _UNDOES.search(line)
        if undoes is None:
            continue
        when = undoes["when"].strip().lower()
        own = set(_NUMBER.findall(line))
        undone = [at for at in range(index) if when in lines[at].lower()]
        old = [f for at in undone for f in _NUMBER.findall(lines[at]) if f not in own]
        if not undone or not old:
            continue
        for at in undone:
            lines[at] = ""
        lines[index] = rejecting_at_end(line, old[-1])
    return "\n".join(lines)
