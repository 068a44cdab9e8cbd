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
checked when read (its format, the file's hash, a checksum of the whole record), and ignored
when it does not check out. After a JSON header, the entries' values are one column per field,
in ``marshal``'s format (the one ``.pyc`` files use: values only, never code run), times as
seconds since the epoch: decoded and set on the entries by C loops, with no per-entry Python
code. The header names the format's version. Each entry's text is cut from the file's bytes
only if it begins with the entry's own heading and ends at a line's end: a save writes those
bytes again as they are.
"""

from __future__ import annotations

import contextlib
import json
import marshal
import sys
import zlib
from array import array
from collections.abc import Collection, Iterable, Sequence
from datetime import datetime, timedelta, timezone
from itertools import chain, repeat
from operator import add, attrgetter, eq, itemgetter, mul, sub
from typing import Any, NamedTuple

from ..core.entry import FIELDS, MemoryEntry, restored
from ..core.scoring import steady_until
from ..document.model import Document
from ..document.parse import parse
from ..document.render import Body, render_header, render_parts
from .paths import SideFiles

__all__ = ["FILE", "Record", "document", "of_save", "record"]

#: The record's name in the side folder.
FILE = "parsed"
#: Bumped whenever the columns or the header change meaning: an older record is not read.
FORMAT = 8
#: The version of ``marshal``'s format written: the last without shared references, whose
#: table of every object written costs a large record as much memory as the record.
_MARSHAL = 2
#: The fields that hold a time (or None): kept as seconds since the epoch.
_TIMES = frozenset({"created_at", "last_activated", "base_at", "expires_at"})
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


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
    # The entries one session wrote share their times: each is made once, and shared.
    distinct = dict.fromkeys(chain.from_iterable(timed))
    distinct.pop(None, None)
    made = map(datetime.fromtimestamp, distinct, repeat(timezone.utc))
    times: dict[float | None, datetime | None] = dict(zip(distinct, made, strict=True))
    times[None] = None
    for column in timed:
        column[:] = map(times.__getitem__, column)
    return restored(columns)


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
    sizes = array("q", map(len, map(itemgetter(1), rendered.sources.values())))
    if rendered.head:  # the header is in the rendered bytes: they count from the file's start
        return Record(result, lines, offsets, sizes, 1, 0)
    # The body's first line (from 1) and first byte.
    return Record(result, lines, offsets, sizes, header.count("\n") + 1, len(header.encode()))


class Record(NamedTuple):
    """A parse to keep: the document (its entries, and a person's text around them), the
    line each entry's heading is on, and where its text begins in the body's bytes and how
    long it is, in file order; and the body's first line (from 1) and byte in the file.
    Every entry's text is its canonical one."""

    doc: Document
    lines: array[int]
    offsets: array[int]
    sizes: array[int]
    skip: int
    before: int


def record(
    files: SideFiles,
    version: str,
    kept: Record,
    settled: tuple[datetime, Collection[int] | None] | None = None,
) -> None:
    """Keep ``kept``, the parse of the version ``version`` (see :func:`of_save`), for the
    next process; a folder that cannot be written costs that process a parse, nothing else.

    ``settled``: a moment, and the ``id()`` of the entries a merge brought to it (None: all
    of them), each one's score what decay gives it then: kept with when each one's score
    next changes, so the next merge scores only those whose moment has come."""
    from .atomic import write_atomically

    doc = kept.doc
    columns = _columns(doc.entries)
    until: Sequence[float] = ()
    at: float | None = None
    if settled is not None:
        at = settled[0].timestamp()
        times = steady_until(
            columns[FIELDS.index("last_activated")], columns[FIELDS.index("expires_at")], at
        )
        until = times
        if settled[1] is not None:
            # 0 for an entry the merge did not make (a person's, merged in by the save).
            known = map(settled[1].__contains__, map(id, doc.entries))
            until = list(map(mul, known, times))
    head = {
        "format": FORMAT,
        "marshal": _MARSHAL,
        "sha256": version,
        "count": len(doc.entries),
        "last_updated": doc.last_updated,
        "preamble": doc.preamble,
        "notes": doc.notes,
        "profile": doc.profile,
        "derived": None if doc.derived is None else [list(doc.derived[0]), list(doc.derived[1])],
        # Each entry's place: 8-byte numbers, in this machine's order.
        "order": sys.byteorder,
        "skip": kept.skip,
        "before": kept.before,
        "settled": at,
    }
    encoded = json.dumps(head, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    places = (kept.lines, kept.offsets, kept.sizes)
    # 8-byte numbers in this machine's format, as the places.
    values = marshal.dumps((columns, places, array("d", until).tobytes()), _MARSHAL)
    del columns
    # Against damage, not tampering: the file it describes is the one to trust.
    check = zlib.crc32(values, zlib.crc32(b"\n", zlib.crc32(encoded)))
    # The first line: a checksum of the rest, so that a record damaged anywhere is not read.
    with contextlib.suppress(OSError):
        write_atomically(
            files.hook_file(FILE), [b"%08x\n" % check, encoded, b"\n", values], durable=False
        )


def document(files: SideFiles, version: str, text: bytes) -> Document | None:
    """The recorded parse of ``text`` (the file's bytes), the file's version ``version``; None
    when there is none for it (then parse it)."""
    try:
        with open(files.hook_file(FILE), "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    # Offsets, not partitions: a record of 100,000 entries is tens of MB, not to be copied.
    first = data.find(b"\n")
    second = data.find(b"\n", first + 1)
    try:
        if first < 0 or second < 0:
            return None
        head = json.loads(data[first + 1 : second])
        if head["format"] != FORMAT or head["marshal"] != _MARSHAL:
            return None
        if head["sha256"] != version:
            return None
        if b"%08x" % zlib.crc32(memoryview(data)[first + 1 :]) != data[:first]:
            return None  # damaged
        if head["order"] != sys.byteorder:
            return None
        columns, places, until = marshal.loads(memoryview(data)[second + 1 :])
        del data
        starts, offsets, sizes = (array("q", place) for place in places)
        entries = _entries(columns)
        if not len(entries) == len(starts) == len(offsets) == len(sizes):
            return None
        if len(entries) != head["count"]:
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
    ids = list(map(attrgetter("id"), entries))
    texts = _texts(text, ids, map(add, offsets, repeat(head["before"])), sizes)
    if texts is None:
        return None
    doc.lines.update(zip(ids, map(add, starts, repeat(head["skip"])), strict=True))
    doc.sources.update(zip(ids, zip(entries, texts, strict=True), strict=True))
    return doc


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
    after = map(data.__getitem__, map(slice, ends, map(add, ends, repeat(1))))
    if not all(map(eq, after, repeat(b"\n"))):
        return None
    return texts
