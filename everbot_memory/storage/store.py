"""MEMORY.md on disk: tolerant loading, and saves that are locked, lossless and fail closed.

A save keeps a person's text, replays the engine's change onto an editor's newer version when
the file changed since it was loaded (a three-way rebase by entry id), scrubs secrets, renders
the canonical text, checks that it reads back as meant, and writes it through the backend
(atomically, keeping ``.bak``). Saving an unchanged canonical file writes nothing.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from ..core.clock import iso, utcnow
from ..core.entry import MemoryEntry
from ..core.merge import rebase
from ..core.redaction import scrub
from ..core.scoring import file_order
from ..document.model import Document, Problem
from ..document.parse import parse
from ..document.render import render_body, render_header
from ..errors import NotTextError, StoreError
from .backend import Backend, LocalFile, Snapshot
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
        snapshot = self.backend.read()
        doc = Document() if snapshot.data is None else parse(self._text(snapshot), now)
        self._loaded = (snapshot.version, doc)
        return doc

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
            for _ in range(_SAVE_ATTEMPTS):
                snapshot = self.backend.read()
                text = self._text(snapshot)
                loaded = self._loaded
                if loaded is not None and loaded[0] == snapshot.version:
                    doc = loaded[1]
                    wanted = list(entries)
                else:
                    doc = parse(text)
                    wanted = (
                        list(entries)
                        if loaded is None
                        else rebase(loaded[1].entries, entries, doc.entries)
                    )
                new_doc = Document(wanted, doc.preamble, doc.notes, doc.last_updated)
                body = render_body(new_doc)
                if doc.last_updated and render_header(doc.last_updated, len(wanted)) + body == text:
                    self._loaded = (snapshot.version, new_doc)
                    return False
                new_doc.last_updated = iso(utcnow())
                output = render_header(new_doc.last_updated, len(wanted)) + body
                self._check_rendered(output, new_doc)
                written = output.encode("utf-8")
                version = self.backend.write(written, snapshot)
                if version is not None:
                    self._loaded = (version, new_doc)
                    return True
                # An editor saved while we were writing: merge again onto its version.
            raise StoreError(
                f"{self.path} kept changing while saving; nothing was written, try again",
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
