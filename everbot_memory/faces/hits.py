"""How a recalled memory is printed: one line, or a JSON object. Shared by the ``recall``
command and its fast path (:mod:`.recall`), so both print the same bytes; no typer here."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..facade.search import Hit, NoteHit

__all__ = ["NOTES_HEADING", "NO_MATCH", "hit_json", "hit_line", "note_line"]

#: What ``recall`` prints when no memory (and no session note) is relevant enough.
NO_MATCH = "no memory matches"
#: The line before the session notes ``recall`` found.
NOTES_HEADING = "from session notes:"


def hit_line(hit: Hit) -> str:
    """``[id] relevance  category (archived) content on one line``."""
    text = " ".join(hit.entry.content.split())
    # Relevance, not rank: how much of the query the memory matches, comparable between
    # searches; an archived memory says so.
    archived = "" if hit.entry.is_active else "(archived) "
    return f"[{hit.entry.id}] {hit.relevance:.2f}  {hit.entry.category:<11} {archived}{text}"


def hit_json(hit: Hit) -> dict[str, Any]:
    """The hit as ``recall --json`` prints it."""
    return {
        "id": hit.entry.id,
        "content": hit.entry.content,
        "category": hit.entry.category,
        "group": hit.entry.group,
        "score": round(hit.score, 4),
        "rank": round(hit.rank, 4),
        "relevance": round(hit.relevance, 4),
        "recency": round(hit.recency, 4),
        "section": "active" if hit.entry.is_active else "archived",
    }


def note_line(note: NoteHit) -> str:
    """A session note found by recall: its day, time and session, then its text on one line."""
    when = f"{note.day.isoformat()} {note.time or ''}".strip()
    session = f" session {note.session}" if note.session else ""
    text = " ".join(note.text.split())
    if len(text) > 200:
        text = text[:199] + "…"
    return f"{when}{session}  {note.relevance:.2f}  {text}"
