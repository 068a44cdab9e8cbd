"""The versions of the file the engine has written or seen, and which came from which, so that
an editor's save made from an older copy is merged three ways from a true common ancestor.

A person opens MEMORY.md, the engine adds a memory, the person saves: their file lacks the new
memory only because their copy is older, not because they deleted it. When the file on disk is
not a version the engine wrote, it is kept here as a person's version, and its parent is taken
to be the kept version it differs from least, entry by entry (the copy it was most likely
edited from). Every version records its ancestors, so the merge base of the person's file and
the engine's newest version is the newest version that is an ancestor of both: never a version
only one side descends from, whose entries the other side would seem to have deleted. A
person's versions are links in that chain: a person saving many times while the engine keeps
failing to write still has their first copy's engine version as an ancestor.

When no common ancestor is kept (a copy opened before the oldest kept version), the merge
falls back to a union: what one side lacks is not taken as deleted, except the memories the
engine removed on purpose, which each version lists (its ``forgot``).

``.MEMORY.md.everbot/versions/`` keeps the engine's last :data:`KEEP` versions and the last
:data:`KEEP` versions people saved, compressed. Deleting it loses only this: an editor's save
from an older copy is then taken as it is.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gzip
import hashlib
import json
import os
import re
import time
import zlib
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path

from ..core.redaction import redact
from .atomic import digest, write_atomically
from .paths import SideFiles

__all__ = ["FORGOT_KEPT", "KEEP", "Journal", "Packing", "Version", "key", "without_secrets"]

#: How many of the engine's last versions are kept (and as many of people's versions).
KEEP = 16
#: How many of the engine's last removals each version carries.
FORGOT_KEPT = 1000

_PERSON = "-person"
#: A kept version starts with this, then one line of JSON (its ancestry), then the file's bytes.
#: A memory file never starts with a NUL byte, so a version kept without it reads as bytes only.
_MAGIC = b"\0"


def key(version: str) -> str:
    """How the journal names a version (the first 16 hex digits of its content hash)."""
    return version[:16]


@dataclass(frozen=True)
class Version:
    """One kept version: its key, when it was kept, who made it, and what it came from."""

    path: Path
    key: str
    time: int
    by_engine: bool
    #: Keys of the kept versions it descends from (as known when it was kept).
    ancestors: frozenset[str] = frozenset()
    #: Memories the engine removed on purpose in this version: id -> content fingerprint.
    forgot: Mapping[str, str] = field(default_factory=dict)
    #: The mark of the secret rules every memory of this version was checked with ("" for a
    #: version kept before versions recorded it, or by someone else).
    scrubbed: str = ""

    @classmethod
    def of(cls, path: Path) -> Version | None:
        """The version a journal file name describes (None: not a journal file)."""
        stem = path.name.removesuffix(".gz")
        by_engine = not stem.endswith(_PERSON)
        parts = stem.removesuffix(_PERSON).split("-")
        if len(parts) != 2 or not parts[0].isdigit():
            return None
        return cls(path, parts[1], int(parts[0]), by_engine)


class Packing:
    """A file's bytes being compressed for the journal on another thread, while the save goes
    on with other work (zlib lets other threads run while it compresses).

    A kept version is gzip members one after the other, its ancestry and then the file's
    bytes in pieces (see :func:`_pieces`), which ``gzip.decompress`` reads as one; the bytes
    can be compressed before the ancestry is known. ``base``: the version the bytes were
    made from, if the journal keeps it (its hash and bytes): a piece it holds as it is keeps
    its compressed bytes, not compressed again (a save changes a few memories of many).
    """

    def __init__(self, data: bytes, base: tuple[Path, bytes] | None = None) -> None:
        import threading

        self.data = data
        self._base = base
        self._packed: tuple[list[bytes | memoryview], list[list[int]]] | None = None
        self._thread = threading.Thread(target=self._run, name="journal-pack", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        # A failure here (out of memory) leaves _packed unset: result() compresses again
        # on the caller's thread, where the error is raised and handled.
        kept = None
        if self._base is not None:
            # A kept version that cannot be read so: every piece compressed.
            with contextlib.suppress(OSError, ValueError, TypeError, zlib.error):
                kept = _Kept(*self._base)
        with contextlib.suppress(Exception):
            self._packed = _pack_pieces(self.data, kept)

    def result(self) -> tuple[list[bytes | memoryview], list[list[int]]]:
        """The compressed bytes (gzip members) and their pieces (waits for the thread)."""
        self._thread.join()
        return _pack_pieces(self.data, None) if self._packed is None else self._packed


def _pack(data: bytes | memoryview) -> bytes:
    packer = zlib.compressobj(1, zlib.DEFLATED, 16 + zlib.MAX_WBITS)  # gzip, level 1
    return packer.compress(data) + packer.flush()


#: A kept version's bytes are compressed in pieces of at least this many bytes (a gzip
#: member each), each beginning where a memory does: see :func:`_pieces`.
_PIECE = 1 << 20
_HEADING = b"\n### ["


def _pieces(data: bytes) -> list[int]:
    """Where the pieces of ``data`` begin (0 first): each at a memory's heading at least
    :data:`_PIECE` bytes after the last, one whose first id bytes (a checksum of them) pick
    it, about one memory in 16. Where the pieces begin then depends on the memories, not on
    where they are: a memory added or changed changes its own piece, and the pieces after
    it begin where they began, so the next version keeps their compressed bytes."""
    cuts = [0]
    at = _PIECE
    while at < len(data):
        found = data.find(_HEADING, at)
        while found >= 0 and zlib.crc32(data[found + 6 : found + 14]) & 15:
            found = data.find(_HEADING, found + 1)
        if found < 0:
            break
        cuts.append(found + 1)  # the heading's line
        at = found + 1 + _PIECE
    return cuts


def _pack_pieces(
    data: bytes, kept: _Kept | None
) -> tuple[list[bytes | memoryview], list[list[int]]]:
    """``data`` compressed a piece at a time (see :func:`_pieces`): the gzip members, and
    each piece's size, compressed size and compressed checksum. A piece ``kept`` holds (the
    last version's, found by its size and start) with the same bytes is not compressed
    again: its compressed bytes are taken as they are. No piece is copied whole."""
    cuts = [*_pieces(data), len(data)]
    members: list[bytes | memoryview] = []
    sizes: list[list[int]] = []
    view = memoryview(data)
    for start, end in pairwise(cuts):
        member: bytes | memoryview | None = None
        if kept is not None:
            member = kept.member(data, start, end)
        if member is None:
            member = _pack(view[start:end])
        members.append(member)
        sizes.append([end - start, len(member), zlib.crc32(member)])
    return members, sizes


#: How many of a piece's first bytes look it up among the last version's (with its size).
_KEY = 256


class _Kept:
    """The pieces of a kept version (its file's bytes ``raw``, and the memory file's bytes
    ``data`` it holds), by size and start: where each is in ``data``, and its compressed
    bytes in ``raw``, each checked against the checksum its version recorded (a damaged one
    is compressed again, never carried on)."""

    def __init__(self, path: Path, data: bytes) -> None:
        self.data = data
        self.places: dict[tuple[int, bytes], tuple[int, memoryview]] = {}
        raw = path.read_bytes()
        # The ancestry, the first member: most often in the file's first bytes.
        stream = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
        head, fed = b"", 0
        while not stream.eof and fed < len(raw):
            head += stream.decompress(raw[fed : fed + _START_READ])
            fed += _START_READ
        if not stream.eof or not head.startswith(_MAGIC) or b"\n" not in head:
            return
        body = memoryview(raw)[min(fed, len(raw)) - len(stream.unused_data) :]
        try:
            meta = json.loads(head[1 : head.index(b"\n")])
        except ValueError:
            return  # a damaged record: everything is compressed again
        sizes = meta.get("pieces") if isinstance(meta, dict) else None
        if not isinstance(sizes, list) or not all(
            isinstance(s, list) and len(s) == 3 and all(type(x) is int for x in s) for s in sizes
        ):
            return
        if sum(s[0] for s in sizes) != len(data) or sum(s[1] for s in sizes) != len(body):
            return
        at = packed = 0
        for size, length, crc in sizes:
            member = body[packed : packed + length]
            if zlib.crc32(member) == crc:
                self.places[size, data[at : at + min(size, _KEY)]] = (at, member)
            at, packed = at + size, packed + length

    def member(self, data: bytes, start: int, end: int) -> memoryview | None:
        """The compressed bytes of ``data[start:end]`` when a kept piece holds those bytes."""
        found = self.places.get((end - start, data[start : start + min(end - start, _KEY)]))
        if found is None:
            return None
        at, member = found
        same = data.startswith(memoryview(self.data)[at : at + end - start], start)
        return member if same else None


#: How many bytes of a kept version are read for its start: its ancestry and the first of
#: the file's bytes fit in it, compressed.
_START_READ = 65_536


def without_secrets(data: bytes | None) -> bytes | None:
    """``data`` with every secret redacted, or None when it holds none (keep it as it is).

    The previous version kept as ``.bak`` and the versions journal are files too: a secret a
    person typed into MEMORY.md must not survive there once a save has redacted it.
    """
    if data is None:
        return None
    # Memory by memory: a secret never spans two, and the quick first look that passes over
    # most texts works on each (on the whole file, every rule's keywords were looked for in
    # all of it: seconds at 8,000 memories).
    parts = data.decode("utf-8", "surrogateescape").split("\n### ")
    found = False
    for n, part in enumerate(parts):
        result = redact(part)
        if result.found:
            parts[n], found = result.text, True
    return "\n### ".join(parts).encode("utf-8", "surrogateescape") if found else None


def _ancestry_line(raw: bytes) -> bytes | None:
    """The start of a kept version (``raw``: its first bytes, compressed) up to the end of
    its ancestry line, or as much of its start as there is when it has none; None when
    ``raw`` stops before the ancestry line ends (read more). Raises zlib.error."""
    stream = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    head = stream.decompress(raw, 4096)
    while head.startswith(_MAGIC) and b"\n" not in head and stream.unconsumed_tail:
        head += stream.decompress(stream.unconsumed_tail, 65536)
    if not stream.eof and b"\n" not in head and (head.startswith(_MAGIC) or not head):
        return None  # cut short by the read, not by the file
    return head


def _blocks(data: bytes) -> Counter[bytes]:
    """The file cut into entry blocks (at each ``### `` line), each by a short hash."""
    parts = data.split(b"\n### ")
    return Counter(hashlib.blake2b(part, digest_size=8).digest() for part in parts)


_STAMP = re.compile(rb"<!--\s*(?:Last updated|Total entries)\s*:[^>]*-->")


def _stamp(data: bytes) -> tuple[bytes, ...] | None:
    """The header the engine wrote (when, how many entries); an editor keeps it as it was."""
    found = tuple(_STAMP.findall(data[:400]))
    return found or None


def _difference(a: Counter[bytes], b: Counter[bytes]) -> int:
    return sum(((a - b) + (b - a)).values())


class Journal:
    """The versions folder beside one memory file."""

    def __init__(self, memory_path: str | os.PathLike[str], keep: int = KEEP) -> None:
        self.files = SideFiles.of(memory_path)
        self.folder = self.files.versions
        self.keep = keep

    # -- the folder

    def _versions(self) -> list[Version]:
        """Every kept version, newest first."""
        try:
            names = sorted(self.folder.glob("*.gz"), reverse=True)
        except OSError:
            return []
        return [v for v in map(Version.of, names) if v is not None]

    def _engine_versions(self) -> list[Version]:
        return [v for v in self._versions() if v.by_engine]

    def _find(self, version_key: str, versions: Iterable[Version]) -> Version | None:
        return next((v for v in versions if v.key == version_key), None)

    def _read(self, version: Version) -> bytes | None:
        """The file's bytes as kept (None: pruned by another writer meanwhile, or damaged)."""
        try:
            data = gzip.decompress(version.path.read_bytes())
        except (OSError, EOFError, gzip.BadGzipFile, zlib.error):
            return None
        if data.startswith(_MAGIC):
            return data[data.index(b"\n") + 1 :]
        return data

    def _start(self, version: Version) -> bytes:
        """The first bytes of the file as kept (its header stamp is there); b"" when it
        cannot be read."""
        try:
            with open(version.path, "rb") as handle:
                raw = handle.read(_START_READ)  # the rest is not needed for the start
            head = b""
            # The ancestry and the bytes are two gzip members: read on into the second.
            while raw and len(head) < 8192:
                stream = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
                head += stream.decompress(raw, 8192)
                if not stream.eof:
                    break
                raw = stream.unused_data
        except (OSError, zlib.error):
            return b""
        if head.startswith(_MAGIC):
            if b"\n" not in head or len(head) - head.index(b"\n") < 512:
                data = self._read(version)  # a long ancestry: read it whole
                return b"" if data is None else data[:1024]
            head = head[head.index(b"\n") + 1 :]
        return head[:1024]

    def _with_meta(self, version: Version) -> Version:
        """``version`` with its ancestry, read from the start of its file only."""
        try:
            with open(version.path, "rb") as handle:
                # The ancestry comes first, compressed on its own: most often the start of
                # the file holds it all (a large file's version is megabytes).
                raw = handle.read(_START_READ)
                head = _ancestry_line(raw)
                if head is None:
                    head = _ancestry_line(raw + handle.read()) or b""
        except (OSError, zlib.error):
            return version
        if not head.startswith(_MAGIC) or b"\n" not in head:
            return version  # kept before versions recorded their ancestry
        try:
            meta = json.loads(head[1 : head.index(b"\n")])
            ancestors = frozenset(str(a) for a in meta.get("ancestors", []))
            forgot = {str(k): str(v) for k, v in meta.get("forgot", {}).items()}
            scrubbed = str(meta.get("scrubbed", ""))
        except (ValueError, AttributeError):
            return version  # damaged: a version without ancestry only merges less well
        return dataclasses.replace(version, ancestors=ancestors, forgot=forgot, scrubbed=scrubbed)

    # -- recording

    def packing(self, data: bytes, since: str | None, before: bytes | None) -> Packing:
        """``data`` being compressed for :meth:`record`, made from the version ``since`` (its
        hash; ``before``: its bytes): when the engine wrote that version and the journal
        keeps it, the compressed pieces of it that ``data`` holds as they are are reused."""
        found = None if since is None else self._find(key(since), self._engine_versions())
        base = None if found is None or before is None else (found.path, before)
        return Packing(data, base)

    def record(
        self,
        data: bytes,
        *,
        parents: Iterable[str | None] = (),
        forgot: Mapping[str, str] | None = None,
        version: str | None = None,
        by_engine: bool = True,
        scrubbed: str = "",
        packed: Packing | None = None,
    ) -> Path | None:
        """Keep ``data`` as the newest version, descending from ``parents`` (versions, as
        content hashes), and drop the oldest beyond :data:`KEEP` of its kind.

        ``version`` names it when ``data`` is not the exact bytes (a copy with secrets
        redacted). A version someone else wrote (``by_engine=False``) is a likely base for
        their next save, but is not one the engine wrote: :meth:`knows` does not count it.
        ``scrubbed``: the mark of the secret rules its memories were all checked with (see
        :meth:`scrubbed`). ``packed``: ``data`` already being compressed. Returns the file
        kept, for :meth:`discard`; None when it was already kept, or the folder cannot be
        written (the journal only improves merges: that costs only that).
        """
        name_key = key(version or digest(data) or "")
        versions = self._versions()
        newest = next((v for v in versions if v.by_engine == by_engine), None)
        if newest is not None and newest.key == name_key:
            return None  # the newest already (with the ancestry it had then)
        # The same bytes as an older version (a memory added, then removed, within the same
        # second's stamp) are kept again as the newest: with what this save removed, and what
        # it came from. Otherwise the older copy would stand for it, and the removal would be
        # forgotten: a later merge would bring the memory back.
        parent_keys = [key(p) for p in parents if p is not None]
        ancestors, inherited = self._ancestry(parent_keys, versions)
        meta: dict[str, object] = {"parents": parent_keys, "ancestors": sorted(ancestors)}
        if scrubbed:
            meta["scrubbed"] = scrubbed
        inherited.update(forgot or {})
        if inherited:
            meta["forgot"] = dict(list(inherited.items())[-FORGOT_KEPT:])
        mark = "" if by_engine else _PERSON
        path = self.folder / f"{time.time_ns():020d}-{name_key}{mark}.gz"
        try:
            self.files.ensure()
            self.folder.mkdir(mode=0o700, exist_ok=True)
            body, meta["pieces"] = _pack_pieces(data, None) if packed is None else packed.result()
            header = _MAGIC + json.dumps(meta, separators=(",", ":")).encode("ascii") + b"\n"
            write_atomically(path, [_pack(header), *body])
        except OSError:
            return None
        self._prune([Version(path, name_key, 0, by_engine), *versions])
        return path

    def _ancestry(
        self, parents: list[str], versions: list[Version]
    ) -> tuple[set[str], dict[str, str]]:
        """The kept versions that ``parents`` are or descend from, and what the engine
        removed on purpose in them (carried on, so it outlives the versions that did it)."""
        kept = {v.key for v in versions}
        found: set[str] = set()
        forgot: dict[str, str] = {}
        for parent in parents:
            version = self._find(parent, versions)
            if version is None:
                continue
            found.add(parent)
            version = self._with_meta(version)
            found |= version.ancestors & kept
            forgot.update(version.forgot)
        return found, forgot

    def _prune(self, versions: list[Version]) -> None:
        engine = [v for v in versions if v.by_engine]
        person = [v for v in versions if not v.by_engine]
        for old in [*engine[self.keep :], *person[self.keep :]]:
            with contextlib.suppress(OSError):  # removed by another writer meanwhile
                old.path.unlink(missing_ok=True)

    def discard(self, path: Path | None) -> None:
        """Forget a version recorded for a write that did not happen (no one can have read
        it, so no one's save descends from it)."""
        if path is not None:
            with contextlib.suppress(OSError):
                path.unlink(missing_ok=True)

    def observe(self, data: bytes, version: str | None = None) -> None:
        """Keep a version someone else wrote (found on disk, or set aside by a write), with
        its likeliest parent: the copy it was edited from. ``version``: its content hash,
        when already known. Secrets in it are kept redacted.

        The parent is the kept version it differs from least, entry by entry, among those
        with the same header stamp (when the engine last wrote, and how many entries it
        wrote): an editor saves the header of the copy it opened, so a version with another
        stamp is not that copy. Were the copy itself pruned, its nearest kept descendant
        would look like its parent, and what the engine added since would look deleted; so
        with no kept version of the same stamp there is no parent (the merge then takes
        fields from :meth:`nearest_ancestor`).
        """
        version = version or digest(data) or ""
        versions = self._versions()
        if any(v.key == key(version) for v in versions):
            return  # seen before (or the engine's own)
        stamp = _stamp(data)
        best: tuple[int, str] | None = None  # (difference, key)
        if stamp is not None:
            mine = _blocks(data)
            # Only a version of the same stamp can be the parent: read each one's start first
            # (a whole read of every kept version cost seconds at 8,000 memories).
            for candidate in versions:
                if _stamp(self._start(candidate)) != stamp:
                    continue
                theirs = self._read(candidate)
                if theirs is None:
                    continue
                difference = _difference(mine, _blocks(theirs))
                if best is None or difference < best[0]:  # the newest, on a tie
                    best = (difference, candidate.key)
        parents = [] if best is None else [best[1]]
        kept = without_secrets(data) or data
        self.record(kept, parents=parents, version=version, by_engine=False)

    def descends(self, data: bytes, mine: bytes, *others: bytes) -> None:
        """Keep ``data``, a version made elsewhere (git merged or pulled it), as coming from
        ``mine`` (this clone's copy before) and ``others``.

        Each copy the journal never saw (a person's edit committed without the engine reading
        it) is kept first, with its own likeliest parent, so that ``data`` still descends from
        the engine's versions: the engine's next save then merges from a true common ancestor
        instead of keeping what either side holds.
        """
        for copy in (mine, *others):
            # Both: in a rebase git gives the other machine's copy as "ours" and this clone's
            # commit as "theirs".
            self.observe(copy)
        parents = [digest(p) for p in (mine, *others)]
        kept = without_secrets(data) or data
        self.record(kept, parents=parents, version=digest(data), by_engine=False)

    # -- asking

    def knows(self, version: str | None) -> bool:
        """True when the engine wrote this version (or there is no journal to ask)."""
        return version is None or not self._engine_versions() or self.wrote(version)

    def wrote(self, version: str | None) -> bool:
        """True when this is one of the versions the engine itself wrote (complete by
        construction: the engine never writes in place)."""
        if version is None:
            return False
        return self._find(key(version), self._engine_versions()) is not None

    def scrubbed(self, version: str | None) -> str | None:
        """The mark of the secret rules the engine checked every memory of ``version`` with
        when it wrote it ("" when it did not say); None when the engine did not write it."""
        if version is None:
            return None
        found = self._find(key(version), self._engine_versions())
        return None if found is None else self._with_meta(found).scrubbed

    def head(self) -> tuple[str, bytes] | None:
        """The engine's newest version: its key and its bytes."""
        for version in self._engine_versions():
            data = self._read(version)
            if data is not None:
                return version.key, data
        return None

    def common_ancestor(self, a: str, b: str) -> bytes | None:
        """The newest kept version that is ``a`` or ``b`` or an ancestor of both (None: no
        such version is kept)."""
        versions = self._versions()
        lines: list[set[str]] = []
        for one in (a, b):
            found = self._find(key(one), versions)
            line = {key(one)}
            if found is not None:
                line |= self._with_meta(found).ancestors
            lines.append(line)
        common = lines[0] & lines[1]
        for version in versions:  # newest first
            if version.key in common:
                data = self._read(version)
                if data is not None:
                    return data
        return None

    def forgotten(self) -> dict[str, str]:
        """What the engine removed on purpose lately (its last :data:`FORGOT_KEPT` removals,
        carried from version to version): id -> fingerprint of what it said."""
        removed: dict[str, str] = {}
        for version in reversed(self._engine_versions()):
            removed.update(self._with_meta(version).forgot)
        return removed

    def nearest_ancestor(self, head: str, data: bytes) -> bytes | None:
        """Of ``head`` and its kept ancestors, the version ``data`` differs least from,
        entry by entry (the newest, on a tie); None when none is kept.

        For merging fields when ``data`` shares no known ancestor with ``head``: what
        ``head`` changed since that version is the engine's own change. (The version
        ``data`` was itself made from may be one ``head`` does not descend from, such as a
        copy pulled from another machine: a field ``head`` holds differently from it is then
        not a change of ``head``'s, and may well be older.)
        """
        versions = self._versions()
        found = self._find(key(head), versions)
        if found is None:
            return None
        line = self._with_meta(found).ancestors | {found.key}
        mine = _blocks(data)
        best: tuple[int, bytes] | None = None
        for version in versions:  # newest first
            if version.key not in line:
                continue
            kept = self._read(version)
            if kept is None:
                continue
            difference = _difference(mine, _blocks(kept))
            if best is None or difference < best[0]:
                best = (difference, kept)
        return None if best is None else best[1]
