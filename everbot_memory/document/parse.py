"""MEMORY.md text to a :class:`Document`: tolerant reading that never raises on text.

Every source line is either part of something the engine understands (title, header, section
heading, entry) or kept as a person's text: before the first section as the preamble, after it
as notes. So nothing a person wrote is dropped by a save.

A save records what its text parses into beside the file (``storage/parsed.py``), and the next
process reads that instead of parsing the same text again: a change to what a text parses into
must bump that record's ``FORMAT``, so that records made by the old parser are not read.
"""

from __future__ import annotations

import re
from datetime import datetime

from ..core.clock import utcnow
from ..core.collector import collection_paused
from ..core.entry import MemoryEntry
from .blocks import Block, read_blocks
from .conflicts import sides
from .content import decode_content
from .grammar import (
    CANONICAL_RE,
    HEADER_RE,
    META_PREFIX,
    NOTES,
    NOTES_INTRO,
    PROFILE,
    PROFILE_INTRO,
    TITLE,
    Unreadable,
    canonical_heading,
    looks_like_entry,
    parse_heading,
    section_named,
)
from .meta import entry_fields, parse_meta
from .model import Document, Problem

__all__ = ["parse"]


def parse(text: str, now: datetime | None = None, *, both_sides: bool = True) -> Document:
    """Read MEMORY.md text into a :class:`Document`. Never raises on text.

    ``now`` is when a hand-edited score starts to decay (default: the clock). A file holding
    a line merge's conflicts is read as both sides' memories (see :mod:`.conflicts`); with
    ``both_sides`` False, as it stands (the three-way merge, which must see the conflict).
    """
    with collection_paused():
        if both_sides and "<<<<<<<" in text:
            split = sides(text)
            if split is not None:
                return _both_sides(*split, now)
        return _parse(text, now)


def _both_sides(ours: str, theirs: str, line: int, now: datetime | None) -> Document:
    """A file holding a line merge's conflicts, read as both sides' memories (ours where both
    hold one), with a warning: nothing to write until a person settles it."""
    # Each side read the same way: a merge of merges leaves conflicts inside a side.
    doc, other = parse(ours, now), parse(theirs, now)
    have = {e.id for e in doc.entries}
    doc.entries += [e for e in other.entries if e.id not in have]
    doc.preamble += [b for b in other.preamble if b not in doc.preamble]
    doc.notes += [b for b in other.notes if b not in doc.notes]
    doc.problems.append(
        Problem(
            line,
            "a merge conflict (from <<<<<<< to >>>>>>>): both sides' memories are read; keep "
            "the right text and delete the marker lines to write the file again",
            "warning",
        )
    )
    return doc


def _parse(text: str, now: datetime | None) -> Document:
    now = (now or utcnow()).replace(microsecond=0)
    doc = Document()
    problems = doc.problems
    if text.startswith("\ufeff"):
        text = text[1:]
        problems.append(Problem(1, "removed the byte order mark"))
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        problems.append(Problem(1, "converted CRLF line endings to LF"))
    lines = text.split("\n")
    blocks = read_blocks(lines)

    # Spans of lines the engine understands; every other line is a person's text.
    consumed: list[tuple[int, int]] = []
    title_line: int | None = None
    sections: list[tuple[int, str]] = []  # (line, section name), in file order
    body_start: int | None = None  # first section or entry: text after it is a note
    taken_ids: set[str] = set()

    def consume(start: int, end: int) -> None:
        consumed.append((start, end))

    for block in blocks:
        hidden = _headings_in_unclosed_fence(lines, block) if block.kind == "fence" else 0
        if hidden:
            problems.append(
                Problem(
                    block.start + 1,
                    f"a code fence opened here never closes, so the {hidden} memory "
                    "heading(s) after it read as its text; close it with a line of ```",
                    "warning",
                )
            )
    i = 0
    while i < len(blocks):
        block = blocks[i]
        i += 1
        line_no = block.start + 1
        if block.unclosed and not block.text.startswith(META_PREFIX):
            problems.append(
                Problem(
                    line_no,
                    "an HTML comment opened here never closes; read as this one line "
                    "so it hides nothing after it (close it with -->)",
                    "warning",
                )
            )
        if block.kind == "html_block" and body_start is None and HEADER_RE.match(block.text):
            match = HEADER_RE.match(block.text)
            assert match is not None
            if match.group(1).lower() == "last updated":
                doc.last_updated = match.group(2)
            consume(block.start, block.end)
            continue
        if block.kind == "html_block" and block.text == NOTES_INTRO:
            consume(block.start, block.end)
            continue
        if block.kind != "heading_open":
            continue
        canonical = CANONICAL_RE.fullmatch(block.text)  # most headings: skip the checks below
        if (
            canonical is None
            and title_line is None
            and body_start is None
            and block.text.casefold() == TITLE.casefold()
        ):
            title_line = block.start
            if block.level != 1:
                problems.append(Problem(line_no, f"title heading had {block.level} '#'; now 1"))
            consume(block.start, block.end)
            continue
        section = None if canonical else section_named(block.text)
        if section is not None:
            body_start = block.start if body_start is None else body_start
            sections.append((block.start, section))
            consume(block.start, block.end)
            if block.level != 2:
                problems.append(Problem(line_no, f"section heading had {block.level} '#'; now 2"))
            if section == PROFILE:
                # Everything up to the next heading is the profile's: the engine's derived
                # lines (dropped: a save derives them anew) and a person's own (kept).
                end = block.end
                while i < len(blocks) and blocks[i].kind != "heading_open":
                    end = blocks[i].end
                    i += 1
                doc.profile += _person_lines(lines[block.end : end])
                consume(block.start, end)
            continue
        if canonical is None and not looks_like_entry(block.text):
            continue

        # An entry: heading, optional metadata line, then the content blocks that follow
        # without a blank line between them.
        body_start = block.start if body_start is None else body_start
        try:
            heading = parse_heading(block.text, canonical)
        except Unreadable as exc:
            problems.append(
                Problem(line_no, f"cannot read this entry ({exc}); kept as a note", "warning")
            )
            continue
        end = block.end
        meta: dict[str, object] | None = None
        meta_line = ""
        following = blocks[i] if i < len(blocks) else None
        if (
            following is not None
            and following.kind == "html_block"
            and following.start == end
            and following.text.startswith(META_PREFIX)
        ):
            try:
                meta = parse_meta(following.text)
                meta_line = following.text
            except ValueError as exc:
                problems.append(Problem(end + 1, f"hidden metadata unreadable ({exc}); rebuilt"))
            end = following.end
            i += 1
        content_blocks: list[Block] = []
        while i < len(blocks) and blocks[i].kind != "heading_open":
            nxt = blocks[i]
            gap = "\n".join(lines[end : nxt.start]).strip()
            if gap or (content_blocks and nxt.start != end):
                break  # a blank line (or unparsed text) ends the content
            content_blocks.append(nxt)
            end = nxt.end
            while end > nxt.start + 1 and not lines[end - 1].strip():
                end -= 1  # a list's range takes in the blank line after it
            i += 1
        if not content_blocks:
            problems.append(
                Problem(
                    line_no, "entry has no content under its heading; kept as a note", "warning"
                )
            )
            continue
        reported = len(problems)
        try:
            content = decode_content(lines, content_blocks, end)
            entry = MemoryEntry.from_file(
                **entry_fields(heading, meta, content, now, line_no, problems, taken_ids)
            )
        except ValueError as exc:
            problems.append(
                Problem(line_no, f"cannot read this entry ({exc}); kept as a note", "warning")
            )
            continue
        if block.level != 3:
            problems.append(Problem(line_no, f"entry heading had {block.level} '#'; now 3"))
        elif (
            not (heading.canonical and lines[block.start] == "### " + block.text)
            and lines[block.start] != canonical_heading(entry)
            and len(problems) == reported
        ):
            problems.append(Problem(line_no, "entry heading reformatted"))
        elif (
            heading.canonical
            and len(problems) == reported
            and block.end + 1 == content_blocks[0].start
            and lines[block.start] == "### " + block.text
            and lines[block.end] == meta_line
            and (content_blocks[0].kind == "fence" or content == entry.content)
        ):
            # Written the canonical way (heading, metadata, content; nothing repaired): a
            # save may write this text again while the entry stays the same.
            doc.sources[entry.id] = (entry, "\n".join(lines[block.start : end]).encode("utf-8"))
        taken_ids.add(entry.id)
        consume(block.start, end)
        doc.entries.append(entry)
        doc.lines[entry.id] = line_no

    # Every line not consumed is a person's text, kept: before the first section or entry as
    # the preamble, after it as notes.
    split = len(lines) if body_start is None else body_start
    warned = {p.line for p in problems if p.kind == "warning"}
    cursor = 0
    for start, end in [*sorted(consumed), (len(lines), len(lines))]:
        for target, lo, hi in (
            (doc.preamble, cursor, min(start, split)),
            (doc.notes, max(cursor, split), start),
        ):
            if hi <= lo or (hi == lo + 1 and not lines[lo].strip()):
                continue  # nothing, or the blank line between two entries
            chunk = _trim_blank(lines[lo:hi])
            if not chunk:
                continue
            target.append("\n".join(chunk))
            first = lo + next(n for n, line in enumerate(lines[lo:hi]) if line.strip())
            if target is doc.preamble and title_line is not None and first < title_line:
                problems.append(Problem(first + 1, "text before the title moved below it"))
            if target is doc.notes and first + 1 not in warned:
                section = next((name for at, name in reversed(sections) if at < first), None)
                if section != NOTES:
                    problems.append(
                        Problem(first + 1, f"text among the entries moved to ## {NOTES}")
                    )
        cursor = max(cursor, end)
    problems.sort(key=lambda p: p.line)
    return doc


def _person_lines(lines: list[str]) -> list[str]:
    """A person's items of the Profile section, each as written: a bullet at the margin (or a
    paragraph) and the lines that follow it up to the next bullet or blank line (sub-bullets
    stay with their line). Left out: blank lines, the
    section's own comment, and derived lines still as the engine wrote them (an edited one is
    the person's now, without its comment)."""
    from ..core.profile import read_line

    items: list[list[str]] = []
    open_item = False
    for line in lines:
        text = line.rstrip()
        if not text.strip():
            open_item = False
            continue
        if text.strip() == PROFILE_INTRO:
            continue
        if open_item and (text[0] in " \t" or text[:2] not in ("- ", "* ", "+ ")):
            items[-1].append(text)  # under the line above, or the rest of its paragraph
        else:
            items.append([text])
            open_item = True
    kept: list[str] = []
    for item in items:
        first = item[0]
        read = read_line(first)
        if read is not None and read[2] and len(item) == 1:
            continue  # derived and untouched: made again at the next save
        if read is not None and "<!--" in first and "derived" in first:
            item[0] = f"- {read[0]}: {read[1]}"  # edited by a person: theirs, pinned
        kept.append("\n".join(item))
    return kept


def _trim_blank(lines: list[str]) -> list[str]:
    start, end = 0, len(lines)
    while start < end and not lines[start].strip():
        start += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    return lines[start:end]


_FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_ENTRY_HEADING = re.compile(r"^#{2,6}\s+(?:\[[^\]]*\]\s*)?[A-Za-z_]+\s*\|")


def _headings_in_unclosed_fence(lines: list[str], block: Block) -> int:
    """How many entry headings a fence that never closes swallows (0 when it closes).

    CommonMark runs an unclosed fence to the end of the file: the entries after it become its
    text. Nothing is lost (a save keeps the text), but a person should hear of it.
    """
    start, end = block.start, block.end
    opener = _FENCE_OPEN.match(lines[start]) if start < len(lines) else None
    if opener is None or any(line.strip() for line in lines[end:]):
        return 0  # not a fence, or something follows it: it closed
    marker = opener.group(1)
    last = lines[end - 1].strip() if end - 1 > start else ""
    if last.startswith(marker[0] * len(marker)) and not last.strip(marker[0]):
        return 0
    return sum(1 for line in lines[start + 1 : end] if _ENTRY_HEADING.match(line))
