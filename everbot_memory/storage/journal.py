"""The last versions the engine wrote, so that an editor's save made from an older copy of the
file is merged three ways instead of taken as the person undoing what the engine did since.

A person opens MEMORY.md, the engine adds a memory, the person saves: their file lacks the new
memory only because their copy is older, not because they deleted it. When the file on disk is
not a version the engine wrote, the journal finds the version the person most likely started
from (the one their file differs from least, entry by entry) and the change from it to the
engine's latest version is replayed onto the person's file.

``MEMORY.md.versions/`` keeps the last :data:`KEEP` versions, compressed. Deleting it loses only
this: an editor's save from an older copy is then taken as it is.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import os
import time
from collections import Counter
from pathlib import Path

from .atomic import digest, write_atomically
from .paths import SideFiles

__all__ = ["KEEP", "Journal"]

#: How many of the engine's last versions are kept.
KEEP = 16


def _blocks(data: bytes) -> Counter[bytes]:
    """The file cut into entry blocks (at each ``### `` line), each by a short hash."""
    parts = data.split(b"\n### ")
    return Counter(hashlib.blake2b(part, digest_size=8).digest() for part in parts)


class Journal:
    """The versions folder beside one memory file."""

    def __init__(self, memory_path: str | os.PathLike[str], keep: int = KEEP) -> None:
        self.folder = SideFiles.of(memory_path).versions
        self.keep = keep

    def _files(self) -> list[Path]:
        try:
            return sorted(self.folder.glob("*.gz"), reverse=True)  # newest first
        except OSError:
            return []

    def record(self, data: bytes, *, by_engine: bool = True) -> None:
        """Keep ``data`` as the newest version (and drop the oldest beyond KEEP).

        A version someone else wrote (``by_engine=False``) is kept as a likely base for their
        next save, but is not one the engine wrote: :meth:`knows` does not count it.
        """
        version = digest(data)
        assert version is not None
        mark = "" if by_engine else "-person"
        name = f"{time.time_ns():020d}-{version[:16]}{mark}.gz"
        # The journal only improves merges: a folder it cannot be written to costs that alone.
        with contextlib.suppress(OSError):
            self.folder.mkdir(mode=0o700, exist_ok=True)
            write_atomically(self.folder / name, gzip.compress(data, compresslevel=1))
            for old in self._files()[self.keep :]:
                old.unlink(missing_ok=True)

    def knows(self, version: str | None) -> bool:
        """True when the engine wrote this version (or there is no journal to ask)."""
        return version is None or not self._engine_files() or self.wrote(version)

    def wrote(self, version: str | None) -> bool:
        """True when this is one of the versions the engine itself wrote (complete by
        construction: the engine never writes in place)."""
        if version is None:
            return False
        return any(f.name.endswith(f"-{version[:16]}.gz") for f in self._engine_files())

    def _engine_files(self) -> list[Path]:
        return [f for f in self._files() if not f.name.endswith("-person.gz")]

    def _read(self, path: Path) -> bytes | None:
        try:
            return gzip.decompress(path.read_bytes())
        except (OSError, EOFError, gzip.BadGzipFile):
            return None  # pruned by another writer meanwhile, or damaged: skip it

    def head(self) -> bytes | None:
        """The engine's newest version."""
        for path in self._engine_files():
            data = self._read(path)
            if data is not None:
                return data
        return None

    def base_of(self, data: bytes) -> bytes | None:
        """The engine version ``data`` most likely started from: the one it differs from in
        the fewest entry blocks (the newest, on a tie)."""
        mine = _blocks(data)
        best: tuple[int, bytes] | None = None
        for path in self._files():
            version = self._read(path)
            if version is None:
                continue
            theirs = _blocks(version)
            difference = sum(((mine - theirs) + (theirs - mine)).values())
            if best is None or difference < best[0]:
                best = (difference, version)
        return None if best is None else best[1]
