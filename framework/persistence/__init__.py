"""Checkpointer and serializer factories."""
