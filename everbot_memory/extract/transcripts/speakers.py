"""Conversations between named people: whose turns are the user's, and everyone else's.

A reader of such a conversation gives its :class:`Turn` list; :func:`as_transcript` makes the
chosen person's turns role ``user`` and everyone else's role ``other``, each carrying the
speaker's name. Without a name given, the user is a speaker named like one ("Me", "User",
"我"), else the other side of a chat named after one person (a Telegram personal chat), else
the one with the most turns (a tie goes to the first to speak).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime

from ...errors import TranscriptError
from .model import Message, Role, Transcript

__all__ = ["USER_NAMES", "Conversation", "Turn", "as_transcript", "name_key"]

#: Speaker names that mean the person who exported the chat.
USER_NAMES = frozenset({"user", "me", "you", "human", "我", "用户"})
#: At most this many speakers are listed in an error.
_LISTED = 12


@dataclass(frozen=True)
class Turn:
    """One turn of a conversation between named people."""

    speaker: str
    text: str
    timestamp: datetime | None = None


@dataclass
class Conversation:
    """What a reader of named turns found, before the user is chosen."""

    turns: list[Turn] = field(default_factory=list)
    skipped: int = 0
    session_id: str | None = None
    #: The one person a chat export is named after (a personal chat): not the user.
    chat_with: str | None = None


def name_key(name: str) -> str:
    """How speaker names are compared: trimmed, spaces collapsed, case folded."""
    return " ".join(name.split()).casefold()


def _listing(names: list[str]) -> str:
    shown = ", ".join(names[:_LISTED])
    return shown + (f" and {len(names) - _LISTED} more" if len(names) > _LISTED else "")


def _choose(
    names: dict[str, str], counts: Counter[str], user: str | None, chat_with: str | None
) -> tuple[str, str]:
    """The key of the user's name, and why that speaker."""
    if user is not None:
        key = name_key(user)
        if key not in names:
            raise TranscriptError(
                f"no speaker {user.strip()!r} in the transcript; "
                f"speakers: {_listing(list(names.values()))}; use --user NAME"
            )
        return key, "given"
    if len(names) == 1:
        return next(iter(names)), "the only speaker"
    like_user = [key for key in names if key in USER_NAMES]
    if like_user:
        return like_user[0], "named like the user"
    if chat_with is not None and name_key(chat_with) in names:
        rest = [key for key in names if key != name_key(chat_with)]
        if len(rest) == 1:
            return rest[0], f"the chat is with {names[name_key(chat_with)]}"
    # max() keeps the first of equals, and ``names`` is in order of first turn.
    most = max(names, key=lambda key: counts[key])
    tied = sum(counts[key] == counts[most] for key in names) > 1
    return most, "most turns, first to speak" if tied else "most turns"


def as_transcript(conversation: Conversation, user: str | None = None) -> Transcript:
    """The conversation with ``user``'s turns as role ``user`` and everyone else's as
    ``other``; raises :class:`TranscriptError` when no one is called ``user``."""
    transcript = Transcript(
        format="named", session_id=conversation.session_id, skipped=conversation.skipped
    )
    names: dict[str, str] = {}  # key -> the name as first written
    counts: Counter[str] = Counter()
    for turn in conversation.turns:
        key = name_key(turn.speaker)
        names.setdefault(key, " ".join(turn.speaker.split()))
        counts[key] += 1
    if not names:
        return transcript
    chosen, reason = _choose(names, counts, user, conversation.chat_with)
    transcript.speakers = list(names.values())
    transcript.user, transcript.user_reason = names[chosen], reason
    transcript.user_guessed = user is None and len(names) > 1
    for turn in conversation.turns:
        key = name_key(turn.speaker)
        role: Role = "user" if key == chosen else "other"
        transcript.messages.append(Message(role, turn.text, turn.timestamp, names[key]))
    return transcript
