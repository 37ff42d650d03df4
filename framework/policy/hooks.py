"""What a policy is: an object whose hook methods decide about the calls they see.

A policy overrides only the hooks it cares about; the others allow. Hooks never reach into the
graph: they return a :class:`~framework.policy.records.Verdict`.

| hook          | ``call.value``                         | modify replaces             |
|---------------|----------------------------------------|-----------------------------|
| before_node   | the node's input                       | (refused: deny or ask only) |
| after_node    | the node's update                      | the update                  |
| before_model  | the messages sent                      | the messages                |
| after_model   | the model's output (a message, or a structured object) | the output |
| before_tool   | the tool call's arguments (a dict)     | the arguments               |
| after_tool    | the tool's output as text              | the output                  |
| evidence      | a worker result's ``{"output", "evidence"}``: its texts | the texts   |
| memory_write  | the text of the item written           | the text                    |
| answer        | the final answer                       | the answer                  |
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from framework.policy.records import ALLOW, HOOKS, Hook, Principal, UsageRecord, Verdict

__all__ = ["Call", "Policy", "overridden_hooks"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Call:
    """One call a policy decides about.

    Attributes:
        hook: Which hook is asked.
        target: What the call is about: the node, the model, the tool, the worker kind of
            the task whose result it is (``evidence``), the memory namespace, or ``answer``.
        value: What the hook may change (see the module's table).
        request: For ``after_*`` hooks, what went in (the node's input, the messages, the
            tool's arguments).
        principal: Who the run acts for.
        thread_id: The run's thread.
        team: The team of the node the call runs in.
        node: That node.
        path: Where in the hierarchy: subgraph nodes, then the team.
        task_id: The worker task, when the call runs in one.
        within: The tasks of the teams above that the call's team runs in, outermost first
            (a nested team's calls are part of those tasks' work).
        scopes: The scopes the target declares it needs (a tool's, or an MCP server's).
        aliases: Other names the target goes by (an MCP tool's name on its server when the
            team exposes it prefixed): a rule about a name matches them too.
        usage: For ``after_model``, the tokens the call used (``input_tokens``,
            ``output_tokens``), counted or estimated; for ``after_tool``, what the tool reported
            it used itself (a remote agent's ``model_calls`` and tokens), if anything.
        call_id: The same number for the before and after hooks of one model or tool call.
    """

    hook: Hook
    target: str
    value: Any
    request: Any = None
    principal: Principal
    thread_id: str | None = None
    team: str = ""
    node: str = ""
    path: tuple[str, ...] = ()
    task_id: str | None = None
    within: tuple[str, ...] = ()
    scopes: frozenset[str] = frozenset()
    aliases: tuple[str, ...] = ()
    usage: Mapping[str, int] = field(default_factory=dict)
    call_id: int = 0


class Policy:
    """Base of policies: every hook allows until overridden.

    Attributes:
        name: How audit entries, spans and errors name the policy (default: the class name).
        may_ask: Whether the policy may ask a human (pause the run); a policy that never does
            says False, so the tasks it governs may run in batches.
    """

    name: str = ""
    may_ask: bool = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if not cls.__dict__.get("name"):
            cls.name = cls.__name__

    def before_node(self, call: Call) -> Verdict:
        """Before a node runs: allow, deny (a worker task fails, another node stops the run)
        or ask."""
        return ALLOW

    def after_node(self, call: Call) -> Verdict:
        """After a node ran: its update may be modified."""
        return ALLOW

    def before_model(self, call: Call) -> Verdict:
        """Before a model call: the messages may be modified, the call denied or delayed."""
        return ALLOW

    def after_model(self, call: Call) -> Verdict:
        """After a model call: its output may be modified; ``call.usage`` has the tokens."""
        return ALLOW

    def output_limit(self) -> int | None:
        """The most tokens a model call may write under this policy, sent to the provider as
        its output limit (None: no limit)."""
        return None

    def model_failed(self, call: Call) -> Verdict:
        """After a model call that raised (``call.value`` is the error): release what the call
        held. Only told: the verdict is not applied, the error goes on."""
        return ALLOW

    def before_tool(self, call: Call) -> Verdict:
        """Before a tool call: the arguments may be modified; a denial is an error message for
        the model."""
        return ALLOW

    def after_tool(self, call: Call) -> Verdict:
        """After a tool call: its output text may be modified."""
        return ALLOW

    def evidence(self, call: Call) -> Verdict:
        """A worker's result before it enters the state, whatever produced its texts (a tool, a
        passage read offline, a nested team, a remote agent): its output and each evidence
        passage's text may be modified, or the task refused."""
        return ALLOW

    def memory_write(self, call: Call) -> Verdict:
        """Before an item is written to memory: its text may be modified, or the write
        refused."""
        return ALLOW

    def answer(self, call: Call) -> Verdict:
        """The final answer, before it is kept: it may be modified."""
        return ALLOW

    def hooks(self) -> frozenset[Hook]:
        """The hooks this policy decides at: those its class overrides; a policy configured to
        skip some (PII redaction on answers only) narrows them, so the chain never asks it
        there."""
        return overridden_hooks(self)

    def for_trace(self, text: str, principal: Principal) -> str:
        """``text`` as it may be put in a span when content capture is on (unchanged by
        default; PII redaction redacts it)."""
        return text

    def redacts_traces(self) -> bool:
        """Whether :meth:`for_trace` may change a text: when its class overrides it; a policy
        configured not to (PII redaction without ``spans``) says so, and spans skip it."""
        return type(self).for_trace is not Policy.for_trace

    def describe(self) -> str:
        """One line on what the policy does (``cadre policies check``)."""
        return type(self).__name__

    def approved(self, call: Call, reviewer: str) -> Mapping[str, float]:
        """A human approved what this policy asked about; the counts to add to the run's usage
        (a budget records the grant it makes, so a resumed run keeps it)."""
        return {}

    def restore(self, thread_id: str, usage: Sequence[UsageRecord]) -> None:
        """Take up the usage a thread recorded when it resumes in another process."""

    def forget(self, thread_id: str) -> None:
        """Drop what the policy keeps of a thread whose run ended (a long-running server runs
        many); if the thread runs again, :meth:`restore` takes its usage up from its state."""


def overridden_hooks(policy: Policy) -> frozenset[Hook]:
    """The hooks ``policy`` decides at (those its class overrides)."""
    kind = type(policy)
    return frozenset(hook for hook in HOOKS if getattr(kind, hook) is not getattr(Policy, hook))
