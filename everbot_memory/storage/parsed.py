"""The parse of the file's last version, kept beside it, so a process skips the Markdown parse.

Every save records what a parse of the text it wrote gives (the entries in file order, the
line of each heading, each entry's text, the person's text around them), keyed by the
file's content hash. The next process that reads that very version (the next ``remember``,
hook job or merge) rebuilds the document from the record: decoding JSON rows is several
times cheaper than reading 10,000 entries of Markdown, and at 100,000 entries it is most of a
merge. A version the record is not for (an editor's save, a file from elsewhere) is parsed as
always, so the record can only save time, never change what is read.

The record is a cache (see ``storage/hot.py`` for the hooks' own): written without fsync,
checked when read (its format, the file's hash, a checksum of the whole record), and ignored
when it does not check out. One row per entry, so a save encodes only the entries it changed and
reuses the rows of the others, as read or written by this process.
"""

from __future__ import annotations

import contextlib
import json
import zlib
from datetime import datetime, timezone
from typing import Any, NamedTuple

from ..core.entry import MemoryEntry, restored
from ..document.model import Document
from ..document.parse import parse
from ..document.render import Body, render_header, render_parts
from .paths import SideFiles

__all__ = ["FILE", "Record", "document", "of_save", "record"]

#: The record's name in the side folder.
FILE = "parsed"
#: Bumped whenever the rows or the header change meaning: an older record is not read.
FORMAT = 3

# The rows of the last record read or written in this process, by memory file: each entry
# with its row, so the next record encodes only the entries that changed.
_ROWS: dict[str, dict[str, tuple[MemoryEntry, bytes]]] = {}
_ROWS_FILES = 4


def _check(data: bytes | memoryview) -> bytes:
    # Against damage, not tampering: the file it describes is the one to trust.
    return b"%08x" % zlib.crc32(data)


def _time(value: datetime | None) -> str | None:
    # Entries hold whole seconds in UTC: "2026-03-01T09:30:00+00:00", read back by
    # ``datetime.fromisoformat`` as the same value (and the same ``timezone.utc``).
    return None if value is None else value.isoformat()


def _row(entry: MemoryEntry) -> bytes:
    """``entry``'s values as one line of JSON, in the order :func:`restored` takes them."""
    return json.dumps(
        [
            entry.id,
            entry.content,
            entry.category,
            entry.score,
            _time(entry.created_at),
            _time(entry.last_activated),
            entry.activation_count,
            entry.source_session,
            entry.base_score,
            _time(entry.base_at),
            list(entry.merged_ids),
            _time(entry.expires_at),
            list(entry.replaces),
            entry.group,
            list(entry.condensed_from),
            entry.condensed_into,
        ],
        ensure_ascii=False,
        separators=(",", ":"),
    ).encode("utf-8")


def of_save(header: str, rendered: Body, doc: Document) -> Record | None:
    """What parsing a save's text (``header``, then ``rendered``: the body made from
    ``doc``) gives, without parsing it; None when that cannot be told this way.

    The entries are the rendered ones, each written as its canonical text (what a parse
    reads back as the same entry, checked by the save). Only the person's text around them
    (preamble, profile lines, notes) is parsed, alone: a parse joins and splits it its own
    way.
    """
    if len(rendered.starts) != len(rendered.sources):
        return None  # an id twice: the save's own document is not what a parse reads
    skip = header.count("\n") + 1  # the body's first line, from 1
    result = Document(last_updated=doc.last_updated)
    if doc.preamble or doc.notes or doc.profile:
        around = Document(preamble=list(doc.preamble), notes=list(doc.notes))
        around.profile = list(doc.profile)
        alone = parse(render_header(doc.last_updated or "", 0) + render_parts(around).text)
        if alone.problems or alone.entries:
            return None
        result.preamble, result.notes, result.profile = alone.preamble, alone.notes, alone.profile
    result.entries = [entry for entry, _ in rendered.sources.values()]
    # Not a parse's, but true of this text: the profile it shows, made from these entries
    # (a save from the record derives it again only when a memory it comes from changed).
    result.derived = rendered.derived
    places = list(rendered.starts.values())  # in file order, as the entries
    return Record(result, [skip + at for at, _ in places], [height for _, height in places])


class Record(NamedTuple):
    """A parse to keep: the document (its entries, and a person's text around them), the
    line each entry's heading is on (from 1) and how many lines its text takes, in file
    order. Every entry's text is its canonical one."""

    doc: Document
    lines: list[int]
    heights: list[int]


def record(files: SideFiles, version: str, kept: Record) -> None:
    """Keep ``kept``, the parse of the version ``version`` (see :func:`of_save`), for the
    next process; a folder that cannot be written costs that process a parse, nothing else."""
    from .atomic import write_atomically

    doc = kept.doc
    name = str(files.target)
    rows = _ROWS.pop(name, {})
    lines: list[bytes] = []
    keep = lines.append
    for entry in doc.entries:  # every memory of every save: only a changed one is encoded
        found = rows.get(entry.id)
        if found is None or not (found[0] is entry or found[0] == entry):
            found = rows[entry.id] = (entry, _row(entry))
        keep(found[1])
    if len(rows) != len(lines):  # some memories are gone
        rows = {e.id: rows[e.id] for e in doc.entries}
    _remember(name, rows)
    head = {
        "format": FORMAT,
        "sha256": version,
        "count": len(lines),
        "last_updated": doc.last_updated,
        "preamble": doc.preamble,
        "notes": doc.notes,
        "profile": doc.profile,
        "lines": kept.lines,
        "heights": kept.heights,
        "derived": None if doc.derived is None else [list(doc.derived[0]), list(doc.derived[1])],
    }
    encoded = json.dumps(head, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    data = b"\n".join([encoded, *lines])  # one copy of a record that may be tens of MB
    # The first line: a checksum of the rest, so that a record damaged anywhere is not read.
    with contextlib.suppress(OSError):
        write_atomically(files.hook_file(FILE), [_check(data), b"\n", data], durable=False)


def _remember(name: str, rows: dict[str, tuple[MemoryEntry, bytes]]) -> None:
    while len(_ROWS) >= _ROWS_FILES:
        _ROWS.pop(next(iter(_ROWS)))
    _ROWS[name] = rows


def document(files: SideFiles, version: str, text: str) -> Document | None:
    """The recorded parse of ``text``, the file's version ``version``; None when there is
    none for it (then parse it)."""
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
        if head["format"] != FORMAT or head["sha256"] != version:
            return None
        if _check(memoryview(data)[first + 1 :]) != data[:first]:
            return None  # damaged
        count, starts, heights = head["count"], head["lines"], head["heights"]
        lines = data.split(b"\n")[2:] if count else []
        del data
        if not len(lines) == len(starts) == len(heights) == count:
            return None
        entries = restored(_values(json.loads(b"[" + b",".join(lines) + b"]")))
        doc = Document(
            entries,
            list(head["preamble"]),
            list(head["notes"]),
            head["last_updated"],
        )
        doc.profile = list(head["profile"])
        derived = head["derived"]
        if derived is not None:
            person, shown = derived
            doc.derived = (tuple(map(str, person)), tuple(map(str, shown)))
    except (ValueError, KeyError, TypeError, IndexError, AttributeError):
        return None  # not a record this version wrote: parse the file
    file_lines = text.split("\n")
    for entry, start, height in zip(entries, starts, heights, strict=True):
        doc.lines[entry.id] = start
        if height:
            doc.sources[entry.id] = (entry, "\n".join(file_lines[start - 1 : start - 1 + height]))
    _remember(str(files.target), {e.id: (e, row) for e, row in zip(entries, lines, strict=True)})
    return doc


def _values(rows: list[list[Any]]) -> list[list[Any]]:
    """The rows' values as an entry holds them: times, and tuples for lists."""
    times: dict[str, datetime] = {}  # the entries one session wrote share their times
    get = times.get
    for row in rows:
        if len(row) != 16:
            raise ValueError("not a row of an entry")
        for place in (4, 5, 9, 11):  # each entry's four times, written by _time
            text = row[place]
            if text is None and place == 11:
                continue  # no expiry
            value = get(text)
            if value is None:
                value = times[text] = _moment(text)
            row[place] = value
        row[10], row[12], row[14] = tuple(row[10]), tuple(row[12]), tuple(row[14])
    return rows


def _moment(text: str) -> datetime:
    value = datetime.fromisoformat(text)
    return value if value.tzinfo is timezone.utc else value.astimezone(timezone.utc)
