"""The sentences of a text and how they hang together: the lists their lead-ins introduce,
and the command of the code block a sentence introduces."""

from __future__ import annotations

import re
from collections.abc import Sequence, Set
from dataclasses import dataclass

from framework.memory import LIST_MARKER, prose_sentences

__all__ = ["Listing", "listing_of", "sentences_of", "with_command", "with_items"]

_MIN_WORDS = 3


def sentences_of(text: str) -> list[tuple[int, str]]:
    """The prose sentences of ``text`` of at least three words, or two with a figure ("Released
    2025-03-05"), and every list item, without the shortcodes in them."""
    lines = text.split("\n")
    return [
        (offset, sentence)
        for offset, written in prose_sentences(text, first_line=0)
        if (sentence := _TEMPLATE_TAG.sub("", written).strip())
        and (_long_enough(sentence.split()) or LIST_MARKER.match(lines[offset]))
        and not _INCLUDE.match(sentence)
    ]


_INCLUDE = re.compile(r"\s*(?:\{[*%{#].*[*%}#]\}|--8<--.*|[!?]{3}\+?\s.*)\s*$")
"""A template or include directive standing for text not written here ("{* docs_src/a.py *}",
"{% include 'x.md' %}", "--8<-- 'x.md'"), or the title of an admonition ("!!! note "Title""):
no sentence."""


_TEMPLATE_TAG = re.compile(r"\{\{[%<].*?[%>]\}\}\s*")
"""A site generator's shortcode inside prose ("{{% note %}}", "{{< relref "x" >}}"): markup,
not words of the sentence."""


def _long_enough(words: list[str]) -> bool:
    return len(words) >= _MIN_WORDS or (len(words) == 2 and any(c.isdigit() for c in words[1]))


@dataclass(frozen=True)
class Listing:
    """How the sentences of a text hang together: each list item's lead-in, each lead-in's
    follower, and the lead-ins that introduce a list."""

    leads: dict[int, int]
    """Sentence index -> the index of the lead-in it continues (an item of its list, or the
    first sentence after a lead-in that introduces no list)."""
    lists: frozenset[int]
    """The lead-ins whose list follows them."""


_LEAD_IN = re.compile(r"(?::|\.\.\.|\u2026|\bas follows[.:]?|\bthe following[.:]?)$", re.I)


def listing_of(text: str, sentences: Sequence[tuple[int, str]]) -> Listing:
    """Which sentences continue a lead-in: the items of a list after a sentence ending in a
    colon ("There are two event hooks:") or a one-sentence paragraph right before it (sentences
    indented under an item keep the list open); and the sentence of the paragraph right after
    a lead-in that introduces no list ("... as follows:")."""
    lines = text.split("\n")
    leads: dict[int, int] = {}
    lists: set[int] = set()
    lead, in_list = -1, False
    for index, (offset, _) in enumerate(sentences):
        line = lines[offset] if offset < len(lines) else ""
        if LIST_MARKER.match(line):
            if lead >= 0 and (in_list or _introduces(lines, sentences[lead], offset)):
                leads[index], in_list = lead, True
                lists.add(lead)
            continue
        if in_list and line[:1] in (" ", "\t"):  # a paragraph of the item above
            continue
        introduced = lead >= 0 and not in_list and _LEAD_IN.search(sentences[lead][1])
        if introduced and _next_paragraph(lines, sentences[lead][0]) == offset:
            leads[index] = lead
        lead, in_list = index, False
    return Listing(leads, frozenset(lists))


def _introduces(lines: Sequence[str], lead: tuple[int, str], item: int) -> bool:
    """Whether sentence ``lead`` introduces the list whose first item is on line ``item``: it
    ends in a colon, or it is a paragraph of its own right before the list."""
    offset, sentence = lead
    alone = offset == 0 or not lines[offset - 1].strip()
    return bool(_LEAD_IN.search(sentence)) or (alone and _next_paragraph(lines, offset) == item)


def _next_paragraph(lines: Sequence[str], offset: int) -> int:
    """The line the paragraph after the one holding line ``offset`` starts on."""
    at = offset
    while at < len(lines) and lines[at].strip():
        at += 1
    while at < len(lines) and not lines[at].strip():
        at += 1
    return at


_HEAD_WORDS = 10
_WHOLE_ITEM_WORDS = 14
"""The most words of an item quoted whole; a longer one is quoted by its first
:data:`_HEAD_WORDS`."""
_ITEM_HEAD = re.compile(r" [-\u2013\u2014] |: ")
"""What ends an item's name: a dash between spaces or a colon ("`scope` - A dictionary",
"**Command Line**: Use ...")."""


def with_items(
    sentences: Sequence[tuple[int, str]], listing: Listing, only: Set[int] = frozenset()
) -> list[str]:
    """The text of each sentence, each lead-in of a list followed by the heads of its items
    ("The order ... is: From an environment variable; From the `.env` file; ..."): what the
    list says is what the lead-in answers; of a list that holds any of the items ``only``,
    those alone. An item's head is its name, the item itself when it is short, or its first ten
    words and an ellipsis when it goes on ("It is easy to install as it does not require...")."""
    chosen = {listing.leads[index] for index in only if index in listing.leads}
    items: dict[int, list[str]] = {}
    for index, lead in listing.leads.items():
        if lead in listing.lists and (lead not in chosen or index in only):
            words = _ITEM_HEAD.split(sentences[index][1], maxsplit=1)[0].split()
            cut = len(words) > _WHOLE_ITEM_WORDS
            head = " ".join(words[:_HEAD_WORDS] if cut else words).rstrip(".;,")
            items.setdefault(lead, []).append(head + ("..." if cut else ""))
    listed = {index: "; ".join(heads) for index, heads in items.items()}
    return [
        f"{sentence} {listed[index]}{'' if listed[index].endswith('...') else '.'}"
        if index in listed
        else sentence
        for index, (_, sentence) in enumerate(sentences)
    ]


_INTRODUCES = re.compile(r"(?::|\.\.\.|\u2026)$")
_FENCE = re.compile(r"^ {0,3}(?:`{3,}|~{3,})")
_PROMPT = re.compile(r"^(?:\$|>>>)\s*")


def with_command(lines: Sequence[str], offset: int, sentence: str) -> str:
    """``sentence`` with the first command of the code block it introduces ("install the
    optional dependencies..." then ``$ pip install ...``), for a question that asks how."""
    if not _INTRODUCES.search(sentence):
        return sentence
    at = _next_paragraph(lines, offset)
    if at >= len(lines) or not _FENCE.match(lines[at]):
        return sentence
    for line in lines[at + 1 :]:
        if _FENCE.match(line):
            break
        command = _PROMPT.sub("", line.strip())
        if command and not command.startswith("#"):
            return f"{sentence} `{command}`"
    return sentence
