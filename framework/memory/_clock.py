"""The semantic store's clock: when items are written, read, refreshed and expire."""

from __future__ import annotations

import time

__all__ = ["now"]


def now() -> float:
    """Seconds since the epoch."""
    return time.time()
