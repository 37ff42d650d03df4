"""Memory-write validation: what may become durable memory.

Refuses items without provenance (where they came from: a source, or the thread and task that
produced them), over a size, or holding PII the rules name. A refused item is not written; the
refusal is in the thread's policy audit (``cadre show``), so the run's report lists it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from fnmatch import fnmatchcase
from typing import Any

from framework.errors import ConfigError
from framework.policy import ALLOW, Call, Policy, Verdict, deny
from policies.pii import KINDS, Redactor

__all__ = ["MemoryValidation"]


class MemoryValidation(Policy):
    """Validates every item written to memory in a governed run.

    Args:
        require_provenance: Refuse items whose metadata names no ``source`` or ``provenance``.
        max_chars: Refuse texts longer than this.
        pii_kinds: Refuse texts holding any of these PII kinds (see :data:`policies.pii.KINDS`).
        namespaces: Patterns of the namespaces validated (``facts``, ``research/*``); every
            namespace by default.
    """

    name = "memory_validation"
    may_ask = False

    def __init__(
        self,
        *,
        require_provenance: bool = True,
        max_chars: int = 4000,
        pii_kinds: Iterable[str] = (),
        namespaces: Iterable[str] = ("*",),
    ) -> None:
        if max_chars < 1:
            raise ConfigError(f"max_chars must be >= 1, got {max_chars}")
        kinds = list(pii_kinds)
        unknown = sorted(set(kinds) - set(KINDS))
        if unknown:
            raise ConfigError(f"memory validation: unknown PII kinds {unknown}; use {KINDS}")
        self.require_provenance = require_provenance
        self.max_chars = max_chars
        self.namespaces = tuple(namespaces)
        self._pii = Redactor(dict.fromkeys(kinds, "redact")) if kinds else None

    def describe(self) -> str:
        """What it refuses, and where."""
        pii = ", ".join(sorted(self._pii.rules)) if self._pii is not None else "none"
        return (
            f"refuses items over {self.max_chars} chars, without provenance "
            f"({self.require_provenance}), holding PII ({pii}); in {', '.join(self.namespaces)}"
        )

    def memory_write(self, call: Call) -> Verdict:
        """Refuse an item without provenance, too long, or holding the named PII."""
        if not any(fnmatchcase(call.target, pattern) for pattern in self.namespaces):
            return ALLOW
        item = call.value if isinstance(call.value, Mapping) else {}
        text = str(item.get("text", ""))
        if len(text) > self.max_chars:
            return deny(f"an item of {len(text)} characters is over {self.max_chars}")
        if self.require_provenance and not _has_provenance(item.get("metadata")):
            return deny("the item names no source or provenance")
        if self._pii is not None:
            kinds = sorted({span.kind for span in self._pii.find(text)})
            if kinds:
                return deny(f"the item holds {', '.join(kinds)}")
        return ALLOW


def _has_provenance(metadata: Any) -> bool:
    if not isinstance(metadata, Mapping):
        return False
    if metadata.get("source"):
        return True
    provenance = metadata.get("provenance")
    return isinstance(provenance, Mapping) and any(provenance.get(k) for k in ("source", "task_id"))
