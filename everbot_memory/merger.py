"""Merging: the pure core of the engine (no I/O; ``now`` comes from the caller or the clock).

The scoring formulas themselves are in :mod:`everbot_memory.rules`; this module applies them to
entries: reinforce what a session confirms, add what is new, decay, archive and forget.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime

from .models import Candidate, MemoryEntry
from .rules import (
    ACTIVE_THRESHOLD,
    FORGET_THRESHOLD,
    INITIAL_SCORES,
    decayed_score,
    file_order,
    new_id,
    reinforced_score,
    utcnow,
)

__all__ = [
    "MemoryMerger",
    "MergeResult",
    "MergeStats",
    "contradict",
    "current_score",
    "decay",
    "expire",
    "normalize_content",
    "rebase",
    "reinforce",
    "sort_entries",
]


def current_score(entry: MemoryEntry, now: datetime) -> float:
    """The entry's score at ``now``: its anchor score decayed by the days since the anchor."""
    base_score, base_at = entry.anchor
    return decayed_score(base_score, base_at, entry.last_activated, now)


def decay(entry: MemoryEntry, now: datetime) -> MemoryEntry:
    """The entry with its score brought up to ``now`` (the anchor does not move)."""
    score = current_score(entry, now)
    if score == entry.score:
        return entry
    return entry.model_copy(update={"score": score})


#: An expired memory is archived at this score, then decays like any other.
EXPIRED_SCORE = 0.19


def expire(entry: MemoryEntry, now: datetime) -> MemoryEntry:
    """A memory whose time has passed (a todo done or missed): moved to Archived, not deleted."""
    if entry.score <= EXPIRED_SCORE:
        return entry
    when = now.replace(microsecond=0)
    return entry.model_copy(
        update={"score": EXPIRED_SCORE, "base_score": EXPIRED_SCORE, "base_at": when}
    )


def contradict(entry: MemoryEntry, now: datetime) -> MemoryEntry:
    """A memory a newer one contradicts: its score halved (seed Phase 1.5), and at most the
    Archived score, so two Active memories never say opposite things."""
    score = min(current_score(entry, now) * 0.5, EXPIRED_SCORE)
    when = now.replace(microsecond=0)
    return entry.model_copy(update={"score": score, "base_score": score, "base_at": when})


def reinforce(entry: MemoryEntry, now: datetime) -> MemoryEntry:
    """The entry confirmed again at ``now``: ``s + (1 - s) * 0.2``, one more hit, a new anchor."""
    score = reinforced_score(current_score(entry, now))
    return entry.model_copy(
        update={
            "score": score,
            "base_score": score,
            "base_at": now.replace(microsecond=0),
            "last_activated": now.replace(microsecond=0),
            "activation_count": entry.activation_count + 1,
        }
    )


def normalize_content(content: str) -> str:
    """The form two contents are compared in: lower-cased, trimmed, final "。" or "." dropped."""
    return content.strip().lower().rstrip("。.").strip()


def sort_entries(entries: Iterable[MemoryEntry]) -> list[MemoryEntry]:
    """Entries in file order: score descending; ties broken by age, then id, so order is stable."""
    return sorted(entries, key=file_order)


@dataclass
class MergeStats:
    """What a merge did: counts, plus the entries it forgot so they can be reported."""

    new: int = 0
    updated: int = 0
    archived: int = 0
    forgotten: int = 0
    contradicted: int = 0
    forgotten_entries: list[MemoryEntry] = field(default_factory=list)

    def as_dict(self) -> dict[str, int]:
        """The counts: ``{"new", "updated", "archived", "forgotten", "contradicted"}``."""
        counts = asdict(self)
        del counts["forgotten_entries"]
        return counts


@dataclass
class MergeResult:
    """The entries after a merge, in file order, and the statistics of the merge."""

    entries: list[MemoryEntry]
    stats: MergeStats
    #: For each candidate, the id of the memory it added or reinforced.
    placed: list[str] = field(default_factory=list)


class MemoryMerger:
    """Merges candidate memories into existing ones, then decays, archives and forgets."""

    def merge(
        self,
        existing: Sequence[MemoryEntry],
        candidates: Sequence[Candidate],
        session_id: str,
        now: datetime | None = None,
    ) -> MergeResult:
        """Apply one session's candidates to ``existing`` at ``now`` (default: the clock).

        A candidate reinforces the entry it ``confirms``, whose normalized content it repeats, or
        that says the same in other words (:mod:`everbot_memory.dedupe`); otherwise it becomes a
        new entry. An entry is reinforced at most once per merge.
        """
        now = (now or utcnow()).replace(microsecond=0)
        stats = MergeStats()
        by_id = {entry.id: entry for entry in existing}
        by_content = {normalize_content(entry.content): entry.id for entry in existing}
        reinforced: set[str] = set()
        added: list[MemoryEntry] = []
        added_by_content: dict[str, MemoryEntry] = {}

        placed: list[str] = []
        for candidate in candidates:
            key = normalize_content(candidate.content)
            target = candidate.confirms if candidate.confirms in by_id else by_content.get(key)
            if target is None and by_id:
                # Said in other words: reinforce the memory that says it (seed Phase 1.5).
                from .dedupe import FORGET_THRESHOLD as NEAR_ENOUGH_TO_FORGET
                from .dedupe import most_similar

                threshold = NEAR_ENOUGH_TO_FORGET if candidate.forget else None
                near = most_similar(candidate.content, list(by_id.values()), threshold)
                target = near.id if near is not None else None
            if candidate.forget:
                # "Forget that ...": the memory it names goes; nothing is added.
                if target is not None and target in by_id:
                    gone = by_id.pop(target)
                    stats.forgotten += 1
                    stats.forgotten_entries.append(gone)
                    placed.append(target)
                continue
            if target is not None:
                placed.append(target)
                if target not in reinforced:
                    reinforced.add(target)
                    by_id[target] = reinforce(by_id[target], now)
                    stats.updated += 1
                continue
            if key in added_by_content:
                placed.append(added_by_content[key].id)
                continue  # said twice in one session: one memory
            score = INITIAL_SCORES[candidate.importance]
            entry = MemoryEntry(
                id=new_id(set(by_id) | {e.id for e in added}),
                content=candidate.content,
                category=candidate.category,
                score=score,
                created_at=now,
                last_activated=now,
                activation_count=1,
                source_session=session_id,
                expires_at=candidate.expires_at,
                replaces=tuple(i for i in candidate.contradicts if i in by_id),
            )
            for old_id in entry.replaces:
                by_id[old_id] = contradict(by_id[old_id], now)
                stats.contradicted += 1
            added.append(entry)
            added_by_content[key] = entry
            placed.append(entry.id)
            stats.new += 1

        kept: list[MemoryEntry] = []
        active_before = {e.id for e in existing if e.score >= ACTIVE_THRESHOLD}
        for entry in [*by_id.values(), *added]:
            was_active = entry.id in active_before or entry in added
            entry = decay(entry, now)
            if entry.expires_at is not None and entry.expires_at <= now:
                entry = expire(entry, now)
            if entry.score < FORGET_THRESHOLD:
                stats.forgotten += 1
                stats.forgotten_entries.append(entry)
                continue
            if was_active and entry.score < ACTIVE_THRESHOLD:
                stats.archived += 1
            kept.append(entry)
        return MergeResult(entries=sort_entries(kept), stats=stats, placed=placed)


# Fields that change together when an entry is scored; a three-way merge treats them as one.
_SCORE_FIELDS = ("score", "base_score", "base_at", "last_activated", "activation_count")
_FIELD_GROUPS: tuple[tuple[str, ...], ...] = (
    ("content",),
    ("category",),
    _SCORE_FIELDS,
    ("created_at",),
    ("source_session",),
    ("merged_ids",),
    ("expires_at",),
    ("replaces",),
)


def _merge_fields(base: MemoryEntry, ours: MemoryEntry, theirs: MemoryEntry) -> MemoryEntry:
    update: dict[str, object] = {}
    for group in _FIELD_GROUPS:
        mine = [getattr(ours, name) for name in group]
        original = [getattr(base, name) for name in group]
        other = [getattr(theirs, name) for name in group]
        # Take our change only where the other writer left the field as it was.
        if mine != original and other == original:
            update.update(zip(group, mine, strict=True))
    return theirs.model_copy(update=update) if update else theirs


def rebase(
    base: Sequence[MemoryEntry],
    ours: Sequence[MemoryEntry],
    theirs: Sequence[MemoryEntry],
) -> list[MemoryEntry]:
    """Replay the change from ``base`` to ``ours`` onto ``theirs`` (a three-way merge by id).

    Used when the file changed on disk after it was read (a person saved it in an editor): the
    engine's additions, removals and updates are applied to the new content. Where both sides
    changed the same field of an entry, or one side deleted an entry the other changed, the
    other writer (the person) wins, so a hand edit is never overwritten.
    """
    base_by = {e.id: e for e in base}
    ours_by = {e.id: e for e in ours}
    theirs_ids = {e.id for e in theirs}
    result: list[MemoryEntry] = []
    for entry in theirs:
        original = base_by.get(entry.id)
        mine = ours_by.get(entry.id)
        if original is None:
            result.append(entry)  # their addition (or an id both sides added: theirs stays)
        elif mine is None:
            if entry != original:
                result.append(entry)  # we removed it, they changed it: keep their version
        else:
            result.append(_merge_fields(original, mine, entry))
    taken = {e.id for e in result}
    for entry in ours:
        if entry.id in base_by:
            continue  # ours already handled above, or deleted by them: their delete wins
        if entry.id in theirs_ids:
            entry = entry.model_copy(update={"id": new_id(taken)})
        taken.add(entry.id)
        result.append(entry)
    return sort_entries(result)
