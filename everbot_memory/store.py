"""MEMORY.md on disk: tolerant parsing, the one canonical renderer, and safe saving.

The file grammar (what :func:`render` writes and :func:`parse` reads back)::

    # Agent Memory
    <!-- Last updated: ... -->  <!-- Total entries: N -->
    free text a person wrote before the first section (kept in place)
    ## Active Memories          entries with score >= 0.2, by score
    ## Archived Memories        entries with 0.05 <= score < 0.2, by score
    ## Notes                    text found among the entries, kept verbatim

    ### [id] category | score | last_activated | hits
    <!-- everbot {"score": ..., "base": ..., ...} -->   hidden metadata (exact values)
    content

Content is written as plain lines when that reads back exactly; otherwise in a fenced block
(```` ```memory ````), or, when it holds control characters, as a JSON string
(```` ```memory-json ````). So no content can create, hide or break another entry.

Parsing uses markdown-it-py's block tokens and their source line maps. Every source line is
either part of something the engine understands (title, header, section heading, entry) or kept
as a person's text: nothing a person wrote is dropped by a save.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import hashlib
import json
import os
import re
import stat
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

import filelock

from .errors import LockTimeoutError, NotTextError, StoreError
from .rules import ACTIVE_THRESHOLD, CATEGORIES, file_order, new_id, utcnow

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

    from .models import MemoryEntry

__all__ = [
    "DEFAULT_LOCK_TIMEOUT",
    "Document",
    "MemoryStore",
    "Problem",
    "PromptEntry",
    "parse",
    "parse_for_prompt",
    "render",
    "render_content",
    "write_atomically",
]

DEFAULT_LOCK_TIMEOUT = 10.0
TITLE = "Agent Memory"
ACTIVE = "Active Memories"
ARCHIVED = "Archived Memories"
NOTES = "Notes"
NOTES_INTRO = "<!-- Text kept as it was written; everbot-memory does not read it as memories. -->"
_META_PREFIX = "<!-- everbot "


@functools.cache
def _markdown() -> MarkdownIt:
    # Only block structure matters here, so inline parsing is off. Built on first use: a file
    # the fast path reads whole (the usual case at session start) never needs it.
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").disable(["inline", "text_join"])


@dataclass(frozen=True)
class Problem:
    """Something found while reading the file: a ``repair`` the next save makes, or a ``warning``
    about text the engine could not read as a memory (kept verbatim as a note)."""

    line: int
    message: str
    kind: Literal["repair", "warning"] = "repair"

    def __str__(self) -> str:
        where = f"line {self.line}" if self.line else "file"
        return f"{where}: {self.message}"


@dataclass
class Document:
    """A parsed MEMORY.md: the entries plus everything else the file holds."""

    entries: list[MemoryEntry] = field(default_factory=list)
    preamble: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    last_updated: str | None = None
    problems: list[Problem] = field(default_factory=list)
    lines: dict[str, int] = field(default_factory=dict)  # entry id -> its heading's line


# ---------------------------------------------------------------------------------------------
# Reading


@dataclass
class _Block:
    kind: str  # token type: heading_open, paragraph_open, fence, html_block, ...
    start: int  # first source line (0-based)
    end: int  # one past the last source line
    level: int = 0  # heading level
    text: str = ""  # heading text, html, or fence info


def _markdown_blocks(lines: list[str], offset: int = 0) -> list[_Block]:
    """Top-level blocks of ``lines`` as markdown-it-py parses them (line numbers + offset)."""
    blocks = []
    tokens: list[Token] = _markdown().parse("\n".join(lines))
    for i, token in enumerate(tokens):
        if token.level != 0 or token.nesting == -1 or token.map is None:
            continue
        block = _Block(token.type, token.map[0] + offset, token.map[1] + offset)
        if token.type == "heading_open":
            block.level = int(token.tag[1])
            block.text = tokens[i + 1].content.strip()
        elif token.type == "html_block":
            block.text = token.content.strip()
        elif token.type == "fence":
            block.text = token.info.strip()
        blocks.append(block)
    return blocks


# Reading a large file through markdown-it-py alone is slow (about 75 µs an entry here), so a
# fast path reads the parts of the file made only of lines whose meaning CommonMark leaves no
# room for: ATX headings at column 0, one-line HTML comments, blank lines, and lines that start
# with a letter (always paragraph text: they cannot open a fence, an HTML block, a list, a
# quote, a code block, a rule, a setext underline or a link definition). The file is cut into
# chunks at column-0 ATX headings; a chunk made only of such lines is read here, and every
# other run of chunks goes to markdown-it-py. Since a chunk read here always ends closed (a
# heading interrupts a paragraph), and a run parsed by markdown-it-py is checked to end closed
# (else it is extended), the result is the same as parsing the whole file with markdown-it-py.
# tests/test_store.py checks that on random documents.
_ATX_RE = re.compile(r"#{1,6}(?:[ \t]|$)")


def _atx_text(line: str, level: int) -> str:
    """The heading text as markdown-it-py gives it (closing ``#`` sequence removed)."""
    body = line[level:].rstrip(" \t")
    trimmed = body.rstrip("#")
    if len(trimmed) < len(body) and (not trimmed or trimmed[-1] in " \t"):
        body = trimmed
    return body.strip()


def _simple_kind(line: str) -> str | None:
    """The kind of a line the fast path understands, or None."""
    if not line.strip(" \t"):
        return "blank"
    first = line[0]
    if first.isalpha() and "\0" not in line:
        return "text"
    if first == "#" and _ATX_RE.match(line) and "\0" not in line:
        return "heading"
    if line.startswith("<!--") and "-->" in line and "\0" not in line:
        return "comment"
    return None


def _simple_blocks(lines: list[str], kinds: list[str], start: int, end: int) -> list[_Block]:
    blocks: list[_Block] = []
    i = start
    while i < end:
        kind = kinds[i]
        if kind == "heading":
            level = len(lines[i]) - len(lines[i].lstrip("#"))
            blocks.append(_Block("heading_open", i, i + 1, level, _atx_text(lines[i], level)))
            i += 1
        elif kind == "comment":
            blocks.append(_Block("html_block", i, i + 1, text=lines[i].strip()))
            i += 1
        elif kind == "text":
            j = i + 1
            while j < end and kinds[j] == "text":
                j += 1
            blocks.append(_Block("paragraph_open", i, j))
            i = j
        else:
            i += 1
    return blocks


def _closed_markdown_blocks(lines: list[str], start: int, end: int) -> list[_Block] | None:
    """markdown-it-py's blocks of lines[start:end], or None when the last one is still open
    (an unclosed fence or HTML block would run on into the lines after ``end``)."""
    probe = _markdown_blocks([*lines[start:end], "# probe"], start)
    last = probe[-1] if probe else None
    if last is None or last.kind != "heading_open" or last.start != end:
        return None
    return probe[:-1]


def _blocks(lines: list[str]) -> list[_Block]:
    kinds = [_simple_kind(line) or "" for line in lines]
    cuts = [i for i, kind in enumerate(kinds) if kind == "heading"]
    chunks = list(zip([0, *cuts], [*cuts, len(lines)], strict=True))
    chunks = [(a, b) for a, b in chunks if a < b]
    simple = [all(kinds[i] for i in range(a, b)) for a, b in chunks]
    blocks: list[_Block] = []
    n = 0
    while n < len(chunks):
        start, end = chunks[n]
        if simple[n]:
            blocks += _simple_blocks(lines, kinds, start, end)
            n += 1
            continue
        # A run of chunks the fast path cannot read: markdown-it-py reads it, taking in more
        # chunks while the run ends inside an open block.
        m = n
        while m + 1 < len(chunks) and not simple[m + 1]:
            m += 1
        while True:
            end = chunks[m][1]
            found = _closed_markdown_blocks(lines, start, end) if m + 1 < len(chunks) else None
            if found is not None or m + 1 >= len(chunks):
                blocks += found if found is not None else _markdown_blocks(lines[start:], start)
                break
            m += 1
        n = m + 1
    return blocks


_HEADER_RE = re.compile(r"^<!--\s*(Last updated|Total entries)\s*:\s*(.*?)\s*-->$", re.I)
_HEADING_RE = re.compile(r"^(?:\[\s*(?P<id>[^\]]*?)\s*\])?\s*(?P<rest>.*)$", re.S)
_ID_RE = re.compile(r"^[A-Za-z0-9_-]{1,40}$")
_DATE_RE = re.compile(
    r"^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})"
    r"(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?\s*(Z|[+-]\d{2}:?\d{2})?$",
    re.I,
)
_SCORE_RE = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)%?$")
_CATEGORY_ALIASES = {
    "preferences": "preference",
    "pref": "preference",
    "facts": "fact",
    "experiences": "experience",
    "workflows": "workflow",
    "habit": "workflow",
    "habits": "workflow",
    "decisions": "decision",
    "skill": "skill_usage",
    "skills": "skill_usage",
    "skillusage": "skill_usage",
    "todos": "todo",
    "task": "todo",
    "tasks": "todo",
}


def _section_of(text: str) -> str | None:
    name = text.strip().rstrip(":").strip().casefold()
    return {
        "active memories": ACTIVE,
        "active": ACTIVE,
        "archived memories": ARCHIVED,
        "archived": ARCHIVED,
        "archive": ARCHIVED,
        "notes": NOTES,
    }.get(name)


def _parse_time(text: str) -> tuple[datetime, bool] | None:
    """A date or date-time as a person may write it; returns (UTC time, had a time part)."""
    match = _DATE_RE.match(text.strip())
    if not match:
        return None
    year, month, day, hour, minute, second, zone = match.groups()
    try:
        value = datetime(
            int(year), int(month), int(day), int(hour or 0), int(minute or 0), int(second or 0)
        )
    except ValueError:
        return None
    tz = timezone.utc
    if zone and zone.upper() != "Z":
        sign = 1 if zone[0] == "+" else -1
        digits = zone[1:].replace(":", "")
        tz = timezone(sign * timedelta(hours=int(digits[:2]), minutes=int(digits[2:])))
    return value.replace(tzinfo=tz).astimezone(timezone.utc), hour is not None


def _iso(value: datetime) -> str:
    return value.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class _Heading:
    id: str | None
    category: str
    score: float
    activated: datetime | None
    hits: int
    repairs: list[str]
    canonical: bool = False  # written exactly as the engine writes it


class _Unreadable(Exception):
    """An entry heading whose fields cannot be understood."""


def _looks_like_entry(text: str) -> bool:
    match = _HEADING_RE.match(text)
    assert match is not None
    if match.group("id") is not None:
        return True
    parts = match.group("rest").split("|")
    return len(parts) >= 2 and _SCORE_RE.match(parts[1].strip()) is not None


_CANONICAL_RE = re.compile(
    r"\[([A-Za-z0-9_-]{1,40})\] (" + "|".join(CATEGORIES) + r") \| ([01]\.\d\d) \| "
    r"(\d{4}-\d\d-\d\d) \| (0|[1-9]\d*)"
)


@functools.lru_cache(maxsize=1024)
def _day(text: str) -> datetime | None:
    """A ``YYYY-MM-DD`` date as midnight UTC (memoized: many entries share a date)."""
    try:
        return datetime.strptime(text, "%Y-%m-%d").replace(tzinfo=timezone.utc)
    except ValueError:
        return None


def _parse_heading(text: str, exact: re.Match[str] | None = None) -> _Heading:
    exact = exact or _CANONICAL_RE.fullmatch(text)
    if exact:
        # The common case, read without the lenient parser below.
        entry_id, category, raw_score, date, hits = exact.groups()
        when, score = _day(date), float(raw_score)
        if when is not None and score <= 1.0:
            return _Heading(entry_id, category, score, when, int(hits), [], True)
    match = _HEADING_RE.match(text)
    assert match is not None
    repairs: list[str] = []
    entry_id = match.group("id")
    if entry_id is not None and not _ID_RE.match(entry_id):
        raise _Unreadable(f"id [{entry_id}] is not letters, digits, '-' or '_'")
    parts = [part.strip() for part in match.group("rest").split("|")]
    if len(parts) < 2:
        raise _Unreadable("expected `### [id] category | score | date | hits`")

    raw_category = parts[0]
    key = re.sub(r"[\s-]+", "_", raw_category.strip().casefold())
    category = _CATEGORY_ALIASES.get(key, key)
    if category not in CATEGORIES:
        repairs.append(f"unknown category {raw_category!r} read as 'fact'")
        category = "fact"

    raw_score = parts[1]
    if not _SCORE_RE.match(raw_score):
        raise _Unreadable(f"score {raw_score!r} is not a number")
    score = float(raw_score.rstrip("%"))
    if raw_score.endswith("%"):
        score /= 100
        repairs.append(f"score {raw_score} read as {score:.2f}")
    if not 0.0 <= score <= 1.0:
        clamped = min(1.0, max(0.0, score))
        repairs.append(f"score {raw_score} is outside 0-1; read as {clamped:.2f}")
        score = clamped

    activated: datetime | None = None
    if len(parts) >= 3 and parts[2]:
        parsed = _parse_time(parts[2])
        if parsed is None:
            raise _Unreadable(f"date {parts[2]!r} is not YYYY-MM-DD")
        activated, had_time = parsed
        if had_time:
            repairs.append("date had a time; the time is kept in the hidden metadata")
    else:
        repairs.append("missing date; set to today")

    hits = 1
    if len(parts) >= 4 and parts[3]:
        if not parts[3].isdigit():
            raise _Unreadable(f"hits {parts[3]!r} is not a whole number")
        hits = int(parts[3])
    else:
        repairs.append("missing hit count; set to 1")
    if len(parts) > 4:
        raise _Unreadable("too many `|` fields")
    return _Heading(entry_id, category, score, activated, hits, repairs)


def _parse_meta(text: str) -> dict[str, object]:
    if not (text.startswith(_META_PREFIX) and text.endswith("-->")):
        raise ValueError("not a metadata comment")
    value = json.loads(text[len(_META_PREFIX) : -3])
    if not isinstance(value, dict):
        raise ValueError("metadata is not an object")
    return value


def _meta_time(meta: dict[str, object], key: str) -> datetime:
    value = meta[key]
    if not isinstance(value, str):
        raise ValueError(f"{key} is not a time")
    return datetime.fromisoformat(value.replace("Z", "+00:00")).astimezone(timezone.utc)


def _fence_body(lines: list[str], block: _Block) -> str:
    opening = lines[block.start].lstrip()
    marker = opening[: len(opening) - len(opening.lstrip(opening[0]))]
    body = lines[block.start + 1 : block.end]
    if body and body[-1].strip().startswith(marker) and not body[-1].strip().strip(marker[0]):
        body = body[:-1]
    return "\n".join(body)


def _decode_content(lines: list[str], content_blocks: list[_Block], end: int) -> str:
    if len(content_blocks) == 1 and content_blocks[0].kind == "fence":
        block = content_blocks[0]
        if block.text == "memory":
            return _fence_body(lines, block)
        if block.text == "memory-json":
            value = json.loads(_fence_body(lines, block))
            if not isinstance(value, str):
                raise ValueError("memory-json block does not hold a string")
            return value
    return "\n".join(lines[content_blocks[0].start : end])


def _canonical_heading(entry: MemoryEntry) -> str:
    return (
        f"### [{entry.id}] {entry.category} | {entry.score:.2f} | "
        f"{entry.last_activated.strftime('%Y-%m-%d')} | {entry.activation_count}"
    )


class PromptEntry(NamedTuple):
    """An entry read without validation, for the session-start path (no pydantic import)."""

    id: str
    content: str
    category: str
    score: float
    created_at: datetime
    last_activated: datetime
    activation_count: int
    source_session: str
    base_score: float
    base_at: datetime
    merged_ids: tuple[str, ...] = ()
    expires_at: datetime | None = None
    replaces: tuple[str, ...] = ()

    @property
    def anchor(self) -> tuple[float, datetime]:
        """The decay anchor: ``(base_score, base_at)``."""
        return self.base_score, self.base_at


def parse(text: str, now: datetime | None = None) -> Document:
    """Read MEMORY.md text into a :class:`Document`. Never raises on text.

    ``now`` is when a hand-edited score starts to decay (default: the clock).
    """
    from .models import MemoryEntry

    return _parse(text, now, MemoryEntry)


def parse_for_prompt(text: str, now: datetime | None = None) -> list[PromptEntry]:
    """The entries of MEMORY.md text as :class:`PromptEntry` tuples, read as :func:`parse`
    reads them but without building pydantic models (session start must be fast)."""
    return _parse(text, now, PromptEntry).entries  # type: ignore[return-value]


def _parse(text: str, now: datetime | None, make: Callable[..., Any]) -> Document:
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
    blocks = _blocks(lines)

    # Spans of lines the engine understands; every other line is a person's text.
    consumed: list[tuple[int, int]] = []
    title_line: int | None = None
    sections: list[tuple[int, str]] = []  # (line, section name), in file order
    body_start: int | None = None  # first section or entry: text after it is a note
    taken_ids: set[str] = set()

    def consume(start: int, end: int) -> None:
        consumed.append((start, end))

    i = 0
    while i < len(blocks):
        block = blocks[i]
        i += 1
        line_no = block.start + 1
        if block.kind == "html_block" and body_start is None and _HEADER_RE.match(block.text):
            match = _HEADER_RE.match(block.text)
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
        canonical = _CANONICAL_RE.fullmatch(block.text)  # most headings: skip the checks below
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
        section = None if canonical else _section_of(block.text)
        if section is not None:
            body_start = block.start if body_start is None else body_start
            sections.append((block.start, section))
            consume(block.start, block.end)
            if block.level != 2:
                problems.append(Problem(line_no, f"section heading had {block.level} '#'; now 2"))
            continue
        if canonical is None and not _looks_like_entry(block.text):
            continue

        # An entry: heading, optional metadata line, then the content blocks that follow
        # without a blank line between them.
        body_start = block.start if body_start is None else body_start
        try:
            heading = _parse_heading(block.text, canonical)
        except _Unreadable as exc:
            problems.append(
                Problem(line_no, f"cannot read this entry ({exc}); kept as a note", "warning")
            )
            continue
        end = block.end
        meta: dict[str, object] | None = None
        following = blocks[i] if i < len(blocks) else None
        if (
            following is not None
            and following.kind == "html_block"
            and following.start == end
            and following.text.startswith(_META_PREFIX)
        ):
            try:
                meta = _parse_meta(following.text)
            except ValueError as exc:
                problems.append(Problem(end + 1, f"hidden metadata unreadable ({exc}); rebuilt"))
            end = following.end
            i += 1
        content_blocks: list[_Block] = []
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
            content = _decode_content(lines, content_blocks, end)
            entry = make(**_entry_fields(heading, meta, content, now, line_no, problems, taken_ids))
        except ValueError as exc:
            problems.append(
                Problem(line_no, f"cannot read this entry ({exc}); kept as a note", "warning")
            )
            continue
        if block.level != 3:
            problems.append(Problem(line_no, f"entry heading had {block.level} '#'; now 3"))
        elif (
            not (heading.canonical and lines[block.start] == "### " + block.text)
            and lines[block.start] != _canonical_heading(entry)
            and len(problems) == reported
        ):
            problems.append(Problem(line_no, "entry heading reformatted"))
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


def _trim_blank(lines: list[str]) -> list[str]:
    start, end = 0, len(lines)
    while start < end and not lines[start].strip():
        start += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    return lines[start:end]


def _entry_fields(
    heading: _Heading,
    meta: dict[str, object] | None,
    content: str,
    now: datetime,
    line_no: int,
    problems: list[Problem],
    taken_ids: set[str],
) -> dict[str, Any]:
    for message in heading.repairs:
        problems.append(Problem(line_no, message))
    entry_id = heading.id
    if entry_id is None or entry_id in taken_ids:
        fresh = new_id(taken_ids)
        if entry_id is None:
            problems.append(Problem(line_no, f"entry had no id; gave it [{fresh}]"))
        else:
            problems.append(Problem(line_no, f"id [{entry_id}] was used twice; now [{fresh}]"))
        entry_id = fresh
    activated = heading.activated or now
    score = heading.score
    base_score: float = score
    base_at: datetime = now
    created = activated
    session = ""
    merged: tuple[str, ...] = ()
    replaces: tuple[str, ...] = ()
    expires: datetime | None = None
    if meta is not None:
        with contextlib.suppress(KeyError, TypeError, ValueError):
            expires = _meta_time(meta, "expires")
        raw_merged = meta.get("merged", [])
        if isinstance(raw_merged, list):
            merged = tuple(str(i) for i in raw_merged)
        raw_replaces = meta.get("replaces", [])
        if isinstance(raw_replaces, list):
            replaces = tuple(str(i) for i in raw_replaces)
        try:
            exact = float(meta["score"])  # type: ignore[arg-type]
            meta_activated = _meta_time(meta, "activated")
            created = _meta_time(meta, "created")
            session = str(meta.get("session", ""))
            meta_base = float(meta.get("base", exact))  # type: ignore[arg-type]
            meta_base_at = _meta_time(meta, "base_at") if "base_at" in meta else meta_activated
        except (KeyError, TypeError, ValueError) as exc:
            problems.append(Problem(line_no + 1, f"hidden metadata incomplete ({exc}); rebuilt"))
        else:
            same_date = heading.activated is None or (meta_activated.date() == activated.date())
            if same_date:
                activated = meta_activated
            if f"{exact:.2f}" == f"{score:.2f}" and same_date:
                # Untouched since the engine wrote it: keep the exact values.
                score, base_score, base_at = exact, meta_base, meta_base_at
            # Otherwise a person changed the score or date: honour it from now on.
    else:
        problems.append(Problem(line_no, f"entry [{entry_id}] had no hidden metadata; added"))
    return {
        "id": entry_id,
        "content": content.strip(),
        "category": heading.category,
        "score": score,
        "created_at": min(created, activated),
        "last_activated": activated,
        "activation_count": heading.hits,
        "source_session": session,
        "base_score": base_score,
        "base_at": base_at,
        "merged_ids": merged,
        "expires_at": expires,
        "replaces": replaces,
    }


# ---------------------------------------------------------------------------------------------
# Writing


# Control characters (but tab and newline), and the characters editors treat as line breaks.
_UNSAFE_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")
_ESCAPE_RE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def _escape_unsafe(json_text: str) -> str:
    """JSON text with the characters above as ``\\uXXXX`` escapes, which JSON reads back."""
    return _ESCAPE_RE.sub(lambda m: f"\\u{ord(m.group()):04x}", json_text)


def _fence(content: str, info: str) -> str:
    longest = max((len(run) for run in re.findall(r"`+", content)), default=0)
    marker = "`" * max(3, longest + 1)
    return f"{marker}{info}\n{content}\n{marker}"


def _json_string(content: str) -> str:
    return _escape_unsafe(json.dumps(content, ensure_ascii=False))


def _probe_heading(entry_id: str) -> str:
    return f"### [{entry_id}] fact | 0.50 | 2000-01-01 | 1"


def _reads_back_raw(content: str) -> bool:
    """True when ``content`` written as plain lines parses back exactly, alone in its entry."""
    if "\n" not in content and content[0].isalnum():
        return True  # a single line starting with a letter or digit cannot open any block
    probe = f"{_probe_heading('a')}\n{content}\n\n{_probe_heading('b')}\nx\n"
    doc = parse(probe, now=datetime(2000, 1, 1, tzinfo=timezone.utc))
    return (
        len(doc.entries) == 2
        and doc.entries[0].content == content
        and not doc.notes
        and not any(p.kind == "warning" for p in doc.problems)
    )


def render_content(content: str) -> str:
    """Content as it is written under its heading (plain, ```` ```memory ```` or JSON)."""
    if _UNSAFE_RE.search(content):
        return _fence(_json_string(content), "memory-json")
    if _reads_back_raw(content):
        return content
    return _fence(content, "memory")


def _render_meta(entry: MemoryEntry) -> str:
    base_score, base_at = entry.anchor
    # Values equal to what the heading already implies are left out to keep the line short.
    meta: dict[str, object] = {"score": entry.score}
    if base_score != entry.score:
        meta["base"] = base_score
    if base_at != entry.last_activated:
        meta["base_at"] = _iso(base_at)
    meta["activated"] = _iso(entry.last_activated)
    meta["created"] = _iso(entry.created_at)
    if entry.source_session:
        meta["session"] = entry.source_session
    if entry.merged_ids:
        meta["merged"] = list(entry.merged_ids)
    if entry.expires_at is not None:
        meta["expires"] = _iso(entry.expires_at)
    if entry.replaces:
        meta["replaces"] = list(entry.replaces)
    text = json.dumps(meta, ensure_ascii=False, separators=(", ", ": "))
    # "-->" inside a value would end the comment early; JSON reads the escapes back.
    text = text.replace("<", "\\u003c").replace(">", "\\u003e")
    return f"{_META_PREFIX}{_escape_unsafe(text)} -->"


def _header(last_updated: str, count: int) -> str:
    return (
        f"# {TITLE}\n\n<!-- Last updated: {last_updated} -->\n<!-- Total entries: {count} -->\n\n"
    )


def _body(doc: Document) -> str:
    out: list[str] = []
    for chunk in doc.preamble:
        out += [chunk, ""]
    entries = sorted(doc.entries, key=file_order)
    active = [e for e in entries if e.score >= ACTIVE_THRESHOLD]
    archived = [e for e in entries if e.score < ACTIVE_THRESHOLD]
    for title, section in ((ACTIVE, active), (ARCHIVED, archived)):
        out += [f"## {title}", ""]
        for entry in section:
            out += [
                _canonical_heading(entry),
                _render_meta(entry),
                render_content(entry.content),
                "",
            ]
    if doc.notes:
        out += [f"## {NOTES}", "", NOTES_INTRO, ""]
        for chunk in doc.notes:
            out += [chunk, ""]
    return "\n".join(out)


def render(doc: Document, last_updated: str | None = None) -> str:
    """The canonical text of ``doc``: the only way the engine writes MEMORY.md.

    The ``Last updated`` stamp is ``last_updated``, else the document's own, else now.
    """
    stamp = last_updated or doc.last_updated or _iso(utcnow())
    return _header(stamp, len(doc.entries)) + _body(doc)


# ---------------------------------------------------------------------------------------------
# The file on disk


def write_atomically(path: Path, data: bytes) -> None:
    """Write a small side file (queue, cursors, index) whole or not at all: temp, fsync, rename.

    Raises OSError; the caller decides whether a failure matters.
    """
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _digest(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def _fsync_dir(directory: str) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class MemoryStore:
    """MEMORY.md on disk: tolerant loading, and saves that are atomic, locked and lossless."""

    def __init__(self, path: str | os.PathLike[str], *, lock_timeout: float = DEFAULT_LOCK_TIMEOUT):
        self.path = Path(path)
        self.lock_timeout = lock_timeout
        self._loaded: tuple[str | None, Document] | None = None  # (digest, document)
        self.warnings: list[str] = []  # what the last save redacted or dropped
        self._lock: filelock.BaseFileLock | None = None

    # -- where things are

    @property
    def target(self) -> Path:
        """The real file: a symlinked MEMORY.md is written through to what it points at."""
        return Path(os.path.realpath(self.path))

    @property
    def backup_path(self) -> Path:
        """``MEMORY.md.bak``: the previous version, kept before each write."""
        return self.target.with_name(self.target.name + ".bak")

    @property
    def lock_path(self) -> Path:
        """``MEMORY.md.lock``: the sidecar every writer locks (beside the real file)."""
        return self.target.with_name(self.target.name + ".lock")

    # -- reading

    def read_bytes(self) -> bytes | None:
        """The file's bytes, or None when it does not exist."""
        try:
            return self.target.read_bytes()
        except FileNotFoundError:
            return None
        except IsADirectoryError as exc:
            raise StoreError(
                f"{self.path} is a directory, not a file; pass --file with a file path", self.path
            ) from exc
        except PermissionError as exc:
            raise StoreError(f"cannot read {self.path}: permission denied", self.path) from exc
        except OSError as exc:
            raise StoreError(f"cannot read {self.path}: {exc.strerror or exc}", self.path) from exc

    def decode(self, data: bytes) -> str:
        """The file's bytes as text; :class:`NotTextError` if they are not UTF-8 text."""
        if b"\0" in data:
            raise NotTextError(
                f"{self.path} is a binary file, not a MEMORY.md; point --file at a text file",
                self.path,
            )
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise NotTextError(
                f"{self.path} is not UTF-8 text (bad byte at offset {exc.start}); "
                "convert it to UTF-8 or point --file at the right file",
                self.path,
            ) from exc

    def load_document(self, now: datetime | None = None) -> Document:
        """Read the whole file (entries, a person's text, problems). Missing file: empty."""
        data = self.read_bytes()
        doc = Document() if data is None else parse(self.decode(data), now)
        self._loaded = (_digest(data), doc)
        return doc

    def _text(self) -> str | None:
        data = self.read_bytes()
        return None if data is None else self.decode(data)

    def load_for_prompt(self, now: datetime | None = None) -> list[PromptEntry]:
        """The entries as :class:`PromptEntry` tuples: a fast read for session start."""
        text = self._text()
        return [] if text is None else parse_for_prompt(text, now)

    def load(self) -> list[MemoryEntry]:
        """The entries in the file; problems found are in :attr:`problems`."""
        return list(self.load_document().entries)

    def load_active(self, min_score: float = ACTIVE_THRESHOLD) -> list[MemoryEntry]:
        """Entries with ``score >= min_score``, strongest first."""
        return [e for e in self.load() if e.score >= min_score]

    @property
    def problems(self) -> list[Problem]:
        """Repairs and warnings from the last load."""
        return [] if self._loaded is None else list(self._loaded[1].problems)

    # -- locking

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """Hold the writers' lock; raises :class:`LockTimeoutError` after ``lock_timeout`` s."""
        if self._lock is None:
            self._lock = filelock.FileLock(str(self.lock_path), timeout=self.lock_timeout)
        try:
            self._lock.acquire()
        except filelock.Timeout as exc:
            raise LockTimeoutError(
                f"{self.path} is being written by another process (waited "
                f"{self.lock_timeout:g}s for {self.lock_path}); try again",
                self.path,
            ) from exc
        except OSError as exc:
            raise StoreError(
                f"cannot create lock file {self.lock_path}: {exc.strerror or exc}", self.path
            ) from exc
        try:
            yield
        finally:
            self._lock.release()

    # -- writing

    def save(self, entries: Sequence[MemoryEntry]) -> bool:
        """Write ``entries`` as the file's memories; returns False when nothing changed.

        A person's text in the file is kept. If the file changed on disk since it was loaded
        (an editor saved it), the change from the loaded entries to ``entries`` is replayed on
        the new content instead of overwriting it. On any failure the file is left as it was.
        """
        from .merger import rebase  # the write path only: reading stays light

        self.warnings = []
        entries = self._without_secrets(entries)
        with self.lock():
            for _ in range(5):
                data = self.read_bytes()
                text = "" if data is None else self.decode(data)
                loaded = self._loaded
                if loaded is not None and loaded[0] == _digest(data):
                    doc = loaded[1]
                    wanted = list(entries)
                else:
                    doc = parse(text)
                    wanted = (
                        list(entries)
                        if loaded is None
                        else rebase(loaded[1].entries, entries, doc.entries)
                    )
                new_doc = Document(wanted, doc.preamble, doc.notes, doc.last_updated)
                body = _body(new_doc)
                if doc.last_updated and _header(doc.last_updated, len(wanted)) + body == text:
                    self._loaded = (_digest(data), new_doc)
                    return False
                new_doc.last_updated = _iso(utcnow())
                output = _header(new_doc.last_updated, len(wanted)) + body
                self._check_rendered(output, new_doc)
                written = output.encode("utf-8")
                if self._write(written, data):
                    self._loaded = (_digest(written), new_doc)
                    return True
                # An editor saved while we were writing: merge again onto its version.
            raise StoreError(
                f"{self.path} kept changing while saving; nothing was written, try again",
                self.path,
            )

    def _without_secrets(self, entries: Sequence[MemoryEntry]) -> list[MemoryEntry]:
        """Entries with secrets replaced by placeholders; entries that were only a secret go.

        This covers every writer, a memory a person typed into the file included.
        """
        from .redact import redact

        kept = []
        for entry in entries:
            result = redact(entry.content)
            if not result.found:
                kept.append(entry)
            elif result.only_secret:
                kinds = ", ".join(result.found)
                self.warnings.append(f"dropped memory [{entry.id}]: only a secret ({kinds})")
            else:
                self.warnings.append(f"redacted {', '.join(result.found)} in memory [{entry.id}]")
                kept.append(entry.model_copy(update={"content": result.text}))
        return kept

    def _check_rendered(self, output: str, doc: Document) -> None:
        """Refuse to write text that does not read back as what was meant (fail closed)."""
        reread = parse(output)
        if (
            reread.entries != sorted(doc.entries, key=file_order)
            or "\n\n".join(reread.preamble) != "\n\n".join(doc.preamble)
            or "\n\n".join(reread.notes) != "\n\n".join(doc.notes)
        ):
            # Only a person's text can cause this: say, an unclosed ``` fence before the first
            # section swallows everything after it.
            raise StoreError(
                f"refusing to write {self.path}: the result would not read back the same; "
                "look for an unclosed ``` fence or <!-- comment in text added by hand "
                "(`everbot-memory doctor` shows where)",
                self.path,
            )

    def _write(self, data: bytes, previous: bytes | None) -> bool:
        """Atomically replace the file with ``data``; False if it changed since ``previous``."""
        target = self.target
        if not target.parent.is_dir():
            raise StoreError(f"cannot write {self.path}: folder {target.parent} does not exist")
        mode = 0o600
        if previous is not None:
            with contextlib.suppress(FileNotFoundError):
                mode = stat.S_IMODE(target.stat().st_mode)
            self._replace(self.backup_path, previous, mode)

        def unchanged() -> bool:
            # An editor may have saved while we wrote; replacing now would lose its change.
            # (What is left between this check and the rename is a few microseconds.)
            return _digest(self.read_bytes()) == _digest(previous)

        return self._replace(target, data, mode, unchanged)

    def _replace(
        self, path: Path, data: bytes, mode: int, ready: Callable[[], bool] | None = None
    ) -> bool:
        """Write ``data`` to a temp file beside ``path``, fsync it, then rename it over ``path``.

        A reader or a crash at any instant sees the old file or the new one, never a torn one.
        Returns False, writing nothing, when ``ready()`` says no just before the rename.
        """
        tmp_path = None
        try:
            fd, tmp_path = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.chmod(tmp_path, mode)
            if ready is not None and not ready():
                return False
            os.replace(tmp_path, path)
            tmp_path = None
            _fsync_dir(str(path.parent))
        except OSError as exc:
            reason = "the disk is full" if exc.errno == errno.ENOSPC else exc.strerror or exc
            raise StoreError(
                f"cannot write {path}: {reason}; {self.path} was not changed", self.path
            ) from exc
        finally:
            if tmp_path is not None:
                with contextlib.suppress(OSError):
                    os.unlink(tmp_path)
        return True
