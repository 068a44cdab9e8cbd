"""The block structure of MEMORY.md: which lines form headings, comments, fences, paragraphs.

Parsing uses markdown-it-py's block tokens and their source line maps, so that fences and HTML
blocks are understood as Markdown understands them. Reading a large file through markdown-it-py
alone is slow (about 75 µs an entry), so a fast path reads the parts of the file made only of
lines whose meaning CommonMark leaves no room for (see :func:`blocks`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

__all__ = [
    "Block",
    "markdown_blocks",
    "read_blocks",
    "reference_blocks",
    "unclosed_comments",
]


@functools.cache
def _markdown() -> MarkdownIt:
    # Only block structure matters here, so inline parsing is off. Built on first use: a file
    # the fast path reads whole (the usual case at session start) never needs it.
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").disable(["inline", "text_join"])


@dataclass(slots=True)
class Block:
    """One top-level Markdown block and the source lines it spans."""

    kind: str  # token type: heading_open, paragraph_open, fence, html_block, ...
    start: int  # first source line (0-based)
    end: int  # one past the last source line
    level: int = 0  # heading level
    text: str = ""  # heading text, html, or fence info
    unclosed: bool = False  # an HTML comment opened here that does not close (read alone)


def markdown_blocks(lines: list[str], offset: int = 0) -> list[Block]:
    """Top-level blocks of ``lines`` as markdown-it-py parses them (line numbers + offset)."""
    found = []
    tokens: list[Token] = _markdown().parse("\n".join(lines))
    for i, token in enumerate(tokens):
        if token.level != 0 or token.nesting == -1 or token.map is None:
            continue
        block = Block(token.type, token.map[0] + offset, token.map[1] + offset)
        if token.type == "heading_open":
            block.level = int(token.tag[1])
            block.text = tokens[i + 1].content.strip()
        elif token.type == "html_block":
            block.text = token.content.strip()
        elif token.type == "fence":
            block.text = token.info.strip()
        found.append(block)
    return found


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


def _simple_blocks(lines: list[str], kinds: list[str], start: int, end: int) -> list[Block]:
    blocks: list[Block] = []
    i = start
    while i < end:
        kind = kinds[i]
        if kind == "heading":
            level = len(lines[i]) - len(lines[i].lstrip("#"))
            blocks.append(Block("heading_open", i, i + 1, level, _atx_text(lines[i], level)))
            i += 1
        elif kind == "comment":
            blocks.append(Block("html_block", i, i + 1, text=lines[i].strip()))
            i += 1
        elif kind == "text":
            j = i + 1
            while j < end and kinds[j] == "text":
                j += 1
            blocks.append(Block("paragraph_open", i, j))
            i = j
        else:
            i += 1
    return blocks


def _closed_markdown_blocks(lines: list[str], start: int, end: int) -> list[Block] | None:
    """markdown-it-py's blocks of lines[start:end], or None when the last one is still open
    (an unclosed fence or HTML block would run on into the lines after ``end``)."""
    probe = markdown_blocks([*lines[start:end], "# probe"], start)
    last = probe[-1] if probe else None
    if last is None or last.kind != "heading_open" or last.start != end:
        return None
    return probe[:-1]


_OPENER_RE = re.compile(r" {0,3}<!--")
_HEADING_LINE_RE = re.compile(r" {0,3}#{1,6}(?:[ \t]|$)")


def unclosed_comments(lines: list[str]) -> list[int]:
    """The lines that open an HTML comment which never properly closes.

    CommonMark reads an HTML comment up to the next ``-->``, however far: an unclosed one
    swallows every entry after it. The engine's grammar reads such an opener as a line on its
    own: when no ``-->`` follows, when the ``-->`` that follows belongs to another comment (its
    line opens one too), or when it is the engine's metadata comment and an entry heading comes
    before its ``-->``.
    """
    found = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if not _OPENER_RE.match(line) or "-->" in line[line.index("<!--") + 4 :]:
            i += 1
            continue
        meta = line.lstrip().startswith("<!-- everbot ")
        close = None
        for j in range(i + 1, len(lines)):
            if meta and _HEADING_LINE_RE.match(lines[j]):
                break
            if "-->" in lines[j]:
                close = j
                break
        if close is None or _OPENER_RE.match(lines[close]):
            found.append(i)
            i += 1
        else:
            i = close + 1
    return found


def _segmented(lines: list[str], read: Callable[[list[str]], list[Block]]) -> list[Block]:
    """``read`` applied between the unclosed comment openers, each opener a block of its own."""
    found: list[Block] = []
    start = 0
    for at in [*unclosed_comments(lines), len(lines)]:
        for block in read(lines[start:at]):
            block.start += start
            block.end += start
            found.append(block)
        if at < len(lines):
            found.append(Block("html_block", at, at + 1, text=lines[at].strip(), unclosed=True))
        start = at + 1
    return found


def reference_blocks(lines: list[str]) -> list[Block]:
    """The blocks as markdown-it-py alone reads them under the engine's grammar (the
    reference :func:`read_blocks` is tested against)."""
    return _segmented(lines, markdown_blocks)


def read_blocks(lines: list[str]) -> list[Block]:
    """The top-level blocks of ``lines``: the same as :func:`reference_blocks`, faster."""
    return _segmented(lines, _fast_blocks)


def _fast_blocks(lines: list[str]) -> list[Block]:
    kinds = [_simple_kind(line) or "" for line in lines]
    cuts = [i for i, kind in enumerate(kinds) if kind == "heading"]
    chunks = list(zip([0, *cuts], [*cuts, len(lines)], strict=True))
    chunks = [(a, b) for a, b in chunks if a < b]
    simple = [all(kinds[i] for i in range(a, b)) for a, b in chunks]
    found: list[Block] = []
    n = 0
    while n < len(chunks):
        start, end = chunks[n]
        if simple[n]:
            found += _simple_blocks(lines, kinds, start, end)
            n += 1
            continue
        # A run of chunks the fast path cannot read: markdown-it-py reads it, taking in more
        # chunks while the run ends inside an open block.
        m = n
        while m + 1 < len(chunks) and not simple[m + 1]:
            m += 1
        while True:
            end = chunks[m][1]
            run = _closed_markdown_blocks(lines, start, end) if m + 1 < len(chunks) else None
            if run is not None or m + 1 >= len(chunks):
                found += run if run is not None else markdown_blocks(lines[start:], start)
                break
            m += 1
        n = m + 1
    return found
