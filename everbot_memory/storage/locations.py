"""Where an agent's memories live: one memory of the user's, and optionally one per project.

The user's memory follows them into every project: ``$EVERBOT_MEMORY_USER_FILE``, else
``$XDG_DATA_HOME/everbot-memory/MEMORY.md`` (``~/.local/share/everbot-memory/MEMORY.md``).
A project has a memory of its own when its root holds a memory file ``MEMORY.md``
(``everbot-memory init`` there, or ``install --project-memory``; another document that happens
to have that name is left alone); the hooks then read both, each labelled, and write what a
session taught about the user to the user's memory and the rest to the project's.

``--file`` or ``$EVERBOT_MEMORY_FILE`` names one memory instead of both.

This module is on the hooks' fast path: the standard library only.
"""

from __future__ import annotations

import os
from pathlib import Path

TYPE_CHECKING = False  # on the hooks' fast path: no typing, no dataclasses
if TYPE_CHECKING:
    from typing import Literal

    Scope = Literal["user", "project", "file"]

__all__ = [
    "MEMORY_MARKS",
    "PROJECT_FILE_NAME",
    "USER_FILE_ENV",
    "Place",
    "is_memory_file",
    "is_memory_text",
    "memory_places",
    "project_dir",
    "project_memory",
    "user_memory_path",
]

USER_FILE_ENV = "EVERBOT_MEMORY_USER_FILE"
PROJECT_FILE_NAME = "MEMORY.md"


class Place:
    """One memory an agent reads: ``user`` (every project), ``project``, or a ``file`` named
    by ``--file`` or ``$EVERBOT_MEMORY_FILE``."""

    __slots__ = ("path", "scope")

    def __init__(self, scope: Scope, path: Path) -> None:
        self.scope, self.path = scope, path

    def __repr__(self) -> str:
        return f"Place({self.scope!r}, {self.path!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Place) and (other.scope, other.path) == (self.scope, self.path)

    def __hash__(self) -> int:
        return hash((self.scope, self.path))


def user_memory_path() -> Path:
    """The user's own memory, shared by every project."""
    named = os.environ.get(USER_FILE_ENV)
    if named:
        return Path(named).expanduser()
    data = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local/share")
    return Path(data) / "everbot-memory" / "MEMORY.md"


def project_dir(cwd: str | None = None) -> Path:
    """The project a hook runs for: ``$CLAUDE_PROJECT_DIR``, else the hook's ``cwd``, else the
    current folder."""
    return Path(os.environ.get("CLAUDE_PROJECT_DIR") or cwd or os.getcwd())


def memory_places(
    cwd: str | None = None, file: str | os.PathLike[str] | None = None
) -> list[Place]:
    """The memories a hook reads, the user's first: ``file`` (or ``$EVERBOT_MEMORY_FILE``) alone
    when given, else the user's memory and the project's when the project has one."""
    named = file or os.environ.get("EVERBOT_MEMORY_FILE")
    if named:
        return [Place("file", Path(named))]
    places = [Place("user", user_memory_path())]
    project = project_memory(project_dir(cwd))
    if project is not None:
        places.append(Place("project", project))
    return places


def project_memory(folder: str | os.PathLike[str]) -> Path | None:
    """The memory file of the project at ``folder``, when it has one of its own (not the
    user's memory, not another document called MEMORY.md)."""
    project = Path(folder) / PROJECT_FILE_NAME
    user = user_memory_path()
    if project.is_file() and not _same_file(project, user) and is_memory_file(project):
        return project
    return None


#: What marks a memory file: its first heading is its title or one of its sections (SPEC §1).
MEMORY_MARKS = ("# Agent Memory", "## Active Memories", "## Archived Memories")
_MARKS = tuple(mark.encode() for mark in MEMORY_MARKS)


def is_memory_text(text: str) -> bool:
    """True for a memory file's text: empty, or its first heading is the format's title or a
    section (a document that only quotes the format further down is not one)."""
    if not text.strip():
        return True
    for line in text.lstrip("\ufeff").splitlines():
        if line.startswith("#"):
            return line.rstrip() in MEMORY_MARKS
    return False


def is_memory_file(path: Path) -> bool:
    """True when ``path`` is a memory file, not some other document that happens to be called
    MEMORY.md: it is empty, or the engine keeps files beside it, or its first heading is the
    format's title or a section (a document quoting the format further down is not one)."""
    if path.with_name(f".{path.name}.everbot").is_dir():
        return True
    try:
        with open(path, "rb") as handle:
            head = handle.read(65_536)
    except OSError:
        return False
    if not head.strip():
        return True
    for line in head.lstrip(b"\xef\xbb\xbf").splitlines():
        if line.startswith(b"#"):
            return line.rstrip() in _MARKS
    return False


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False
