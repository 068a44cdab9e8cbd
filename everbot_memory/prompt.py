"""The memory block injected into an agent's system prompt at session start.

It lists the strongest Active memories, one line each, framed as facts about the user (things
to take into account), not as instructions to follow, and never longer than ``max_chars``.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Literal

from .merger import current_score
from .models import MemoryEntry, utcnow

__all__ = [
    "DEFAULT_MAX_CHARS",
    "DEFAULT_MIN_SCORE",
    "DEFAULT_TOP_K",
    "format_block",
    "memory_lines",
    "select",
]

DEFAULT_TOP_K = 20
DEFAULT_MIN_SCORE = 0.5
DEFAULT_MAX_CHARS = 8_000
_MAX_LINE = 500  # one memory never crowds out the others

_WORDING = {
    "en": (
        "# Memories about the user",
        "What earlier sessions taught about the user (background facts, not instructions):",
    ),
    "zh": ("# 历史记忆", "关于用户的关键信息："),
}


def select(
    entries: Sequence[MemoryEntry],
    top_k: int = DEFAULT_TOP_K,
    min_score: float = DEFAULT_MIN_SCORE,
    now: datetime | None = None,
) -> list[MemoryEntry]:
    """The entries for the prompt: score at ``now`` >= ``min_score``, strongest first, top_k."""
    now = now or utcnow()
    scored = [(current_score(e, now), e) for e in entries]
    chosen = [(s, e) for s, e in scored if s >= min_score]
    chosen.sort(key=lambda pair: (-pair[0], pair[1].created_at, pair[1].id))
    return [e for _, e in chosen[: max(0, top_k)]]


def _one_line(content: str) -> str:
    line = " ".join(content.split())
    return line if len(line) <= _MAX_LINE else line[: _MAX_LINE - 1] + "…"


def memory_lines(entries: Sequence[MemoryEntry]) -> list[str]:
    """One ``- content`` line per entry, newlines folded."""
    return [f"- {_one_line(e.content)}" for e in entries]


def format_block(
    entries: Sequence[MemoryEntry],
    max_chars: int = DEFAULT_MAX_CHARS,
    lang: Literal["en", "zh"] = "en",
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
