"""Runs outlive a database outage: a segment that failed because the database stopped
answering runs again from the thread's checkpoints once it answers, and how a run ended is
recorded however long the outage lasts, so no run is left ``running`` and no thread busy.

Waiting polls the database every second at first, doubling up to every
:data:`MOST_BACKOFF_S` seconds; a segment is tried at most :data:`SEGMENT_ATTEMPTS` times in
all before its run ends as an error that says so."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TypeVar

from framework.database import Database, database_gone
from framework.errors import brief

__all__ = ["FIRST_BACKOFF_S", "MOST_BACKOFF_S", "SEGMENT_ATTEMPTS", "until_written", "wait_for"]

logger = logging.getLogger("cadre.server")

SEGMENT_ATTEMPTS = 5
"""How many times a segment runs in all while the database keeps going away under it."""
FIRST_BACKOFF_S = 1.0
"""The first wait before the database is asked again."""
MOST_BACKOFF_S = 30.0
"""The longest wait between two tries."""

T = TypeVar("T")


def wait_for(database: Database, what: str) -> None:
    """Block until ``database`` answers, asking with a growing backoff; ``what`` waits (for
    the log)."""
    backoff = FIRST_BACKOFF_S
    started = time.monotonic()
    while not database.answers():
        logger.warning(
            "%s waits for the database %s (%.0f s so far): asking again in %.0f s",
            what,
            database.label,
            time.monotonic() - started,
            backoff,
        )
        time.sleep(backoff)
        backoff = min(MOST_BACKOFF_S, backoff * 2)


def until_written(write: Callable[[], T], database: Database, what: str) -> T:
    """``write()``, tried again each time the database answers again after it failed because
    the database went away (any other failure is raised)."""
    while True:
        try:
            return write()
        except Exception as error:
            if not database_gone(error):
                raise
            logger.warning("%s: the database went away (%s)", what, brief(error))
            wait_for(database, what)
