"""Where the files beside MEMORY.md live: every side file's path is derived here, and only here.

Everything the engine keeps besides the file (the previous version, the writers' lock, the
recall index and vectors, the hooks' caches, the session ledger, the job queue, the versions
journal, the file a save swapped out, the log) is in one hidden folder, ``.MEMORY.md.everbot/``,
which holds a ``.gitignore`` of its own: a project root gets no clutter and git ignores it
unasked. Side files an earlier version left beside the file (``MEMORY.md.bak``,
``MEMORY.md.lock``, ``MEMORY.md.index``, ...) are moved into the folder when it is made; the
lock keeps its inode, so a process still holding it keeps excluding the others.

A symlinked MEMORY.md is written through to its target, so side files sit beside the target.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

__all__ = ["SideFiles"]

# The side files of earlier versions, beside MEMORY.md (suffix), and their names in the folder.
_MOVED = {
    ".bak": "MEMORY.md.bak",
    ".lock": "lock",
    ".index": "index",
    ".vectors": "vectors",
    ".sessions.json": "sessions.json",
    ".jobs": "jobs",
    ".versions": "versions",
    ".log": "log",
    ".log.1": "log.1",
}


class SideFiles:
    """The memory file (as named, and its real target) and the paths of the files beside it."""

    __slots__ = ("memory",)

    def __init__(self, memory: Path) -> None:
        self.memory = memory

    def __repr__(self) -> str:
        return f"SideFiles({self.memory!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SideFiles) and other.memory == self.memory

    def __hash__(self) -> int:
        return hash(self.memory)

    @classmethod
    def of(cls, memory_path: str | os.PathLike[str]) -> SideFiles:
        """The side files of the memory file at ``memory_path``."""
        return cls(Path(memory_path))

    @property
    def target(self) -> Path:
        """The real file: a symlinked MEMORY.md is written through to what it points at."""
        return Path(os.path.realpath(self.memory))

    @property
    def folder(self) -> Path:
        """``.MEMORY.md.everbot/``: the hidden folder of every other side file."""
        target = self.target
        return target.with_name(f".{target.name}.everbot")

    def _inside(self, name: str) -> Path:
        # Made when the memory file exists; before that only by a writer (:meth:`ensure`), so
        # reading a memory that is not there leaves nothing behind.
        folder = self.folder
        if not folder.is_dir() and os.path.isfile(self.target):  # not beside a folder's name
            self._make_folder(folder)
        return folder / name

    def ensure(self) -> Path:
        """Make the folder (0700, with its ``.gitignore``) for a writer, and the memory file's
        own folder if that is missing too (the user's memory on a new machine); returns it."""
        folder = self.folder
        if not folder.is_dir():
            with contextlib.suppress(OSError):  # a folder that cannot be made: writes say so
                folder.parent.mkdir(parents=True, exist_ok=True)
            self._make_folder(folder)
        return folder

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
        moves = [
            (target.with_name(target.name + suffix), name.replace("MEMORY.md", target.name))
            for suffix, name in _MOVED.items()
        ]
        # The files a save swapped out (``MEMORY.md.previous-<hash>``), which may hold an
        # editor's late write still to merge.
        import glob  # here: the hooks' fast path never moves old files

        for old in target.parent.glob(f"{glob.escape(target.name)}.previous-*"):
            moves.append((old, old.name[len(target.name) + 1 :]))
        for old, name in moves:
            if os.path.lexists(old) and not os.path.lexists(folder / name):
                with contextlib.suppress(OSError):  # another process moved it first
                    os.rename(old, folder / name)

    @property
    def backup(self) -> Path:
        """``MEMORY.md.bak``: the previous version, kept before each write."""
        return self._inside(f"{self.target.name}.bak")

    @property
    def lock(self) -> Path:
        """``lock``: the file every writer locks."""
        return self._inside("lock")

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
        import glob

        return sorted(target.parent.glob(f".{glob.escape(target.name)}.displaced.*"))

    @property
    def previous(self) -> Path:
        """``previous``: the file a save swapped out, watched for late writes."""
        return self._inside("previous")

    @property
    def versions(self) -> Path:
        """``versions/``: the last versions written and seen (see the journal)."""
        return self._inside("versions")

    def hook_file(self, name: str) -> Path:
        """``name`` in the folder (made if needed): the hooks' caches (see ``storage/hot.py``)."""
        return self._inside(name)

    @property
    def shown(self) -> Path:
        """``shown/``: the ids of the memories each session was shown, so a prompt's recall
        does not repeat them."""
        return self._inside("shown")

    @property
    def last_consolidation(self) -> Path:
        """``last-consolidation``: when ``consolidate`` last ran (its mtime)."""
        return self._inside("last-consolidation")

    @property
    def last_sweep(self) -> Path:
        """``last-sweep``: when a session start last looked for idle sessions (its mtime)."""
        return self._inside("last-sweep")

    @property
    def last_hook(self) -> Path:
        """``last-hook.json``: the last hook run on this memory (event, when, how long, outcome),
        for ``doctor``."""
        return self._inside("last-hook.json")

    @property
    def log(self) -> Path:
        """``log``: what hooks and workers did, and their errors."""
        return self._inside("log")
