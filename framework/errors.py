"""The one errors module of cadre.

Three families that never mix:

* :class:`ConfigError` — a developer mistake found at build or start time (wrong wiring, unknown
  name, bad setting). The message always says how to fix it.
* :class:`RunError` — something failed while a run was under way (a worker, a model, the store).
* :class:`ControlSignal` — not failures: typed signals a node raises to steer the run.
"""

from __future__ import annotations

__all__ = [
    "CadreError",
    "ConfigError",
    "ControlSignal",
    "CorpusError",
    "EmbeddingError",
    "ModelError",
    "RunError",
    "StopRun",
    "TransientError",
    "WorkerError",
]


class CadreError(Exception):
    """Base class of every error cadre raises on purpose."""


class ConfigError(CadreError, ValueError):
    """A developer mistake: wiring, names or settings. The message says how to fix it."""


class RunError(CadreError):
    """A failure during a run."""


class WorkerError(RunError):
    """A worker could not complete its task."""


class TransientError(RunError):
    """A failure worth retrying (timeouts, rate limits, a service briefly away)."""


class ModelError(RunError):
    """A chat model failed or answered in a shape that could not be used."""


class CorpusError(RunError):
    """The corpus could not be read or indexed."""


class EmbeddingError(RunError):
    """The embedding model could not be loaded or used."""


class ControlSignal(CadreError):  # noqa: N818 - a signal, not an error
    """A typed signal a node raises to steer the run instead of failing it."""


class StopRun(ControlSignal):
    """Ask the runner to stop the run cleanly after the current step."""
