"""The code example a question quotes from: a phrase it quotes ("2 days ago") written in the
code under a sentence that leads into it.

A question that quotes what its asker has in hand ("Can Arrow turn a phrase like "2 days ago"
back into a date?") may be answered only by an example: the sentence before the code says what
it does in other words ("Take a human readable string and use it to shift into a past time:")
and the code names how (``earlier = arw.dehumanize("2 days ago")``). Neither says it alone.

Example:
    >>> from teams.language.sentence_choice import ranked_sentences
    >>> text = 'Shift the reading back:\\n\\n    >>> arw.dehumanize("2 days ago")\\n\\nOr move it.'
    >>> asked = 'Can I parse "2 days ago"?'
    >>> quoted_example(text, ranked_sentences(text, asked), asked)
    (0, 'arw.dehumanize("2 days ago")')
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from teams.language.questions import quoted_terms
from teams.language.sentence_choice import Scored

__all__ = ["FENCE_LINE", "named_in_example", "quoted_example"]

_PROMPT = re.compile(r"^\s*(?:>>>|\.\.\.|\$)\s+")
"""An interpreter's or a shell's prompt before a line of code."""
FENCE_LINE = re.compile(r"^\s*(?:```|~~~)")
"""The line that opens or closes a fenced block of code."""


def quoted_example(text: str, sentences: Sequence[Scored], question: str) -> tuple[int, str] | None:
    """The index in ``sentences`` (those of ``text``, in text order) of the one that leads into
    an example (it ends with a colon) whose code holds a phrase of two or more words that
    ``question`` quotes, and that line of code without its prompt; None when there is none."""
    phrases = [term.lower() for term in quoted_terms(question) if len(term.split()) > 1]
    if not phrases:
        return None
    lines = text.splitlines()
    for at, item in enumerate(sentences):
        if not item.sentence.rstrip().endswith(":"):
            continue
        for code in _example(lines, sentences, at):
            if any(phrase in code.lower() for phrase in phrases):
                return at, _PROMPT.sub("", code).strip()
    return None


def named_in_example(text: str, sentences: Sequence[Scored], at: int) -> str:
    """The name the code under sentence ``at`` gives, as one identifier, to what the sentence
    says in words ("To use the proxy fix middleware ..., wrap your app", then ``from
    hypercorn.middleware import ProxyFixMiddleware``; "The s3 access key id. For example::",
    then ``s3_access_key_id = 'a-key'``), when the sentence leads into the code (it ends with a
    colon or a comma) and does not write the name itself; "" when there is none.

    >>> from teams.language.sentence_choice import ranked_sentences
    >>> text = "Wrap it in the proxy fix middleware:\\n\\n    ProxyFixMiddleware(app)\\n\\nDone."
    >>> named_in_example(text, ranked_sentences(text, "Which middleware?"), 0)
    'ProxyFixMiddleware'
    """
    sentence = sentences[at].sentence.rstrip()
    if not sentence.endswith((":", ",")):
        return ""
    words = re.findall(r"[a-z0-9]+", sentence.lower())
    for code in _example(text.splitlines(), sentences, at):
        for name in (found.group() for found in _IDENTIFIER.finditer(code)):
            parts = [part.lower() for part in _NAME_PART.findall(name)]
            if name not in sentence and len(parts) > 1 and _in_a_row(parts, words):
                return name
    return ""


_IDENTIFIER = re.compile(r"\b(?:[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+|[a-z][a-z0-9]*(?:_[a-z0-9]+)+)\b")
"""A name written as code: CapWords of two or more words, or snake_case."""
_NAME_PART = re.compile(r"[A-Z]?[a-z0-9]+")


def _in_a_row(parts: Sequence[str], words: Sequence[str]) -> bool:
    """Whether ``words`` hold ``parts`` one after the other."""
    return any(list(words[at : at + len(parts)]) == list(parts) for at in range(len(words)))


def _example(lines: Sequence[str], sentences: Sequence[Scored], at: int) -> list[str]:
    """The lines of code between sentence ``at`` and the next (indented, fenced or after a
    prompt)."""
    end = sentences[at + 1].offset if at + 1 < len(sentences) else len(lines)
    fenced, found = False, []
    for code in lines[sentences[at].offset + 1 : end]:
        fenced ^= bool(FENCE_LINE.match(code))
        if fenced or code[:1].isspace() or _PROMPT.match(code):
            found.append(code)
    return found
