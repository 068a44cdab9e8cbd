"""Chats between a user and an assistant: Claude Code session JSONL, chat-message JSON, and
plain text with ``User:`` / ``Assistant:`` lines.

Each reader keeps the user's and the assistant's own words (tool calls, tool results, thinking
and sub-agent lines left out) and counts what it could not read.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from ...errors import TranscriptError
from .model import Message, Role, Transcript, to_time

__all__ = ["ROLE_WORDS", "chat_messages", "claude_code", "plain_text", "role_speaker"]

# Claude Code wraps slash commands and hook output in tags; they are not what anyone said.
_WRAPPER_RE = re.compile(
    r"^\s*<(command-name|command-message|command-args|local-command-stdout|system-reminder)>"
)


def _block_texts(content: Any) -> list[str] | None:
    """The text parts of a message's content; None when it is not a message content at all."""
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return None
    texts = []
    for block in content:
        if isinstance(block, str):
            texts.append(block)
        elif isinstance(block, dict) and block.get("type") in ("text", "input_text"):
            text = block.get("text")
            if isinstance(text, str):
                texts.append(text)
        # tool_use, tool_result, thinking, images: not the speakers' own words
    return texts


def _message(role: Any, content: Any, timestamp: Any = None) -> Message | bool | None:
    """A Message, None to skip silently, or False when the item is malformed."""
    texts = _block_texts(content)
    if texts is None:
        return False
    text = "\n".join(t.strip() for t in texts if t.strip() and not _WRAPPER_RE.match(t))
    if role not in ("user", "assistant") or not text:
        return None
    return Message(role, text, to_time(timestamp))


def claude_code(lines: Iterable[str]) -> Transcript:
    """A Claude Code session file, one JSON record a line."""
    transcript = Transcript(format="claude-code")
    for line in lines:
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            transcript.skipped += 1
            continue
        if not isinstance(record, dict):
            transcript.skipped += 1
            continue
        if transcript.session_id is None and isinstance(record.get("sessionId"), str):
            transcript.session_id = record["sessionId"]
        kind = record.get("type")
        if kind == "summary" and isinstance(record.get("summary"), str):
            transcript.messages.append(Message("context", record["summary"].strip()))
            continue
        if kind not in ("user", "assistant") or record.get("isSidechain") or record.get("isMeta"):
            continue
        body = record.get("message")
        if not isinstance(body, dict):
            transcript.skipped += 1
            continue
        message = _message(body.get("role", kind), body.get("content"), record.get("timestamp"))
        if message is False:
            transcript.skipped += 1
        elif isinstance(message, Message):
            transcript.messages.append(message)
    return transcript


def chat_messages(data: Any) -> Transcript:
    """A JSON list of ``{"role", "content"}`` messages, or ``{"messages": [...]}``."""
    transcript = Transcript(format="messages")
    if isinstance(data, dict):
        if isinstance(data.get("session_id"), str):
            transcript.session_id = data["session_id"]
        data = data.get("messages")
    if not isinstance(data, list):
        raise TranscriptError('expected a JSON list of messages or {"messages": [...]}')
    for item in data:
        if not isinstance(item, dict) or "role" not in item:
            transcript.skipped += 1
            continue
        message = _message(item["role"], item.get("content"), item.get("timestamp"))
        if message is False:
            transcript.skipped += 1
        elif isinstance(message, Message):
            transcript.messages.append(message)
    return transcript


#: The words that name a side of a chat with an assistant, as a line's speaker.
ROLE_WORDS: dict[str, Role] = {
    "user": "user",
    "human": "user",
    "me": "user",
    "用户": "user",
    "我": "user",
    "assistant": "assistant",
    "ai": "assistant",
    "bot": "assistant",
    "claude": "assistant",
    "助手": "assistant",
    "机器人": "assistant",
}
_SPEAKER_RE = re.compile(rf"^\s*({'|'.join(ROLE_WORDS)})\s*[:：]\s?(.*)$", re.I)


def role_speaker(line: str) -> tuple[Role, str] | None:
    """The side and the text of a ``User: ...`` / ``Assistant: ...`` line; None for others."""
    match = _SPEAKER_RE.match(line)
    return (ROLE_WORDS[match.group(1).lower()], match.group(2)) if match else None


def plain_text(text: str) -> Transcript:
    """Text with ``User:`` / ``Assistant:`` lines; other lines continue the turn before."""
    transcript = Transcript(format="text")
    role: Role | None = None
    parts: list[str] = []

    def flush() -> None:
        body = "\n".join(parts).strip()
        if role is not None and body:
            transcript.messages.append(Message(role, body))

    for line in text.split("\n"):
        found = role_speaker(line)
        if found:
            flush()
            role, first = found
            parts = [first]
        elif role is not None:
            parts.append(line)
        elif line.strip():
            transcript.skipped += 1  # text before the first speaker
    flush()
    return transcript
