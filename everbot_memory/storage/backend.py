"""The seam between the store and the bytes it keeps.

The store needs only this of a backend: read the bytes with a version, write new bytes if the
version is still the one read, keep the previous version, and a lock for writers. The local file
is one backend; a git-aware store, or an object store with conditional writes (compare the
version, put if it matches), can plug in without the layers above changing.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from ..errors import StoreError
from .atomic import digest, write_atomically
from .lock import DEFAULT_LOCK_TIMEOUT, WriterLock
from .paths import SideFiles

__all__ = ["Backend", "LocalFile", "Snapshot"]


@dataclass(frozen=True)
class Snapshot:
    """What a backend held at one moment: its bytes (None: nothing yet) and their version."""

    data: bytes | None
    version: str | None


class Backend(Protocol):
    """Where a memory file's bytes live."""

    def read(self) -> Snapshot:
        """The current bytes and their version; raises :class:`StoreError` when unreadable."""
        ...

    def write(self, data: bytes, expected: Snapshot) -> str | None:
        """Replace the bytes with ``data`` if they are still ``expected``, keeping ``expected``
        as the previous version; returns the new version, or None, writing nothing, when they
        changed meanwhile.

        Raises :class:`StoreError` on failure, with the old bytes untouched.
        """
        ...

    def lock(self) -> contextlib.AbstractContextManager[None]:
        """Exclusive access among the engine's writers (people's editors take no lock)."""
        ...


class LocalFile:
    """A memory file on the local file system: atomic writes, ``.bak``, a sidecar lock.

    The version is the content hash (SPEC §3: compare by content, not mtime). A symlinked file
    is written through to its target; a new file is created 0600 and an existing one keeps its
    mode.
    """

    def __init__(
        self, path: str | os.PathLike[str], *, lock_timeout: float = DEFAULT_LOCK_TIMEOUT
    ) -> None:
        self.path = Path(path)
        self.files = SideFiles.of(path)
        self._lock = WriterLock(self.files.lock, lock_timeout, self.path)

    def read(self) -> Snapshot:
        """The file's bytes (None when it does not exist) and their hash."""
        try:
            data = self.files.target.read_bytes()
        except FileNotFoundError:
            return Snapshot(None, None)
        except IsADirectoryError as exc:
            raise StoreError(
                f"{self.path} is a directory, not a file; pass --file with a file path", self.path
            ) from exc
        except PermissionError as exc:
            raise StoreError(f"cannot read {self.path}: permission denied", self.path) from exc
        except OSError as exc:
            raise StoreError(f"cannot read {self.path}: {exc.strerror or exc}", self.path) from exc
        return Snapshot(data, digest(data))

    def lock(self) -> contextlib.AbstractContextManager[None]:
        """Hold ``MEMORY.md.lock``; raises LockTimeoutError after the timeout."""
        return self._lock.held()

    def write(self, data: bytes, expected: Snapshot) -> str | None:
        """Keep ``expected`` as ``MEMORY.md.bak``, then replace the file if it is unchanged."""
        target = self.files.target
        if not target.parent.is_dir():
            raise StoreError(f"cannot write {self.path}: folder {target.parent} does not exist")
        mode = 0o600
        if expected.data is not None:
            with contextlib.suppress(FileNotFoundError):  # deleted meanwhile: a new file
                mode = stat.S_IMODE(target.stat().st_mode)
            self._replace(self.files.backup, expected.data, mode)

        def unchanged() -> bool:
            # An editor may have saved while we wrote; replacing now would lose its change.
            # (What is left between this check and the rename is a few microseconds.)
            return self.read().version == expected.version

        return digest(data) if self._replace(target, data, mode, unchanged) else None

    def _replace(
        self, path: Path, data: bytes, mode: int, ready: Callable[[], bool] | None = None
    ) -> bool:
        try:
            return write_atomically(path, data, mode=mode, ready=ready)
        except OSError as exc:
            reason = "the disk is full" if exc.errno == errno.ENOSPC else exc.strerror or exc
            raise StoreError(
                f"cannot write {path}: {reason}; {self.path} was not changed", self.path
            ) from exc
