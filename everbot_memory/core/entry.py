"""A memory entry: what it says, how strong it is, and when it was last confirmed.

The entry is a plain frozen dataclass, not a pydantic model, so that the session-start path can
read the file without importing pydantic, and a 10,000-entry file loads without building a
validated model per entry. It still checks what it is given: a bad value raises ``ValueError``
naming the field.
"""

from __future__ import annotations

import dataclasses
import re
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from itertools import repeat
from operator import attrgetter
from typing import Any, Literal

from .clock import iso
from .rules import ACTIVE_MIN_SCORE, CATEGORIES

__all__ = [
    "FIELDS",
    "Category",
    "Importance",
    "MemoryEntry",
    "but_score",
    "check_group",
    "check_text",
    "exhaust",
    "is_valid_id",
    "restored",
    "with_scores",
]

Category = Literal[
    "preference", "fact", "experience", "workflow", "decision", "skill_usage", "todo"
]
Importance = Literal["high", "medium", "low"]

_ID_RE = re.compile(r"[A-Za-z0-9_-]{1,40}")
#: A group ("work", "life", "家庭"): a word of letters (any script), digits, '-' or '_'.
_GROUP_RE = re.compile(r"[^\W_][\w-]{0,39}")


def is_valid_id(text: str) -> bool:
    """True when ``text`` can be an entry id: 1 to 40 letters, digits, '-' or '_'."""
    return _ID_RE.fullmatch(text) is not None


def check_group(value: str | None) -> str | None:
    """``value`` as a group name (stripped, lower-cased), None for none; ``ValueError`` when it
    is not one word of at most 40 letters, digits, '-' or '_'."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValueError(f"group must be text, not {type(value).__name__}")
    name = value.strip().casefold()
    if not name or name in ("none", "-"):
        return None  # "none" is how a filter names memories without a group
    if _GROUP_RE.fullmatch(name) is None:
        raise ValueError(
            f"group {value!r} must be one word of letters, digits, '-' or '_' (at most 40)"
        )
    return name


def check_text(value: str, what: str) -> str:
    """``value`` stripped; ``ValueError`` when it is empty or holds what UTF-8 cannot store."""
    value = value.strip()
    if not value:
        raise ValueError(f"{what} must not be empty")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(f"{what} holds a character that UTF-8 cannot store") from exc
    return value


def _utc(value: datetime, name: str) -> datetime:
    # The file stores whole seconds in UTC; normalizing here makes every entry equal to what a
    # save followed by a load gives back.
    if not isinstance(value, datetime) or value.tzinfo is None:
        raise ValueError(f"{name} must be a timezone-aware datetime")
    if value.tzinfo is timezone.utc and not value.microsecond:
        return value
    return value.astimezone(timezone.utc).replace(microsecond=0)


def _unit(value: float, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must be a number from 0 to 1, not {value!r}")
    return float(value)


@dataclass(frozen=True, slots=True, kw_only=True)
class MemoryEntry:
    """One memory in MEMORY.md.

    ``score`` is the score as of the last merge or hand edit. Decay is computed from
    ``base_score``, the score the entry had at ``base_at`` (its last activation, or the moment a
    person set the score by hand), so that it does not depend on how often maintenance runs.
    """

    id: str
    content: str
    category: Category = "fact"
    score: float
    created_at: datetime
    last_activated: datetime
    activation_count: int = 1
    source_session: str = ""
    base_score: float | None = None
    base_at: datetime | None = None
    #: Ids of duplicates folded into this one by dedupe.
    merged_ids: tuple[str, ...] = ()
    #: A todo or dated memory: archived once this time passes.
    expires_at: datetime | None = None
    #: Ids of memories this one contradicted when it came.
    replaces: tuple[str, ...] = ()
    #: The area of life it belongs to ("work", "life"), or None; a person may set it by hand.
    group: str | None = None
    #: Ids of the weaker memories ``consolidate`` condensed into this one (kept, archived).
    condensed_from: tuple[str, ...] = ()
    #: The id of the memory this one was condensed into, once ``consolidate`` archived it.
    condensed_into: str | None = None

    def __post_init__(self) -> None:
        put = object.__setattr__
        if not isinstance(self.id, str) or not is_valid_id(self.id):
            raise ValueError(f"id {self.id!r} must be 1-40 letters, digits, '-' or '_'")
        put(self, "content", check_text(self.content, "memory content"))
        if self.category not in CATEGORIES:
            raise ValueError(f"category {self.category!r} is not one of {', '.join(CATEGORIES)}")
        put(self, "score", _unit(self.score, "score"))
        put(self, "created_at", _utc(self.created_at, "created_at"))
        put(self, "last_activated", _utc(self.last_activated, "last_activated"))
        if isinstance(self.activation_count, bool) or not isinstance(self.activation_count, int):
            raise ValueError("activation_count must be a whole number")
        if self.activation_count < 0:
            raise ValueError("activation_count must not be negative")
        if not isinstance(self.source_session, str):
            raise ValueError("source_session must be text")
        self.source_session.encode("utf-8")  # a lone surrogate cannot be written to the file
        # Without an explicit anchor, the current score is the anchor as of the last activation.
        base = self.score if self.base_score is None else _unit(self.base_score, "base_score")
        put(self, "base_score", base)
        at = self.last_activated if self.base_at is None else _utc(self.base_at, "base_at")
        put(self, "base_at", at)
        if self.expires_at is not None:
            put(self, "expires_at", _utc(self.expires_at, "expires_at"))
        put(self, "merged_ids", tuple(str(i) for i in self.merged_ids))
        put(self, "replaces", tuple(str(i) for i in self.replaces))
        put(self, "group", check_group(self.group))
        put(self, "condensed_from", tuple(str(i) for i in self.condensed_from))
        if self.condensed_into is not None and not is_valid_id(str(self.condensed_into)):
            raise ValueError(f"condensed_into {self.condensed_into!r} is not an id")

    @classmethod
    def from_file(cls, **fields: Any) -> MemoryEntry:
        """An entry from values read from the file: values already in their normal form (the
        canonical file's) are only checked; any other goes through the full checks."""
        if not _normal(fields):
            return cls(**fields)
        # Normalizing nothing, the checks in __post_init__ would only cost: a large file is
        # read with one entry per memory, and most of its load time went there.
        entry = object.__new__(cls)
        for name, value in fields.items():
            object.__setattr__(entry, name, value)
        return entry

    @property
    def is_active(self) -> bool:
        """True when the entry belongs in the Active section (score >= 0.2)."""
        return self.score >= ACTIVE_MIN_SCORE

    @property
    def anchor(self) -> tuple[float, datetime]:
        """The decay anchor: ``(base_score, base_at)``, both always set."""
        # Read for every memory on every save: no ``cast`` calls (set in __post_init__).
        return self.base_score, self.base_at  # type: ignore[return-value]

    def replace(self, **changes: Any) -> MemoryEntry:
        """A copy with ``changes`` applied (and checked)."""
        return dataclasses.replace(self, **changes)

    def with_score(self, score: float) -> MemoryEntry:
        """A copy with only the score changed (checked): what decay does to every memory on
        every merge, without checking again the fields it leaves as they were."""
        score = _unit(score, "score")
        entry = object.__new__(MemoryEntry)
        # Every slot set by C loops: a merge on a new day rescores every memory of the file.
        exhaust(map(_SET, _DESCRIPTORS, repeat(entry), _VALUES(self)))
        _SET(_SCORE_SLOT, entry, score)
        return entry

    def to_json(self) -> dict[str, Any]:
        """Every field as JSON values: times as ``YYYY-MM-DDTHH:MM:SSZ``, tuples as lists."""
        data: dict[str, Any] = {}
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if isinstance(value, datetime):
                value = iso(value)
            elif isinstance(value, tuple):
                value = list(value)
            data[field.name] = value
        return data


_FIELDS = tuple(field.name for field in dataclasses.fields(MemoryEntry))
#: The fields of an entry, in the order :func:`restored` takes their values.
FIELDS = _FIELDS
# Each field's slot, set directly: what ``object.__setattr__`` does, without looking it up.
_DESCRIPTORS = tuple(MemoryEntry.__dict__[name] for name in _FIELDS)
#: A slot's setter, called with the slot: one function for them all (see ``restored``).
_SET = type(_DESCRIPTORS[0]).__set__
_VALUES = attrgetter(*_FIELDS)
#: Every field's value but the score: equal for two versions of a memory that decay alone
#: tells apart (see :meth:`MemoryEntry.with_score`), whose text and index rows are the same
#: but for the score.
but_score = attrgetter(*(name for name in _FIELDS if name != "score"))
_SCORE_AT = _FIELDS.index("score")
_SCORE_SLOT = _DESCRIPTORS[_SCORE_AT]
#: Runs an iterator to its end, keeping nothing: a loop in C over ``map`` of a setter.
exhaust: Any = deque(maxlen=0).extend


def restored(columns: Sequence[Sequence[Any]]) -> list[MemoryEntry]:
    """Entries from their values, one column per field in :data:`FIELDS` order, not checked:
    only for values taken from entries that were (the engine's own record of a file it parsed
    or wrote, read back whole). Anything else goes through :class:`MemoryEntry`."""
    if len(columns) != len(_DESCRIPTORS):
        raise ValueError(f"an entry has {len(_DESCRIPTORS)} fields, not {len(columns)}")
    count = len(columns[0])
    if any(len(column) != count for column in columns):
        raise ValueError("the fields' columns are not all as long")
    out = list(map(object.__new__, repeat(MemoryEntry, count)))
    for descriptor, column in zip(_DESCRIPTORS, columns, strict=True):
        # C loops, for 100,000 entries (each slot set through its own bound setter: a third
        # faster than one setter given the slot each time).
        exhaust(map(descriptor.__set__, out, column))
    return out


def with_scores(entries: Sequence[MemoryEntry], scores: Sequence[float]) -> list[MemoryEntry]:
    """:meth:`MemoryEntry.with_score` of each entry with its score, made by C loops (the
    first merge of a day rescores every memory of the file; a file may hold 100,000)."""
    scores = list(map(float, scores))
    if len(scores) != len(entries):
        raise ValueError("as many scores as entries are needed")
    if not entries:
        return []
    if not 0.0 <= min(scores) <= max(scores) <= 1.0:
        raise ValueError("a score must be a number from 0 to 1")
    columns: list[Sequence[Any]] = list(zip(*map(_VALUES, entries), strict=True))
    columns[_SCORE_AT] = scores
    return restored(columns)


def _normal_time(value: object) -> bool:
    return isinstance(value, datetime) and value.tzinfo is timezone.utc and not value.microsecond


def _normal_unit(value: object) -> bool:
    return type(value) is float and 0.0 <= value <= 1.0


def _normal_text(value: object) -> bool:
    if type(value) is not str:
        return False
    if value.isascii():
        return True
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _normal(fields: dict[str, Any]) -> bool:
    """True when ``fields`` are every field of an entry, each valid and in its normal form."""
    if tuple(fields) != _FIELDS:
        return False
    content, count = fields["content"], fields["activation_count"]
    expires = fields["expires_at"]
    return (
        type(fields["id"]) is str
        and _ID_RE.fullmatch(fields["id"]) is not None
        and _normal_text(content)
        and content
        and content == content.strip()
        and fields["category"] in CATEGORIES
        and _normal_unit(fields["score"])
        and _normal_unit(fields["base_score"])
        and _normal_time(fields["created_at"])
        and _normal_time(fields["last_activated"])
        and _normal_time(fields["base_at"])
        and (expires is None or _normal_time(expires))
        and type(count) is int
        and count >= 0
        and _normal_text(fields["source_session"])
        and _normal_ids(fields["merged_ids"])
        and _normal_ids(fields["replaces"])
        and (fields["group"] is None or _normal_group(fields["group"]))
        and _normal_ids(fields["condensed_from"])
        and (fields["condensed_into"] is None or type(fields["condensed_into"]) is str)
    )


def _normal_group(value: object) -> bool:
    return (
        type(value) is str and _GROUP_RE.fullmatch(value) is not None and value == value.casefold()
    )


def _normal_ids(value: object) -> bool:
    return value == () or (type(value) is tuple and all(type(i) is str for i in value))
