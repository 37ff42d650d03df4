"""MCP over streamable HTTP (the ``mcp`` SDK) at ``/mcp``: each served team is a tool taking a
question and answering with the cited answer and its thread, and ``answer_review`` answers the
reviews a paused run waits for (see docs/protocols.md).

The endpoint is stateless (the SDK's stateless mode: no session to keep, each request whole,
progress notifications on the request's own event stream) and sits behind the server's
:class:`~framework.server.protocols.Authenticated`: every request carries a cadre API token, and the
gate decides each call as for LangGraph's API.
"""

from framework._lazy import lazy_exports
from framework.server.protocols.mcp._routes import *

__getattr__, __dir__ = lazy_exports(__name__)
