"""A candidate memory checked without pydantic, for a caller whose input is plainly valid.

:class:`~everbot_memory.core.candidate.Candidate` validates what comes from outside with
pydantic, whose import alone costs a new process more than the rest of a ``remember`` into a
small file. :func:`proposal` checks the common case by hand (text, a known category and
importance, a group) and gives a :class:`Proposal` with the very fields a ``Candidate`` would
hold; for anything it cannot vouch for it gives None, and the caller asks ``Candidate``, so
every mistake is still reported in pydantic's words.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from .entry import Category, Importance, check_group, check_text
from .rules import CATEGORIES, IMPORTANCES

__all__ = ["Proposal", "proposal"]


@dataclass(frozen=True)
class Proposal:
    """A memory proposed for merging, already checked: the fields of ``Candidate``."""

    content: str
    category: Category = "fact"
    importance: Importance = "medium"
    confirms: str | None = None
    expires_at: datetime | None = None
    contradicts: tuple[str, ...] = ()
    forget: bool = False
    group: str | None = None

    def replace(self, **changes: Any) -> Proposal:
        """A copy with ``changes`` applied."""
        return dataclasses.replace(self, **changes)


def proposal(content: Any, category: Any, importance: Any, group: Any = None) -> Proposal | None:
    """The proposal ``Candidate(content=..., category=..., importance=..., group=...)`` would
    give, or None when the input is not plainly valid (let ``Candidate`` judge it)."""
    if type(content) is not str or type(category) is not str or type(importance) is not str:
        return None
    if category not in CATEGORIES or importance not in IMPORTANCES:
        return None
    if group is not None and type(group) is not str:
        return None
    try:
        text = check_text(content, "memory content")
        name = check_group(group)
    except ValueError:
        return None
    return Proposal(content=text, category=category, importance=importance, group=name)  # type: ignore[arg-type]  # checked against CATEGORIES and IMPORTANCES
