"""A session's note (the episodic layer of seed 002, the "what did we do last Tuesday?"
memory that a list of facts does not give), and the day file it is written to.

``memory/2026-03-04.md`` beside MEMORY.md::

    # Sessions of 2026-03-04

    ## 18:00 UTC · session 4a1b2c

    Worked on: the staging deploy script
    Topics: staging, deploy.sh, Postgres

    Decided:
    - Use Postgres for the analytics service

    Open threads:
    - Write the migration tests

A person may edit a day's file in any editor. Closing a session only appends its section
(a session closed twice gets two): text already there is never rewritten, so nothing a person
wrote is lost. Reading is tolerant: any ``##`` heading starts a section, the labels above are
read where they are found, and everything under a heading is searchable.

The session-start hook reads the last note, so this module loads neither typing nor
dataclasses.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False  # on the session-start hook's path: no typing, no dataclasses
if TYPE_CHECKING:
    from datetime import date, datetime

__all__ = [
    "NOTE_FILE_RE",
    "NoteSection",
    "SessionNote",
    "add_note",
    "day_title",
    "parse_day",
    "render_note",
]


class SessionNote:
    """A short note of one session: when it closed, what was worked on, the topics, what was
    decided and what was left open."""

    __slots__ = ("at", "decisions", "open_threads", "session", "topics", "worked_on")

    def __init__(
        self,
        session: str,
        at: datetime,
        worked_on: str = "",
        decisions: tuple[str, ...] = (),
        open_threads: tuple[str, ...] = (),
        topics: tuple[str, ...] = (),
    ) -> None:
        self.session, self.at, self.worked_on = session, at, worked_on
        self.decisions, self.open_threads = tuple(decisions), tuple(open_threads)
        self.topics = tuple(topics)

    def _fields(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SessionNote) and self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"SessionNote({fields})"

    @property
    def empty(self) -> bool:
        """True when the note says nothing."""
        return not (self.worked_on or self.decisions or self.open_threads or self.topics)


#: The name of a day's file.
NOTE_FILE_RE = re.compile(r"^(\d{4})-(\d\d)-(\d\d)\.md$")
_HEADING_RE = re.compile(r"^##(?!#)\s*(.*?)\s*$")
_SESSION_RE = re.compile(r"(?:(\d{1,2}:\d\d)(?:\s*UTC)?)?\s*(?:·\s*)?(?:session\s+(\S+))?", re.I)
_LABELS = {
    "worked on": "worked_on",
    "decided": "decisions",
    "decisions": "decisions",
    "open threads": "open_threads",
    "open": "open_threads",
    "topics": "topics",
}


class NoteSection:
    """One ``##`` section of a day's file, as read: its heading, the session and time it
    names (when it does), its text verbatim, its line, and the labelled parts found in it."""

    __slots__ = (
        "decisions",
        "heading",
        "line",
        "open_threads",
        "session",
        "text",
        "time",
        "topics",
        "worked_on",
    )

    def __init__(
        self, heading: str, time: str | None, session: str | None, text: str, line: int
    ) -> None:
        self.heading, self.time, self.session, self.text, self.line = (
            heading,
            time,
            session,
            text,
            line,
        )
        self.worked_on = ""
        self.topics: list[str] = []
        self.decisions: list[str] = []
        self.open_threads: list[str] = []

    def __repr__(self) -> str:
        return f"NoteSection(heading={self.heading!r}, session={self.session!r}, line={self.line})"


def day_title(day: date) -> str:
    """The first line of a day's file."""
    return f"# Sessions of {day.isoformat()}"


def _one_line(text: str) -> str:
    return " ".join(text.split())


def render_note(note: SessionNote) -> str:
    """The section a session adds to its day's file."""
    out = [f"## {note.at:%H:%M} UTC · session {_one_line(note.session) or 'unknown'}", ""]
    said = [f"Worked on: {_one_line(note.worked_on)}"] if note.worked_on else []
    if note.topics:
        said.append("Topics: " + ", ".join(_one_line(t) for t in note.topics))
    if said:
        out += [*said, ""]
    for label, items in (("Decided", note.decisions), ("Open threads", note.open_threads)):
        if items:
            out += [f"{label}:", *(f"- {_one_line(item)}" for item in items), ""]
    return "\n".join(out).rstrip("\n") + "\n"


def add_note(existing: str | None, note: SessionNote) -> str:
    """The day's file with ``note`` appended (a new file when ``existing`` is None or blank);
    what the file held is kept byte for byte."""
    section = render_note(note)
    if existing is None or not existing.strip():
        return f"{day_title(note.at.date())}\n\n{section}"
    # A fence a person left open would hold the new section, and readers would not see it.
    fence = _open_fence(existing)
    closed = "" if fence is None else f"\n{fence}"
    return existing.rstrip("\n") + closed + "\n\n" + section


def _open_fence(text: str) -> str | None:
    """The fence ``text`` ends inside, as :func:`parse_day` reads fences (each line that
    starts with three backticks or tildes opens or closes one): its opening marks, or None."""
    fence: str | None = None
    for line in text.replace("\r", "\n").split("\n"):
        mark = line.lstrip()
        if mark.startswith(("```", "~~~")):
            fence = mark[: len(mark) - len(mark.lstrip(mark[0]))] if fence is None else None
    return fence


def parse_day(text: str) -> list[NoteSection]:
    """The sections of a day's file; never raises on text. Text before the first ``##``
    heading (other than the title) is a section without a heading."""
    text = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    sections: list[NoteSection] = []
    heading: str | None = None
    start = 0
    body: list[str] = []
    fenced = False

    def close() -> None:
        content = "\n".join(body).strip()
        if heading is None and not content:
            return
        found = _SESSION_RE.match(heading or "")
        time, session = (found.group(1), found.group(2)) if found else (None, None)
        section = NoteSection(heading or "", time, session, content, start + 1)
        _read_labels(section)
        sections.append(section)

    for number, line in enumerate(text.split("\n")):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        match = None if fenced else _HEADING_RE.match(line)
        if match:
            close()
            heading, start, body = match.group(1), number, []
        elif not (heading is None and not body and line.startswith("# ")):
            body.append(line)
    close()
    return sections


def _read_labels(section: NoteSection) -> None:
    current: str | None = None
    for raw in section.text.split("\n"):
        line = raw.strip()
        if not line:
            continue
        label, colon, rest = line.partition(":")
        key = _LABELS.get(label.strip(" *").casefold()) if colon else None
        if key is not None:
            current = key
            if key == "worked_on":
                section.worked_on = rest.strip(" *")
                current = None
            elif key == "topics":
                section.topics = [t.strip() for t in rest.split(",") if t.strip()]
                current = None
            elif rest.strip():
                getattr(section, key).append(rest.strip())
            continue
        if current is not None and line.startswith(("- ", "* ")):
            getattr(section, current).append(line[2:].strip())
        elif not line.startswith(("- ", "* ")):
            current = None
