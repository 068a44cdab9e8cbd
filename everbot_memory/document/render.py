"""A :class:`Document` to MEMORY.md text: the one canonical renderer every writer goes through.

A save rewrites the whole file in this form (the seed's "全量写入"), which repairs damaged
formatting; rendering a canonical file gives back the same text.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from dataclasses import dataclass, field
from datetime import datetime, timezone
from itertools import accumulate, compress, repeat
from operator import add, attrgetter, is_not, itemgetter
from typing import TYPE_CHECKING, cast

from ..core import profile as _profile
from ..core.clock import iso, utcnow
from ..core.entry import but_score
from ..core.profile import is_source, profile_lines
from ..core.rules import ACTIVE_MIN_SCORE
from ..core.scoring import sort_entries
from .content import UNSAFE_RE, fence, json_string
from .grammar import (
    ACTIVE,
    ARCHIVED,
    META_PREFIX,
    NOTES,
    NOTES_INTRO,
    PROFILE,
    PROFILE_INTRO,
    TITLE,
    canonical_heading,
)
from .meta import render_meta
from .model import Document
from .parse import parse

_SCORE_META = f'{META_PREFIX}{{"score": '.encode()

if TYPE_CHECKING:
    from ..core.entry import MemoryEntry

__all__ = [
    "Body",
    "render",
    "render_body",
    "render_content",
    "render_entry",
    "render_header",
    "render_parts",
]


def _probe_heading(entry_id: str) -> str:
    return f"### [{entry_id}] fact | 0.50 | 2000-01-01 | 1"


def _reads_back(written: str, content: str) -> bool:
    """True when ``written`` under a heading parses back as exactly ``content``, alone."""
    probe = f"{_probe_heading('a')}\n{written}\n\n{_probe_heading('b')}\nx\n"
    doc = parse(probe, now=datetime(2000, 1, 1, tzinfo=timezone.utc))
    return (
        len(doc.entries) == 2
        and doc.entries[0].content == content
        and not doc.notes
        and not any(p.kind == "warning" for p in doc.problems)
    )


# A line that reads as a line merge's conflict marker: fenced, so that a conflict git leaves
# elsewhere in the file is never read as starting or ending inside this memory.
_MARKER_LINE = re.compile(r"^(?:<{7,}(?: |$)|={7,}$|>{7,}(?: |$)|\|{7,}(?: |$))", re.M)


def render_content(content: str) -> str:
    """Content as it is written under its heading: plain when it reads back exactly, else in a
    ```` ```memory ```` fence, else (control characters, or a line the fence cannot hold, such
    as an unclosed comment opener) as a JSON string in a ```` ```memory-json ```` fence."""
    if UNSAFE_RE.search(content):
        return fence(json_string(content), "memory-json")
    if "\n" not in content and content[0].isalnum():
        return content  # a single line starting with a letter or digit cannot open any block
    if _MARKER_LINE.search(content) is None and _reads_back(content, content):
        return content
    fenced = fence(content, "memory")
    if "<!--" not in content or _reads_back(fenced, content):
        return fenced
    return fence(json_string(content), "memory-json")


def render_header(last_updated: str, count: int) -> str:
    """The title and the two header comments."""
    return (
        f"# {TITLE}\n\n<!-- Last updated: {last_updated} -->\n<!-- Total entries: {count} -->\n\n"
    )


def render_entry(entry: MemoryEntry) -> str:
    """The canonical text of one entry: heading, metadata comment, content."""
    return f"{canonical_heading(entry)}\n{render_meta(entry)}\n{render_content(entry.content)}"


@dataclass
class Body:
    """A rendered body: its bytes (UTF-8), the text of each entry, and the entries rendered
    anew."""

    data: bytes
    #: Entry id -> the entry and its text as written (UTF-8 bytes).
    sources: dict[str, tuple[MemoryEntry, bytes]]
    fresh: list[MemoryEntry]
    #: The Profile section's lines as written (a person's, then the derived ones).
    profile: list[str]
    #: A person's lines in the Profile and the section's lines made from them and these
    #: entries (see :attr:`Document.derived`).
    derived: tuple[tuple[str, ...], tuple[str, ...]] | None = None
    #: The line (from 0, in :attr:`data`) each entry's heading is on and the byte offset
    #: its text begins at, in the order of :attr:`sources` (the file's), when every entry
    #: has an id of its own (else None). Arrays of 4-byte numbers (8-byte ones for a file of
    #: 2 GB or more): 100,000 of them each.
    starts: tuple[array[int], array[int]] | None = None
    #: How many bytes of :attr:`data` are the header it was asked to begin with (see
    #: :func:`render_parts`): then the lines and offsets count from the header's start.
    head: int = 0
    #: The entries of :attr:`fresh` whose text is a reused one with only its heading and
    #: metadata made anew (its score changed, as decay changes it; see :func:`_rescored`).
    rescored: list[MemoryEntry] = field(default_factory=list)

    @property
    def text(self) -> str:
        """The body as text."""
        return self.data.decode("utf-8")


def render_parts(doc: Document, *, reuse: bool = False, head: str = "") -> Body:
    """Everything after the header (preamble, profile, Active and Archived entries, notes),
    with what a save needs to check it and to reuse it next time.

    With ``reuse``, an entry equal to one in ``doc.sources`` is written as that text, without
    rendering it again: pass it only when that text is known to be canonical (the engine
    wrote it). The profile of ``doc.derived`` is reused too while no memory it may be derived
    from changed.

    The body is made as bytes: the entries' texts are kept as the file's bytes, so a large
    file's text is never held, nor encoded, as one string. ``head``, the file's header
    (:func:`render_header`), is put before it in the same bytes, which are then the whole
    file: a large file is not copied once more to join them.
    """
    entries = sort_entries(doc.entries)
    # The first Archived one (scores descending: found by halving, not by looking at each).
    split = bisect_right(entries, -ACTIVE_MIN_SCORE, key=_minus_score)
    fresh: list[MemoryEntry] = []
    rescored: list[MemoryEntry] = []
    # Each entry's text as last written, found by C loops: every memory of every save (a file
    # may hold 100,000), most of them unchanged.
    ids = list(map(_ID, entries))
    known = cast("dict[str, tuple[MemoryEntry | None, bytes]]", doc.sources if reuse else {})
    found = list(map(known.get, ids, repeat(_NONE)))
    # Only the entries that are not the very ones written are looked at one by one.
    for n in compress(range(len(entries)), map(is_not, map(_FIRST, found), entries)):
        entry, (old, written) = entries[n], found[n]
        if old is not None and old.score == entry.score and old == entry:
            found[n] = (entry, written)
        else:
            text = None if old is None else _rescored((old, written), entry)
            if text is None:
                text = render_entry(entry).encode("utf-8")
            else:
                rescored.append(entry)
            found[n] = (entry, text)
            fresh.append(entry)
    # (An id twice: its last text, at its first place.) Every entry has its text now.
    sources = cast("dict[str, tuple[MemoryEntry, bytes]]", dict(zip(ids, found, strict=True)))
    texts = list(map(_SECOND, found))
    body: list[bytes] = []
    sections: list[tuple[int, int]] = []  # where each section's texts are in body, how many
    for title, section in ((ACTIVE, texts[:split]), (ARCHIVED, texts[split:])):
        body += [f"## {title}".encode(), b""]
        if section:
            # Each text, then a blank line: joined once with the rest (a large file's body is
            # tens of MB, not to be copied twice).
            sections.append((len(body), len(section)))
            spaced = [b""] * (2 * len(section))
            spaced[::2] = section
            body += spaced
    person = tuple(doc.profile)
    whole = len(sources) == len(entries)  # no id twice: the sources are all the entries
    cached = doc.derived if reuse and whole else None
    if cached is not None and cached[0] == person and not _touches_profile(doc, sources, fresh):
        profile = list(cached[1])
    else:
        # Derived from the strongest memories only: with every entry in ``sources`` (in file
        # order), a prefix of the file holds them all.
        strong = _first_sources(sources, _profile.MAX_SOURCES) if whole else doc.entries
        profile = profile_lines(doc.profile, strong)
    out: list[str] = []
    for chunk in doc.preamble:
        out += [chunk, ""]
    if profile:
        out += [f"## {PROFILE}", "", PROFILE_INTRO, ""]
        for item in profile:
            if item.lstrip()[:2] in ("- ", "* ", "+ "):
                out.append(item)
            else:
                # A paragraph next to a list item would read as part of it: it stands apart.
                if out[-1]:
                    out.append("")
                out += [item, ""]
        if out[-1]:
            out.append("")
    after: list[str] = []
    if doc.notes:
        after += [f"## {NOTES}", "", NOTES_INTRO, ""]
        for chunk in doc.notes:
            after += [chunk, ""]
    # The header ends with a line break, which the join puts after it.
    before = [chunk.encode("utf-8") for chunk in ([head[:-1]] if head else []) + out]
    lines = [*before, *body, *(chunk.encode("utf-8") for chunk in after)]
    derived = (person, tuple(profile)) if whole else None
    starts = _starts(lines, len(before), sections) if whole else None
    size = len(head.encode("utf-8"))
    return Body(b"\n".join(lines), sources, fresh, profile, derived, starts, size, rescored)


_ID = attrgetter("id")
_FIRST = itemgetter(0)
_SECOND = itemgetter(1)
#: What an entry not written before is found as.
_NONE: tuple[MemoryEntry | None, bytes] = (None, b"")


def _minus_score(entry: MemoryEntry) -> float:
    return -entry.score


def _rescored(source: tuple[MemoryEntry, bytes], entry: MemoryEntry) -> bytes | None:
    """``entry``'s text made from ``source`` (an entry and its canonical text) when the two
    differ in their score alone, as decay makes them differ on every memory each day: the
    score put in the heading and the metadata, everything else kept as it is (a large
    file's merge on a new day rescores thousands of memories; rendering each again costs a
    trial parse of its content). The same bytes :func:`render_entry` gives (the tests
    compare them); None when the two differ in more, or the text is not laid out as
    :func:`render_entry` writes it."""
    old, text = source
    if but_score(old) != but_score(entry):
        return None
    # The heading: "### [id] category | 0.73 | day | hits".
    start = f"### [{old.id}] {old.category} | ".encode()
    cut = len(start) + 4  # a score in [0, 1] takes four characters
    if not text.startswith(start) or text[len(start) : cut + 3] != b"%.2f | " % old.score:
        return None
    # The metadata comment: '<!-- everbot {"score": 0.7315, "base": 0.8, ...} -->'.
    at = text.find(b"\n", cut) + 1
    if at == 0 or not text.startswith(_SCORE_META, at):
        return None
    at += len(_SCORE_META)
    was = repr(old.score).encode()
    if not text.startswith(was + b", ", at):  # the whole number, not a longer one
        return None
    after = at + len(was)
    base = old.base_score
    said = b', "base": ' + repr(base).encode()
    if base != old.score:
        if not text.startswith(said + b", ", after):
            return None
    elif text.startswith(b', "base": ', after):
        return None
    if base == entry.score:
        return None  # the base to take out: rendered anew
    more = b"" if base != old.score else said
    score = entry.score
    return b"".join(
        (start, b"%.2f" % score, text[cut:at], repr(score).encode(), more, text[after:])
    )


def _starts(
    out: list[bytes], at: int, sections: list[tuple[int, int]]
) -> tuple[array[int], array[int]]:
    """The line of each entry's heading in ``out`` joined by line breaks (whose body begins at
    ``out[at]``; each section's texts at a place in the body, each followed by a blank line)
    and the byte offset its text begins at, in order. C loops: a file may hold 100,000
    memories. In 4-byte numbers (what the parse record keeps, copied as they are), or in
    8-byte ones for a file of 2 GB or more."""
    try:
        return _starts_in("i", out, at, sections)
    except OverflowError:
        return _starts_in("q", out, at, sections)


def _starts_in(
    typecode: str, out: list[bytes], at: int, sections: list[tuple[int, int]]
) -> tuple[array[int], array[int]]:
    lines, offsets = array(typecode), array(typecode)
    line, byte, done = 0, 0, 0  # the line and offset ``out[done]`` begins on
    for place, count in sections:
        index = at + place
        before = out[done:index]
        line += sum(map(bytes.count, before, repeat(b"\n"))) + len(before)
        byte += sum(map(len, before)) + len(before)
        texts = out[index : index + 2 * count : 2]
        # Each text takes its lines and a blank one; its bytes and two line breaks.
        steps = map(add, map(bytes.count, texts, repeat(b"\n")), repeat(2))
        lines.extend(accumulate(steps, initial=line))
        offsets.extend(accumulate(map(add, map(len, texts), repeat(2)), initial=byte))
        # The last of each: where what follows the section's texts begins (they are not
        # counted again there).
        line, byte = lines.pop(), offsets.pop()
        done = index + 2 * count
    return lines, offsets


def _touches_profile(
    doc: Document, sources: dict[str, tuple[MemoryEntry, bytes]], fresh: list[MemoryEntry]
) -> bool:
    """True when the profile derived from ``doc.sources``' entries may differ from the one
    derived from ``sources``' (the entries now): a memory it may be derived from was added,
    changed or removed, and is, or was, among the strongest the profile is derived from."""
    known = doc.sources
    if len(fresh) > _profile.MAX_SOURCES and _strongest_changed(sources, fresh):
        # (A day's decay changes every memory: asked first, of the strongest alone, instead
        # of every memory changed.)
        return True
    arriving = [e for e in fresh if is_source(e)]
    leaving = [
        before[0]
        for before in map(known.get, (e.id for e in fresh))
        if before is not None and is_source(before[0])
    ]
    if len(sources) - len(known) != sum(1 for e in fresh if e.id not in known):
        # Some memories known before are gone.
        leaving += [known[g][0] for g in known.keys() - sources.keys() if is_source(known[g][0])]
    if not arriving and not leaving:
        return False
    return _among_strongest(sources, arriving, leaving)


def _strongest_changed(
    sources: dict[str, tuple[MemoryEntry, bytes]], fresh: list[MemoryEntry]
) -> bool:
    """Whether a memory among the strongest the profile is derived from is one of ``fresh``
    (a memory that arrives among them: what :func:`_among_strongest` answers True to)."""
    import heapq

    limit = _profile.MAX_SOURCES
    strong = heapq.nsmallest(limit, _first_sources(sources, limit), key=_profile.source_key)
    changed = set(map(id, fresh))
    return any(id(e) in changed for e in strong)


def _first_sources(sources: dict[str, tuple[MemoryEntry, bytes]], limit: int) -> list[MemoryEntry]:
    """The first ``limit`` memories the profile may come from, in file order (``sources``
    is), and those tied with the last of them on score and age: the strongest ``limit`` by
    ``profile.source_key`` are among them (file order differs only on ties, broken by id
    instead of text). A prefix of the file, not all of it."""
    found: list[MemoryEntry] = []
    last: tuple[float, datetime] | None = None
    for entry, _ in sources.values():
        if last is not None and (entry.score, entry.created_at) != last:
            break
        if is_source(entry):
            found.append(entry)
            if len(found) == limit:
                last = (entry.score, entry.created_at)
    return found


def _among_strongest(
    sources: dict[str, tuple[MemoryEntry, bytes]],
    arriving: list[MemoryEntry],
    leaving: list[MemoryEntry],
) -> bool:
    """Whether a memory ``arriving`` is among the strongest the profile is derived from
    (``profile.MAX_SOURCES``) or one ``leaving`` was: when none is, the strongest are the same
    memories before and after, and so is the profile (a new memory weaker than the strongest
    of a large file changes nothing, and is not worth deriving the profile again)."""
    import heapq

    limit = _profile.MAX_SOURCES
    strong = heapq.nsmallest(limit, _first_sources(sources, limit), key=_profile.source_key)
    if len(strong) < limit:
        return True  # every memory it may come from counts
    shown = {id(e) for e in strong}
    if any(id(e) in shown for e in arriving):
        return True
    # The strongest are then those of the memories that did not change: one leaving was
    # among them before if it ranks above the weakest of them.
    weakest = _profile.source_key(strong[-1])
    return any(_profile.source_key(e) < weakest for e in leaving)


def render_body(doc: Document) -> str:
    """Everything after the header: preamble, Active and Archived entries, notes."""
    return render_parts(doc).text


def render(doc: Document, last_updated: str | None = None) -> str:
    """The canonical text of ``doc``: the only way the engine writes MEMORY.md.

    The ``Last updated`` stamp is ``last_updated``, else the document's own, else now.
    """
    stamp = last_updated or doc.last_updated or iso(utcnow())
    return render_header(stamp, len(doc.entries)) + render_body(doc)
