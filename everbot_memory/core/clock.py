"""The clock and fresh ids: the only two things the core takes from the world.

Every part of the engine reads the time through :func:`utcnow`, so freezegun controls it in
tests; functions that compute with time also take ``now`` as an argument.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Set
from datetime import datetime, timezone

__all__ = ["iso", "new_id", "stable_id", "utcnow"]


def utcnow() -> datetime:
    """The current time, timezone-aware, in UTC."""
    return datetime.now(timezone.utc)


def iso(value: datetime) -> str:
    """``value`` in UTC as ``YYYY-MM-DDTHH:MM:SSZ``, the form the file and JSON output use."""
    value = value.astimezone(timezone.utc)
    # Four digits of year always (strftime writes the year 1 as "1"); the same text as
    # strftime("%Y-%m-%dT%H:%M:%SZ") from the year 1000 on.
    return f"{value.date().isoformat()}T{value.hour:02d}:{value.minute:02d}:{value.second:02d}Z"


#: Where fresh ids come from: the system's random source, as a uuid4's (without importing
#: uuid, which imports platform: a few milliseconds of every command).
_random_bytes = os.urandom


def new_id(taken: Set[str] = frozenset()) -> str:
    """A fresh entry id: 6 lowercase hex characters, random, not in ``taken``."""
    while True:
        candidate = _random_bytes(3).hex()
        if candidate not in taken:
            return candidate


def stable_id(seed: str, taken: Set[str] = frozenset()) -> str:
    """An id derived from ``seed`` (6 hex characters of its hash), not in ``taken``.

    A memory a person wrote without an id gets the same id every time the file is read, so
    two copies of the file (an editor's and the engine's) agree on which memory is which.
    """
    digest = hashlib.sha256(seed.encode("utf-8", "surrogatepass")).hexdigest()
    for start in range(0, len(digest) - 5, 6):
        candidate = digest[start : start + 6]
        if candidate not in taken:
            return candidate
    return new_id(taken)
