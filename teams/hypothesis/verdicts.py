"""What the hypothesis team's roles decide, as small immutable values, and the sides of a conflict.

A role decides; its node applies the decision to research memory, which validates it. So a
model's bad answer is refused by the memory's rules, recorded, and does not fail the run.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from functools import partial

from framework.memory import Conflict, EvidenceRecord, HypothesisStatus
from teams.hypothesis.state import Step
from teams.language.contradiction import (
    DEFAULT_OVERLAP,
    agrees,
    claim_of,
    correction_of,
    notice_of_error,
    same_subject,
)
from teams.language.dates import date_at
from teams.language.standing import code_editions, edition_of, retires_itself, written_since
from teams.language.values import decade_of, stated_date, values_agree, values_in
from teams.language.verbs import lemma
from teams.language.words import STOPWORDS, keywords, stem

__all__ = [
    "Assessment",
    "ConflictClaim",
    "Decision",
    "Judgment",
    "Resolution",
    "held_until",
    "newer_side",
    "order_reason",
    "side_of",
    "speaks_of_standing",
    "standing_note",
    "standing_of",
    "state_asked_resolution",
    "upheld_side",
    "year_asked_resolution",
]


@dataclass(frozen=True, kw_only=True)
class Decision:
    """The supervisor's choice of the next step, why, and whether the rule stood in for a model."""

    step: Step
    reason: str
    fallback: str | None = None
    """Why the rule decided instead of the model (invalid output, a failure), or None."""


@dataclass(frozen=True, kw_only=True)
class Assessment:
    """A judge's view of one hypothesis: proposed when ``hypothesis_id`` is None and unknown."""

    statement: str
    status: HypothesisStatus
    confidence: float
    hypothesis_id: str | None = None
    supporting: tuple[str, ...] = ()
    contradicting: tuple[str, ...] = ()
    note: str = ""


@dataclass(frozen=True, kw_only=True)
class ConflictClaim:
    """Two pieces of evidence (ids) the judge found to disagree."""

    source_a: str
    source_b: str
    description: str


@dataclass(frozen=True, kw_only=True)
class Judgment:
    """What a judge round decided: hypotheses to propose or update, conflicts to open."""

    assessments: tuple[Assessment, ...] = ()
    conflicts: tuple[ConflictClaim, ...] = ()
    notes: tuple[str, ...] = ()
    """What the judge left out and why (a model citing evidence nobody found...)."""


@dataclass(frozen=True, kw_only=True)
class Resolution:
    """How a conflict is settled: decisive evidence (``resolved_by``) or a judgment (None)."""

    conflict_id: str
    resolution: str
    resolved_by: str | None = None


def year_asked_resolution(
    conflict: Conflict, question: str, a: EvidenceRecord, b: EvidenceRecord
) -> Resolution | None:
    """The side of the one year the question asks about ("How many pupils did the school have
    in 2015?"): the side whose sentence names that year alone (else whose date is of it),
    when the other's names or is dated another year only; None otherwise. The other side is
    about another year: true then, perhaps, but no answer to the question."""
    asked = set(_YEARS_NAMED.findall(question))
    if len(asked) != 1:
        return None
    year = asked.pop()
    of_year = [side for side in (a, b) if _years_of(side) == {year}]
    if len(of_year) != 1:
        return None
    side = of_year[0]
    other = b if side is a else a
    others = _years_of(other)
    if not others or year in others:
        return None
    text = (
        f"the question asks about {year}: {side.source} speaks of {year}, {other.source} of "
        f"{', '.join(sorted(others))}, so {side.source} answers it"
    )
    return Resolution(conflict_id=conflict.id, resolution=text, resolved_by=side.id)


_STATE = re.compile(r"\b(?:at|in|during|on)\s+(?:the\s+)?([a-z]+)\s+([a-z]+)\b", re.IGNORECASE)
"""A state or condition a figure holds in: "at low water", "in dry weather", "during peak
hours"."""


def _states(text: str) -> set[tuple[str, str]]:
    """The (modifier, noun) of each state ``text`` names (:data:`_STATE`), the modifier a word
    of meaning ("at low water": ("low", "water"); not "at the end")."""
    return {
        (found[1].lower(), found[2].lower())
        for found in _STATE.finditer(text)
        if found[1].lower() not in STOPWORDS and found[2].lower() not in STOPWORDS
    }


def state_asked_resolution(
    conflict: Conflict, question: str, a: EvidenceRecord, b: EvidenceRecord
) -> Resolution | None:
    """The side of the state the question asks about ("How deep is the entrance at low
    water?"): the side whose sentence names it, when the other's names the same thing in
    another state ("At high water the entrance is 9 metres deep") and not the one asked;
    None otherwise. The other side is true, perhaps, of another state: no answer to the
    question."""
    for modifier, noun in sorted(_states(question)):
        named = [side for side in (a, b) if (modifier, noun) in _states(side.text)]
        if len(named) != 1:
            continue
        side = named[0]
        other = b if side is a else a
        elsewhere = sorted(m for m, n in _states(other.text) if n == noun and m != modifier)
        if elsewhere:
            text = (
                f"the question asks about {modifier} {noun}: {side.source} speaks of it, "
                f"{other.source} of {elsewhere[0]} {noun}, so {side.source} answers it"
            )
            return Resolution(conflict_id=conflict.id, resolution=text, resolved_by=side.id)
    return None


def _years_of(side: EvidenceRecord) -> set[str]:
    """The years a side's sentence names, else its date's year."""
    named = set(_YEARS_NAMED.findall(side.text))
    return named or ({side.date[:4]} if side.date else set())


def side_of(
    evidence: EvidenceRecord,
    a: EvidenceRecord,
    b: EvidenceRecord,
    overlap: float = DEFAULT_OVERLAP,
) -> EvidenceRecord | None:
    """The side (``a`` or ``b``) that ``evidence`` upholds, or None: the other document's side
    when it says its own document is out of date ("This page is archived"), the side a
    correction upholds (a notice that another text was wrong or changed upholds what its own
    document states), the side a line on its document's standing upholds (:func:`standing_of`:
    "This page replaces the Guide to ...", "Status: draft", a dated update note), else the
    side it agrees with when it does not agree with the other (not when it tells of a past
    year of the other side's page: "In 2015, there were 118 members.")."""
    nearby = evidence.path is not None and evidence.path in (a.path, b.path)
    if nearby:  # "This page is archived": the other stands
        standing = _standing_side(evidence, a, b)
        if standing or retires_itself(evidence.text) or speaks_of_standing(evidence.text):
            return standing
    corrected = correction_of(evidence.text, a.text, b.text, nearby=nearby)
    if corrected is not None:
        return a if corrected == a.text else b
    if nearby and notice_of_error(evidence.text, a.text, b.text):
        own = [side for side in (a, b) if side.path == evidence.path]
        if len(own) != 1:
            return None
        on_subject = same_subject(evidence.text, own[0].text, _NOTICE_OVERLAP)
        return own[0] if on_subject or _line(own[0]) - _line(evidence) == 1 else None
    return _agreed(evidence, a, b, overlap)


def _agreed(
    evidence: EvidenceRecord, a: EvidenceRecord, b: EvidenceRecord, overlap: float
) -> EvidenceRecord | None:
    """The side ``evidence`` agrees with when it does not agree with the other, unless it
    tells of a past year of the other side's page ("In 2015, there were 118 members."): a
    figure of before, not for now."""
    with_a = evidence.id == a.id or agrees(evidence.text, a.text, overlap)
    with_b = evidence.id == b.id or agrees(evidence.text, b.text, overlap)
    if with_a == with_b:
        return None
    agreed, other = (a, b) if with_a else (b, a)
    own = evidence.path is not None and other.path == evidence.path
    return None if own and PAST_YEAR.match(evidence.text) else agreed


_TITLED = r"^(?:[^:.\n]{1,120}:\s+)?"
PAST_YEAR = re.compile(_TITLED + r"In (1[5-9]\d\d|20\d\d),")
"""A statement of how things were in a year, after its subject's title or not: "In 2015, there
were 118 members.", "Brinkhope rowing club: In 2015, there were 118 members."."""
AS_OF_YEAR = re.compile(_TITLED + r"As of (1[5-9]\d\d|20\d\d),")
"""A statement of how things are as of a year: "As of 2024, there are 164 members."."""


def _earlier_year(evidence: EvidenceRecord, own: EvidenceRecord, other: EvidenceRecord) -> bool:
    """Whether ``evidence``, a line of ``own``'s page, gives the figure ``other`` states as
    the page's figure of a year before the one ``own`` states its figure as of ("In 2015,
    there were 118 members." beside "As of 2024, there are 164 members.", against "The club
    has 118 members."): the other's figure is out of date."""
    past, now = PAST_YEAR.match(evidence.text), AS_OF_YEAR.match(own.text)
    if past is None or now is None or now[1] <= past[1]:
        return False
    figures = [v for v in values_in(evidence.text) if v.kind in ("count", "quantity")]
    stated = [v for v in values_in(other.text) if v.kind in ("count", "quantity")]
    return any(
        one.kind == two.kind and one.key == two.key and values_agree(one, two)
        for one in figures
        for two in stated
    )


_REPLACES_TITLE = re.compile(
    r"\b(?:this|the present|the current)\s+(?:\w+\s+)?(?:page|document|guide|leaflet|"
    r"handbook|edition|version|article|notice|manual|sheet)\s+(?:now\s+)?"
    r"(?:replaces|supersedes|updates|takes the place of)\s+(?P<title>[^.;]{3,120})",
    re.IGNORECASE,
)
_REPLACES_LINE = re.compile(
    r"(?:^|[.;]\s+)\W*(?:supersedes|replaces)\s*:\s*(?P<title>[^.;\n]{2,120})", re.IGNORECASE
)
"""A header naming the document its own replaces: "Supersedes: FSP-118."."""
_FIGURES = r"\s+(?:figures?|results?|data|estimates?|counts?|numbers?|statistics|returns)\b"
_DRAFT_STATUS = re.compile(
    r"^\W*(?:status\s*[:=-]\s*\W*(?:draft|proposed|provisional|unapproved|not approved)\b|"
    r"(?:provisional|preliminary|unaudited|draft|interim)" + _FIGURES + ")",
    re.IGNORECASE,
)
"""A line marking its document a draft: "Status: draft", "Provisional figures for 2022"."""
_FINAL_STATUS = re.compile(
    r"^\W*(?:status\s*[:=-]\s*\W*(?:final|approved|adopted|published)\b|"
    r"(?:final|audited|confirmed)" + _FIGURES + ")",
    re.IGNORECASE,
)
"""A line marking its document final: "Status: final", "Final figures for 2022"."""


def standing_note(text: str, other_title: str) -> str | None:
    """How ``text``, a line of one document, orders it against another titled
    ``other_title``: "replaces" when it says its document replaces that one by its title
    ("This page replaces the Guide to the ferry.", "Supersedes: FSP-118." against a document
    whose reference number is in its title), "draft" when it marks its document a draft
    ("Status: draft, not approved.", "Provisional figures for 2022."), "final" when it marks
    it final ("Status: final", "Final figures for 2022"); None
    when it says none of these. A title that names the other document only in part does not
    count."""
    if _DRAFT_STATUS.search(text):
        return "draft"
    if _FINAL_STATUS.search(text):
        return "final"
    found = _REPLACES_TITLE.search(text) or _REPLACES_LINE.search(text)
    if found is None or not other_title:
        return None
    named = _words(found["title"])
    titles = [_words(part) for part in other_title.split(" > ")]
    return "replaces" if named and any(title == named for title in titles) else None


def speaks_of_standing(text: str) -> bool:
    """Whether ``text`` may order its document against another (:func:`standing_note`, or a
    "Valid until" line: :func:`held_until`)."""
    status = _DRAFT_STATUS.search(text) or _FINAL_STATUS.search(text)
    if status is not None or held_until(text) is not None:
        return True
    return (_REPLACES_TITLE.search(text) or _REPLACES_LINE.search(text)) is not None


def _words(text: str) -> list[str]:
    """The words of a title, lower case, less a leading article."""
    words = re.findall(r"[\w'’-]+", text.lower())
    return words[1:] if words[:1] in (["the"], ["a"], ["an"]) else words


def _standing_side(
    evidence: EvidenceRecord, a: EvidenceRecord, b: EvidenceRecord
) -> EvidenceRecord | None:
    """The side a line of one side's document upholds by its standing: the other when it says
    its own is out of date, else as :func:`standing_of` orders them."""
    if retires_itself(evidence.text):
        others = [side for side in (a, b) if side.path != evidence.path]
        return others[0] if len(others) == 1 else None
    found = standing_of(evidence, a, b)
    return found[1] if found is not None else None


def standing_of(
    evidence: EvidenceRecord, a: EvidenceRecord, b: EvidenceRecord
) -> tuple[str, EvidenceRecord] | None:
    """How a line of one side's document orders the two sides, and the side it upholds:
    "replaces" and "draft" (:func:`standing_note`), or "updated" when it is a dated entry
    saying its document's figure on the subject was updated, later than the other side's
    date, without restating a figure ("2021-05-10: height of the weir updated.", against a
    page published in 2018), or "expired" when it says its document held until a date before
    the other side's ("Valid until 31 March 2020." against a notice valid from 1 April 2020),
    or "earlier" when it gives the other side's figure as its page's figure of an earlier year
    (:func:`_earlier_year`); None when it orders neither."""
    own = [side for side in (a, b) if side.path == evidence.path]
    others = [side for side in (a, b) if side.path != evidence.path]
    if len(own) != 1 or len(others) != 1:
        return None
    if _expired_before(evidence.text, others[0].date):
        return "expired", others[0]
    if _earlier_year(evidence, own[0], others[0]):
        return "earlier", own[0]
    note = standing_note(evidence.text, others[0].title or "")
    if note is None and _updated_since(evidence, own[0], others[0]):
        note = "updated"
    if note in (None, "final"):  # a final status line orders nothing by itself
        return None
    return note, (others[0] if note == "draft" else own[0])


_VALID_UNTIL = re.compile(
    r"^\W*(?:(?:valid|in force|applies|effective|good)\s+(?:until|till|to|through|up to)\s+|"
    r"(?:next\s+)?review\s+due(?:\s+(?:by|on|in))?\W*)(?:the\s+)?",
    re.IGNORECASE,
)
"""A line saying until when its document holds: "Valid until 31 March 2020.", or when it is
due for review ("Next review due: May 2012.": written before then)."""


def held_until(text: str) -> str | None:
    """The date until which ``text`` says its document holds, as an ISO date (a numeric date
    read either way: its later reading), or None."""
    found = _VALID_UNTIL.match(text)
    if found is None:
        return None
    tokens = [token.strip(",;:().") for token in text[found.end() :].split()[:6]]
    read = date_at(tokens, 0) if tokens else None
    if read is None:
        return None
    return max(read[0].readings or (read[0].label,))


def _expired_before(text: str, date: str | None) -> bool:
    """Whether ``text`` says its document held only until a time before ``date`` (all of it:
    "until 2020" does not end before "2020-06")."""
    until = held_until(text)
    if until is None or date is None:
        return False
    return date > until and not date.startswith(until) and not until.startswith(date)


_UPDATED = re.compile(
    r"\b(?:updated|revised|corrected|amended|re-?measured|re-?surveyed)\b", re.IGNORECASE
)
_ENTRY_DATE = re.compile(r"^\W*(?P<date>\d{4}-\d{2}(?:-\d{2})?)\s*[:–—-]\s")
"""A dated entry of a changelog: "2021-05-10: ..."."""


def _updated_since(note: EvidenceRecord, own: EvidenceRecord, other: EvidenceRecord) -> bool:
    """Whether ``note``, a line of ``own``'s document, is an update on ``own``'s subject dated
    after ``other`` (and after ``own``, when dated) that restates no figure."""
    entry = _ENTRY_DATE.match(note.text)
    when = entry["date"] if entry else note.date or stated_date("", note.text)
    if when is None or other.date is None or not _UPDATED.search(note.text):
        return False
    rest = note.text[entry.end() :] if entry else note.text
    if re.search(r"\d", rest if entry else _YEARS.sub("", rest)):
        return False  # it restates a figure: what it says is read as a statement
    months = len(when) >= 7 and len(other.date) >= 7  # a year alone orders only other years
    later = when[:4] > other.date[:4] or (months and when[:7] > other.date[:7])
    own_later = own.date is None or when > own.date
    on_subject = bool(claim_of(note.text).about & claim_of(own.text).about)
    return later and own_later and on_subject


_YEARS = re.compile(
    r"\b(?:\d{1,2}\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"
    r"(?:\s+\d{1,2},?)?\s+\d{4}\b|\b(?:1[5-9]|20)\d\d\b",
    re.IGNORECASE,
)
"""The dates of a sentence, dropped before looking for a figure it restates."""


_NOTICE_OVERLAP = 0.3
"""Content-word overlap at which a notice of an error is about its document's statement (a
notice on the line right before a statement is about it whatever its words)."""


def _line(evidence: EvidenceRecord) -> int:
    """The line ``evidence`` cites (``path:line``), or -1."""
    _, _, line = evidence.source.rpartition(":")
    return int(line) if line.isdigit() else -1


def newer_side(a: EvidenceRecord, b: EvidenceRecord) -> EvidenceRecord | None:
    """The side reporting what the other forecast (:func:`_outcome`); the side stating its
    figure as built against one giving the plans' (:func:`_built_against_planned`), or in the
    present tense against a figure for an opening still to come (:func:`_present_against_plan`);
    the side whose figure holds since a year the other's held until (:func:`_later_by_scope`);
    else the side following the later edition of a standard both name
    (:func:`_later_code_edition`) unless their dates say otherwise; else the more recently
    dated of two pieces of evidence (:func:`_later`); else the undated one that tells, in
    the past tense, of a year after the date in the other's title ("renamed when it was rebuilt
    in 2009" against "Theatre notes, 2004"; not against a sentence of the other's opening "In
    1870", an event, not when it was written); else the later edition of one work (by their
    titles: "third edition", "5th edition", a version in an address: "/v12/" against "/v3/");
    None when none of these orders them. First of all, the side whose own words undermine its
    figure loses (:func:`_undermined`: hearsay, or parts that add up to the other's figure)."""
    undermined = _undermined(a, b) or _misquoting(a, b)
    if undermined is not None:
        return b if undermined is a else a
    if _outcome(a, b, heed_dates=False) is not None:
        return _outcome(a, b)  # None: a forecast dated after its outcome orders nothing
    built = _built_against_planned(a, b) or _present_against_plan(a, b)
    if built is not None:
        return built
    scoped = _later_by_scope(a, b) or _with_later_addition(a, b)
    if scoped is not None:
        return scoped
    by_code = _later_code_edition(a, b)
    if a.date is not None and b.date is not None and a.date != b.date:
        by_date = _later(a, b)
        return by_date if by_code in (None, by_date) else None
    return by_code or _told_since_or_edition(a, b)


def order_reason(newer: EvidenceRecord, older: EvidenceRecord) -> str | None:
    """Why :func:`newer_side` put ``newer`` over ``older`` when their words, not their dates,
    order them ("reports the outcome of what ... forecast"), else None."""
    if _undermined(newer, older) is older:
        return _undermining(older, newer)
    if _misquoting(newer, older) is older:
        return f"is the source {older.source} names for its figure"
    worded = {
        "reports the outcome of what {} forecast": _outcome,
        "counts an addition made after {} was dated": _with_later_addition,
        "states the figure as built where {} gives the one planned": _built_against_planned,
        "states the present figure where {} gives one for an opening still to come": (
            _present_against_plan
        ),
        "states the figure since the time {} gives its figure until": _later_by_scope,
    }
    for reason, order in worded.items():
        if order(newer, older) is newer:
            return reason.format(older.source)
    if _later_code_edition(newer, older) is newer:
        codes = code_editions(f"{newer.title or ''}\n{newer.text}")
        named = ", ".join(f"{code}:{year}" for code, year in codes.items())
        return f"follows a later edition of the standard ({named})"
    return None


def _undermining(older: EvidenceRecord, newer: EvidenceRecord) -> str:
    """How ``older``'s own words undermine its figure (:func:`_undermined`)."""
    reasons = (
        (_HEARSAY.search(older.text), "states a finding where {} repeats hearsay"),
        (_UNSOURCED.search(older.text), "states a finding where {} is tagged as unsourced"),
        (qualifier := _qualifier(older), qualifier or ""),
        (_of_a_part(older, newer), "states the whole's figure where {} gives a part's"),
        (_SAMPLED.search(older.text), "counts in full where {} estimates from a sample"),
        (
            _misconverted(older.text),
            "states a figure its own conversion agrees with, where {}'s does not",
        ),
        (_court_below(older, newer), "states the award on appeal where {} gives the court below's"),
        (
            _smaller_poll(older, newer),
            "states the share of the larger poll where {} asked far fewer",
        ),
    )
    reason = next((words for held, words in reasons if held), None)
    return (reason or "states the figure the parts {} lists add up to").format(older.source)


def _told_since_or_edition(a: EvidenceRecord, b: EvidenceRecord) -> EvidenceRecord | None:
    """The undated side telling of a year after the other's titled date, else the later
    edition of one work by their titles (:func:`newer_side`)."""
    for side, other in ((a, b), (b, a)):
        since = written_since(side.text) if side.date is None else None
        titled = other.date is not None and other.date[:4] in (other.title or "")
        if since is not None and titled and since > int(str(other.date)[:4]):
            return side
    editions = _releases(a.title or "", b.title or "")
    if editions is None:
        return None
    (rank_a, work_a), (rank_b, work_b) = editions
    if work_a != work_b or rank_a == rank_b:
        return None
    return a if rank_a > rank_b else b


_STAGE = re.compile(
    r"(?<=\d)(?:\s?[-.]?(?P<stage>rc|beta|alpha|pre|preview|post|dev)[-.]?(?P<number>\d{0,3})|"
    r"(?P<letter>a|b|c)(?P<count>\d{1,3}))\b",
    re.IGNORECASE,
)
"""A release's stage after its version: a development or pre-release ("4.0.dev2", "4.0-rc1",
"2.1 beta", "3.0.alpha2", "2.1a1"), or a post-release ("2.1.post1")."""
_STAGE_RANKS = {"dev": 0, "a": 1, "alpha": 1, "b": 2, "beta": 2, "c": 3, "rc": 3, "pre": 3}
_STAGE_RANKS |= {"preview": 3, "post": 5}
_FINAL = 4
"""The rank of the version itself: after its pre-releases, before its post-releases."""


def _releases(
    first: str, second: str
) -> tuple[tuple[tuple[int, ...], str], tuple[tuple[int, ...], str]] | None:
    """The editions two titles name (:func:`_edition`), ranked so that a pre-release of a
    version ("edition 4.0-rc1") comes before the version itself ("edition 4.0") and after the
    one before it, and a post-release ("release 2.1.post1") after the version; None when
    either names none."""
    tags = [_STAGE.search(title) for title in (first, second)]
    one, two = (_edition(_STAGE.sub("", title, count=1)) for title in (first, second))
    if one is None or two is None:
        return None
    if tags == [None, None]:
        return one, two
    width = max(len(one[0]), len(two[0]))
    return _ranked(one, tags[0], width), _ranked(two, tags[1], width)


def _ranked(
    edition: tuple[tuple[int, ...], str], tag: re.Match[str] | None, width: int
) -> tuple[tuple[int, ...], str]:
    """An edition's parts padded to ``width``, then its stage's rank and number (the version
    itself: :data:`_FINAL`, 0)."""
    parts, work = edition
    stage = (_FINAL, 0)
    if tag is not None:
        name = (tag["stage"] or tag["letter"]).lower()
        stage = (_STAGE_RANKS[name], int(tag["number"] or tag["count"] or 0))
    return (*parts, *[0] * (width - len(parts)), *stage), work


_FORECAST = re.compile(
    r"\b(?:(?:is|are|was|were)\s+(?:expected|forecast|projected|predicted|anticipated|likely|"
    r"set|tipped|due)\s+to|will)\s+(?P<verb>[a-z]+)\b",
    re.IGNORECASE,
)
_YEARS_NAMED = re.compile(r"\b(?:1[5-9]|20)\d\d\b")


def _outcome(
    a: EvidenceRecord, b: EvidenceRecord, *, heed_dates: bool = True
) -> EvidenceRecord | None:
    """The side that reports in the past tense what the other forecast ("drew 52,000
    visitors" against "is expected to draw 40,000 visitors"), of the same event: both name the
    same years, or neither does and the forecast is dated before the report; a forecast dated
    after the report orders nothing (unless not ``heed_dates``)."""
    for side, other in ((a, b), (b, a)):
        forecast = _FORECAST.search(other.text)
        if forecast is None or _FORECAST.search(side.text):
            continue
        verb = lemma(forecast["verb"].lower())
        done = {verb + "ed", verb + "d", verb[:-1] + "ied"}
        words = re.findall(r"[a-z]+", side.text.lower())
        if not any(word in done or (word != verb and lemma(word) == verb) for word in words):
            continue
        years = set(_YEARS_NAMED.findall(side.text)), set(_YEARS_NAMED.findall(other.text))
        dated = other.date is not None and side.date is not None
        earlier = dated and str(other.date) < str(side.date)
        later = heed_dates and dated and str(other.date) > str(side.date)
        if years[0] == years[1] and (years[0] or earlier) and not later:
            return side
    return None


_BUILT = re.compile(
    r"\bas\s+(?:built|completed|constructed|finished|opened)\b|\bwhen\s+(?:it\s+was\s+)?"
    r"(?:built|completed|finished)\b",
    re.IGNORECASE,
)
_PLANNED = re.compile(
    r"\b(?:original|initial|first|early|draft)\s+(?:plans?|designs?|drawings?|proposals?|"
    r"schemes?|specifications?)\b|\b(?:was|were|had\s+been)\s+(?:planned|designed|proposed)"
    r"\s+(?:to|with|for)\b",
    re.IGNORECASE,
)
"""What a work was planned to be: "The original plans show 12 arches"."""


def _built_against_planned(a: EvidenceRecord, b: EvidenceRecord) -> EvidenceRecord | None:
    """The side stating its figure as built ("As built, the viaduct has 14 arches") against
    one giving the figure of the plans ("The original plans show 12 arches"); None when
    neither or both speak so."""
    for side, other in ((a, b), (b, a)):
        built = _BUILT.search(side.text) and not _PLANNED.search(side.text)
        if built and _PLANNED.search(other.text) and not _BUILT.search(other.text):
            return side
    return None


_PLAN = re.compile(
    r"\bwill\s+(?:have|be|hold|seat|house|take|serve|run|make|carry|employ|reach)\b"
    r"[^.;!?]{0,80}?\b(?:once|when|after|as\s+soon\s+as)\b[^.;!?]{0,80}?\b(?:opens?|is\s+"
    r"(?:built|opened|finished|completed|ready)|comes?\s+into\s+(?:use|service))\b"
    r"[^.;!?]{0,20}?\b(?:in\s+)?(?P<year>20\d\d)\b",
    re.IGNORECASE,
)
"""A figure for when something not yet open opens: "will have 620 pupils once the new wing
opens in 2031"."""


_MODAL = re.compile(r"\b(?:will|would|shall|could|may|might|once)\b", re.IGNORECASE)


def _present_against_plan(a: EvidenceRecord, b: EvidenceRecord) -> EvidenceRecord | None:
    """The side stating its figure in the present tense against one giving the figure for
    when something opens in a year still to come (:data:`_PLAN`): the plan is not yet the
    figure; None when neither or both speak so."""
    for side, other in ((a, b), (b, a)):
        plan = _PLAN.search(other.text)
        if plan is None or int(plan["year"]) <= date.today().year or _PLAN.search(side.text):
            continue
        if not _MODAL.search(side.text) and not _PAST.search(side.text):
            return side
    return None


_YEAR_OF = r"[^.;:!?]{0,80}?\b(1[5-9]\d\d|20\d\d)\b"
_UNTIL = re.compile(r"\b(?:before|until|till|prior to)\b" + _YEAR_OF, re.IGNORECASE)
_SINCE = re.compile(
    r"\b(?:since|after|as of|from(?=\s+(?:\w+\s+)?(?:1[5-9]|20)\d\d\b))\b" + _YEAR_OF,
    re.IGNORECASE,
)


def _later_by_scope(a: EvidenceRecord, b: EvidenceRecord) -> EvidenceRecord | None:
    """The side whose figure holds since a year, against one whose figure held until it or
    an earlier one ("Since its gallery was taken out in 2019, it seats 260" against "320 seats
    (before the gallery was taken out in 2019)"), or the side stating its figure in the present
    tense, undated or dated since that year, against one that held in the past tense until a
    year ("has 10 lanes" against "had 8 lanes until it was rebuilt in 2021"); None when neither
    or both are scoped so."""
    for side, other in ((a, b), (b, a)):
        since = [int(year) for year in _SINCE.findall(side.text)]
        until = [int(year) for year in _UNTIL.findall(other.text)]
        clean = not _UNTIL.search(side.text) and not _SINCE.search(other.text)
        if since and until and clean and min(since) >= max(until):
            return side
        if until and clean and not since and _now_against_then(side, other, max(until)):
            return side
    return None


_PAST = re.compile(r"\b(?:had|was|were|used to)\b", re.IGNORECASE)
_PRESENT = re.compile(r"\b(?:has|have|is|are)\b", re.IGNORECASE)


def _now_against_then(side: EvidenceRecord, other: EvidenceRecord, until: int) -> bool:
    """Whether ``side`` states its figure in the present tense (none of it in the past), not
    dated before ``until``, and ``other`` states its own in the past tense before its "until"."""
    bound = _UNTIL.search(other.text)
    past = bound is not None and _PAST.search(other.text[: bound.start()]) is not None
    present = _PRESENT.search(side.text) is not None and _PAST.search(side.text) is None
    return past and present and (side.date is None or int(str(side.date)[:4]) >= until)


_HEARSAY = re.compile(
    r"\b(?:(?:local\s+|popular\s+)?(?:legend|lore|folklore|tradition|rumou?r|hearsay|gossip)"
    r"\s+(?:has\s+it|says|holds|claims|tells|goes)|according\s+to\s+(?:local\s+)?(?:legend|"
    r"folklore|tradition|rumou?r|hearsay)|(?:is|are|was|were)\s+(?:said|rumou?red|reputed)\s+to|"
    r"reputedly|allegedly|supposedly|"
    r"(?:a|my)\s+(?:mate|friend|pal|cousin|neighbou?r|colleague)\s+(?:of\s+mine\s+)?"
    r"(?:\w+\s+){0,8}?(?:reckons|reckoned|says|said|told\s+me|swears|thinks)|"
    r"(?:i|we)\s+(?:heard|was\s+told|were\s+told)\s+(?:that|from)|"
    r"(?:going|writing|working|quoting|speaking)\s+(?:\w+\s+){0,2}?from\s+memory|"
    r"(?:have|has|had)\s+not\s+(?:been\s+)?(?:checked|verified|confirmed)|"
    r"if\s+(?:i\s+)?(?:remember|recall)\s+(?:rightly|correctly)|if\s+memory\s+serves|"
    r"off\s+the\s+top\s+of\s+my\s+head)\b",
    re.IGNORECASE,
)
"""Words that pass a figure on as hearsay or unchecked: "Local legend has it that ...", "is
said to be", "a mate of mine who drives out there reckons ...", "I am going from memory here
and have not checked"."""
_UNSOURCED = re.compile(
    r"\[\s*(?:(?:citation|source|verification|reference)\s+needed|dubious(?:\s*[-–]\s*discuss)?|"
    r"unverified|unreliable source\??|not in citation given)\s*\]",
    re.IGNORECASE,
)
"""An editor's tag that a figure is unsourced or doubted: "[citation needed]", "[dubious]"."""
_SAMPLED = re.compile(
    r"\b(?:(?:one|1)[- ]in[- ](?:\w+|\d+)|a\s+(?:random\s+)?sample|sampled?|sampling)\b"
    r"[^.;!?]{0,120}?\b(?:estimated|extrapolated|scaled\s+up|projected)\b|\b(?:estimated|"
    r"extrapolated|scaled\s+up)\b[^.;!?]{0,80}?\b(?:from|on)\s+(?:a|an|the)\s+"
    r"(?:\w+[- ])*sample\b",
    re.IGNORECASE,
)
"""A figure estimated from a sample: "From a one-in-ten sample ..., it is estimated to have"."""
_COUNTED_ALL = re.compile(
    r"\b(?:(?:door-to-door|full|complete|house-to-house)\s+(?:count|census|survey)|"
    r"(?:count|census|survey)\s+of\s+(?:every|each|all)\b)",
    re.IGNORECASE,
)
"""A figure counted in full: "A door-to-door count of every street found"."""
_LISTING = re.compile(r"[:(—]|\s[-–]\s")
"""Where a total ends and the list of its parts begins."""


_UNREALISED = re.compile(
    r"\bwould\s+(?:have\s+)?(?:been|had|held|reached|measured|stood|run|cost|numbered)\b"
    r"[^.;!?]*$|^[^.;!?]*\bhad\s+(?:\w+\s+){1,5}?not\b[^.;!?]*,[^.;!?]*\bwould\s+have\b|"
    r"\b(?:I|we)\s+(?:only\s+)?wish(?:ed)?\b[^.;!?]*\b(?:were|had\s+been|could\s+be)\b|"
    r"\bif\s+only\b[^.;!?]*\bwere\b",
    re.IGNORECASE,
)
"""A figure that never came to be: "Had the money not run out, the dam would have been 58
metres high", "I wish the pool were 50 metres long"."""
_PROVISIONAL = re.compile(
    r"\btemporar(?:y|ily)\b|\bfor\s+(?:the\s+)?(?:week|weekend|fortnight|month|day|days|season|"
    r"summer|winter|duration|length|period|course)\s+of\b[^.;!?]{0,80}?\bonly\b|"
    r"\bwhile\s+(?:the\s+)?(?:[\w-]+\s+){0,2}?(?:works?|repairs?|closure|construction|"
    r"refurbishment|renovation|resurfacing|roadworks)\s+(?:run|runs|ran|last|lasts|lasted|are|"
    r"were|is|was|go|goes|went|continue|continues|continued)\b|\bduring\s+(?:the\s+)?"
    r"(?:[\w-]+\s+){0,2}?(?:works|repairs|closure|refurbishment|renovation|resurfacing)\b",
    re.IGNORECASE,
)
"""A figure that held for a while only: "For the week of the 2019 regatta only, the pontoon was
extended to 90 metres", "While the resurfacing works run, ... has 80 spaces"."""
_PROMOTIONAL = re.compile(
    r"\b(?:advertisement|advertorial|sponsored\s+(?:content|post|feature)|promotional|"
    r"sales\s+(?:brochure|leaflet|literature|pack)|marketing\s+(?:brochure|material|copy)|"
    r"brought\s+to\s+you\s+by)\b",
    re.IGNORECASE,
)
"""A source that sells what it describes: an advertisement, a sales brochure."""
_COUNTS_LOST = re.compile(
    r"\b(?:counting|including|includes|with)\s+(?:the\s+)?(?:[\w-]+\s+){0,4}?"
    r"(?:(?:that|which)\s+(?:were|was|have\s+been|has\s+been)\s+)?(?:since\s+)?"
    r"(?:pulled\s+down|demolished|destroyed|torn\s+down|burnt\s+down|burned\s+down|lost|gone)\b",
    re.IGNORECASE,
)
"""A count that takes in things no longer there: "14 windmills, counting the two pulled down in
1990"."""
_ONE_OCCASION = re.compile(
    r"\brecord\s+(?:crowd|attendance|gate|turnout|audience|number\s+of\s+visitors)\b",
    re.IGNORECASE,
)
"""A figure of one occasion, not of the thing: "a record crowd of 18,400 squeezed onto the
terraces"."""
_RATE = re.compile(
    r"\bper\s+(?:[\d,]+\s+|a\s+|one\s+)?(?:thousand|hundred|million|residents|inhabitants|"
    r"people|persons|head|capita|households|pupils|adults)\b",
    re.IGNORECASE,
)
"""A rate, not a count: "12 public libraries per 100,000 residents"."""
_YEAR_SPAN = r"(?:1[5-9]\d\d|20\d\d)\s*(?:and|to|-|–|through)\s*(?:1[5-9]\d\d|20\d\d)\b"
_SPAN_TOTAL = re.compile(
    rf"\b{_YEAR_SPAN}[^.;!?]{{0,30}}?\b(?:together|combined|in\s+total|in\s+all)\b"
    rf"|\b(?:together|combined|in\s+total|in\s+all)\b[^.;!?]{{0,20}}?\b{_YEAR_SPAN}",
    re.IGNORECASE,
)
"""A total over several years: "Over 2021 and 2022 together, the lido welcomed 86,000"."""
_OF_A_CLASS = re.compile(
    r"\bon\s+average\b|\ban\s+average\s+of\b|\b[a-z]+s\s+(?:of|on|in|along)\s+this\s+"
    r"(?:pattern|type|class|kind|design|model|series|coast|region|district|line)\b",
    re.IGNORECASE,
)
"""A figure for a class the thing belongs to: "towers of this pattern were built about 10 metres
tall", "the lighthouses on this coast have 160 steps on average"."""
_RUNNING_TALLY = re.compile(
    r"\b(?:so\s+far|thus\s+far|at\s+the\s+latest\s+count|running\s+total)\b|^\W*live\b",
    re.IGNORECASE | re.MULTILINE,
)
"""A count while the event still runs: "11:40 So far, 1,260 runners have crossed the line", a
live blog's page."""
_AIMED = re.compile(
    r"\b(?:aims?|aimed|aiming|plans?|planned|planning|intends?|intended|intending|hopes?|"
    r"hoped|hoping|pledges?|pledged|promises?|promised|sets?\s+out)\s+to\b|\b(?:target|goal|"
    r"ambition|aim)\s+(?:is|was|of)\b|\b(?:sets?|allocates?|approved?)\s+(?:a|an|the)\s+"
    r"budget\b|\bbudget(?:ed)?\s+(?:of|at)\b",
    re.IGNORECASE,
)
"""A figure aimed at, not reached: "The trust aims to have planted 5,000 trees by 2030", "The
capital plan sets a budget of £2.1 million for building the library"."""
_UNRELEASED = re.compile(r"\bunreleased\b|\bnot\s+yet\s+released\b", re.IGNORECASE)
"""A change not yet released: an entry under a changelog's "Unreleased" heading."""
_DISSENTING = re.compile(
    r"\bdissent(?:ing|ed|s)?\b|\bwould\s+have\s+(?:found|held|ruled|allowed|dismissed)\b",
    re.IGNORECASE,
)
"""A dissenting opinion, not the court's finding: "Lady Justice Fenwick, dissenting, would have
found that ..."."""
_BUG_REPORTED = re.compile(r"\(in a bug report\)")
"""A figure a bug report says the software wrongly gave (a closed issue labelled a bug)."""
_WRONG_ONLY = re.compile(r"\(in a thread of wrong answers only\)")
"""A figure of a thread that asked for wrong answers only."""
_SARCASTIC = re.compile(r"\(said as sarcasm\)")
"""A figure of a post tagged as sarcasm ("/s")."""
_DRILL = re.compile(r"\(in a drill's invented scenario\)")
"""A figure of an exercise's scenario ("EXERCISE EXERCISE EXERCISE")."""
_FROM_NAME = re.compile(
    r"\b(?:as|like)\s+(?:its|their|the)\s+name\s+(?:says|suggests|implies|tells\s+you)\b"
    r"(?=[^.!?]*\b(?-i:One|Two|Three|Four|Five|Six|Seven|Eight|Nine|Ten|Eleven|Twelve|Twenty|"
    r"Thirty|Forty|Fifty|Hundred|Thousand|Million)\b)",
    re.IGNORECASE,
)
"""A figure read off a number in the thing's name: "As its name says, the Hundred Steps has 100
steps" (not "As its name suggests, `max_retries` caps retries at 5")."""
_SAMPLE = re.compile(
    r"^\W*(?:sample|example|dummy|placeholder|template)(?:\s+[a-z]+)?\s*:|\bplaceholders?\b",
    re.IGNORECASE | re.MULTILINE,
)
"""A sample to be replaced, not a finding: "Sample entry: The lighthouse has 100 steps"."""
_UNMAINTAINED = re.compile(r"\(in a release no longer maintained\)")
"""A figure of a page whose banner says its release is no longer maintained (the mark
:func:`~teams.language.outdated.drop_outdated` gives it)."""
_PARODY = re.compile(r"\(says a parody account\)|\bparody\s+account\b", re.IGNORECASE)
"""A figure of an account that says it is a parody."""
_DISCLAIMED = re.compile(r"\(its page says it may be inaccurate\)")
"""A figure of a page whose footer says its answers may be inaccurate (an AI assistant's, an OCR
text not proofread)."""
_NOT_ADOPTED = re.compile(r"\(in a proposal not adopted\)")
"""A figure a proposal gave that was not adopted ("Closed without merging")."""
_VANDALISED = re.compile(r"\(in an edit reverted as vandalism\)")
"""A figure of an edit reverted as vandalism."""
_ALLEGED = re.compile(
    r"\b(?:claimant|defendant|plaintiff|applicant|appellant|respondent|complainant|petitioner|"
    r"prosecution|defence|defense|accused)\s+(?:alleges?|alleged|claims?|claimed|says|said|"
    r"contends?|contended|asserts?|asserted|argues?|argued|maintains?|maintained)\s+that\b",
    re.IGNORECASE,
)
"""A party's claim in a dispute: "The claimant alleges that ..."."""
_UNCONFIRMED = re.compile(
    r"\bnot\s+(?:yet\s+)?(?:ratified|confirmed|verified|certified|validated|official)\b|"
    r"\b(?:unratified|unconfirmed|unverified)\b|\bpending\s+(?:ratification|confirmation|"
    r"verification|certification)\b",
    re.IGNORECASE,
)
"""A figure its source says is not yet confirmed: "The time is not yet ratified"."""
_NOMINAL = re.compile(r"\bnominal(?:ly)?\b", re.IGNORECASE)
"""A size in name only: "a nominal 150 mm pipe"."""
_TEST_SYSTEM = re.compile(
    r"\b(?:staging|sandbox|pre-?production)\b|\b(?:test|testing|development|dev|QA)\s+"
    r"(?:environment|cluster|server|instance|system|site)\b",
    re.IGNORECASE,
)
"""A figure of a test system, not the live one: "On the staging cluster, ..."."""
_VOIDED = re.compile(
    r"\b(?:was|were|been|is|are)\s+(?:later\s+|subsequently\s+|then\s+|since\s+)?"
    r"(?:disqualified|rejected|annulled|voided|overturned|rescinded|withdrawn|struck\s+(?:off|"
    r"out)|disallowed|turned\s+down)\b|\bnot\s+to\s+scale\b|\b(?:runner-up|losing|"
    r"unsuccessful|rejected)\s+(?:entry|bid|design|tender|proposal|offer)\b",
    re.IGNORECASE,
)
"""A figure its own source says was set aside: "finished in 1:47:15 but was later
disqualified", "The bid of £310,000 ... was rejected", a map "Not to scale", "The runner-up
entry ... proposed a spire 90 metres tall"."""
_PROTOTYPE = re.compile(
    r"\b(?:prototypes?|concept\s+(?:car|model|version|design)|mock-?ups?|pre-?production|"
    r"pilot\s+(?:model|unit|version))\b",
    re.IGNORECASE,
)
"""A prototype's figure, not the finished thing's: "The prototype ... reached 104 km/h"."""
_APPARENT = re.compile(
    r"\b(?:felt|feels?|feeling)\s+like\b|\bwind[\s-]?chill\b|\bheat\s+index\b|"
    r"\b(?:apparent|perceived|real[\s-]?feel)\s+temperature\b|"
    r"\bmust\s+(?:be|have\s+been)\s+(?:a|an|about|over|nearly|at\s+least)?\s*(?:hundred|"
    r"thousand|million|billion|zillion|gazillion)s?\b[^.?!]*!",
    re.IGNORECASE,
)
"""How a figure felt, not what was measured: "With the wind chill, it felt like -14 °C",
"There must be a thousand steps up to the chapel!"."""
_UNCALIBRATED = re.compile(
    r"\bcalibration\s+(?:certificate\s+|check\s+|seal\s+)?(?:had\s+|has\s+)?(?:expired|lapsed|"
    r"run\s+out)\b|\b(?:uncalibrated|out\s+of\s+calibration|not\s+(?:been\s+)?calibrated)\b",
    re.IGNORECASE,
)
"""A figure read off an instrument its source says was out of calibration: "The weighbridge's
calibration certificate had expired three years earlier"."""
_MARKED_WRONG = re.compile(r"[\u2717\u2718\u274c]|\(\s*(?:wrong|incorrect)\s*\)", re.IGNORECASE)
"""A figure marked wrong by whoever checked it: "... has 14 arches. \u2717", "(incorrect)"."""
_QUERIED = re.compile(r"\d[\w,.]*\s*\(\s*\?\s*\)|\d\s*\?(?=[\s.,;)]|$)")
"""A figure its own source queries: "built in 1798 (?)", "1798?"."""
_ONLY_ASKED = re.compile(
    r"(?:^|[.!?:]\s+|\*\*\s*)(?:is\s+it\s+true\s+that\b|(?:is|are|was|were|does|do|did|has|"
    r"have|can|could|will|would|should)\s+(?:[\w'-]+\s+){1,8}?)[^.!?\n]*\d[^.!?\n]*\?",
    re.IGNORECASE,
)
"""A figure asked about, never asserted: "Is it true that the lighthouse is 52 metres tall?",
"Is Hawsby pier really 600 metres long?"."""
_OTHERS_FIGURE = re.compile(
    r"\bthan\s+(?:the|a|an|its|their|this|that)\s+(?:[\w'-]+\s+){0,2}?[£$€]?\d[\d,.]*"
    r"(?:[\s-]?[a-z]+)?\s+[\w'-]",
    re.IGNORECASE,
)
"""A figure of the thing another is compared with: "longer than the 300-metre Coombe viaduct"."""
_DOWNVOTED = re.compile(r"\bscore\s*:?\s*[-−–]\s?\d+\b", re.IGNORECASE)
"""An answer its readers voted down: "Answer (score: -6)"."""
_PART_OF = re.compile(
    r"\b(?:[Tt]he|[Ii]ts)\s+(?P<part>(?:[a-z][\w-]*\s+){0,3}?[a-z][\w-]*)\s+(?:of|at|on|in)\s+"
    r"the\s+(?P<whole>[A-Z][\w-]*)"
)
"""A figure's subject named as a part of another thing: "the main span of the Corvey bridge",
"the east stand at the Holmfirth Road ground"."""
_MEASURES = frozenset(
    """length height depth width breadth size area volume capacity number total count cost
    price weight population span-length distance""".split()
)
"""Nouns that name a measure of a thing, not a part of it ("the length of the bridge")."""


def _of_a_part(side: EvidenceRecord, other: EvidenceRecord) -> bool:
    """Whether ``side`` gives its figure for a part of the thing ``other`` gives its figure for
    ("Between its two towers, the main span of the Corvey bridge is 130 metres long" against
    "The Corvey bridge is 520 metres long"): ``other`` names that thing as its subject, and not
    the part ("the galleries of the museum" against "The museum has four galleries" count one
    thing)."""
    others = {stem(word) for word in keywords(other.text)}
    for found in _PART_OF.finditer(side.text):
        words = found["part"].split()
        opens = re.match(rf"\W*(?:[Tt]he\s+)?{re.escape(found['whole'])}\b", other.text)
        named = others.intersection(map(stem, keywords(found["part"])))  # both count it
        if opens and not named and not _MEASURES.intersection(words):
            return True
    return False


def _one_sided(
    a: EvidenceRecord, b: EvidenceRecord, trait: Callable[[EvidenceRecord], bool]
) -> EvidenceRecord | None:
    """The one of ``a`` and ``b`` that has ``trait``, when only one has it."""
    held = (trait(a), trait(b))
    return (a if held[0] else b) if held[0] != held[1] else None


_QUALIFIERS: tuple[tuple[re.Pattern[str], bool, str], ...] = (
    (_UNREALISED, False, "states the figure where {} gives one never reached"),
    (_PROVISIONAL, False, "states the standing figure where {} gives a while's"),
    (_PROMOTIONAL, True, "states a finding where {} is an advertisement"),
    (_COUNTS_LOST, False, "states the count of what stands where {} counts what is gone"),
    (_ONE_OCCASION, False, "states the thing's figure where {} gives one occasion's"),
    (_RATE, False, "states a count where {} gives a rate"),
    (_SPAN_TOTAL, False, "states one year's figure where {} gives a total of several"),
    (_OF_A_CLASS, False, "states the thing's own figure where {} gives its class's"),
    (_AIMED, False, "states the figure reached where {} gives one aimed at"),
    (_SAMPLE, False, "states a finding where {} gives a sample to be replaced"),
    (_RUNNING_TALLY, True, "states the final figure where {} gives a tally while it ran"),
    (_DOWNVOTED, True, "states a finding where {} is an answer its readers voted down"),
    (_UNMAINTAINED, False, "states the current figure where {} gives an old release's"),
    (_PARODY, True, "states a finding where {} is a parody account's"),
    (_DISCLAIMED, False, "states a finding where {} is on a page that says it may be wrong"),
    (_NOT_ADOPTED, False, "states the figure in force where {} gives a proposal not adopted"),
    (_VANDALISED, False, "states a finding where {} gives an edit reverted as vandalism"),
    (_WRONG_ONLY, False, "states a finding where {} answers a thread of wrong answers only"),
    (_SARCASTIC, False, "states a finding where {} says it as sarcasm"),
    (_DRILL, False, "states a finding where {} gives a drill's invented scenario"),
    (_FROM_NAME, False, "states the counted figure where {} reads it off the name"),
    (_BUG_REPORTED, False, "states the intended figure where {} reports a bug"),
    (_UNRELEASED, True, "states the released figure where {} gives one not yet released"),
    (_DISSENTING, True, "states the court's finding where {} gives a dissenting opinion"),
    (_ALLEGED, False, "states a finding where {} gives a party's claim"),
    (_UNCONFIRMED, False, "states the confirmed figure where {} gives one not yet confirmed"),
    (_NOMINAL, False, "states the actual figure where {} gives a nominal one"),
    (_TEST_SYSTEM, True, "states the live system's figure where {} gives a test system's"),
    (_APPARENT, False, "states the measured figure where {} gives how it felt"),
    (_VOIDED, False, "states the figure that stands where {} gives one set aside"),
    (_PROTOTYPE, False, "states the finished thing's figure where {} gives a prototype's"),
    (
        _UNCALIBRATED,
        False,
        "states a calibrated figure where {} gives one off an instrument out of calibration",
    ),
    (_MARKED_WRONG, False, "states a finding where {} gives a figure marked wrong"),
    (_QUERIED, False, "states a finding where {} queries its own figure"),
    (_ONLY_ASKED, False, "states a finding where {} only asks about a figure"),
    (
        _OTHERS_FIGURE,
        False,
        "states the thing's own figure where {} gives the figure of what it is compared with",
    ),
)
"""Words that qualify a side's figure against a plain one (see :func:`_qualified`): the
pattern, whether the side's title counts too, and how the verdict says so."""


def _holds(pattern: re.Pattern[str], titled: bool, side: EvidenceRecord) -> bool:
    """Whether ``side``'s words (and, ``titled``, its title) hold ``pattern``."""
    return pattern.search(f"{side.title}\n{side.text}" if titled else side.text) is not None


def _qualifier(side: EvidenceRecord) -> str | None:
    """How ``side``'s own words qualify its figure (see :data:`_QUALIFIERS`), or None."""
    return next(
        (words for pattern, titled, words in _QUALIFIERS if _holds(pattern, titled, side)), None
    )


def _qualified(a: EvidenceRecord, b: EvidenceRecord) -> EvidenceRecord | None:
    """The side whose figure its own words qualify, against a plain one: it never came to be
    (:data:`_UNREALISED`), it held for a while only (:data:`_PROVISIONAL`), its source sells
    the thing (:data:`_PROMOTIONAL`, in its title or words), it counts things no longer there
    (:data:`_COUNTS_LOST`), it is one occasion's (:data:`_ONE_OCCASION`), a rate
    (:data:`_RATE`), a total over several years (:data:`_SPAN_TOTAL`), a class's
    (:data:`_OF_A_CLASS`), an aim (:data:`_AIMED`), a sample to be replaced (:data:`_SAMPLE`),
    a tally while the event runs (:data:`_RUNNING_TALLY`), an answer
    voted down (:data:`_DOWNVOTED`), an old release's (:data:`_UNMAINTAINED`), a parody's
    (:data:`_PARODY`), on a page that says it may be wrong (:data:`_DISCLAIMED`), a proposal's
    not adopted (:data:`_NOT_ADOPTED`), an edit reverted as vandalism (:data:`_VANDALISED`), a
    wrong answer asked for (:data:`_WRONG_ONLY`), a bug reported (:data:`_BUG_REPORTED`), not
    yet released (:data:`_UNRELEASED`), a dissent (:data:`_DISSENTING`), a
    party's claim (:data:`_ALLEGED`), not yet confirmed (:data:`_UNCONFIRMED`), a nominal size
    (:data:`_NOMINAL`), a test system's (:data:`_TEST_SYSTEM`), how it felt
    (:data:`_APPARENT`), set aside (:data:`_VOIDED`), a prototype's (:data:`_PROTOTYPE`), or
    it is a part's figure (see
    :func:`_of_a_part`); None
    otherwise. The first qualifier of :data:`_QUALIFIERS` one side has and the other lacks
    decides."""
    for pattern, titled, _ in _QUALIFIERS:
        if (found := _one_sided(a, b, partial(_holds, pattern, titled))) is not None:
            return found
    parts = (_of_a_part(a, b), _of_a_part(b, a))
    return (a if parts[0] else b) if parts[0] != parts[1] else None


def _undermined(a: EvidenceRecord, b: EvidenceRecord) -> EvidenceRecord | None:
    """The side whose own words undermine its figure against the other's, or None: it passes
    its figure on as hearsay and the other does not ("Local legend has it that the well is 90
    feet deep" against "The surveyors measured the well at 62 feet deep"), it estimates its
    figure from a sample where the other counted in full, the parts it
    lists add up to the other's figure, not to its own total ("40 cottages: 25 in the village
    and 21 on the hill" against "46 cottages"), or the layout it gives multiplies to it ("150
    seats, set out in 12 rows of 15" against "180 seats"), or its figure's own conversion in
    brackets gives another measure ("43 metres (112 feet)" against "34 metres (112 feet)"), or
    it gives a day the calendar does not have ("31 April 2017")."""
    hearsay = [bool(_HEARSAY.search(side.text) or _UNSOURCED.search(side.text)) for side in (a, b)]
    if hearsay[0] != hearsay[1]:
        return a if hearsay[0] else b
    if (qualified := _qualified(a, b)) is not None:
        return qualified
    sampled = [bool(_SAMPLED.search(side.text)) for side in (a, b)]
    counted = [bool(_COUNTED_ALL.search(side.text)) for side in (a, b)]
    if sampled[0] != sampled[1] and counted[0] != counted[1] and sampled[0] == counted[1]:
        return a if sampled[0] else b
    summed = [
        side
        for side, other in ((a, b), (b, a))
        if _parts_give(side.text, other.text) or _layout_gives(side.text, other.text)
    ]
    if len(summed) == 1:
        return summed[0]
    slipped = [_misconverted(side.text) or _no_such_day(side.text) for side in (a, b)]
    if slipped[0] != slipped[1]:
        return a if slipped[0] else b
    return _court_below(a, b) or _smaller_poll(a, b)


_APPEAL = re.compile(
    r"\b(?:court\s+of\s+appeals?|appeals?\s+court|appellate\s+court|supreme\s+court|on\s+appeal"
    r"|(?:allowed|upheld|granted)\s+(?:the\s+)?(?:[\w'-]+\s+){0,4}?appeal)\b",
    re.IGNORECASE,
)
"""A decision on appeal: "The Court of Appeal allowed the ... appeal and awarded ..."."""
_COURT_BELOW = re.compile(
    r"\b(?:county|district|magistrates'?|crown|trial|circuit|lower|small\s+claims)\s+court\b"
    r"|\bat\s+first\s+instance\b|\btribunal\b",
    re.IGNORECASE,
)
"""A decision of a court an appeal lies from: "The county court awarded ..."."""


def _court_below(a: EvidenceRecord, b: EvidenceRecord) -> EvidenceRecord | None:
    """The side that gives the figure of a court below where the other gives the figure
    decided on appeal: the appeal decides."""
    for side, other in ((a, b), (b, a)):
        below = _COURT_BELOW.search(side.text) and not _APPEAL.search(side.text)
        if below and _APPEAL.search(other.text):
            return side
    return None


_POLLED = re.compile(
    r"\b(?:survey|poll|census|sample|study|questionnaire|ballot)\s+of\s+(?:some\s+|about\s+|"
    r"around\s+|over\s+|more\s+than\s+|nearly\s+|almost\s+)?(?P<size>\d[\d,]*)\s",
    re.IGNORECASE,
)
"""How many a poll asked: "A survey of 3,400 passengers", "a straw poll of 12 passengers"."""
_FEWER = 10
"""How many times fewer asked make a poll's share give way to another's."""


def _smaller_poll(a: EvidenceRecord, b: EvidenceRecord) -> EvidenceRecord | None:
    """The side whose poll asked far fewer (a tenth or less) than the other's."""
    sizes = [_POLLED.search(side.text) for side in (a, b)]
    if sizes[0] is None or sizes[1] is None:
        return None
    first, second = (int(found["size"].replace(",", "")) for found in (sizes[0], sizes[1]))
    if min(first, second) * _FEWER > max(first, second):
        return None
    return a if first < second else b


_ISO_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def _no_such_day(text: str) -> bool:
    """Whether ``text`` gives a date the calendar does not have ("31 April 2017", "30 February
    2019"): a slip in its figures."""
    for value in values_in(text):
        if value.kind == "date" and _ISO_DAY.match(value.label):
            try:
                date.fromisoformat(value.label)
            except ValueError:
                return True
    return False


_CONVERSION = re.compile(r"(?P<figure>[^()]{1,40}?)\s*\((?P<converted>[^()]{1,30})\)")
"""A figure with its conversion in brackets after it: "34 metres (112 feet)"."""


def _misconverted(text: str) -> bool:
    """Whether ``text`` gives a measure whose own conversion in brackets is another measure
    ("43 metres (112 feet)": 43 metres is 141 feet): a slip in one of its figures."""
    for found in _CONVERSION.finditer(text):
        figures, converted = values_in(found["figure"]), values_in(found["converted"])
        if len(converted) != 1 or not figures:
            continue
        figure, conversion = figures[-1], converted[0]
        measures = figure.kind == conversion.kind == "quantity" and figure.key == conversion.key
        if measures and figure.unit != conversion.unit and not values_agree(figure, conversion):
            return True
    return False


def _parts_give(text: str, other: str) -> bool:
    """Whether the figures ``text`` lists after its total add up to a figure ``other`` states
    and not to that total."""
    listing = _LISTING.search(text)
    if listing is None:
        return False
    totals = values_in(text[: listing.start()])
    parts = values_in(text[listing.end() :])
    if not totals or len(parts) < 2 or totals[-1].kind not in ("count", "quantity"):
        return False
    total = totals[-1]
    if any(part.kind != total.kind or part.spread for part in parts):
        return False
    if total.kind == "quantity" and any(part.key != total.key for part in parts):
        return False
    whole = sum(part.number for part in parts)
    stated = [value for value in values_in(other) if value.kind == total.kind]
    matches = [value for value in stated if abs(value.number - whole) < 1e-9 * max(1.0, whole)]
    return abs(whole - total.number) > 1e-9 * max(1.0, whole) and len(matches) == len(stated) == 1


_LAYOUT = re.compile(
    r"\b(?P<rows>\d{1,4})\s+(?:rows|ranks|tiers|columns|blocks|banks|bays|floors|storeys|"
    r"stories|layers|shelves)\s+of\s+(?P<each>\d{1,4})\b",
    re.IGNORECASE,
)
"""A layout that gives a count as a product: "12 rows of 15"."""


def _layout_gives(text: str, other: str) -> bool:
    """Whether the layout ``text`` gives after its count ("150 seats, set out in 12 rows of
    15") multiplies to the count ``other`` states and not to its own."""
    layout = _LAYOUT.search(text)
    counts = [v for v in values_in(text[: layout.start()]) if v.kind == "count"] if layout else []
    if layout is None or not counts:
        return False
    whole = int(layout["rows"]) * int(layout["each"])
    stated = [value.number for value in values_in(other) if value.kind == "count"]
    return counts[-1].number != whole and stated == [whole]


_ADDITION = re.compile(
    r"\b(?:including|includes|include|counting|with)\b[^.;]{0,60}?\b(?:added|built|opened|"
    r"new|installed|extended|created)\b[^.;]{0,60}?\b(?:in|since)\s+(1[5-9]\d\d|20\d\d)\b",
    re.IGNORECASE,
)
"""A figure that counts an addition of a year: "130 stalls, including the 34 added when the
covered hall opened in 2021"."""


def _with_later_addition(a: EvidenceRecord, b: EvidenceRecord) -> EvidenceRecord | None:
    """The side whose figure counts an addition made in a year after the other side's date
    ("130 stalls, including the 34 added when the hall opened in 2021" against a page
    published in 2017), not dated before that year itself; None when neither or both do."""
    found = []
    for side, other in ((a, b), (b, a)):
        added = [int(year) for year in _ADDITION.findall(side.text)]
        if not added or other.date is None or _ADDITION.search(other.text):
            continue
        own = int(str(side.date)[:4]) if side.date is not None else max(added)
        if max(added) > int(str(other.date)[:4]) and own >= max(added):
            found.append(side)
    return found[0] if len(found) == 1 else None


_SOURCE_NAMED = re.compile(
    r"\b(?i:according to|as (?:given|stated|recorded|listed|reported) (?:in|by)|"
    r"as\s+(?:[\w'’-]+\s+){1,4}?(?:said|told|put\s+it|wrote|reported|stated)\s+(?:on|in|to)|"
    r"citing|quoting|from)\s+(?:(?i:the)\s+)?(?P<name>[A-Z][\w'’-]*(?:\s+(?:[A-Z][\w'’-]*|of|"
    r"the|and|for))*)"
)
"""A source a sentence names for what it states: "According to the Harrowgate Bell Register,
...", "As the tower captain said on Radio Wendle, ..."."""


def _misquoting(a: EvidenceRecord, b: EvidenceRecord) -> EvidenceRecord | None:
    """The side that names the other side's page, by its title, as the source of its figure
    ("According to the Harrowgate Bell Register, the bell weighs 1,450 kg." against the
    Register's "1,540 kg"; a title's part before a colon, "Radio Wendle", names it too): its
    copy of the figure is wrong, the source stands; None when neither or both do."""
    found = []
    for side, other in ((a, b), (b, a)):
        titles = {
            tuple(_words(part)) for part in {other.title or "", (other.title or "").split(":")[0]}
        }
        titles = {title for title in titles if len(title) >= 2}
        if not titles or side.path == other.path:
            continue
        named = [_words(m["name"]) for m in _SOURCE_NAMED.finditer(side.text)]
        if any(tuple(name[: len(title)]) == title for name in named for title in titles):
            found.append(side)
    return found[0] if len(found) == 1 else None


def _later_code_edition(a: EvidenceRecord, b: EvidenceRecord) -> EvidenceRecord | None:
    """The side that follows the later edition of a standard both name, in their words or
    titles ("Under code CLC-7:2019, ..." against "Under code CLC-7:2008, ..."); None when they
    name none in common, or their codes order them both ways."""
    first = code_editions(f"{a.title or ''}\n{a.text}")
    second = code_editions(f"{b.title or ''}\n{b.text}")
    common = first.keys() & second.keys()
    orders = {first[code] > second[code] for code in common}
    if len(orders) != 1 or any(first[code] == second[code] for code in common):
        return None
    return a if orders.pop() else b


def _later(a: EvidenceRecord, b: EvidenceRecord) -> EvidenceRecord | None:
    """The later of two sides dated differently, or None when their dates may be one time: a
    decade ("in the 1980s") and a year inside it, a year or a month and a day in it, a day and a
    time on it, a time with its zone and one without, a time in UTC and a local day beside it."""
    first, second = str(a.date), str(b.date)
    decades = decade_of(first, a.text), decade_of(second, b.text)
    if decades != (None, None):
        spans = [
            (decade, decade + 9) if decade is not None else (int(date[:4]),) * 2
            for decade, date in zip(decades, (first, second), strict=True)
        ]
        if spans[0][1] < spans[1][0] or spans[1][1] < spans[0][0]:
            return a if spans[0][0] > spans[1][0] else b
        return None
    if first.startswith(second) or second.startswith(first):
        return None  # "2023" and "2023-04": the month may be any of the year
    timed = ("T" in first, "T" in second)
    one_day = timed != (False, False) and first[:10] == second[:10]
    if one_day and (timed != (True, True) or first.endswith("Z") != second.endswith("Z")):
        return None
    if _local_day_near(first, second) or _local_day_near(second, first):
        return None
    return a if first > second else b


def _local_day_near(zoned: str, day: str) -> bool:
    """Whether a time read in UTC ("2022-06-10T21:15Z") and a day with no zone ("2022-06-11")
    may be one time: the day is local, so within a day of the UTC date either way."""
    if not zoned.endswith("Z") or "T" in day or len(day) != 10:
        return False
    try:
        gap = date.fromisoformat(zoned[:10]) - date.fromisoformat(day)
    except ValueError:
        return False
    return abs(gap.days) <= 1


_URL_VERSION = re.compile(r"(?<=/)v(?P<rank>\d{1,4}(?:\.\d{1,4})*)(?=/)", re.IGNORECASE)
"""A version as a segment of an address: "docs.example.org/v12/guide"."""


_WIKI_REVISION = re.compile(r"[?&]oldid=(?P<rank>\d+)\b")
"""A wiki page's permanent link names its revision: a later revision has a larger id."""


def _edition(title: str) -> tuple[tuple[int, ...], str] | None:
    """The edition a title names (:func:`edition_of`), else the revision a wiki's permanent
    link in it names ("...&oldid=48213"), else the version a segment of an address in it names
    ("wiki.example.org/v12/locks": 12, of "wiki.example.org//locks")."""
    named = edition_of(title)
    if named is not None:
        return named
    revision = _WIKI_REVISION.search(title)
    if revision is not None:  # "...?title=Ardwick_school&oldid=48213": revision 48213
        work = title[: revision.start("rank")] + title[revision.end("rank") :]
        return (int(revision["rank"]),), " ".join(work.lower().split())
    found = _URL_VERSION.search(title)
    if found is None or _URL_VERSION.search(title, found.end()) is not None:
        return None
    work = title[: found.start()] + title[found.end() :]
    return tuple(map(int, found["rank"].split("."))), " ".join(work.lower().split())


def upheld_side(
    conflict: Conflict,
    a: EvidenceRecord,
    b: EvidenceRecord,
    decisive: EvidenceRecord | None,
    overlap: float = DEFAULT_OVERLAP,
) -> EvidenceRecord | None:
    """The side a resolved conflict upheld, or None (open, or a judgment call without a side).

    Decisive evidence upholds the side it agrees with; a judgment without it upholds the newer
    dated source, as the offline resolver's judgment does.
    """
    if conflict.status != "resolved":
        return None
    if decisive is not None:
        return side_of(decisive, a, b, overlap)
    return newer_side(a, b)
