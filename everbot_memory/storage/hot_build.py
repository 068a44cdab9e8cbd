"""Building the hooks' caches (see :mod:`.hot`) for a version of the file a save writes.

A save pays for what it changed. A save of a change to the version it read (or wrote)
splices: each memory it did not change keeps its line of the last search file as it is
(bytes, not decoded), a memory it changed or added gets a new line, and the session-start
lines are the last ones with the change applied (:mod:`.hot_patch`). Otherwise
each memory's part of the two files (its row, its search tokens, its score until the next
day of its decay) is kept by the process and reused while the memory is the same; a process
that built nothing yet takes the rows of the version it read from the search file, by memory
id, and any other memory's line and tokens by its content's hash. Either way the files are
what a build from nothing gives (``tests/test_hot.py`` checks it on random edit sequences).
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, NamedTuple

from ..core import ranking
from ..core.entry import MemoryEntry
from .hot import PROMPT_FILE, SEARCH_FILE, VERSION, file_digest
from .paths import SideFiles

__all__ = [
    "LINES_FILE",
    "Built",
    "Span",
    "build",
    "decay_day",
    "prepare",
    "read_at",
    "read_lines",
    "signature",
    "write",
]

#: Beside the search file, for the next save only: each memory's id and line size.
LINES_FILE = "hook-lines"
#: Where it was kept before its ids and sizes were in marshal's format: removed when seen.
_OLD_LINES_FILE = "hook-lines.json"

_DAY = 86_400


def _profile_parts(
    lines: Sequence[str], group_of: Callable[[str], str], made: Sequence[str] | None = None
) -> tuple[list[str], list[list[str]]]:
    """The profile as the session-start block shows it (data, made safe), and beside each
    shown line the groups of the memories it came from (for a filter), from one pass over
    the same items, so the two lists always line up. ``made``: the texts made from the
    same ``lines`` before (only the groups are looked up again)."""
    from ..core.block import unseen_removed
    from ..core.profile import shown, sources_of
    from ..core.redaction import redact

    texts: list[str] = []
    groups: list[list[str]] = []
    for item in lines:
        for text in shown([item]):  # an item shows as one line, or none (a hidden label)
            if made is None:
                texts.append(unseen_removed(redact(text).text))
            groups.append(sorted({group_of(i) for i in sources_of(item)}))
    return (texts if made is None else list(made)), groups


def _profile_key(lines: Sequence[str]) -> str:
    """What the profile's texts are made from, as a hash (to know them the same)."""
    import hashlib

    joined = "\x00".join(lines).encode("utf-8")
    return hashlib.blake2b(joined, digest_size=12).hexdigest()


def _memo_key(content: str) -> str:
    import hashlib

    return hashlib.blake2b(content.encode("utf-8"), digest_size=12).hexdigest()


class _Part:
    """One memory's share of the two files, kept between the saves of a process: a memory
    that did not change is neither redacted, tokenized nor formatted again, and its score is
    worked out again only when a day of its decay has passed."""

    __slots__ = (
        "_json",
        "anchored",
        "entry",
        "expires",
        "group",
        "hidden",
        "indexed",
        "key",
        "length",
        "order",
        "replaced",
        "row",
        "score",
        "since",
        "until",
    )

    def __init__(self, entry: MemoryEntry, replaced: bool, key: str, row: str, indexed: str):
        base_score, base_at = entry.anchor
        self.entry, self.replaced, self.key = entry, replaced, key
        #: The memory's row and its line of the search tokens (see SearchRows).
        self.row, self.indexed = row, indexed
        self.anchored = (base_score, base_at.timestamp(), entry.last_activated.timestamp())
        self.length = indexed.count(" ") - 1 if len(indexed) > 3 else 0
        self.expires = entry.expires_at
        self.hidden = bool(entry.condensed_into)
        self.group = entry.group or "none"
        self.order = (entry.created_at, entry.id)  # ties of the prompt's order (file order)
        self._json: bytes | None = None
        self.score, self.since, self.until = 0.0, 0.0, -1.0

    @property
    def line(self) -> str:
        """The memory's display line (the row's last field)."""
        return self.row.split("\t", 7)[7]

    @classmethod
    def made(cls, entry: MemoryEntry, replaced: bool, key: str, line: str, joined: str) -> _Part:
        """The part of ``entry``, whose display line and search tokens are ``line`` and
        ``joined``."""
        base_score, base_at = entry.anchor
        fields = (
            entry.id,
            repr(base_score),
            repr(base_at.timestamp()),
            repr(entry.last_activated.timestamp()),
            "1" if replaced else "0",
            entry.category,
            entry.group or "",
            line,
        )
        return cls(entry, replaced, key, "\t".join(fields), f" {joined} \n")

    def json(self) -> bytes:
        """The memory's line of the search file: its row, token line, content hash and
        token count, four values of the file's list (one line: JSON escapes a line break);
        made once."""
        if self._json is None:
            self._json = b"".join(
                (
                    _string(self.row),
                    b",",
                    _string(self.indexed),
                    b",",
                    _string(self.key),
                    b",%d" % self.length,
                )
            )
        return self._json

    def score_at(self, stamp: float) -> float:
        """``ranking.decayed`` at ``stamp``; the same for the rest of the day of decay."""
        if not self.since < stamp < self.until:
            self.score = ranking.decayed(*self.anchored, stamp)
            # Decay moves by whole days since the last activation: the score holds until the
            # next of them (a second short of each end, so float rounding never matters).
            self.since, self.until = decay_day(self.anchored[2], stamp)
        return self.score

    def shown(self, now: datetime) -> bool:
        """Not expired and not condensed into another: a prompt may show it."""
        return not self.hidden and (self.expires is None or self.expires > now)


def decay_day(last: float, stamp: float) -> tuple[float, float]:
    """The day of decay ``stamp`` is in, for a memory last activated at ``last``: decay moves
    by whole days since the activation, so its score holds from a second after the start of
    that day to a second before its end (float rounding never matters)."""
    start = last + (stamp - last) // _DAY * _DAY
    return start + 1.0, start + _DAY - 1.0


def _prompt_key(part: Any) -> tuple[float, datetime, str]:
    """The prompt's order of a part (or anything with its ``score`` and ``order``)."""
    return (-part.score, *part.order)


def _group_part(chosen: Sequence[Any], total: int) -> dict[str, Any]:
    """A group's share of the session-start lines: its strongest, their scores, its count."""
    return {
        "lines": [p.line for p in chosen],
        "ids": [p.entry.id for p in chosen],
        "scores": [round(p.score, 6) for p in chosen],
        "total": total,
    }


#: What the last build in this process made for each memory, by memory file and entry id.
_BUILT: dict[str, dict[str, _Part]] = {}
_BUILT_FILES = 8


#: What a new process knows of the last build from its files: each row, token line, content
#: hash and replaced flag by memory id, and the entries of the version they were built for.
_Seed = tuple[dict[str, tuple[str, str, str, bool]], dict[str, "MemoryEntry"]]


def _parts(
    entries: Sequence[MemoryEntry],
    memo: Mapping[str, list[str]],
    built: dict[str, _Part],
    seed: _Seed | None = None,
) -> list[_Part]:
    """Each entry's part: the one ``built`` holds while the entry is the same, else its row
    from ``seed`` when it is an entry of the version the seed was built for, else made anew
    (its line and tokens from ``memo`` by its content's hash, when there)."""
    rows, base = seed or ({}, {})
    replaced = {old for entry in entries for old in entry.replaces}
    parts: list[_Part] = []
    keep, get = parts.append, built.get  # on every memory of every save
    for entry in entries:
        flag = entry.id in replaced
        part = get(entry.id)
        if part is not None and part.replaced is flag:
            known = part.entry
            if known is entry or known == entry:
                keep(part)
                continue
        if base.get(entry.id) is entry:
            row = rows.get(entry.id)
            if row is not None and row[3] is flag:
                keep(_Part(entry, flag, row[2], row[0], row[1]))
                continue
        keep(_made(entry, flag, memo))
    return parts


def _made(entry: MemoryEntry, flag: bool, memo: Mapping[str, list[str]]) -> _Part:
    """``entry``'s part made anew (``flag``: another memory replaces it): its display line
    and search tokens from ``memo`` by its content's hash, when there."""
    from ..core import prompt
    from ..core.redaction import redact
    from ..core.text import search_tokens

    content_key = _memo_key(entry.content)
    found = memo.get(content_key)
    if isinstance(found, list) and len(found) == 2:
        line, joined = found
    else:
        # Secrets a person typed into the file are neither indexed nor shown.
        joined = " ".join(search_tokens(redact(entry.content).text))
        [line] = prompt.memory_lines([entry])
    return _Part.made(entry, flag, content_key, line, joined)


def _by_group(parts: Sequence[_Part], now: datetime) -> dict[str, Any]:
    """For each group (``none``: memories without one), the strongest lines a session-start
    block filtered to that group shows, with their scores (each part's score at ``now``), so
    a filter of several groups merges them without the file."""

    from ..core.rules import PROMPT_MIN_SCORE

    grouped: dict[str, list[_Part]] = {}
    for part in parts:
        grouped.setdefault(part.group, []).append(part)
    out: dict[str, Any] = {}
    for name, members in grouped.items():
        everyone = [p for p in members if p.score >= PROMPT_MIN_SCORE and p.shown(now)]
        if not everyone:
            continue
        out[name] = _group_part(_strongest(everyone), len(everyone))
    return out


def build(
    data: bytes,
    entries: Sequence[MemoryEntry],
    now: datetime,
    memo: Mapping[str, list[str]] | None = None,
    profile: Sequence[str] = (),
    built: dict[str, _Part] | None = None,
    sha256: str | None = None,
    seed: _Seed | None = None,
) -> tuple[dict[str, Any], dict[str, Any], list[_Part], dict[str, _Part], float]:
    """The contents of the two files for a memory file of ``data`` holding ``entries``, and
    each memory's part of them, in order and by id. ``sha256``: the hash of ``data``, when
    known already.

    ``memo`` is the last save's (each memory's display line and search tokens by its
    content's hash), ``built`` the parts the last build in this process made, ``seed`` the
    rows of the last build's files (see :func:`_read_rows`): a memory that did not change is
    neither redacted nor tokenized again, so a save of a large file pays only for what it
    changed. Either way the result is what a build from nothing gives.
    """
    from itertools import accumulate

    from ..core.rules import DAILY_DECAY, PROMPT_MIN_SCORE

    parts = _parts(entries, {} if memo is None else memo, built or {}, seed)
    # A memory one day of decay above the floor: the files' total changes when it decays.
    near = PROMPT_MIN_SCORE / DAILY_DECAY + 1e-9
    stamp = now.timestamp()
    # When what is built now stops being right: the next UTC midnight (scores decay by the
    # day), or the next expiry of a memory if that comes first.
    until = (stamp // _DAY + 1) * _DAY
    eligible: list[_Part] = []
    worth = 0
    steady = until  # see below
    for part in parts:  # every memory of every save: the score's own check inlined
        score = part.score if part.since < stamp < part.until else part.score_at(stamp)
        expires = part.expires
        if expires is not None:
            at = expires.timestamp()
            if stamp < at < until:
                until = at
            if expires <= now:
                continue
        if score >= PROMPT_MIN_SCORE:
            worth += 1
            if score < near and part.until < steady:
                steady = part.until
            if not part.hidden:
                eligible.append(part)
    chosen = _strongest(eligible)
    by_id = {p.entry.id: p for p in parts}
    groups = _by_group(parts, now) if any(p.entry.group for p in parts) else {}
    key = {
        "version": VERSION,
        "sha256": sha256 or file_digest(data),
        "built": (stamp // _DAY) * _DAY,
        "until": until,
    }
    profile_texts, profile_groups = _profile_parts(profile, _groups_of(by_id))
    prompt_part = {
        **key,
        "lines": [p.line for p in chosen],
        "ids": [p.entry.id for p in chosen],
        "total": worth,
        "groups": groups,
        "profile": profile_texts,
        "profile_of": _profile_key(profile),
        # The groups of the memories each shown profile line came from, for a filter.
        "profile_groups": profile_groups,
    }
    lengths = [p.length for p in parts]
    indexed = [p.indexed for p in parts]
    search_part = {
        **key,
        "rows": [p.row for p in parts],
        "tokens": "".join(indexed),
        "starts": list(accumulate(map(len, indexed[:-1]), initial=0)) if parts else [],
        "lengths": lengths,
        "average": (sum(lengths) / len(lengths)) if lengths else 0.0,
    }
    # Until when a save may splice the change it makes into these files (see
    # :mod:`.hot_patch`): while no memory shown decays (they would rank anew) and none counted
    # falls below the floor, a build at any moment gives the same lines and counts.
    for shown in (chosen, *([by_id[i] for i in g["ids"]] for g in groups.values())):
        steady = min([steady, *(p.until for p in shown)])
    return prompt_part, search_part, parts, by_id, steady


def _strongest(eligible: list[Any]) -> list[Any]:
    """The prompt's memories: the strongest first, ties in file order, at most top-k
    (what sorting them all gives, sorting only the few that can be among them)."""
    from ..core.rules import PROMPT_TOP_K

    if len(eligible) > PROMPT_TOP_K:
        import heapq

        floor = heapq.nlargest(PROMPT_TOP_K, [p.score for p in eligible])[-1]
        eligible = [p for p in eligible if p.score >= floor]
    return sorted(eligible, key=_prompt_key)[:PROMPT_TOP_K]


def write(
    memory_path: str | os.PathLike[str],
    data: bytes,
    entries: Sequence[MemoryEntry],
    now: datetime | None = None,
    profile: Sequence[str] = (),
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Build the two files for the file just written and write them; a folder that cannot
    be written costs the next hook a rebuild, nothing else. Returns what was built."""
    built = prepare(memory_path, data, entries, now, profile)
    built.put()
    return built.prompt, built.search


class Span(NamedTuple):
    """Bytes ``start`` to ``end`` of the file at ``path`` as it was when read (``seen``: its
    :func:`signature` then): a run of the last search file's lines, copied into the new one
    a piece at a time when it is written, not held (a large file's search file is tens of
    MB). The hooks' files are only ever replaced whole (a hook that rebuilds them renames
    new ones in place): a file with another signature is another file."""

    path: Path
    start: int
    end: int
    seen: tuple[int, int, int]


def signature(handle: Any) -> tuple[int, int, int]:
    """What tells one file from another at the same path, or the same file written since:
    the inode, size and time of the last write of the file open as ``handle``."""
    info = os.fstat(handle.fileno())
    return info.st_ino, info.st_size, info.st_mtime_ns


def read_at(path: Path, seen: tuple[int, int, int], start: int, size: int) -> bytes:
    """``size`` bytes from ``start`` of the file at ``path``, while it is the file whose
    :func:`signature` was ``seen``; OSError when it is another, or shorter."""
    with open(path, "rb") as handle:
        if signature(handle) != seen:
            raise OSError(f"{path} changed since it was read")
        data = os.pread(handle.fileno(), size, start)
    if len(data) != size:
        raise OSError(f"{path} is shorter than it was")
    return data


#: How many bytes of a :class:`Span` are read at a time.
_CHUNK = 1 << 20


def _chunks(
    pieces: Iterable[bytes | memoryview | Span], crc: list[int]
) -> Iterator[bytes | memoryview]:
    """The bytes of ``pieces`` one after the other (a span's read a megabyte at a time), and,
    once all are given, their checksum (``zlib.crc32``) in ``crc[0]``. OSError when a span's
    file no longer holds its bytes."""
    import zlib

    checksum = 0
    with contextlib.ExitStack() as stack:
        opened: dict[tuple[Path, tuple[int, int, int]], int] = {}  # each file opened once
        for piece in pieces:
            if not isinstance(piece, Span):
                checksum = zlib.crc32(piece, checksum)
                yield piece
                continue
            fd = opened.get((piece.path, piece.seen))
            if fd is None:
                handle = stack.enter_context(open(piece.path, "rb"))
                if signature(handle) != piece.seen:
                    raise OSError(f"{piece.path} changed since it was read")
                fd = opened[piece.path, piece.seen] = handle.fileno()
            for at in range(piece.start, piece.end, _CHUNK):
                size = min(_CHUNK, piece.end - at)
                chunk = os.pread(fd, size, at)
                if len(chunk) != size:
                    raise OSError(f"{piece.path} is shorter than it was")
                checksum = zlib.crc32(chunk, checksum)
                yield chunk
    crc[0] = checksum


class Built:
    """The hooks' files built for one version of a memory file, to write once it is on disk."""

    def __init__(
        self,
        files: SideFiles,
        prompt: dict[str, Any],
        search: dict[str, Any] | None,
        parts: list[_Part],
        search_file: list[bytes | memoryview | Span] | None = None,
        lines: tuple[list[str], list[int]] | None = None,
        steady: float = 0.0,
    ) -> None:
        self.files, self.prompt, self._parts = files, prompt, parts
        self._search = search
        #: The search file's pieces (bytes, and runs of the last file's), when spliced from
        #: the last one (``search`` is then made from them when asked), and each memory's id
        #: and line size.
        self._search_file, self._lines = search_file, lines
        #: Until when the next save may splice these files (see :func:`build`).
        self.steady = steady
        #: Each file and the temp file its bytes wait in (see :meth:`stage`), once staged.
        self._staged: list[tuple[Path, Path]] | None = None
        #: Where the search file's bytes are once staged (its temp file, then the file).
        self._search_at: Path | None = None

    @property
    def search(self) -> dict[str, Any]:
        """The search index as :func:`build` gives it."""
        if self._search is None:
            if self._search_file is None and self._search_at is not None:
                self._search_file = [self._search_at.read_bytes()]
            assert self._search_file is not None
            whole = b"".join(_chunks(self._search_file, [0]))
            self._search = _search_part(json.loads(whole))
        return self._search

    def _payloads(
        self,
    ) -> tuple[bytes, list[bytes | memoryview | Span], tuple[list[str], list[int]]]:
        """The prompt file's bytes, the search file's pieces, each memory's id and line size."""
        search, lines = self._search_file, self._lines
        if search is None or lines is None:
            encoded = [p.json() for p in self._parts]
            search = list(_search_file(self.search, encoded))
            lines = ([p.entry.id for p in self._parts], [len(e) for e in encoded])
        return _encoded(self.prompt), search, lines

    def stage(self) -> None:
        """Write the files' bytes now, each to a temp file beside it, for :meth:`put` to
        rename: a save lets go of what they are made from (the last search file, tens of MB
        for a large file, whose runs of lines are copied a piece at a time) before it
        writes the memory file. A folder that cannot be written stages nothing, and costs
        the next hook a rebuild."""
        from .atomic import temp_file

        if self._staged is not None:
            return
        staged: list[tuple[Path, Path]] = []
        try:
            prompt, search, lines = self._payloads()
            # Checked by their key when read, and rebuilt when they do not check out: a
            # power cut that empties one costs a rebuild, so they are not fsynced.
            path = self.files.hook_file(PROMPT_FILE)
            staged.append((path, temp_file(path, prompt, durable=False)))
            path = self.files.hook_file(SEARCH_FILE)
            crc = [0]  # the search file's checksum, once written
            staged.append((path, temp_file(path, _chunks(search, crc), durable=False)))
            beside = _lines_file(self.prompt["sha256"], *lines, self.steady, prompt, crc[0])
            # Last: one that does not match the files beside it is not used.
            path = self.files.hook_file(LINES_FILE)
            staged.append((path, temp_file(path, beside, durable=False)))
        except OSError:
            self._staged = staged
            self.discard()
            return
        self._staged = staged
        self._search_at = staged[1][1]
        self._search_file = None  # read back if asked for

    def discard(self) -> None:
        """Remove what :meth:`stage` wrote (the memory file was not written)."""
        for _, tmp in self._staged or []:
            with contextlib.suppress(OSError):  # gone already
                tmp.unlink()
        self._staged = []

    def put(self) -> None:
        """Put the files in place, writing them first if :meth:`stage` did not (a folder that
        cannot be written costs the next hook a rebuild)."""
        with contextlib.suppress(OSError):  # left by an older version, if any
            self.files.hook_file(_OLD_LINES_FILE).unlink()
        self.stage()
        staged, self._staged = self._staged or [], []
        for number, (path, tmp) in enumerate(staged):
            try:
                os.replace(tmp, path)
            except OSError:
                self._staged = staged[number:]
                self.discard()
                return
            if tmp == self._search_at:
                self._search_at = path


def prepare(
    memory_path: str | os.PathLike[str],
    data: bytes,
    entries: Sequence[MemoryEntry],
    now: datetime | None = None,
    profile: Sequence[str] = (),
    sha256: str | None = None,
    base: tuple[str, Sequence[MemoryEntry]] | None = None,
) -> Built:
    """Build the two files for a memory file of ``data`` holding ``entries`` (``sha256``:
    the hash of ``data``, when known), to :meth:`Built.put` once ``data`` is on disk.

    What the last build in this process made for the same file is reused for the memories
    that did not change; a process that built none reads the rows the last build left: by
    id when they were built for ``base``'s version (a hash, and its entries as parsed or
    written), else by the hash of each memory's text. (A save splices instead when it can:
    :func:`.hot_patch.prepare`.)
    """
    from datetime import datetime, timezone

    files = SideFiles.of(memory_path)
    name = str(files.target)
    known = _BUILT.pop(name, None)
    now = now or datetime.now(timezone.utc)
    sha256 = sha256 or file_digest(data)
    memo, seed = _read_rows(files, base) if known is None else ({}, None)
    prompt_part, search_part, parts, by_id, steady = build(
        data, entries, now, memo, profile, known, sha256, seed
    )
    while len(_BUILT) >= _BUILT_FILES:
        _BUILT.pop(next(iter(_BUILT)))
    # Each part holds only what its entry says, so keeping them is right even if this
    # version is never written.
    _BUILT[name] = by_id
    return Built(files, prompt_part, search_part, parts, steady=steady)


def _groups_of(by_id: Mapping[str, _Part]) -> Callable[[str], str]:
    """A memory's group by its id ("none": no group, or no such memory)."""

    def group(entry_id: str) -> str:
        part = by_id.get(entry_id)
        return "none" if part is None else part.group

    return group


def _search_file(
    part: Mapping[str, Any], pieces: Sequence[bytes | memoryview | Span]
) -> list[bytes | memoryview | Span]:
    """The search file: a line of its key, then a line per memory (each its
    :meth:`_Part.json`; ``pieces`` are lines, or runs of lines joined by ``",\\n"``), as one
    JSON object."""
    head = {k: part[k] for k in ("version", "sha256", "built", "until", "average")}
    head["length"] = sum(part["lengths"]) if "lengths" in part else part["length"]
    # Its pieces, written one after the other (a file of 100,000 memories is tens of MB,
    # not to be copied to be joined): each piece, and a separator between two.
    body: list[bytes | memoryview | Span] = [b",\n"] * (2 * len(pieces) - 1) if pieces else []
    body[::2] = pieces
    return [_encoded(head)[:-1], b',"rows":[\n', *body, b"\n]}"]


def _lines_file(
    sha256: str,
    ids: list[str],
    sizes: list[int],
    steady: float,
    prompt: bytes,
    crc: int,
) -> bytes:
    """Beside the hooks' files (the hooks never read it), for the next save to splice them:
    each memory's id and the size of its line, in order, until when a splice is right, and
    a checksum of each file (``crc``: the search file's; one changed since, by hand or by
    damage, is built anew, not carried on); its first line, a checksum of the rest."""
    import marshal
    import zlib
    from array import array

    head = {"version": VERSION, "lines": _LINES_FORMAT, "sha256": sha256, "steady": steady}
    head["prompt_crc"], head["search_crc"] = zlib.crc32(prompt), crc
    # The ids and sizes (100,000 of each for a large file) in marshal's format, the sizes as
    # 8-byte numbers: read back in C, not as JSON.
    places = marshal.dumps((list(ids), array("q", sizes)), 2)
    body = _encoded(head) + b"\n" + places
    return b"%08x\n" % zlib.crc32(body) + body


def read_lines(data: bytes | None) -> dict[str, Any] | None:
    """What :func:`_lines_file` wrote, or None when it is not that, whole."""
    import marshal
    import zlib
    from array import array

    if data is None or data[8:9] != b"\n" or b"%08x" % zlib.crc32(data[9:]) != data[:8]:
        return None
    cut = data.find(b"\n", 9)
    try:
        found = json.loads(data[9:cut])
        if not isinstance(found, dict) or found.get("version") != VERSION:
            return None
        if found.get("lines") != _LINES_FORMAT:
            return None
        ids, sizes = marshal.loads(data[cut + 1 :])
        found["ids"], found["sizes"] = ids, array("q", sizes)
    except (ValueError, TypeError, EOFError):
        return None
    return found


#: Bumped when the ids and sizes beside the hooks' files change form.
_LINES_FORMAT = 2


def _search_part(cached: dict[str, Any]) -> dict[str, Any]:
    """What :func:`build` makes for the search file, from the file's content."""
    from .hot import SearchRows

    index = SearchRows.from_file(cached)
    return {
        **{k: cached[k] for k in ("version", "sha256", "built", "until")},
        "rows": index.rows,
        "tokens": index.text,
        "starts": index.starts,
        "lengths": index.lengths,
        "average": index.average,
    }


def _read_file(files: SideFiles, name: str) -> bytes | None:
    try:
        with open(files.hook_file(name), "rb") as handle:
            return handle.read()
    except OSError:
        return None


def _read_rows(
    files: SideFiles, base: tuple[str, Sequence[MemoryEntry]] | None = None
) -> tuple[Mapping[str, list[str]], _Seed | None]:
    """What the search file the last build wrote tells a process that built nothing yet:
    each memory's display line and search tokens by its content's hash, and, when it was
    built for ``base``'s version, each row by memory id beside ``base``'s entries."""
    data = _read_file(files, SEARCH_FILE)
    if data is None:
        return {}, None
    try:
        search = json.loads(data)
        if search["version"] != VERSION:
            return {}, None
        by_id: dict[str, tuple[str, str, str, bool]] = {}
        items = iter(search["rows"])
        for row, indexed, content_key, _ in zip(items, items, items, items, strict=True):
            fields = str(row).split("\t", 5)
            by_id[fields[0]] = (str(row), str(indexed), str(content_key), fields[4] == "1")
        rows = len(search["rows"]) // 4
    except (ValueError, KeyError, TypeError, IndexError, AttributeError):
        return {}, None
    found = _Memo(by_id.values())
    if base is None or base[0] != search["sha256"] or len(by_id) != rows:
        return found, None  # built for another version (or an id twice): by content only
    return found, (by_id, {e.id: e for e in base[1]})


def _encoded(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _string(text: str) -> bytes:
    """``text`` as a JSON string, as :func:`_encoded` writes it (the encoder's own function
    for strings: ``json.dumps`` makes a new encoder on each call, with these options)."""
    return json.encoder.encode_basestring(text).encode("utf-8")


class _Memo(Mapping[str, list[str]]):
    """Each memory's display line and search tokens by its content's hash, from the rows of
    a search file; made when first asked (a save that finds every memory's row by its id
    never asks)."""

    def __init__(self, rows: Iterable[tuple[str, str, str, bool]]) -> None:
        self._rows: Iterable[tuple[str, str, str, bool]] | None = rows
        self._found: dict[str, list[str]] = {}

    def _made(self) -> dict[str, list[str]]:
        if self._rows is not None:
            for row, indexed, content_key, _ in self._rows:
                self._found[content_key] = [row.split("\t", 7)[7], indexed[1:-2]]
            self._rows = None
        return self._found

    def __getitem__(self, key: str) -> list[str]:
        return self._made()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._made())

    def __len__(self) -> int:
        return len(self._made())
