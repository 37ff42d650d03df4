"""Policies that plug into the framework: stop rules, retry presets."""
