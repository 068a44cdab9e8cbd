"""MEMORY.md on disk: tolerant loading, and saves that are locked, lossless and fail closed.

A save keeps a person's text, replays the engine's change onto an editor's newer version when
the file changed since it was loaded (a three-way rebase by entry id), scrubs secrets, renders
the canonical text, checks that it reads back as meant, and writes it through the backend
(atomically, keeping ``.bak``). Saving an unchanged canonical file writes nothing.
"""

from __future__ import annotations

import contextlib
import os
import re
import time
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from ..core.clock import iso, utcnow
from ..core.entry import MemoryEntry
from ..core.merge import rebase
from ..core.redaction import redact, scrub
from ..core.scoring import file_order
from ..document.model import Document, Problem
from ..document.parse import parse
from ..document.render import render_body, render_header
from ..errors import NotTextError, StoreError
from .backend import (
    QUIET_SECONDS,
    SETTLE_TIMEOUT,
    Backend,
    LocalFile,
    Snapshot,
    WriteResult,
    monotonic,
)
from .journal import Journal
from .lock import DEFAULT_LOCK_TIMEOUT
from .paths import SideFiles

__all__ = ["MemoryStore", "decode"]

_SAVE_ATTEMPTS = 5


def decode(data: bytes, path: str | os.PathLike[str]) -> str:
    """The file's bytes as text; :class:`NotTextError` if they are not UTF-8 text."""
    if b"\0" in data:
        raise NotTextError(
            f"{path} is a binary file, not a MEMORY.md; point --file at a text file", Path(path)
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise NotTextError(
            f"{path} is not UTF-8 text (bad byte at offset {exc.start}); "
            "convert it to UTF-8 or point --file at the right file",
            Path(path),
        ) from exc


class MemoryStore:
    """MEMORY.md on disk: tolerant loading, and saves that are atomic, locked and lossless."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
        backend: Backend | None = None,
    ) -> None:
        self.path = Path(path)
        self.files = SideFiles.of(path)
        self.backend: Backend = backend or LocalFile(path, lock_timeout=lock_timeout)
        self.journal = Journal(path)
        self._loaded: tuple[str | None, Document] | None = None  # (version, document)
        #: What the last save redacted or dropped.
        self.warnings: list[str] = []

    @property
    def target(self) -> Path:
        """The real file: a symlinked MEMORY.md is written through to what it points at."""
        return self.files.target

    @property
    def backup_path(self) -> Path:
        """``MEMORY.md.bak``: the previous version, kept before each write."""
        return self.files.backup

    @property
    def lock_path(self) -> Path:
        """``MEMORY.md.lock``: the sidecar every writer locks."""
        return self.files.lock

    # -- reading

    def read_bytes(self) -> bytes | None:
        """The file's bytes, or None when it does not exist."""
        return self.backend.read().data

    def load_document(self, now: datetime | None = None) -> Document:
        """Read the whole file (entries, a person's text, problems). Missing file: empty."""
        snapshot = self._read_settled()
        doc = self._reconciled(snapshot, now)
        self._loaded = (snapshot.version, doc)
        return doc

    def _reconciled(self, snapshot: Snapshot, now: datetime | None = None) -> Document:
        """The file as a document; a version the engine did not write (an editor's save) has
        the engine's changes made since the copy it was edited from replayed onto it."""
        if snapshot.data is None:
            return Document()
        doc = parse(self._text(snapshot), now)
        if self.journal.knows(snapshot.version):
            return doc
        return self._replayed(snapshot.data, doc, now)

    def _replayed(self, data: bytes, doc: Document, now: datetime | None = None) -> Document:
        head, base = self.journal.head(), self.journal.base_of(data)
        # Kept as a version too: the person's next save is most likely made from this one.
        self.journal.record(_without_secrets(data) or data, by_engine=False)
        if head is None or base is None or base == head:
            return doc  # made from the newest version: nothing of the engine's is missing
        merged = rebase(
            parse(decode(base, self.path), now).entries,
            parse(decode(head, self.path), now).entries,
            doc.entries,
        )
        return Document(merged, doc.preamble, doc.notes, doc.last_updated, doc.problems, doc.lines)

    def load(self) -> list[MemoryEntry]:
        """The entries in the file; problems found are in :attr:`problems`."""
        return list(self.load_document().entries)

    @property
    def problems(self) -> list[Problem]:
        """Repairs and warnings from the last load."""
        return [] if self._loaded is None else list(self._loaded[1].problems)

    def _text(self, snapshot: Snapshot) -> str:
        return "" if snapshot.data is None else decode(snapshot.data, self.path)

    # -- writing

    def lock(self) -> contextlib.AbstractContextManager[None]:
        """Hold the writers' lock; raises :class:`LockTimeoutError` after the timeout."""
        return self.backend.lock()

    def save(self, entries: Sequence[MemoryEntry]) -> bool:
        """Write ``entries`` as the file's memories; returns False when nothing changed.

        A person's text in the file is kept. If the file changed on disk since it was loaded
        (an editor saved it), the change from the loaded entries to ``entries`` is replayed on
        the new content instead of overwriting it. On any failure the file is left as it was.
        """
        entries, self.warnings = scrub(
            entries, lambda e, text: e.replace(content=text), lambda e: f"memory [{e.id}]"
        )
        with self.lock():
            displaced: list[WriteResult] = []
            try:
                return self._save_locked(entries, displaced)
            finally:
                for result in displaced:
                    if result.token is not None:
                        self.backend.release(result.token)

    def _save_locked(self, entries: list[MemoryEntry], displaced: list[WriteResult]) -> bool:
        theirs: tuple[bytes, Snapshot] | None = None  # displaced bytes, and what is on disk
        deadline = monotonic() + SETTLE_TIMEOUT
        late = self.backend.late_writes()
        if late is not None:
            theirs = (late, self._read_settled())  # merged with what is on disk below
        attempts = 0
        while attempts < _SAVE_ATTEMPTS or monotonic() < deadline:
            attempts += 1
            merging = theirs is not None  # displaced bytes, not what is on disk
            if theirs is None:
                snapshot = self._read_settled()
                text = self._text(snapshot)
            else:
                text, snapshot = decode(theirs[0], self.path), theirs[1]
            loaded = self._loaded
            if not merging and loaded is not None and loaded[0] == snapshot.version:
                doc = loaded[1]
                wanted = list(entries)
            else:
                doc = (
                    self._replayed(text.encode("utf-8"), parse(text))
                    if merging
                    else self._reconciled(snapshot)
                )
                if not merging and loaded is not None and _vanished(loaded[1], doc):
                    # Many entries gone at once: a save in progress, not a person's deletions.
                    snapshot = self._read_settled(force=True)
                    text = self._text(snapshot)
                    doc = self._reconciled(snapshot)
                wanted = (
                    list(entries)
                    if loaded is None
                    else rebase(loaded[1].entries, entries, doc.entries)
                )
            theirs = None
            new_doc = Document(wanted, doc.preamble, doc.notes, doc.last_updated)
            body = render_body(new_doc)
            header = render_header(doc.last_updated or "", len(wanted))
            if not merging and doc.last_updated and header + body == text:
                self._loaded = (snapshot.version, new_doc)
                return False
            new_doc.last_updated = iso(utcnow())
            output = render_header(new_doc.last_updated, len(wanted)) + body
            self._check_rendered(output, new_doc)
            written = output.encode("utf-8")
            # Journaled before it is written: an editor's save that lands during the write is
            # then merged with it (see _replayed), whichever of the two wins the race.
            self.journal.record(written)
            # When this save redacted a memory, the backup must not keep it either.
            backup = _without_secrets(snapshot.data) if self.warnings else None
            result = self.backend.write(written, snapshot, backup)
            if result.version is None:
                continue  # an editor saved while we were writing: merge onto its version
            if result.displaced is None:
                self._loaded = (result.version, new_doc)
                return True
            # An editor's save landed at the instant of the swap: ours is on disk, theirs came
            # back. Merge theirs with our change, and write that over ours.
            displaced.append(result)
            theirs = (result.displaced, Snapshot(written, result.version))
        raise StoreError(
            f"{self.path} kept changing while saving; nothing was written, try again",
            self.path,
        )

    def _read_settled(self, *, force: bool = False) -> Snapshot:
        """The file once it reads as a finished save.

        An editor that saves in place (truncate, then write) leaves a half-written file for a
        moment; read then, it would look like a person deleting most memories. A file that ends
        mid-line, is empty, or holds fewer entries than its header counts is read again until
        it stops changing; one the engine did not write and that changed in the last 50 ms is
        read again once that moment has passed (its first part can look whole). ``force``:
        wait until it stops changing, however it looks.
        """
        deadline = monotonic() + SETTLE_TIMEOUT
        while True:
            snapshot = self.backend.read()
            if force or not _complete(snapshot):
                quiet = self._quiet(snapshot, deadline, force)
                if quiet is not None:
                    return quiet
                continue  # it became whole: read it again as whole
            if snapshot.data is None or self.journal.wrote(snapshot.version):
                return snapshot  # the engine's own: written whole, never in place
            if snapshot.age is None or snapshot.age >= WRITE_GAP_SECONDS:
                return snapshot
            # Looks whole but was written a moment ago: a prefix of an in-place save can look
            # whole (what a person adds comes last). Read it again once the moment has passed.
            self._check_deadline(deadline)
            time.sleep(WRITE_GAP_SECONDS - snapshot.age)

    def _quiet(self, snapshot: Snapshot, deadline: float, force: bool) -> Snapshot | None:
        """``snapshot``, or what follows it, once the bytes stop changing for a moment; None
        as soon as (unless ``force``) they change into a file that looks whole."""
        stable_since = monotonic()
        while monotonic() - stable_since < QUIET_SECONDS:
            self._check_deadline(deadline)
            time.sleep(0.02)
            again = self.backend.read()
            if again.version != snapshot.version:
                if not force and _complete(again):
                    return None  # the save it was caught in the middle of is done
                snapshot, stable_since = again, monotonic()
        return snapshot

    def _check_deadline(self, deadline: float) -> None:
        if monotonic() > deadline:
            raise StoreError(
                f"{self.path} keeps changing (is an editor saving it?); "
                "nothing was written, try again",
                self.path,
            )

    def _check_rendered(self, output: str, doc: Document) -> None:
        """Refuse to write text that does not read back as what was meant (fail closed)."""
        reread = parse(output)
        if (
            reread.entries != sorted(doc.entries, key=file_order)
            or "\n\n".join(reread.preamble) != "\n\n".join(doc.preamble)
            or "\n\n".join(reread.notes) != "\n\n".join(doc.notes)
        ):
            # Only a person's text can cause this: say, an unclosed ``` fence before the first
            # section swallows everything after it.
            raise StoreError(
                f"refusing to write {self.path}: the result would not read back the same; "
                "look for an unclosed ``` fence or <!-- comment in text added by hand "
                "(`everbot-memory doctor` shows where)",
                self.path,
            )


#: An editor writing a file in place writes again within this long (a slow disk: 512 bytes
#: every few milliseconds); a file whose bytes are older than this is not being written.
WRITE_GAP_SECONDS = 0.05

_TOTAL_RE = re.compile(rb"<!--\s*Total entries\s*:\s*(\d+)\s*-->")
_HEADING = b"\n### ["


def _complete(snapshot: Snapshot) -> bool:
    """True when the bytes read look like a whole file, not a save caught halfway."""
    data = snapshot.data
    if data is None:
        return True
    if not data.endswith(b"\n"):
        return False
    total = _TOTAL_RE.search(data[:400])
    return total is None or data.count(_HEADING) >= int(total.group(1))


def _vanished(before: Document, after: Document) -> bool:
    """True when ``after`` lost many of ``before``'s entries at once."""
    lost = len(before.entries) - len(after.entries)
    return lost > max(2, len(before.entries) // 10)


def _without_secrets(data: bytes | None) -> bytes | None:
    """``data`` with every secret redacted, or None when it holds none (keep it as it is).

    The previous version kept as ``.bak`` and the versions journal are files too: a secret a
    person typed into MEMORY.md must not survive there once a save has redacted it.
    """
    if data is None:
        return None
    text = data.decode("utf-8", "surrogateescape")
    result = redact(text)
    return result.text.encode("utf-8", "surrogateescape") if result.found else None
