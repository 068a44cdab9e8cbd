"""The summary of known memories an extractor is shown: one ``[id] content`` line each.

Written and read here only: the facade writes it for the extractor, and an extractor reads it
back to know which ids it may confirm, contradict or forget (seed §4.2).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..core.entry import MemoryEntry
from ..core.rules import ACTIVE_MIN_SCORE, SUMMARY_MAX_ENTRIES

__all__ = ["parse_summary", "summarize_existing"]

_LINE = re.compile(r"^\[([^\]]+)\] (.*)$")


def summarize_existing(
    entries: Sequence[MemoryEntry], max_entries: int = SUMMARY_MAX_ENTRIES
) -> str:
    """What the extractor is told is known: Active entries, strongest first, ``[id] content``."""
    active = sorted(
        (e for e in entries if e.score >= ACTIVE_MIN_SCORE), key=lambda e: (-e.score, e.id)
    )
    return "\n".join(f"[{e.id}] {' '.join(e.content.split())}" for e in active[:max_entries])


def parse_summary(summary: str, max_entries: int = SUMMARY_MAX_ENTRIES) -> list[tuple[str, str]]:
    """The ``(id, content)`` pairs of a summary, at most ``max_entries``."""
    pairs = []
    for line in summary.split("\n"):
        match = _LINE.match(line.strip())
        if match:
            pairs.append((match.group(1), match.group(2)))
    return pairs[:max_entries]
