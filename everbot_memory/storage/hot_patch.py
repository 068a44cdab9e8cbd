"""Splicing a save's change into the hooks' last files, instead of building them again.

A process that saves a change to the version it read, whose hooks' files are still right
(built for that version, the same day, before the next expiry), writes the search file as the
last one's bytes with a line replaced, added or taken out for each memory the save changed,
added or removed; every other memory's line is copied as it is, not decoded. The
session-start lines are the last ones with the change applied (a memory arriving is ranked
against those shown) while that is what a build gives: until a memory shown, or one counted
a day above the floor, decays (``hook-lines`` keeps when). Past that, or when a memory
shown leaves (the one to take its place is not in the files), they are chosen again from
every memory's score, the rows spliced all the same. Caches missing, damaged, changed by
hand (their checksums) or of another version are built from nothing
(:func:`.hot_build.build`). ``tests/test_hot.py`` compares the result with a build from
nothing on random edit sequences, saved at once and hours later.
"""

from __future__ import annotations

import heapq
import json
import os
import zlib
from array import array
from collections.abc import Sequence
from datetime import datetime, timezone
from itertools import accumulate, chain, compress, repeat
from operator import add, attrgetter, eq, is_, itemgetter, ne, not_, sub
from pathlib import Path
from typing import Any, NamedTuple

from ..core import ranking
from ..core.entry import MemoryEntry, but_score, exhaust
from ..core.scoring import score_at
from . import hot_build
from .hot import PROMPT_FILE, SEARCH_FILE, VERSION, file_digest
from .hot_build import (
    _DAY,
    LINES_FILE,
    Built,
    Span,
    _group_part,
    _made,
    _prompt_key,
    _read_file,
    _search_file,
    _strongest,
    decay_day,
    read_at,
    read_lines,
    signature,
)
from .paths import SideFiles

__all__ = ["patched", "prepare"]


def prepare(
    memory_path: str | os.PathLike[str],
    data: bytes,
    entries: Sequence[MemoryEntry],
    now: datetime | None = None,
    profile: Sequence[str] = (),
    sha256: str | None = None,
    base: tuple[str, Sequence[MemoryEntry]] | None = None,
) -> Built:
    """:func:`.hot_build.prepare`, spliced from the files built for ``base`` (a version's
    hash, and its entries as parsed or written) when they are still right."""
    if base is not None:
        when = now or datetime.now(timezone.utc)
        digest = sha256 or file_digest(data)
        try:
            built = patched(SideFiles.of(memory_path), entries, when, profile, digest, base)
        except OSError:  # the last search file replaced (a hook rebuilt it) while read
            built = None
        if built is not None:
            return built
    return hot_build.prepare(memory_path, data, entries, now, profile, sha256, base)


class _Scored:
    """A memory and its score now, ranked as a part is (``hot_build._prompt_key``)."""

    __slots__ = ("entry", "last", "line", "order", "score")

    def __init__(self, entry: MemoryEntry, score: float, line: str = "") -> None:
        self.entry, self.score, self.line = entry, score, line
        self.order = (entry.created_at, entry.id)
        self.last = entry.last_activated.timestamp()


def _ranked(
    shown: Sequence[tuple[str, str]],
    arriving: Sequence[Any],
    known: _Known,
    now: datetime,
) -> list[Any]:
    """The top-k of the memories shown (``(id, line)``) and those arriving, best first."""
    from ..core.rules import PROMPT_TOP_K

    items = [_Scored(known[i], score_at(known[i], now), line) for i, line in shown]
    return sorted([*items, *arriving], key=_prompt_key)[:PROMPT_TOP_K]


def _stays(old: _Scored, new: Any, now: datetime, stamp: float) -> bool:
    """Whether ``new``, the changed version of a memory shown as ``old``, is shown too, in
    the same group, ranked no lower."""
    from ..core.rules import PROMPT_MIN_SCORE

    if new.hidden or (new.expires is not None and new.expires <= now):
        return False
    if new.score_at(stamp) < PROMPT_MIN_SCORE or new.group != (old.entry.group or "none"):
        return False
    return _prompt_key(new) <= _prompt_key(old)


class _Known:
    """The base's entries by id (``ids``, in the same order; ``at``: each id's place among
    them, made when first asked for unless given)."""

    def __init__(
        self, entries: Sequence[MemoryEntry], ids: list[str], at: dict[str, int] | None = None
    ) -> None:
        self.entries, self._ids, self._at = entries, ids, at
        self._scanned = 0  # how many ids were looked at one by one (see number)

    @property
    def at(self) -> dict[str, int]:
        if self._at is None:
            self._at = dict(zip(self._ids, range(len(self._ids)), strict=True))
        return self._at

    def number(self, entry_id: object) -> int | None:
        """The place of ``entry_id`` among the base's entries (None: not there). The few a
        save asks for (the memories shown, the strongest: most often near the start) are
        looked for in the list, until that has cost as much as a table of every id."""
        if self._at is None and self._scanned < len(self._ids):
            try:
                found = self._ids.index(entry_id)  # type: ignore[arg-type]
            except ValueError:
                self._scanned += len(self._ids)
                return None
            self._scanned += found + 1
            return found
        return self.at.get(entry_id)  # type: ignore[call-overload, no-any-return]

    def __getitem__(self, entry_id: str) -> MemoryEntry:
        number = self.number(entry_id)
        if number is None:
            raise KeyError(entry_id)
        return self.entries[number]

    def __contains__(self, entry_id: object) -> bool:
        return self.number(entry_id) is not None

    def get(self, entry_id: str) -> MemoryEntry | None:
        number = self.number(entry_id)
        return None if number is None else self.entries[number]


class _Last(NamedTuple):
    """What the last session-start lines hold: the memories shown (``(id, line)``), by
    group too, how many memories each group counts, in all, and the files' two times."""

    shown: list[tuple[str, str]]
    groups: dict[str, list[tuple[str, str]]]
    counts: dict[str, int]
    total: int
    until: float
    steady: float


_Lines = tuple[list[tuple[str, str]], int, dict[str, Any], float, float]


def _spliced(
    last: _Last,
    known: _Known,
    gone: Sequence[MemoryEntry],
    leaving: Sequence[MemoryEntry],
    fresh: Sequence[Any],
    now: datetime,
    grouped_files: bool,
) -> _Lines | None:
    """The session-start lines: the last ones with the change applied (memories shown,
    total, groups, and the files' two times); None when the change reaches what they
    cannot tell (a memory shown leaves, or sets when the files stop being right).
    ``grouped_files``: some memory has a group (then the lines are kept by group too)."""
    from ..core.rules import PROMPT_MIN_SCORE

    stamp = now.timestamp()
    shown, groups, counts = last.shown, dict(last.groups), dict(last.counts)
    total, until, steady = last.total, last.until, last.steady
    showing = {i for i, _ in shown}.union(*map(dict, groups.values()))
    if any(old.id in showing for old in gone):
        return None  # what would take its place is not in the files
    for old in leaving:
        if old.expires_at is not None and old.expires_at.timestamp() == until:
            return None  # it set when the files stop being right
    by_id = {p.entry.id: p for p in fresh}
    moved: set[str] = set()
    for old in leaving:
        if old.id in showing:
            # Shown, and changed: still shown if it ranks no lower than it did (a memory
            # reinforced), since then none of those not shown can pass it.
            if not _stays(_Scored(old, score_at(old, now)), by_id[old.id], now, stamp):
                return None
            moved.add(old.id)
        expires = old.expires_at
        if (expires is not None and expires <= now) or score_at(old, now) < PROMPT_MIN_SCORE:
            continue
        total -= 1
        if not old.condensed_into and groups:
            name = old.group or "none"
            if name not in counts:
                return None
            counts[name] -= 1
    if moved:
        shown = [(i, line) for i, line in shown if i not in moved]
        for name, members in groups.items():
            groups[name] = [(i, line) for i, line in members if i not in moved]
    arriving = []
    for part in fresh:
        if part.expires is not None:
            at = part.expires.timestamp()
            if stamp < at < until:
                until = at
            if part.expires <= now:
                continue
        if part.score_at(stamp) >= PROMPT_MIN_SCORE:
            total += 1
            # Counted, perhaps shown: the next splice must come before it decays (a build
            # would take only some of them; these are a few, so all of them are taken).
            steady = min(steady, part.until)
            if not part.hidden:
                arriving.append(part)
    if arriving:
        shown = [(p.entry.id, p.line) for p in _ranked(shown, arriving, known, now)]
    grouped: dict[str, Any] = {}
    if grouped_files:
        for name, members in groups.items():
            mine = [p for p in arriving if p.group == name]
            ranked = _ranked(members, mine, known, now)
            if counts[name] + len(mine) < len(ranked):
                return None  # the counts do not add up
            grouped[name] = _group_part(ranked, counts[name] + len(mine))
        for part in arriving:
            if part.group not in grouped:
                mine = [p for p in arriving if p.group == part.group]
                grouped[part.group] = _group_part(_ranked([], mine, known, now), len(mine))
    return shown, total, grouped, until, steady


def _anew(
    entries: Sequence[MemoryEntry], fresh: dict[str, Any], now: datetime, line_of: Any
) -> _Lines:
    """The session-start lines chosen from every memory's score at ``now`` (what
    :func:`.hot_build.build` chooses, without a part for every memory): a changed memory's
    line is its part's, another's its row's (``line_of``, asked only of those shown)."""
    from ..core.rules import DAILY_DECAY, PROMPT_MIN_SCORE

    stamp = now.timestamp()
    near = PROMPT_MIN_SCORE / DAILY_DECAY + 1e-9
    until = (stamp // _DAY + 1) * _DAY
    steady = until
    total = 0
    # Each memory that may be shown, and its score: a part is made only for those that may
    # be among the strongest (a file may hold 100,000 memories; 20 are shown).
    eligible: list[tuple[MemoryEntry, float]] = []
    decayed = ranking.decayed
    for entry in entries:  # every memory: kept lean
        expires = entry.expires_at
        if expires is not None:
            at = expires.timestamp()
            if stamp < at < until:
                until = at
            if expires <= now:
                continue
        base_score, base_at = entry.anchor
        last = entry.last_activated.timestamp()
        score = decayed(base_score, base_at.timestamp(), last, stamp)
        if score < PROMPT_MIN_SCORE:
            continue
        total += 1
        if score < near:
            steady = min(steady, decay_day(last, stamp)[1])
        if not entry.condensed_into:
            eligible.append((entry, score))

    def strongest(items: list[tuple[MemoryEntry, float]]) -> list[_Scored]:
        from ..core.rules import PROMPT_TOP_K

        if len(items) > PROMPT_TOP_K:  # what _strongest keeps, before a part is made
            floor = heapq.nlargest(PROMPT_TOP_K, map(itemgetter(1), items))[-1]
            items = [item for item in items if item[1] >= floor]
        chosen = _strongest([_Scored(entry, score) for entry, score in items])
        for item in chosen:
            part = fresh.get(item.entry.id)
            item.line = part.line if part is not None else line_of(item.entry.id)
        return chosen

    chosen = strongest(eligible)
    grouped: dict[str, Any] = {}
    if any(e.group for e in entries):
        members: dict[str, list[tuple[MemoryEntry, float]]] = {}
        for item in eligible:
            members.setdefault(item[0].group or "none", []).append(item)
        for name, items in members.items():
            ranked = strongest(items)
            grouped[name] = _group_part(ranked, len(items))
            steady = min([steady, *(decay_day(i.last, stamp)[1] for i in ranked)])
    steady = min([steady, *(decay_day(i.last, stamp)[1] for i in chosen)])
    return [(i.entry.id, i.line) for i in chosen], total, grouped, until, steady


#: At most this many memories, on either side, between what the last rows and the new
#: memories begin and end with alike (see :func:`_places`); more, and every row is looked up.
_WINDOW = 64


def _places(
    ids: list[str], new_ids: list[str], distinct: set[str]
) -> tuple[list[int], tuple[int, int]] | None:
    """The row (in ``ids``, the last file's) of each of ``new_ids`` (``len(ids)``: none),
    found from the ids both lists begin and end with alike, and how many those are; None
    when more than :data:`_WINDOW` lie between on either side, or ``ids`` holds an id twice
    (``distinct``: the set of ``new_ids``, each once)."""
    from .parsed import common_ends

    count = len(ids)
    head, tail = common_ends(ids, new_ids)
    old_end, new_end = count - tail, len(new_ids) - tail
    if max(old_end - head, new_end - head) > _WINDOW:
        return None
    between = dict(zip(ids[head:old_end], range(head, old_end), strict=True))
    if len(between) != old_end - head:
        return None  # an id twice
    # An id between on the old side that the new list holds at its ends is one the old
    # list holds twice (at its ends as well: they are the new list's).
    arriving = set(new_ids[head:new_end])
    if any(i in distinct and i not in arriving for i in between):
        return None
    places: list[int] = list(range(head))
    places += map(between.get, new_ids[head:new_end], repeat(count))
    places += range(old_end, count)
    return places, (head, tail)


class _Search(NamedTuple):
    """The last search file, read a piece at a time (a large file's is tens of MB): its
    path, size, key (its first line, with where the lines start as ``body``), checksum, and
    its signature (see :func:`.hot_build.signature`)."""

    path: Path
    size: int
    head: dict[str, Any] | None
    crc: int
    seen: tuple[int, int, int]

    def line(self, start: int, size: int) -> bytes:
        """``size`` bytes from ``start`` (OSError: the file changed since it was read)."""
        return read_at(self.path, self.seen, start, size)


def _search_of(files: SideFiles) -> _Search | None:
    """The last search file (None: missing or unreadable), its checksum made a megabyte at
    a time."""
    path = files.hook_file(SEARCH_FILE)
    try:
        with open(path, "rb") as handle:
            seen = signature(handle)
            first = handle.readline()
            crc, size = zlib.crc32(first), len(first)
            tail = first[-3:]
            while chunk := handle.read(1 << 20):
                crc, size = zlib.crc32(chunk, crc), size + len(chunk)
                tail = (tail + chunk)[-3:]
    except OSError:
        return None
    if size != seen[1]:
        return None  # written into meanwhile
    return _Search(path, size, _head(first, tail), crc, seen)


def _head(first: bytes, tail: bytes) -> dict[str, Any] | None:
    """The key of a search file whose first line is ``first`` and whose last three bytes
    are ``tail``."""
    if not first.endswith(b"\n") or tail != b"\n]}":
        return None
    try:
        head = json.loads(first[:-1] + b"]}")
    except ValueError:
        return None
    if not isinstance(head, dict):
        return None
    head["body"] = len(first)  # where the lines start
    return head


def patched(
    files: SideFiles,
    entries: Sequence[MemoryEntry],
    now: datetime,
    profile: Sequence[str],
    sha256: str,
    base: tuple[str, Sequence[MemoryEntry]],
) -> Built | None:
    """The hooks' files for ``entries`` (a file whose hash is ``sha256``) spliced from the
    files built for ``base`` (a version's hash and its entries as parsed or written); None
    when those files are missing, damaged, changed since they were written, or of another
    version (then a build makes them)."""
    from .hot_build import _profile_key, _profile_parts

    version, old_entries = base
    prompt_data = _read_file(files, PROMPT_FILE)
    search = None if prompt_data is None else _search_of(files)
    if search is None or prompt_data is None:
        return None
    head = search.head
    stamp = now.timestamp()
    try:
        prompt = json.loads(prompt_data)
        key = (head or {}).get("version"), (head or {}).get("sha256")
        if head is None or key != (VERSION, version):
            return None
        built, until = float(head["built"]), float(head["until"])
        if (prompt["version"], prompt["sha256"], prompt["built"], prompt["until"]) != (
            VERSION,
            version,
            built,
            until,
        ):
            return None
        length, total = int(head["length"]), int(prompt["total"])
        shown = list(zip(prompt["ids"], prompt["lines"], strict=True))
        groups: dict[str, list[tuple[str, str]]] = {}
        counts: dict[str, int] = {}
        for name, g in prompt["groups"].items():
            groups[str(name)] = list(zip(g["ids"], g["lines"], strict=True))
            counts[str(name)] = int(g["total"])
    except (ValueError, KeyError, TypeError, AttributeError):
        return None
    count = len(old_entries)
    beside = read_lines(_read_file(files, LINES_FILE))
    try:
        if beside is None or beside["sha256"] != version:
            return None  # made for another version
        if beside["prompt_crc"] != zlib.crc32(prompt_data):
            return None  # changed since it was written
        if beside["search_crc"] != search.crc:
            return None
        ids, sizes, steady = beside["ids"], beside["sizes"], float(beside["steady"])
    except (KeyError, TypeError, ValueError):
        return None
    if not isinstance(ids, list) or not isinstance(sizes, array):
        return None
    if not len(ids) == len(sizes) == count:
        return None  # not the rows of the base
    old_ids = list(map(attrgetter("id"), old_entries))
    if ids != old_ids:
        # The rows are in the order the save that wrote them was given its memories (a
        # program's own order), the base in the file's: the base is taken in the rows'.
        by_id = dict(zip(old_ids, old_entries, strict=True))
        if len(by_id) != count or by_id.keys() != set(ids):
            return None  # not the rows of the base
        old_entries = list(map(by_id.__getitem__, ids))
    # Where each memory's line starts in the file's bytes (each line and its ",\n").
    sizes = sizes.tolist()
    starts = list(accumulate(map(add, sizes, repeat(2)), initial=head["body"]))
    if starts[-1] - (2 if count else 0) != search.size - 3:
        return None  # the lines' sizes do not add up to the file
    new_id_list = list(map(attrgetter("id"), entries))
    new_ids = set(new_id_list)
    if len(new_ids) != len(entries):
        return None
    # Where each memory's row is in the last file (``count``: not there). Most saves change a
    # few memories in place: the rows are then found from what the two lists of ids begin
    # and end with alike, and only those between are looked up (C loops, which stop at the
    # first difference); otherwise, in a table of every id.
    total_new = len(entries)
    found = _places(ids, new_id_list, new_ids)
    if found is None:
        place = dict(zip(ids, range(count), strict=True))
        if len(place) != count:
            return None
        places = list(map(place.get, new_id_list, repeat(count)))
        known = _Known(old_entries, ids, place)
        # Where a run of copied lines may break (from, to): anywhere.
        lo, hi = 1, total_new
    else:
        places, (head_alike, tail_alike) = found
        known = _Known(old_entries, ids)
        lo, hi = max(1, head_alike), min(total_new, total_new - tail_alike + 1)
    # (Most memories replace none: only those that do are looked at.)
    replaced = set(chain.from_iterable(filter(None, map(attrgetter("replaces"), entries))))
    replacing = filter(None, map(attrgetter("replaces"), old_entries))
    flipped = replaced ^ set(chain.from_iterable(replacing))

    # The new file's lines: runs of old lines copied as they are, and a new line for each
    # memory changed or added (made below, once it is known the splice can be done). Found
    # with C loops (map, compress) over the memories: a file may hold 100,000 of them.
    olds: list[MemoryEntry | None] = [*old_entries, None]
    same = list(map(is_, entries, map(olds.__getitem__, places)))
    # Another object of a memory the base holds may have the same row: one whose score alone
    # changed (decay rescores every memory each day) keeps its line, which holds its anchor
    # and not its score (every other field is in the row or in the session-start lines).
    other = list(compress(range(total_new), map(not_, same)))
    other = list(compress(other, map(ne, map(places.__getitem__, other), repeat(count))))
    rows = map(but_score, map(entries.__getitem__, other))
    before = map(but_score, map(olds.__getitem__, map(places.__getitem__, other)))
    exhaust(map(same.__setitem__, other, map(eq, rows, before)))
    if flipped:  # (most saves: none)
        for number in compress(range(total_new), map(flipped.__contains__, new_id_list)):
            same[number] = False  # its row changes: another memory replaces it, or no longer
    new_sizes = list(map([*sizes, 0].__getitem__, places))
    fresh_at = list(compress(range(total_new), map(not_, same)))
    # Where a run of copied lines breaks: a changed memory, or a line that does not follow
    # the one before it in the last file.
    # (Where the ends are alike, none breaks: each line follows the one before it.)
    shift = list(map(sub, places[lo - 1 : hi], range(lo - 1, hi)))
    breaks = compress(range(lo, hi), map(ne, shift[1:], shift[:-1]))
    bounds = sorted({0, total_new, *fresh_at, *(n + 1 for n in fresh_at), *breaks})
    # Each run's bytes in the last file: from its first line's start to its last line's end
    # (a day's decay reorders a large file: tens of thousands of runs, cut by C loops).
    firsts = map(starts.__getitem__, map(places.__getitem__, bounds[:-1]))
    lasts = list(map(places.__getitem__, map(sub, bounds[1:], repeat(1))))
    ends = map(add, map(starts.__getitem__, lasts), map([*sizes, 0].__getitem__, lasts))
    # (Each run a span of the last file, copied into the new one when it is written.)
    pieces: list[bytes | memoryview | Span] = list(
        map(Span, repeat(search.path), firsts, ends, repeat(search.seen))
    )
    # Where in pieces and sizes each changed memory goes, and the memory (its line is made
    # below, once it is known the splice can be done).
    changed: list[tuple[int, int, MemoryEntry]] = []
    for run in compress(range(len(pieces)), map(not_, map(same.__getitem__, bounds[:-1]))):
        changed.append((run, bounds[run], entries[bounds[run]]))
        pieces[run] = b""

    def old_line(number: int) -> bytes:
        return search.line(starts[number], sizes[number])

    # What leaves: the memories removed, and the old versions of those changed (each with
    # its row).
    staying = total_new - places.count(count)  # the base's memories still there
    gone_at = [] if staying == count else [known.at[i] for i in set(ids).difference(new_ids)]
    gone = list(map(old_entries.__getitem__, gone_at))
    changed_at = [places[n] for _, n, _ in changed if places[n] != count]
    leaving = gone + list(map(old_entries.__getitem__, changed_at))
    leaving_at = gone_at + changed_at
    fresh = []
    for piece, size, entry in changed:
        part = _made(entry, entry.id in replaced, {})
        fresh.append(part)
        pieces[piece] = part.json()
        new_sizes[size] = len(pieces[piece])
    for number in leaving_at:
        length -= int(old_line(number).rsplit(b",", 1)[1])
    length += sum(p.length for p in fresh)

    lines: Any = None
    grouped_files = any(map(attrgetter("group"), entries))
    same_day = built <= stamp < min(until, steady)
    if same_day and any(map(attrgetter("group"), old_entries)) == grouped_files:
        last = _Last(shown, groups, counts, total, until, steady)
        lines = _spliced(last, known, gone, leaving, fresh, now, grouped_files)
    if lines is None:

        def line_of(entry_id: str) -> str:
            number = known.number(entry_id)
            if number is None:
                raise KeyError(entry_id)
            row = json.loads(b"[" + old_line(number) + b"]")[0]
            return str(row).split("\t", 7)[7]

        # A shown memory left or decayed since, or a day passed: the lines chosen again
        # from every memory's score (its row, line and tokens spliced all the same).
        try:
            lines = _anew(entries, {p.entry.id: p for p in fresh}, now, line_of)
        except (ValueError, IndexError, TypeError, KeyError):
            return None  # a row that is not one
        built = (stamp // _DAY) * _DAY
    shown, total, grouped, until, steady = lines

    by_fresh = {p.entry.id: p.group for p in fresh}

    def group_of(entry_id: str) -> str:
        if entry_id in by_fresh:
            return by_fresh[entry_id]
        old = known.get(entry_id) if entry_id in new_ids else None
        return "none" if old is None else old.group or "none"

    made = prompt.get("profile")
    unchanged = prompt.get("profile_of") == _profile_key(profile) and isinstance(made, list)
    profile_texts, profile_groups = _profile_parts(profile, group_of, made if unchanged else None)
    if len(profile_texts) != len(profile_groups):
        return None
    key_part = {"version": VERSION, "sha256": sha256, "built": built, "until": until}
    prompt_part = {
        **key_part,
        "lines": [line for _, line in shown],
        "ids": [i for i, _ in shown],
        "total": total,
        "groups": grouped,
        "profile": profile_texts,
        "profile_of": _profile_key(profile),
        "profile_groups": profile_groups,
    }
    count = len(entries)
    head_part = {**key_part, "average": (length / count) if count else 0.0, "length": length}
    written = _search_file(head_part, pieces)
    return Built(files, prompt_part, None, [], written, (new_id_list, new_sizes), steady)
