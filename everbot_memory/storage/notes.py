"""The session notes on disk: ``memory/YYYY-MM-DD.md`` beside MEMORY.md, one file a day.

Written by the session-end flow while it holds the memory's writers' lock, through the same
atomic write as MEMORY.md (a reader sees the old day's file or the new one); a new file is
made 0600 in a 0700 folder, like every file the engine makes. Secrets never reach a note: the
caller redacts it first.
"""

from __future__ import annotations

import os
import stat
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
        """Every day that has a file, oldest first. Only regular files: a pipe or a device
        named like a day's file would block whoever reads it (a hook among them)."""
        found: list[tuple[date, Path]] = []
        try:
            entries = list(os.scandir(self.folder))
        except (FileNotFoundError, NotADirectoryError):
            return []
        for entry in entries:
            name = entry.name
            match = NOTE_FILE_RE.match(name)
            if match is None or not _regular(self.folder / name):
                continue
            try:
                day = date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
            except ValueError:
                continue  # "2026-02-30.md": not a day's file
            found.append((day, self.folder / name))
        return sorted(found)

    def read(self, day: date) -> str | None:
        """The text of ``day``'s file (bytes that are not UTF-8 read as U+FFFD), or None when
        there is none, or it is not a regular file."""
        data = self._bytes(self.path_of(day))
        return None if data is None else data.decode("utf-8", errors="replace")

    def _bytes(self, path: Path) -> bytes | None:
        if not _regular(path):
            return None
        try:
            return path.read_bytes()
        except FileNotFoundError:
            return None

    def append(self, note: SessionNote) -> Path:
        """Add ``note`` to its day's file (made if need be); the caller holds the lock.

        What the file held is kept byte for byte, even bytes that are not UTF-8 (a note a
        person saved in Latin-1): the new section is added after them, in UTF-8. A pipe or a
        device in the file's place is an error (OSError), left as it is."""
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        path = self.path_of(note.at.date())
        if os.path.lexists(path) and not _regular(path):
            raise OSError(f"{path} is not a regular file")
        existing = self._bytes(path)
        if existing is None:
            data = add_note(None, note).encode("utf-8")
        else:
            try:
                data = add_note(existing.decode("utf-8"), note).encode("utf-8")
            except UnicodeDecodeError:
                # Read as UTF-8 with replacements and written back, it would lose those bytes.
                text = existing.decode("utf-8", errors="replace")
                added = add_note(text, note)[len(text.rstrip("\n")) :]
                data = existing.rstrip(b"\n") + added.encode("utf-8")
        mode = 0o600 if existing is None else path.stat().st_mode & 0o7777  # kept as it was
        write_atomically(path, data, mode=mode)
        return path


def _regular(path: Path) -> bool:
    """True when ``path`` is a regular file (following a link), False for none or another
    kind."""
    try:
        return stat.S_ISREG(path.stat().st_mode)
    except OSError:
        return False
