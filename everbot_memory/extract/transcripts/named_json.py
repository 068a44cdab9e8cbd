"""Conversations between named people in JSON: lists of turns with a speaker and a text (chat
exports such as Telegram's and Slack's, or one turn a line), and LoCoMo's samples.
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone
from typing import Any

from ...errors import TranscriptError
from .model import to_time
from .speakers import Conversation, Turn, name_key

__all__ = ["is_locomo", "looks_named_json", "named_json", "named_json_lines"]

# The keys a turn names its speaker and its text with, most specific first.
_SPEAKER_KEYS = (
    "speaker",
    "from",
    "author",
    "sender",
    "user_profile",
    "user_name",
    "username",
    "name",
    "user",
)
_TEXT_KEYS = ("text", "content", "message", "body")
_TIME_KEYS = ("timestamp", "date", "time", "datetime", "created_at", "ts")
# Where a wrapping object keeps its turns.
_LIST_KEYS = ("messages", "turns", "conversation", "dialogue", "dialog", "chat")
# The app's own lines: Slack's notices (other subtypes, a shared file, a bot, are words).
_NOTICES = frozenset(
    f"{kind}_{event}"
    for kind in ("channel", "group")
    for event in ("join", "leave", "topic", "purpose", "name", "archive", "unarchive")
) | {"pinned_item", "unpinned_item"}
# How a speaker object (a Slack profile, a Discord author) gives a readable name.
_PROFILE_KEYS = ("display_name", "real_name", "name", "nickname", "username")


def _speaker(item: dict[str, Any]) -> str | None:
    for key in _SPEAKER_KEYS:
        value = item.get(key)
        if isinstance(value, dict):
            names = (value.get(k) for k in _PROFILE_KEYS)
            value = next((n for n in names if isinstance(n, str) and n.strip()), None)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def _text(value: Any) -> str | None:
    """A turn's text: a string, or a list of strings and ``{"text": ...}`` parts (Telegram's
    formatted messages); None when it is neither."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return _text(value.get("text"))
    if isinstance(value, list):
        # The parts are joined as they are: their spaces are the text's own.
        return "".join(part for part in map(_text, value) if part)
    return None


def _turn_text(item: dict[str, Any]) -> str | None:
    text = next((_text(item[key]) for key in _TEXT_KEYS if key in item), None)
    return None if text is None else text.strip()


def _is_turn(item: Any) -> bool:
    return (
        isinstance(item, dict)
        and "role" not in item
        and _speaker(item) is not None
        and any(key in item for key in _TEXT_KEYS)
    )


def _turn_list(data: Any) -> list[Any] | None:
    if isinstance(data, list):
        return data
    if isinstance(data, dict):
        return next((data[key] for key in _LIST_KEYS if isinstance(data.get(key), list)), None)
    return None


def looks_named_json(data: Any) -> bool:
    """True when ``data`` holds turns with named speakers rather than role messages."""
    if is_locomo(data):
        return True
    items = _turn_list(data)
    if not items:
        return False
    named = sum(_is_turn(item) for item in items)
    roles = sum(isinstance(item, dict) and "role" in item for item in items)
    return named > roles


def _from_items(items: list[Any], conversation: Conversation) -> Conversation:
    for item in items:
        if not isinstance(item, dict):
            conversation.skipped += 1
            continue
        if item.get("type") == "service" or item.get("subtype") in _NOTICES:
            continue  # the app's own line: someone joined, a call, a pinned message
        speaker, text = _speaker(item), _turn_text(item)
        if speaker is None or text is None:
            conversation.skipped += 1
        elif text:  # an empty text is a photo or a file without a caption
            stamp = next((to_time(item[key]) for key in _TIME_KEYS if key in item), None)
            conversation.turns.append(Turn(speaker, text, stamp))
    return conversation


def named_json(data: Any, user: str | None = None) -> Conversation:
    """The turns of a JSON conversation between named people (``user`` picks one LoCoMo
    sample out of several)."""
    if is_locomo(data):
        return _locomo(_one_sample(data, user))
    items = _turn_list(data)
    if items is None:
        raise TranscriptError(
            'expected a JSON list of turns ({"speaker": ..., "text": ...}) or {"messages": [...]}'
        )
    conversation = Conversation()
    if isinstance(data, dict):
        if isinstance(data.get("session_id"), str):
            conversation.session_id = data["session_id"]
        elif isinstance(data.get("id"), int) and isinstance(data.get("name"), str):
            # A Telegram export: the chat's id, so a later export of the same chat continues it.
            conversation.session_id = f"chat-{data['id']}"
        if data.get("type") == "personal_chat" and isinstance(data.get("name"), str):
            conversation.chat_with = data["name"]  # Telegram names a personal chat after them
    return _from_items(items, conversation)


def named_json_lines(text: str) -> Conversation:
    """One JSON turn a line."""
    conversation = Conversation()
    items: list[Any] = []
    for line in text.split("\n"):
        if line.strip():
            try:
                items.append(json.loads(line))
            except json.JSONDecodeError:
                conversation.skipped += 1
    return _from_items(items, conversation)


# -- LoCoMo: {"conversation": {"speaker_a", "speaker_b", "session_1": [...],
#    "session_1_date_time": "1:56 pm on 8 May, 2023", ...}, "sample_id": ..., "qa": ...}

_SESSION_RE = re.compile(r"session_(\d+)")
_LOCOMO_TIME_RE = re.compile(
    r"(\d{1,2}):(\d{2})\s*([ap])\.?m\.?\s+on\s+(\d{1,2})\s+([a-z]+),?\s+(\d{4})", re.I
)
_MONTHS = {
    name: number
    for number, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}


def _dialogue(data: Any) -> dict[str, Any] | None:
    inner = data.get("conversation") if isinstance(data, dict) else None
    found = inner if isinstance(inner, dict) else data
    return found if isinstance(found, dict) and "speaker_a" in found else None


def is_locomo(data: Any) -> bool:
    """True for a LoCoMo sample, its ``conversation``, or a list of samples."""
    if isinstance(data, list):
        return bool(data) and all(_dialogue(sample) is not None for sample in data)
    return _dialogue(data) is not None


def _sample_speakers(sample: Any) -> list[str]:
    dialogue = _dialogue(sample) or {}
    return [str(dialogue.get(key, "?")) for key in ("speaker_a", "speaker_b")]


def _one_sample(data: Any, user: str | None) -> Any:
    """The sample to read: the only one, else the only one where ``user`` speaks."""
    if not isinstance(data, list):
        return data
    if len(data) == 1:
        return data[0]

    def label(index: int) -> str:
        sample = data[index]
        name = sample.get("sample_id", index) if isinstance(sample, dict) else index
        return f"{name} ({' & '.join(_sample_speakers(sample))})"

    if user is None:
        listed = ", ".join(label(i) for i in range(min(len(data), 5)))
        more = ", ..." if len(data) > 5 else ""
        raise TranscriptError(
            f"the file holds {len(data)} LoCoMo conversations ({listed}{more}); "
            "use --user NAME to read the one where NAME speaks, or save one on its own"
        )
    key = name_key(user)
    matching = [
        i for i, sample in enumerate(data) if key in map(name_key, _sample_speakers(sample))
    ]
    if len(matching) == 1:
        return data[matching[0]]
    if not matching:
        speakers = sorted({name for sample in data for name in _sample_speakers(sample)})
        raise TranscriptError(
            f"no speaker {user.strip()!r} in the {len(data)} LoCoMo conversations; "
            f"speakers: {', '.join(speakers)}; use --user NAME"
        )
    where = ", ".join(label(i) for i in matching)
    raise TranscriptError(
        f"the file holds {len(data)} LoCoMo conversations and {user.strip()!r} speaks in "
        f"{len(matching)} of them ({where}); save the one to read on its own"
    )


def _locomo_time(value: Any) -> datetime | None:
    match = _LOCOMO_TIME_RE.search(value) if isinstance(value, str) else None
    month = _MONTHS.get(match.group(5).lower()) if match else None
    if match is None or month is None:
        return None
    hour = int(match.group(1)) % 12 + (12 if match.group(3).lower() == "p" else 0)
    try:
        day, minute = int(match.group(4)), int(match.group(2))
        return datetime(int(match.group(6)), month, day, hour, minute, tzinfo=timezone.utc)
    except ValueError:
        return None


def _locomo(sample: Any) -> Conversation:
    dialogue = _dialogue(sample)
    assert dialogue is not None
    conversation = Conversation()
    if isinstance(sample, dict) and isinstance(sample.get("sample_id"), str):
        conversation.session_id = sample["sample_id"]
    sessions = sorted(
        (int(match.group(1)), key)
        for key in dialogue
        if (match := _SESSION_RE.fullmatch(key)) and isinstance(dialogue[key], list)
    )
    for _, key in sessions:
        # Every turn of a session carries the session's time: LoCoMo dates sessions, not turns.
        stamp = _locomo_time(dialogue.get(f"{key}_date_time"))
        for item in dialogue[key]:
            speaker = item.get("speaker") if isinstance(item, dict) else None
            text = item.get("text") if isinstance(item, dict) else None
            if not isinstance(speaker, str) or not isinstance(text, str):
                conversation.skipped += 1
                continue
            caption = item.get("blip_caption")
            if isinstance(caption, str) and caption.strip():
                # What a shared photo shows, as LoCoMo describes it; the words stay first.
                text = f"{text.strip()}\n[shares a photo: {caption.strip()}]"
            if text.strip():
                conversation.turns.append(Turn(speaker, text.strip(), stamp))
    return conversation
