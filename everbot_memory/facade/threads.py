"""The last session's open threads, as the next session start shows them: read from the
newest day file of session notes beside a memory, secrets redacted, and cached beside the
memory by that file's size and time, so a session start redacts (and loads the redaction
rules) only after the file changed. On the session-start hook's path: no typing, no
dataclasses.
"""

from __future__ import annotations

import contextlib
import json
import os

from ..storage.paths import SideFiles

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["THREADS_FILE", "open_threads_of"]


#: The last session's open threads, redacted, keyed by the day file they came from.
THREADS_FILE = "hook-threads.json"


def open_threads_of(memory_path: str | os.PathLike[str]) -> tuple[str, list[str]] | None:
    """The day and open threads of the last session noted beside ``memory_path``: every
    section of that session in the newest day file (a session compacted, then ended, has
    two), secrets redacted. Cached beside the memory by the day file's size and time, so a
    session start redacts only after the file changed (a person's edit, a new note)."""
    from ..storage.notes import NotesFolder

    days = NotesFolder(memory_path).days()
    if not days:
        return None
    day, path = days[-1]
    try:
        stat = path.stat()
    except OSError:
        return None
    key = [str(path), stat.st_mtime_ns, stat.st_size]
    cache = SideFiles.of(memory_path).hook_file(THREADS_FILE)
    try:
        cached = json.loads(cache.read_bytes())
        if cached.get("key") == key:
            threads = cached.get("threads")
            return (day.isoformat(), list(threads)) if threads else None
    except (OSError, ValueError, AttributeError):
        pass  # no cache, or not ours: built below
    threads = _read_threads(path)
    with contextlib.suppress(OSError):  # costs the next session start the same work, no more
        from ..storage.atomic import write_atomically

        SideFiles.of(memory_path).ensure()
        payload = json.dumps({"key": key, "threads": threads}, ensure_ascii=False)
        write_atomically(cache, payload.encode("utf-8"))
    return (day.isoformat(), threads) if threads else None


def _read_threads(path: Path) -> list[str]:
    from ..core.redaction import redact
    from ..core.session_note import parse_day

    try:
        sections = parse_day(path.read_bytes().decode("utf-8", errors="replace"))
    except OSError:
        return []
    noted = [s for s in sections if s.session or s.time]
    if not noted:
        return []
    last = noted[-1].session
    same = [s for s in noted if s.session == last] if last else noted[-1:]
    # A person may have typed a secret into the file: it is never shown.
    found = (redact(t).text for s in same for t in s.open_threads)
    return list(dict.fromkeys(found))
