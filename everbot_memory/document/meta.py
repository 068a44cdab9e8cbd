"""The hidden metadata under each entry heading, read and written in this one module.

    <!-- everbot {"score": 0.9135, "base": 0.95, "base_at": "...", "activated": "...",
                  "created": "...", "session": "...", "merged": [...], "expires": "...",
                  "replaces": [...], "from": [...], "into": "..."} -->

``from`` lists the memories ``consolidate`` condensed into this one; ``into`` names the memory
an archived original was condensed into. The group is in the heading, where a person sets it.

An HTML comment is invisible when the Markdown is rendered. It holds the exact values the
heading rounds (the full score, the time of day, where decay counts from), so the file stays the
whole truth. Values equal to what the heading already implies are left out. When the heading and
the comment disagree, a person edited the heading: the heading wins from that moment on.
"""

from __future__ import annotations

import functools
import json
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from ..core.clock import iso, stable_id
from ..core.entry import is_valid_id
from .content import escape_unsafe
from .grammar import META_PREFIX, Heading
from .model import Problem

if TYPE_CHECKING:
    from ..core.entry import MemoryEntry

__all__ = ["entry_fields", "fast_iso", "parse_meta", "render_meta"]


_DECODER = json.JSONDecoder()  # raw_decode skips what json.loads does around it
#: ``json.dumps(..., ensure_ascii=False, separators=(", ", ": "))``, whose every call with
#: options makes an encoder: made once (every memory of a file rescored on a new day).
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": "))


def parse_meta(text: str) -> dict[str, object]:
    """The JSON object of a metadata comment; ``ValueError`` when it is not one."""
    if not (text.startswith(META_PREFIX) and text.endswith("-->")):
        raise ValueError("not a metadata comment")
    body = text[len(META_PREFIX) : -3].strip(" \t\n\r")
    value, end = _DECODER.raw_decode(body)  # a JSONDecodeError is a ValueError
    if end != len(body):
        raise ValueError("text after the metadata object")
    if not isinstance(value, dict):
        raise ValueError("metadata is not an object")
    return value


def _meta_time(meta: dict[str, object], key: str) -> datetime:
    value = meta[key]
    if not isinstance(value, str):
        raise ValueError(f"{key} is not a time")
    return _time(value)


@functools.lru_cache(maxsize=4096)
def _time(text: str) -> datetime:
    # Memoized: the entries one session wrote share their times, and a large file has many.
    value = datetime.fromisoformat(text)
    return value if value.tzinfo is timezone.utc else value.astimezone(timezone.utc)


def fast_iso(value: datetime) -> str:
    """:func:`~everbot_memory.core.clock.iso`, faster for the UTC times entries hold."""
    if value.tzinfo is timezone.utc and value.year >= 1000 and not value.microsecond:
        return value.isoformat()[:-6] + "Z"  # "+00:00" -> "Z"
    return iso(value)


def entry_fields(
    heading: Heading,
    meta: dict[str, object] | None,
    content: str,
    now: datetime,
    line_no: int,
    problems: list[Problem],
    taken_ids: set[str],
) -> dict[str, Any]:
    """The fields of an entry read from its heading, its metadata (None when missing) and its
    content, as ``MemoryEntry(**fields)`` takes them; repairs go to ``problems``."""
    for message in heading.repairs:
        problems.append(Problem(line_no, message))
    entry_id = heading.id
    if entry_id is None or entry_id in taken_ids:
        fresh = stable_id(f"{entry_id}|{heading.category}|{content.strip()}", taken_ids)
        if entry_id is None:
            problems.append(Problem(line_no, f"entry had no id; gave it [{fresh}]"))
        else:
            problems.append(Problem(line_no, f"id [{entry_id}] was used twice; now [{fresh}]"))
        entry_id = fresh
    activated = heading.activated or now
    score = heading.score
    base_score: float = score
    base_at: datetime = now
    created = activated
    session = ""
    merged: tuple[str, ...] = ()
    replaces: tuple[str, ...] = ()
    condensed_from: tuple[str, ...] = ()
    condensed_into: str | None = None
    expires: datetime | None = None
    if meta is not None:
        raw_from = meta.get("from")
        if raw_from and isinstance(raw_from, list):
            condensed_from = tuple(map(str, raw_from))
        raw_into = meta.get("into")
        if isinstance(raw_into, str) and is_valid_id(raw_into):
            condensed_into = raw_into
        elif raw_into is not None:
            problems.append(
                Problem(line_no + 1, f"hidden 'into' {raw_into!r} is not an id; dropped")
            )
        if "expires" in meta:
            try:
                expires = _meta_time(meta, "expires")
            except (TypeError, ValueError) as exc:
                problems.append(Problem(line_no + 1, f"hidden expiry unreadable ({exc}); dropped"))
        raw_merged = meta.get("merged")
        if raw_merged and isinstance(raw_merged, list):
            merged = tuple(map(str, raw_merged))
        raw_replaces = meta.get("replaces")
        if raw_replaces and isinstance(raw_replaces, list):
            replaces = tuple(map(str, raw_replaces))
        try:
            exact = float(meta["score"])  # type: ignore[arg-type]
            meta_activated = _meta_time(meta, "activated")
            created = _meta_time(meta, "created")
            session = str(meta.get("session", ""))
            meta_base = float(meta.get("base", exact))  # type: ignore[arg-type]
            meta_base_at = _meta_time(meta, "base_at") if "base_at" in meta else meta_activated
        except (KeyError, TypeError, ValueError) as exc:
            problems.append(Problem(line_no + 1, f"hidden metadata incomplete ({exc}); rebuilt"))
        else:
            same_date = heading.activated is None or (meta_activated.date() == activated.date())
            if same_date:
                activated = meta_activated
            if f"{exact:.2f}" == f"{score:.2f}" and same_date:
                # Untouched since the engine wrote it: keep the exact values.
                score, base_score, base_at = exact, meta_base, meta_base_at
            # Otherwise a person changed the score or date: honour it from now on.
    else:
        problems.append(Problem(line_no, f"entry [{entry_id}] had no hidden metadata; added"))
    return {
        "id": entry_id,
        "content": content.strip(),
        "category": heading.category,
        "score": score,
        "created_at": min(created, activated),
        "last_activated": activated,
        "activation_count": heading.hits,
        "source_session": session,
        "base_score": base_score,
        "base_at": base_at,
        "merged_ids": merged,
        "expires_at": expires,
        "replaces": replaces,
        "group": heading.group,
        "condensed_from": condensed_from,
        "condensed_into": condensed_into,
    }


# ---------------------------------------------------------------------------------------------


def render_meta(entry: MemoryEntry) -> str:
    """The metadata comment written under ``entry``'s heading."""
    base_score, base_at = entry.anchor
    meta: dict[str, object] = {"score": entry.score}
    if base_score != entry.score:
        meta["base"] = base_score
    if base_at != entry.last_activated:
        meta["base_at"] = fast_iso(base_at)
    meta["activated"] = fast_iso(entry.last_activated)
    meta["created"] = fast_iso(entry.created_at)
    if entry.source_session:
        meta["session"] = entry.source_session
    if entry.merged_ids:
        meta["merged"] = list(entry.merged_ids)
    if entry.expires_at is not None:
        meta["expires"] = fast_iso(entry.expires_at)
    if entry.replaces:
        meta["replaces"] = list(entry.replaces)
    if entry.condensed_from:
        meta["from"] = list(entry.condensed_from)
    if entry.condensed_into:
        meta["into"] = entry.condensed_into
    text = _ENCODER.encode(meta)
    # "-->" inside a value would end the comment early; JSON reads the escapes back.
    text = text.replace("<", "\\u003c").replace(">", "\\u003e")
    return f"{META_PREFIX}{escape_unsafe(text)} -->"
