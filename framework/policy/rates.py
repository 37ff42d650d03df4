"""Where rate-limit schedules live: in the process (every run of it shares them), or in the
home's PostgreSQL database, so every process and machine sharing the database keeps one rate.

A schedule is the generic cell rate algorithm's theoretical arrival time: reserving ``units``
moves it on by ``units * interval`` and tells the caller how long to wait for its slot. The
database keeps it in one row per key, moved by one atomic statement on the database's clock,
so processes with different clocks still space their calls by the interval.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Protocol, runtime_checkable

from framework.database import Database, is_postgres_url, open_database

__all__ = [
    "DatabaseSchedules",
    "MemorySchedules",
    "RateSchedules",
    "UsesRateSchedules",
    "schedules_for",
]

RATES_SCHEMA = "cadre_rates"
"""The PostgreSQL schema of the shared schedules."""


class RateSchedules(Protocol):
    """Reservations against named schedules."""

    def reserve(self, key: str, interval: float, tolerance: float, units: float) -> float:
        """Reserve ``units`` on schedule ``key`` (``interval`` seconds each, ``tolerance``
        seconds of burst); the seconds to wait before they may go."""
        ...


@runtime_checkable
class UsesRateSchedules(Protocol):
    """A policy that keeps its rates in a :class:`RateSchedules` it is given."""

    def use_schedules(self, schedules: RateSchedules) -> None:
        """Keep the rates in ``schedules`` from now on."""
        ...


class MemorySchedules:
    """Schedules in this process's memory.

    Args:
        clock: Seconds from any fixed point (default :func:`time.monotonic`).
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._arrivals: dict[str, float] = {}
        self._lock = threading.Lock()

    def reserve(self, key: str, interval: float, tolerance: float, units: float) -> float:
        """See :meth:`RateSchedules.reserve`."""
        now = self.clock()
        with self._lock:
            arrival = max(self._arrivals.get(key, 0.0), now)
            self._arrivals[key] = arrival + units * interval
        return max(0.0, arrival - tolerance - now)


_NOW = "CAST(EXTRACT(EPOCH FROM clock_timestamp()) AS DOUBLE PRECISION)"
_RESERVE = f"""
INSERT INTO rate_schedules (key, arrival) VALUES (?, {_NOW} + ?)
ON CONFLICT (key) DO UPDATE SET arrival = GREATEST(rate_schedules.arrival, {_NOW}) + ?
RETURNING arrival - ? - ? - {_NOW}
"""


class DatabaseSchedules:
    """Schedules in a PostgreSQL database, shared by every process that reaches it.

    Args:
        db: The database (in schema :data:`RATES_SCHEMA`).
    """

    def __init__(self, db: Database) -> None:
        self.db = db
        with db.lock, db.schema_transaction():
            db.execute(
                "CREATE TABLE IF NOT EXISTS rate_schedules"
                " (key TEXT PRIMARY KEY, arrival DOUBLE PRECISION NOT NULL)"
            )

    def reserve(self, key: str, interval: float, tolerance: float, units: float) -> float:
        """See :meth:`RateSchedules.reserve`: one statement, on the database's clock."""
        step = units * interval
        with self.db.lock:
            row = self.db.execute(_RESERVE, (key, step, step, step, tolerance)).fetchone()
        return max(0.0, float(row[0]))


_KNOWN: dict[str, RateSchedules] = {}
_KNOWN_LOCK = threading.Lock()


def schedules_for(database: str | None, home: str) -> RateSchedules:
    """The schedules of the data home ``home``: in its PostgreSQL ``database`` when it has
    one (every process reaching it shares them), else in this process (its runs share them)."""
    shared = database is not None and is_postgres_url(database)
    place = database if database is not None and shared else home
    with _KNOWN_LOCK:
        known = _KNOWN.get(place)
        if known is None:
            known = _KNOWN[place] = (
                DatabaseSchedules(open_database(place, schema=RATES_SCHEMA))
                if shared
                else MemorySchedules()
            )
        return known
