"""Tool authorization by scope: who may call which tool, with which arguments.

A run acts for a :class:`~framework.policy.Principal` (user, tenant, scopes). A tool refuses a
principal that lacks a scope the tool declares (``metadata={"scopes": [...]}``, or ``scopes``
of an MCP server in a team file). Rules then decide, first match wins: allow, deny or ask a
human, per tool name pattern and per argument pattern, unless the principal holds a scope that
lifts the rule (a SQL tool is read-only unless the principal holds ``db:write``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Literal

from framework.errors import ConfigError
from framework.policy import ALLOW, Call, Policy, Verdict, ask, deny

__all__ = ["ToolAuthorization", "ToolRule"]

RuleAction = Literal["allow", "deny", "ask"]


@dataclass(frozen=True, kw_only=True)
class ToolRule:
    """One rule: which calls it matches and what happens to them.

    Attributes:
        tools: A pattern of tool names (``sql_*``; ``*`` matches every tool), matched against
            the name the model calls and every alias (an MCP tool's name on its server).
        action: What a matching call gets: allow, deny or ask a human.
        requires: Scopes the principal must hold for the rule to allow (missing: denied).
        args: Argument name -> regular expression; the rule matches only calls whose
            arguments all match (searched in the argument's text).
        unless: A scope that lifts the rule: a principal holding it is not matched.
        reason: Why, for the audit trail and the model's error message.
    """

    tools: str = "*"
    action: RuleAction = "allow"
    requires: tuple[str, ...] = ()
    args: Mapping[str, str] = field(default_factory=dict)
    unless: str | None = None
    reason: str = ""

    def __post_init__(self) -> None:
        if self.action not in ("allow", "deny", "ask"):
            raise ConfigError(f"tool rule action {self.action!r}: use allow, deny or ask")
        for name, pattern in self.args.items():
            try:
                re.compile(pattern)
            except re.error as error:
                raise ConfigError(
                    f"tool rule for {self.tools!r}: argument {name!r} has an invalid regular "
                    f"expression ({error})"
                ) from None

    def matches(self, call: Call) -> bool:
        """Whether the rule applies to ``call``."""
        if not any(fnmatchcase(name, self.tools) for name in (call.target, *call.aliases)):
            return False
        if self.unless is not None and call.principal.has(self.unless):
            return False
        args = call.value if isinstance(call.value, Mapping) else {}
        return all(
            name in args and re.search(pattern, str(args[name])) is not None
            for name, pattern in self.args.items()
        )


class ToolAuthorization(Policy):
    """Authorizes tool calls by the principal's scopes and by rules.

    Args:
        rules: Checked in order; the first that matches decides.
        default: What a call no rule matches gets (``allow`` or ``deny``).
    """

    name = "tool_authorization"

    def __init__(self, rules: Sequence[ToolRule] = (), *, default: RuleAction = "allow") -> None:
        if default not in ("allow", "deny"):
            raise ConfigError(f"default {default!r}: use allow or deny")
        self.rules = tuple(rules)
        self.default = default

    @property
    def may_ask(self) -> bool:  # type: ignore[override]
        """Whether a rule asks a human."""
        return any(rule.action == "ask" for rule in self.rules)

    def describe(self) -> str:
        """The rules in order, then the default."""
        rules = "; ".join(
            f"{r.tools} {r.action}" + (f" unless {r.unless}" if r.unless else "")
            for r in self.rules
        )
        return f"{rules or 'no rules'}; otherwise {self.default}"

    def before_tool(self, call: Call) -> Verdict:
        """Deny a principal missing the tool's scopes; then the first matching rule decides."""
        principal = call.principal
        missing = sorted(scope for scope in call.scopes if not principal.has(scope))
        if missing:
            return deny(f"{principal.user} lacks scope {', '.join(missing)} for {call.target}")
        rule = next((rule for rule in self.rules if rule.matches(call)), None)
        if rule is None:
            return deny(f"no rule allows {call.target}") if self.default == "deny" else ALLOW
        return _decide(rule, call)


def _decide(rule: ToolRule, call: Call) -> Verdict:
    principal = call.principal
    lacking = sorted(scope for scope in rule.requires if not principal.has(scope))
    if lacking:
        return deny(f"{principal.user} lacks scope {', '.join(lacking)} for {call.target}")
    if rule.action == "deny":
        return deny(rule.reason or f"{call.target} is not allowed")
    if rule.action == "ask":
        return ask(rule.reason or f"may {principal.user} call {call.target}?")
    return ALLOW
