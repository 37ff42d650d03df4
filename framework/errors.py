"""The one errors module of cadre.

Three families that never mix:

* :class:`ConfigError` — a developer mistake found at build or start time (wrong wiring, unknown
  name, bad setting). The message always says how to fix it.
* :class:`RunError` — something failed while a run was under way (a worker, a model, the store).
* :class:`ControlSignal` — not failures: typed signals a node raises to steer the run.

Besides them, :class:`InvalidUpdate` refuses a change to research memory that breaks a rule
(from a caller or from a model's output); it is a ``ValueError`` and changes nothing.
"""

from __future__ import annotations

__all__ = [
    "CadreError",
    "ConfigError",
    "ControlSignal",
    "CorpusError",
    "EmbeddingError",
    "InvalidUpdate",
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


class InvalidUpdate(CadreError, ValueError):  # noqa: N818 - names the refused thing
    """An update to research memory that breaks one of its rules; nothing was changed.

    The rules: confidence in [0, 1], known evidence, hypothesis and conflict ids, legal status
    changes, and a resolution text to resolve a conflict. The message names the rule and the fix.
    """


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
