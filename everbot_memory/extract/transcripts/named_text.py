"""Conversations between named people as text: ``Name: text`` lines, and WhatsApp's exports
(``12/03/2024, 21:15 - Maria: text`` or ``[12/03/2024, 21:15:03] Maria: text``).

A line that does not start a turn continues the one before. Auto-detection takes text for
named only when it cannot be a chat with an assistant: there are no ``User:`` and
``Assistant:`` lines both, and at least two speakers start lines (a name other than User,
Assistant and their like counts when it starts two or more), so a stray ``Note: buy milk``
inside a ``User:`` / ``Assistant:`` transcript stays part of the turn it is in.
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import datetime, timezone

from .chat import ROLE_WORDS
from .speakers import Conversation, Turn, name_key

__all__ = ["is_assistant_chat", "looks_named_text", "named_text"]

# A name: a letter first, up to 40 characters of letters, digits, dots, apostrophes, hyphens
# and spaces; then a colon (not the one of a URL).
_NAME_RE = re.compile(r"^\s*([^\W\d_][\w.'’\- ]{0,39}?)\s*[:：](?!//)[ \t]?(.*)$")
_MAX_NAME_WORDS = 4  # longer is a sentence with a colon, not a name
# WhatsApp's line start: a date, a time (with AM/PM where the phone uses it), then " - "
# (Android) or the time in brackets (iOS). Marks for text direction may come first.
_DATED_RE = re.compile(
    r"^[\u200e\u200f]?\[?(\d{1,4})[./-](\d{1,2})[./-](\d{1,4}),?\s+"
    r"(\d{1,2})[:.](\d{2})(?:[:.](\d{2}))?(?:\s*([ap])\.?\s?m\.?)?\]?(?:\s+[-–]\s+|\s+)(.*)$",
    re.I,
)
_DATED_SPEAKER_RE = re.compile(r"^([^:\"“]{1,60}?):\s(.*)$")
_MEDIA_RE = re.compile(
    r"^(<media omitted>|<attached: [^>]*>|(image|video|audio|sticker|gif|document) omitted)$",
    re.I,
)


def _name_line(line: str) -> tuple[str, str] | None:
    match = _NAME_RE.match(line)
    if match is None or len(match.group(1).split()) > _MAX_NAME_WORDS:
        return None
    return match.group(1), match.group(2)


def _first_line(lines: list[str]) -> str:
    return next((line for line in lines if line.strip()), "")


def _labels(lines: list[str]) -> tuple[Counter[str], set[str]]:
    """How many lines each name starts, and the sides of a chat with an assistant among them."""
    counts = Counter(name_key(found[0]) for line in lines if (found := _name_line(line)))
    return counts, {ROLE_WORDS[key] for key in counts if key in ROLE_WORDS}


def is_assistant_chat(text: str) -> bool:
    """True when text has both ``User:`` and ``Assistant:`` lines (or their like)."""
    return _labels(text.split("\n"))[1] >= {"user", "assistant"}


def looks_named_text(text: str) -> bool:
    """True when text is a conversation between named people (see the module's rule)."""
    lines = text.split("\n")
    if _DATED_RE.match(_first_line(lines)):
        return any(
            (match := _DATED_RE.match(line)) and _DATED_SPEAKER_RE.match(match.group(8))
            for line in lines
        )
    counts, sides = _labels(lines)
    if sides >= {"user", "assistant"}:
        return False
    names = [key for key, count in counts.items() if key not in ROLE_WORDS and count >= 2]
    return len(names) + bool(sides) >= 2


def named_text(text: str) -> Conversation:
    """The turns of a text conversation between named people; in a WhatsApp export only the
    dated lines start turns, elsewhere every line that starts with a name does."""
    lines = text.split("\n")
    dated = bool(_DATED_RE.match(_first_line(lines)))
    day_first = _day_first(lines) if dated else True
    conversation = Conversation()
    speaker: str | None = None
    stamp: datetime | None = None
    parts: list[str] = []

    def flush() -> None:
        body = "\n".join(parts).strip().strip("\u200e")
        if speaker is not None and body and not _MEDIA_RE.match(body):
            conversation.turns.append(Turn(speaker, body, stamp))

    for line in lines:
        if dated and (match := _DATED_RE.match(line)):
            flush()
            said = _DATED_SPEAKER_RE.match(match.group(8))
            # A dated line without a speaker is WhatsApp's own (encryption notice, someone
            # joined): not anyone's words, and what follows it belongs to no one.
            speaker, parts = (said.group(1).strip(), [said.group(2)]) if said else (None, [])
            stamp = _whatsapp_time(match.groups(), day_first)
        elif not dated and (found := _name_line(line)):
            flush()
            speaker, parts = found[0].strip(), [found[1]]
        elif speaker is not None:
            parts.append(line)
        elif line.strip() and not dated:
            conversation.skipped += 1  # text before the first speaker
    flush()
    return conversation


def _day_first(lines: list[str]) -> bool:
    """Whether the export's dates are day/month: unless a first number above 12 never comes
    and a second one does (a US phone's month/day), they are taken as day/month."""
    firsts, seconds = [], []
    for line in lines:
        match = _DATED_RE.match(line)
        if match and len(match.group(1)) <= 2:
            firsts.append(int(match.group(1)))
            seconds.append(int(match.group(2)))
    return any(n > 12 for n in firsts) or not any(n > 12 for n in seconds)


def _whatsapp_time(groups: tuple[str | None, ...], day_first: bool) -> datetime | None:
    first, second, third, hour, minute, second_of_minute, half = groups[:7]
    assert first and second and third and hour and minute
    if len(first) == 4:
        year, month, day = int(first), int(second), int(third)
    else:
        year = int(third) + (2000 if len(third) <= 2 else 0)
        day, month = (int(first), int(second)) if day_first else (int(second), int(first))
    hours = int(hour)
    if half:
        hours = hours % 12 + (12 if half.lower() == "p" else 0)
    try:
        # The phone's local time, zone unknown: kept as UTC, as other readers do.
        return datetime(
            year, month, day, hours, int(minute), int(second_of_minute or 0), tzinfo=timezone.utc
        )
    except ValueError:
        return None
