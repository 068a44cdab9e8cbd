"""The MEMORY.md grammar: the title, the section headings and the entry heading line.

    # Agent Memory
    <!-- Last updated: ... -->  <!-- Total entries: N -->
    free text a person wrote before the first section (kept in place)
    ## Profile                  who the user is: derived lines, and a person's own
    ## Active Memories          entries with score >= 0.2, by score
    ## Archived Memories        entries with 0.05 <= score < 0.2, by score
    ## Notes                    text found among the entries, kept verbatim

    ### [id] category | score | last_activated | hits [| group]
    <!-- everbot {"score": ..., "base": ..., ...} -->   hidden metadata (exact values)
    content

A heading written the canonical way is read with one regular expression; anything else goes
through the lenient reader, which says what it repaired.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING

from ..core.entry import check_group, is_valid_id
from ..core.rules import CATEGORIES

if TYPE_CHECKING:
    from ..core.entry import MemoryEntry

__all__ = [
    "ACTIVE",
    "ARCHIVED",
    "CANONICAL_RE",
    "HEADER_RE",
    "META_PREFIX",
    "NOTES",
    "NOTES_INTRO",
    "PROFILE",
    "PROFILE_INTRO",
    "TITLE",
    "Heading",
    "Unreadable",
    "canonical_heading",
    "looks_like_entry",
    "parse_heading",
    "parse_time",
    "section_named",
]

TITLE = "Agent Memory"
ACTIVE = "Active Memories"
ARCHIVED = "Archived Memories"
NOTES = "Notes"
PROFILE = "Profile"
PROFILE_INTRO = (
    "<!-- Who the user is, derived from the strongest memories at each save. Edit a line to "
    "correct it, remove its comment to pin it, or add your own: a line without a derived "
    'comment is kept as written and wins. "- Label: -" hides a label. -->'
)
NOTES_INTRO = "<!-- Text kept as it was written; everbot-memory does not read it as memories. -->"
META_PREFIX = "<!-- everbot "

HEADER_RE = re.compile(r"^<!--\s*(Last updated|Total entries)\s*:\s*(.*?)\s*-->$", re.I)
_HEADING_RE = re.compile(r"^(?:\[\s*(?P<id>[^\]]*?)\s*\])?\s*(?P<rest>.*)$", re.S)
_DATE_RE = re.compile(
    r"^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})"
    r"(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?\s*(Z|[+-]\d{2}:?\d{2})?$",
    re.I,
)
_SCORE_RE = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)%?$")
_CATEGORY_ALIASES = {
    "preferences": "preference",
    "pref": "preference",
    "facts": "fact",
    "experiences": "experience",
    "workflows": "workflow",
    "habit": "workflow",
    "habits": "workflow",
    "decisions": "decision",
    "skill": "skill_usage",
    "skills": "skill_usage",
    "skillusage": "skill_usage",
    "todos": "todo",
    "task": "todo",
    "tasks": "todo",
}


#: How alike (difflib's ratio) a word must be to a category's name to be taken for it misspelt:
#: a letter or two off ("preferance", "workfow", "decison") is, "factor" or "prefer" is not.
_MISSPELT_RATIO = 0.85


def _nearest_category(word: str) -> str | None:
    """The category a misspelt name meant (``word`` folded as headings fold it), or None when
    it is close to none of them."""
    from difflib import get_close_matches  # here: only a misspelt heading needs it

    # A slip of the keys keeps the first letter and most of the word: "reference" (a type of
    # another tool's notes), "ask" or "kill" are other words, not "preference", "task", "skill".
    names = [n for n in (*CATEGORIES, *_CATEGORY_ALIASES) if n[:1] == word[:1] and len(n) >= 5]
    found = get_close_matches(word, names, n=1, cutoff=_MISSPELT_RATIO) if len(word) >= 5 else []
    return _CATEGORY_ALIASES.get(found[0], found[0]) if found else None


def section_named(text: str) -> str | None:
    """The section a heading's text names ("Active", "archived memories:"), or None."""
    name = text.strip().rstrip(":").strip().casefold()
    return {
        "active memories": ACTIVE,
        "active": ACTIVE,
        "archived memories": ARCHIVED,
        "archived": ARCHIVED,
        "archive": ARCHIVED,
        "notes": NOTES,
        "profile": PROFILE,
    }.get(name)


def parse_time(text: str) -> tuple[datetime, bool] | None:
    """A date or date-time as a person may write it; returns (UTC time, had a time part)."""
    match = _DATE_RE.match(text.strip())
    if not match:
        return None
    year, month, day, hour, minute, second, zone = match.groups()
    try:
        value = datetime(
            int(year), int(month), int(day), int(hour or 0), int(minute or 0), int(second or 0)
        )
    except ValueError:
        return None
    tz = timezone.utc
    if zone and zone.upper() != "Z":
        sign = 1 if zone[0] == "+" else -1
        digits = zone[1:].replace(":", "")
        tz = timezone(sign * timedelta(hours=int(digits[:2]), minutes=int(digits[2:])))
    return value.replace(tzinfo=tz).astimezone(timezone.utc), hour is not None


@dataclass
class Heading:
    """An entry heading as read: its fields, and what the lenient reader repaired."""

    id: str | None
    category: str
    score: float
    activated: datetime | None
    hits: int
    repairs: list[str]
    canonical: bool = False  # written exactly as the engine writes it
    group: str | None = None


class Unreadable(ValueError):
    """An entry heading whose fields cannot be understood."""


def looks_like_entry(text: str) -> bool:
    """True when a heading's text is meant as an entry: an ``[id]``, or ``category | score``."""
    match = _HEADING_RE.match(text)
    assert match is not None
    if match.group("id") is not None:
        return True
    parts = match.group("rest").split("|")
    return len(parts) >= 2 and _SCORE_RE.match(parts[1].strip()) is not None


CANONICAL_RE = re.compile(
    r"\[([A-Za-z0-9_-]{1,40})\] (" + "|".join(CATEGORIES) + r") \| ([01]\.\d\d) \| "
    r"(\d{4}-\d\d-\d\d) \| (0|[1-9]\d*)(?: \| ([^\W_][\w-]{0,39}))?"
)


@functools.lru_cache(maxsize=1024)
def _day(text: str) -> datetime | None:
    """A ``YYYY-MM-DD`` date as midnight UTC (memoized: many entries share a date)."""
    try:
        if _DAY_RE.fullmatch(text):
            # What strptime reads it as, without importing it and compiling its patterns.
            return datetime(int(text[:4]), int(text[5:7]), int(text[8:]), tzinfo=timezone.utc)
        return datetime.strptime(text, "%Y-%m-%d").replace(tzinfo=timezone.utc)
    except ValueError:
        return None


_DAY_RE = re.compile(r"\d{4}-\d\d-\d\d", re.ASCII)


def parse_heading(text: str, exact: re.Match[str] | None = None) -> Heading:
    """Read a heading's text (``exact``: its match of :data:`CANONICAL_RE`, if already made).

    Raises :class:`Unreadable` when a field cannot be understood.
    """
    exact = exact or CANONICAL_RE.fullmatch(text)
    if exact:
        # The common case, read without the lenient parser below.
        entry_id, category, raw_score, date, hits, group = exact.groups()
        when, score = _day(date), float(raw_score)
        if (
            when is not None
            and score <= 1.0
            and (group is None or (group == group.casefold() and group != "none"))
        ):
            return Heading(entry_id, category, score, when, int(hits), [], True, group)
    match = _HEADING_RE.match(text)
    assert match is not None
    repairs: list[str] = []
    entry_id = match.group("id")
    if entry_id is not None and not is_valid_id(entry_id):
        raise Unreadable(f"id [{entry_id}] is not letters, digits, '-' or '_'")
    parts = [part.strip() for part in match.group("rest").split("|")]
    if len(parts) < 2:
        raise Unreadable("expected `### [id] category | score | date | hits`")

    raw_category = parts[0]
    key = re.sub(r"[\s-]+", "_", raw_category.strip().casefold())
    category = _CATEGORY_ALIASES.get(key, key)
    if category not in CATEGORIES:
        meant = _nearest_category(key)
        if meant is None:
            repairs.append(f"unknown category {raw_category!r} read as 'fact'")
            category = "fact"
        else:
            repairs.append(f"misspelt category {raw_category!r} read as {meant!r}")
            category = meant

    raw_score = parts[1]
    if not _SCORE_RE.match(raw_score):
        raise Unreadable(f"score {raw_score!r} is not a number")
    score = float(raw_score.rstrip("%"))
    if raw_score.endswith("%"):
        score /= 100
        repairs.append(f"score {raw_score} read as {score:.2f}")
    if not 0.0 <= score <= 1.0:
        clamped = min(1.0, max(0.0, score))
        repairs.append(f"score {raw_score} is outside 0-1; read as {clamped:.2f}")
        score = clamped

    activated: datetime | None = None
    if len(parts) >= 3 and parts[2]:
        parsed = parse_time(parts[2])
        if parsed is None:
            raise Unreadable(f"date {parts[2]!r} is not YYYY-MM-DD")
        activated, had_time = parsed
        if had_time:
            repairs.append("date had a time; the time is kept in the hidden metadata")
    else:
        repairs.append("missing date; set to today")

    hits = 1
    if len(parts) >= 4 and parts[3]:
        if not parts[3].isdigit():
            raise Unreadable(f"hits {parts[3]!r} is not a whole number")
        hits = int(parts[3])
    else:
        repairs.append("missing hit count; set to 1")
    group = None
    if len(parts) >= 5 and parts[4]:
        raw = parts[4]
        try:
            group = check_group(raw)
        except ValueError:
            # A group is one word: "Work Stuff" is read as "work-stuff", and what cannot be
            # a group at all is dropped, never the memory.
            word = re.sub(r"[^\w-]+", "", re.sub(r"\s+", "-", raw.strip())).strip("-_")
            try:
                group = check_group(word)
            except ValueError:
                group = None
        if group != raw:
            if group:
                repairs.append(f"group {raw!r} read as {group!r}")
            elif raw.strip().casefold() in ("none", "-"):
                repairs.append(f"group {raw!r} means no group; removed")
            else:
                repairs.append(f"group {raw!r} is not one word of letters or digits; dropped")
    if len(parts) > 5:
        raise Unreadable("too many `|` fields")
    return Heading(entry_id, category, score, activated, hits, repairs, group=group)


def canonical_heading(entry: MemoryEntry) -> str:
    """The heading line the engine writes for ``entry``."""
    when = entry.last_activated
    # Four digits of year always (strftime writes the year 1 as "1", which reads back as no
    # date): the same text as strftime("%Y-%m-%d") from the year 1000 on.
    day = when.date().isoformat()
    hits = entry.activation_count
    group = f" | {entry.group}" if entry.group else ""
    return f"### [{entry.id}] {entry.category} | {entry.score:.2f} | {day} | {hits}{group}"
