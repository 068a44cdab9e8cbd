"""Merging: reinforce what a session confirms, add what is new, then decay, archive, forget.

Everything here is a function of its inputs and ``now``: no file, no clock read when ``now`` is
given. The formulas are in :mod:`everbot_memory.core.scoring`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from collections.abc import Callable, Collection, Container, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from itertools import compress, repeat
from operator import attrgetter, ge, is_not, lt, ne, not_
from typing import TYPE_CHECKING

from .clock import new_id, utcnow
from .duplicates import most_similar, whole_text
from .entry import MemoryEntry, exhaust, with_scores
from .groups import guess_group
from .rules import (
    ACTIVE_MIN_SCORE,
    DUPLICATE_MIN_SIMILARITY,
    FORGET_REQUEST_MIN_SIMILARITY,
    KEEP_MIN_SCORE,
)
from .scoring import contradict, expire, initial_score, reinforce, scores_at, sort_entries
from .text import normalize_content, token_set

if TYPE_CHECKING:
    from .candidate import Candidate
    from .proposal import Proposal

__all__ = ["MemoryMerger", "MergeResult", "MergeStats", "fingerprint", "rebase", "settle", "unite"]


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
    #: The moment the entries were brought to: each one's score is what decay gives it then.
    settled_at: datetime | None = None


_SCORE = attrgetter("score")
_EXPIRES = attrgetter("expires_at")
_ID = attrgetter("id")


def settle(
    entries: Sequence[MemoryEntry],
    now: datetime,
    stats: MergeStats,
    was_active: Container[str],
    steady: Collection[int] = frozenset(),
) -> list[MemoryEntry]:
    """Bring every entry to ``now``: decay, expire what has lapsed, forget what fell below
    0.05; count in ``stats`` the entries of ``was_active`` that fell to Archived.

    ``steady``: the ``id()`` of entries known to be at ``now`` already (scored by a merge
    since which neither a day of decay nor their expiry has come): kept as they are. Most
    memories of a file merged into again the same day are (see ``steady_until``)."""
    kept: list[MemoryEntry] = []
    moving = list(entries)
    if steady:
        # Sorted out by C loops: a file may hold 100,000 memories, and a few have changed.
        still = list(map(steady.__contains__, map(id, entries)))
        kept = list(compress(entries, still))
        moving = list(compress(entries, map(not_, still)))
    # Decay, expiry, then what fell below Active or out of the file; C loops pick out the
    # entries each step changes (the first merge of a day rescores every memory).
    scores = scores_at(moving, now)
    count = range(len(moving))
    differ = list(compress(count, map(ne, scores, map(_SCORE, moving))))
    if differ:
        rescored = with_scores(
            list(map(moving.__getitem__, differ)), list(map(scores.__getitem__, differ))
        )
        exhaust(map(moving.__setitem__, differ, rescored))  # what decay(entry, now) gives
    for number in compress(count, map(is_not, map(_EXPIRES, moving), repeat(None))):
        entry = moving[number]
        if entry.expires_at is not None and entry.expires_at <= now:  # is_expired
            moving[number] = expire(entry, now)
    for number in compress(count, map(lt, map(_SCORE, moving), repeat(ACTIVE_MIN_SCORE))):
        entry = moving[number]
        if entry.score < KEEP_MIN_SCORE:
            stats.forgotten += 1
            stats.forgotten_entries.append(entry)
        elif entry.id in was_active:
            stats.archived += 1
    kept += compress(moving, map(ge, map(_SCORE, moving), repeat(KEEP_MIN_SCORE)))
    return sort_entries(kept)


class MemoryMerger:
    """Merges candidate memories into existing ones, then decays, archives and forgets."""

    def merge(
        self,
        existing: Sequence[MemoryEntry],
        candidates: Sequence[Candidate | Proposal],
        session_id: str,
        now: datetime | None = None,
        *,
        steady: Callable[[datetime], Collection[int]] | None = None,
    ) -> MergeResult:
        """Apply one session's candidates to ``existing`` at ``now`` (default: the clock).

        A candidate reinforces the entry it ``confirms``, whose normalized content it repeats, or
        that says the same in other words (:mod:`everbot_memory.core.duplicates`); otherwise it
        becomes a new entry. An entry is reinforced at most once per merge.

        ``steady(now)``, when given, names (by ``id()``) the entries of ``existing`` whose
        score is already the one decay gives them at ``now`` (what the store knows of the file
        the last merge wrote): they are not scored again.
        """
        now = (now or utcnow()).replace(microsecond=0)
        stats = MergeStats()
        # C loops (the last of an id twice, as before).
        by_id = dict(zip(map(_ID, existing), existing, strict=True))
        # Every memory's text, case-folded, looked in once for what the candidates say (by
        # both tests below): made once per merge, not once per test (tens of MB at 100,000).
        folded = whole_text(existing) if existing else ""
        keys = [normalize_content(c.content) for c in candidates]
        by_content = _saying(existing, keys, folded)
        reinforced: set[str] = set()
        added: dict[str, MemoryEntry] = {}  # normalized content -> the new entry
        placed: list[str] = []
        for candidate in candidates:
            key = normalize_content(candidate.content)
            target = candidate.confirms if candidate.confirms in by_id else by_content.get(key)
            if target is not None and target not in by_id:
                target = None  # forgotten earlier in this merge: said again, it is new again
            if target is None and by_id:
                # Said in other words: reinforce the memory that says it (seed Phase 1.5).
                # (``folded`` holds every memory of ``by_id``: it holds more, at most.)
                least = (
                    FORGET_REQUEST_MIN_SIMILARITY if candidate.forget else DUPLICATE_MIN_SIMILARITY
                )
                near = most_similar(candidate.content, list(by_id.values()), least, folded=folded)
                if (
                    near is not None
                    and not candidate.forget
                    and not _says_alike(candidate.content, near.content)
                ):
                    near = None  # "does not like tea" is no "likes tea" said again
                target = near.id if near is not None else None
            for _ in range(8):  # bounded: a hand edit could make the links a loop
                # A memory consolidate archived: what it says lives on in the condensed one.
                into = by_id[target].condensed_into if target in by_id else None
                if into is None or into not in by_id:
                    break
                target = into
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
                # A value said again that another replaced since ("lives in Berlin" after a
                # move to Lisbon and back): the one it replaces now goes, as for a new memory.
                for old_id in candidate.contradicts:
                    if old_id != target and old_id in by_id and by_id[old_id].is_active:
                        by_id[old_id] = contradict(by_id[old_id], now)
                        stats.contradicted += 1
                continue
            if key in added:
                placed.append(added[key].id)
                continue  # said twice in one session: one memory
            if added and not candidate.contradicts:
                # Said twice in other words ("deploys on Tuesdays." and "...Tuesdays!"): one
                # memory too, as when the second came in a later merge; of the same kind and
                # day (a todo is not the fact it repeats).
                twin = most_similar(candidate.content, list(added.values()))
                if (
                    twin is not None
                    and twin.category == candidate.category
                    and twin.expires_at == candidate.expires_at
                    and _says_alike(candidate.content, twin.content)
                ):
                    placed.append(twin.id)
                    continue
            entry = MemoryEntry(
                id=_fresh_id(by_id, added),
                content=candidate.content,
                category=candidate.category,
                score=initial_score(candidate.importance),
                created_at=now,
                last_activated=now,
                activation_count=1,
                source_session=session_id,
                expires_at=candidate.expires_at,
                replaces=tuple(i for i in candidate.contradicts if i in by_id),
                group=candidate.group or _group_of(candidate, by_id),
            )
            for old_id in entry.replaces:
                by_id[old_id] = contradict(by_id[old_id], now)
                stats.contradicted += 1
            added[key] = entry
            placed.append(entry.id)
            stats.new += 1

        # Asked only of a memory that falls below Active (most merges: none): made then.
        was_active = _Lazy(
            lambda: (
                {e.id for e in existing if e.score >= ACTIVE_MIN_SCORE}
                | {e.id for e in added.values()}
            )
        )
        still = steady(now) if steady is not None else frozenset()
        kept = settle([*by_id.values(), *added.values()], now, stats, was_active, still)
        return MergeResult(entries=kept, stats=stats, placed=placed, settled_at=now)


class _Lazy(Container[str]):
    """A set made the first time something is looked for in it (``make()``)."""

    def __init__(self, make: Callable[[], set[str]]) -> None:
        self._make: Callable[[], set[str]] | None = make
        self._made: set[str] = set()

    def __contains__(self, item: object) -> bool:
        if self._make is not None:
            self._made, self._make = self._make(), None
        return item in self._made


def _fresh_id(by_id: Mapping[str, MemoryEntry], added: Mapping[str, MemoryEntry]) -> str:
    """A new id, in neither ``by_id`` nor ``added`` (without a set of every id of the file)."""
    taken = {e.id for e in added.values()}
    while True:
        candidate = new_id(taken)
        if candidate not in by_id:
            return candidate


# Words that turn a statement around, and words that weigh one thing over another.
# (A verb turned around, not a thing left out: "coffee black, no sugar", "no matter what" and
# "not only Python" say the same as without them.)
_NEGATION = re.compile(
    r"\b(?:not|never|cannot)\b(?! (?:only|just|merely)\b)|n't\b"
    r"|不(?!错|过|同|少|久|断|仅|只|管)|没(?!问题)|(?<![特区性])别(?![人的墅])",
    re.I,
)
_OVER = re.compile(r"\b(?:over|than|instead of|rather than)\b|而不是|胜过|多于|比(?!较)", re.I)


def _says_alike(one: str, other: str) -> bool:
    """False when two texts alike in their words say opposite things: one turned around
    ("does not like tea", "likes tea"), or the same two things weighed the other way
    ("prefers tabs over spaces", "prefers spaces over tabs")."""
    if bool(_NEGATION.search(one)) != bool(_NEGATION.search(other)):
        return False
    a, b = _OVER.search(one), _OVER.search(other)
    if a and b:
        before, after = token_set(one[: a.start()]), token_set(other[: b.start()])
        if before != after and before & token_set(other[b.end() :]):
            return False
    return True


def _saying(
    existing: Sequence[MemoryEntry], keys: Sequence[str], folded: str | None = None
) -> dict[str, str]:
    """For each of ``keys`` (normalized contents), the id of the memory whose normalized
    content it is, the last one when several are: what a map of every memory would give for
    these keys, without the normal form of every memory of a large file. ``folded``: every
    memory's text case-folded (``duplicates.whole_text``), when made already."""
    wanted = set(keys)
    few = len(wanted) <= 8
    found: dict[str, str] = {}
    if few:
        # Most keys are in no memory at all: one test over the whole file's text (a match
        # across two memories is looked at below, and found to be none). Case-folded: a key
        # (lower-cased) in a memory's lower-cased text is, case-folded, in its case-folded
        # text (case folding goes a character at a time, and folds a lower-cased character
        # as it folds the character).
        everything = whole_text(existing) if folded is None else folded
        if not any(key.casefold() in everything for key in wanted):
            return found
    for entry in existing:
        text = entry.content
        # The normal form only trims and lower-cases, so a memory that says a key holds it in
        # its lower-cased text: a substring test passes over almost every memory.
        if few:
            lowered = text.lower()
            if not any(key in lowered for key in wanted):
                continue
        normal = normalize_content(text)
        if normal in wanted:
            found[normal] = entry.id
    return found


def _group_of(candidate: Candidate | Proposal, by_id: Mapping[str, MemoryEntry]) -> str | None:
    """The group of a new memory the extractor left without one: the group of the memory it
    replaces (a changed fact stays where it was), else what its words say."""
    for old_id in candidate.contradicts:
        old = by_id.get(old_id)
        if old is not None and old.group:
            return old.group
    return guess_group(candidate.content)


# Fields that change together when an entry is scored; a three-way merge treats them as one.
SCORE_FIELDS = ("score", "base_score", "base_at", "last_activated", "activation_count")
_FIELD_GROUPS: tuple[tuple[str, ...], ...] = (
    SCORE_FIELDS,
    *(
        (f.name,)
        for f in dataclasses.fields(MemoryEntry)
        if f.name != "id" and f.name not in SCORE_FIELDS
    ),
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
    return theirs.replace(**update) if update else theirs


def fingerprint(entry: MemoryEntry) -> str:
    """A short hash of what an entry says, to tell the same memory from an edited one."""
    text = normalize_content(entry.content).encode("utf-8", "surrogatepass")
    return hashlib.blake2b(text, digest_size=8).hexdigest()


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

    Right only when ``base`` is an ancestor of both sides: an entry of ``base`` that one side
    lacks is taken as deleted by that side. With no such base, use :func:`unite`.
    """
    base_by = {e.id: e for e in base}
    ours_by = {e.id: e for e in ours}
    theirs_by = {e.id: e for e in theirs}
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
        other = theirs_by.get(entry.id)
        if other is not None:
            if fingerprint(other) == fingerprint(entry):
                continue  # both sides hold the same new memory: it is there once
            entry = entry.replace(id=new_id(taken))  # two memories that drew the same id
        taken.add(entry.id)
        result.append(entry)
    return sort_entries(result)


def unite(
    ours: Sequence[MemoryEntry],
    theirs: Sequence[MemoryEntry],
    forgotten: Mapping[str, str] | None = None,
    nearest: Sequence[MemoryEntry] = (),
) -> list[MemoryEntry]:
    """Merge two versions that share no known ancestor: every memory either side holds.

    Without a common ancestor there is no telling a deletion from a copy that never had the
    memory, so nothing one side lacks is taken as deleted (a line brought back is better than
    a person's line lost), except what ``ours`` removed on purpose: ``forgotten`` maps such an
    id to the :func:`fingerprint` of what it said, and their copy of it goes unless they
    edited it. A memory both hold is merged field by field from its copy in ``nearest`` (a
    version ours descends from, the one theirs is most like) when there is one: ours's
    change since then is taken where theirs left the field as it was there. Otherwise
    theirs is kept.
    """
    forgotten = forgotten or {}
    ours_by = {e.id: e for e in ours}
    nearest_by = {e.id: e for e in nearest}
    theirs_ids = {e.id for e in theirs}
    result: list[MemoryEntry] = []
    for entry in theirs:
        mine = ours_by.get(entry.id)
        if mine is None:
            if forgotten.get(entry.id) != fingerprint(entry):
                result.append(entry)
            continue
        original = nearest_by.get(entry.id)
        result.append(entry if original is None else _merge_fields(original, mine, entry))
    result.extend(entry for entry in ours if entry.id not in theirs_ids)
    return sort_entries(result)
