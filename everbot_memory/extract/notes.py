"""The note of a session, made without an LLM: what the user asked for first, the decisions
and the todos the extractor found. (An LLM backend writes the note in its one extraction call;
see :class:`everbot_memory.extract.contract.ExtractionAnswer`.)

The note is about the session, not the user: "Worked on" is the user's first request as they
put it (secrets already replaced), the decisions and open threads are the memories of those
kinds the session produced.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from ..core.candidate import Candidate
from ..core.session_note import SessionNote
from ..core.text import one_line
from .conversation import Messages, message_text

__all__ = ["WORKED_ON_MAX", "rules_note"]

#: "Worked on" is cut to this many characters.
WORKED_ON_MAX = 160


def _first_request(messages: Messages) -> str:
    from .rules.sentences import sentences

    for message in messages:
        if message.get("role") != "user":
            continue
        for sentence in sentences(message_text(message)):
            if len(sentence.split()) >= 3 or (len(sentence) >= 6 and not sentence.isascii()):
                return one_line(sentence, WORKED_ON_MAX)
    return ""


def rules_note(
    messages: Messages, candidates: Sequence[Candidate], session_id: str, at: datetime
) -> SessionNote:
    """The note of a session from its messages and the memories extracted from it."""
    decisions = tuple(
        dict.fromkeys(c.content for c in candidates if c.category == "decision" and not c.confirms)
    )
    threads = tuple(
        dict.fromkeys(
            c.content
            for c in candidates
            if c.category == "todo" and not c.forget and not c.confirms
        )
    )
    return SessionNote(session_id, at, _first_request(messages), decisions, threads)
