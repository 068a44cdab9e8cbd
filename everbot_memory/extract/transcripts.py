"""Conversation readers: Claude Code session JSONL, chat-message JSON, and plain text.

Every reader produces one :class:`Transcript`: the user's and the assistant's own words as
:class:`Message` objects (tool calls, tool results, thinking and sub-agent lines left out), the
session id when the transcript names one, and how many lines could not be read.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

from ..errors import TranscriptError

__all__ = [
    "FORMATS",
    "Message",
    "Transcript",
    "parse_bytes",
    "parse_transcript",
    "read_transcript",
]

Role = Literal["user", "assistant", "context"]
Format = Literal["auto", "claude-code", "messages", "text"]
FORMATS: tuple[str, ...] = ("auto", "claude-code", "messages", "text")


@dataclass(frozen=True)
class Message:
    """One turn: who said it (``context`` is a summary of earlier turns), what, and when."""

    role: Role
    text: str
    timestamp: datetime | None = None


@dataclass
class Transcript:
    """A conversation read from a file, ready for an extractor."""

    messages: list[Message] = field(default_factory=list)
    format: str = "text"
    session_id: str | None = None
    skipped: int = 0  # lines or items that could not be read

    def as_dicts(self) -> list[dict[str, str]]:
        """The messages as ``{"role", "content"}`` dicts (plus ``timestamp`` when known), as
        extractors take them."""
        return [
            {"role": m.role, "content": m.text}
            | ({"timestamp": m.timestamp.isoformat()} if m.timestamp else {})
            for m in self.messages
        ]

    def content_id(self) -> str:
        """A stable id for the conversation: a hash of its messages."""
        digest = hashlib.sha256()
        for message in self.messages:
            digest.update(f"{message.role}\0{message.text}\0".encode())
        return "sha-" + digest.hexdigest()[:16]


def _time(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


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
    return Message(role, text, _time(timestamp))


def _claude_code(lines: Iterable[str]) -> Transcript:
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


def _chat_messages(data: Any) -> Transcript:
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


_SPEAKER_RE = re.compile(
    r"^\s*(user|human|me|assistant|ai|bot|claude|用户|我|助手|机器人)\s*[:：]\s?(.*)$", re.I
)
_ROLES: dict[str, Role] = {
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


def _plain_text(text: str) -> Transcript:
    transcript = Transcript(format="text")
    role: Role | None = None
    parts: list[str] = []

    def flush() -> None:
        body = "\n".join(parts).strip()
        if role is not None and body:
            transcript.messages.append(Message(role, body))

    for line in text.split("\n"):
        match = _SPEAKER_RE.match(line)
        if match:
            flush()
            role, parts = _ROLES[match.group(1).lower()], [match.group(2)]
        elif role is not None:
            parts.append(line)
        elif line.strip():
            transcript.skipped += 1  # text before the first speaker
    flush()
    return transcript


def _looks_like_jsonl(text: str) -> bool:
    for line in text.split("\n"):
        if line.strip():
            try:
                first = json.loads(line)
            except json.JSONDecodeError:
                return False
            return isinstance(first, dict) and ("type" in first or "message" in first)
    return False


def parse_transcript(text: str, format: Format = "auto") -> Transcript:
    """Read a conversation from text in the given format (``auto`` detects it).

    Raises :class:`TranscriptError` when nothing readable is found.
    """
    text = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    if format == "auto":
        stripped = text.lstrip()
        if _looks_like_jsonl(text) and "\n" in stripped.rstrip():
            format = "claude-code"
        elif stripped.startswith(("[", "{")):
            try:
                data = json.loads(stripped)
            except json.JSONDecodeError:
                format = "claude-code" if stripped.startswith("{") else "text"
            else:
                format = "claude-code" if _is_record(data) else "messages"
        else:
            format = "text"
    if format == "claude-code":
        transcript = _claude_code(text.split("\n"))
    elif format == "messages":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise TranscriptError(f"not valid JSON (line {exc.lineno}: {exc.msg})") from exc
        transcript = _chat_messages(data)
    elif format == "text":
        transcript = _plain_text(text)
    else:
        raise TranscriptError(f"unknown format {format!r}; use one of {', '.join(FORMATS)}")
    if not any(m.role == "user" or m.role == "assistant" for m in transcript.messages):
        hint = f" ({transcript.skipped} unreadable)" if transcript.skipped else ""
        raise TranscriptError(
            f"no conversation found in the {transcript.format} transcript{hint}; "
            "check --format (claude-code, messages or text with 'User:' / 'Assistant:' lines)"
        )
    return transcript


def _is_record(data: Any) -> bool:
    return isinstance(data, dict) and "messages" not in data and ("type" in data)


def read_transcript(path: str | Path, format: Format = "auto") -> Transcript:
    """Read a conversation from a file (see :func:`parse_transcript`)."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError as exc:
        raise TranscriptError(f"transcript {path} does not exist") from exc
    except IsADirectoryError as exc:
        raise TranscriptError(f"transcript {path} is a directory, not a file") from exc
    except OSError as exc:
        raise TranscriptError(f"cannot read transcript {path}: {exc.strerror or exc}") from exc
    return parse_bytes(data, format, str(path))


def parse_bytes(data: bytes, format: Format = "auto", name: str = "the transcript") -> Transcript:
    """Read a conversation from raw bytes (UTF-8)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TranscriptError(f"{name} is not UTF-8 text (bad byte at {exc.start})") from exc
    return parse_transcript(text, format)
