"""What a parsed MEMORY.md holds: its entries, a person's text, and the problems found."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..core.entry import MemoryEntry

__all__ = ["Document", "Problem"]


@dataclass(frozen=True)
class Problem:
    """Something found while reading the file: a ``repair`` the next save makes, or a ``warning``
    about text the engine could not read as a memory (kept verbatim as a note)."""

    line: int
    message: str
    kind: Literal["repair", "warning"] = "repair"

    def __str__(self) -> str:
        where = f"line {self.line}" if self.line else "file"
        return f"{where}: {self.message}"


@dataclass
class Document:
    """A parsed MEMORY.md: the entries plus everything else the file holds."""

    entries: list[MemoryEntry] = field(default_factory=list)
    preamble: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    last_updated: str | None = None
    problems: list[Problem] = field(default_factory=list)
    lines: dict[str, int] = field(default_factory=dict)  # entry id -> its heading's line
    #: Entry id -> the entry as read and its text, for entries that look written the
    #: canonical way: once the text is known to be the engine's own, a save writes that text
    #: again while the entry is unchanged, instead of rendering it anew. The text is kept as
    #: the file's bytes (UTF-8): a large file's text is not held again as strings.
    sources: dict[str, tuple[MemoryEntry, bytes]] = field(default_factory=dict)
    #: A person's lines in the Profile section (pinned or corrected lines, and any other text
    #: written there), as written; the derived lines are not kept: a save derives them anew.
    profile: list[str] = field(default_factory=list)
    #: The last render's profile (a person's lines, and the section's lines made from them
    #: and the entries in :attr:`sources`, all of them): a save from it derives the profile
    #: again only when a memory it may be derived from changed.
    derived: tuple[tuple[str, ...], tuple[str, ...]] | None = None
    #: The content hash of the file this document is the parse of, as it is (None: any other
    #: document, a merge or a save's), for what was built from that version to be reused.
    version: str | None = None
    #: What the engine's record of this version says of its entries' scores (see
    #: ``storage/parsed.py``): the moment a merge brought them to (seconds since the epoch),
    #: the entries as read, and when each one's score next changes (0: not known), in order.
    steady: tuple[float, tuple[MemoryEntry, ...], Sequence[float]] | None = None
