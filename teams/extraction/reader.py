"""The offline reading of a document: the relations its sentences, key-value lines and table
rows state, as triples on their lines.

A sentence is read clause by clause (:func:`~teams.extraction.clauses.simple_clauses`) with
the patterns of :mod:`teams.extraction.patterns`, a deed it names by a noun as a passive
(:func:`~teams.extraction.deeds.deed_clauses`), and an exchange in it from both sides
(:func:`~teams.extraction.converses.converse_readings`). A leading pronoun ("The same engineer"
too) stands for the subject before it (or what the section's heading names), and so does the
missing subject of a sentence opening with its predicate ("Founded in 1990 by Jane Roe."); an
object "it" for the thing the sentence before is about, "the latter" for one of two names
joined before (:mod:`teams.extraction.referents`), a list item for an object of its lead-in's
relation. An alias ("also known as", "formerly") is a relation both ways
(:mod:`teams.extraction.aliases`). A key-value
line states an attribute of that subject, a table row of its subject cell
(:mod:`teams.extraction.attributes`). An abbreviation the document defines ("(NRA)") reads
as what it stands for, and its definition as a relation of its own.

A deed done for or against another ("X commissioned Y to build Z") is Y's, quoted from its own
words (:mod:`teams.extraction.proxies`), and so is a role a fronted "With Y as architect, ..."
gives in a deed of making. A heading in apposition ("Ada Wolfe, maker of the Netley clock")
states its role on its own line; a definition list's entry is said of its term; an inscription
in capitals under a lead-in is said of what the lead-in names
(:mod:`teams.extraction.inscriptions`); a caption's or a timeline entry's label is left out.
A shape that states a relation out of plain order ("1820 saw X built by Y", "Like X, Y was
designed by Z", "The one who designed X was Y") is read as the plain sentences it states
(:mod:`teams.extraction.restatements`, :mod:`teams.extraction.reorderings`);
a footnote opening with its predicate is said of the thing its mark follows
(:mod:`teams.extraction.footnotes`); a transcript's turn is read without its speaker's label
(:mod:`teams.extraction.transcripts`), and the "I" of a passage signed after a dash or with a
letter's sign-off as its signer (:mod:`teams.extraction.signatures`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import groupby

from framework.knowledge import entity_id
from framework.memory import LIST_MARKER
from teams.extraction.abbreviations import defined, without_definitions
from teams.extraction.aliases import alias_readings, aliases, without_aliases
from teams.extraction.asides import (
    agent_joined,
    agent_named,
    bracket_labels,
    joined_subjects,
    namely,
    participle_asides,
    uninverted,
    without_citations,
    without_denied,
    without_label,
)
from teams.extraction.attributes import attribute_readings, key_values, row_readings
from teams.extraction.bylines import byline
from teams.extraction.clauses import (
    Gapped,
    clauses_apart,
    gapped_clause,
    independent_clauses,
    simple_clauses,
    whose_quotes,
)
from teams.extraction.converses import converse_readings, exchange_parts
from teams.extraction.deeds import achievement_owned, deed_clauses
from teams.extraction.defined_terms import defined_terms, with_defined_terms
from teams.extraction.documents import (
    LIST_JOIN,
    Document,
    Section,
    bare,
    plain,
    quoted_parts,
    unmarked,
)
from teams.extraction.emails import REPLY_MARK
from teams.extraction.footnotes import footnote, marked_things, without_marks
from teams.extraction.hearsay import denies_the_last, hearsay
from teams.extraction.indirect_deeds import interrupted_by_deed
from teams.extraction.inscriptions import inscribed_thing, inscription
from teams.extraction.patterns import (
    Reading,
    heading_readings,
    noun_phrases,
    read_sentence,
    with_subject,
)
from teams.extraction.proxies import delegated_deed, fronted_role, held_role, making
from teams.extraction.questions_asked import (
    answered,
    asked,
    names_in_apposition,
    stands_for_verb,
)
from teams.extraction.referents import referring_clause, with_referents
from teams.extraction.reorderings import EXTRAPOSED, not_but
from teams.extraction.restatements import (
    restated,
    to_plans,
    with_deed_done,
    with_surnames_shared,
    without_unknown,
)
from teams.extraction.signatures import addressed, addressee, signed, signer, without_attribution
from teams.extraction.state import EntityNote, Triple
from teams.extraction.transcripts import spoken
from teams.language.values import values_in
from teams.language.verbs import IRREGULAR

__all__ = ["document_triples", "entry_readings"]

_EVIDENCE_CHARS = 300
_HEADING_WORDS = 5
_TITLE_WORDS = 12
"""The most words of a title a front matter or a record's metadata gives what it is said of
("retry backoff to the Ferrow uploader"): a title, not a heading that is a sentence."""
_DEFINITION = 0.9
_PRONOUN = re.compile(r"^(?:It|They|He|She|The\s+same\s+[a-z]+(?:\s+also)?)\b")
_POSSESSIVE = re.compile(r"^(?:Its|Their|His|Her)\b")
_PERSONAL = re.compile(r"^(?:He|She)\b")
_PERSONAL_OWNER = re.compile(r"^(?:His|Her)\b")
_PERSON = re.compile(r"(?!(?:The|A|An|This|That|Its|Their)\b)[A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+)+")
"""A person's name: two or more capitalised words, no article before them."""
_TIMED_PRONOUN = re.compile(
    r"^(?P<when>(?:In|By|On|From|After|Before|During|Since|Until)\s+(?:[A-Z][a-z]+\s+)?"
    r"(?:1\d{3}|20\d{2}),?\s+)(?:it|they|he|she)\b"
)
"""A pronoun subject after a year that opens its sentence: "In 1952 it was renamed ..."."""
_OBJECT_IT = re.compile(
    rf"\b(?P<verb>[a-z]+(?:ed|s|ing)|{'|'.join(IRREGULAR)})\s+it\b"
    r"(?=\s+(?:to|from|in|on|at|for|with|by|into|over|during|after|before|within|again|this|"
    r"that|last|yesterday|today|alone|"
    r"himself|herself|themselves)\b|\s*[.,;]|\s*$)"
)
"""An object "it" right after a verb, before a preposition, a time ("this afternoon") or the
clause's end."""

_STATE_OF = re.compile(
    r"(?:^|(?<=[.!?]\s))(?:The|Our|Its|This)\s+(?P<thing>(?:[a-z][\w'’-]*\s+){0,4}?[a-z][\w'’-]*)\s+"
    r"(?:is|was|has\s+been|had\s+been|now\s+stands|stands|stood)\s+(?:now\s+)?"
    r"(?:finished|complete|completed|done|ready|open|built|standing)\b"
)
"""A sentence that says only what state a thing is in ("The new winch house is finished."),
which no relation is read from: what an "it" after it stands for."""

_Found = tuple[Triple, EntityNote | None]
_HEADING_ROLE = re.compile(r"^[A-Za-z]+ and (?:their|its|his|her) (?P<role>[a-z]+?)s?$")
"""A heading that names the relation of its list's entries ("Bridges and their engineers")."""
_ENTRY = re.compile(
    r"^(?P<name>[A-Z][^()]*?)\s*\((?P<person>[A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*)+)"
    r"(?:,\s*(?:c\.\s*)?\d{3,4})?\)\.?$"
)
"""A list entry of a thing and the person in parentheses ("Birk bridge (Clara Moss, 1834)")."""
_ENTRY_CONFIDENCE = 0.7
_ROLE_CONFIDENCE = 0.7


@dataclass
class _Focus:
    """What a section is about so far: the subject a pronoun stands for, and the thing an
    object "it" stands for."""

    subject: str
    thing: str
    person: str = ""
    """The last subject that is a person's name: what "He" or "She" stands for ("Mercy Alderson
    bought the plot. The circuit raised the money. She built the chapel.")."""

    def resolved(self, sentence: str) -> str:
        """``sentence`` with a leading "It", "They"... (and "Its", "Their"...; "it" after a year
        that opens it: "In 1952 it ...") replaced by the subject, and an object "it" by the
        thing (the subject, when another opens it; not in a clause between dashes, whose "it"
        is the subject it interrupts); a thing whose state a sentence inside it states first
        ("2. The winch house is finished. FL thanked DK for building it") is what follows
        speaks of."""
        if EXTRAPOSED.match(sentence):  # "It is recorded that ...": no thing's "It"
            return sentence
        for stated in _STATE_OF.finditer(sentence):  # "Item 2. The X is finished. FL ... it"
            if stated.end() < len(sentence.rstrip(" .")):
                self.subject = self.thing = f"the {stated['thing']}"
        opens = _PRONOUN.match(sentence) or _POSSESSIVE.match(sentence)
        it = self.thing if opens else self.subject
        if it and not interrupted_by_deed(sentence):
            sentence = _OBJECT_IT.sub(lambda m: f"{m.group('verb')} {it}", sentence)
        if not self.subject:
            return sentence
        if _POSSESSIVE.match(sentence):
            owner = self.subject
            if _PERSONAL_OWNER.match(sentence) and not _PERSON.fullmatch(owner):
                owner = self.person  # "His sister" is no mill's sister
            return _POSSESSIVE.sub(f"{owner}'s", sentence, count=1) if owner else sentence
        if timed := _TIMED_PRONOUN.match(sentence):  # "In 1952 it was ...": the subject was
            return f"{timed['when']}{self.subject}{sentence[timed.end() :]}"
        personal = _PERSONAL.match(sentence) is not None and not _PERSON.fullmatch(self.subject)
        if personal and self.person:  # "She" is no "The Methodist circuit"
            return _PRONOUN.sub(self.person, sentence, count=1)
        return _PRONOUN.sub(self.subject, sentence, count=1)

    def follow(self, readings: list[Reading], text: str = "") -> None:
        """Move on to what a sentence's main reading is about; for a sentence of no reading
        that says what state a thing is in ("The new winch house is finished."), that thing."""
        if not readings:
            if stated := _STATE_OF.match(text):
                self.subject = self.thing = f"the {stated['thing']}"
            return
        self.subject = readings[0].subject
        if _PERSON.fullmatch(self.subject):
            self.person = self.subject
        if not values_in(readings[0].object):
            self.thing = readings[0].object


def _singular(name: str, said: str) -> str:
    """``name`` with a regular plural last word made singular (only by cutting its end, so the
    name stays in the text); a proper name ("Leeds", "Salt Roads") as it is: a capital that
    does not merely open the sentence ``said``."""
    head, _, last = name.rpartition(" ")
    proper = last[:1].isupper() and (bool(head) or not said.startswith(name))
    if (
        not proper
        and len(last) > 3
        and last[1:].islower()
        and last.endswith("s")
        and not last.endswith(("ss", "us", "is", "ies"))
    ):
        cut = 2 if last.endswith(("sses", "shes", "ches", "xes")) else 1
        last = last[:-cut]
    return f"{head} {last}".strip()


def _heading_subject(heading: str, most: int = _HEADING_WORDS) -> str:
    """What a short heading names ("The Corran ferry": Corran ferry; a reply's "Re: the Tarn
    mill": Tarn mill), or "" (past ``most`` words)."""
    words = REPLY_MARK.sub("", heading).strip(" #:").split()
    while words and words[0].lower() in ("the", "a", "an"):
        words = words[1:]
    return " ".join(words) if 0 < len(words) <= most else ""


_RUN_IN = re.compile(
    r"^(?P<mark>\*\*|__)(?P<lead>[^*_:\s]+(?:\s+[^*_:\s]+)+?)\.?(?P=mark)(?:\s+(?P<rest>\S.*))?$"
)
"""A paragraph's run-in lead in bold, alone as its sentence or before one: "**The Ardry dam.**
Designed by Lucy Hale.", what the sentences after it are about (two words or more, no colon:
not "**Note:**")."""
_GENERIC_SECTIONS = frozenset(
    {"credits", "details", "facts", "key facts", "at a glance", "in brief", "particulars"}
)
"""Headings of a section about what the heading above it names, not about a thing of their
own ("## Credits" under "# The Wrayton lido")."""


def _excerpt(text: str) -> str:
    return text if len(text) <= _EVIDENCE_CHARS else text[:_EVIDENCE_CHARS].rsplit(" ", 1)[0]


def _found(
    reading: Reading, evidence: str, line: int, said: str, expanded: Mapping[str, str]
) -> _Found | None:
    """A reading as a triple citing ``evidence`` on ``line``: names singular, both stated in
    ``said`` and distinct, an abbreviation as what it stands for."""
    subject, thing = _singular(reading.subject, said), _singular(reading.object, said)
    if not all(bare(name) in bare(said) for name in (subject, thing)):
        return None
    subject = expanded.get(entity_id(subject), subject)
    thing = expanded.get(entity_id(thing), thing)
    if entity_id(subject) == entity_id(thing):
        return None
    triple = Triple(
        subject=subject,
        predicate=reading.predicate,
        object=thing,
        confidence=reading.confidence,
        evidence=_excerpt(evidence),
        line=line,
    )
    kind = _singular(reading.subject_type, said)
    return triple, EntityNote(name=subject, type=kind) if kind else None


_DEFINITION_LIST = re.compile(r"^(?P<term>[^:.;]{1,60}?)\s+:\s+(?P<definition>[A-Z].*)$")
"""A definition list's term and its definition on the next line, joined into one sentence
("Holme mill : Built by Sarah Pike in 1804.")."""


def _definition(text: str) -> str:
    """A definition list's entry as a sentence of its term, when the definition opens with
    its predicate ("Holme mill was built by Sarah Pike in 1804."); "" otherwise."""
    found = _DEFINITION_LIST.match(text)
    term = re.sub(r"^(?:The|A|An)\s+", "", found["term"].strip()) if found else ""
    return with_subject(found["definition"], term) if found and term else ""


def entry_readings(heading: str, entry: str) -> list[Reading]:
    """What a list entry "X (Person, year)" says under a heading that names the relation
    ("Bridges and their engineers"): X's engineer is Person; [] otherwise."""
    role, found = _HEADING_ROLE.match(heading.strip(" #:")), _ENTRY.match(entry.strip())
    if role is None or found is None:
        return []
    name = re.sub(r"^(?:The|A|An)\s+", "", found.group("name").strip())
    predicate = f"'s {role.group('role')} is"
    return [Reading(name, predicate, found.group("person"), _ENTRY_CONFIDENCE)]


def _sentence_readings(text: str, relaxed: bool) -> list[Reading]:
    """The readings of a sentence's clauses, main clause first, and of its exchanges turned;
    an alternative it names only to deny is not read, nor a caption's or timeline entry's
    label; a fronted "With X as <role>," is a role in what the main clause makes, "As the
    <role> of X, Y" a role of Y's (:func:`_fronted_readings`), and a deed done for another is
    the doer's (:func:`_with_delegated`)."""
    text = agent_joined(joined_subjects(without_denied(not_but(without_label(text)))))
    text = uninverted(namely(text))  # "Not until 1890 did X build Y": X built Y
    text = with_deed_done(without_unknown(text))  # "He would go on to build X": he built X
    text = with_surnames_shared(text)  # "the brothers Amos and Seth Lowe": Amos Lowe and ...
    if (restatement := _restated_readings(text, relaxed)) is not None:
        return restatement
    text, labelled = bracket_labels(text)  # "The Kell chapel (architect: Sam Orr) opened"
    if labelled:
        return labelled + _sentence_readings(text, relaxed)
    if (fronted := _fronted_readings(text, relaxed)) is not None:
        return fronted
    if parts := exchange_parts(text):  # "sold by A to B": each party quoted without the other
        return [
            replace(r, clause=r.clause or quote)
            for part, quote in parts
            for r in _sentence_readings(part, relaxed)
        ]
    if (coordinated := _coordinated_readings(text, relaxed)) is not None:
        return coordinated
    readings = [
        r
        for part in [*participle_asides(text), *deed_clauses(text)]
        for clause in simple_clauses(part)
        for r in read_sentence(clause, relaxed=relaxed)
    ]
    readings = _whose_quoted(text, readings)
    return _with_delegated(text, readings + converse_readings(text, readings), relaxed)


def _coordinated_readings(text: str, relaxed: bool) -> list[Reading] | None:
    """The readings of a sentence of two coordinated clauses: a gapped second one sharing the
    first's verb ("A built X, and B Y": B built Y), or one with a subject of its own ("A is
    unknown, but nobody doubts that B built Y"), or a fronted clause of time or contrast read
    alone ("While A drew up the plans for X, ..."); None for any other sentence, or when the
    last clause gives nothing."""
    if (gapped := gapped_clause(text)) is not None:
        return _gapped_readings(gapped, relaxed)
    clauses = independent_clauses(text)
    if not clauses:
        return None
    last = _clause_readings(clauses[-1], text, relaxed)
    if not last:
        return None
    return [r for clause in clauses[:-1] for r in _clause_readings(clause, text, relaxed)] + last


def _clause_readings(clause: str, text: str, relaxed: bool) -> list[Reading]:
    """The readings of one clause of ``text``, each quoted from that clause where the text
    holds it as written (so a relation of one clause never quotes the other's names)."""
    quote = clause.rstrip(".")
    readings = _sentence_readings(clause, relaxed)
    return [replace(r, clause=r.clause or quote) for r in readings] if quote in text else readings


def _whose_quoted(text: str, readings: list[Reading]) -> list[Reading]:
    """``readings`` of a sentence with a "whose" clause, each quoted from its own clause: the
    clause's with its noun ("the mill, whose architect had been Lydia Cole"), the others
    without it (the buyer "bought the mill … in 1899"), so neither quotes the other's names;
    as they are when none is read from the clause, which the others' quotation then keeps."""
    quotes = whose_quotes(text, LIST_JOIN)
    if quotes is None or not any(_holds(quotes[1], r) for r in readings):
        return readings
    main, relative = quotes
    return [
        replace(r, clause=r.clause or (relative if _holds(relative, r) else main)) for r in readings
    ]


def _holds(clause: str, reading: Reading) -> bool:
    """Whether ``clause`` names both the reading's subject and its object."""
    return all(bare(name) in bare(clause) for name in (reading.subject, reading.object))


def _fronted_readings(text: str, relaxed: bool) -> list[Reading] | None:
    """The readings of a sentence with a role in a fronted phrase: "With Y as architect, ..."
    a role in what the main clause makes, "As the architect of X, Y ..." Y's role of X, quoted
    apart from the main clause; None when it has none."""
    if (role := fronted_role(text)) is not None:  # "With Jonah Bell as architect, ..."
        readings = _sentence_readings(role.clause, relaxed)
        owned = [r for r in readings if making(r.predicate)]
        return readings + [
            Reading(r.object, f"'s {role.role} is", role.name, _ROLE_CONFIDENCE) for r in owned
        ]
    if (held := held_role(text)) is not None:  # "As the architect of X, Nora Bix insisted ..."
        main = [
            replace(r, clause=r.clause or held.clause)
            for r in _sentence_readings(held.clause, relaxed)
        ]
        role_of = Reading(held.thing, f"'s {held.role} is", held.name, _ROLE_CONFIDENCE)
        return [*main, replace(role_of, clause=held.quoted)]
    return None


def _restated_readings(text: str, relaxed: bool) -> list[Reading] | None:
    """The readings of the plain sentences ``text`` restates, each quoted alone where the
    sentence has it; of a thing made "to Y's plans", Y's design quoted without the builder
    after it; None when ``text`` is in no such shape."""
    if (plans := to_plans(text)) is not None:  # "built to Ann Roe's plans by Dent and Sons"
        rest, designed, quote = plans
        readings = _sentence_readings(designed, relaxed)
        return _sentence_readings(rest, relaxed) + [replace(r, clause=quote) for r in readings]
    if plain_parts := restated(text):  # "1820 saw X built by Y": X was built by Y in 1820
        return [
            replace(r, clause=r.clause or part)  # quoted alone where the sentence has it
            for part in plain_parts
            for r in _sentence_readings(part, relaxed)
        ]
    return None


def _gapped_readings(gapped: Gapped, relaxed: bool) -> list[Reading]:
    """The first clause's readings, each quoted from that clause, and its main verb's again
    with the second clause's subject and object, quoted from the second clause."""
    first = [
        replace(r, clause=r.clause or gapped.first)
        for r in _sentence_readings(f"{gapped.first}.", relaxed)
    ]
    things = noun_phrases(gapped.object)
    if not first or not things or first[0].predicate in ("is", "is a"):
        return first
    main = first[0]
    shared = [r for r in first if r.subject == main.subject and r.predicate == main.predicate]
    return first + [
        Reading(gapped.subject, r.predicate, things[0], r.confidence, clause=gapped.second)
        for r in shared[:1]
    ]


def _with_delegated(text: str, readings: list[Reading], relaxed: bool) -> list[Reading]:
    """``readings`` with the deed ``text`` states of a party named after its verb ("X
    commissioned Y to build Z": Y built Z), quoted from its own words, and the opening
    party's relations quoted without the deed (:mod:`teams.extraction.proxies`)."""
    deed = delegated_deed(text)
    if deed is None:
        return readings
    own = plain(deed.own)
    readings = [
        replace(r, clause=deed.own)
        if own and not r.clause and plain(r.subject) in own and plain(r.object) in own
        else r
        for r in readings
    ]
    done = read_sentence(deed.statement, relaxed=relaxed)
    return readings + [replace(r, clause=deed.quoted) for r in done]


def _names_span(reading: Reading, sentence: str) -> str:
    """The words of ``sentence`` from the first of a reading's two names to the end of the
    last ("Quarles mill built by Abel Stour" of "Lord Ranby had the Quarles mill built by Abel
    Stour."): the quotation of a reading restated in other words, which leaves out whoever
    else the sentence names; "" when ``sentence`` does not hold both as written."""
    names = (reading.subject, reading.object)
    places = [sentence.find(name) for name in names]
    if min(places) < 0:
        return ""
    end = max(place + len(name) for place, name in zip(places, names, strict=True))
    return sentence[min(places) : end]


def _clause_holding(reading: Reading, sentence: str) -> str:
    """The one clause of a sentence of clauses joined by semicolons that holds both of a
    reading's names ("the design was Hilda Marwood's" of "Far from designing the hall, Cyril
    Dunstan opposed it; the design was Hilda Marwood's."), or "": the rest is not its
    quotation."""
    clauses = [part.strip() for part in sentence.split(";")]
    holding = [c for c in clauses if reading.subject in c and reading.object in c]
    return holding[0] if len(clauses) > 1 and len(holding) == 1 else ""


def _within(clause: str, sentence: str) -> bool:
    """Whether each part of a quotation (its gaps marked) is in ``sentence``."""
    return all(plain(part) in plain(sentence) for part in quoted_parts(clause))


def _item_readings(lead: list[Reading], item: str) -> list[Reading]:
    """The readings of a list item under a lead-in that states a relation ("serves three
    towns:"): the lead-in's subject and predicate with each thing the item names."""
    main = lead[0]
    things = noun_phrases(item.split(LIST_JOIN, 1)[1])
    return [Reading(main.subject, main.predicate, thing, main.confidence) for thing in things]


_ASKS = re.compile(r"\?(?:\s|$)")
"""A question mark that ends a question (not a URL's query, "/?p=12")."""


class _SectionReader:
    """Reads one section's sentences and key-value lines in order, following its focus."""

    def __init__(
        self,
        section: Section,
        expanded: Mapping[str, str],
        relaxed: bool,
        marked: Mapping[str, str] | None = None,
        signed_by: str = "",
    ) -> None:
        self.section, self.expanded, self.relaxed = section, expanded, relaxed
        self.marked = marked or {}
        """Each footnote mark of the document and the thing it follows."""
        subject = _heading_subject(
            section.heading, _TITLE_WORDS if section.front else _HEADING_WORDS
        )
        if subject.lower() in _GENERIC_SECTIONS and section.outline:  # "## Credits" of a lido
            subject = _heading_subject(section.outline.split(" > ")[-1])
        self.focus = _Focus(subject, subject)
        self.lead: list[Reading] = []
        self.question = ("", "")
        """What the sentence before asked who did, and that sentence ("Who carved ...?")."""
        self.before = ""
        """The sentence before, whose pair of names "the latter" may point to."""
        self.lead_in = ""
        """The sentence before when it ends in a colon ("... is carved with these words:")."""
        self.addressee = addressee(section.text)
        """Whom the section is a letter to ("Dear Mrs Tregaskis,"): its "you"."""
        self.signer = signed_by
        """Who signs the section ("— Hugh Barrow", a letter's "Yours faithfully, ..."): its
        "I"."""
        self.terms = defined_terms(section.text)
        """The terms the section defines for its parties ("the Builder") and their names."""

    def triples(self) -> Iterator[_Found]:
        """Every triple of the section, line by line."""
        lines = self.section.text.split("\n")
        fields = key_values(self.section.text, self.section.line, self.section.front)
        statements = [
            (n, clause)  # "... does exactly this; I wrote it": "I wrote it" read as a sentence
            for n, sentence in self.section.sentences()
            if n not in fields
            for clause in clauses_apart(sentence)
        ]
        statements += [(number, "") for number in fields]
        statements.sort(key=lambda statement: statement[0])
        held: list[_Found] = []  # the last statement's, kept back until the next one
        if self.section.heading_line:  # "## Ada Wolfe, maker of the Netley clock"
            yield from self._heading(self.section.heading, self.section.heading_line)
        for number, sentence in statements:
            if sentence:
                found = self._sentence(number, sentence)
            else:
                found = self._field(number, lines[number - self.section.line], *fields[number])
            if not (sentence and denies_the_last(sentence)):  # "This is not true."
                yield from held
            held = [one for one in found if one is not None]
        yield from held

    def _heading(self, heading: str, number: int) -> Iterator[_Found]:
        """What the section's heading says in apposition, on its own line; its name is what
        a pronoun opening the section stands for."""
        readings = heading_readings(heading)
        if readings and not self.focus.subject:
            self.focus = _Focus(readings[0].subject, readings[0].subject)
        for reading in readings:
            if (found := _found(reading, heading, number, heading, self.expanded)) is not None:
                yield found

    def _field(self, number: int, line: str, key: str, value: str) -> Iterator[_Found | None]:
        evidence = LIST_MARKER.sub("", line).strip()
        said = f"{self.focus.subject} {line}"
        for reading in attribute_readings(self.focus.subject, key, unmarked(value)):
            yield _found(reading, evidence, number, said, self.expanded)

    def _readings(self, text: str) -> tuple[str, list[Reading]]:
        """The sentence's readings, and the text they were read from (with the section's
        subject put before it when it opens with its predicate, or a definition list's term
        before its definition)."""
        if defined := _definition(text):  # "Holme mill : Built by Sarah Pike in 1804."
            return defined, _sentence_readings(defined, self.relaxed)
        if carved := self._inscription(text):  # "> ERECTED BY THOMAS WRAY MDCCCXLII"
            return carved, _sentence_readings(carved, self.relaxed)
        if noted := self._footnote(text):  # "[^1]: Built by Silas Venn in 1851."
            return noted, _sentence_readings(noted, self.relaxed)
        title = self.focus.subject or _heading_subject(self.section.heading, _TITLE_WORDS)
        if credited := byline(text, title):  # "A new play by Delphine Marr" under its title
            return f"{title}: {text}", credited
        asks = _ASKS.search(text) is not None  # "does anyone know who founded this group?"
        if asks or hearsay(text):  # a question states nothing (its answer may: `answered`);
            readings = []  # "It is often said that ...": a claim reported, not made
        elif LIST_JOIN in text and self.lead:
            readings = _item_readings(self.lead, text)
        else:
            readings = entry_readings(self.section.heading, text) or _sentence_readings(
                text.replace(f":{LIST_JOIN}", " "), self.relaxed
            )
        filled = with_subject(text, self.focus.subject) if self.focus.subject else ""
        if filled and not asks and all(text.startswith(r.subject) for r in readings):
            # "Founded in 1990 by Jane Roe.": nothing read, or its verb read as a subject
            return filled, _sentence_readings(filled, self.relaxed)
        return text, readings

    def _inscription(self, text: str) -> str:
        """An inscription in capitals under a lead-in that names what it is carved on, as a
        sentence of that thing ("Ambler fountain was erected by Thomas Wray in 1842."), or
        "" (:mod:`teams.extraction.inscriptions`)."""
        carved = inscription(text) if self.lead_in else ""
        thing = inscribed_thing(self.lead_in) if carved else ""
        return with_subject(carved, thing) if thing else ""

    def _footnote(self, text: str) -> str:
        """A footnote that opens with its predicate, as a sentence of the thing its mark
        follows ("Corve viaduct was built by Silas Venn in 1851."), or ""."""
        note = footnote(text)
        thing = self.marked.get(note[0], "") if note else ""
        return with_subject(note[1], thing) if note and thing else ""

    def _sentence(self, number: int, sentence: str) -> Iterator[_Found | None]:
        if (lead := _RUN_IN.match(sentence.strip())) and (thing := _heading_subject(lead["lead"])):
            self.focus = _Focus(thing, thing)  # "**The Ardry dam.** Designed by Lucy Hale."
            sentence = lead["rest"] or sentence
        turn = spoken(without_marks(unmarked(sentence)), answering=bool(self.question[0]))
        turn = signed(turn, self.signer)  # "I built X. — Hugh Barrow": Hugh Barrow built X
        turn = addressed(turn, self.addressee)  # "Dear Mrs Roe, ... the gate you built"
        turn = with_defined_terms(turn, self.terms)  # "The Builder shall build X"
        turn = achievement_owned(_without_rebuttal(turn))  # "Not quite: his sister built X"
        said = self.focus.resolved(without_definitions(turn))
        written, said = said, with_referents(said, self.before)
        self.before = written
        text, readings = self._readings(without_aliases(said))
        shown = without_unknown(without_denied(sentence, LIST_JOIN))  # "Jon Hale … built it."
        shown = agent_named(shown, LIST_JOIN)  # "designed by … the young Lena Holt"
        shown = without_citations(shown, LIST_JOIN)  # "built in 1834 … by Miriam Oddy"
        shown = without_attribution(shown) if self.signer else shown  # "... — Hugh Barrow"
        if said != written:  # "... designed by the former": that clause, not the pair
            shown = referring_clause(shown) or shown
        (question, asked_in), self.question = self.question, (asked(text), sentence)
        verbless = not readings or stands_for_verb(text) or names_in_apposition(text)
        if verbless and (statement := answered(question, text)):
            # "Who built X? The mason Ann Roe." or "Who built X? Ann Roe did."
            text, readings = statement, _sentence_readings(statement, self.relaxed)
            shown = f"{asked_in}{LIST_JOIN}{sentence}"
        self.lead_in = text if text.endswith(":") else ""
        if text.endswith(":"):
            self.lead = read_sentence(text.rstrip(":"), relaxed=self.relaxed)
        if LIST_JOIN not in text:
            self.focus.follow(readings, text)
        for reading in readings:
            quoted = reading.clause if _within(reading.clause, sentence) else ""
            quoted = quoted or (_names_span(reading, sentence) if reading.clause else "")
            quoted = quoted or _clause_holding(reading, shown)
            yield _found(reading, quoted or shown, number, text, self.expanded)
        for alias in aliases(said) or aliases(unmarked(sentence)):
            named = f"{said} {alias.alias}"  # a maiden name is put together: "Martha Pollard"
            for reading in alias_readings(alias):
                yield _found(reading, sentence, number, named, self.expanded)
        for short, long in defined(unmarked(sentence)):
            definition = Reading(short, "stands for", long, _DEFINITION)
            yield _found(definition, sentence, number, unmarked(sentence), {})


_REBUTTAL = re.compile(
    r"^(?:not\s+(?:quite|exactly|so|true)|no|actually|in\s+fact)\s*[:;,—–]\s*(?=\w)", re.I
)
"""A reply's opening that denies what it answers, not what it goes on to say ("Not quite: ...",
"Actually, ...")."""


def _without_rebuttal(sentence: str) -> str:
    """``sentence`` without a rebuttal it opens with, its next word capitalised."""
    found = _REBUTTAL.match(sentence)
    if found is None:
        return sentence
    rest = sentence[found.end() :]
    return rest[:1].upper() + rest[1:]


def _signers(sections: Sequence[Section]) -> list[str]:
    """Who signs each section (see :func:`~teams.extraction.signatures.signer`): read over the
    run of sections under its heading that it belongs to, since a code block or the length of
    a letter splits one text into several ("I wrote it", a block, then the "answered" card)."""
    found: list[str] = []
    for _, grouped in groupby(sections, key=lambda s: (s.heading, s.outline, s.front)):
        run = list(grouped)
        head = run[0].outline.split(" > ")[0] or run[0].heading
        found += [signer("\n".join(section.text for section in run), head)] * len(run)
    return found


def document_triples(document: Document, relaxed: bool = False) -> Iterator[_Found]:
    """Every relation the document states, with its subject's type where one is given; with
    ``relaxed``, the relaxed sentence patterns too."""
    expanded = {
        entity_id(short): long
        for _, sentence in document.sentences()
        for short, long in defined(unmarked(sentence))
    }
    marked = marked_things(sentence for _, sentence in document.sentences())
    signers = _signers(document.sections)
    for section, signed_by in zip(document.sections, signers, strict=True):
        yield from _SectionReader(section, expanded, relaxed, marked, signed_by).triples()
    for row in document.rows:
        for reading in row_readings(row):
            quoted = row.quote((reading.subject, reading.object))
            said = " | ".join((*row.header, *row.cells))  # a transposed table's thing heads
            if (found := _found(reading, quoted, row.line, said, expanded)) is not None:
                yield found
