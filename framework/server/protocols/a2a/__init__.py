"""A2A 1.0 (``a2a-sdk``): each served team is an agent at ``/a2a/{team name}``.

Its agent card is public at ``/a2a/{name}/.well-known/agent-card.json`` (where a2a-sdk's client
looks for it) and names the JSON-RPC endpoint ``/a2a/{name}``, which sits behind the server's
:class:`~framework.server.protocols.Authenticated`: every call carries a cadre API token
(``x-api-key`` or a bearer token) and the gate decides it as for LangGraph's API. An A2A task is
a cadre thread (the task id is the thread id); a review pause is the task's ``input-required`` state
and a message on the task answers it (see :mod:`._handler`, :mod:`._tasks`,
docs/protocols.md).
"""

from framework._lazy import lazy_exports
from framework.server.protocols.a2a._routes import *

__getattr__, __dir__ = lazy_exports(__name__)
