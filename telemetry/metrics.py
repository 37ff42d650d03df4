"""cadre's metrics instruments."""

from __future__ import annotations

from opentelemetry.metrics import Meter

from telemetry.spans import GEN_AI

__all__ = ["CadreMetrics"]


class CadreMetrics:
    """Node latency and outcomes, retries, fan-out, failed tasks, checkpoint bytes, human wait,
    model tokens."""

    def __init__(self, meter: Meter) -> None:
        self.node_duration = meter.create_histogram(
            "cadre.node.duration",
            unit="s",
            description="Execution time of a node, no queueing; its count by outcome (ok, error,"
            " paused) counts executions",
        )
        self.retries = meter.create_counter(
            "cadre.worker.retries", description="Transient failures retried by workers"
        )
        self.fanout = meter.create_histogram(
            "cadre.dispatch.width", description="Tasks fanned out by one dispatch"
        )
        self.tasks_failed = meter.create_counter(
            "cadre.tasks.failed", description="Tasks whose worker failed, by team and task kind"
        )
        self.tasks_finished = meter.create_counter(
            "cadre.tasks.finished",
            description="Tasks whose worker returned, by team, task kind and status (ok, failed)",
        )
        self.checkpoint_bytes = meter.create_counter(
            "cadre.checkpoint.bytes", unit="By", description="Bytes serialized into checkpoints"
        )
        self.human_wait = meter.create_histogram(
            "cadre.review.wait", unit="s", description="Time a paused run waited to be resumed"
        )
        self.policy_decisions = meter.create_counter(
            "cadre.policy.decisions",
            description="Policy decisions other than allow, by policy, hook, action and target",
        )
        self.tokens = meter.create_histogram(
            "gen_ai.client.token.usage", unit="{token}", description="Tokens per model call"
        )

    def record_tokens(self, model: str, input_tokens: int, output_tokens: int) -> None:
        """Record one model call's token usage, split by token type."""
        for kind, count in (("input", input_tokens), ("output", output_tokens)):
            self.tokens.record(
                count,
                {GEN_AI.TOKEN_TYPE: kind, GEN_AI.REQUEST_MODEL: model, GEN_AI.OPERATION: "chat"},
            )
