"""What the facade reports: a closed session, the file's statistics, a diagnosis."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ..core.entry import MemoryEntry
from ..core.rules import CATEGORIES
from ..document.model import Problem

__all__ = ["Diagnosis", "SessionReport", "Stats", "stats_of"]


@dataclass
class SessionReport:
    """A conversation read from a transcript and merged."""

    session_id: str
    extractor: str
    #: ``{"new", "updated", "archived", "forgotten", "contradicted", "total", "messages"}``
    stats: dict[str, int]
    #: Lines of the transcript that could not be read.
    skipped: int = 0
    warnings: list[str] = field(default_factory=list)


@dataclass
class Stats:
    """Totals per section and category, and a histogram of scores in tenths."""

    total: int
    active: int
    archived: int
    categories: dict[str, int]
    histogram: dict[str, int]


def stats_of(entries: Sequence[MemoryEntry]) -> Stats:
    """The statistics of these entries."""
    bins = [0] * 10
    for entry in entries:
        bins[min(9, int(entry.score * 10))] += 1
    active = sum(e.is_active for e in entries)
    return Stats(
        total=len(entries),
        active=active,
        archived=len(entries) - active,
        categories={c: sum(e.category == c for e in entries) for c in CATEGORIES},
        histogram={f"{i / 10:.1f}-{(i + 1) / 10:.1f}": n for i, n in enumerate(bins)},
    )


@dataclass
class Diagnosis:
    """What ``doctor`` finds: the problems (repairs and warnings, duplicates included), by line."""

    entries: int
    problems: list[Problem]
