"""Chat and meeting exports between named people, in the text shapes programs write them:

- IRC and bouncer logs: ``[21:15] <maria> text`` (a time, in brackets or not, may lead;
  ``* maria waves`` is an action, Maria's words);
- DiscordChatExporter's text export: a ``[12/03/2024 9:15 PM] maria`` line, then the message;
- WebVTT captions of a meeting (Teams, Zoom, Meet): ``<v Maria Lopez>text</v>`` cues, or cues
  whose text is ``Maria Lopez: text``;
- CSV exports with an author column and a text column (DiscordChatExporter's CSV, a
  spreadsheet of a chat): the columns are found by their header.

:func:`read_export` returns the turns of the first shape the text has, or None when it has
none of them (then the ``Name: text`` reader is tried).
"""

from __future__ import annotations

import csv
import io
import re

from .model import to_time
from .named_text import is_assistant_chat
from .speakers import Conversation, Turn

__all__ = ["read_export"]

# IRC: an optional time, then <nick> (with a mode sign such as @ or +) or "* nick" for /me.
_IRC_RE = re.compile(
    r"^\s*(?:\[?\d{1,2}:\d{2}(?::\d{2})?\]?\s+|\[?\d{4}-\d{2}-\d{2}[ T][\d:]+\]?\s+)?"
    r"(?:<[@+%&~ ]?([^\s<>]{1,40})>|\*\s+([^\s*]{1,40})\s)\s?(.*)$"
)
# DiscordChatExporter: "[3/12/2024 9:15 PM] maria" alone on its line (the message follows).
# (A WhatsApp line, "[12/03/2024, 21:15:03] Maria: text", has the words on the same line.)
_DCE_HEADER_RE = re.compile(r"^\[(\d{1,4}[./-]\d{1,2}[./-]\d{1,4}[^\]]*)\]\s+(?!.*:\s)(\S.{0,60})$")
_DCE_BLOCK_RE = re.compile(r"^\{(?:Attachments|Embed|Reactions|Stickers|Embeds)\}\s*$")
# Discord's old name tags ("maria#0420"): the person is "maria".
_DISCRIMINATOR_RE = re.compile(r"#\d{4}$")
_DCE_RULE_RE = re.compile(r"^={10,}$")
# WebVTT: a cue's timing line, and a voice span.
_VTT_TIMING_RE = re.compile(r"^(?:\d{1,2}:)?\d{2}:\d{2}[.,]\d{3}\s+-->\s+")
_VTT_VOICE_RE = re.compile(r"<v(?:\.[\w.-]+)?\s+([^>]{1,60})>(.*?)(?:</v>|$)", re.S)
_VTT_NAME_RE = re.compile(r"^([^\W\d_][\w.'’\- ]{0,39}?):\s+(.*)$", re.S)
_TAG_RE = re.compile(r"</?[a-z][^>]*>")
# CSV: the header names of the speaker and the text, most specific first.
_CSV_SPEAKERS = ("author", "from", "sender", "speaker", "user", "username", "name")
_CSV_TEXTS = ("content", "text", "message", "body")
_CSV_TIMES = ("date", "timestamp", "time", "datetime", "sent")


def read_export(text: str) -> Conversation | None:
    """The turns of ``text`` if it is one of the module's export shapes, else None."""
    lines = text.split("\n")
    first = next((line.strip() for line in lines if line.strip()), "")
    if first.startswith("WEBVTT"):
        return _webvtt(lines)
    if _DCE_RULE_RE.match(first) or _dce_headers(lines) >= 2:
        return _discord_text(lines)
    # Most lines IRC's, not two "<div>" lines of pasted HTML in another kind of chat.
    sample = [line for line in lines[:50] if line.strip()]
    irc = sum(1 for line in sample if _IRC_RE.match(line))
    if irc >= 2 and irc * 2 >= len(sample) and not is_assistant_chat(text):
        return _irc(lines)
    return _csv(text)


def _irc(lines: list[str]) -> Conversation:
    conversation = Conversation()
    for line in lines:
        match = _IRC_RE.match(line)
        if match is None:
            # Joins, parts, topic changes ("-!- maria has joined"): the client's, no one's.
            conversation.skipped += bool(line.strip())
            continue
        nick, actor, said = match.groups()
        if actor:
            conversation.turns.append(Turn(actor, f"{actor} {said}".strip()))
        elif said.strip():
            conversation.turns.append(Turn(nick, said.strip()))
    return conversation


def _dce_headers(lines: list[str]) -> int:
    return sum(1 for line in lines[:200] if _DCE_HEADER_RE.match(line.strip()))


def _discord_text(lines: list[str]) -> Conversation:
    conversation = Conversation()
    speaker: str | None = None
    parts: list[str] = []

    def flush() -> None:
        body = "\n".join(parts).strip()
        if speaker is not None and body:
            conversation.turns.append(Turn(speaker, body))

    appended = False  # in the export's own block after a message: attachments, reactions
    for line in lines:
        header = _DCE_HEADER_RE.match(line.strip())
        if header:
            flush()
            speaker, parts = _DISCRIMINATOR_RE.sub("", header.group(2).strip()), []
            appended = False
        elif _DCE_RULE_RE.match(line.strip()):
            flush()
            speaker, parts = None, []  # the export's own header block follows
        elif _DCE_BLOCK_RE.match(line):
            appended = True
        elif not line.strip():
            appended = False
            parts.append(line)
        elif speaker is not None and not appended:
            parts.append(line)
    flush()
    return conversation


def _webvtt(lines: list[str]) -> Conversation:
    """The cues of a WebVTT file, each a turn of the voice that speaks it; a speaker's
    consecutive cues are one turn."""
    conversation = Conversation()
    cues: list[list[str]] = []
    current: list[str] | None = None
    for line in lines:
        if _VTT_TIMING_RE.match(line.strip()):
            current = []
            cues.append(current)
        elif not line.strip():
            current = None
        elif current is not None:
            current.append(line.strip())
    for cue in cues:
        body = "\n".join(cue)
        voices = _VTT_VOICE_RE.findall(body)
        if voices:
            said = [(name.strip(), _TAG_RE.sub("", words).strip()) for name, words in voices]
        elif named := _VTT_NAME_RE.match(_TAG_RE.sub("", body)):
            said = [(named.group(1).strip(), named.group(2).strip())]
        else:
            conversation.skipped += 1  # a caption without a speaker
            continue
        for name, words in said:
            if not words:
                continue
            turns = conversation.turns
            if turns and turns[-1].speaker == name:
                turns[-1] = Turn(name, f"{turns[-1].text} {words}")
            else:
                turns.append(Turn(name, words))
    return conversation


def _csv(text: str) -> Conversation | None:
    head = text.lstrip().split("\n", 1)[0]
    if "," not in head and "\t" not in head and ";" not in head:
        return None
    try:
        dialect = csv.Sniffer().sniff(head, delimiters=",;\t")
    except csv.Error:
        return None
    rows = csv.reader(io.StringIO(text.lstrip()), dialect)
    header = [cell.strip().casefold() for cell in next(rows, [])]
    speaker = next((header.index(k) for k in _CSV_SPEAKERS if k in header), None)
    said = next((header.index(k) for k in _CSV_TEXTS if k in header), None)
    if speaker is None or said is None:
        return None
    when = next((header.index(k) for k in _CSV_TIMES if k in header), None)
    conversation = Conversation()
    for row in rows:
        if len(row) <= max(speaker, said):
            conversation.skipped += any(cell.strip() for cell in row)
            continue
        name, words = _DISCRIMINATOR_RE.sub("", row[speaker].strip()), row[said].strip()
        if not name or not words:
            continue
        stamp = to_time(row[when]) if when is not None and when < len(row) else None
        conversation.turns.append(Turn(name, words, stamp))
    return conversation
