"""Sources of evidence: LangChain tools that take ``{"query": str}`` and return evidence.

A source returns a JSON list of evidence dicts (the fields of
:class:`~framework.memory.EvidenceRecord`; ``id`` is computed when left out), or a list of
dicts or records. The default source searches the local corpus. Each call is a tool call
under the run's policies (a PII policy on ``tool_output`` redacts the evidence before it is
kept). A source that raises, is refused, or returns something that is not evidence, yields no
evidence and a :class:`SourceError`: a run never fails because of one source.

Example (adding a source):
    >>> from langchain_core.tools import StructuredTool
    >>> def wiki(query: str) -> str:
    ...     '''Search the wiki.'''
    ...     return '[{"text": "The bridge opened in 1932.", "source": "https://wiki/b"}]'
    >>> tool = StructuredTool.from_function(wiki)
    >>> [record.source for record in run_source(tool, "bridge")[0]]
    ['https://wiki/b']
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import date as calendar_date
from typing import Any

from langchain_core.tools import BaseTool, StructuredTool
from langgraph.errors import GraphBubbleUp
from pydantic import ValidationError

from framework.engine.records import SourceError
from framework.errors import ConfigError
from framework.memory import Corpus, EvidenceRecord, Passage, prose_sentences
from framework.memory.store import StoredEntry
from framework.policy import governed
from teams.hypothesis.verdicts import AS_OF_YEAR, PAST_YEAR, speaks_of_standing
from teams.language.calendars import unsigned
from teams.language.changes import resolve_relative_changes, withdraw_struck
from teams.language.config_files import setting_statements
from teams.language.contradiction import claim_of, same_subject
from teams.language.dates import settle_date_order
from teams.language.enumerations import count_enumerations
from teams.language.namesakes import about_namesake
from teams.language.outdated import drop_outdated
from teams.language.relative_dates import resolve_relative_dates
from teams.language.revisions import read_revisions
from teams.language.rounding import mark_rounded
from teams.language.sentence_choice import scored_sentences
from teams.language.standing import (
    CODE_EDITION,
    code_editions,
    retires_itself,
    tells_of_the_unreal,
)
from teams.language.tables import table_statements
from teams.language.values import figures_date, stated_date
from teams.research.offline import cited_sentence

__all__ = ["CORPUS_SOURCE", "SourceOutcome", "arun_source", "corpus_source", "run_source"]

CORPUS_SOURCE = "corpus"
"""The name of the default source."""

SourceOutcome = tuple[list[EvidenceRecord], SourceError | None]
"""What one source call gives: its evidence, or no evidence and the error."""


def corpus_source(
    corpus: Corpus, *, k: int = 4, min_score: float = 0.3, name: str = CORPUS_SOURCE
) -> BaseTool:
    """A source over ``corpus``: the most relevant sentence of each passage and the passage's
    corrections of it, cited ``path:line``, titled by the passage's headings (outermost first)
    and dated when the passage says when it was written (else by a date in a heading that holds
    it: a release's, a front matter's; else by one in the HTML comments its file opens with,
    or by the year of a BibTeX entry the file cites itself with; else by the date its file's
    name opens with, "2022-08-30-kelby-lido.md"). A sentence quoting an edition of a year
    ("The 1998 edition of this guide said: ...") is dated by that year; one crediting its
    figure to a version of a work ("from version 1.0 of the Morvel lake survey") is titled by
    it, and one saying when its own figure holds ("...; as of in 2014.") is dated by that. A
    sentence of a file's opening passage saying the whole document does not stand ("All the
    characters and events in this book are fictitious.") comes with every passage of the file.

    Args:
        corpus: The ingested corpus to search.
        k: Passages per query.
        min_score: Passages scoring lower are left out.
        name: The tool's name.
    """
    if k < 1:
        raise ConfigError(f"k must be >= 1, got {k}")

    opening: dict[str, str | None] = {}
    disowning: dict[str, tuple[str, str] | None] = {}

    def search_corpus(query: str) -> str:
        """Search the local document corpus; returns evidence as a JSON list."""
        found = []
        for passage in corpus.search(query, k=k, min_score=min_score):
            if passage.path not in disowning:
                disowning[passage.path] = _opening_disowned(corpus, passage.path)
            date = stated_date(passage.heading, passage.text) or stated_date(passage.outline, "")
            if date is None and passage.path not in opening:
                opening[passage.path] = _opening_markup_date(corpus, passage.path) or _self_cited(
                    corpus, passage.path
                )
            date = date or opening.get(passage.path) or _named_date(passage.path)
            disowned = disowning[passage.path]
            evidence = passage_evidence(passage, query)
            above = [disowned] if disowned and disowned not in evidence else []
            for source, sentence in [*evidence, *above]:
                found.append(
                    {
                        "text": sentence,
                        "source": source,
                        "title": _credited_version(sentence) or _titled(passage),
                        "path": passage.path,
                        "date": _quoted_edition(sentence) or figures_date(sentence) or date,
                    }
                )
        return json.dumps(found, ensure_ascii=False)

    return StructuredTool.from_function(search_corpus, name=name)


def _opening_entry(corpus: Corpus, path: str) -> StoredEntry | None:
    """The first passage of file ``path`` in the corpus, or None."""
    record = corpus.store.sources(corpus.namespace).get(path)
    if record is None or not record.keys:
        return None
    return corpus.store.entries(corpus.namespace, record.keys[:1]).get(record.keys[0])


def _opening_disowned(corpus: Corpus, path: str) -> tuple[str, str] | None:
    """The sentence of a file's opening passage (above its first subheading) that says the
    whole document does not stand ("A novel. All the characters and events in this book are
    fictitious."), else its line that does (a code block's: "gpg: BAD signature from ..."), as
    ``(path:line, sentence)``: it speaks for every passage of the file."""
    entry = _opening_entry(corpus, path)
    if entry is None:
        return None
    start = int(entry.metadata.get("start_line", 1))
    sentences = list(prose_sentences(entry.text, first_line=0))
    lines = [(offset, line.strip()) for offset, line in enumerate(entry.text.split("\n"))]
    return next(
        (
            (f"{path}:{start + offset}", sentence)
            for offset, sentence in [*sentences, *lines]  # its lines: a code block's too
            if retires_itself(sentence)
        ),
        None,
    )


_HEAD_MARKUP = re.compile(r"<!--(.*?)-->|(<meta\b[^>]*>)", re.DOTALL | re.IGNORECASE)


def _opening_markup_date(corpus: Corpus, path: str) -> str | None:
    """The date in the HTML comments and ``<meta>`` tags a file opens with, above its first
    heading ("<!-- updated 2022-11-19 -->", '<meta name="dcterms.modified" content="...">'),
    or None: the date of every passage of the file."""
    entry = _opening_entry(corpus, path)
    if entry is None or entry.metadata.get("heading"):
        return None
    marks = [comment or meta for comment, meta in _HEAD_MARKUP.findall(entry.text)]
    if not marks or _HEAD_MARKUP.sub("", entry.text).strip():
        return None
    return stated_date("", "\n".join(marks))


_BIBTEX = re.compile(r"@\w+\s*\{[^@]*?\}\s*(?:\n|$)", re.DOTALL)
_BIBTEX_FIELD = re.compile(r"\b(title|year)\s*=\s*[{\"]+([^}\"\n]+)[}\"]+", re.IGNORECASE)


def _self_cited(corpus: Corpus, path: str) -> str | None:
    """The year of the BibTeX entry a file cites itself with (its title is one of the file's
    headings: "@misc{..., title = {The Kestle aqueduct}, year = {2022}}"), or None; the
    date of every passage of the file."""
    record = corpus.store.sources(corpus.namespace).get(path)
    if record is None or not record.keys:
        return None
    entries = corpus.store.entries(corpus.namespace, list(record.keys)).values()
    headings = {
        _plain(part)
        for entry in entries
        for name in ("heading", "outline")
        for part in str(entry.metadata.get(name, "")).split(" > ")
    }
    years = set()
    for entry in entries:
        for cited in _BIBTEX.findall(entry.text):
            fields = {name.lower(): value for name, value in _BIBTEX_FIELD.findall(cited)}
            year = fields.get("year", "").strip()
            if _plain(fields.get("title", "")) in headings - {""} and re.fullmatch(r"\d{4}", year):
                years.add(year)
    return years.pop() if len(years) == 1 else None


def _plain(title: str) -> str:
    """A title without case, braces or extra spaces, to compare."""
    return " ".join(title.replace("{", "").replace("}", "").lower().split())


_QUOTED_EDITION = re.compile(
    r"\b(?:the|an?|its|our)\s+(1[5-9]\d\d|20\d\d)\s+(?:edition|version|issue|printing)\b"
    r"[^.;:!?\"“]{0,60}?\b(?:said|says|stated|states|gave|gives|read|reads|reported|had)\b"
    r"[^\"“]{0,10}[\"“]",
    re.IGNORECASE,
)
"""A sentence quoting an edition of a year: 'The 1998 edition of this guide said: "..."'."""


def _quoted_edition(sentence: str) -> str | None:
    """The year of the edition ``sentence`` quotes (:data:`_QUOTED_EDITION`), or None."""
    found = _QUOTED_EDITION.search(sentence)
    return found[1] if found else None


_CREDITED_VERSION = re.compile(
    r"\b(?:from|in|per|after|according to|source:?|taken from)\s+(?:the\s+)?"
    r"(?P<kind>version|edition|release|issue)\s+(?P<rank>\d{1,3}(?:\.\d{1,3}){0,2})\s+of\s+"
    r"(?:the\s+)?(?P<work>[A-Z][^.,;:()\[\]\n]{2,60}?)\s*(?=[.,;:)\]]|$)",
    re.IGNORECASE,
)
"""A sentence crediting its figure to a version of a named work: "(figure from version 1.0 of
the Morvel lake survey)"."""


def _credited_version(sentence: str) -> str | None:
    """The title of the version of a work ``sentence`` credits its figure to ("Morvel lake
    survey, version 1.0"), which that work's own later versions supersede; else None."""
    found = _CREDITED_VERSION.search(sentence)
    if found is None:
        return None
    return f"{found['work'].strip()}, {found['kind'].lower()} {found['rank']}"


_NAMED_DATE = re.compile(r"((?:19|20)\d\d)-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])[-_.]")
"""A file name that opens with its date, as posts are named: "2022-08-30-kelby-lido.md"."""


def _named_date(path: str) -> str | None:
    """The date a file's name opens with (:data:`_NAMED_DATE`), as an ISO date, or None."""
    found = _NAMED_DATE.match(path.rpartition("/")[2])
    if found is None:
        return None
    try:
        return calendar_date(int(found[1]), int(found[2]), int(found[3])).isoformat()
    except ValueError:
        return None


def readable(passage: Passage) -> Passage:
    """The passage as the value readers see it: struck-out text withdrawn (a struck figure
    before a new one rejected: "is 460 metres long, not 410"), what the page marks as out of
    date withdrawn (:func:`~teams.language.outdated.drop_outdated`), a figure the page says it
    rounds marked so (:func:`~teams.language.rounding.mark_rounded`), a configuration file's
    settings of a figure as statements (:mod:`teams.language.config_files`), a wiki signature
    read as when its comment was written, an accepted diff applied, myths
    and a reply's quoted lines withdrawn (:func:`~teams.language.revisions.read_revisions`),
    table rows as statements, numeric dates with the reading the passage's other dates
    settle, lists with their count, relative dates with the year they name and relative
    changes with the figure they come to (line for line, so citations hold)."""
    title = passage.outline.split(" > ")[0] if passage.outline else passage.heading
    text = withdraw_struck(read_revisions(unsigned(passage.text), heading=title))
    text = mark_rounded(drop_outdated(text, title))
    settings = setting_statements(text, title, whole_page=" > " not in passage.outline)
    code = passage.code and settings == text  # a configuration file's settings are statements
    text = count_enumerations(settle_date_order(table_statements(settings)))
    text = resolve_relative_changes(resolve_relative_dates(text))
    unchanged = text == passage.text and code == passage.code
    return passage if unchanged else replace(passage, text=text, code=code)


def passage_evidence(passage: Passage, query: str) -> list[tuple[str, str]]:
    """The passage's most relevant sentence to ``query``, then the passage's corrections of it
    ("that was a misprint", "was corrected to": on its subject, or the sentence right after or
    right before it: "Bylaw 12 is amended as follows."), each as ``(path:line, sentence)``;
    read through :func:`readable`. When the cited sentence is itself a correction ("an
    earlier edition wrongly gave..."), the sentence right after it (what it corrects to) comes
    too. A passage of settings only (TOML front matter: 'title = "Linby reservoir"'), one
    about a namesake of what the question asks about (:func:`about_namesake`), or one whose
    cited sentence tells of what did not happen (a dry run's line, a dream:
    :func:`~teams.language.standing.tells_of_the_unreal`) gives none."""
    passage = readable(passage)
    unfit = _settings_only(passage) or about_namesake(passage.text, query)
    cited = None if unfit else cited_sentence(passage, query)
    if cited is None or tells_of_the_unreal(cited[1]):  # a dry run's line, a dream
        return []
    sentences = scored_sentences(passage.text, query, heading=passage.heading)
    cited = _past_code_line(passage, cited, sentences)
    cited = _current_year(passage, cited, sentences)
    texts = [sentence for _, _, sentence in sentences]
    after = texts.index(cited[1]) + 1 if cited[1] in texts else len(texts)
    cited_correction = claim_of(cited[1]).correction
    notes = _footnote_lines(passage.text, cited[1])
    related = [
        (f"{passage.path}:{passage.line + offset}", sentence)
        for index, (_, offset, sentence) in enumerate(sentences)
        if sentence != cited[1]
        and (
            speaks_of_standing(sentence)  # "This page replaces ...", "Status: draft"
            or (
                (_corrects(sentence) or (cited_correction and index == after))
                and (
                    index in (after, after - 2)  # right after it, or right before it
                    or same_subject(sentence, cited[1], _CORRECTION_OVERLAP)
                    or offset in notes  # in a footnote the cited sentence points to
                )
            )
        )
    ]
    return [_with_subject(passage, cited), *related]


def _with_subject(passage: Passage, cited: tuple[str, str]) -> tuple[str, str]:
    """``cited`` after its passage's heading when it is a year's row of a table, which names
    no subject ("Brinkhope rowing club: As of 2024, there are 164 members.")."""
    source, sentence = cited
    dated = AS_OF_YEAR.match(sentence) or PAST_YEAR.match(sentence)
    if dated is None or not passage.heading or sentence.startswith(passage.heading):
        return cited
    return source, f"{passage.heading}: {sentence}"


_SETTING = re.compile(r"\s*[A-Za-z_][\w.-]*\s*=\s*\S.*")
"""A line setting a key ('title = "Linby reservoir"', "lastmod = 2016-04-18")."""


def _settings_only(passage: Passage) -> bool:
    """Whether ``passage`` opens its file's text before any heading and holds nothing but
    settings (TOML front matter between "+++" lines): metadata, not a statement."""
    lines = [line for line in passage.text.split("\n") if line.strip()]
    return not passage.heading and bool(lines) and all(map(_SETTING.fullmatch, lines))


def _past_code_line(
    passage: Passage, cited: tuple[str, str], sentences: list[tuple[float, int, str]]
) -> tuple[str, str]:
    """``cited``, unless it only names the edition of a standard its passage follows ("Load
    rating to standard KS 114:2021."): then the best sentence of the passage that states a
    figure (the edition comes with it in its title, :func:`_titled`)."""
    if not code_editions(cited[1]) or re.search(r"\d", CODE_EDITION.sub("", cited[1])):
        return cited
    stating = [
        (score, offset, sentence)
        for score, offset, sentence in sentences
        if score > 0 and not code_editions(sentence) and re.search(r"\d", sentence)
    ]
    if not stating:
        return cited
    _, offset, sentence = max(stating, key=lambda item: item[0])
    return f"{passage.path}:{passage.line + offset}", sentence


def _current_year(
    passage: Passage, cited: tuple[str, str], sentences: list[tuple[float, int, str]]
) -> tuple[str, str]:
    """``cited``, unless it states a past year's figure ("In 2015, there were 118 members.")
    and a sentence of its passage as relevant states the figure as of a later year ("As of
    2024, there are 164 members.", a year-by-year table's rows): then that one."""
    past = PAST_YEAR.match(cited[1])
    if past is None:
        return cited
    score = max((score for score, _, sentence in sentences if sentence == cited[1]), default=0.0)
    later = [
        (int(now[1]), offset, sentence)
        for best, offset, sentence in sentences
        if best >= score and (now := AS_OF_YEAR.match(sentence)) and now[1] > past[1]
    ]
    if not later:
        return cited
    _, offset, sentence = max(later)
    return f"{passage.path}:{passage.line + offset}", sentence


def _titled(passage: Passage) -> str:
    """The passage's title: its headings, outermost first, and the editions of the standards
    it names ("Brede footbridge > KS 114:2021"), which date what it states, and the edition
    or printing a line of its own names ("Kell guide > Second printing"), its reference
    number ("Farrow pool > FSP-118"), which later documents may name, and the permanent link
    to the wiki revision it is a copy of ("...?title=Farrow_pool&oldid=9127")."""
    editions = [f"{code}:{year}" for code, year in code_editions(passage.text).items()]
    named = _EDITION_LINE.findall(passage.text)
    numbered = set(_REFERENCE_NUMBER.findall(passage.text))
    links = set(_REVISION_LINK.findall(passage.text))
    own = (named[:1] if len(named) == 1 else []) + (list(numbered) if len(numbered) == 1 else [])
    own += list(links) if len(links) == 1 else []
    return " > ".join(filter(None, (passage.outline, passage.heading, *editions, *own)))


_REVISION_LINK = re.compile(r"\S+[?&]oldid=\d+\b")
"""A permanent link to a wiki page's revision."""
_EDITION_LINE = re.compile(
    r"^[ \t]*(\w+(?:-\w+)?[ \t]+(?:edition|printing))\b[^.\n]{0,40}\.?[ \t]*$",
    re.IGNORECASE | re.MULTILINE,
)
"""A line naming its text's edition or printing: "Second printing, with corrections."."""
_REFERENCE_NUMBER = re.compile(
    r"(?:^|(?<=[\n.;]))[ \t]*(?:reference|ref\.?|document\s+no\.?)\s*[:#]?\s*"
    r"((?-i:[A-Z][A-Z0-9]*(?:[/-][A-Z0-9]+)+))\b",
    re.IGNORECASE,
)
"""A document's own reference number, opening a line or a sentence: "Reference: FSP-118."."""


def _corrects(sentence: str) -> bool:
    """Whether ``sentence`` corrects or updates what its page says: it reports an error, or
    states the right value ("should read", "Update, June 2023: ... is 50 metres long")."""
    claim = claim_of(sentence)
    return claim.correction or claim.corrects


def _footnote_lines(text: str, sentence: str) -> set[int]:
    """The lines (offsets in ``text``) of the footnotes ``sentence`` points to ("... deep.[^1]"
    to the paragraph opening "[^1]:", "... tall [2]" to the one opening "[2]")."""
    marks = re.findall(r"\[\^?([\w-]{1,8})\]", sentence)
    lines = text.split("\n")
    found: set[int] = set()
    for mark in marks:
        opening = re.compile(rf"\s*\[\^?{re.escape(mark)}\]")
        for start, line in enumerate(lines):
            if opening.match(line):
                end = start
                while end < len(lines) and lines[end].strip():
                    found.add(end)
                    end += 1
    return found


_CORRECTION_OVERLAP = 0.3
"""Content-word overlap at which a correction in a passage is about its cited sentence."""


def run_source(tool: BaseTool, query: str) -> SourceOutcome:
    """Call a source with ``query`` under the policies of the node calling it (a tool call:
    authorized, counted, its output redacted); a failure or a refusal becomes a
    :class:`SourceError`."""
    try:
        return read_evidence(governed(tool).invoke({"query": query}), tool.name), None
    except GraphBubbleUp:
        raise
    except Exception as error:  # any failure of a third-party source is recorded, not raised
        return [], _error(tool, query, error)


async def arun_source(tool: BaseTool, query: str) -> SourceOutcome:
    """Async form of :func:`run_source`."""
    try:
        return read_evidence(await governed(tool).ainvoke({"query": query}), tool.name), None
    except GraphBubbleUp:
        raise
    except Exception as error:  # any failure of a third-party source is recorded, not raised
        return [], _error(tool, query, error)


def read_evidence(output: Any, origin: str) -> list[EvidenceRecord]:
    """The evidence in a source's output, each marked with the source that found it.

    Raises:
        ValueError: The output is not a list of evidence (bad JSON, a bad item).
    """
    items = json.loads(output) if isinstance(output, str) else output
    if not isinstance(items, Sequence) or isinstance(items, str | bytes):
        raise ValueError(f"a source returns a list of evidence, got {type(items).__name__}")
    return [_record(item, origin) for item in items]


def _record(item: Any, origin: str) -> EvidenceRecord:
    if isinstance(item, EvidenceRecord):
        return item if item.origin else item.model_copy(update={"origin": origin})
    if not isinstance(item, Mapping):
        raise ValueError(f"evidence items are dicts or EvidenceRecords, got {type(item).__name__}")
    try:
        return EvidenceRecord.model_validate({"origin": origin, **item})
    except ValidationError as error:
        raise ValueError(f"not valid evidence: {error.errors()[0]['msg']}") from error


def _error(tool: BaseTool, query: str, error: BaseException) -> SourceError:
    message = " ".join(f"{type(error).__name__}: {error}".split())
    return SourceError(source=tool.name, query=query, error=message)
