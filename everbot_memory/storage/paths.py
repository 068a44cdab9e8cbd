"""Where the files beside MEMORY.md live: every side file's path is derived here, and only here.

Two sit beside the file, where a person looks for them: ``MEMORY.md.bak`` (the previous
version) and ``MEMORY.md.lock`` (the writers' lock). Everything else the engine keeps (the
recall index and vectors, the session ledger, the job queue, the versions journal, the file a
save swapped out, the log) is in one hidden folder, ``.MEMORY.md.everbot/``, which holds a
``.gitignore`` of its own, so a project root gets no clutter and git ignores it unasked.
Side files an earlier version left beside the file are moved into the folder when it is made.

A symlinked MEMORY.md is written through to its target, so side files sit beside the target.
"""

from __future__ import annotations

import contextlib
import glob
import os
from dataclasses import dataclass
from pathlib import Path

__all__ = ["SideFiles"]

# The side files of earlier versions, beside MEMORY.md (suffix), and their names in the folder.
_MOVED = {
    ".index": "index",
    ".vectors": "vectors",
    ".sessions.json": "sessions.json",
    ".jobs": "jobs",
    ".versions": "versions",
    ".log": "log",
    ".log.1": "log.1",
}


@dataclass(frozen=True)
class SideFiles:
    """The memory file (as named, and its real target) and the paths of the files beside it."""

    memory: Path

    @classmethod
    def of(cls, memory_path: str | os.PathLike[str]) -> SideFiles:
        """The side files of the memory file at ``memory_path``."""
        return cls(Path(memory_path))

    @property
    def target(self) -> Path:
        """The real file: a symlinked MEMORY.md is written through to what it points at."""
        return Path(os.path.realpath(self.memory))

    def _beside(self, suffix: str) -> Path:
        target = self.target
        return target.with_name(target.name + suffix)

    @property
    def folder(self) -> Path:
        """``.MEMORY.md.everbot/``: the hidden folder of every other side file."""
        target = self.target
        return target.with_name(f".{target.name}.everbot")

    def _inside(self, name: str) -> Path:
        folder = self.folder
        if not folder.is_dir():
            self._make_folder(folder)
        return folder / name

    def _make_folder(self, folder: Path) -> None:
        # Made on first use, by whichever process gets there first; a folder the memory file's
        # own folder does not allow (read-only, missing) is left for the writer to report.
        with contextlib.suppress(OSError):
            folder.mkdir(mode=0o700)
            (folder / ".gitignore").write_text(
                "# Made by everbot-memory: caches, queues and logs, rebuilt from MEMORY.md.\n*\n",
                encoding="utf-8",
            )
        if not folder.is_dir():
            return
        target = self.target
        moves = [(target.with_name(target.name + suffix), name) for suffix, name in _MOVED.items()]
        # The files a save swapped out (``MEMORY.md.previous-<hash>``), which may hold an
        # editor's late write still to merge.
        for old in target.parent.glob(f"{glob.escape(target.name)}.previous-*"):
            moves.append((old, old.name[len(target.name) + 1 :]))
        for old, name in moves:
            if os.path.lexists(old) and not os.path.lexists(folder / name):
                with contextlib.suppress(OSError):  # another process moved it first
                    os.rename(old, folder / name)

    @property
    def backup(self) -> Path:
        """``MEMORY.md.bak``: the previous version, kept before each write."""
        return self._beside(".bak")

    @property
    def lock(self) -> Path:
        """``MEMORY.md.lock``: the sidecar every writer locks."""
        return self._beside(".lock")

    @property
    def index(self) -> Path:
        """``index``: recall's token index, rebuilt when the file changes."""
        return self._inside("index")

    @property
    def vectors(self) -> Path:
        """``vectors``: semantic recall's sentence vectors of the memories."""
        return self._inside("vectors")

    @property
    def sessions(self) -> Path:
        """``sessions.json``: the session ledger."""
        return self._inside("sessions.json")

    @property
    def jobs(self) -> Path:
        """``jobs/``: sessions queued by hooks, not yet extracted."""
        return self._inside("jobs")

    def displaced(self) -> list[Path]:
        """Editors' saves kept at the instant of a swap and not merged yet (a crash between
        the two leaves them: ``.MEMORY.md.displaced.*``)."""
        target = self.target
        return sorted(target.parent.glob(f".{glob.escape(target.name)}.displaced.*"))

    @property
    def previous(self) -> Path:
        """``previous``: the file a save swapped out, watched for late writes."""
        return self._inside("previous")

    @property
    def versions(self) -> Path:
        """``versions/``: the last versions written and seen (see the journal)."""
        return self._inside("versions")

    @property
    def log(self) -> Path:
        """``log``: what hooks and workers did, and their errors."""
        return self._inside("log")
