"""Conversation readers: chats with an assistant (Claude Code session JSONL, chat-message JSON,
``User:`` / ``Assistant:`` text) and conversations between named people (JSON turns and chat
exports, LoCoMo's samples, ``Name: text`` lines, WhatsApp exports, IRC logs, Discord and
meeting-caption exports, CSV).

Every reader produces one :class:`Transcript` of :class:`Message` turns: the user's, the
assistant's or, between named people, the other speakers' (role ``other``, with their name);
the session id when the transcript names one; and how many lines could not be read.

Formats (``auto`` detects them):

- ``claude-code``: one JSON record a line, as Claude Code writes sessions.
- ``messages``: a JSON list of ``{"role", "content"}`` messages, or ``{"messages": [...]}``.
- ``text``: ``User:`` / ``Assistant:`` (``用户：`` / ``助手：``) lines.
- ``named``: speakers by name; ``user`` picks whose words the memories are about
  (:mod:`.speakers` says how one is chosen when it is not given).
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any

from ...errors import TranscriptError
from .chat import chat_messages, claude_code, plain_text
from .exports import read_export
from .model import FORMATS, Format, Message, Transcript
from .named_json import looks_named_json, named_json, named_json_lines
from .named_text import is_assistant_chat, looks_named_text, named_text
from .speakers import as_transcript

__all__ = [
    "FORMATS",
    "Message",
    "Transcript",
    "parse_bytes",
    "parse_transcript",
    "read_transcript",
]


def _first_json_line(text: str) -> Any:
    for line in text.split("\n"):
        if line.strip():
            try:
                return json.loads(line)
            except json.JSONDecodeError:
                return None
    return None


def _detect(text: str, user: str | None) -> str:
    stripped = text.strip()
    first = _first_json_line(text)
    if isinstance(first, dict) and "\n" in stripped:
        # One JSON object a line: a Claude Code session, or one named turn a line.
        if "type" in first or "message" in first:
            return "claude-code"
        if looks_named_json([first]):
            return "named"
    if stripped.startswith(("[", "{")):
        try:
            data = json.loads(stripped)
        except json.JSONDecodeError:
            if stripped.startswith("{"):
                return "claude-code"
            # "[" may open a WhatsApp line ("[12/03/2024, 21:15:03] Maria: ...").
        else:
            if looks_named_json(data):
                return "named"
            return "claude-code" if _is_record(data) else "messages"
    if (export := read_export(text)) is not None and export.turns:
        return "named"
    if looks_named_text(text):
        return "named"
    # Naming a person says the text is a conversation between named people, even one too
    # short for the rule that tells them from a chat with an assistant; unless it is one.
    return "named" if user is not None and not is_assistant_chat(text) else "text"


def _is_record(data: Any) -> bool:
    return isinstance(data, dict) and "messages" not in data and ("type" in data)


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise TranscriptError(f"not valid JSON (line {exc.lineno}: {exc.msg})") from exc


def _named(text: str, user: str | None) -> Transcript:
    if (export := read_export(text)) is not None and export.turns:
        return as_transcript(export, user)
    stripped = text.strip()
    if not stripped.startswith(("[", "{")):
        return as_transcript(named_text(text), user)
    try:
        data = json.loads(stripped)
    except json.JSONDecodeError:
        if stripped.startswith("{") and "\n" in stripped:
            return as_transcript(named_json_lines(stripped), user)
        if looks_named_text(text):  # a WhatsApp export's "[12/03/2024, 21:15:03] ..."
            return as_transcript(named_text(text), user)
        raise
    return as_transcript(named_json(data, user), user)


def parse_transcript(text: str, format: Format = "auto", user: str | None = None) -> Transcript:
    """Read a conversation from text in the given format (``auto`` detects it).

    ``user`` names the person the memories are about in a conversation between named people
    (compared trimmed and ignoring case); without it one is chosen, and the transcript's
    ``user`` and ``user_reason`` say who and why. Raises :class:`TranscriptError` when
    nothing readable is found, or no speaker is called ``user``.
    """
    text = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    if format not in FORMATS:
        raise TranscriptError(f"unknown format {format!r}; use one of {', '.join(FORMATS)}")
    if format == "auto":
        format = _detect(text, user)  # type: ignore[assignment]
    if user is not None and format != "named":
        raise TranscriptError(
            f"--user picks a speaker in a conversation between named people; this is a "
            f"{format} transcript, where the user's turns are already marked"
        )
    if format == "claude-code":
        transcript = claude_code(text.split("\n"))
    elif format == "messages":
        transcript = chat_messages(_json(text))
    elif format == "text":
        transcript = plain_text(text)
    else:
        try:
            transcript = _named(text, user)
        except json.JSONDecodeError as exc:
            raise TranscriptError(f"not valid JSON (line {exc.lineno}: {exc.msg})") from exc
    if not any(m.role != "context" for m in transcript.messages):
        _check_json(text)
        hint = f" ({transcript.skipped} unreadable)" if transcript.skipped else ""
        raise TranscriptError(
            f"no conversation found in the {transcript.format} transcript{hint}; check "
            "--format (claude-code, messages, text with 'User:' / 'Assistant:' lines, or "
            "named with 'Name: text' lines or a chat export)"
        )
    return transcript


def _check_json(text: str) -> None:
    """Say where JSON is broken when ``text`` is one JSON document that does not parse (a
    file cut short, a missing comma) rather than that no conversation was found in it."""
    stripped = text.strip()
    if not stripped.startswith(("{", "[")):
        return
    try:
        json.loads(stripped)
    except json.JSONDecodeError as exc:
        lines = [line for line in stripped.split("\n") if line.strip()]
        if len(lines) > 1:
            with contextlib.suppress(json.JSONDecodeError):
                json.loads(lines[0])
                return  # JSON lines (a Claude Code transcript): each read on its own
        raise TranscriptError(
            f"not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); "
            "is the file complete?"
        ) from exc


def read_transcript(
    path: str | os.PathLike[str], format: Format = "auto", user: str | None = None
) -> Transcript:
    """Read a conversation from a file (see :func:`parse_transcript`)."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError as exc:
        raise TranscriptError(f"transcript {path} does not exist") from exc
    except IsADirectoryError as exc:
        raise TranscriptError(f"transcript {path} is a directory, not a file") from exc
    except OSError as exc:
        raise TranscriptError(f"cannot read transcript {path}: {exc.strerror or exc}") from exc
    return parse_bytes(data, format, str(path), user)


def parse_bytes(
    data: bytes,
    format: Format = "auto",
    name: str = "the transcript",
    user: str | None = None,
) -> Transcript:
    """Read a conversation from raw bytes (UTF-8)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TranscriptError(f"{name} is not UTF-8 text (bad byte at {exc.start})") from exc
    return parse_transcript(text, format, user)
