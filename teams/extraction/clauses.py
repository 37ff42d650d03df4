"""Relative clauses taken out of a sentence and read as sentences of their own, and a gapped
second clause that shares the first's verb ("A built X, and B Y").

"Nora Pell, who was born in Danby, founded the dairy." states two relations: its main clause
("Nora Pell founded the dairy.") and its relative clause about what it follows ("Nora Pell
was born in Danby"). A clause set off by commas ends at the first comma before a lower-case
word and is taken out of the main clause. One without commas ("Tull built the mill that
grinds corn.") is read only after a verb or preposition, up to the next comma, and only when
it opens with a verb; its sentence is kept whole, as after the subject its end is unknown
("The mill that Tull built grinds corn"). "whose" reads as a possessive ("Nora Pell's father
was a miller"), "where" as a place ("... born in Danby"), and "which Tull built" puts what it
follows after the verb ("Tull built the mill"). A "whose" clause and the main clause are each
quoted without the other (:func:`whose_quotes`), so a relation of one never quotes the other's
names.

Example:
    >>> simple_clauses("The Ketter canal, which was dug in 1790, links Orme and Sallow.")
    ['The Ketter canal links Orme and Sallow.', 'The Ketter canal was dug in 1790']
"""

from __future__ import annotations

import re
from typing import NamedTuple

from teams.extraction.patterns import PARTICIPLE, looks_like_verb

__all__ = [
    "Gapped",
    "antecedent",
    "clauses_apart",
    "gapped_clause",
    "independent_clauses",
    "simple_clauses",
    "whose_quotes",
]

_RELATIVE = re.compile(r"(?P<comma>,)?\s+(?P<pronoun>who|which|that|whose|where)\s+")
_DETERMINERS = "the a an this these those its their his her our my your"
_NOT_A_VERB = frozenset(f"{_DETERMINERS} that he she it they we you i".split())
"""Words that open a clause's subject, not its verb."""
_FUNCTION = f"{_DETERMINERS} that who which whose where and or but of in on at to for with by "
_FUNCTION += "from as into is are was were be been has have had"
_WORD = rf"(?!(?:{_FUNCTION.replace(' ', '|')})\b)[\w'’-]+"
_ANTECEDENT = re.compile(
    rf"(?:\b(?i:{_DETERMINERS.replace(' ', '|')})\s+(?:{_WORD}\s+){{0,3}}{_WORD}"
    rf"|\b[A-Z][\w'’-]*(?:\s+(?:(?:of|and|&)\s+)?[A-Z][\w'’-]*){{0,4}})$"
)
"""What a relative clause is about: a noun phrase after a determiner, or a name."""
_CLAUSE_END = re.compile(r",\s+(?=(?!(?:and|or|but|the|a|an)\b)[a-z])")
"""The comma that closes a clause set off by commas: the main clause goes on in lower case."""
_AFTER_GAP = frozenset("in on at by to for from with into near during before after".split())
"""What may follow the verb of "which Tull built": not its object, which the clause lacks."""
_NAME = r"[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*"
"""A name: capitalised words."""
_NAMED_SUBJECT = re.compile(rf"^(?P<subject>{_NAME})\s+(?P<verb>[a-z]+)")
"""A clause opening with a name and its verb ("which Tull built"): an object relative."""
_END = ".!?"
_UNSET = re.compile(r"\s*[,;:()]")
"""Where a relative clause without commas ends, at the latest."""
_AUXILIARIES = frozenset(
    "is are was were has have had can could will would may might must should does did".split()
)


def antecedent(text: str) -> str:
    """The noun phrase that ends ``text`` (a name, or a phrase after a determiner), or ""."""
    found = _ANTECEDENT.search(text)
    return found.group() if found else ""


def simple_clauses(sentence: str) -> list[str]:
    """The main clause of ``sentence`` with its relative clauses set off by commas taken out,
    then each relative clause as a sentence about what it follows; ``[sentence]`` when it has
    none."""
    for relative in _RELATIVE.finditer(sentence):
        head, after = sentence[: relative.start()], sentence[relative.end() :]
        antecedent = _ANTECEDENT.search(head)
        set_off = relative.group("comma") is not None
        closing = _CLAUSE_END.search(after) if set_off else None
        if antecedent is None or (antecedent.start() == 0 and closing is None):
            continue  # no noun before it, or after the subject with no end known
        clause = after[: closing.start()] if closing else _UNSET.split(after, maxsplit=1)[0]
        pronoun = relative.group("pronoun")
        said = _about(antecedent.group(), pronoun, clause.rstrip(_END), set_off=set_off)
        if not said and (pronoun == "that" or not set_off):
            continue  # "told the council that the bridge leaks": what was said
        if not set_off:  # "built the mill that grinds corn": the sentence is kept whole
            return [sentence, *simple_clauses(said)]
        main = simple_clauses(f"{head} {after[closing.end() :]}" if closing else f"{head}.")
        return [*main, *simple_clauses(said)] if said else main
    return [sentence]


def whose_quotes(sentence: str, gap: str) -> tuple[str, str] | None:
    """For a "whose" clause set off by commas after a noun: the main clause as quoted with the
    clause put as ``gap`` ("Joel Brand bought the mill … in 1899."), and the noun with its
    clause as written ("the mill, whose architect had been Lydia Cole"); None otherwise."""
    for relative in _RELATIVE.finditer(sentence):
        head, after = sentence[: relative.start()], sentence[relative.end() :]
        noun = _ANTECEDENT.search(head)
        closing = _CLAUSE_END.search(after)
        if relative["pronoun"] != "whose" or not relative["comma"] or noun is None:
            continue
        if noun.start() == 0 and closing is None:
            continue  # after the subject with no end known
        clause = after[: closing.start()] if closing else after.rstrip(_END)
        main = f"{head}{gap}{after[closing.end() :]}" if closing else f"{head}."
        return main, f"{noun.group()}, whose {clause}"
    return None


def _about(antecedent: str, pronoun: str, clause: str, *, set_off: bool) -> str:
    """The relative clause as a sentence about its antecedent; "" when it cannot be said."""
    if pronoun == "whose":
        return f"{antecedent}'s {clause}"
    if pronoun == "where":
        return f"{clause} in {antecedent}"
    named = _NAMED_SUBJECT.match(clause)
    after = clause[named.end() :].split() if named else []
    if named is not None and (not after or after[0] in _AFTER_GAP):
        # "which Tull built in 1820": Tull built the mill in 1820
        word, space, rest = antecedent.partition(" ")
        inside = f"{word.lower()}{space}{rest}" if word.lower() in _NOT_A_VERB else antecedent
        return f"{named.group()} {inside}{clause[named.end() :]}"
    first, second, *_ = [*clause.split(), "", ""]
    if set_off:  # "Workers, which run tasks,"
        verb = first.islower() and first not in _NOT_A_VERB
    else:  # not "that long", "that key"
        verb = first in _AUXILIARIES or looks_like_verb(first, second.lower())
    return f"{antecedent} {clause}" if verb else ""


class Gapped(NamedTuple):
    """A sentence whose second clause leaves out the verb of its first: the first clause, the
    second's subject and object, and the second clause as written."""

    first: str
    subject: str
    object: str
    second: str


_GAPPED = re.compile(
    r"^(?P<first>.+?),?\s+and\s+(?P<second>(?P<subject>[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*)\s+"
    r"(?P<object>(?:the|a|an|its|their|his|her)\s+[^,;]+?))\s*[.!?]?$"
)
"""A second clause of a name and a noun phrase, no verb between: "..., and Tom Hask the south
pier"."""


def gapped_clause(sentence: str) -> Gapped | None:
    """The parts of a sentence whose second clause shares the first's verb ("Nell Orr built
    the north pier, and Tom Hask the south pier": Tom Hask built the south pier), or None."""
    found = _GAPPED.match(sentence)
    if found is None or " " not in found["first"].strip():
        return None
    return Gapped(found["first"], found["subject"], found["object"], found["second"])


_COORDINATION = re.compile(
    r",\s*(?:and|but|yet)\s+(?=[A-Z]|(?:nobody|no\s+one)\b)"
    r"|,\s*(?:(?:[\w-]+\s+){0,3}(?:before|after)|while|whereas|until)\s+(?=[A-Z][a-z])"
)
"""Where a second clause with a subject of its own starts: ", and Walter Ames built ...", ",
but nobody doubts that ...", ", two years before Sam Dent built ..." (not ", and the mill
...", whose subject may be the first's)."""
_AFFIRMED = re.compile(
    r"^(?:(?:nobody|no\s+one|none)\s+(?:doubts|disputes|denies|questions)|everyone\s+"
    r"(?:agrees|knows)|it\s+is\s+(?:certain|beyond\s+doubt|undisputed|well\s+known))\s+that\s+",
    re.IGNORECASE,
)
"""A frame that affirms the clause after it: "nobody doubts that", "it is certain that"."""


_PRONOUN_CLAUSE = re.compile(r";\s+(?=(?:I|[Ww]e|[Hh]e|[Ss]he|[Tt]hey)\s+[a-z]{2,}\b)")
"""A semicolon before a clause whose subject is a pronoun: "...; I wrote it in 2019"."""


def clauses_apart(sentence: str) -> list[str]:
    """``sentence`` as the sentences its semicolons join when each clause after one opens with
    a pronoun subject, so that the clause's "it" can stand for what the clause before names,
    as a sentence's does for the sentence before; ``[sentence]`` otherwise.

    >>> clauses_apart("The tarrowread package does exactly this; I wrote it in 2019.")
    ['The tarrowread package does exactly this', 'I wrote it in 2019.']
    """
    parts = [part.strip() for part in _PRONOUN_CLAUSE.split(sentence)]
    return parts if all(parts) else [sentence]


def independent_clauses(sentence: str) -> list[str]:
    """The clauses of a sentence that coordinates two, each with its own subject ("The builder
    of the barn is unknown, but nobody doubts that Walter Ames built the gatehouse."), an
    affirming frame taken off ("Walter Ames built the gatehouse."), whose first is a
    fronted clause of time or contrast (:data:`_FRONTED`), or whose two verbs share their
    subject and object ("A designed and built X", "A not only designed X but also built
    it"); [] when it has one, or when the second refers back to the first by a pronoun (then
    only a fronted clause is read alone)."""
    shared = _SHARED_OBJECT.match(sentence) or _NOT_ONLY.match(sentence)
    if shared is not None:  # "A designed and built X": A designed X; A built X
        subject, obj, rest = shared["subject"], shared["object"], shared["rest"]
        return [f"{subject} {shared['first']} {obj}.", f"{subject} {shared['second']} {obj}{rest}"]
    fronted = _FRONTED.match(sentence)
    if fronted is not None:  # "While Ida Orme drew the plans, Gil Sharpe laid its stones."
        first, second = fronted["first"], fronted["second"]
        return [f"{first}.", *([] if _PRONOUN.search(second) else [second])]
    found = _COORDINATION.search(sentence)
    if found is None:
        return []
    first, second = sentence[: found.start()].strip(), sentence[found.end() :].strip()
    if _PRONOUN.search(second):  # "..., but Ada Lee built it": "it" is the first clause's
        return []
    second = _AFFIRMED.sub("", second)
    return [first + ".", second[:1].upper() + second[1:]] if first and second else []


_SHARED_OBJECT = re.compile(
    rf"^(?P<subject>{_NAME})\s+(?P<first>{PARTICIPLE})\s+and\s+(?:also\s+|then\s+)?"
    rf"(?P<second>{PARTICIPLE})\s+(?P<object>(?:the\s+)?[A-Z][^,.;]*?)(?P<rest>(?:[,.;].*)?)$"
)
"""Two verbs sharing a subject and an object: "Winifred Soames designed and built the Ketton
granary"."""
_NOT_ONLY = re.compile(
    rf"^(?P<subject>{_NAME})\s+not\s+only\s+(?P<first>{PARTICIPLE})\s+"
    rf"(?P<object>(?:the\s+)?[A-Z][^,.;]*?)\s+but\s+(?:also\s+)?(?P<second>{PARTICIPLE})\s+"
    r"(?:it\b|(?:the\s+)?[A-Z][^,.;]*)(?P<rest>.*)$"
)
"""A second verb whose object is the first's: "A not only designed X but also built it" (or
"built X", its pronoun already resolved)."""
_FRONTED = re.compile(
    r"^(?:While|Whilst|When|After|Although|Though|Once)\s+(?P<first>[A-Z][^,]{5,}),\s+"
    r"(?P<second>[A-Z].+)$"
)
"""A sentence opening with a clause of time or contrast whose subject is named ("While Ida
Orme drew the plans, ..."): both clauses state what happened."""


_PRONOUN = re.compile(r"\b(?:it|its|they|them|their|he|him|his|she|her)\b", re.IGNORECASE)
