"""Remember one memory in a new process, without loading the rest of the facade.

``everbot-memory remember TEXT`` in its plain form comes here from the command's entry point
(:mod:`everbot_memory.faces.entry`): it loads what one locked merge needs (the store and the
merger) and neither the command-line app, pydantic, nor the extractors and their settings.
:meth:`everbot_memory.facade.memory.Memory.remember` is the same call.
"""

from __future__ import annotations

import os

from ..core.entry import MemoryEntry, check_group
from ..core.merge import MergeResult
from ..core.rules import CATEGORIES, IMPORTANCES
from ..storage.lock import DEFAULT_LOCK_TIMEOUT, lock_timeout_setting
from .changes import Changes

__all__ = [
    "CATEGORIES",
    "DEFAULT_LOCK_TIMEOUT",
    "IMPORTANCES",
    "check_group_name",
    "lock_timeout_setting",
    "remember_file",
]


def check_group_name(value: str) -> str:
    """What is wrong with ``value`` as a group's name ("" when nothing is)."""
    try:
        check_group(value)
    except ValueError as exc:
        return str(exc)
    return ""


def remember_file(
    path: str | os.PathLike[str],
    content: str,
    category: str = "fact",
    importance: str = "medium",
    *,
    group: str | None = None,
    session_id: str = "manual",
    lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
) -> tuple[MemoryEntry, MergeResult]:
    """Add one memory to the file at ``path`` (or reinforce the one that already says it), as
    :meth:`~everbot_memory.facade.changes.Changes.remember` does; returns it and the merge."""
    return Changes(path, lock_timeout=lock_timeout).remember(
        content,
        category,  # type: ignore[arg-type]  # checked against CATEGORIES in the merge's candidate
        importance,  # type: ignore[arg-type]
        session_id=session_id,
        group=group,
    )
