"""Prompts of the model-backed cartographer and critic, and the requests they are sent.

The system prompts are the packaged defaults of the ``cartographer`` and ``critic`` roles; a run
takes the current versions from the role registry. Requests are deterministic: the same
document, output and critiques give the same request.
"""

from __future__ import annotations

from collections.abc import Sequence

from teams.extraction.documents import Document
from teams.extraction.state import Critique, Extraction

__all__ = [
    "CARTOGRAPHER_ROLE",
    "CARTOGRAPHER_SYSTEM",
    "CRITIC_ROLE",
    "CRITIC_SYSTEM",
    "cartographer_request",
    "critic_request",
]

CARTOGRAPHER_ROLE = "cartographer"
CRITIC_ROLE = "critic"

CARTOGRAPHER_SYSTEM = (
    "You map a document into a knowledge graph. Extract the relations it states as triples: "
    "subject, predicate (a short verb phrase), object, confidence in [0, 1] (how explicitly "
    "the text states it), the evidence (a verbatim excerpt of the sentence that states it) and "
    "the line number shown before that sentence. Subjects and objects are names or short noun "
    "phrases as written in the text. Add the entities with a type when the text gives one. "
    "Extract only what the text states; no duplicates. When critiques of your previous output "
    "are given, fix every one of them."
)
CRITIC_SYSTEM = (
    "You review triples extracted from a document. Fail the extraction when a triple is not "
    "supported by its evidence, misreads the text, names a subject or object the text does not "
    "mention, or when an important relation the text states is missing. Give one short critique "
    "per problem, with the index of the triple it concerns (null for the whole output). Pass it "
    "when there is nothing to fix."
)


def _numbered(document: Document) -> str:
    lines = [
        f"{section.line + offset}: {text}"
        for section in document.sections
        for offset, text in enumerate(section.text.splitlines())
        if text.strip()
    ]
    return "\n".join(lines) or "(no prose)"


def _triples(extraction: Extraction) -> str:
    return (
        "\n".join(
            f"[{i}] ({t.subject}; {t.predicate}; {t.object}) confidence {t.confidence:.2f}, "
            f"line {t.line}: {t.evidence or '(no evidence)'}"
            for i, t in enumerate(extraction.triples)
        )
        or "(none)"
    )


def _critiques(critiques: Sequence[Critique]) -> str:
    return "\n".join(
        f"- {c.message}" if c.triple is None else f"- triple [{c.triple}]: {c.message}"
        for c in critiques
    )


def cartographer_request(
    document: Document, previous: Extraction | None, critiques: Sequence[Critique]
) -> str:
    """The document with line numbers and, on a revision, the previous triples and what the
    critic said of them."""
    parts = [f"Document {document.path}:\n{_numbered(document)}"]
    if previous is not None and critiques:
        parts.append(f"Your previous triples:\n{_triples(previous)}")
        parts.append(f"Critiques to fix:\n{_critiques(critiques)}")
    return "\n\n".join(parts)


def critic_request(document: Document, extraction: Extraction, found: Sequence[Critique]) -> str:
    """The document, the triples to review and the problems the rules already found."""
    parts = [
        f"Document {document.path}:\n{_numbered(document)}",
        f"Triples:\n{_triples(extraction)}",
    ]
    if found:
        parts.append(f"Already found (do not repeat):\n{_critiques(found)}")
    return "\n\n".join(parts)
