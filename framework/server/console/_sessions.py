"""Console sessions: a random id in an HttpOnly, SameSite=Strict cookie names the caller a
token signed in as, and a CSRF token every form must send back. Kept in the server's memory
(a restarted server signs everyone out) and ended after a day or on sign-out."""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from dataclasses import dataclass

from framework.runs.gate import Caller

__all__ = ["COOKIE", "Session", "Sessions"]

COOKIE = "cadre_session"
"""The name of the session cookie."""

_LIFETIME_S = 86_400.0


@dataclass(frozen=True, kw_only=True)
class Session:
    """A signed-in caller and the CSRF token of its forms."""

    session_id: str
    caller: Caller
    token: str | None
    """The token signed in with, checked again at every request (None: ``--no-auth``)."""
    csrf: str
    expires_at: float

    def checks(self, presented: str | None) -> bool:
        """Whether a form's CSRF token is this session's (in constant time)."""
        return presented is not None and hmac.compare_digest(presented, self.csrf)


class Sessions:
    """The sessions of one server."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sessions: dict[str, Session] = {}

    def open(self, caller: Caller, token: str | None) -> Session:
        """A new session for ``caller``, signed in with ``token``."""
        session = Session(
            session_id=secrets.token_urlsafe(32),
            caller=caller,
            token=token,
            csrf=secrets.token_urlsafe(32),
            expires_at=time.time() + _LIFETIME_S,
        )
        with self._lock:
            self._sessions[session.session_id] = session
        return session

    def get(self, session_id: str | None) -> Session | None:
        """The live session ``session_id`` names, if any."""
        if not session_id:
            return None
        with self._lock:
            session = self._sessions.get(session_id)
            if session is not None and session.expires_at < time.time():
                del self._sessions[session_id]
                session = None
        return session

    def close(self, session_id: str) -> None:
        """End a session (sign-out)."""
        with self._lock:
            self._sessions.pop(session_id, None)
