"""Span names and attribute keys: cadre's own (``cadre.*``) and the OpenTelemetry GenAI ones."""

from __future__ import annotations

from typing import Final

__all__ = [
    "ATTR",
    "GEN_AI",
    "KIND_MODEL",
    "KIND_NODE",
    "KIND_RUN",
    "KIND_STEP",
    "KIND_TASK",
    "KIND_TEAM",
    "KIND_TOOL",
    "RUN_SPAN_NAME",
    "SCOPE_NAME",
    "node_span_name",
    "step_span_name",
    "task_span_name",
    "team_span_name",
]

SCOPE_NAME: Final = "cadre"
RUN_SPAN_NAME: Final = "cadre.run"

KIND_RUN: Final = "run"
KIND_TEAM: Final = "team"
KIND_NODE: Final = "node"
KIND_STEP: Final = "step"
KIND_TASK: Final = "task"
KIND_MODEL: Final = "model"
KIND_TOOL: Final = "tool"


class ATTR:
    """cadre's span attributes."""

    SPAN_KIND: Final = "cadre.span.kind"
    THREAD_ID: Final = "cadre.thread_id"
    TEAM: Final = "cadre.team"
    TEAM_PATH: Final = "cadre.team.path"
    WHERE: Final = "cadre.where"
    NODE: Final = "cadre.node"
    TASK_ID: Final = "cadre.task.id"
    TASK_KIND: Final = "cadre.task.kind"
    POLICY: Final = "cadre.policy.name"
    POLICY_HOOK: Final = "cadre.policy.hook"
    POLICY_ACTION: Final = "cadre.policy.action"
    POLICY_TARGET: Final = "cadre.policy.target"
    POLICY_REASON: Final = "cadre.policy.reason"
    DISPATCH_ID: Final = "cadre.dispatch.id"
    FANOUT: Final = "cadre.dispatch.width"
    STEP: Final = "cadre.step"
    ITERATION: Final = "cadre.iteration"
    CONTROL_SIGNAL: Final = "cadre.control_signal"
    RETRY_ATTEMPT: Final = "cadre.retry.attempt"
    RETRIES: Final = "cadre.retry.count"
    CHECKPOINT_ID: Final = "cadre.checkpoint.id"
    CHECKPOINT_NS: Final = "cadre.checkpoint.ns"
    REVIEW_REQUEST_ID: Final = "cadre.review.request_id"
    RUN_OUTCOME: Final = "cadre.run.outcome"
    RUN_RESUMED: Final = "cadre.run.resumed"
    PAUSED_BEFORE: Final = "cadre.paused_before"
    LINK_TYPE: Final = "cadre.link.type"
    TASK_STATUS: Final = "cadre.task.status"
    INPUT: Final = "cadre.input"
    OUTPUT: Final = "cadre.output"
    USAGE_ESTIMATED: Final = "cadre.usage.estimated"
    """On a model span whose provider reported no usage: its ``gen_ai.usage.*`` are cadre's
    estimate (about four characters per token), the count ``cadre show`` sums too."""


class GEN_AI:  # noqa: N801 - named after the convention's namespace
    """OpenTelemetry GenAI semantic conventions used by cadre."""

    OPERATION: Final = "gen_ai.operation.name"
    AGENT_NAME: Final = "gen_ai.agent.name"
    PROVIDER: Final = "gen_ai.provider.name"
    REQUEST_MODEL: Final = "gen_ai.request.model"
    RESPONSE_MODEL: Final = "gen_ai.response.model"
    INPUT_TOKENS: Final = "gen_ai.usage.input_tokens"
    OUTPUT_TOKENS: Final = "gen_ai.usage.output_tokens"
    TOOL_NAME: Final = "gen_ai.tool.name"
    TOOL_CALL_ID: Final = "gen_ai.tool.call.id"
    TOOL_ARGUMENTS: Final = "gen_ai.tool.call.arguments"
    TOOL_RESULT: Final = "gen_ai.tool.call.result"
    INPUT_MESSAGES: Final = "gen_ai.input.messages"
    OUTPUT_MESSAGES: Final = "gen_ai.output.messages"
    TOKEN_TYPE: Final = "gen_ai.token.type"
    OP_CHAT: Final = "chat"
    OP_TOOL: Final = "execute_tool"
    OP_AGENT: Final = "invoke_agent"


def team_span_name(team: str) -> str:
    """``cadre.team <team>``."""
    return f"cadre.team {team}"


def node_span_name(node: str) -> str:
    """``cadre.node <node>``."""
    return f"cadre.node {node}"


def step_span_name(node: str) -> str:
    """``cadre.step <node>``: the parallel executions of one node in one step."""
    return f"cadre.step {node}"


def task_span_name(task_id: str) -> str:
    """``cadre.task <task id>``: one ``Send`` task of the worker."""
    return f"cadre.task {task_id}"
