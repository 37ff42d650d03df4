"""OpenTelemetry spans and metrics for cadre runs."""
