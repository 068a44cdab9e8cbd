"""Recall for one query in a new process, without loading the rest of the facade.

``everbot-memory recall QUERY`` in its plain form comes here from the command's entry point
(:mod:`everbot_memory.faces.entry`): with the index cache beside the file, it reads the cache,
decodes only what the query needs, and imports neither the command-line app nor the Markdown
parser. :meth:`everbot_memory.facade.memory.Memory.recall` gives the same hits.
"""

from __future__ import annotations

import os

from ..recall.index import Hit, RecallIndex

__all__ = ["Hit", "recall_file"]


def recall_file(path: str | os.PathLike[str], query: str, k: int = 5) -> list[Hit]:
    """The ``k`` memories of the file at ``path`` that best answer ``query``, best first; only
    reads (the index cache beside the file is written when missing or stale)."""
    return RecallIndex.for_file(path).search(query, k)
