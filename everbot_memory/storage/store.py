"""MEMORY.md on disk: tolerant loading, and saves that are locked, lossless and fail closed.

A save keeps a person's text, replays the engine's change onto an editor's newer version when
the file changed since it was loaded (a three-way rebase by entry id), scrubs secrets, renders
the canonical text, checks that it reads back as meant, and writes it through the backend
(atomically, keeping ``.bak``). Saving an unchanged canonical file writes nothing.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import re
import time
from collections.abc import Mapping, Sequence
from datetime import datetime
from itertools import compress, repeat
from operator import attrgetter, gt, is_not, itemgetter
from pathlib import Path

from ..core.clock import iso, utcnow
from ..core.collector import collection_paused
from ..core.entry import MemoryEntry, exhaust
from ..core.merge import fingerprint, rebase, unite
from ..core.profile import ordered
from ..core.redaction import redact, scrub
from ..core.scoring import file_order
from ..document.model import Document, Problem
from ..document.parse import parse
from ..document.render import Body, render_header, render_parts
from ..errors import NotTextError, StoreError
from . import hot_patch, parsed
from .atomic import digest
from .backend import (
    QUIET_SECONDS,
    SETTLE_TIMEOUT,
    Backend,
    LocalFile,
    Snapshot,
    monotonic,
)
from .git_state import refuse_while_merging
from .journal import Journal, without_secrets
from .lock import DEFAULT_LOCK_TIMEOUT
from .paths import SideFiles

__all__ = ["MemoryStore", "decode", "scrub_mark"]

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
        self._sources: tuple[str, ...] = ()  # the versions the loaded document holds
        #: The version whose parse is recorded beside the file, as far as this store knows.
        self._recorded: str | None = None
        #: The record as this store last read or wrote it (see ``storage/parsed.py``): a
        #: save from its version appends its change to it.
        self._log: parsed.Log | None = None
        #: What the last save redacted or dropped.
        self.warnings: list[str] = []
        #: The last bytes (their version) that looked unfinished but stayed as they were for
        #: a while: not waited for again while they stay so.
        self._settled: str | None = None
        #: The last bytes (their version) read as a finished save, or written by this store:
        #: the same bytes read again are not looked over again.
        self._whole: str | None = None

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
        doc, self._sources = self._reconciled(snapshot, now)
        self._loaded = (snapshot.version, doc)
        return doc

    def _reconciled(
        self, snapshot: Snapshot, now: datetime | None = None
    ) -> tuple[Document, tuple[str, ...]]:
        """The file as a document, and the versions it holds (the parents of a version
        written from it). A version the engine did not write (an editor's save) has the
        engine's changes made since the copy it was edited from replayed onto it."""
        if snapshot.data is None or snapshot.version is None:
            return Document(), ()
        # The record is of bytes the engine wrote: the file is decoded only to be parsed.
        found = parsed.read(self.files, snapshot.version, snapshot.data)
        doc = parse(self._text(snapshot), now) if found is None else found[0]
        self._recorded = None if found is None else snapshot.version
        if found is not None:
            self._log = found[1]
        doc.version = snapshot.version
        if self.journal.scrubbed(snapshot.version) != scrub_mark():
            # Only text the engine wrote is known to be canonical and free of secrets (checked
            # with today's rules), so only such text is written again as it is, unchecked
            # (see render_parts and _scrub_new).
            doc.sources.clear()
        if self.journal.knows(snapshot.version):
            return doc, (snapshot.version,)
        doc, parents = self._replayed(snapshot.data, doc, now)
        return self._kept_whole(snapshot.data, doc, now)[0], parents

    def _kept_whole(
        self, data: bytes, doc: Document, now: datetime | None = None
    ) -> tuple[Document, bool]:
        """``doc``, the reading of ``data``, with nothing lost if ``data`` is a save caught
        halfway (see :func:`_cut_short`): every memory of the engine's newest version it lacks
        is kept (unless the engine itself removed it), and its last memory, which may be cut
        mid-text, is the engine's while the engine has it. What the person meant comes with
        the rest of their save (a late write, merged by the next save). Also returns whether
        ``data`` looked cut short."""
        data = _lf(data)  # once: the checks below look for whole lines
        if not _may_be_cut(data):
            return doc, False  # the usual case: the engine's newest version is not read
        head = self.journal.head()
        if head is None or not _cut_short(data, head[1]):
            return doc, False
        ours = parse(decode(head[1], self.path), now)
        mine = {e.id: e for e in ours.entries}
        have = {e.id for e in doc.entries}
        forgot = self.journal.forgotten()
        last = max(doc.lines, key=doc.lines.__getitem__, default=None)
        entries = [mine[e.id] if e.id == last and e.id in mine else e for e in doc.entries]
        entries += [e for e in ours.entries if e.id not in have and e.id not in forgot]
        kept = len(entries) - len(doc.entries)
        self.warnings.append(
            f"{self.path} looked half-written (an editor still saving it?): "
            f"{kept} memories missing from it were kept"
        )
        # The person's own text is kept too, beside the engine's (the rest of their save,
        # merged later, brings it whole), but not a memory's start that the bytes stop in,
        # read as a note.
        preamble, notes = list(doc.preamble), list(doc.notes)
        ending = notes or preamble  # the text the bytes may end in
        tail = data.rstrip().rsplit(b"\n", 1)[-1].decode("utf-8", "replace").strip()
        if ending and tail and tail in ending[-1]:
            lines = ending.pop().split("\n")
            stop = next((n for n, line in enumerate(lines) if _STRUCTURE.match(line)), None)
            before = "\n".join(lines[:stop]).strip()
            if before:
                ending.append(before)
        preamble = ours.preamble + [b for b in preamble if b not in ours.preamble]
        notes = ours.notes + [b for b in notes if b not in ours.notes]
        result = Document(entries, preamble, notes, doc.last_updated, doc.problems)
        result.profile = ours.profile
        return result, True

    def _replayed(
        self,
        data: bytes,
        doc: Document,
        now: datetime | None = None,
        ours: Document | None = None,
    ) -> tuple[Document, tuple[str, ...]]:
        """``doc`` (a person's save, ``data``) merged with the engine's newest version, or
        with ``ours`` (a document that already holds it), from their newest common ancestor.

        Returns the merged document and the versions it holds.
        """
        version = digest(data)
        assert version is not None
        # Kept as a version too: the person's next save is most likely made from this one.
        self.journal.observe(data, version)
        head = self.journal.head()
        if head is None:
            return doc, (version,)  # no engine version to merge with: the file as it is
        sources = (version, head[0])
        base = self.journal.common_ancestor(head[0], version)
        into = ours  # a document being written, that a set-aside save is folded into
        if ours is None:
            if base == head[1]:
                return doc, sources  # made from the newest version: nothing is missing
            ours = parse(decode(head[1], self.path), now)
        if base is None:
            # No common ancestor kept (a copy older than the journal): keep what either side
            # holds, except what the engine removed on purpose.
            nearest = self.journal.nearest_ancestor(head[0], data)
            merged = unite(
                ours.entries,
                doc.entries,
                self.journal.forgotten(),
                () if nearest is None else parse(decode(nearest, self.path), now).entries,
            )
            base_doc = Document()
        else:
            base_doc = parse(decode(base, self.path), now)
            merged = rebase(base_doc.entries, ours.entries, doc.entries)
        shown = doc if into is None else into  # whose header, problems and lines to keep
        result = Document(
            merged,
            _side(base_doc.preamble, ours.preamble, doc.preamble),
            _side(base_doc.notes, ours.notes, doc.notes),
            shown.last_updated,
            shown.problems,
            shown.lines,
        )
        result.profile = _side(base_doc.profile, ours.profile, doc.profile)
        return result, sources

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

    def save(self, entries: Sequence[MemoryEntry], *, settled: datetime | None = None) -> bool:
        """Write ``entries`` as the file's memories; returns False when nothing changed.

        A person's text in the file is kept. If the file changed on disk since it was loaded
        (an editor saved it), the change from the loaded entries to ``entries`` is replayed on
        the new content instead of overwriting it. On any failure the file is left as it was.

        ``settled``: the moment a merge brought ``entries`` to (each one's score is what decay
        gives it then; see :class:`~everbot_memory.core.merge.MergeResult`). Kept beside the
        file, it lets the next merge score again only the memories that decay or expiry has
        changed since (see :meth:`steady`).
        """
        with collection_paused():
            known = {} if self._loaded is None else self._loaded[1].sources
            entries, self.warnings = _scrub_new(entries, known)
            with self.lock():
                return self._save_locked(entries, settled)

    def steady(self, now: datetime) -> set[int]:
        """The ``id()`` of the entries last loaded whose score is the one decay gives them at
        ``now``, as far as the engine's record of the file tells (the merge that wrote it
        scored them, and neither a day of decay nor their expiry has come since): what a
        merge at ``now`` need not score again (``MemoryMerger.merge``'s ``steady``). Empty
        when the file was not read from such a record, or the clock is behind it."""
        if self._loaded is None or self._loaded[1].steady is None:
            return set()
        when, entries, until = self._loaded[1].steady
        stamp = now.timestamp()
        if stamp < when:
            return set()
        return set(map(id, compress(entries, map(gt, until, repeat(stamp)))))

    def _save_locked(self, entries: list[MemoryEntry], settled: datetime | None = None) -> bool:
        # People's saves set aside by past writes or by this one (bytes, and the token to
        # release once they are in the file): merged into every attempt until one is written.
        # One that is not (the save fails) stays on disk for the next save to merge.
        pending = self.backend.late_writes()
        unmerged: set[str] = set()
        loaded = self._loaded
        # What this save removes on purpose, so that a merge with no common ancestor (see
        # the journal) does not bring it back. (Sets of ids made in C: a file may hold
        # 100,000 memories, and a save removes none or a few.)
        forgot: dict[str, str] = {}
        if loaded is not None:
            gone = _gone(list(map(_ID, loaded[1].entries)), list(map(_ID, entries)))
            if gone:
                forgot = {e.id: fingerprint(e) for e in loaded[1].entries if e.id in gone}
        # The entries a merge brought to ``settled``: all of those written when they are
        # ``entries`` (None); by ``id()`` when a person's change is merged in below (each
        # one is held by ``entries``), whose entries are others.
        by_merge: tuple[datetime, set[int] | None] | None = None
        deadline = monotonic() + SETTLE_TIMEOUT
        attempts = 0
        while attempts < _SAVE_ATTEMPTS or monotonic() < deadline:
            attempts += 1
            snapshot = self._read_settled()
            # Decoded only to look for a conflict: the marker's bytes are the same in UTF-8.
            marked = snapshot.data is not None and b"<<<<<<<" in snapshot.data
            refuse_while_merging(self.target, self._text(snapshot) if marked else "")
            parents: tuple[str | None, ...]
            if not pending and loaded is not None and loaded[0] == snapshot.version:
                doc, parents = loaded[1], (snapshot.version, *self._sources)
                wanted = list(entries)
                by_merge = None if settled is None else (settled, None)
            else:
                doc, parents = self._reconciled(snapshot)
                if loaded is not None and _vanished(loaded[1], doc):
                    # Many entries gone at once: a save in progress, not a person's deletions.
                    snapshot = self._read_settled(force=True)
                    doc, parents = self._reconciled(snapshot)
                for data, token in pending:
                    try:
                        theirs = parse(decode(data, self.path))
                    except NotTextError:
                        # Not text: kept on disk as it is (doctor lists it), not merged.
                        self.warnings.append(f"{token} is not text; it was not merged")
                        unmerged.add(token)
                        continue
                    doc, more = self._replayed(data, theirs, ours=doc)
                    doc, cut = self._kept_whole(data, doc)
                    if cut:
                        # Still being written: merged as it stands, and kept to be merged
                        # again, whole, by a later save.
                        unmerged.add(token)
                    parents += more
                wanted = (
                    list(entries)
                    if loaded is None
                    else rebase(loaded[1].entries, entries, doc.entries)
                )
                # What the rebase took from the file as it is now (a person's change made
                # meanwhile) is checked for secrets like what was passed in.
                mine = {id(e) for e in entries}
                by_merge = None if settled is None else (settled, mine)
                wanted, found = _scrub_new(wanted, doc.sources, mine)
                self.warnings += [w for w in found if w not in self.warnings]
            # A secret typed outside any entry (before the first section, between entries)
            # is kept there as typed, but never its value.
            preamble = _redact_blocks(doc.preamble, "the text before the first section")
            notes = _redact_blocks(doc.notes, "the file's notes")
            for warning in (*preamble[1], *notes[1]):
                if warning not in self.warnings:
                    self.warnings.append(warning)
            profile = _redact_blocks(doc.profile, "the profile")
            for warning in profile[1]:
                if warning not in self.warnings:
                    self.warnings.append(warning)
            new_doc = Document(wanted, preamble[0], notes[0], doc.last_updated)
            new_doc.profile = ordered(profile[0])  # as the file will hold them
            new_doc.sources = doc.sources  # empty unless the engine wrote what was read
            new_doc.derived = doc.derived
            # The whole file, stamped now; a save that changes nothing keeps the old stamp.
            stamp = iso(utcnow())
            header = render_header(stamp, len(wanted))
            rendered = render_parts(new_doc, reuse=True, head=header)
            # Held once, here: a large file's bytes are tens of MB.
            written, rendered.data = rendered.data, b""
            # For the next save from this store.
            new_doc.sources, new_doc.derived = rendered.sources, rendered.derived
            old_header = render_header(doc.last_updated or "", len(wanted))
            if (
                not pending
                and doc.last_updated
                and _same_bytes(snapshot.data, old_header, written, rendered.head)
            ):
                self._loaded = (snapshot.version, new_doc)
                self._sources = tuple(p for p in parents if p is not None)
                # (The record's places hold when both headers take as many bytes: the usual
                # case, a stamp the engine wrote.)
                same_places = len(old_header.encode("utf-8")) == rendered.head
                if snapshot.version not in (None, self._recorded) and same_places:
                    self._record(snapshot.version, old_header, rendered, new_doc, by_merge)
                return False
            new_doc.last_updated = stamp
            if (
                doc.sources
                and preamble[0] == doc.preamble
                and notes[0] == doc.notes
                and profile[0] == doc.profile
            ):
                # The rest is the engine's own text, already checked when it was written:
                # only what was rendered anew needs checking. (A memory only rescored keeps
                # its checked content's lines under a heading and metadata made as always.)
                rescored = set(map(id, rendered.rescored))
                anew = [e for e in rendered.fresh if id(e) not in rescored]
                self._check_fresh(anew, rendered.sources)
            else:
                self._check_rendered(written.decode("utf-8"), new_doc)
            # The texts these memories had are not written again: let go of them before the
            # hooks' files are made (a day's decay gives every memory of a large file a new
            # text: tens of MB). A later attempt without them renders and checks those
            # memories anew, and derives the profile anew (what it was derived from is gone).
            if rendered.fresh:
                exhaust(map(doc.sources.pop, map(_ID, rendered.fresh), repeat(None)))
                doc.derived = None
            # The journal's copy is compressed on another thread meanwhile (the pieces of the
            # version read that it holds as they are keep their compressed bytes).
            packing = self.journal.packing(written, snapshot.version, snapshot.data)
            version = digest(written)
            assert version is not None
            # What the hooks read instead of the file, built from what is to be written (and
            # written once it is).
            # (A new process starts from the caches of the version read, when this is its parse.)
            base = None
            if doc.version is not None and doc.version == snapshot.version:
                base = (doc.version, doc.entries)
            cached = hot_patch.prepare(
                self.path,
                written,
                wanted,
                profile=rendered.profile,
                sha256=version,
                base=base,
            )
            # Written to temp files now (renamed once the memory file is written): what
            # they are made from is not held through the write.
            cached.stage()
            try:
                # Journaled before it is written: an editor's save that lands during the write is
                # then merged with it (see _replayed), whichever of the two wins the race.
                recorded = self.journal.record(
                    written,
                    parents=parents,
                    forgot=forgot,
                    scrubbed=scrub_mark(),
                    version=version,
                    packed=packing,
                )
                # When this save redacted a memory, the backup must not keep it either.
                backup = without_secrets(snapshot.data) if self.warnings else None
                result = self.backend.write(written, snapshot, backup, version=version)
                if result.version is None:
                    # An editor saved while we were writing: nothing of ours reached the disk, so
                    # no one's save descends from it. Merge onto their version.
                    self.journal.discard(recorded)
                    continue
                if result.displaced is None:
                    # What was written: the hooks' files just built are this version's.
                    new_doc.version = self._whole = result.version
                    self._loaded, self._sources = (result.version, new_doc), ()
                    cached.put()
                    # A record of the version this save was made from (the one its texts
                    # came from) takes the change appended to it.
                    log = self._log
                    same = log is not None and log.version == doc.version == snapshot.version
                    after = log if same else None
                    self._record(result.version, header, rendered, new_doc, by_merge, after)
                    for _, token in pending:
                        if token not in unmerged:
                            self.backend.release(token)
                    return True
                # An editor's save landed at the instant of the swap: ours is on disk, theirs came
                # back. Merge theirs with our change, and write that over ours.
                assert result.token is not None
                pending.append((result.displaced, result.token))
            finally:
                cached.discard()  # unless put: a write that did not happen, or an error
        raise StoreError(
            f"{self.path} kept changing while saving; nothing was written, try again",
            self.path,
        )

    def _record(
        self,
        version: str,
        header: str,
        rendered: Body,
        doc: Document,
        settled: tuple[datetime, set[int] | None] | None = None,
        after: parsed.Log | None = None,
    ) -> None:
        """Keep the parse of the version just written (or found unchanged) for the next
        process that reads it (see ``storage/parsed.py``), with ``settled``: the moment a
        merge brought the entries to, and which entries (by ``id()``; None: all).
        ``after``: the record of the version ``rendered`` was made from, to append to."""
        found = parsed.of_save(header, rendered, doc)
        if found is not None:
            self._log = parsed.record(self.files, version, found, settled, after)
            self._recorded = version

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
            if not force and snapshot.version is not None and snapshot.version == self._whole:
                return snapshot  # these very bytes read as whole before (or written whole)
            if force or not _complete(snapshot):
                if not force and snapshot.version == self._settled:
                    return snapshot  # waited for once already (a load, then its save)
                # Bytes that stop mid-line are most likely an editor's save in progress: give
                # it longer to go on (a slow disk, a network folder) before taking them as is.
                data = snapshot.data or b""
                mid_line = not data.endswith((b"\n", b"\r"))
                quiet = self._quiet(snapshot, deadline, force, 1.0 if mid_line else QUIET_SECONDS)
                if quiet is not None:
                    self._settled = quiet.version
                    return quiet
                continue  # it became whole: read it again as whole
            if snapshot.data is None or self.journal.wrote(snapshot.version):
                self._whole = snapshot.version
                return snapshot  # the engine's own: written whole, never in place
            if snapshot.age is None or snapshot.age >= WRITE_GAP_SECONDS:
                self._whole = snapshot.version
                return snapshot
            # Looks whole but was written a moment ago: a prefix of an in-place save can look
            # whole (what a person adds comes last). Read it again once the moment has passed.
            self._check_deadline(deadline)
            time.sleep(WRITE_GAP_SECONDS - snapshot.age)

    def _quiet(
        self, snapshot: Snapshot, deadline: float, force: bool, seconds: float = QUIET_SECONDS
    ) -> Snapshot | None:
        """``snapshot``, or what follows it, once the bytes stop changing for ``seconds``;
        None as soon as (unless ``force``) they change into a file that looks whole."""
        stable_since = monotonic()
        while monotonic() - stable_since < seconds:
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

    def _check_fresh(
        self, entries: list[MemoryEntry], texts: Mapping[str, tuple[MemoryEntry, bytes]]
    ) -> None:
        """:meth:`_check_rendered` for entries rendered anew, alone between canonical text.

        Each entry's text (as in ``texts``, what the save writes) is read alone, as in the
        file: after a section heading or a closed entry, and before a heading (a note after
        it shows that nothing stays open).
        """
        if entries:
            probe = Document(entries, notes=[_PROBE_NOTE], last_updated=_PROBE_STAMP)
            probe.sources = {e.id: texts[e.id] for e in entries}
            probe.derived = ((), ())  # no profile: only the entries' texts are checked
            body = render_parts(probe, reuse=True).text
            self._check_rendered(render_header(_PROBE_STAMP, 0) + body, probe)

    def _check_rendered(self, output: str, doc: Document) -> None:
        """Refuse to write text that does not read back as what was meant (fail closed)."""
        reread = parse(output)
        if (
            reread.entries != sorted(doc.entries, key=file_order)
            or "\n\n".join(reread.preamble) != "\n\n".join(doc.preamble)
            or "\n\n".join(reread.notes) != "\n\n".join(doc.notes)
            or reread.profile != doc.profile
        ):
            # Only a person's text can cause this: say, an unclosed ``` fence before the first
            # section swallows everything after it.
            raise StoreError(
                f"refusing to write {self.path}: the result would not read back the same; "
                "look for an unclosed ``` fence or <!-- comment in text added by hand "
                "(`everbot-memory doctor` shows where)",
                self.path,
            )


_ID = attrgetter("id")
_FIRST = itemgetter(0)
_UNKNOWN = (None, b"")

_PROBE_NOTE = "The end of the entries checked."
_PROBE_STAMP = "2000-01-01T00:00:00Z"

#: An editor writing a file in place writes again within this long (a slow disk: 512 bytes
#: every few milliseconds); a file whose bytes are older than this is not being written.
WRITE_GAP_SECONDS = 0.05

_TOTAL_RE = re.compile(rb"<!--\s*Total entries\s*:\s*(\d+)\s*-->")
_HEADING = b"\n### ["


def _same_bytes(data: bytes | None, header: str, written: bytes, head: int) -> bool:
    """True when ``data`` is ``header`` then what follows the first ``head`` bytes of
    ``written``, compared a megabyte at a time (a large file is tens of MB: not copied whole,
    and not compared as memoryviews, which go byte by byte)."""
    start = header.encode("utf-8")
    if data is None or len(data) - len(start) != len(written) - head:
        return False
    if not data.startswith(start):
        return False
    piece = 1 << 20
    shift = len(start) - head
    return all(
        data[at + shift : at + shift + piece] == written[at : at + piece]
        for at in range(head, len(written), piece)
    )


_SECTIONS = (b"\n## Archived Memories\n", b"\n## Active Memories\n")
#: A line of the file's structure (a heading, a comment): where a cut file's last text may be
#: the start of a memory read as a note.
_STRUCTURE = re.compile(r"\s*(?:#|<!--)")


def _lf(data: bytes) -> bytes:
    """``data`` with Windows (CRLF) and old Mac (CR) line ends as line feeds: an editor may
    save the file with either, and the checks below look for whole lines."""
    if b"\r" not in data:
        return data  # the engine's own (and most editors'): not copied
    return data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")


def _may_be_cut(data: bytes) -> bool:
    """False when ``data`` surely is no save caught halfway: it ends a line and holds both
    sections every save writes (then :func:`_cut_short` needs no other version). ``data``'s
    line ends are line feeds (:func:`_lf`)."""
    return not data.endswith(b"\n") or any(heading not in data for heading in _SECTIONS)


def _cut_short(data: bytes, whole: bytes) -> bool:
    """True when ``data`` reads as a save caught halfway rather than a person's edit of the
    engine's version ``whole``: it lacks a section heading that ``whole`` has and every save
    writes (an edit does not delete "## Archived Memories"), or it stops mid-line.

    A last line without its line break is whole when it is ``whole``'s own last line: an
    editor that drops the file's final line break leaves it so."""
    whole = _lf(whole)  # ``data``'s line ends are line feeds already (see _kept_whole)
    if not data.strip():
        return bool(whole.strip())  # emptied: a truncate before the write, not a wish
    ended = data if data.endswith(b"\n") else data + b"\n"
    if any(heading in whole and heading not in ended for heading in _SECTIONS):
        return True
    if data is ended:
        return False
    last = data[data.rfind(b"\n") + 1 :]
    # The engine's own last line: anywhere else, a line the bytes stop after may be followed
    # by memories still to be written.
    return not last.strip() or not (b"\n" + whole).endswith(b"\n" + last + b"\n")


def _complete(snapshot: Snapshot) -> bool:
    """True when the bytes read look like a whole file, not a save caught halfway."""
    data = snapshot.data
    if data is None:
        return True
    data = _lf(data)
    if not data.endswith(b"\n"):
        return False
    total = _TOTAL_RE.search(data[:400])
    return total is None or data.count(_HEADING) >= int(total.group(1))


@functools.cache
def scrub_mark() -> str:
    """A short mark of the secret rules: a version the engine wrote carries the mark of the
    rules its memories were checked with, and a save trusts an unchanged memory of a version
    only if it carries today's (a newer rule makes the next save check every memory).

    The mark is taken from the source of the rules and of redaction itself, so a change to a
    rule's check or to how rules are applied counts as a new rule too."""
    from ..core import redaction, secrets
    from ..core.secrets import RULES

    digest = hashlib.sha256()
    try:
        sources = sorted(Path(secrets.__file__).parent.glob("*.py"))
        for source in [*sources, Path(redaction.__file__)]:
            digest.update(source.read_bytes())
    except (OSError, TypeError):  # no source beside the code: the rules' own shapes
        digest.update(repr([(r.kind, r.keywords, r.source, r.short) for r in RULES]).encode())
    return digest.hexdigest()[:16]


def _scrub_new(
    entries: Sequence[MemoryEntry],
    known: Mapping[str, tuple[MemoryEntry, bytes]],
    checked: set[int] | frozenset[int] = frozenset(),
) -> tuple[list[MemoryEntry], list[str]]:
    """``entries`` with secrets redacted (see :func:`scrub`), and the warnings, checking only
    the entries that are new or changed.

    ``known`` (a document's ``sources``) holds what a version the engine wrote said, each
    memory checked with today's rules when it was written: an entry whose content is its
    memory's there holds no secret (only the content is checked: a memory whose score alone
    changed, as decay changes every memory each day, is not checked again). ``checked``: the
    ``id()`` of entries checked already.
    """
    if not known and not checked:
        return _scrub(entries)
    # The entry each one was in ``known`` (None: not there), found by C loops: a file may
    # hold 100,000 memories, and most saves change one.
    olds = list(map(_FIRST, map(known.get, map(_ID, entries), repeat(_UNKNOWN))))
    others = compress(range(len(entries)), map(is_not, olds, entries))
    places = [
        n
        for n in others
        if ((old := olds[n]) is None or old.content != entries[n].content)
        and id(entries[n]) not in checked
    ]
    out = list(entries)
    warnings: list[str] = []
    checked_now = [(n, *_scrub([entries[n]])) for n in places]  # most saves: one or none
    for _, _, said in checked_now:
        warnings += said
    for n, kept, _ in reversed(checked_now):
        out[n : n + 1] = kept  # redacted in place, or gone when it held only a secret
    return out, warnings


def _scrub(entries: Sequence[MemoryEntry]) -> tuple[list[MemoryEntry], list[str]]:
    return scrub(entries, lambda e, text: e.replace(content=text), lambda e: f"memory [{e.id}]")


def _gone(before: list[str], after: list[str]) -> set[str]:
    """The ids of ``before`` that ``after`` lacks. A save changes a few memories of many, in
    place or moved a little: the ids both lists begin and end with alike are in both, and
    only those between are looked at (C loops; a file may hold 100,000 memories). An id
    only ``before`` holds between is looked for in all of ``after`` (a list may hold an id
    twice, at its ends too)."""
    head, tail = parsed.common_ends(before, after)
    between, others = before[head : len(before) - tail], after[head : len(after) - tail]
    if len(between) > _WINDOW or len(others) > _WINDOW:
        return set(before).difference(after)
    found = set(between).difference(others)
    return {i for i in found if i not in after}


#: At most this many ids between what two lists of ids begin and end with alike are looked
#: at one by one (see :func:`_gone`).
_WINDOW = 64


def _vanished(before: Document, after: Document) -> bool:
    """True when ``after`` lost many of ``before``'s entries at once."""
    lost = len(before.entries) - len(after.entries)
    return lost > max(2, len(before.entries) // 10)


def _side(base: list[str], ours: list[str], theirs: list[str]) -> list[str]:
    """A person's text beside the entries (preamble or notes), merged three ways: theirs
    where they changed it, else ours."""
    return theirs if theirs != base else ours


def _redact_blocks(blocks: list[str], where: str) -> tuple[list[str], list[str]]:
    """``blocks`` (a person's text beside the entries) with every secret redacted, and one
    warning per block that held one."""
    kept: list[str] = []
    warnings: list[str] = []
    for block in blocks:
        result = redact(block)
        if result.found:
            warnings.append(f"redacted {', '.join(result.found)} in {where}")
        kept.append(result.text)
    return kept, warnings
