"""What every transcript reader produces: a :class:`Transcript` of :class:`Message` turns."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Literal

__all__ = ["FORMATS", "Format", "Message", "Role", "Transcript", "to_time"]

#: ``user`` and ``assistant`` in a chat with an assistant; ``other`` is anyone but the user in a
#: conversation between named people; ``context`` is a summary of earlier turns.
Role = Literal["user", "assistant", "other", "context"]
Format = Literal["auto", "claude-code", "messages", "text", "named"]
#: The formats a transcript may be named with; ``auto`` detects it.
FORMATS: tuple[str, ...] = ("auto", "claude-code", "messages", "text", "named")


@dataclass(frozen=True)
class Message:
    """One turn: who said it, what, when, and (between named people) the speaker's name."""

    role: Role
    text: str
    timestamp: datetime | None = None
    speaker: str | None = None


@dataclass
class Transcript:
    """A conversation read from a file, ready for an extractor."""

    messages: list[Message] = field(default_factory=list)
    format: str = "text"
    session_id: str | None = None
    skipped: int = 0  # lines or items that could not be read
    #: Between named people: everyone who speaks, in order of their first turn.
    speakers: list[str] = field(default_factory=list)
    #: Between named people: the speaker the memories are about, and why this one
    #: (``given``, ``the only speaker``, ``named like the user``, ``most turns``, ...).
    user: str | None = None
    user_reason: str | None = None
    #: True when ``user`` was chosen among several speakers without being named.
    user_guessed: bool = False

    def as_dicts(self) -> list[dict[str, str]]:
        """The messages as ``{"role", "content"}`` dicts (plus ``timestamp`` and ``speaker``
        when known), as extractors take them."""
        return [
            {"role": m.role, "content": m.text}
            | ({"timestamp": m.timestamp.isoformat()} if m.timestamp else {})
            | ({"speaker": m.speaker} if m.speaker else {})
            for m in self.messages
        ]

    def content_id(self) -> str:
        """A stable id for the conversation: a hash of its messages."""
        digest = hashlib.sha256()
        for message in self.messages:
            # The speaker only when there is one, so the ids of chats with an assistant stay
            # what they were before speakers were read.
            who = f"{message.role}\0{message.speaker}" if message.speaker else message.role
            digest.update(f"{who}\0{message.text}\0".encode())
        return "sha-" + digest.hexdigest()[:16]


# Seconds since 1970 as text: at least nine digits, so a year or a count is not taken for one.
_EPOCH_RE = re.compile(r"\d{9,}(\.\d+)?")


def to_time(value: Any) -> datetime | None:
    """An ISO 8601 string or Unix seconds (a number, or digits as text) as a UTC-aware time;
    None for anything else. A time without a zone is taken as UTC."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            if not _EPOCH_RE.fullmatch(value.strip()):
                return None
            value = float(value)  # Slack's "1710278103.000200"
        else:
            return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)
    if isinstance(value, int | float):
        try:
            return datetime.fromtimestamp(value, timezone.utc)
        except (OverflowError, OSError, ValueError):
            return None
    return None
