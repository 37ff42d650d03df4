"""AG-UI (``ag-ui-protocol``): each served team streamed to chat front ends.

``POST /agui/{team}`` takes AG-UI's ``RunAgentInput`` and answers the run's events as Server-Sent
Events (the package's ``EventEncoder``). The question is the last user message's text; the
AG-UI ``threadId`` is the cadre thread (made on demand, claimed by the gate for the caller). A
review pause ends the run with RUN_FINISHED whose outcome is an interrupt carrying cadre's
typed request; the next ``RunAgentInput`` answers it with resume entries keyed by interrupt id
(payload ``"approve"`` or a cadre decision ``{"kind": ...}``), the token's name the reviewer.
Everything goes through the gate (:mod:`framework.server.protocols`): a refusal is one
RUN_ERROR.
"""

from framework._lazy import lazy_exports
from framework.server.protocols.agui._routes import *

__getattr__, __dir__ = lazy_exports(__name__)
