"""A conversation as extractors read it: message texts, the whole as text, and its day."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from datetime import date, datetime
from typing import Any

from ..core.clock import utcnow

__all__ = ["Messages", "conversation_text", "message_text", "session_day"]

#: Chat messages: mappings with ``role``, ``content`` and, optionally, ``timestamp`` and
#: ``speaker`` (a person's name in a conversation between named people).
Messages = Sequence[Mapping[str, Any]]


def message_text(message: Mapping[str, Any]) -> str:
    """The text of a message (its text blocks joined, when the content is a list)."""
    content = message.get("content", "")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(block.get("text", ""))
            for block in content
            if isinstance(block, Mapping) and block.get("type") == "text"
        )
    return ""


_NAMES = {
    "user": "User",
    "assistant": "Assistant",
    "other": "Someone else",
    "context": "Earlier in this session",
}


def _who(message: Mapping[str, Any]) -> str | None:
    """How a turn's line starts: its role's name, or between named people the speaker's name
    (the user's marked, so the model knows whose memories these are)."""
    role = str(message.get("role", ""))
    speaker = message.get("speaker")
    if isinstance(speaker, str) and speaker.strip() and role in ("user", "other"):
        return f"{speaker.strip()} (the user)" if role == "user" else speaker.strip()
    return _NAMES.get(role)


def conversation_text(messages: Sequence[Mapping[str, Any]]) -> str:
    """The conversation as ``User: ...`` / ``Assistant: ...`` lines; between named people,
    ``Maria (the user): ...`` and ``Jonas: ...``."""
    lines = []
    for message in messages:
        who = _who(message)
        text = message_text(message).strip()
        if text and who:
            lines.append(f"{who}: {text}")
    return "\n\n".join(lines)


def session_day(messages: Sequence[Mapping[str, Any]]) -> date:
    """The day the conversation happened: its first timestamp, else today."""
    for message in messages:
        stamp = message.get("timestamp")
        if isinstance(stamp, str):
            with contextlib.suppress(ValueError):  # not a time: the next message may have one
                return datetime.fromisoformat(stamp.replace("Z", "+00:00")).date()
    return utcnow().date()
