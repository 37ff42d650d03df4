"""Concrete teams built only from framework parts."""
