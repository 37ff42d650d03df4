"""The HTTP API and the reviewer console."""
