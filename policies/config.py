"""Policies from a YAML policy file (the same format as a team file: validated whole, every
problem reported with ``FILE:LINE``). See docs/policies.md.

The policies are asked in a fixed order: approval, tool authorization, budget, rate limits, PII
redaction, memory validation, then custom policies in the order listed. A file's version is
the digest of its text; a thread records the text, so a resumed run keeps the policies it ran
under even when the file changed.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from framework.engine.config_file import Where, invalid, read_yaml, read_yaml_text
from framework.errors import ConfigError
from framework.policy import NameReference, Policy, Principal
from framework.policy.records import policy_version
from policies.approval import NodeApproval
from policies.authorization import ToolAuthorization, ToolRule
from policies.budgets import Budget, Limits, Price
from policies.memory_rules import MemoryValidation
from policies.rate_limits import Rate, RateLimit
from policies.redaction import PiiRedaction, Target

__all__ = ["LoadedPolicies", "PolicyFile", "load_policy_file", "policies_from_text"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _Rule(_Strict):
    tools: str = "*"
    action: Literal["allow", "deny", "ask"] = "allow"
    requires: list[str] = Field(default_factory=list)
    args: dict[str, str] = Field(default_factory=dict)
    unless: str | None = None
    reason: str = ""


class _Authorization(_Strict):
    default: Literal["allow", "deny"] = "allow"
    rules: list[_Rule] = Field(default_factory=list)


_DEFAULT_TARGETS: tuple[Target, ...] = ("tool_args", "memory", "answer")


class _Pii(_Strict):
    rules: dict[str, Literal["redact", "mask", "hash", "block"]]
    apply_to: list[Target] = Field(default_factory=lambda: list(_DEFAULT_TARGETS))
    hash_key_env: str = "CADRE_PII_KEY"


class _Limits(_Strict):
    tokens: int | None = Field(default=None, ge=0)
    model_calls: int | None = Field(default=None, ge=0)
    tool_calls: int | None = Field(default=None, ge=0)
    cost: float | None = Field(default=None, ge=0)
    wall_s: float | None = Field(default=None, ge=0)


class _Price(_Strict):
    input: float = Field(default=0.0, ge=0)
    output: float = Field(default=0.0, ge=0)


class _Budget(_Strict):
    run: _Limits | None = None
    teams: dict[str, _Limits] = Field(default_factory=dict)
    task: _Limits | None = None
    prices: dict[str, _Price] = Field(default_factory=dict)
    max_output_tokens: int = Field(default=1024, ge=1)
    on_exhausted: Literal["stop", "ask"] = "stop"
    grant: float = Field(default=1.0, gt=0)


class _Rate(_Strict):
    requests_per_minute: float | None = Field(default=None, gt=0)
    tokens_per_minute: float | None = Field(default=None, gt=0)
    burst: int = Field(default=1, ge=1)


class _Memory(_Strict):
    require_provenance: bool = True
    max_chars: int = Field(default=4000, ge=1)
    pii_kinds: list[str] = Field(default_factory=list)
    namespaces: list[str] = Field(default_factory=lambda: ["*"])


class _Approval(_Strict):
    nodes: list[str] = Field(min_length=1)
    teams: list[str] = Field(default_factory=lambda: ["*"])
    question: str = ""


class _Principal(_Strict):
    user: str = Field(default="local", min_length=1)
    tenant: str = Field(default="default", min_length=1)
    scopes: list[str] = Field(default_factory=list)


class PolicyFile(_Strict):
    """The policy file: each section turns one policy on."""

    principal: _Principal | None = None
    approval: _Approval | None = None
    tool_authorization: _Authorization | None = None
    budget: _Budget | None = None
    rate_limits: dict[str, _Rate] = Field(default_factory=dict)
    pii: _Pii | None = None
    memory: _Memory | None = None
    custom: list[str] = Field(default_factory=list)


@dataclass(frozen=True, kw_only=True)
class LoadedPolicies:
    """The policies a file declares, in order, with its default principal and version."""

    policies: tuple[Policy, ...]
    principal: Principal | None
    version: str
    text: str
    source: str
    references: tuple[NameReference, ...] = ()
    """The tools, teams and nodes its rules name, each with its line (checked against a team
    by ``cadre policies check --team-config``)."""

    def describe(self) -> list[str]:
        """One line per policy, in the order they are asked."""
        return [f"{policy.name}: {policy.describe()}" for policy in self.policies]


def load_policy_file(path: Path) -> LoadedPolicies:
    """Read and check the policy file ``path``.

    Raises:
        ConfigError: The file cannot be read or declares something wrong (``FILE:LINE``).
    """
    resolved, text, _, _ = read_yaml(path, "policy file")
    return policies_from_text(text, str(resolved))


def policies_from_text(text: str, source: str = "<policy>") -> LoadedPolicies:
    """The policies of a policy file's ``text`` (``source`` names it in errors).

    Raises:
        ConfigError: Something in it is wrong, with ``SOURCE:LINE``.
    """
    data, where = read_yaml_text(text, source, "policy file")
    try:
        spec = PolicyFile.model_validate(data)
    except ValidationError as error:
        raise invalid(where, error, "policy file") from None
    built: list[Policy] = []
    for section, build in _BUILDERS:
        value = getattr(spec, section)
        if not value:
            continue
        try:
            built.append(build(value))
        except ConfigError as error:
            raise ConfigError(where.at((section,), str(error))) from None
    for index, reference in enumerate(spec.custom):
        try:
            built.append(_custom(reference))
        except ConfigError as error:
            raise ConfigError(where.at(("custom", index), str(error))) from None
    principal = None
    if spec.principal is not None:
        principal = Principal(
            user=spec.principal.user,
            tenant=spec.principal.tenant,
            scopes=frozenset(spec.principal.scopes),
        )
    return LoadedPolicies(
        policies=tuple(built),
        principal=principal,
        version=policy_version(text),
        text=text,
        source=source,
        references=_references(spec, where),
    )


def _references(spec: PolicyFile, where: Where) -> tuple[NameReference, ...]:
    """The names the rules of ``spec`` give: tools, teams and nodes."""
    found: list[tuple[Literal["tool", "team", "node"], str, tuple[str | int, ...]]] = []
    if spec.tool_authorization is not None:
        rules = spec.tool_authorization.rules
        found += [
            ("tool", r.tools, ("tool_authorization", "rules", i, "tools"))
            for i, r in enumerate(rules)
        ]
    found += [
        ("tool", pattern.removeprefix("tool:"), ("rate_limits", pattern))
        for pattern in spec.rate_limits
        if pattern.startswith("tool:")
    ]
    if spec.approval is not None:
        found += [("node", n, ("approval", "nodes", i)) for i, n in enumerate(spec.approval.nodes)]
        found += [("team", t, ("approval", "teams", i)) for i, t in enumerate(spec.approval.teams)]
    if spec.budget is not None:
        found += [("team", team, ("budget", "teams", team)) for team in spec.budget.teams]
    return tuple(
        NameReference(
            what=what,
            pattern=pattern,
            where=f"{where.path}:{where.line(location)}: {'.'.join(map(str, location))}",
        )
        for what, pattern, location in found
    )


def _approval(spec: _Approval) -> Policy:
    return NodeApproval(spec.nodes, teams=spec.teams, question=spec.question)


def _authorization(spec: _Authorization) -> Policy:
    rules = [
        ToolRule(
            tools=rule.tools,
            action=rule.action,
            requires=tuple(rule.requires),
            args=dict(rule.args),
            unless=rule.unless,
            reason=rule.reason,
        )
        for rule in spec.rules
    ]
    return ToolAuthorization(rules, default=spec.default)


def _limits(spec: _Limits | None) -> Limits | None:
    return None if spec is None else Limits(**spec.model_dump())


def _budget(spec: _Budget) -> Policy:
    return Budget(
        run=_limits(spec.run),
        teams={name: Limits(**limits.model_dump()) for name, limits in spec.teams.items()},
        task=_limits(spec.task),
        prices={name: Price(**price.model_dump()) for name, price in spec.prices.items()},
        max_output_tokens=spec.max_output_tokens,
        on_exhausted=spec.on_exhausted,
        grant=spec.grant,
    )


def _rates(spec: dict[str, _Rate]) -> Policy:
    return RateLimit({pattern: Rate(**rate.model_dump()) for pattern, rate in spec.items()})


def _pii(spec: _Pii) -> Policy:
    key = None
    if "hash" in spec.rules.values():
        secret = os.environ.get(spec.hash_key_env, "")
        if not secret:
            raise ConfigError(
                f"a PII rule hashes, so set the secret in ${spec.hash_key_env} "
                "(or name another variable in hash_key_env)"
            )
        key = secret.encode()
    return PiiRedaction(dict(spec.rules), apply_to=spec.apply_to, key=key)


def _memory(spec: _Memory) -> Policy:
    return MemoryValidation(
        require_provenance=spec.require_provenance,
        max_chars=spec.max_chars,
        pii_kinds=spec.pii_kinds,
        namespaces=spec.namespaces,
    )


_BUILDERS: tuple[tuple[str, Callable[[Any], Policy]], ...] = (
    ("approval", _approval),
    ("tool_authorization", _authorization),
    ("budget", _budget),
    ("rate_limits", _rates),
    ("pii", _pii),
    ("memory", _memory),
)


def _custom(reference: str) -> Policy:
    """A policy named ``module:attribute``: a Policy, a Policy class, or a function making one."""
    module_name, _, attribute = reference.partition(":")
    if not module_name or not attribute:
        raise ConfigError(f"custom policy {reference!r}: write it as module:attribute")
    try:
        found = getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError) as error:
        raise ConfigError(f"cannot import custom policy {reference!r} ({error})") from None
    made = found() if callable(found) and not isinstance(found, Policy) else found
    if not isinstance(made, Policy):
        raise ConfigError(
            f"custom policy {reference!r} gave {type(made).__name__}, not a framework.policy.Policy"
        )
    return made
