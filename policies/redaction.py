"""PII redaction as a policy: the :class:`~policies.pii.Redactor` applied where data leaves.

It applies (each optional) to tool arguments going out, tool outputs coming back (and every
worker's evidence, whether a tool or an offline read produced it), model inputs, memory
writes, the final answer and the content captured into spans (``--trace-content``), to every
string inside them (nested dicts, lists, message contents).
``hash`` uses a key per tenant derived from one secret, so a value hashes the same within a
tenant and differently across tenants. A blocked kind denies the call. Audit entries say which
kinds were handled and how often, never the values.
"""

from __future__ import annotations

import hashlib
import hmac
import threading
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal, get_args

from langchain_core.messages import BaseMessage

from framework.errors import ConfigError
from framework.policy import ALLOW, Call, Hook, Policy, Principal, Verdict, deny, modify
from policies.pii import DETECTORS, Action, Detector, PiiBlocked, Redactor

__all__ = ["TARGETS", "PiiRedaction", "Target"]

Target = Literal["tool_args", "tool_output", "model_input", "memory", "answer", "spans"]
TARGETS: tuple[Target, ...] = get_args(Target)


class PiiRedaction(Policy):
    """Redacts (or masks, hashes, blocks) PII where it leaves the run.

    Args:
        rules: PII kind -> action (``redact``, ``mask``, ``hash``, ``block``).
        apply_to: Where: any of :data:`TARGETS`.
        detectors: The detectors (the built-in ones by default; add your own).
        key: The secret per-tenant hash keys are derived from (required when a rule hashes).

    Raises:
        ConfigError: An unknown target, action or kind, or ``hash`` without a key.
    """

    name = "pii"
    may_ask = False

    def __init__(
        self,
        rules: Mapping[str, Action],
        *,
        apply_to: Iterable[str] = ("tool_args", "memory", "answer"),
        detectors: Sequence[Detector] = DETECTORS,
        key: bytes | None = None,
    ) -> None:
        targets = frozenset(apply_to)
        unknown = sorted(targets - set(TARGETS))
        if unknown:
            raise ConfigError(f"PII policy: unknown targets {unknown}; use {list(TARGETS)}")
        Redactor(rules, detectors, tenant_key=key)  # refuses bad rules now
        self.rules = dict(rules)
        self.targets = targets
        self.detectors = tuple(detectors)
        self._key = key
        self._redactors: dict[str, Redactor] = {}
        self._lock = threading.Lock()

    def describe(self) -> str:
        """Each kind's action, and where they apply."""
        rules = ", ".join(f"{kind} {action}" for kind, action in sorted(self.rules.items()))
        return f"{rules}; on {', '.join(t for t in TARGETS if t in self.targets)}"

    def _redactor(self, tenant: str) -> Redactor:
        found = self._redactors.get(tenant)
        if found is not None:
            return found
        with self._lock:
            found = self._redactors.get(tenant)
            if found is None:
                key = None
                if self._key:
                    key = hmac.new(self._key, f"pii\0{tenant}".encode(), hashlib.sha256).digest()
                found = Redactor(self.rules, self.detectors, tenant_key=key)
                self._redactors[tenant] = found
            return found

    def hooks(self) -> frozenset[Hook]:
        """Only the hooks of the targets it applies to."""
        return frozenset(hook for hook, target in _HOOK_TARGETS.items() if target in self.targets)

    def redacts_traces(self) -> bool:
        """Only when it applies to spans."""
        return "spans" in self.targets

    def for_trace(self, text: str, principal: Principal) -> str:
        """Redact content captured into spans (target ``spans``); blocked kinds withhold it."""
        if "spans" not in self.targets:
            return text
        try:
            return self._redactor(principal.tenant).redact(text).text
        except PiiBlocked:
            return "[withheld: it holds PII the policy blocks]"

    def _handle(self, call: Call, target: Target, what: str) -> Verdict:
        if target not in self.targets:
            return ALLOW
        found: list[str] = []
        try:
            cleaned = _clean(call.value, self._redactor(call.principal.tenant), found)
        except PiiBlocked as blocked:
            return deny(f"{what} {blocked}")
        if not found:
            return ALLOW
        handled = ", ".join(
            f"{count} {kind} ({self.rules[kind]})" for kind, count in sorted(Counter(found).items())
        )
        return modify(cleaned, f"{what}: {handled}")

    def before_tool(self, call: Call) -> Verdict:
        """Redact the arguments of a tool call."""
        return self._handle(call, "tool_args", "tool arguments")

    def after_tool(self, call: Call) -> Verdict:
        """Redact a tool's output."""
        return self._handle(call, "tool_output", "tool output")

    def evidence(self, call: Call) -> Verdict:
        """Redact a worker result's output and evidence (target ``tool_output``): what a worker
        read offline is handled as a tool's output is."""
        return self._handle(call, "tool_output", "evidence")

    def before_model(self, call: Call) -> Verdict:
        """Redact the messages sent to a model."""
        return self._handle(call, "model_input", "model input")

    def memory_write(self, call: Call) -> Verdict:
        """Redact an item written to memory."""
        return self._handle(call, "memory", "memory item")

    def answer(self, call: Call) -> Verdict:
        """Redact the final answer."""
        return self._handle(call, "answer", "answer")


_HOOK_TARGETS: dict[Hook, Target] = {
    "before_tool": "tool_args",
    "after_tool": "tool_output",
    "evidence": "tool_output",
    "before_model": "model_input",
    "memory_write": "memory",
    "answer": "answer",
}


def _clean(value: Any, redactor: Redactor, counts: list[str]) -> Any:
    """``value`` with every string in it redacted (the kinds found added to ``counts``);
    unchanged parts are the same objects."""
    if isinstance(value, str):
        redaction = redactor.redact(value)
        counts.extend(finding.kind for finding in redaction.findings)
        return redaction.text if redaction.findings else value
    if isinstance(value, BaseMessage):
        return _clean_message(value, redactor, counts)
    if isinstance(value, Mapping):
        changed: dict[Any, Any] | None = None
        for key, item in value.items():
            new = _clean(item, redactor, counts)
            if new is not item:
                changed = changed if changed is not None else dict(value)
                changed[key] = new
        return value if changed is None else changed
    if isinstance(value, list | tuple):
        replaced: list[Any] | None = None
        for index, item in enumerate(value):
            new = _clean(item, redactor, counts)
            if new is not item:
                replaced = replaced if replaced is not None else list(value)
                replaced[index] = new
        return value if replaced is None else type(value)(replaced)
    return value


_MESSAGE_FIELDS = ("content", "tool_calls", "invalid_tool_calls", "additional_kwargs")
"""What a message carries to a provider: its text, and an assistant's tool calls (their
arguments, also in the provider's own form under ``additional_kwargs``)."""


def _clean_message(message: BaseMessage, redactor: Redactor, counts: list[str]) -> BaseMessage:
    update = {}
    for name in _MESSAGE_FIELDS:
        old = getattr(message, name, None)
        if old is None:
            continue
        new = _clean(old, redactor, counts)
        if new is not old:
            update[name] = new
    return message.model_copy(update=update) if update else message
