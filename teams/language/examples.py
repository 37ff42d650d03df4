"""The code example a question quotes from: a phrase it quotes ("2 days ago") written in the
code under a sentence that leads into it.

A question that quotes what its asker has in hand ("Can Arrow turn a phrase like "2 days ago"
back into a date?") may be answered only by an example: the sentence before the code says what
it does in other words ("Take a human readable string and use it to shift into a past time:")
and the code names how (``earlier = arw.dehumanize("2 days ago")``). Neither says it alone.

Example:
    >>> text = 'Shift back:\\n\\n    >>> arw.dehumanize("2 days ago")\\n\\nOr forward.'
    >>> quoted_example(text, [(0, "Shift back:"), (4, "Or forward.")], 'Can I parse "2 days ago"?')
    (0, 'arw.dehumanize("2 days ago")')
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from teams.language.questions import quoted_terms

__all__ = ["quoted_example"]

_PROMPT = re.compile(r"^\s*(?:>>>|\.\.\.|\$)\s+")
"""An interpreter's or a shell's prompt before a line of code."""
_FENCE = re.compile(r"^\s*(?:```|~~~)")


def quoted_example(
    text: str, sentences: Sequence[tuple[int, str]], question: str
) -> tuple[int, str] | None:
    """The index in ``sentences`` (each its 0-based line in ``text`` and its words, in text
    order) of the one that leads into an example (it ends with a colon) whose code holds a
    phrase of two or more words that ``question`` quotes, and that line of code without its
    prompt; None when there is none."""
    phrases = [term.lower() for term in quoted_terms(question) if len(term.split()) > 1]
    if not phrases:
        return None
    lines = text.splitlines()
    for at, (line, sentence) in enumerate(sentences):
        if not sentence.rstrip().endswith(":"):
            continue
        end = sentences[at + 1][0] if at + 1 < len(sentences) else len(lines)
        fenced = False
        for code in lines[line + 1 : end]:
            fenced ^= bool(_FENCE.match(code))
            written = fenced or code[:1].isspace() or _PROMPT.match(code)
            if written and any(phrase in code.lower() for phrase in phrases):
                return at, _PROMPT.sub("", code).strip()
    return None
