"""How a memory is printed as JSON and what ``remember`` prints: shared by the commands and
the fast path of ``remember`` (:mod:`.remember`), so both print the same bytes; no typer here."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..core.entry import MemoryEntry
    from ..core.merge import MergeResult

__all__ = ["entry_json", "remembered"]


def entry_json(entry: MemoryEntry) -> dict[str, Any]:
    """A memory's fields as JSON values, scores to 4 digits (sums such as 0.6 + 0.08 are not
    exact in binary), and its section."""
    data = {k: round(v, 4) if isinstance(v, float) else v for k, v in entry.to_json().items()}
    data["section"] = "active" if entry.is_active else "archived"
    return data


def remembered(entry: MemoryEntry, result: MergeResult, as_json: bool) -> str:
    """What ``remember`` prints: the memory added or reinforced, on one line or as JSON."""
    if as_json:
        data = {"entry": entry_json(entry), **result.stats.as_dict()}
        return json.dumps(data, ensure_ascii=False, indent=2)
    verb = "remembered" if result.stats.new else "reinforced"
    return f"{verb} [{entry.id}] {entry.category} {entry.score:.2f}: {entry.content}"
