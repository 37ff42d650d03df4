"""How a document stands against another on the same subject: one that says it is out of date,
fiction, not to be relied on or a copy, a line that tells of what did not happen (a dry run, a
dream), and editions of one work.

"This page is archived and is no longer updated.", "This leaflet is superseded by the
handbook.", "This is a work of fiction." and "This page is a mirror of the survey." retire
their own document: in a conflict, the other document's value stands. Two
documents titled as editions of one work ("Walker's guide, third edition", "Walker's guide, 5th
edition") or as numbers of one series ("Harbour Bulletin, Issue 7", "..., Issue 31"; "Revision
B", "Revision D"; "version 1.9", "version 1.10", compared part by part) are ordered by them: the
later one stands. A sentence that tells in the past tense of a year ("renamed when it was
rebuilt in 2009") was written in that year or later.

Example:
    >>> retires_itself("This leaflet is superseded by the Harl hostel handbook.")
    True
    >>> edition_of("Walker's guide to the Fenn valley, third edition")
    ((3,), "walker's guide to the fenn valley")
    >>> edition_of("Garrow footbridge specification, Revision D")
    ((4,), 'garrow footbridge specification')
    >>> edition_of("Garrow quay handbook, version 1.10")
    ((1, 10), 'garrow quay handbook')
    >>> written_since("The playhouse, renamed when it was rebuilt in 2009, has 560 seats.")
    2009
"""

from __future__ import annotations

import re

from teams.language.amounts import word_ordinal

__all__ = [
    "CODE_EDITION",
    "STATES_WRONG",
    "code_editions",
    "disowned_as",
    "edition_of",
    "retires_itself",
    "tells_of_the_unreal",
    "written_since",
]

_DOCUMENT = (
    r"(?:page|leaflet|document|guide|notice|edition|version|article|section|text|handbook|"
    r"brochure|sheet|file|manual|list|register|entry|site|website|table|chapter|post|summary|"
    r"listing)"
)
_OUT_OF_DATE = (
    r"(?:superseded|replaced|archived|retired|withdrawn|obsolete|outdated|out of date|"
    r"out-of-date|deprecated|no longer (?:updated|maintained|current|valid|accurate|kept up to "
    r"date|in use))"
)
_RETIRES = re.compile(
    rf"\b(?:this|the present|the current)\s+(?:\w+\s+)?{_DOCUMENT}\b[^.;]{{0,40}}?"
    rf"\b(?:is|has been|was|are|have been)\s+(?:now\s+|since\s+|long\s+)?{_OUT_OF_DATE}",
    re.IGNORECASE,
)
"""A sentence saying its own document is out of date: "This page is archived", "This leaflet is
superseded by ...", "this version of the guide is no longer maintained"."""
_EDITION = re.compile(
    r"\b(?P<rank>\d{1,3}(?:st|nd|rd|th)|[a-z]+(?:-[a-z]+)?)\s+(?:edition|printing|revision)\b",
    re.IGNORECASE,
)


_MOVED_ON = re.compile(
    r"http-equiv=[\"']?refresh[\"']?[^>]*\burl=|^\s*(?:Deprecation:\s*(?:true|@\d+)|"
    r"Sunset:\s+\w|Obsoleted\s+by:\s*(?:RFC\s*)?\d+)|\brel=[\"']?successor-version\b",
    re.IGNORECASE,
)
"""Markup or headers saying a page or a response has a successor: an HTML meta refresh that
sends the reader on ('<meta http-equiv="refresh" content="0; url=...">'), an HTTP response's
"Deprecation: true", "Sunset:" or 'rel="successor-version"' link, an RFC's "Obsoleted by: 9412"
header."""
_DEFERS = re.compile(
    rf"\b(?:this|the present)\s+(?:\w+\s+)?{_DOCUMENT}\b[^.;]{{0,40}}?"
    r"\b(?:is|are)\s+(?:an?\s+)?(?:unofficial|not\s+official|(?:provided\s+)?for\s+guidance\s+only)"
    r"[^.]{0,160}?\bwhere\s+(?:it|they)\s+differs?\b[^.]{0,160}?\bprevails?\b",
    re.IGNORECASE,
)
"""A sentence saying its own document yields to an official one where they differ: "This
summary is unofficial; where it differs from the official notice, the official notice
prevails."."""


_POINTS_ON = re.compile(
    r"(?:^|[.;]\s+)\W*for\s+the\s+(?:present|current|new|modern|existing|later|today's)\s+"
    r"[a-z][\w-]*(?:\s+[\w-]+){0,4},\s+see\b",
    re.IGNORECASE,
)
"""A hatnote sending the reader on for the present thing: "For the present pier, see Wenmoor
pier (1994)." (its own page is about an earlier one)."""


_FICTION = re.compile(
    r"\b(?:(?:is|as)\s+an?\s+(?:work|piece)\s+of\s+fiction|(?:characters|events|people|places|"
    r"incidents)\b[^.;]{0,60}?\b(?:are|is)\s+(?:entirely\s+|purely\s+|wholly\s+)?(?:fictitious|"
    r"fictional|imaginary|invented)|(?:likeness|resemblance)\s+to\s+(?:any\s+)?(?:real|actual)\b"
    r"[^.;]{0,60}?\b(?:coincidental|coincidence|unintended|accidental))",
    re.IGNORECASE,
)
"""A sentence saying its own document is fiction: "This is a work of fiction.", "All the
characters and events in this book are fictitious.", "Any likeness to real places ... is
coincidence."."""
_COPY = re.compile(
    rf"\b(?:this|the present)\s+(?:(?:\w+\s+)?{_DOCUMENT}\s+)?is\s+(?:an?\s+)?"
    r"(?!the\b)(?:[\w'’]+\s+){0,3}(?:mirror|copy|snapshot|reproduction)\s+of\b|"
    r"^\W*forked\s+from\s+[\w.-]+/[\w.-]+",
    re.IGNORECASE | re.MULTILINE,
)
"""A sentence saying its own document copies another: "This page is a mirror of the Harl water
survey, last synced in March 2016." (the original stands where they differ); a repository's
"forked from owner/name" line (the fork's page, the upstream's stands)."""


STATES_WRONG = re.compile(
    rf"\b(?:stated|given|listed|shown|documented)\s+(?:in|on|by)\s+this\s+(?:{_DOCUMENT}|"
    r"release)\s+(?:is|are|was|were)\s+(?:wrong|incorrect|inaccurate|erroneous)\b",
    re.IGNORECASE,
)
"""A note that what its own document states is wrong: a yanked release's "the default timeout
stated in this release is wrong"."""


_UNCHECKED = (
    r"(?:has|have)\s+not\s+(?:yet\s+)?been\s+(?:peer[- ]reviewed|checked|verified|reviewed|"
    r"confirmed|fact[- ]checked|corrected|proofread)"
)
_NOT_RELIED_ON = re.compile(
    r"\b(?:not\s+(?:to\s+be\s+used\s+)?for\s+(?:navigation|navigational\s+use)|"
    r"for\s+(?:illustration|illustrative\s+purposes|display\s+purposes)\s+only|"
    r"(?:has|have)\s+not\s+(?:yet\s+)?been\s+peer[- ]reviewed|"
    r"(?:automatically|machine[- ]|by\s+(?:users|visitors|the\s+public|members\s+of\s+the\s+"
    r"public|speech\s+recognition))\b[^.;]{0,80}?\b" + _UNCHECKED + r"|"
    r"\b(?:unchecked|unverified)\s+(?:automatic|machine)[- ](?:captions|transcript|"
    r"translation)|"
    r"(?:looks|appears|seems)\s+(?:like|to\s+be)\s+(?:a\s+)?(?:phishing|scam|spoof)|"
    r"(?:flagged|marked|reported)\s+as\s+(?:likely\s+|possible\s+|suspected\s+)?"
    r"(?:phishing|spam|a\s+scam|fraud(?:ulent)?)|"
    r"readers\s+added\s+context|"
    r"\bthan\s+this\s+(?:post|tweet|video|message|article|page)\s+(?:claims|says|suggests)\b|"
    r"\bthis\s+(?:post|tweet|video|message|claim)\s+is\s+(?:misleading|false|inaccurate)\b|"
    r"\bBAD\s+signature\b|"
    r"\bforwarded\s+many\s+times\b|"
    r"\bsubject\s+to\s+contract\b|"
    r"\bpassed\s+(?:its\s+)?(?:first|second)\s+reading\b|"
    r"\bdisregard\s+(?:my|our|the|this)\s+(?:previous|last|earlier|above)\s+"
    r"(?:message|e-?mail|post|note)|"
    r"\berror\b[^\n]{0,120}?\bnothing\s+(?:was|has\s+been)\s+(?:changed|modified|updated)|"
    r"\bwithout\s+prejudice\b|"
    r"(?<=\[)(?:PATCH\s+)?RFC(?:\s+PATCH)?(?:\s+v\d+)?\]|"
    r"\b(?:blocked|banned)\b[^.;\n]{0,60}?\bsock[- ]?puppet|"
    r"\bnot\s+(?:yet\s+)?part\s+of\s+the\s+(?:document|page|text|article)\s+until\b|"
    r"\bcheck\s+against\s+delivery\b)",
    re.IGNORECASE,
)
"""A note that its own document is not to be relied on for its figures: "NOT FOR
NAVIGATION" on a map, "for illustration only", a preprint "not been peer-reviewed", captions
"generated automatically by speech recognition and ... not been checked", a listing whose
details were "submitted by users and have not been checked", a mail client's warning that a
message "looks like a phishing attempt", a post under a "Readers added context" note (its
"much shorter than this post claims"), a text whose signature ``gpg`` finds "BAD", a chat
message "Forwarded many times" (its origin unknown), terms "Subject to contract" and a Bill
that has "passed its second reading" (neither binding yet), a thread whose writer asks to
"disregard my previous message", a command's "error: ... nothing was changed" under the change
it was to make, a letter headed "Without prejudice" (an offer made to settle, no admission), a
message tagged "[RFC]" (a proposal put to a list), a comment by an account "blocked as a
sockpuppet", suggestions "not part of the document until" its owner accepts them, and a
speech's text as written, marked "Check against delivery" (what was said may differ)."""
_VOID = re.compile(r"^\W*(?:VOID|VOIDED|CANCELLED|CANCELED)\W*$", re.MULTILINE)
"""A stamp on a line of its own, in capitals, that makes the document void: an invoice or a
cheque marked "VOID", an order "CANCELLED"."""
_DRY_RUN = re.compile(
    r"\[\s*dry[ -]?run\s*\]|^\W*dry[ -]?run\s*[:\]-]|\b(?:in|during)\s+(?:a|the)\s+dry[ -]?run\b",
    re.IGNORECASE,
)
"""A log line of a rehearsal that changed nothing: "[DRY RUN] removed 42 environments"."""
_DREAM = re.compile(
    r"\bI\s+(?:dreamt|dreamed|had\s+(?:a|this)\s+dream)\b|\bin\s+(?:my|a|the)\s+dream\b",
    re.IGNORECASE,
)
"""A sentence that recounts a dream: "I dreamt that the lighthouse was 90 metres tall"."""
_NOT_SO = re.compile(
    r"^\W{0,3}\[ \]\s|"
    r"^\W*(?:right|wrong|correct|incorrect|good|bad|do|don't|avoid)\s*:\s*[\"“‘']|"
    r"^\W*(?:proposal\s*:|proposed\s+[a-z])|"
    r"\bexit\s+poll\b|\bprojects\s+(?:\d|a\b|an\b)|"
    r"^\s*<!--|"
    r"\bwind[- ]assisted\b",
    re.IGNORECASE,
)
"""A line whose figure is not so, or does not count: an unticked item of a Markdown task list
("[ ] Raise the weight limit to 12 tonnes", a job not done yet), a style guide's example of
wording ('Right: "The ferry carries 120 passengers."'), a proposal ("Proposal: a block of 14
storeys", "Proposed rent: ..."), an exit poll or what it "projects" (not the result declared),
a sentence commented out of a page ("<!-- ... -->", not shown when it is rendered), a
wind-assisted time (no record by athletics' rules)."""


def disowned_as(text: str) -> str:
    """How ``text`` says its own document does not stand, in words for a report: "is out of
    date" (archived, superseded, no longer updated; yielding to an official one where the two
    differ; a hatnote sending the reader to another page for the present thing; a meta refresh
    or an HTTP deprecation header sending it to a successor), "is fiction",
    "states a wrong figure" (a yanked release's note), "is not to be relied on" (a map "NOT FOR
    NAVIGATION", a preprint not peer-reviewed, captions made automatically and not checked),
    "is void" (an invoice stamped "VOID"), "is a copy of another page"; "" when it says none of
    these.

    >>> disowned_as("This is a work of fiction. Any likeness to real places is coincidence.")
    'is fiction'
    >>> disowned_as("This page is a mirror of the Harl water survey, last synced in 2016.")
    'is a copy of another page'
    """
    if any(found.search(text) for found in (_RETIRES, _DEFERS, _POINTS_ON, _MOVED_ON)):
        return "is out of date"
    if _FICTION.search(text):
        return "is fiction"
    if STATES_WRONG.search(text):
        return "states a wrong figure"
    if _NOT_RELIED_ON.search(text):
        return "is not to be relied on"
    if _VOID.search(text):
        return "is void"
    return "is a copy of another page" if _COPY.search(text) else ""


def tells_of_the_unreal(text: str) -> bool:
    """Whether ``text`` tells of what did not happen or does not count: a dry run's log line,
    a dream, a job still to do, an example of wording, a proposal, a wind-assisted time. Its
    figures are stated of nothing.

    >>> tells_of_the_unreal("[DRY RUN] On 4 March envsweep removed 42 environments.")
    True
    >>> tells_of_the_unreal("On 4 March envsweep removed 39 environments.")
    False
    """
    return bool(_DRY_RUN.search(text) or _DREAM.search(text) or _NOT_SO.search(text))


def retires_itself(text: str) -> bool:
    """Whether ``text`` says its own document does not stand (see :func:`disowned_as`)."""
    return bool(disowned_as(text))


_SERIAL = re.compile(
    r"\b(?:issue|revision|rev\.|number|no\.|volume|vol\.|version|release|edition)\s+"
    r"(?P<rank>\d{1,4}(?:\.\d{1,4})*\b(?!\.\d)|[A-Z]\b)",
    re.IGNORECASE,
)
"""A number or letter in a series: "Issue 31", "Revision D", "No. 12", "Vol. 3", "version
1.10", "release 2.1"."""


CODE_EDITION = re.compile(
    r"\b(?P<code>[A-Z]{2,}(?:[ /-][A-Z]{2,})*[ -]?\d+(?:[-.]\d+)*):(?P<year>1[5-9]\d\d|20\d\d)\b"
)
"""A standard or code named with its edition's year: "KS 114:2021", "CLC-7:2019", "BS EN
1991-1-1:2002"."""


def code_editions(text: str) -> dict[str, int]:
    """The standards and codes ``text`` names with their edition's year ("to KS 114:2021":
    {"KS 114": 2021}); a code named with two years names no one edition and is left out."""
    years: dict[str, set[int]] = {}
    for found in CODE_EDITION.finditer(text):
        code = re.sub(r"(?<=[A-Za-z])[\s-]+(?=\d)", " ", " ".join(found["code"].split()))
        years.setdefault(code, set()).add(int(found["year"]))
    return {code: min(named) for code, named in years.items() if len(named) == 1}


def edition_of(title: str) -> tuple[tuple[int, ...], str] | None:
    """The edition ``title`` names ("third edition") or its number in a series ("Issue 31",
    "Revision D", "version 1.10": its parts), and the title without it (lower case, the work
    it is an edition of); None when it names none."""
    found = _EDITION.search(title)
    if found is not None:
        rank = found["rank"].lower()
        number = int(rank[:-2]) if rank[:1].isdigit() else word_ordinal(rank)
        if number is None:
            return None
        parts: tuple[int, ...] = (number,)
    else:
        found = _SERIAL.search(title)
        if found is None or (not found["rank"][0].isdigit() and not found["rank"].isupper()):
            return None
        rank = found["rank"]
        parts = (ord(rank) - ord("A") + 1,) if rank.isalpha() else tuple(map(int, rank.split(".")))
    work = title[: found.start()] + title[found.end() :]
    return parts, " ".join(work.lower().strip(" ,;:-–—()").split())


_YEAR = re.compile(r"(?<![\d.,/-])(1[5-9]\d\d|20\d\d)(?![\d.,/-]\d)")
_PAST = re.compile(r"\b(?:was|were|had|did|\w{3,}ed)\b", re.IGNORECASE)
_AHEAD = re.compile(r"\b(?:will|shall|plans?|planned|expected|due|until|by)\b", re.IGNORECASE)


def written_since(text: str) -> int | None:
    """The latest year ``text`` tells of in the past tense ("was rebuilt in 2009"): it was
    written that year or later; None when it names no year, tells of none in the past, or
    looks ahead ("will", "is expected to", "until")."""
    years = [int(year) for year in _YEAR.findall(text)]
    if not years or not _PAST.search(text) or _AHEAD.search(text):
        return None
    return max(years)
