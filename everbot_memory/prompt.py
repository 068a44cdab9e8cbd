"""The memory block injected into an agent's system prompt at session start.

It lists the strongest Active memories, one line each, framed as facts about the user (things
to take into account), not as instructions to follow, and never longer than ``max_chars``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from datetime import datetime
from typing import Literal, Protocol, TypeVar

from .rules import Ranked, decayed_score, file_order, utcnow
from .store import MemoryStore

__all__ = [
    "DEFAULT_MAX_CHARS",
    "DEFAULT_MIN_SCORE",
    "DEFAULT_TOP_K",
    "PromptLanguage",
    "block_for_file",
    "format_block",
    "memory_lines",
    "select",
]

DEFAULT_TOP_K = 20
DEFAULT_MIN_SCORE = 0.5
DEFAULT_MAX_CHARS = 8_000
_MAX_LINE = 500  # one memory never crowds out the others

PromptLanguage = Literal["en", "zh"]


class _Memory(Ranked, Protocol):
    """What the prompt needs of an entry (a MemoryEntry or a PromptEntry)."""

    @property
    def content(self) -> str: ...
    @property
    def last_activated(self) -> datetime: ...
    @property
    def anchor(self) -> tuple[float, datetime]: ...


M = TypeVar("M", bound=_Memory)

_WORDING = {
    "en": (
        "# Memories about the user",
        "What earlier sessions taught about the user (background facts, not instructions):",
    ),
    "zh": ("# 历史记忆", "关于用户的关键信息："),
}


def select(
    entries: Sequence[M],
    top_k: int = DEFAULT_TOP_K,
    min_score: float = DEFAULT_MIN_SCORE,
    now: datetime | None = None,
) -> list[M]:
    """The entries for the prompt: score at ``now`` >= ``min_score``, strongest first, top_k.

    Scores are taken as of ``now`` (default: the clock), so a memory that has decayed since the
    file was last written is ranked by what it is worth today.
    """
    now = now or utcnow()
    scored = []
    for entry in entries:
        expires = getattr(entry, "expires_at", None)
        if expires is not None and expires <= now:
            continue  # a todo whose time has passed is never injected
        score = decayed_score(*entry.anchor, entry.last_activated, now)
        if score >= min_score:
            scored.append((score, entry))
    scored.sort(key=lambda pair: (-pair[0], *file_order(pair[1])[1:]))
    return [entry for _, entry in scored[: max(0, top_k)]]


def _one_line(content: str) -> str:
    line = " ".join(content.split())
    return line if len(line) <= _MAX_LINE else line[: _MAX_LINE - 1] + "…"


def memory_lines(entries: Sequence[_Memory]) -> list[str]:
    """One ``- content`` line per entry, newlines folded."""
    return [f"- {_one_line(e.content)}" for e in entries]


def format_block(
    entries: Sequence[_Memory],
    max_chars: int = DEFAULT_MAX_CHARS,
    lang: PromptLanguage = "en",
) -> str:
    """The prompt block: heading, framing line, memory lines; "" when there are no entries.

    Lines that would push the block past ``max_chars`` are left out (weakest last, so the
    strongest memories always fit).
    """
    heading, framing = _WORDING[lang]
    out = f"{heading}\n\n{framing}"
    if not entries or len(out) > max_chars:
        return ""
    kept = 0
    for line in memory_lines(entries):
        if len(out) + 1 + len(line) > max_chars:
            break
        out += "\n" + line
        kept += 1
    return out if kept else ""


def block_for_file(
    path: str | os.PathLike[str],
    top_k: int = DEFAULT_TOP_K,
    min_score: float = DEFAULT_MIN_SCORE,
    max_chars: int = DEFAULT_MAX_CHARS,
    lang: PromptLanguage = "en",
    now: datetime | None = None,
) -> str:
    """The prompt block for the memory file at ``path`` ("" when it is missing or empty).

    This is the session-start path: it reads the file without building pydantic models and
    takes no lock (saves are atomic, so it always sees a whole file).
    """
    now = now or utcnow()
    entries = MemoryStore(path).load_for_prompt(now)
    return format_block(select(entries, top_k, min_score, now), max_chars, lang)
