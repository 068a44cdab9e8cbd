"""The one atomic write routine: whole or not at all, for MEMORY.md and every side file.

Write to a temp file in the same folder, flush and fsync it, rename it over the target, then
fsync the folder so the rename itself is durable. A reader or a crash at any instant sees the
old file or the new one, never a torn one.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

__all__ = ["can_exchange", "digest", "exchange", "fsync_dir", "temp_file", "write_atomically"]


def digest(data: bytes | None) -> str | None:
    """The content hash the engine compares files by (sha256 hex); None for a missing file."""
    if data is None:
        return None
    import hashlib  # here, not at import: the hooks' fast path writes files and hashes none

    return hashlib.sha256(data).hexdigest()


def fsync_dir(directory: str | os.PathLike[str]) -> None:
    """Make a rename in ``directory`` durable."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_atomically(
    path: Path,
    data: bytes | Iterable[bytes | memoryview],
    *,
    mode: int | None = None,
    ready: Callable[[], bool] | None = None,
    durable: bool = True,
) -> bool:
    """Replace ``path`` with ``data`` (bytes, or pieces written one after the other)
    atomically; set ``mode`` on the new file if given.

    ``ready`` is asked just before the rename; when it says no, nothing is written and the
    result is False. Raises OSError, leaving no temp file behind; the caller decides whether a
    failure matters.

    ``durable=False`` skips the fsyncs, for a cache that is checked when read and rebuilt
    when it does not check out: readers still see the old file or the new one, but after a
    power cut the new one may be empty. Never for MEMORY.md or its backup.
    """
    tmp = temp_file(path, data, mode, durable=durable)
    done = False
    try:
        if ready is not None and not ready():
            return False
        os.replace(tmp, path)
        done = True
        if durable:
            fsync_dir(path.parent)
    finally:
        if not done:
            with contextlib.suppress(OSError):  # cleaning up after a failure already raised
                os.unlink(tmp)
    return True


def temp_file(
    path: Path,
    data: bytes | Iterable[bytes | memoryview],
    mode: int | None = None,
    *,
    durable: bool = True,
) -> Path:
    """``data`` (bytes, or pieces of it) written and fsynced (unless not ``durable``) to a
    new temp file beside ``path`` (the caller renames it)."""
    while True:
        tmp = path.with_name(f".{path.name}.{os.urandom(6).hex()}.tmp")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            break
        except FileExistsError:  # pragma: no cover - 48 random bits already taken
            continue
    try:
        with os.fdopen(fd, "wb") as handle:
            if isinstance(data, bytes):
                handle.write(data)
            else:
                handle.writelines(data)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
    except BaseException:
        with contextlib.suppress(OSError):  # cleaning up after a failure already raised
            os.unlink(tmp)
        raise
    return tmp


_AT_FDCWD = -100
_RENAME_NOREPLACE = 1
_RENAME_EXCHANGE = 2


@functools.cache
def _renameat2() -> object | None:
    # Linux's renameat2(2) swaps two paths in one step; Python has no wrapper, so it is called
    # through libc (glibc 2.28 and newer, musl 1.2.4 and newer). Elsewhere there is none.
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        return ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return None


def can_exchange() -> bool:
    """True when this platform can swap two files atomically (Linux ``renameat2``)."""
    return _renameat2() is not None


def exchange(src: Path, dst: Path, *, new: bool = False) -> bool:
    """Swap ``src`` and ``dst`` atomically (``new``: move ``src`` to ``dst`` only if ``dst``
    does not exist). False when the platform or the file system cannot; raises OSError."""
    function = _renameat2()
    if function is None:
        return False
    flags = _RENAME_NOREPLACE if new else _RENAME_EXCHANGE
    result = function(  # type: ignore[operator]
        _AT_FDCWD, os.fsencode(src), _AT_FDCWD, os.fsencode(dst), flags
    )
    if result == 0:
        return True
    import ctypes

    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP):
        return False  # a file system without the call: the caller falls back to a rename
    raise OSError(code, os.strerror(code), str(dst))
