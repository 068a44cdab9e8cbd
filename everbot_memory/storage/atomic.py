"""The one atomic write routine: whole or not at all, for MEMORY.md and every side file.

Write to a temp file in the same folder, flush and fsync it, rename it over the target, then
fsync the folder so the rename itself is durable. A reader or a crash at any instant sees the
old file or the new one, never a torn one.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

__all__ = ["digest", "fsync_dir", "write_atomically"]


def digest(data: bytes | None) -> str | None:
    """The content hash the engine compares files by (sha256 hex); None for a missing file."""
    return None if data is None else hashlib.sha256(data).hexdigest()


def fsync_dir(directory: str | os.PathLike[str]) -> None:
    """Make a rename in ``directory`` durable."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_atomically(
    path: Path,
    data: bytes,
    *,
    mode: int | None = None,
    ready: Callable[[], bool] | None = None,
) -> bool:
    """Replace ``path`` with ``data`` atomically; set ``mode`` on the new file if given.

    ``ready`` is asked just before the rename; when it says no, nothing is written and the
    result is False. Raises OSError, leaving no temp file behind; the caller decides whether a
    failure matters.
    """
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    done = False
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        if ready is not None and not ready():
            return False
        os.replace(tmp, path)
        done = True
        fsync_dir(path.parent)
    finally:
        if not done:
            with contextlib.suppress(OSError):  # cleaning up after a failure already raised
                os.unlink(tmp)
    return True
