"""What the web page shows and changes, each one call: a listing, a memory's page, the file's
health, and edits that are refused when the memory changed since the page was read.

The page sends back the version of the memory it showed (:func:`entry_version`, a hash of
every field); :func:`edit` and :func:`forget` compare it under the writers' lock before they
change anything, so an edit never overwrites a change made meanwhile by a session, another
page or a person in an editor.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Literal, get_args

from ..core.clock import utcnow
from ..core.entry import Category, MemoryEntry
from ..core.rules import ACTIVE_MIN_SCORE, CATEGORIES, KEEP_MIN_SCORE
from ..core.scoring import decayed_score, file_order, score_at
from ..document.model import Problem
from ..errors import EverbotMemoryError
from .choice import Section

if TYPE_CHECKING:
    from ..storage.queue import Job
    from .memory import Memory
    from .reports import History

__all__ = [
    "CHART_DAYS_AHEAD",
    "SCORE_DIGITS",
    "SEARCH_LIMIT",
    "SORTS",
    "ChangedMeanwhileError",
    "Curve",
    "Detail",
    "Health",
    "Listing",
    "Row",
    "Sort",
    "browse",
    "detail",
    "edit",
    "entry_version",
    "forget",
    "health",
    "score_curve",
    "score_text",
]

Sort = Literal["score", "activated", "hits", "created", "expires"]
#: The orders a listing can take (``score`` is the file's own).
SORTS: tuple[str, ...] = get_args(Sort)
#: Digits of a score shown in a form: a score sent back unchanged is not a change.
SCORE_DIGITS = 3
#: How far past now a memory's chart runs, to show where its decay goes.
CHART_DAYS_AHEAD = 60
#: How many memories a search returns at most.
SEARCH_LIMIT = 50


class ChangedMeanwhileError(EverbotMemoryError):
    """The memory changed (or went) after the page showed it; nothing was written."""

    def __init__(self, entry_id: str, gone: bool = False) -> None:
        if gone:
            said = (
                f"memory [{entry_id}] is no longer in the file (a session, another page or an "
                "editor removed it after this page was loaded); nothing was saved"
            )
        else:
            said = (
                f"memory [{entry_id}] changed after this page was loaded (a session, another "
                "page or an editor saved it); nothing was saved: reload the page to see it, "
                "then edit again"
            )
        super().__init__(said)
        self.entry_id = entry_id


def entry_version(entry: MemoryEntry) -> str:
    """A short hash of the fields of ``entry`` a change writes: it changes whenever the memory
    does, and not between two reads of the same file. (The score now and the time it was
    set from are worked out at each read for a score a person typed: a new version every
    second refused every save of such a memory.)"""
    fields = entry.to_json()
    for derived in ("score", "base_at"):
        fields.pop(derived, None)
    data = json.dumps(fields, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(data.encode("utf-8")).hexdigest()[:16]


def score_text(score: float) -> str:
    """A score as a form shows it."""
    return f"{score:.{SCORE_DIGITS}f}"


@dataclass(frozen=True)
class Row:
    """One memory in a listing: its score now (decayed as of the listing) and, for a search,
    how much of the query it matches."""

    entry: MemoryEntry
    score_now: float
    relevance: float | None = None

    @property
    def active(self) -> bool:
        """True when the memory is in the Active section."""
        return self.entry.is_active


@dataclass(frozen=True)
class Listing:
    """The memories a listing shows, and the counts before filtering."""

    rows: list[Row]
    total: int
    active: int
    archived: int
    #: True when the rows are a search's hits, best first.
    searched: bool
    #: The groups the memories use, for the filter ("none" last when some have no group).
    groups: list[str] = field(default_factory=list)
    #: Who the user is: the profile's lines as the session-start block shows them.
    profile: list[str] = field(default_factory=list)


def _sort_key(sort: Sort, now: datetime) -> Callable[[Row], Any]:
    far = datetime.max.replace(tzinfo=now.tzinfo)
    keys: dict[str, Callable[[Row], Any]] = {
        "score": lambda r: file_order(r.entry),
        "activated": lambda r: (-r.entry.last_activated.timestamp(), r.entry.id),
        "hits": lambda r: (-r.entry.activation_count, file_order(r.entry)),
        "created": lambda r: (-r.entry.created_at.timestamp(), r.entry.id),
        "expires": lambda r: (r.entry.expires_at or far, file_order(r.entry)),
    }
    return keys[sort]


def browse(
    memory: Memory,
    *,
    section: Section = "all",
    category: str | None = None,
    text: str = "",
    query: str = "",
    sort: Sort = "score",
    group: str | None = None,
) -> Listing:
    """The memories in ``section``, ``category`` and ``group`` (``none``: without one)
    holding ``text`` (case and spacing ignored), in ``sort`` order; with ``query``, those
    recall finds for it, best first (the same search as ``everbot-memory recall``)."""
    from ..core.groups import matches, parse_filter
    from ..core.profile import profile_lines, shown

    if sort not in SORTS:
        raise EverbotMemoryError(f"sort {sort!r} is not one of {', '.join(SORTS)}")
    if category is not None and category not in CATEGORIES:
        raise EverbotMemoryError(f"category {category!r} is not one of {', '.join(CATEGORIES)}")
    now = utcnow()
    doc = memory.store.load_document()
    entries = list(doc.entries)
    wanted = parse_filter(group)
    if query.strip():
        rows = [
            Row(hit.entry, hit.score, hit.relevance) for hit in memory.recall(query, k=SEARCH_LIMIT)
        ]
    else:
        rows = [Row(e, score_at(e, now)) for e in entries]
        rows.sort(key=_sort_key(sort, now))
    needle = " ".join(text.split()).casefold()
    chosen = [
        row
        for row in rows
        if (section == "all" or row.active == (section == "active"))
        and (category is None or row.entry.category == category)
        and needle in " ".join(row.entry.content.split()).casefold()
        and matches(row.entry.group, wanted)
    ]
    active = sum(e.is_active for e in entries)
    named = sorted({e.group for e in entries if e.group})
    groups = [*named, "none"] if any(e.group is None for e in entries) and named else named
    return Listing(
        chosen,
        len(entries),
        active,
        len(entries) - active,
        bool(query.strip()),
        groups,
        shown(profile_lines(doc.profile, entries)),
    )


@dataclass(frozen=True)
class Curve:
    """A memory's score over time as the engine computes it: from its anchor (the last time
    it was confirmed, or a person set its score) to :data:`CHART_DAYS_AHEAD` days past now.
    The file keeps only the last confirmation, so earlier ones are not drawn."""

    start: datetime
    end: datetime
    now: datetime
    #: (time, score) pairs, one a day, by :func:`everbot_memory.core.scoring.decayed_score`.
    points: tuple[tuple[datetime, float], ...]
    anchor_at: datetime
    anchor_score: float
    last_activated: datetime
    created_at: datetime
    expires_at: datetime | None
    #: The thresholds of the sections: Active at or above the first, forgotten below the second.
    active_min: float = ACTIVE_MIN_SCORE
    keep_min: float = KEEP_MIN_SCORE


def score_curve(entry: MemoryEntry, now: datetime, days_ahead: int = CHART_DAYS_AHEAD) -> Curve:
    """The curve of ``entry``'s score from its anchor to ``days_ahead`` days after ``now``."""
    base_score, base_at = entry.anchor
    start = min(base_at, now)
    end = max(now, base_at) + timedelta(days=days_ahead)
    days = max(1, round((end - start) / timedelta(days=1)))
    step = (end - start) / days
    points = tuple(
        (at, decayed_score(base_score, base_at, entry.last_activated, at))
        for at in (start + step * i for i in range(days + 1))
    )
    return Curve(
        start=start,
        end=end,
        now=now,
        points=points,
        anchor_at=base_at,
        anchor_score=base_score,
        last_activated=entry.last_activated,
        created_at=entry.created_at,
        expires_at=entry.expires_at,
    )


@dataclass(frozen=True)
class Detail:
    """A memory's page: the memory, its version, its history and its chart."""

    entry: MemoryEntry
    version: str
    history: History
    curve: Curve
    #: Which of the ids it names (replaced, folded in, replaced by) are still in the file.
    present: frozenset[str]


def detail(memory: Memory, entry_id: str) -> Detail:
    """The page of the memory ``entry_id``; :class:`EntryNotFoundError` when there is none."""
    history = memory.history(entry_id)
    entry = history.entry
    ids = {e.id for e in memory.entries()}
    named = {*history.replaces, *history.merged_ids, *history.replaced_by, *entry.condensed_from}
    if entry.condensed_into:
        named.add(entry.condensed_into)
    return Detail(
        entry=entry,
        version=entry_version(entry),
        history=history,
        curve=score_curve(entry, utcnow()),
        present=frozenset(named & ids),
    )


def _current(memory: Memory, entry_id: str, version: str) -> MemoryEntry:
    """The memory as the file holds it now, if it is still the version the page showed."""
    found = next((e for e in memory.entries() if e.id == entry_id), None)
    if found is None:
        raise ChangedMeanwhileError(entry_id, gone=True)
    if entry_version(found) != version:
        raise ChangedMeanwhileError(entry_id)
    return found


def edit(
    memory: Memory,
    entry_id: str,
    version: str,
    *,
    content: str,
    category: str,
    score: float,
    group: str | None = None,
) -> MemoryEntry:
    """Save a memory's form: only the fields that differ from the version shown are changed
    (a score sent back as shown keeps its anchor; ``group`` None leaves it, "" takes it out
    of its group), and only if the memory is still that version; else
    :class:`ChangedMeanwhileError` and nothing is written."""
    with memory.store.lock():  # re-entrant: update takes it again for its save
        entry = _current(memory, entry_id, version)
        new_content = content if content.strip() != entry.content else None
        new_category: Category | None = None
        if category != entry.category:
            if category not in CATEGORIES:
                raise EverbotMemoryError(
                    f"nothing updated: category {category!r} is not one of {', '.join(CATEGORIES)}"
                )
            new_category = category  # type: ignore[assignment]
        shown = round(entry.score, SCORE_DIGITS)
        new_score = score if abs(score - shown) >= 0.5 * 10**-SCORE_DIGITS else None
        new_group = None
        if group is not None and group.strip().casefold() != (entry.group or ""):
            new_group = group.strip() or "none"
        return memory.update(entry_id, new_content, new_category, new_score, new_group)


def forget(memory: Memory, entry_id: str, version: str) -> MemoryEntry:
    """Delete a memory, only if it is still the version the page showed."""
    with memory.store.lock():
        _current(memory, entry_id, version)
        return memory.forget(entry_id)


@dataclass(frozen=True)
class Health:
    """What needs a person's eye: the problems ``doctor`` reports, the duplicates ``dedupe``
    would merge, and the extraction jobs set aside as failed."""

    problems: list[Problem]
    duplicates: list[tuple[MemoryEntry, list[MemoryEntry]]]
    failed_jobs: Sequence[Job]


def health(memory: Memory) -> Health:
    """The file's health, as ``doctor``, ``dedupe`` (without merging) and ``jobs`` see it."""
    return Health(
        problems=memory.diagnose().problems,
        duplicates=memory.duplicate_groups(),
        failed_jobs=memory.jobs.failed(),
    )
