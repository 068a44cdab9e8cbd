"""A candidate memory: what an extractor (or a person) proposes before it is merged.

Candidates come from outside the engine (an LLM's answer, a user's extractor function, a CLI
argument), so they are validated with pydantic: a dict with the same fields is accepted.
"""

from __future__ import annotations

from pydantic import AwareDatetime, BaseModel, ConfigDict, field_validator

from .entry import Category, Importance, check_group, check_text

__all__ = ["Candidate"]


class Candidate(BaseModel):
    """A memory proposed for merging.

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
    #: The area of life it belongs to ("work", "life"); None: the rules decide, or none.
    group: str | None = None

    @field_validator("content")
    @classmethod
    def _content(cls, value: str) -> str:
        return check_text(value, "memory content")

    @field_validator("group")
    @classmethod
    def _group(cls, value: str | None) -> str | None:
        return check_group(value)

    def replace(self, **changes: object) -> Candidate:
        """A copy with ``changes`` applied."""
        return self.model_copy(update=changes)
