"""The writers' lock: a ``filelock`` lock on a sidecar file, always with a finite timeout."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

import filelock

from ..errors import LockTimeoutError, StoreError

__all__ = ["DEFAULT_LOCK_TIMEOUT", "LOCK_MODE", "WriterLock", "lock_timeout_setting", "try_lock"]

#: Seconds a writer waits for another writer's lock (``$EVERBOT_MEMORY_LOCK_TIMEOUT``).
DEFAULT_LOCK_TIMEOUT = 10.0


def lock_timeout_setting() -> float | None:
    """How long writers wait for the lock: $EVERBOT_MEMORY_LOCK_TIMEOUT in seconds, else the
    default; None when the setting is not a number of seconds (the caller says so)."""
    raw = os.environ.get("EVERBOT_MEMORY_LOCK_TIMEOUT", "")
    if not raw:
        return DEFAULT_LOCK_TIMEOUT
    try:
        value = float(raw)
    except ValueError:
        return None
    return value if value >= 0 else None


#: The lock file's mode when the engine creates it.
LOCK_MODE = 0o600


class WriterLock:
    """The lock every writer of one memory file takes (re-entrant within a process)."""

    def __init__(self, path: Path, timeout: float, owner: str | os.PathLike[str]) -> None:
        self.path = path
        self.timeout = timeout
        self._owner = owner  # the memory file, named in messages
        # Private like every file the engine makes (the lock is empty, but a reader of the
        # folder learns nothing from it either).
        self._lock = filelock.FileLock(str(path), timeout=timeout, mode=LOCK_MODE)

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        """Hold the lock; raises :class:`LockTimeoutError` after ``timeout`` seconds."""
        try:
            self._lock.acquire()
        except filelock.Timeout as exc:
            raise LockTimeoutError(
                f"{self._owner} is being written by another process (waited "
                f"{self.timeout:g}s for {self.path}); try again",
                Path(self._owner),
            ) from exc
        except OSError as exc:
            raise StoreError(
                f"cannot create lock file {self.path}: {exc.strerror or exc}", Path(self._owner)
            ) from exc
        try:
            yield
        finally:
            self._lock.release()


@contextlib.contextmanager
def try_lock(path: Path) -> Iterator[bool]:
    """Take the lock at ``path`` if it is free, without waiting; yields whether it was taken."""
    lock = filelock.FileLock(str(path), timeout=0, mode=LOCK_MODE)
    try:
        lock.acquire()
    except filelock.Timeout:
        yield False
        return
    try:
        yield True
    finally:
        lock.release()
