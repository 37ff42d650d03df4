"""The policies themselves: tool authorization, PII redaction, budgets, rate limits, approvals,
memory rules, reflection stop rules, retry presets and the policy file reader.

Each is a :class:`framework.policy.Policy` (or a stop rule or retry preset of the engine); the
machinery that asks them at every hook point is :mod:`framework.policy`. A policy returns a
decision; it never reaches into the graph.
"""
