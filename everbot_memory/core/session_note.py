"""The note of one session (the episodic layer): when it closed, what was worked on, what
was decided, what was left open. Written to a day's file by :mod:`everbot_memory.document.notes`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

__all__ = ["SessionNote"]


@dataclass(frozen=True)
class SessionNote:
    """A short note of one session: when it closed, what was worked on, what was decided and
    what was left open."""

    session: str
    at: datetime
    worked_on: str = ""
    decisions: tuple[str, ...] = ()
    open_threads: tuple[str, ...] = ()
    topics: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        """True when the note says nothing."""
        return not (self.worked_on or self.decisions or self.open_threads or self.topics)
