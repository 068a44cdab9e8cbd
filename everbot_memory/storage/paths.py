"""Where the files beside MEMORY.md live: every side file's path is derived here, and only here.

A symlinked MEMORY.md is written through to its target, so side files sit beside the target.
"""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass
from pathlib import Path

__all__ = ["SideFiles"]


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
    def backup(self) -> Path:
        """``MEMORY.md.bak``: the previous version, kept before each write."""
        return self._beside(".bak")

    @property
    def lock(self) -> Path:
        """``MEMORY.md.lock``: the sidecar every writer locks."""
        return self._beside(".lock")

    @property
    def index(self) -> Path:
        """``MEMORY.md.index``: recall's token index, rebuilt when the file changes."""
        return self._beside(".index")

    @property
    def vectors(self) -> Path:
        """``MEMORY.md.vectors``: semantic recall's sentence vectors of the memories."""
        return self._beside(".vectors")

    @property
    def sessions(self) -> Path:
        """``MEMORY.md.sessions.json``: the session ledger."""
        return self._beside(".sessions.json")

    @property
    def jobs(self) -> Path:
        """``MEMORY.md.jobs/``: sessions queued by hooks, not yet extracted."""
        return self._beside(".jobs")

    def displaced(self) -> list[Path]:
        """Editors' saves kept at the instant of a swap and not merged yet (a crash between
        the two leaves them: ``.MEMORY.md.displaced.*``)."""
        target = self.target
        return sorted(target.parent.glob(f".{glob.escape(target.name)}.displaced.*"))

    @property
    def previous(self) -> Path:
        """``MEMORY.md.previous``: the file a save swapped out, watched for late writes."""
        return self._beside(".previous")

    @property
    def versions(self) -> Path:
        """``MEMORY.md.versions/``: the last versions the engine wrote (see the journal)."""
        return self._beside(".versions")

    @property
    def log(self) -> Path:
        """``MEMORY.md.log``: what hooks and workers did, and their errors."""
        return self._beside(".log")
