"""The memory block injected into an agent's system prompt at session start (seed §5.3).

It lists the strongest Active memories, one line each, between ``<memories>`` and
``</memories>``, framed (in the block's language) as background facts about the user, not as
instructions, and never longer than ``max_chars``. A memory is data that came from a
conversation or a file anyone may edit, so before it is shown: secrets are redacted, angle
brackets become look-alikes (no memory can close the block or open a tag), and control,
invisible tag and bidirectional-override characters are removed.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Literal, Protocol, TypeVar

from .block import CLOSE, OPEN, PROFILE_MAX_CHARS, WORDING, profile_block, unseen_removed
from .clock import utcnow
from .redaction import redact
from .rules import PROMPT_MAX_CHARS, PROMPT_MAX_LINE, PROMPT_MIN_SCORE, PROMPT_TOP_K
from .scoring import Anchored, Ranked, file_order, is_expired, score_at
from .text import one_line

__all__ = [
    "CLOSE",
    "OPEN",
    "PromptLanguage",
    "format_block",
    "memory_lines",
    "neutralize",
    "select",
]

PromptLanguage = Literal["en", "zh"]


class _Memory(Ranked, Anchored, Protocol):
    """What the prompt needs of an entry."""

    @property
    def content(self) -> str: ...


M = TypeVar("M", bound=_Memory)


def neutralize(content: str) -> str:
    """A memory's text made safe to show a model as data (see the module's docstring)."""
    return unseen_removed(redact(content).text)


def select(
    entries: Sequence[M],
    top_k: int = PROMPT_TOP_K,
    min_score: float = PROMPT_MIN_SCORE,
    now: datetime | None = None,
    scores: Sequence[float] | None = None,
) -> list[M]:
    """The entries for the prompt: score at ``now`` >= ``min_score``, strongest first, top_k.

    Scores are taken as of ``now`` (default: the clock), so a memory that has decayed since the
    file was last written is ranked by what it is worth today. A memory whose time has passed
    (a todo) is never injected. ``scores``: each entry's score at ``now``, when the caller
    has them already (a save ranks the same memories several ways).
    """
    now = now or utcnow()
    scored = []
    for i, entry in enumerate(entries):
        if is_expired(entry, now) or getattr(entry, "condensed_into", None):
            continue  # its time has passed, or it lives on in what it was condensed into
        score = score_at(entry, now) if scores is None else scores[i]
        if score >= min_score:
            scored.append((score, entry))
    scored.sort(key=lambda pair: (-pair[0], *file_order(pair[1])[1:]))
    return [entry for _, entry in scored[: max(0, top_k)]]


def memory_lines(entries: Sequence[_Memory]) -> list[str]:
    """One ``- content`` line per entry, newlines folded, the content neutralized."""
    return [f"- {one_line(neutralize(e.content), PROMPT_MAX_LINE)}" for e in entries]


def format_block(
    entries: Sequence[_Memory],
    max_chars: int = PROMPT_MAX_CHARS,
    lang: PromptLanguage = "en",
    profile: Sequence[str] = (),
) -> str:
    """The prompt block: heading, framing line, the profile (when given, as shown by
    :func:`everbot_memory.core.profile.shown`), memory lines; "" when there are no entries
    and no profile.

    Lines that would push the block past ``max_chars`` are left out (weakest last, so the
    strongest memories always fit).
    """
    heading, framing = WORDING[lang]
    safe = [neutralize(line) for line in profile]
    # The profile comes first but never crowds out the memories: a quarter of the room at most.
    shown_profile = profile_block(safe, min(PROFILE_MAX_CHARS, max_chars // 4), lang)
    out = f"{heading}\n\n{framing}\n{shown_profile}{OPEN}"
    closing = f"\n{CLOSE}"
    if not entries and shown_profile and len(out) <= max_chars:
        return out.removesuffix(OPEN).rstrip("\n")
    if not entries or len(out) + len(closing) > max_chars:
        return ""
    kept = 0
    for line in memory_lines(entries):
        if len(out) + 1 + len(line) + len(closing) > max_chars:
            break
        out += "\n" + line
        kept += 1
    return out + closing if kept else ""
