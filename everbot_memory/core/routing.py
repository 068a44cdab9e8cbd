"""Which memory a candidate belongs in, when a session feeds the user's memory and a project's.

The user's memory follows them into every project, so it takes what a session taught about
the user: their preferences, and facts and experiences that say "the user ..." ("The user is a
nurse", "用户住在柏林"). The project's memory takes the rest: what the project uses and decided,
its workflows, its todos. A candidate that confirms or contradicts a known memory goes where that
memory is; a request to forget goes to both (each forgets what it holds).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Literal

from .candidate import Candidate

__all__ = ["PROJECT_CATEGORIES", "Destination", "about_the_user", "route"]

Destination = Literal["user", "project", "both"]

#: Categories that describe a project's work rather than its user, whatever they start with.
PROJECT_CATEGORIES = frozenset({"todo", "decision", "workflow"})

_ABOUT_THE_USER = re.compile(r"^\s*(?:the\s+user\b|user'?s?\b|用户)", re.IGNORECASE)


def about_the_user(content: str) -> bool:
    """True when a memory's text is about the user ("The user ...", "User's ...", "用户...")."""
    return _ABOUT_THE_USER.match(content) is not None


def route(
    candidate: Candidate, user_ids: Collection[str], project_ids: Collection[str]
) -> Destination:
    """Where ``candidate`` is merged (see the module's docstring)."""
    if candidate.forget:
        return "both"
    named = [i for i in (candidate.confirms, *candidate.contradicts) if i]
    if any(i in project_ids for i in named):
        return "project"
    if any(i in user_ids for i in named):
        return "user"
    if candidate.category == "preference":
        return "user"
    if candidate.category not in PROJECT_CATEGORIES and about_the_user(candidate.content):
        return "user"
    return "project"
