"""The note a closed session leaves (the episodic layer): the LLM backend's own, made in its one
extraction call, else one made by the rules from the messages and the memories found. Every
text goes through redaction first: a secret never reaches a note."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..core.clock import utcnow
from ..core.redaction import redact
from ..core.session_note import SessionNote

if TYPE_CHECKING:
    from datetime import datetime

    from ..core.candidate import Candidate
    from .session_end import PendingSession

__all__ = ["closed_at", "session_note"]


def closed_at(session: PendingSession) -> datetime:
    """When the session ended: its last message's time, else now (a session swept days
    later is noted on the day it happened)."""
    from datetime import datetime, timezone

    for message in reversed(list(session.messages)):
        stamp = message.get("timestamp") if hasattr(message, "get") else None
        if isinstance(stamp, str):
            try:
                when = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
            except ValueError:
                continue
            if when.tzinfo is None:
                when = when.replace(tzinfo=timezone.utc)
            return when.astimezone(timezone.utc).replace(microsecond=0)
    return utcnow().replace(microsecond=0)


def _clean(text: str) -> str:
    redacted = redact(" ".join(str(text).split()))
    return "" if redacted.only_secret else redacted.text


def session_note(
    session: PendingSession, candidates: list[Candidate], extractor: Any
) -> SessionNote | None:
    """The note of ``session``, redacted; None when it would say nothing."""
    at = closed_at(session)
    given = getattr(extractor, "session_note", None)
    if given is not None and hasattr(given, "worked_on"):
        note = SessionNote(
            session.session_id,
            at,
            given.worked_on,
            tuple(given.decisions),
            tuple(given.open_threads),
        )
    else:
        from ..extract.notes import rules_note

        note = rules_note(session.new, candidates, session.session_id, at)
    cleaned = SessionNote(
        note.session,
        note.at,
        _clean(note.worked_on),
        tuple(t for t in map(_clean, note.decisions) if t),
        tuple(t for t in map(_clean, note.open_threads) if t),
        tuple(t for t in map(_clean, note.topics) if t),
    )
    return None if cleaned.empty else cleaned
