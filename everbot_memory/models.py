"""The data the engine works on: a memory entry and a candidate memory (pydantic models)."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, field_validator, model_validator

from .rules import ACTIVE_THRESHOLD

__all__ = ["Candidate", "Category", "Importance", "MemoryEntry"]

Category = Literal[
    "preference", "fact", "experience", "workflow", "decision", "skill_usage", "todo"
]
Importance = Literal["high", "medium", "low"]


def _normalize_time(value: datetime) -> datetime:
    # The file stores whole seconds in UTC; normalizing here makes every entry equal to
    # what a save followed by a load gives back.
    if value.tzinfo is timezone.utc and not value.microsecond:
        return value
    return value.astimezone(timezone.utc).replace(microsecond=0)


def _check_text(value: str, what: str) -> str:
    value = value.strip()
    if not value:
        raise ValueError(f"{what} must not be empty")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(f"{what} holds a character that UTF-8 cannot store") from exc
    return value


class MemoryEntry(BaseModel):
    """One memory: what it says, how strong it is, and when it was last confirmed.

    ``score`` is the score as of the last merge or hand edit. Decay is computed from
    ``base_score``, the score the entry had at ``base_at`` (its last activation, or the moment a
    person set the score by hand), so that it does not depend on how often maintenance runs.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(pattern=r"^[A-Za-z0-9_-]{1,40}$")
    content: str
    category: Category = "fact"
    score: float = Field(ge=0.0, le=1.0)
    created_at: AwareDatetime
    last_activated: AwareDatetime
    activation_count: int = Field(default=1, ge=0)
    source_session: str = ""
    base_score: float | None = Field(default=None, ge=0.0, le=1.0)
    base_at: AwareDatetime | None = None
    merged_ids: tuple[str, ...] = ()  # ids of duplicates folded into this one by dedupe
    expires_at: AwareDatetime | None = None  # a todo or dated memory: archived once it passes
    replaces: tuple[str, ...] = ()  # ids of memories this one contradicted when it came

    @field_validator("content")
    @classmethod
    def _content(cls, value: str) -> str:
        return _check_text(value, "memory content")

    @field_validator("source_session")
    @classmethod
    def _session(cls, value: str) -> str:
        value.encode("utf-8")  # a lone surrogate cannot be written to the file
        return value

    @field_validator("created_at", "last_activated", "base_at", "expires_at")
    @classmethod
    def _utc(cls, value: datetime | None) -> datetime | None:
        return None if value is None else _normalize_time(value)

    @model_validator(mode="after")
    def _default_base(self) -> MemoryEntry:
        # Without an explicit anchor, the current score is the anchor as of the last activation.
        if self.base_score is None:
            object.__setattr__(self, "base_score", self.score)
        if self.base_at is None:
            object.__setattr__(self, "base_at", self.last_activated)
        return self

    @property
    def is_active(self) -> bool:
        """True when the entry belongs in the Active section (score >= 0.2)."""
        return self.score >= ACTIVE_THRESHOLD

    @property
    def anchor(self) -> tuple[float, datetime]:
        """The decay anchor: ``(base_score, base_at)``, both always set after validation."""
        assert self.base_score is not None and self.base_at is not None
        return self.base_score, self.base_at


class Candidate(BaseModel):
    """A memory proposed by an extractor (or a person) before it is merged into the file.

    ``confirms`` names the id of an existing memory this one confirms; such a candidate
    reinforces that memory instead of adding a new one.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    content: str
    category: Category = "fact"
    importance: Importance = "medium"
    confirms: str | None = None
    expires_at: AwareDatetime | None = None
    #: Ids of known memories this one contradicts ("I moved from Beijing to Shanghai").
    contradicts: tuple[str, ...] = ()
    #: The user asked to forget this: the memory that says it is deleted, nothing is added.
    forget: bool = False

    @field_validator("content")
    @classmethod
    def _content(cls, value: str) -> str:
        return _check_text(value, "memory content")
