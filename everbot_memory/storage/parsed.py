"""The parse of the file's last version, kept beside it, so a process skips the Markdown parse.

Every save records what a parse of the text it wrote gives (the entries in file order, the
line of each heading, where each entry's text is in the file's bytes, the person's text
around them), keyed by the file's content hash. The next process that reads that very
version (the next ``remember``, hook job or merge) rebuilds the document from the record:
decoding its columns is many times cheaper than reading 10,000 entries of Markdown, and at
100,000 entries it is most of a merge. A version the record is not for (an editor's save, a
file from elsewhere) is parsed as always, so the record can only save time, never change
what is read.

The record is a cache (see ``storage/hot.py`` for the hooks' own): written without fsync,
checked when read, and ignored when it does not check out. It is a chain of parts, each
framed by its length and a checksum and ended by the content hash of the version it is the
parse of. The first part holds every entry; each later one is a save's change to the
version before it (named in its head): the entries that save rendered anew, as new rows,
and where every entry is now (the row each one is, the line its heading is on, where its
text is in the file's bytes). A save appends its part instead of writing every entry again
(a save of one memory into 100,000 costs a few arrays, not the whole record), and writes
the record whole again once the parts pile up (:func:`record`). A reader follows the chain
from the first part, stops at the first part that does not check out (a torn append, bytes
from elsewhere), and uses the record only when a part it reached is of the version on disk.

In each part, after a JSON head, the entries' values are one column per field, in
``marshal``'s format (the one ``.pyc`` files use: values only, never code run), times as
seconds since the epoch: decoded and set on the entries by C loops, with no per-entry Python
code. The head names the format's version. Each entry's text is cut from the file's bytes
only if it begins with the entry's own heading and ends at a line's end: a save writes those
bytes again as they are.
"""

from __future__ import annotations

import contextlib
import json
import marshal
import os
import sys
import zlib
from array import array
from collections.abc import Collection, Iterable, Sequence
from datetime import datetime, timedelta, timezone
from itertools import compress, repeat
from operator import add, attrgetter, eq, is_, itemgetter, le, mul, ne, sub
from typing import Any, NamedTuple

from ..core.entry import FIELDS, MemoryEntry, exhaust, restored
from ..core.scoring import steady_until
from ..document.model import Document
from ..document.parse import parse
from ..document.render import Body, render_header, render_parts
from .paths import SideFiles

__all__ = ["FILE", "Log", "Record", "common_ends", "document", "of_save", "read", "record"]

#: The record's name in the side folder.
FILE = "parsed"
#: Bumped whenever the parts, the columns or the head change meaning: an older record is
#: not read.
FORMAT = 9
#: The version of ``marshal``'s format written: the last without shared references, whose
#: table of every object written costs a large record as much memory as the record.
_MARSHAL = 2
#: The fields that hold a time (or None): kept as seconds since the epoch.
_TIMES = frozenset({"created_at", "last_activated", "base_at", "expires_at"})
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
#: A part's frame: its payload's length and checksum (hex), before it.
_FRAME = 26
#: After a part's payload: the record's mark (16 hex digits, drawn when it is written whole,
#: the same in every part appended to it), the content hash (hex) of the version the part is
#: the parse of, and a line break: what a writer reads to tell that the record is still the
#: one it read, and ends with the version it read.
_TRAILER = 82
#: The record is written whole again once its parts after the first would take more bytes
#: than the first one (each costs every reader a read and a checksum), or once more than
#: one row in :data:`_DEAD` is of no entry of its last version (a reader makes every row).
_DEAD = 8


def _columns(entries: Sequence[MemoryEntry]) -> list[list[Any]]:
    """The entries' values, one column per field in :data:`FIELDS` order, times as seconds
    since the epoch (entries hold whole seconds in UTC: exact as floats)."""
    seconds = timedelta.total_seconds
    columns = [list(map(attrgetter(name), entries)) for name in FIELDS]
    for name, column in zip(FIELDS, columns, strict=True):
        if name == "expires_at":  # the one that may be None
            column[:] = [None if value is None else seconds(value - _EPOCH) for value in column]
        elif name in _TIMES:
            column[:] = map(seconds, map(sub, column, repeat(_EPOCH)))
    return columns


def _entries(columns: list[list[Any]]) -> list[MemoryEntry]:
    """The entries :func:`_columns` took apart (ValueError: not the columns of entries)."""
    timed = [c for n, c in zip(FIELDS, columns, strict=True) if n in _TIMES]
    done: list[tuple[list[Any], list[Any]]] = []  # each column read, and its times
    for column in timed:
        # A column that is another's (an entry's anchor is most often its last activation)
        # shares that one's times.
        same = next((made for seen, made in done if seen == column), None)
        if same is None:
            same = _times(column)
            done.append((list(column), same))
        column[:] = same
    return restored(columns)


#: How many of a column's times tell whether most of them differ (see :func:`_times`).
_SAMPLE = 1000


def _times(column: list[Any]) -> list[Any]:
    """Each time of ``column`` (seconds since the epoch, or None) as a datetime in UTC: the
    entries one session wrote share their times, made once and shared, unless most of them
    differ (then each is made, without a table of them). C loops."""
    utc = repeat(timezone.utc)
    if None not in column:
        # Told from the first of them (a table of every time only to count them cost as
        # much as making them): most differ, or most are shared, all through a file.
        first = column[:_SAMPLE]
        if 2 * len(set(first)) > len(first):
            return list(map(datetime.fromtimestamp, column, utc))
    distinct = dict.fromkeys(column)
    distinct.pop(None, None)
    made = map(datetime.fromtimestamp, distinct, utc)
    times: dict[Any, datetime | None] = dict(zip(distinct, made, strict=True))
    times[None] = None
    return list(map(times.__getitem__, column))


def of_save(header: str, rendered: Body, doc: Document) -> Record | None:
    """What parsing a save's text (``header``, then ``rendered``: the body made from
    ``doc``) gives, without parsing it; None when that cannot be told this way.

    The entries are the rendered ones, each written as its canonical text (what a parse
    reads back as the same entry, checked by the save). Only the person's text around them
    (preamble, profile lines, notes) is parsed, alone: a parse joins and splits it its own
    way.
    """
    if rendered.starts is None:
        return None  # an id twice: the save's own document is not what a parse reads
    result = Document(last_updated=doc.last_updated)
    if doc.preamble or doc.notes or doc.profile:
        around = Document(preamble=list(doc.preamble), notes=list(doc.notes))
        around.profile = list(doc.profile)
        alone = parse(render_header(doc.last_updated or "", 0) + render_parts(around).text)
        if alone.problems or alone.entries:
            return None
        result.preamble, result.notes, result.profile = alone.preamble, alone.notes, alone.profile
    result.entries = list(map(itemgetter(0), rendered.sources.values()))
    # Not a parse's, but true of this text: the profile it shows, made from these entries
    # (a save from the record derives it again only when a memory it comes from changed).
    result.derived = rendered.derived
    lines, offsets = rendered.starts  # in file order, as the entries
    sizes = _numbers(list(map(len, map(itemgetter(1), rendered.sources.values()))))
    fresh = frozenset(map(attrgetter("id"), rendered.fresh))
    if rendered.head:  # the header is in the rendered bytes: they count from the file's start
        return Record(result, lines, offsets, sizes, 1, 0, fresh)
    # The body's first line (from 1) and first byte.
    skip = header.count("\n") + 1
    return Record(result, lines, offsets, sizes, skip, len(header.encode()), fresh)


def _numbers(values: Sequence[int]) -> array[int]:
    """``values`` in 4-byte numbers when they fit (most files: under 2 GB), else in 8-byte
    ones: an array of the record's own width is copied into a part as it is, not number by
    number (see :func:`_part`)."""
    try:
        return array("i", values)
    except OverflowError:
        return array("q", values)


class Record(NamedTuple):
    """A parse to keep: the document (its entries, and a person's text around them), the
    line each entry's heading is on, and where its text begins in the body's bytes and how
    long it is, in file order; the body's first line (from 1) and byte in the file; and the
    ids of the entries rendered anew (the others are as in the version the save was made
    from). Every entry's text is its canonical one."""

    doc: Document
    lines: array[int]
    offsets: array[int]
    sizes: array[int]
    skip: int
    before: int
    fresh: frozenset[str] = frozenset()


class Log(NamedTuple):
    """What a writer needs to append the parse of its next version to the record: the
    version the record ends with, its entries' ids in file order and the row each one is,
    how many rows the record holds, its size, the size of its first part, and its mark;
    and, when a merge settled that version, the moment it brought the entries to and when
    the score of each row's entry next changes (0: not known), by row."""

    version: str
    ids: list[str]
    rows: array[int]
    total: int
    size: int
    first: int
    mark: str
    settled: float | None = None
    until: array[float] | None = None

    def trailer(self, version: str) -> bytes:
        """What ends a part of this record that is the parse of ``version``."""
        return f"{self.mark} {version}\n".encode("ascii")


def record(
    files: SideFiles,
    version: str,
    kept: Record,
    settled: tuple[datetime, Collection[int] | None] | None = None,
    after: Log | None = None,
) -> Log | None:
    """Keep ``kept``, the parse of the version ``version`` (see :func:`of_save`), for the
    next process; a folder that cannot be written costs that process a parse, nothing else.
    Returns what the next save needs to append to it (None: nothing was kept).

    ``after``: the record as this process last read or wrote it, of the version ``kept``
    was made from (its entries not rendered anew are that version's). When the record on
    disk still ends there, the change is appended to it; otherwise, or once the record has
    grown enough, it is written whole.

    ``settled``: a moment, and the ``id()`` of the entries a merge brought to it (None: all
    of them), each one's score what decay gives it then: kept with when each one's score
    next changes, so the next merge scores only those whose moment has come."""
    doc = kept.doc
    entries = doc.entries
    ids = list(map(attrgetter("id"), entries))
    path = files.hook_file(FILE)
    at = None if settled is None else settled[0].timestamp()
    with contextlib.suppress(OSError):
        # (Most memories rendered anew, as on the first merge of a day: written whole.)
        if after is not None and 2 * len(kept.fresh) <= len(ids) and _ends_with(path, after):
            rows = _rows(after, ids, kept.fresh)
            if rows is not None:
                new, order = rows
                total = after.total + len(new)
                until = _until(entries, settled, order, after, len(new))
                added = [entries[n] for n in new]
                part = _part(version, kept, at, until, after.mark, added, order, after.version)
                if after.size + len(part) <= 2 * after.first:
                    # Appended: a reader meanwhile finds this part cut short, and stops
                    # before it (as after a crash in the middle of it).
                    with open(path, "ab") as handle:
                        handle.write(part)
                    size = after.size + len(part)
                    by_row = _by_row(until, order, total)
                    return Log(
                        version, ids, order, total, size, after.first, after.mark, at, by_row
                    )
        mark = os.urandom(8).hex()
        until = _until(entries, settled)
        part = _part(version, kept, at, until, mark, entries)
        from .atomic import write_atomically

        write_atomically(path, [part], durable=False)
        count = len(entries)
        order = _numbers(range(count))
        by_row = _by_row(until, order, count)
        return Log(version, ids, order, count, len(part), len(part), mark, at, by_row)
    return None


def _until(
    entries: Sequence[MemoryEntry],
    settled: tuple[datetime, Collection[int] | None] | None,
    order: Sequence[int] = (),
    after: Log | None = None,
    added: int = 0,
) -> Sequence[float]:
    """When the score of each of ``entries`` (in file order) next changes, when a merge
    brought them to ``settled`` (see :func:`record`); () when none did.

    An entry the record ``after`` holds unchanged (its row, in ``order``, where ``added``
    rows follow ``after``'s own) keeps the moment kept for it there while that moment is
    still ahead: decay changes nothing before it. Only the others are worked out (C loops:
    a file may hold 100,000 memories)."""
    if settled is None:
        return ()
    at = settled[0].timestamp()
    count = len(entries)
    if after is None or after.until is None or after.settled is None or after.settled > at:
        until: list[float] = [0.0] * count
        places: list[int] = list(range(count))
    else:
        # The new rows have none kept (0: worked out below, as every moment not ahead).
        known = after.until + array("d", bytes(8 * added))
        until = list(map(known.__getitem__, order))
        places = list(compress(range(count), map(le, until, repeat(at))))
    if places:
        seconds = timedelta.total_seconds
        some = list(map(entries.__getitem__, places))
        last = map(seconds, map(sub, map(attrgetter("last_activated"), some), repeat(_EPOCH)))
        expiring = map(attrgetter("expires_at"), some)
        expires = [None if value is None else seconds(value - _EPOCH) for value in expiring]
        exhaust(map(until.__setitem__, places, steady_until(list(last), expires, at)))
    if settled[1] is not None:
        # 0 for an entry the merge did not make (a person's, merged in by the save).
        until = list(map(mul, map(settled[1].__contains__, map(id, entries)), until))
    return until


def _by_row(until: Sequence[float], order: Sequence[int], total: int) -> array[float] | None:
    """``until`` (by entry, in file order; () for none) by row: 0 for a row of no entry."""
    if not until:
        return None
    by_row = array("d", bytes(8 * total))
    exhaust(map(by_row.__setitem__, order, until))
    return by_row


def _ends_with(path: os.PathLike[str], log: Log) -> bool:
    """Whether the record at ``path`` is still as this process left it or read it: the same
    record (a record written whole again has another mark), as long, and ending with the
    parse of ``log.version``."""
    with open(path, "rb") as handle:
        if os.fstat(handle.fileno()).st_size != log.size or log.size < _TRAILER:
            return False
        handle.seek(log.size - _TRAILER)
        return handle.read(_TRAILER) == log.trailer(log.version)


def _rows(
    after: Log, ids: list[str], fresh: Collection[str]
) -> tuple[list[int], array[int]] | None:
    """The places (in file order) of the entries that take a new row, and the row of every
    entry, when the record ``after`` holds: the rows of the entries it holds unchanged, and
    new rows after its own for the others; None when it has grown enough to be written
    whole again."""
    rows = _kept_rows(after, ids, fresh)
    if rows is None:
        row_of = dict(zip(after.ids, after.rows, strict=True))
        for gone in fresh:
            row_of.pop(gone, None)
        rows = list(map(row_of.get, ids))
    new = list(compress(range(len(ids)), map(is_, rows, repeat(None))))
    if 2 * len(new) > len(ids) or after.total + len(new) > len(ids) + len(ids) // _DEAD + 64:
        return None  # most rows new, or too many of no entry: written whole
    for number, at in enumerate(new, after.total):
        rows[at] = number
    return new, _numbers(rows)  # type: ignore[arg-type]  # none is None now


#: At most this many entries, on either side, between what two versions begin and end with
#: alike (see :func:`common_ends`) are looked up one by one; more, and every one is.
_WINDOW = 64


def common_ends(old: Sequence[str], new: Sequence[str]) -> tuple[int, int]:
    """How many ids ``old`` and ``new`` begin with alike, and how many of the rest they end
    with alike. (A save changes a few memories of many, most of them in place: what lies
    between is those few.) C loops, stopping at the first difference."""
    most = min(len(old), len(new))
    head = next(compress(range(most), map(ne, old, new)), most)
    rest = most - head
    tail = next(compress(range(rest), map(ne, reversed(old), reversed(new))), rest)
    return head, tail


def _kept_rows(after: Log, ids: list[str], fresh: Collection[str]) -> list[int | None] | None:
    """The row of each of ``ids`` in the record ``after`` (None: a new row, for an entry not
    there or rendered anew, one of ``fresh``), found without a table of every entry when the
    two versions differ in a few places (see :func:`common_ends`); None when they differ in
    more (look each one up)."""
    old = after.ids
    head, tail = common_ends(old, ids)
    old_end, new_end = len(old) - tail, len(ids) - tail
    if max(old_end - head, new_end - head, len(fresh)) > _WINDOW:
        return None
    between = dict(zip(old[head:old_end], after.rows[head:old_end], strict=True))
    for gone in fresh:
        between.pop(gone, None)
    rows: list[int | None] = []
    rows += after.rows[:head].tolist()
    rows += map(between.get, ids[head:new_end])
    rows += after.rows[old_end:].tolist()
    for gone in fresh:
        # Rendered anew where the two are alike: found in the ends (each one once: ids
        # are the entries').
        for start, stop in ((0, head), (new_end, len(ids))):
            with contextlib.suppress(ValueError):
                rows[ids.index(gone, start, stop)] = None
    return rows


def _part(
    version: str,
    kept: Record,
    at: float | None,
    until: Sequence[float],
    mark: str,
    new: Sequence[MemoryEntry],
    order: array[int] | None = None,
    since: str | None = None,
) -> bytes:
    """One part of the record ``mark``, framed: the whole parse (``since`` None), or the
    change from the version ``since``: the rows ``new``, and each entry's row (``order``);
    with the moment a merge settled the entries at (None: none did) and when each one's
    score next changes (see :func:`_until`)."""
    doc = kept.doc
    head = {
        "format": FORMAT,
        "marshal": _MARSHAL,
        "sha256": version,
        "from": since,
        "mark": mark,
        "count": len(doc.entries),
        "rows": len(new),
        "last_updated": doc.last_updated,
        "preamble": doc.preamble,
        "notes": doc.notes,
        "profile": doc.profile,
        "derived": None if doc.derived is None else [list(doc.derived[0]), list(doc.derived[1])],
        # Each entry's place: numbers of "width" bytes, in this machine's order.
        "order": sys.byteorder,
        "skip": kept.skip,
        "before": kept.before,
        "settled": at,
    }
    places = [kept.lines, kept.offsets, kept.sizes, *([] if order is None else [order])]
    # The numbers in 4 bytes each when they fit (most files: under 2 GB), else in 8.
    try:
        narrow: list[array[int] | None] = [array("i", numbers) for numbers in places]
        typecode = "i"
    except OverflowError:
        narrow, typecode = [array("q", numbers) for numbers in places], "q"
    head["places"] = typecode
    head["width"] = array(typecode).itemsize
    narrow += [None] * (4 - len(narrow))  # no order: the rows are the entries, in order
    rest = marshal.dumps((narrow, array("d", until).tobytes()), _MARSHAL)
    rows = marshal.dumps(_columns(new), _MARSHAL)
    head["size"] = len(rows)  # the rows' bytes, after the head: the places follow them
    encoded = json.dumps(head, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    payload = b"".join((encoded, b"\n", rows, rest))
    # Against damage, not tampering: the file it describes is the one to trust.
    frame = b"%016x %08x\n" % (len(payload), zlib.crc32(payload))
    return b"".join((frame, payload, f"{mark} {version}\n".encode("ascii")))


class _Part(NamedTuple):
    head: dict[str, Any]
    payload: memoryview
    rows: int  # where its rows start in ``payload`` (its places follow them)


def _parts(data: bytes) -> list[_Part]:
    """The record's parts that check out, from the first, up to the first that does not
    (cut short, damaged, of another format, not following the one before)."""
    view = memoryview(data)
    found: list[_Part] = []
    at = 0
    while at + _FRAME <= len(data):
        try:
            size, check = int(data[at : at + 16], 16), int(data[at + 17 : at + 25], 16)
        except ValueError:
            break
        start, end = at + _FRAME, at + _FRAME + size
        if data[at + 16 : at + 17] != b" " or data[at + 25 : at + 26] != b"\n" or size < 0:
            break
        if end + _TRAILER > len(data) or zlib.crc32(view[start:end]) != check:
            break
        cut = data.find(b"\n", start, end)
        if cut < 0:
            break
        try:
            head = json.loads(data[start:cut])
            if not isinstance(head, dict):
                break
            if head["format"] != FORMAT or head["marshal"] != _MARSHAL:
                break
            if head["from"] != (found[-1].head["sha256"] if found else None):
                break
            if found and head["mark"] != found[0].head["mark"]:
                break
            trailer = f"{head['mark']} {head['sha256']}\n".encode("ascii")
            if len(trailer) != _TRAILER or data[end : end + _TRAILER] != trailer:
                break
        except (ValueError, KeyError, TypeError, UnicodeEncodeError):
            break
        found.append(_Part(head, view[start:end], cut + 1 - start))
        at = end + _TRAILER
    return found


def read(files: SideFiles, version: str, text: bytes) -> tuple[Document, Log] | None:
    """The recorded parse of ``text`` (the file's bytes), the file's version ``version``, and
    what a save from it needs to append to the record; None when there is none for it (then
    parse it)."""
    try:
        with open(files.hook_file(FILE), "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    parts = _parts(data)
    last = next(
        (n for n in range(len(parts) - 1, -1, -1) if parts[n].head["sha256"] == version), None
    )
    if last is None:
        return None
    parts = parts[: last + 1]
    size = sum(_FRAME + len(p.payload) + _TRAILER for p in parts)
    first = _FRAME + len(parts[0].payload) + _TRAILER
    head = parts[-1].head
    try:
        if head["order"] != sys.byteorder:
            return None
        columns: list[list[Any]] | None = None
        for part in parts:
            rows = marshal.loads(part.payload[part.rows : part.rows + part.head["size"]])
            if len(rows) != len(FIELDS) or any(len(c) != part.head["rows"] for c in rows):
                return None
            if columns is None:
                columns = rows
            else:
                for column, added in zip(columns, rows, strict=True):
                    column += added
        assert columns is not None
        total = len(columns[0])
        end = parts[-1]
        places, until = marshal.loads(end.payload[end.rows + end.head["size"] :])
        typecode = head["places"]
        if typecode not in ("i", "q") or array(typecode).itemsize != head["width"]:
            return None
        starts, offsets, sizes = (array(typecode, place) for place in places[:3])
        whole = places[3] is None
        order = array(typecode, range(total) if whole else places[3])
        if len(parts) > 1 and whole:
            return None
        if len(order) != head["count"] or (order and not 0 <= min(order) <= max(order) < total):
            return None
        # Every row made (few are of no entry: see _DEAD), then each entry's picked.
        entries = _entries(columns)
        del columns
        if not whole:
            entries = list(map(entries.__getitem__, order))
        if not len(entries) == len(starts) == len(offsets) == len(sizes) == head["count"]:
            return None
        settled = head["settled"]
        moments = array("d")
        moments.frombytes(until)
        if settled is not None and len(moments) == len(entries):
            doc_steady = (float(settled), tuple(entries), moments)
        else:
            doc_steady = None
        doc = Document(
            entries,
            list(head["preamble"]),
            list(head["notes"]),
            head["last_updated"],
        )
        doc.profile = list(head["profile"])
        doc.steady = doc_steady
        derived = head["derived"]
        if derived is not None:
            person, shown = derived
            doc.derived = (tuple(map(str, person)), tuple(map(str, shown)))
    except (ValueError, KeyError, TypeError, IndexError, AttributeError, EOFError):
        return None  # not a record this version wrote: parse the file
    mark = str(parts[0].head["mark"])
    settled_at = None if doc_steady is None else doc_steady[0]
    by_row = None if doc_steady is None else _by_row(moments, order, total)
    del data, parts
    ids = list(map(attrgetter("id"), entries))
    if len(set(ids)) != len(ids):
        return None  # never recorded: a save with an id twice keeps no record
    texts = _texts(text, ids, map(add, offsets, repeat(head["before"])), sizes)
    if texts is None:
        return None
    doc.lines.update(zip(ids, map(add, starts, repeat(head["skip"])), strict=True))
    doc.sources.update(zip(ids, zip(entries, texts, strict=True), strict=True))
    return doc, Log(version, ids, order, total, size, first, mark, settled_at, by_row)


def document(files: SideFiles, version: str, text: bytes) -> Document | None:
    """The recorded parse of ``text`` (the file's bytes), the file's version ``version``; None
    when there is none for it (then parse it)."""
    found = read(files, version, text)
    return None if found is None else found[0]


def _texts(
    data: bytes, ids: list[str], offsets: Iterable[int], sizes: Iterable[int]
) -> list[bytes] | None:
    """Each entry's text, cut from the file's bytes at the record's places; None unless each
    begins with its own heading and ends at a line's end. A save writes these bytes again as
    they are: cut anywhere else (a record of another format), they would damage the file.
    C loops: no per-entry Python code."""
    offsets = list(offsets)
    ends = list(map(add, offsets, sizes))
    texts = list(map(data.__getitem__, map(slice, offsets, ends)))
    headings = map(add, repeat(b"### ["), map(str.encode, ids))
    if not all(map(bytes.startswith, texts, headings)):
        return None
    if ends and max(ends) >= len(data):
        return None
    # Each followed by a line break (its byte, as a number: no one-byte slices).
    if not all(map(eq, map(data.__getitem__, ends), repeat(10))):
        return None
    return texts
