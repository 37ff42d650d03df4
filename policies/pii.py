"""PII and secrets in text: detectors, and what to do with what they find.

Detectors find spans of one kind each (:data:`KINDS`): e-mail addresses, phone numbers, payment
cards (Luhn-checked), IBANs (mod-97-checked), IP addresses, national-ID shapes (US SSN, UK NINO)
and secrets (provider API keys, bearer tokens, private-key blocks, quoted secret assignments).
They aim at precision on technical prose: version numbers, dates, times, prices, hashes and
UUIDs are not phone numbers or cards.

A :class:`Redactor` applies one action per kind: ``redact`` (``[EMAIL]``), ``mask`` (all but the
last four characters), ``hash`` (``[EMAIL:3f9a1c0b]``, an HMAC under the tenant's key, so the same
value joins within a tenant and nowhere else) or ``block`` (:class:`PiiBlocked`, naming kinds,
never values). Findings record kind, action and position, never the value. Custom detectors are
any object with a ``kind`` and ``find(text)``.

The policy layer applies a redactor to tool arguments and outputs, workers' evidence, model
inputs, memory writes, answers and span attributes; this module is only the text work.
"""

from __future__ import annotations

import bisect
import hashlib
import hmac
import ipaddress
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

from framework.errors import ConfigError, RunError

__all__ = [
    "ACTIONS",
    "DETECTORS",
    "KINDS",
    "Detector",
    "Finding",
    "PiiBlocked",
    "Redaction",
    "Redactor",
    "RegexDetector",
    "Span",
]

Action = Literal["redact", "mask", "hash", "block"]
ACTIONS: tuple[Action, ...] = ("redact", "mask", "hash", "block")

KINDS = ("secret", "card", "iban", "email", "ssn", "nino", "phone", "ip")
"""Every built-in kind, in the order overlapping finds are preferred (after length)."""


class PiiBlocked(RunError):  # noqa: N818 - names what happened to the text
    """Text held PII of a kind its rules block; the message names the kinds, never values."""


@dataclass(frozen=True, slots=True)
class Span:
    """Where a detector found something: ``text[start:end]`` is of ``kind``."""

    start: int
    end: int
    kind: str


@runtime_checkable
class Detector(Protocol):
    """Finds spans of one kind."""

    kind: str

    def find(self, text: str) -> Iterable[Span]:
        """The spans of this kind in ``text``."""
        ...


class RegexDetector:
    """Spans matching a pattern (its ``value`` group, or the whole match) that ``check`` keeps.

    Args:
        kind: What it finds.
        pattern: The regular expression.
        check: Keeps a candidate (the matched value) or drops it; all are kept when None.
    """

    def __init__(self, kind: str, pattern: str, check: _Check | None = None) -> None:
        self.kind = kind
        self.pattern = re.compile(pattern, re.MULTILINE)
        self.check = check

    def find(self, text: str) -> Sequence[Span]:
        """The checked matches."""
        if self.pattern.search(text) is None:  # most texts hold nothing: one scan, no iterator
            return ()
        group = "value" if "value" in self.pattern.groupindex else 0
        return [
            Span(match.start(group), match.end(group), self.kind)
            for match in self.pattern.finditer(text)
            if self.check is None or self.check(match.group(group), text, match.start(group))
        ]


class _Check(Protocol):
    def __call__(self, value: str, text: str, at: int) -> bool: ...


def _digits(value: str) -> str:
    return re.sub(r"\D", "", value)


def _luhn(value: str, text: str, at: int) -> bool:
    digits = _digits(value)
    if not 13 <= len(digits) <= 19 or len(set(digits)) == 1:
        return False
    total = 0
    for index, char in enumerate(reversed(digits)):
        number = int(char) * (2 if index % 2 else 1)
        total += number - 9 if number > 9 else number
    return total % 10 == 0 and digits[0] in "23456"


_IBAN_LENGTHS = {
    "AT": 20, "BE": 16, "CH": 21, "CZ": 24, "DE": 22, "DK": 18, "ES": 24, "FI": 18, "FR": 27,
    "GB": 22, "IE": 22, "IT": 27, "LU": 20, "NL": 18, "NO": 15, "PL": 28, "PT": 25, "SE": 24,
}  # fmt: skip


def _iban(value: str, text: str, at: int) -> bool:
    compact = re.sub(r"\s", "", value).upper()
    expected = _IBAN_LENGTHS.get(compact[:2])
    if expected is not None and len(compact) != expected:
        return False
    rearranged = compact[4:] + compact[:4]
    number = "".join(str(int(char, 36)) for char in rearranged)
    return int(number) % 97 == 1


def _ssn(value: str, text: str, at: int) -> bool:
    area, group, serial = value[:3], value[4:6], value[7:]
    return area not in {"000", "666"} and area[0] != "9" and group != "00" and serial != "0000"


_VERSION_WORDS = re.compile(
    r"(?:version|release|v|ver\.?|python|node|java|go|section|chapter|§|rfc \d+|step)\s*$", re.I
)
_PHONE_WORDS = re.compile(
    r"(?:call|phone|tel|telephone|mobile|cell|line|fax|contact|voicemail|whatsapp|sms|dial|"
    r"reach|ring|number)\b[^.\n]{0,40}$",
    re.I,
)
_NANP = re.compile(r"\d{3}[-. ]\d{3}[-. ]\d{4}")


def _ip(value: str, text: str, at: int) -> bool:
    try:
        address = ipaddress.ip_address(value)
    except ValueError:
        return False
    return not (address.version == 4 and _VERSION_WORDS.search(text[max(0, at - 12) : at]))


def _phone(value: str, text: str, at: int) -> bool:
    digits = _digits(value)
    if not 9 <= len(digits) <= 15:
        return False
    if re.fullmatch(r"(?:19|20)\d\d[-./]\d\d[-./]\d\d", value.strip()):
        return False  # a date
    if re.fullmatch(r"(?:\d{1,3}\.){3}\d{1,3}", value):
        return False  # an IP address
    before = text[max(0, at - 1) : at]
    after = text[at + len(value) : at + len(value) + 2]
    if (before and before in "$€£.,:#/-") or re.match(r"[.:/]\d|%", after):
        return False
    # digit groups alone are too common (serials, sizes): a phone shows a country code, an area
    # code in parentheses, the North American shape, or a word saying so just before it
    shaped = value.startswith(("+", "(")) or _NANP.fullmatch(value) is not None
    return shaped or _PHONE_WORDS.search(text[max(0, at - 48) : at]) is not None


_SECRET_PATTERNS = (
    r"-----BEGIN (?:[A-Z]+ )?PRIVATE KEY-----[\s\S]+?-----END (?:[A-Z]+ )?PRIVATE KEY-----",
    r"\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}",
    r"\bAKIA[0-9A-Z]{16}\b",
    r"\bgh[pousr]_[A-Za-z0-9]{36,}\b",
    r"\bxox[abpr]-[A-Za-z0-9-]{10,}",
    r"\bAIza[0-9A-Za-z_-]{35}\b",
    r"(?<=\b[Bb]earer )[A-Za-z0-9._~+/-]{20,}=*",
)

DETECTORS: tuple[Detector, ...] = (
    RegexDetector("secret", "|".join(f"(?:{p})" for p in _SECRET_PATTERNS)),
    RegexDetector(
        "secret",
        r"(?i:api[_-]?key|secret|token|password|passwd)\s*[=:]\s*[\"'](?P<value>[^\"'\s]{12,})[\"']",
    ),
    RegexDetector("card", r"(?<![\d.-])(?P<value>\d(?:[ -]?\d){12,18})(?!\d|[.-]\d)", _luhn),
    RegexDetector(
        "iban", r"\b(?P<value>[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?)\b", _iban
    ),
    RegexDetector(
        "email",
        r"(?<![\w.+-])(?P<value>[A-Za-z0-9][A-Za-z0-9._%+-]*@(?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,})",
    ),
    RegexDetector("ssn", r"(?<![\d-])(?P<value>\d{3}-\d{2}-\d{4})(?![\d-])", _ssn),
    RegexDetector(
        "nino",
        r"\b(?P<value>(?!BG|GB|NK|KN|TN|NT|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z]"
        r" ?\d{2} ?\d{2} ?\d{2} ?[A-D])\b",
    ),
    RegexDetector(
        "phone",
        r"(?<![\w+])(?P<value>(?:\+\d{1,3}[ .-]?)?(?:\(\d{1,4}\)[ .-]?)?"
        r"\d{1,4}(?:[ .-]\d{2,6}){1,4})(?!\w)",
        _phone,
    ),
    RegexDetector(
        "ip",
        r"(?<![\w.:])(?P<value>(?:\d{1,3}\.){3}\d{1,3}|[0-9a-fA-F]{0,4}(?::[0-9a-fA-F]{0,4}){2,7})"
        r"(?![\w.:])",
        _ip,
    ),
)
"""The built-in detectors."""


@dataclass(frozen=True, slots=True)
class Finding:
    """What was found and done, never the value itself."""

    kind: str
    action: Action
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Redaction:
    """The text with every finding handled, and the findings."""

    text: str
    findings: tuple[Finding, ...]


class Redactor:
    """Finds PII in text and handles each kind by its rule.

    Args:
        rules: Kind -> action; kinds without a rule are left alone.
        detectors: The detectors (the built-in ones by default; add your own).
        tenant_key: The key ``hash`` uses (required when a rule hashes).

    Raises:
        ConfigError: An unknown action, a rule for a kind no detector finds, or ``hash``
            without a key.
    """

    def __init__(
        self,
        rules: Mapping[str, Action],
        detectors: Sequence[Detector] = DETECTORS,
        tenant_key: bytes | None = None,
    ) -> None:
        kinds = {detector.kind for detector in detectors}
        for kind, action in rules.items():
            if action not in ACTIONS:
                raise ConfigError(f"unknown PII action {action!r} for {kind}: use {ACTIONS}")
            if kind not in kinds:
                raise ConfigError(f"no detector finds {kind!r}: known kinds {sorted(kinds)}")
        if "hash" in rules.values() and not tenant_key:
            raise ConfigError("a PII rule hashes, so the redactor needs the tenant's key")
        self.rules = dict(rules)
        self.detectors = [d for d in detectors if d.kind in self.rules]
        self.tenant_key = tenant_key or b""

    def find(self, text: str) -> list[Span]:
        """The spans the rules care about, without overlaps (longest first, then by kind)."""
        found = [span for detector in self.detectors for span in detector.find(text)]
        if len(found) < 2:
            return found
        order = {kind: index for index, kind in enumerate(KINDS)}
        found.sort(key=lambda s: (-(s.end - s.start), order.get(s.kind, len(order)), s.start))
        starts: list[int] = []
        kept: list[Span] = []  # by start, never overlapping
        for span in found:
            at = bisect.bisect_left(starts, span.start)
            if at > 0 and kept[at - 1].end > span.start:
                continue  # overlaps the kept span before it
            if at < len(kept) and kept[at].start < span.end:
                continue  # overlaps the kept span after it
            starts.insert(at, span.start)
            kept.insert(at, span)
        return kept

    def redact(self, text: str) -> Redaction:
        """``text`` with each span handled by its kind's rule.

        Raises:
            PiiBlocked: A span's kind is blocked (the message names the kinds).
        """
        spans = self.find(text)
        if not spans:
            return Redaction(text, ())
        blocked = sorted({s.kind for s in spans if self.rules[s.kind] == "block"})
        if blocked:
            raise PiiBlocked(f"the text holds {', '.join(blocked)}, which the policy blocks")
        parts: list[str] = []
        at = 0
        findings = []
        for span in spans:
            action = self.rules[span.kind]
            parts.append(text[at : span.start])
            parts.append(self._replace(text[span.start : span.end], span.kind, action))
            findings.append(Finding(span.kind, action, span.start, span.end))
            at = span.end
        parts.append(text[at:])
        return Redaction("".join(parts), tuple(findings))

    def _replace(self, value: str, kind: str, action: Action) -> str:
        label = kind.upper()
        if action == "mask":
            return re.sub(r"[A-Za-z0-9]", "*", value[:-4]) + value[-4:]
        if action == "hash":
            digest = hmac.new(self.tenant_key, f"{kind}\0{value}".encode(), hashlib.sha256)
            return f"[{label}:{digest.hexdigest()[:8]}]"
        return f"[{label}]"
