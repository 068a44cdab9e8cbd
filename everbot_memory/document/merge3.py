"""Three-way merge of two MEMORY.md files from their common ancestor, entry by entry.

This is what ``everbot-memory merge-driver`` runs when git merges, rebases or cherry-picks the
file. A line-by-line merge sees a memory as lines: two machines that both confirmed one memory
conflict inside its heading and hidden metadata, and two that both learned something new
conflict, or duplicate it, wherever the file order puts it. Here memories are matched by id:

- added on one side: kept; deleted on one side and untouched on the other: deleted; deleted on
  one side and changed on the other: kept (a change outlives a deletion). Decay alone is not a
  change: it only brings the score up to date.
- changed on both sides: each field merged three ways. Hits are the ancestor's count plus what
  each side added; the last activation is the later one; the score is the later side's anchor
  reinforced once for every hit the other side added, decaying from the later activation, and
  shown as of the later of the two files (``Last updated``).
- content changed on one side only: that side's. Changed differently on both: the memory keeps
  one text (the more recently activated side's) and the other is kept beside it, between
  standard conflict markers in the Notes section, for a person to settle: the merge reports a
  conflict.
- added on both sides with the same text, or saying the same thing in other words (the
  engine's duplicate rule, :mod:`everbot_memory.core.duplicates`): one memory; two different
  memories that drew the same id: both, one under a new id.
- the text before the first section and the notes (unreadable blocks among them): merged three
  ways block by block, additions of both sides kept in order, none twice.

Every choice depends on the two sides' contents, never on which of them is "ours", so merging
A into B and B into A (a merge, or the same change replayed by a rebase or a cherry-pick) give
the same file. Merging a result with itself gives it back unchanged. Pure: text in, text out,
the clock only as ``now`` (when a score a person typed starts to decay).
"""

from __future__ import annotations

import bisect
import dataclasses
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from ..core.clock import iso, stable_id
from ..core.duplicates import find_duplicates
from ..core.entry import MemoryEntry
from ..core.merge import SCORE_FIELDS, fingerprint
from ..core.scoring import decayed_score, file_order, reinforced_score, score_at
from .blocks import read_blocks
from .conflicts import CLOSER as _CLOSER
from .conflicts import OPENER as _OPENER
from .conflicts import conflict_line
from .content import UNSAFE_RE, fence, json_string
from .grammar import ACTIVE, ARCHIVED, NOTES, TITLE, parse_time
from .model import Document
from .parse import parse
from .render import render_body, render_entry, render_header, render_parts

__all__ = ["MergeOutcome", "base_entries", "conflict_line", "merge_texts"]


@dataclass
class MergeOutcome:
    """What a three-way merge of the file gave.

    ``text`` is the merged file, or None when the sides could not be merged as memory files
    (``reason`` says why: the caller falls back to a line merge with conflict markers).
    ``conflicts`` has one line for each thing left for a person.
    """

    text: str | None
    conflicts: list[str] = field(default_factory=list)
    reason: str = ""
    #: Memories in the result, those taken from one side's addition, those deleted, those
    #: combined from changes on both sides, and additions folded into another that says the same.
    entries: int = 0
    added: int = 0
    deleted: int = 0
    combined: int = 0
    folded: int = 0

    @property
    def clean(self) -> bool:
        """True when the merge left nothing for a person."""
        return self.text is not None and not self.conflicts


# -- conflict markers


def _conflict_block(entry: MemoryEntry, other: str, size: int) -> str:
    """The other side's text of ``entry``, beside the text it keeps, between conflict markers.

    Both texts are fenced, so no line of theirs can read as a marker or as a memory.
    """
    return "\n".join(
        [
            f"{'<' * size} [{entry.id}] was changed on both sides; the memory keeps this text:",
            "",
            _quoted(entry.content),
            "",
            "=" * size,
            "",
            _quoted(other),
            "",
            f"{'>' * size} [{entry.id}] the other side's text. Put the right text in the "
            "memory, then delete these lines.",
        ]
    )


def _quoted(content: str) -> str:
    if UNSAFE_RE.search(content) or "<!--" in content:
        return fence(json_string(content), "memory-json")
    return fence(content, "memory")


# -- the ancestor


_ENTRY_AT = re.compile(r"^### \[([A-Za-z0-9_-]{1,40})\] ", re.M)
_HEADING_AT = re.compile(r"^ {0,3}#{1,6}(?:[ \t]|$)", re.M)
_FENCE_LINE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$", re.M)
_STRUCTURE = {f"# {TITLE}", f"## {ACTIVE}", f"## {ARCHIVED}", f"## {NOTES}"}


def base_entries(text: str, wanted: Iterable[str], now: datetime) -> dict[str, MemoryEntry]:
    """The entries of ``text`` (the common ancestor) with the ``wanted`` ids that it holds.

    A merge usually needs the ancestor's version of a few memories only. In a file laid out as
    the engine writes it, each memory is read alone, which on a large file costs a small part
    of reading it all; any other file is read whole, and so is one where reading alone could
    differ from reading whole (a fence or a comment that is not the engine's own, an id twice).
    """
    wanted = sorted(set(wanted))
    if not wanted:
        return {}
    pieces = _pieces(text, wanted)
    if pieces is not None:
        if not pieces:
            return {}
        doc = parse(f"## {ACTIVE}\n\n" + "\n\n".join(pieces.values()), now, both_sides=False)
        found = {e.id: e for e in doc.entries}
        if (
            set(found) == set(pieces)
            and len(doc.entries) == len(pieces)
            and not doc.notes
            and not doc.preamble
            and not any(p.kind == "warning" for p in doc.problems)
        ):
            return found
    every = {e.id: e for e in parse(text, now, both_sides=False).entries}
    return {i: every[i] for i in wanted if i in every}


def _pieces(text: str, wanted: list[str]) -> dict[str, str] | None:
    """The text of each wanted memory (id -> text) in a file laid out as the engine writes it;
    None when the file is laid out otherwise."""
    if "\r" in text or text.startswith("\ufeff"):
        return None
    starts: dict[str, list[int]] = {}
    for match in _ENTRY_AT.finditer(text):
        starts.setdefault(match.group(1), []).append(match.start())
    entry_starts = {at for ats in starts.values() for at in ats}
    headings = [m.start() for m in _HEADING_AT.finditer(text)]
    for at in headings:
        if at not in entry_starts:
            end = text.find("\n", at)
            if text[at : None if end < 0 else end] not in _STRUCTURE:
                return None  # a heading the engine does not write: read the whole file
    if any(len(ats) > 1 for ats in starts.values()):
        return None
    opener: str | None = None
    for match in _FENCE_LINE.finditer(text):
        marker, rest = match.group(1), match.group(2)
        if opener is None:
            if not marker.startswith("`") or rest not in ("memory", "memory-json"):
                return None
            opener = marker
        elif marker.startswith(opener[0]) and len(marker) >= len(opener) and not rest.strip():
            opener = None
        else:
            return None
    if opener is not None:
        return None
    for line in text.split("<!--")[1:]:
        if "-->" not in line.split("\n", 1)[0]:
            return None  # a comment that goes on past its line
    pieces: dict[str, str] = {}
    for entry_id in wanted:
        ats = starts.get(entry_id)
        if not ats:
            continue
        at = ats[0]
        following = bisect.bisect_right(headings, at)
        end = headings[following] if following < len(headings) else len(text)
        pieces[entry_id] = text[at:end].rstrip("\n")
    return pieces


# -- text beside the memories


def _units(chunks: Sequence[str]) -> list[str]:
    """A person's text (the preamble or the notes) cut into its blocks: the paragraphs, lists,
    fences, comments between blank lines; a conflict (``<<<<<<<`` to ``>>>>>>>``) is one."""
    units: list[str] = []
    for chunk in chunks:
        lines = chunk.split("\n")
        inside: set[int] = set()
        for block in read_blocks(lines):
            last = block.end
            while last > block.start and not lines[last - 1].strip():
                last -= 1
            inside.update(range(block.start + 1, last))
        current: list[str] = []
        for number, line in enumerate(lines):
            if not line.strip() and number not in inside:
                if current:
                    units.append("\n".join(current))
                    current = []
            else:
                current.append(line)
        if current:
            units.append("\n".join(current))
    joined: list[str] = []
    open_conflict = False
    for unit in units:
        if open_conflict:
            joined[-1] += "\n\n" + unit
            open_conflict = not _CLOSER.match(unit)
        else:
            joined.append(unit)
            open_conflict = bool(_OPENER.match(unit)) and not any(
                _CLOSER.match(line) for line in unit.split("\n")[1:]
            )
    return joined


def _merge_units(base: list[str], ours: list[str], theirs: list[str]) -> list[str]:
    """Blocks of text merged three ways: a block deleted on either side goes; what either
    side added is kept where it was added, both sides' additions at one place in an order
    that does not depend on which side is which; no added block twice."""
    if ours == theirs or base == theirs:
        return ours
    if base == ours:
        return theirs
    from difflib import SequenceMatcher  # here: the writers that import this never need it

    removed: set[int] = set()
    added: dict[int, list[list[str]]] = {}
    for side in (ours, theirs):
        matcher = SequenceMatcher(None, base, side, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag in ("delete", "replace"):
                removed.update(range(i1, i2))
            if tag in ("insert", "replace"):
                added.setdefault(i1, []).append(side[j1:j2])
    kept = [unit for i, unit in enumerate(base) if i not in removed]
    seen = set(kept)
    result: list[str] = []
    for i in range(len(base) + 1):
        for run in sorted(added.get(i, []), key="\n\n".join):
            for unit in run:
                if unit not in seen:
                    seen.add(unit)
                    result.append(unit)
        if i < len(base) and i not in removed:
            result.append(base[i])
    return result


# -- memories


_EVENT_FIELDS = tuple(f.name for f in dataclasses.fields(MemoryEntry) if f.name != "score")
_ANCHOR_FIELDS = ("base_score", "base_at")


def _same(a: MemoryEntry, b: MemoryEntry, names: Sequence[str]) -> bool:
    return all(getattr(a, name) == getattr(b, name) for name in names)


def _untouched(entry: MemoryEntry, base: MemoryEntry) -> bool:
    """True when ``entry`` differs from ``base`` at most by decay (a score brought up to date)."""
    return _same(entry, base, _EVENT_FIELDS)


def _order(a: MemoryEntry, b: MemoryEntry) -> tuple[MemoryEntry, MemoryEntry]:
    """The two versions of a memory, the one to prefer first: the later activated, the one
    with more hits, then by their text (so the choice does not depend on the sides' order)."""

    def key(e: MemoryEntry) -> tuple[float, int, str]:
        return (-e.last_activated.timestamp(), -e.activation_count, render_entry(e))

    return (a, b) if key(a) <= key(b) else (b, a)


def _reinforced(score: float, times: int) -> float:
    for _ in range(max(0, times)):
        score = reinforced_score(score)
    return score


def _anchor(x: MemoryEntry, y: MemoryEntry, x_hits: int, y_hits: int) -> tuple[float, datetime]:
    """The anchor of a memory scored on both sides: each side's anchor brought to the later
    of the two, reinforced once for each hit the other side added; the later side's, or on a
    tie the higher."""
    at = max(x.anchor[1], y.anchor[1])
    from_x = _reinforced(score_at(x, at), y_hits)
    from_y = _reinforced(score_at(y, at), x_hits)
    if x.anchor[1] != y.anchor[1]:
        return (from_x if x.anchor[1] > y.anchor[1] else from_y), at
    return max(from_x, from_y), at


def _three(base: object, x: object, y: object) -> tuple[bool, object]:
    """A field merged three ways: (True, value) when at most one side changed it (or both
    alike); (False, None) when they changed it differently."""
    if x == y or y == base:
        return True, x
    if x == base:
        return True, y
    return False, None


def _ids(base: tuple[str, ...], x: tuple[str, ...], y: tuple[str, ...]) -> tuple[str, ...]:
    """Id lists merged as sets: the ancestor's order, then additions sorted."""
    agreed, value = _three(base, x, y)
    if agreed:
        assert isinstance(value, tuple)
        return value
    gone = (set(base) - set(x)) | (set(base) - set(y))
    new = sorted((set(x) | set(y)) - set(base) - gone)
    return (*[i for i in base if i not in gone], *new)


class _Merge:
    """One merge of two parsed sides (and the ancestor's memories they need)."""

    def __init__(self, ours: Document, theirs: Document, marker_size: int) -> None:
        self.size = marker_size
        self.outcome = MergeOutcome(None)
        #: The conflicts' text, for the Notes section.
        self.notes: list[str] = []
        #: When the later side's file was written: combined scores are shown as of then.
        self.as_of = _later(_as_of(ours), _as_of(theirs))

    def settled(self, entry: MemoryEntry) -> MemoryEntry:
        """The entry with its score shown as of the later side's file."""
        if self.as_of is None:
            return entry
        score = decayed_score(*entry.anchor, entry.last_activated, self.as_of)
        return entry if score == entry.score else entry.replace(score=score)

    def changed_on_both(self, base: MemoryEntry, x: MemoryEntry, y: MemoryEntry) -> MemoryEntry:
        """A memory of the ancestor that both sides changed, differently."""
        if _untouched(y, base):
            return self.settled(x)
        if _untouched(x, base):
            return self.settled(y)
        self.outcome.combined += 1
        first, second = _order(x, y)
        fields: dict[str, object] = {}
        agreed, content = _three(base.content, x.content, y.content)
        if agreed:
            fields["content"] = content
        else:
            fields["content"] = first.content
            self.notes.append(_conflict_block(first, second.content, self.size))
            self.outcome.conflicts.append(
                f"memory [{base.id}] was changed differently on both sides: it keeps one "
                "text, the other is beside it between conflict markers in the Notes section"
            )
        for name in ("category", "source_session", "group", "condensed_into"):
            agreed, value = _three(getattr(base, name), getattr(x, name), getattr(y, name))
            fields[name] = value if agreed else getattr(first, name)
        agreed, created = _three(base.created_at, x.created_at, y.created_at)
        fields["created_at"] = created if agreed else min(x.created_at, y.created_at)
        agreed, expires = _three(base.expires_at, x.expires_at, y.expires_at)
        if not agreed:
            # The later expiry (or none: never) keeps the memory longest: nothing is lost.
            ends = (x.expires_at, y.expires_at)
            expires = None if ends[0] is None or ends[1] is None else max(ends[0], ends[1])
        fields["expires_at"] = expires
        fields["merged_ids"] = _ids(base.merged_ids, x.merged_ids, y.merged_ids)
        fields["replaces"] = _ids(base.replaces, x.replaces, y.replaces)
        fields["condensed_from"] = _ids(base.condensed_from, x.condensed_from, y.condensed_from)
        fields.update(self._scores(base, x, y))
        return self.settled(base.replace(**fields))

    def _scores(
        self, base: MemoryEntry | None, x: MemoryEntry, y: MemoryEntry
    ) -> dict[str, object]:
        """Hits, activation and anchor of a memory scored on both sides (``base`` None: the
        sides learned it independently, each hit of one side a confirmation for the other)."""
        if base is not None and _same(x, base, SCORE_FIELDS[1:]):
            return {name: getattr(y, name) for name in SCORE_FIELDS}
        if base is not None and _same(y, base, SCORE_FIELDS[1:]):
            return {name: getattr(x, name) for name in SCORE_FIELDS}
        was = 0 if base is None else base.activation_count
        x_hits, y_hits = x.activation_count - was, y.activation_count - was
        fields: dict[str, object] = {
            "activation_count": max(0, was + x_hits + y_hits),
            "last_activated": max(x.last_activated, y.last_activated),
        }
        if base is not None and _same(x, base, _ANCHOR_FIELDS):
            score, at = y.anchor
        elif base is not None and _same(y, base, _ANCHOR_FIELDS):
            score, at = x.anchor
        else:
            score, at = _anchor(x, y, x_hits, y_hits)
        fields.update(score=score, base_score=score, base_at=at)
        return fields

    def copies(self, x: MemoryEntry, y: MemoryEntry) -> MemoryEntry:
        """One memory both sides added (same id, same text), in different states."""
        self.outcome.combined += 1
        first, second = _order(x, y)
        if x.created_at == y.created_at:
            # One memory copied to both sides (a cherry-pick) and changed since on one: the
            # later state holds the earlier.
            return self.settled(first)
        return self.fold(first, second)

    def fold(self, keep: MemoryEntry, other: MemoryEntry) -> MemoryEntry:
        """``other`` (learned on one side) folded into ``keep`` (the other side's), which says
        the same: the hits add up, and each side's hits confirm the other's memory."""
        fields = self._scores(None, keep, other)
        absorbed = [*keep.merged_ids]
        if other.id != keep.id:
            absorbed += [other.id, *other.merged_ids]
        fields.update(
            created_at=min(keep.created_at, other.created_at),
            merged_ids=tuple(dict.fromkeys(absorbed)),
            replaces=tuple(dict.fromkeys([*keep.replaces, *other.replaces])),
            condensed_from=tuple(dict.fromkeys([*keep.condensed_from, *other.condensed_from])),
            group=keep.group or other.group,
        )
        return self.settled(keep.replace(**fields))


def _profile(base: list[str], a: Document, b: Document) -> list[str]:
    """A person's profile lines merged three ways: one side's change where the other left
    them; changed on both, every line either side holds (a's order first)."""
    if a.profile == b.profile or b.profile == base:
        return list(a.profile)
    if a.profile == base:
        return list(b.profile)
    return [*a.profile, *(line for line in b.profile if line not in a.profile)]


def _as_of(doc: Document) -> datetime | None:
    """When a side's scores were last brought up to date: its ``Last updated``, else its
    latest activation or anchor."""
    if doc.last_updated:
        parsed = parse_time(doc.last_updated)
        if parsed is not None:
            return parsed[0]
    return max((max(e.last_activated, e.anchor[1]) for e in doc.entries), default=None)


def _later(a: datetime | None, b: datetime | None) -> datetime | None:
    return b if a is None else a if b is None else max(a, b)


def merge_texts(
    base: str, ours: str, theirs: str, *, now: datetime, marker_size: int = 7
) -> MergeOutcome:
    """Merge ``ours`` and ``theirs``, two versions of MEMORY.md made from ``base``.

    ``now`` is when a score a person typed by hand starts to decay (as when the file is read).
    The result is checked to read back as meant; when it would not, ``text`` is None.
    """
    if ours == theirs or base == theirs:
        return _as_is(ours)
    if base == ours:
        return _as_is(theirs)
    a, b = parse(ours, now, both_sides=False), parse(theirs, now, both_sides=False)
    merge = _Merge(a, b, marker_size)
    outcome = merge.outcome
    in_a = {e.id: e for e in a.entries}
    in_b = {e.id: e for e in b.entries}
    result: dict[str, MemoryEntry] = {}
    # The same on both sides, or the same but for decay (each side brought the scores up to
    # its own day: on a large file most memories): the one decayed further, whatever the
    # ancestor held.
    for entry_id in in_a.keys() & in_b.keys():
        mine, other = in_a[entry_id], in_b[entry_id]
        if mine == other or _untouched(mine, other):
            result[entry_id] = mine if mine.score <= other.score else other
    differ = sorted(i for i in in_a.keys() | in_b.keys() if i not in result)
    ancestor = base_entries(base, differ, now)

    origin: dict[str, str] = {}  # id -> "a" or "b": a memory only that side added
    pairs: list[tuple[MemoryEntry, MemoryEntry]] = []  # both added one id, saying different things
    for entry_id in differ:
        x, y = in_a.get(entry_id), in_b.get(entry_id)
        old = ancestor.get(entry_id)
        if old is None:
            if x is not None and y is not None:
                if fingerprint(x) == fingerprint(y):
                    result[entry_id] = merge.copies(x, y)
                else:
                    pairs.append((x, y))
            else:
                only = x if x is not None else y
                assert only is not None
                result[entry_id] = only
                origin[entry_id] = "a" if x is not None else "b"
                outcome.added += 1
        elif x is None or y is None:
            kept = x if x is not None else y
            assert kept is not None
            if _untouched(kept, old):
                outcome.deleted += 1  # deleted on one side, only decayed on the other
            else:
                result[entry_id] = kept  # changed on one side outlives deleted on the other
        elif x == old:
            result[entry_id] = y
        elif y == old:
            result[entry_id] = x
        else:
            result[entry_id] = merge.changed_on_both(old, x, y)

    # Two memories that drew the same id: the one that came later gets a new one.
    taken = set(in_a) | set(in_b)
    for x, y in pairs:
        first, second = sorted((x, y), key=lambda e: (e.created_at, e.content))
        renamed = second.replace(id=stable_id(f"{second.id}|{second.content}", taken))
        taken.add(renamed.id)
        result[first.id], result[renamed.id] = first, renamed
        origin[first.id] = "a" if first is x else "b"
        origin[renamed.id] = "a" if second is x else "b"
        outcome.added += 2

    _fold_twins(merge, result, origin)

    # A person's text: the preamble and the notes, block by block.
    units_a = (_units(a.preamble), _units(a.notes))
    units_b = (_units(b.preamble), _units(b.notes))
    if units_a == units_b:
        preamble, notes = units_a
    else:
        whole = parse(base, now, both_sides=False)
        preamble = _merge_units(_units(whole.preamble), units_a[0], units_b[0])
        notes = _merge_units(_units(whole.notes), units_a[1], units_b[1])
    notes = [*notes, *(n for n in merge.notes if n not in notes)]

    entries = list(result.values())
    doc = Document(entries, preamble, notes)
    doc.profile = _profile(
        parse(base, now, both_sides=False).profile if a.profile != b.profile else [], a, b
    )
    doc.sources = _sources(a, b, entries)
    rendered = render_parts(doc, reuse=True)
    stamp = _stamp(a, b, merge.as_of)
    text = render_header(stamp, len(entries)) + rendered.text
    checked = _checked(text, doc, rendered.fresh, a, b, now)
    if checked:
        outcome.reason = checked
        return outcome
    outcome.text = text
    outcome.entries = len(entries)
    held = conflict_line(text)
    if held is not None and not outcome.conflicts:
        outcome.conflicts.append(f"an earlier conflict is still unresolved (line {held})")
    return outcome


def _as_is(text: str) -> MergeOutcome:
    """One side's file as the result (the other side changed nothing, or the same)."""
    outcome = MergeOutcome(text)
    held = conflict_line(text)
    if held is not None:
        outcome.conflicts.append(f"an earlier conflict is still unresolved (line {held})")
    return outcome


def _fold_twins(merge: _Merge, result: dict[str, MemoryEntry], origin: dict[str, str]) -> None:
    """Memories added on both sides that say the same thing in other words become one."""
    fresh = sorted((result[i] for i in origin), key=lambda e: (e.id, e.content))
    if not any(origin[e.id] == "a" for e in fresh) or not any(origin[e.id] == "b" for e in fresh):
        return
    matched: set[str] = set()
    for x, y, _ in find_duplicates(fresh):
        if origin[x.id] == origin[y.id] or x.id in matched or y.id in matched:
            continue
        matched.update((x.id, y.id))
        keep, other = sorted((x, y), key=lambda e: (-e.score, e.created_at, e.id))
        del result[other.id]
        result[keep.id] = merge.fold(keep, other)
        merge.outcome.folded += 1
        merge.outcome.added -= 1


def _sources(
    a: Document, b: Document, entries: Sequence[MemoryEntry]
) -> dict[str, tuple[MemoryEntry, bytes]]:
    """The text either side wrote for each memory the result holds unchanged (when both hold
    it in different text, neither: it is written anew)."""
    sources: dict[str, tuple[MemoryEntry, bytes]] = {}
    for entry in entries:
        texts = {
            source[1]
            for source in (a.sources.get(entry.id), b.sources.get(entry.id))
            if source is not None and source[0] == entry
        }
        if len(texts) == 1:
            sources[entry.id] = (entry, texts.pop())
    return sources


def _stamp(a: Document, b: Document, as_of: datetime | None) -> str:
    """The result's ``Last updated``: the later side's."""
    stamps = [
        (parsed[0], doc.last_updated)
        for doc in (a, b)
        if doc.last_updated and (parsed := parse_time(doc.last_updated)) is not None
    ]
    if stamps:
        return max(stamps)[1]
    return iso(as_of) if as_of is not None else (a.last_updated or b.last_updated or "")


_PROBE_NOTE = "The end of the merged text."
_PROBE_STAMP = "2000-01-01T00:00:00Z"


def _checked(
    text: str,
    doc: Document,
    fresh: list[MemoryEntry],
    a: Document,
    b: Document,
    now: datetime,
) -> str:
    """Why ``text`` would not read back as ``doc`` ("" when it does).

    Text taken from a side that read without a warning reads the same here, so only what was
    written anew is read back (with the person's text around it); otherwise all of it.
    """
    if any(p.kind == "warning" for p in (*a.problems, *b.problems)):
        reread = parse(text, now, both_sides=False)
        expected = sorted(doc.entries, key=file_order)
        notes = doc.notes
    else:
        probe = Document(fresh, doc.preamble, [*doc.notes, _PROBE_NOTE])
        reread = parse(render_header(_PROBE_STAMP, 0) + render_body(probe), now, both_sides=False)
        expected = sorted(fresh, key=file_order)
        notes = probe.notes
    if reread.entries != expected:
        return "the merged memories would not read back as merged"
    if "\n\n".join(reread.preamble) != "\n\n".join(doc.preamble) or "\n\n".join(
        reread.notes
    ) != "\n\n".join(notes):
        return "the text beside the memories would not read back as merged"
    return ""
