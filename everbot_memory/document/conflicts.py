"""Conflict markers a line merge left in the file: where the first is, and the file as each
side wrote it.

git merges MEMORY.md line by line where its merge driver is not set up (a clone made before
``git-setup``, a plain ``git pull``): a memory changed or added on both sides ends up between
``<<<<<<<``, ``=======`` and ``>>>>>>>`` lines. Writers refuse such a file until a person
settles it (see ``storage/git_state.py``). Readers read both sides meanwhile: a marker line
read as Markdown would swallow one side's memories (``=======`` underlines the line above as
a heading) and show the markers to the agent. The blocks the engine's own three-way merge
writes (``<<<<<<< [id] ...``, both texts fenced, among the notes) are notes, read as they are.
"""

from __future__ import annotations

import re

__all__ = ["conflict_line", "sides"]

MARKER_RE = re.compile(r"^<{7,}(?: |$)", re.M)
OPENER = re.compile(r"^<{7,}(?: |$)")
BASE = re.compile(r"^\|{7,}(?: |$)")
MIDDLE = re.compile(r"^={7,}$")
CLOSER = re.compile(r"^>{7,}(?: |$)")
MEMORY_FENCE = re.compile(r"^(`{3,})memory(?:-json)?$")
#: The opening line of a conflict the engine's merge wrote about one memory.
_ENGINE_OPENER = re.compile(r"^<{7,} \[[A-Za-z0-9_-]{1,40}\] ")


def conflict_line(text: str) -> int | None:
    """The line (1-based) where an unresolved conflict starts in ``text``: a ``<<<<<<<`` line,
    later a ``=======`` line and a ``>>>>>>>`` line, outside the fences that hold a memory's
    content; None when there is none."""
    if "<<<<<<<" not in text or MARKER_RE.search(text) is None:
        # The usual case, found without reading line by line (the substring test first: the
        # line-anchored search costs about 14 ms on a 10,000-memory file, at every save).
        return None
    closing: str | None = None
    start: int | None = None
    middle = False
    for number, line in enumerate(text.split("\n"), 1):
        line = line.rstrip("\r")
        if closing is not None:
            if line.startswith(closing) and not line.strip("`"):
                closing = None
            continue
        fenced = MEMORY_FENCE.match(line)
        if fenced:
            closing = fenced.group(1)
        elif OPENER.match(line):
            start, middle = number, False
        elif start is not None and MIDDLE.match(line):
            middle = True
        elif start is not None and middle and CLOSER.match(line):
            return start
    return None


def sides(text: str) -> tuple[str, str, int] | None:
    """``text`` as each side of its line conflicts wrote it (ours: the lines between
    ``<<<<<<<`` and ``=======``; theirs: between ``=======`` and ``>>>>>>>``; a diff3 base
    section left out), and the line of the first conflict; None when it holds no whole line
    conflict (the engine's own conflict blocks stay in both, as they are).

    A memory's fenced content is text on either side, whatever its lines look like; a
    conflict's markers are those of its opener's length (a merge of merges nests longer
    ones inside). A fence or a conflict left open: None (read the text as it is)."""
    if conflict_line(text) is None:
        return None
    ours: list[str] = []
    theirs: list[str] = []
    first: int | None = None
    where = "both"  # or "ours", "base", "theirs": the side a line is on
    size = 0  # the open conflict's marker length
    closing: str | None = None  # the fence a memory's content is in, on the current side
    engine = False  # inside a block the engine's merge wrote: kept whole
    for number, line in enumerate(text.split("\n"), 1):
        bare = line.rstrip("\r")
        if closing is not None:
            if bare.startswith(closing) and not bare.strip("`"):
                closing = None
        elif where == "both" and engine:
            engine = not CLOSER.match(bare)
        elif where == "both" and _ENGINE_OPENER.match(bare):
            engine = True
        elif where == "both" and OPENER.match(bare):
            where, first = "ours", first or number
            size = len(bare) - len(bare.lstrip("<"))
            continue
        elif where == "ours" and _marker(bare, "|", size):
            where = "base"
            continue
        elif where in ("ours", "base") and _marker(bare, "=", size):
            where = "theirs"
            continue
        elif where == "theirs" and _marker(bare, ">", size):
            where = "both"
            continue
        elif (fenced := MEMORY_FENCE.match(bare)) is not None:
            closing = fenced.group(1)
        if where in ("both", "ours"):
            ours.append(line)
        if where in ("both", "theirs"):
            theirs.append(line)
    if where != "both" or closing is not None or first is None:
        return None  # a conflict or a fence left open: read the text as it is
    return "\n".join(ours), "\n".join(theirs), first


def _marker(line: str, mark: str, size: int) -> bool:
    """Whether ``line`` is a marker of ``size`` ``mark`` characters (``=`` alone on its line;
    the others alone or before a space and a label)."""
    if line[:size] != mark * size:
        return False
    rest = line[size:]
    return not rest if mark == "=" else (not rest or rest.startswith(" "))
