"""The session notes on disk: ``memory/YYYY-MM-DD.md`` beside MEMORY.md, one file a day.

Written by the session-end flow while it holds the memory's writers' lock, through the same
atomic write as MEMORY.md (a reader sees the old day's file or the new one); a new file is
made 0600 in a 0700 folder, like every file the engine makes. Secrets never reach a note: the
caller redacts it first.
"""

from __future__ import annotations

import os
from datetime import date
from pathlib import Path

from ..core.session_note import NOTE_FILE_RE, SessionNote, add_note
from .atomic import write_atomically

__all__ = ["NOTES_FOLDER", "NotesFolder"]

#: The folder of the notes, beside the memory file.
NOTES_FOLDER = "memory"


class NotesFolder:
    """The session notes kept beside one memory file."""

    def __init__(self, memory_path: str | os.PathLike[str]) -> None:
        target = Path(memory_path)
        if target.is_symlink():
            target = target.resolve()
        self.folder = target.parent / NOTES_FOLDER

    def path_of(self, day: date) -> Path:
        """The file of ``day``."""
        return self.folder / f"{day.isoformat()}.md"

    def days(self) -> list[tuple[date, Path]]:
        """Every day that has a file, oldest first."""
        found: list[tuple[date, Path]] = []
        try:
            names = os.listdir(self.folder)
        except (FileNotFoundError, NotADirectoryError):
            return []
        for name in names:
            match = NOTE_FILE_RE.match(name)
            if match is None:
                continue
            try:
                day = date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
            except ValueError:
                continue  # "2026-02-30.md": not a day's file
            found.append((day, self.folder / name))
        return sorted(found)

    def read(self, day: date) -> str | None:
        """The text of ``day``'s file, or None when there is none."""
        try:
            return self.path_of(day).read_bytes().decode("utf-8", errors="replace")
        except FileNotFoundError:
            return None

    def append(self, note: SessionNote) -> Path:
        """Add ``note`` to its day's file (made if need be); the caller holds the lock."""
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        path = self.path_of(note.at.date())
        existing = self.read(note.at.date())
        text = add_note(existing, note)
        mode = 0o600 if existing is None else path.stat().st_mode & 0o7777  # kept as it was
        write_atomically(path, text.encode("utf-8"), mode=mode)
        return path
