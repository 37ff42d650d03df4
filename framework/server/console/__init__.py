"""The reviewer console: server-rendered pages for the reviews, threads and runs of a tenant,
signed in with an API token (no JavaScript build step; a little plain JavaScript follows a
running thread)."""

from typing import TYPE_CHECKING

from framework._lazy import lazy_exports

if TYPE_CHECKING:
    from framework.server.console._pages import *
    from framework.server.console._sessions import Sessions as Sessions

__getattr__, __dir__ = lazy_exports(__name__)
