"""The engine's fixed rules: categories, thresholds, the scoring formulas, the clock and ids.

This module imports nothing heavy, so the session-start path (reading the file and printing the
prompt block) can use the same formulas as the merger without loading pydantic.

- a new memory starts at 0.8, 0.6 or 0.4 for high, medium or low importance;
- a memory mentioned again is reinforced: ``s + (1 - s) * 0.2``;
- after 7 days without activation a memory decays by ``0.99`` a day. The score on a given day is
  computed from the entry's anchor (its score when last activated or set by hand), never
  compounded from the last displayed value, so it is the same whether maintenance ran every
  hour or once a year;
- Active >= 0.2 > Archived >= 0.05 > forgotten (deleted).
"""

from __future__ import annotations

import math
import uuid
from datetime import datetime, timezone
from typing import Protocol

__all__ = [
    "ACTIVE_THRESHOLD",
    "CATEGORIES",
    "DAILY_DECAY",
    "FORGET_THRESHOLD",
    "GRACE_DAYS",
    "IMPORTANCES",
    "INITIAL_SCORES",
    "REINFORCE_RATE",
    "Ranked",
    "decayed_score",
    "file_order",
    "new_id",
    "reinforced_score",
    "utcnow",
]

CATEGORIES: tuple[str, ...] = (
    "preference",
    "fact",
    "experience",
    "workflow",
    "decision",
    "skill_usage",
    "todo",
)
IMPORTANCES: tuple[str, ...] = ("high", "medium", "low")
INITIAL_SCORES = {"high": 0.8, "medium": 0.6, "low": 0.4}
REINFORCE_RATE = 0.2
GRACE_DAYS = 7
DAILY_DECAY = 0.99
#: An entry with at least this score is Active: it may be injected into prompts.
ACTIVE_THRESHOLD = 0.2
#: Below this score an entry is forgotten (deleted); between the two it is Archived.
FORGET_THRESHOLD = 0.05
_DAY_SECONDS = 86_400


def utcnow() -> datetime:
    """The current time, timezone-aware, in UTC: the one clock every part of the engine reads."""
    return datetime.now(timezone.utc)


def new_id(taken: set[str] | frozenset[str] = frozenset()) -> str:
    """A fresh entry id: 6 lowercase hex characters from a uuid4, not in ``taken``."""
    while True:
        candidate = uuid.uuid4().hex[:6]
        if candidate not in taken:
            return candidate


def _decay_days(at: datetime, last_activated: datetime) -> int:
    """Whole days of decay at time ``at``: days since activation, less the grace period."""
    days = math.floor((at - last_activated).total_seconds() / _DAY_SECONDS)
    return max(0, days - GRACE_DAYS)


def decayed_score(
    base_score: float, base_at: datetime, last_activated: datetime, now: datetime
) -> float:
    """The score at ``now`` of an entry that had ``base_score`` at ``base_at``.

    ``base_score * 0.99 ** (decay days at now - decay days at base_at)``: for an anchor at the
    last activation that is ``s * 0.99 ** max(0, days - 7)``. It never rises when the clock
    goes back.
    """
    days = _decay_days(now, last_activated) - _decay_days(base_at, last_activated)
    return base_score * DAILY_DECAY ** max(0, days)


def reinforced_score(score: float) -> float:
    """The score after one more confirmation: ``s + (1 - s) * 0.2``, never above 1."""
    return min(1.0, score + (1.0 - score) * REINFORCE_RATE)


class Ranked(Protocol):
    """What ordering needs of an entry."""

    @property
    def id(self) -> str: ...
    @property
    def score(self) -> float: ...
    @property
    def created_at(self) -> datetime: ...


def file_order(entry: Ranked) -> tuple[float, datetime, str]:
    """Sort key of the file: score descending; ties by age, then id, so the order is stable."""
    return (-entry.score, entry.created_at, entry.id)
