"""The seam between the store and the bytes it keeps.

The store needs only this of a backend: read the bytes with a version, write new bytes if the
version is still the one read, keep the previous version, and a lock for writers. The local file
is one backend; a git-aware store, or an object store with conditional writes (compare the
version, put if it matches), can plug in without the layers above changing.
"""

from __future__ import annotations

import contextlib
import errno
import glob
import os
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Protocol

from ..errors import StoreError
from .atomic import can_exchange, digest, exchange, fsync_dir, temp_file, write_atomically
from .lock import DEFAULT_LOCK_TIMEOUT, WriterLock
from .paths import SideFiles

__all__ = [
    "QUIET_SECONDS",
    "SETTLE_TIMEOUT",
    "STALE_TEMP_SECONDS",
    "Backend",
    "LocalFile",
    "Snapshot",
    "WriteResult",
    "monotonic",
]


@dataclass(frozen=True)
class Snapshot:
    """What a backend held at one moment: its bytes (None: nothing yet) and their version."""

    data: bytes | None
    version: str | None
    #: Seconds since the bytes last changed, when the backend knows (None: it does not).
    age: float | None = None


@dataclass(frozen=True)
class WriteResult:
    """What a conditional write did.

    ``version`` is the new version, or None when nothing was written because the bytes had
    changed since they were read (read again and merge). ``displaced`` holds bytes someone else
    wrote at the very moment of the write: ours replaced them, so the caller must merge them and
    write again, then :meth:`Backend.release` the ``token``.
    """

    version: str | None
    displaced: bytes | None = None
    token: str | None = None


class Backend(Protocol):
    """Where a memory file's bytes live."""

    def read(self) -> Snapshot:
        """The current bytes and their version; raises :class:`StoreError` when unreadable."""
        ...

    def write(
        self,
        data: bytes,
        expected: Snapshot,
        backup: bytes | None = None,
        *,
        version: str | None = None,
    ) -> WriteResult:
        """Replace the bytes with ``data`` if they are still ``expected``, keeping ``backup``
        (default: ``expected``'s bytes) as the previous version. ``version``: ``data``'s
        content hash, when the caller knows it already.

        Raises :class:`StoreError` on failure, with the old bytes untouched.
        """
        ...

    def release(self, token: str) -> None:
        """Drop the bytes set aside under ``token`` once they are merged."""
        ...

    def late_writes(self) -> list[tuple[bytes, str]]:
        """People's saves a past write set aside and no save has merged yet: bytes written
        into a version after a save replaced it (an editor that had it open), or kept at the
        instant of a swap by a save that then failed. Each comes with the token to
        :meth:`release` once it is merged."""
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
        #: The swapped-out file this backend last kept, and the bytes it held then.
        self._kept: tuple[str, bytes] | None = None
        #: Swapped-out files found holding what their names say, and their signatures then.
        self._checked: dict[str, tuple[int, int, int, int]] = {}
        #: The bytes this backend last read or wrote, and their hash: the same bytes read
        #: again (a save after a load, the next save after a write) are compared, not hashed
        #: again (a large file's hash costs more than comparing its bytes).
        self._known: tuple[bytes, str] | None = None

    def read(self) -> Snapshot:
        """The file's bytes (None when it does not exist) and their hash."""
        known = self._known
        if known is not None:
            # Most often the bytes held already (a save's read after its load, or after the
            # last save): compared a piece at a time, not read whole into a second copy.
            self._check_kind()
            try:
                with open(self.files.target, "rb") as handle:
                    if _handle_holds(handle, known[0]):
                        seconds = _wall() - os.fstat(handle.fileno()).st_mtime
                        return Snapshot(known[0], known[1], seconds)
            except OSError:
                pass  # the whole read says what went wrong
        data, age = self._read_bytes()
        if data is None:
            return Snapshot(None, None)
        version = digest(data)
        assert version is not None
        self._known = (data, version)
        return Snapshot(data, version, age)

    def _read_bytes(self) -> tuple[bytes | None, float | None]:
        """The file's bytes (None when it does not exist) and their age, unhashed."""
        self._check_kind()
        try:
            with open(self.files.target, "rb") as handle:
                data = handle.read()
                age = _wall() - os.fstat(handle.fileno()).st_mtime
        except FileNotFoundError:
            return None, None
        except IsADirectoryError as exc:
            raise StoreError(_folder_said(self.path), self.path) from exc
        except PermissionError as exc:
            raise StoreError(f"cannot read {self.path}: permission denied", self.path) from exc
        except OSError as exc:
            raise StoreError(f"cannot read {self.path}: {exc.strerror or exc}", self.path) from exc
        return data, age

    def _holds(self, expected: Snapshot) -> bool:
        """True when the file still holds ``expected``'s bytes (compared as bytes: the same
        answer as comparing their hashes, without hashing a large file again)."""
        if expected.data is None:
            return self._read_bytes()[0] is None
        self._check_kind()
        try:
            return _file_holds(self.files.target, expected.data)
        except FileNotFoundError:
            return False
        except OSError:
            return self._read_bytes()[0] == expected.data  # which says what went wrong

    def _check_kind(self) -> None:
        # Opening a FIFO for reading blocks until someone writes to it: session start would
        # hang. Anything that is not a regular file is refused before it is opened.
        try:
            info = os.stat(self.files.target)
        except OSError:
            return  # missing (or unreadable): the read says so
        if not stat.S_ISREG(info.st_mode) and not stat.S_ISDIR(info.st_mode):
            raise StoreError(
                f"{self.path} is not a regular file (a pipe, socket or device); "
                "point --file at a MEMORY.md",
                self.path,
            )

    def lock(self) -> contextlib.AbstractContextManager[None]:
        """Hold ``MEMORY.md.lock``; raises LockTimeoutError after the timeout."""
        folder = self.files.target.parent
        if not folder.is_dir():
            # filelock would create the folder; a typo in --file must not make new folders.
            raise StoreError(
                f"cannot write {self.path}: folder {folder} does not exist "
                "(create it, or run `everbot-memory init` with this --file)",
                self.path,
            )
        if self.path.is_symlink() and not self.files.target.exists():
            raise StoreError(
                f"{self.path} is a link to {self.files.target}, which does not exist; "
                "fix the link or point --file at the memory file",
                self.path,
            )
        if self.files.target.is_dir():  # refused before a side folder is made beside it
            raise StoreError(_folder_said(self.path), self.path)
        self.files.ensure()  # the lock is in the side folder, made here for a first save
        return self._lock.held()

    def write(
        self,
        data: bytes,
        expected: Snapshot,
        backup: bytes | None = None,
        *,
        version: str | None = None,
    ) -> WriteResult:
        """Keep ``backup`` (default: ``expected``) as ``MEMORY.md.bak``, then put ``data`` in
        place if the file is unchanged (``version``: its content hash, if known).

        On Linux the new file is swapped in with ``renameat2(RENAME_EXCHANGE)`` and what comes
        back is checked: an editor's save that landed between our check and the swap is
        returned as ``displaced`` (and kept on disk until released), never lost. Elsewhere the
        content hash is checked just before the rename, which leaves a window of microseconds.
        """
        if version is None:
            version = digest(data)  # a large file's hash: made once, not once per outcome
        result = self._write(data, expected, backup, version)
        if result.version is not None and version is not None:
            self._known = (data, version)  # on disk now: read again, it is not hashed again
        return result

    def _write(
        self, data: bytes, expected: Snapshot, backup: bytes | None, version: str | None
    ) -> WriteResult:
        target = self.files.target
        if not target.parent.is_dir():
            raise StoreError(f"cannot write {self.path}: folder {target.parent} does not exist")
        if not self._holds(expected):
            return WriteResult(None)  # changed since it was read: nothing to back up or write
        mode = 0o600
        if expected.data is not None:
            with contextlib.suppress(FileNotFoundError):  # deleted meanwhile: a new file
                mode = stat.S_IMODE(target.stat().st_mode)
            if not mode & 0o222:
                raise StoreError(
                    f"{self.path} is read-only (mode {mode:o}), so nothing was written; "
                    f"make it writable (chmod u+w {self.path}) to let the engine save",
                    self.path,
                )
            self._replace(self.files.backup, expected.data if backup is None else backup, mode)
        self._sweep_temp_files()
        if can_exchange():
            # A swapped-out file holding what the backup leaves out (a secret) is not kept.
            return self._swap(target, data, version, mode, expected, keep=backup is None)

        def unchanged() -> bool:
            # An editor may have saved while we wrote; replacing now would lose its change.
            # (What is left between this check and the rename is a few microseconds.)
            return self._holds(expected)

        written = self._replace(target, data, mode, unchanged)
        return WriteResult(version if written else None)

    def _swap(
        self,
        target: Path,
        data: bytes,
        version: str | None,
        mode: int,
        expected: Snapshot,
        *,
        keep: bool = True,
    ) -> WriteResult:
        try:
            tmp = temp_file(target, data, mode)
        except OSError as exc:
            raise self._error(target, exc) from exc
        try:
            if not exchange(tmp, target, new=expected.data is None):
                written = self._replace(target, data, mode)  # no exchange on this file system
                return WriteResult(version if written else None)
            fsync_dir(target.parent)
        except OSError as exc:
            with contextlib.suppress(OSError):  # the temp file, still ours: nothing swapped
                tmp.unlink()
            if exc.errno == errno.EEXIST:
                return WriteResult(None)  # someone created the file meanwhile: read it
            raise self._error(target, exc) from exc
        if expected.data is None:
            return WriteResult(version)
        if _file_holds(tmp, expected.data):  # what the swap took out: the file as read
            # An editor may hold this file open and write into it any moment now: keep it, so
            # the next save can see such a late write (see late_writes).
            if keep:
                self._keep_previous(tmp, expected.version, expected.data)
            else:
                tmp.unlink(missing_ok=True)
            return WriteResult(version)
        back = _settled_bytes(tmp)
        # Someone saved in the instant before the swap: their bytes came back. Keep them on disk
        # (under a name no cleanup removes) until they are merged and written.
        kept = tmp.with_name(f".{target.name}.displaced.{tmp.name.rsplit('.', 2)[-2]}")
        # (SideFiles.displaced lists these; doctor reports one a crash left.)
        os.replace(tmp, kept)
        return WriteResult(version, displaced=back, token=str(kept))

    def release(self, token: str) -> None:
        """Delete a set-aside copy (displaced, or written into late) once it is merged."""
        with contextlib.suppress(FileNotFoundError):
            Path(token).unlink()

    def _sweep_temp_files(self) -> None:
        """Remove temp files a crashed writer left (older than :data:`STALE_TEMP_SECONDS`).

        Only files of the engine's temp pattern (``.MEMORY.md*.tmp``) beside the file and in
        its versions folder; never a displaced copy, which may hold a person's save.
        """
        name = glob.escape(self.files.target.name)
        places = [
            (self.files.target.parent, f".{name}*.tmp"),
            (self.files.folder, ".*.tmp"),
            (self.files.versions, ".*.tmp"),
        ]
        cutoff = _wall() - STALE_TEMP_SECONDS
        for folder, pattern in places:
            for path in folder.glob(pattern) if folder.is_dir() else []:
                with contextlib.suppress(OSError):  # gone already, or not ours to remove
                    if path.stat().st_mtime < cutoff:
                        path.unlink()

    def late_writes(self) -> list[tuple[bytes, str]]:
        """What editors saved that a past write set aside, not merged yet (see the protocol).

        The swapped-out file is kept as ``previous-<hash>`` in the side-file folder, named for
        what it held at the swap; if its bytes no longer match its name, someone who still had
        it open wrote into it later. A displaced copy (``.MEMORY.md.displaced.*``) is found here
        only when the save that made it failed: a save merges its own before it returns.
        """
        found: list[tuple[bytes, str]] = []
        for path in self._previous_files():
            try:
                seen = _signature(path)
                written_into = not self._holds_its_name(path, path.read_bytes())
            except OSError:
                continue  # removed meanwhile
            if not written_into:
                # Found as it was kept: until it is written to again (which changes its
                # signature), it is not read and hashed again (see _keep_previous).
                self._checked[str(path)] = seen
            if written_into:
                found.append((_settled_bytes(path), str(path)))
        for path in self.files.displaced():
            with contextlib.suppress(OSError):  # removed meanwhile
                found.append((path.read_bytes(), str(path)))
        return found

    def _previous_files(self) -> list[Path]:
        previous = self.files.previous
        return sorted(previous.parent.glob(f"{glob.escape(previous.name)}-*"))

    def _keep_previous(self, swapped_out: Path, version: str | None, data: bytes) -> None:
        for old in self._previous_files():
            with contextlib.suppress(OSError):  # removed meanwhile
                unchanged = self._checked.pop(str(old), None) == _signature(old)
                if unchanged or self._holds_its_name(old, old.read_bytes()):
                    old.unlink()  # one written into later waits for the save that merges it
        kept = f"{self.files.previous}-{(version or '')[:16]}"
        os.replace(swapped_out, kept)
        self._kept = (kept, data)

    def _holds_its_name(self, path: Path, data: bytes) -> bool:
        """:func:`_holds_its_name`, comparing bytes instead of hashing them for the file this
        backend kept itself."""
        if self._kept is not None and self._kept[0] == str(path):
            return data == self._kept[1]
        return _holds_its_name(path, data)

    def _error(self, path: Path, exc: OSError) -> StoreError:
        reason = "the disk is full" if exc.errno == errno.ENOSPC else exc.strerror or exc
        return StoreError(f"cannot write {path}: {reason}; {self.path} was not changed", self.path)

    def _replace(
        self, path: Path, data: bytes, mode: int, ready: Callable[[], bool] | None = None
    ) -> bool:
        try:
            return write_atomically(path, data, mode=mode, ready=ready)
        except OSError as exc:
            raise self._error(path, exc) from exc


def monotonic() -> float:
    # The system's monotonic clock, read directly: tests freeze time.time and time.monotonic
    # (freezegun), and waiting for a file to settle must still end.
    return time.clock_gettime(time.CLOCK_MONOTONIC)


def _wall() -> float:
    return time.clock_gettime(time.CLOCK_REALTIME)


#: A temp file older than this was left by a writer that died: the next save removes it.
STALE_TEMP_SECONDS = 300.0
#: How long a file's bytes must stay the same before they count as a finished save.
QUIET_SECONDS = 0.25
#: How long to wait at most for a file that keeps changing.
SETTLE_TIMEOUT = 10.0


def _file_holds(path: Path, data: bytes) -> bool:
    """True when the file at ``path`` holds exactly ``data``; read a piece at a time, so a
    large file is not held twice. Raises OSError when it cannot be read."""
    with open(path, "rb") as handle:
        return _handle_holds(handle, data)


def _handle_holds(handle: BinaryIO, data: bytes) -> bool:
    """:func:`_file_holds` of a file open for reading, from its start."""
    piece = 1 << 20
    if os.fstat(handle.fileno()).st_size != len(data):
        return False
    for start in range(0, len(data), piece):
        # Bytes against bytes (a memoryview compares byte by byte, many times slower).
        if handle.read(piece) != data[start : start + piece]:
            return False
    return handle.read(1) == b""


def _signature(path: Path) -> tuple[int, int, int, int]:
    """What changes whenever a file is written to: its inode, size, and the times its data
    and its inode last changed (a write sets both to now, never back to what they were)."""
    info = os.stat(path)
    return (info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def _holds_its_name(path: Path, data: bytes) -> bool:
    """True when a ``previous-<hash>`` file still holds what it held when it was swapped out."""
    return (digest(data) or "")[:16] == path.name.rsplit("-", 1)[-1]


def _settled_bytes(path: Path) -> bytes:
    """The bytes of ``path`` once they have stopped changing (an editor may still be writing
    into that very file through a handle it opened before)."""
    if _wall() - path.stat().st_mtime >= QUIET_SECONDS:
        return path.read_bytes()  # not written lately: no one is writing into it
    last = path.read_bytes()
    stable_since = monotonic()
    deadline = stable_since + SETTLE_TIMEOUT
    while monotonic() - stable_since < QUIET_SECONDS and monotonic() < deadline:
        time.sleep(0.02)
        now = path.read_bytes()
        if now != last:
            last, stable_since = now, monotonic()
    return last


def _folder_said(path: Path) -> str:
    """What to do when the memory's path is a folder: name what set it."""
    named = {
        os.environ.get(name): name for name in ("EVERBOT_MEMORY_FILE", "EVERBOT_MEMORY_USER_FILE")
    }
    variable = named.get(str(path))  # the user's own memory when both name it
    where = f"${variable} or --file" if variable else "--file"
    return f"{path} is a directory, not a file; give {where} the memory file's path"
