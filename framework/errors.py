"""The one errors module of cadre.

Two families that never mix:

* :class:`ConfigError` — a developer mistake found at build or start time (wrong wiring, unknown
  name, bad setting). The message always says how to fix it.
* :class:`RunError` — something failed while a run was under way (a worker, a model, the store).

Steering a run is not an error: a node steers it with a typed control signal in the state
(:data:`framework.engine.routing.ControlSignal`). Besides the two families,
:class:`InvalidUpdate` refuses a change to research memory that breaks a rule (from a caller or
from a model's output), and :class:`ReviewError` refuses a human review decision; both are value
errors and change nothing.
"""

from __future__ import annotations

__all__ = [
    "AccessDenied",
    "CadreError",
    "ConfigError",
    "CorpusError",
    "CryptoError",
    "DatabaseBusyError",
    "DatabaseUnavailable",
    "EmbeddingError",
    "IncompleteCheckpointError",
    "InvalidUpdate",
    "ModelError",
    "NotTextError",
    "OutageError",
    "PlaintextBlobError",
    "PolicyDenied",
    "PolicyFailure",
    "RemoteAgentError",
    "ReviewError",
    "RunError",
    "RunStopped",
    "StorageFullError",
    "TamperError",
    "TaskRefused",
    "TeamFileError",
    "ThreadBusyError",
    "ToolError",
    "ToolServerError",
    "TransientError",
    "UnknownKeyError",
    "UnknownThread",
    "UnsupportedFormatError",
    "WorkerError",
    "WrongKeyError",
    "brief",
]


class CadreError(Exception):
    """Base class of every error cadre raises on purpose."""


class ConfigError(CadreError, ValueError):
    """A developer mistake: wiring, names or settings. The message says how to fix it."""


class TeamFileError(ConfigError):
    """A team file, or one it includes, cannot run: one line naming ``FILE:LINE`` of each
    problem (``cadre run``, ``cadre serve`` and ``cadre policies check`` refuse it alike)."""


class InvalidUpdate(CadreError, ValueError):  # noqa: N818 - names the refused thing
    """An update to research memory that breaks one of its rules; nothing was changed.

    The rules: confidence in [0, 1], known evidence, hypothesis and conflict ids, legal status
    changes, and a resolution text to resolve a conflict. The message names the rule and the fix.
    """


class AccessDenied(CadreError, PermissionError):  # noqa: N818 - names the refusal
    """The caller may not do this: it lacks the scope the action needs, or the thread is not
    theirs (see :mod:`framework.runs.gate`); nothing was done."""


class UnknownThread(CadreError, LookupError):  # noqa: N818 - names the missing thing
    """No such thread for this caller: none, or another principal's (which is never told
    apart, so ids are not learnt by trying them); nothing was done."""


class ReviewError(CadreError, ValueError):
    """A review call that cannot be honoured; the thread was left exactly as it was.

    Raised for an unknown thread, request or checkpoint, an invalid edit (the message carries
    the validation errors), nothing pending, a decision the request does not allow, and a
    decision on a finished thread. The message says what to do instead.
    """


class RunError(CadreError):
    """A failure during a run."""


class WorkerError(RunError):
    """A worker could not complete its task."""


class TransientError(RunError):
    """A failure worth retrying (timeouts, rate limits, a service briefly away)."""


class OutageError(RunError):
    """A call failed for a transient reason on every try it was allowed (a provider down, a
    rate-limit spell): the run stops where it is, keeping what finished, and ``cadre resume``
    runs what failed again. Not a task's failure: a worker raises it rather than failing its
    task."""


class RunStopped(OutageError):  # noqa: N818 - names what happened to the run
    """The process is stopping (SIGTERM, Ctrl-C): the run stopped at a node boundary once the
    nodes going on had finished (or its drain deadline passed), every finished task saved; a
    resume (or the server's next start) goes on from there without running them again."""


class ModelError(RunError):
    """A chat model failed or answered in a shape that could not be used."""


class CorpusError(RunError):
    """The corpus could not be read or indexed."""


class NotTextError(CorpusError):
    """A document file was not read: not a regular file, over the size limit, or not text
    (binary, or in an encoding without a byte-order mark other than UTF-8); the message says
    which."""


class EmbeddingError(RunError):
    """The embedding model could not be loaded or used."""


class RemoteAgentError(WorkerError):
    """A remote worker kind (a LangGraph-API graph, an A2A agent) could not be reached, refused
    the call or its token, timed out, failed or asked for what cadre cannot give it yet; the
    message names the kind, its protocol and URL, and the cause (never the token)."""


class ToolError(RunError):
    """A tool a worker called failed: it raised, timed out, or returned what cannot be used.

    Inside a tool-calling loop this becomes a tool message for the model, not a crash; the
    message names the tool and the cause.
    """


class ToolServerError(ToolError):
    """A tool server (an MCP server) could not be started or reached, or died mid-call; the
    message names the server and what to do."""


class PolicyDenied(RunError):  # noqa: N818 - names the refused thing
    """A policy refused an action (a node, a model or tool call, a memory write, the answer);
    the message names the policy and its reason. A refused worker task fails alone; a refused
    tool call becomes an error message for the model (unless it is a :class:`TaskRefused`)."""


class TaskRefused(PolicyDenied):
    """A policy refused a call and the worker task it runs in (a spent budget): the task fails
    with the reason, even where a refused call alone would be told to the model."""


class PolicyFailure(PolicyDenied):
    """A policy raised instead of deciding: the action it guarded is refused (fail closed) and
    the message names the policy and what it raised."""


class ThreadBusyError(RunError):
    """Another process (or run) is running the thread right now; its state is untouched.

    Not transient for a retry loop: wait until the other run finishes or pauses, then try again.
    """


class DatabaseUnavailable(ConfigError):  # noqa: N818 - names the missing thing
    """The database does not answer (down, restarting, unreachable). Nothing was lost: what
    committed stays, and work done through it is tried again once it answers."""


class StorageFullError(RunError):
    """The device holding a store (or SQLite's temporary folder) is full; what was committed is
    kept, and the message names the path to free space for."""


class DatabaseBusyError(RunError):
    """A database file could not be compacted because another connection kept reading it;
    what was deleted is deleted, but the file's log may still hold old pages until it is."""


class CryptoError(RunError):
    """Encrypted data could not be read; nothing was returned in its place.

    Never transient: retrying reads the same bytes with the same keys. Each subclass says which
    check failed and what to do.
    """


class TamperError(CryptoError):
    """A blob's authentication tag did not verify.

    The blob was edited or truncated, or it was written for another row (another thread,
    checkpoint or channel) and moved here.
    """


class IncompleteCheckpointError(TamperError):
    """Rows a checkpoint sealed as existing beside it are gone: its parent, a channel value it
    names, or the writes of a task it recorded. The message names the thread, the checkpoint
    and what is missing."""


class UnknownKeyError(CryptoError):
    """A blob names a key id the loaded keyring does not hold; the message names the id."""


class WrongKeyError(CryptoError):
    """The keyring has a key under the blob's key id, but not the one the blob was written with."""


class PlaintextBlobError(CryptoError):
    """A blob without cadre's encryption header: plaintext or foreign data is never read."""


class UnsupportedFormatError(CryptoError):
    """A blob in an encryption format version this cadre does not know (written by a newer one)."""


_BRIEF_CHARS = 200


def brief(error: BaseException) -> str:
    """``Type: message`` on one line, cut to 200 characters: how a failure a run goes on after
    is recorded."""
    text = " ".join(f"{type(error).__name__}: {error}".split())
    return text if len(text) <= _BRIEF_CHARS else text[: _BRIEF_CHARS - 3] + "..."
