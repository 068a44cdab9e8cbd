"""Recall for one query in a new process, without loading the rest of the facade.

``everbot-memory recall QUERY`` in its plain form comes here from the command's entry point
(:mod:`everbot_memory.faces.entry`): with the index cache beside the file, it reads the cache,
decodes only what the query needs, and imports neither the command-line app nor the Markdown
parser. :meth:`everbot_memory.facade.memory.Memory.recall` gives the same hits.
"""

from __future__ import annotations

import os

from ..recall.index import Hit, RecallIndex
from ..recall.notes import NoteHit

__all__ = ["Hit", "NoteHit", "notes_for", "recall_file"]


def recall_file(path: str | os.PathLike[str], query: str, k: int = 5) -> list[Hit]:
    """The ``k`` memories of the file at ``path`` that best answer ``query``, best first; only
    reads (the index cache beside the file is written when missing or stale)."""
    return RecallIndex.for_file(path).search(query, k)


def notes_for(path: str | os.PathLike[str], query: str, k: int = 5) -> list[NoteHit]:
    """The notes of past sessions beside the file at ``path`` that answer ``query``
    (:meth:`everbot_memory.facade.memory.Memory.recall_notes`)."""
    from ..core.clock import utcnow
    from ..recall.notes import search_notes

    return search_notes(path, query, k, utcnow().date())[0]
