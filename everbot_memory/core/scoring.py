"""Scores over time: seeding, reinforcing, decaying, expiring and the order of the file.

Decay is path-independent (SPEC §2): on any day an entry's score is
``s * 0.99 ** max(0, days - 7)``, where ``s`` is its score when last activated (or last set by
hand), the entry's *anchor*. Scores are never compounded from the last displayed value, so the
result is the same whether maintenance runs every hour or once a year. :func:`score_at` is the
one place the engine asks "what is this entry worth now?".
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import date, datetime, time, timedelta, timezone
from itertools import compress, islice, repeat
from operator import add, attrgetter, eq, floordiv, is_not, mul, sub
from typing import Literal, Protocol

from .entry import MemoryEntry
from .ranking import decayed
from .rules import (
    ACTIVE_MIN_SCORE,
    EXPIRED_SCORE,
    GRACE_DAYS,
    INITIAL_SCORES,
    KEEP_MIN_SCORE,
    REINFORCE_RATE,
)

__all__ = [
    "Anchored",
    "Ranked",
    "Section",
    "contradict",
    "decay",
    "decayed_score",
    "expire",
    "expiry_after",
    "file_order",
    "initial_score",
    "is_expired",
    "reinforce",
    "reinforced_score",
    "score_at",
    "scores_at",
    "section_of",
    "sort_entries",
    "steady_until",
]

_DAY_SECONDS = 86_400

Section = Literal["active", "archived", "forgotten"]


class Ranked(Protocol):
    """What ordering needs of an entry."""

    @property
    def id(self) -> str: ...
    @property
    def score(self) -> float: ...
    @property
    def created_at(self) -> datetime: ...


class Anchored(Protocol):
    """What decay needs of an entry."""

    @property
    def last_activated(self) -> datetime: ...
    @property
    def anchor(self) -> tuple[float, datetime]: ...


def initial_score(importance: str) -> float:
    """The score of a new memory: 0.8, 0.6 or 0.4 for high, medium or low importance."""
    return INITIAL_SCORES[importance]


def decayed_score(
    base_score: float, base_at: datetime, last_activated: datetime, now: datetime
) -> float:
    """The score at ``now`` of an entry that had ``base_score`` at ``base_at``.

    ``base_score * 0.99 ** (decay days at now - decay days at base_at)``: for an anchor at the
    last activation that is ``s * 0.99 ** max(0, days - 7)``. It never rises when the clock
    goes back.
    """
    return decayed(base_score, base_at.timestamp(), last_activated.timestamp(), now.timestamp())


def score_at(entry: Anchored, now: datetime) -> float:
    """The entry's score at ``now``: its anchor score decayed by the days since the anchor."""
    base_score, base_at = entry.anchor
    return decayed_score(base_score, base_at, entry.last_activated, now)


def scores_at(entries: Iterable[MemoryEntry], now: datetime) -> list[float]:
    """:func:`score_at` of every entry, the same numbers, for a whole file at once (a merge
    brings every memory to ``now``): each time read once, the formula called directly."""
    stamp = now.timestamp()
    scores = []
    for entry in entries:
        base_score, base_at = entry.anchor
        activated = entry.last_activated
        last = activated.timestamp()
        anchored = last if base_at == activated else base_at.timestamp()
        scores.append(decayed(base_score, anchored, last, stamp))
    return scores


def steady_until(
    last_activated: Sequence[float], expires: Sequence[float | None], at: float
) -> list[float]:
    """For entries whose scores are the ones decay gives them at ``at``, and whose expiry,
    if it passed by then, was applied: the moment each one's score next changes, in seconds
    since the epoch (``last_activated`` and ``expires``: theirs, the same way). That is the
    next whole day since its last activation past the grace (decay counts whole days), or
    its expiry if sooner. At any moment from ``at`` until then, decay and expiry leave the
    entry as it is, so a merge then need not score it again. C loops: a file may hold
    100,000 memories."""
    # floor((at - last) / day) whole days at ``at``; the score next changes when one more
    # has passed, and not before the first day of decay (the grace's end).
    days = map(floordiv, map(sub, repeat(float(at)), last_activated), repeat(float(_DAY_SECONDS)))
    first = float(GRACE_DAYS + 1)
    nexts = map(max, map(add, days, repeat(1.0)), repeat(first))
    until = list(map(add, last_activated, map(mul, nexts, repeat(float(_DAY_SECONDS)))))
    for number in compress(range(len(until)), map(is_not, expires, repeat(None))):
        expiry = expires[number]
        if expiry is not None and at < expiry < until[number]:
            until[number] = expiry
    return until


def reinforced_score(score: float) -> float:
    """The score after one more confirmation: ``s + (1 - s) * 0.2``, never above 1."""
    return min(1.0, score + (1.0 - score) * REINFORCE_RATE)


def section_of(score: float) -> Section:
    """Where a score puts an entry: Active (>= 0.2), Archived (>= 0.05), else forgotten."""
    if score >= ACTIVE_MIN_SCORE:
        return "active"
    return "archived" if score >= KEEP_MIN_SCORE else "forgotten"


def is_expired(entry: object, now: datetime) -> bool:
    """True when the entry carries an expiry (a todo, a dated memory) that has passed."""
    expires = getattr(entry, "expires_at", None)
    return expires is not None and expires <= now


def expiry_after(day: date) -> datetime:
    """When a memory about ``day`` lapses: the start of the next day (UTC)."""
    return datetime.combine(day + timedelta(days=1), time(), timezone.utc)


def decay(entry: MemoryEntry, now: datetime) -> MemoryEntry:
    """The entry with its score brought up to ``now`` (the anchor does not move)."""
    score = score_at(entry, now)
    return entry if score == entry.score else entry.with_score(score)


def reinforce(entry: MemoryEntry, now: datetime) -> MemoryEntry:
    """The entry confirmed again at ``now``: ``s + (1 - s) * 0.2``, one more hit, a new anchor."""
    score = reinforced_score(score_at(entry, now))
    when = now.replace(microsecond=0)
    return entry.replace(
        score=score,
        base_score=score,
        base_at=when,
        last_activated=when,
        activation_count=entry.activation_count + 1,
    )


def expire(entry: MemoryEntry, now: datetime) -> MemoryEntry:
    """A memory whose time has passed (a todo done or missed): moved to Archived, not deleted."""
    if entry.score <= EXPIRED_SCORE:
        return entry
    when = now.replace(microsecond=0)
    return entry.replace(score=EXPIRED_SCORE, base_score=EXPIRED_SCORE, base_at=when)


def contradict(entry: MemoryEntry, now: datetime) -> MemoryEntry:
    """A memory a newer one contradicts: its score halved (seed Phase 1.5), and at most the
    Archived score, so two Active memories never say opposite things."""
    score = min(score_at(entry, now) * 0.5, EXPIRED_SCORE)
    when = now.replace(microsecond=0)
    return entry.replace(score=score, base_score=score, base_at=when)


def file_order(entry: Ranked) -> tuple[float, datetime, str]:
    """Sort key of the file: score descending; ties by age, then id, so the order is stable."""
    return (-entry.score, entry.created_at, entry.id)


def sort_entries(entries: Iterable[MemoryEntry]) -> list[MemoryEntry]:
    """Entries in file order (:func:`file_order`).

    Sorted by score with a key made in C, then each run of equal scores by age and id: the
    same order, without a Python call per entry (every merge and save sorts every memory of
    the file, and a file may hold 100,000; most scores differ, and the list is most often
    in file order already, which a sort goes through in one pass)."""
    # Stable, also in reverse: entries of equal score keep their order, put right below.
    out = sorted(entries, key=_SCORE, reverse=True)
    scores = list(map(_SCORE, out))
    tied = compress(range(len(out) - 1), map(eq, scores, islice(scores, 1, None)))
    start = end = -1
    for at in tied:  # each place whose entry's score is the next one's
        if at != end:
            _order_ties(out, start, end)
            start = at
        end = at + 1
    _order_ties(out, start, end)
    return out


_SCORE = attrgetter("score")
_TIE = attrgetter("created_at", "id")


def _order_ties(entries: list[MemoryEntry], start: int, end: int) -> None:
    """Put ``entries[start : end + 1]``, of equal score, in file order (by age, then id)."""
    if start >= 0:
        entries[start : end + 1] = sorted(entries[start : end + 1], key=_TIE)
