"""Near-duplicates: memories that say the same thing in other words.

Two memories are likely duplicates when the Jaccard similarity of their search tokens (stemmed
English words without stop words; Chinese and Japanese characters and character pairs, so it
works without spaces between words) is at least :data:`DUPLICATE_THRESHOLD`. The merger uses
this to reinforce instead of adding; ``doctor`` reports pairs already in the file; ``dedupe``
folds each group into its strongest memory.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from .models import MemoryEntry
from .recall import tokenize

__all__ = [
    "DUPLICATE_THRESHOLD",
    "FORGET_THRESHOLD",
    "find_duplicates",
    "merge_duplicates",
    "most_similar",
    "similarity",
]

DUPLICATE_THRESHOLD = 0.8
#: "Forget that ..." names a memory loosely; this much likeness is enough to find it.
FORGET_THRESHOLD = 0.5
_COMMON = 200  # a token in more memories than this is too common to pair memories by


@lru_cache(maxsize=65_536)
def _tokens(content: str) -> frozenset[str]:
    return frozenset(tokenize(content))


_NUMBER_RE = re.compile(r"\d+(?:[.:]\d+)*")


@lru_cache(maxsize=65_536)
def _numbers(content: str) -> tuple[str, ...]:
    return tuple(_NUMBER_RE.findall(content))


def similarity(a: str, b: str) -> float:
    """Jaccard similarity of the two texts' token sets (1.0: the same words).

    Texts whose numbers differ ("at 9" and "at 10", "version 2" and "version 3") state
    different things, however alike the rest: their similarity is 0.
    """
    ta, tb = _tokens(a), _tokens(b)
    if not ta or not tb:
        return 1.0 if a.strip().casefold() == b.strip().casefold() else 0.0
    if _numbers(a) != _numbers(b):
        return 0.0
    return len(ta & tb) / len(ta | tb)


def most_similar(
    content: str, entries: Sequence[MemoryEntry], threshold: float | None = None
) -> MemoryEntry | None:
    """The entry that says most nearly what ``content`` says, if at least ``threshold`` alike
    (default: a likely duplicate)."""
    best, best_score = None, DUPLICATE_THRESHOLD if threshold is None else threshold
    for entry in entries:
        score = similarity(content, entry.content)
        if score >= best_score:
            best, best_score = entry, score
    return best


def find_duplicates(
    entries: Sequence[MemoryEntry], threshold: float = DUPLICATE_THRESHOLD
) -> list[tuple[MemoryEntry, MemoryEntry, float]]:
    """Pairs of likely duplicates, most similar first."""
    postings: dict[str, list[int]] = {}
    for number, entry in enumerate(entries):
        for token in _tokens(entry.content):
            postings.setdefault(token, []).append(number)
    pairs: set[tuple[int, int]] = set()
    for numbers in postings.values():
        if len(numbers) <= _COMMON:
            pairs.update((a, b) for i, a in enumerate(numbers) for b in numbers[i + 1 :] if a != b)
    found = []
    for a, b in pairs:
        score = similarity(entries[a].content, entries[b].content)
        if score >= threshold:
            found.append((entries[a], entries[b], score))
    found.sort(key=lambda t: (-t[2], t[0].id, t[1].id))
    return found


def merge_duplicates(
    entries: Sequence[MemoryEntry], threshold: float = DUPLICATE_THRESHOLD
) -> tuple[list[MemoryEntry], list[tuple[MemoryEntry, list[MemoryEntry]]]]:
    """Fold each group of duplicates into its strongest memory.

    The kept memory is the one with the highest score; it gets the sum of the hits and the
    earliest creation, and records the ids it absorbed. Returns the new entries and, per
    group, the kept memory and the ones folded into it.
    """
    parent = {e.id: e.id for e in entries}

    def root(entry_id: str) -> str:
        while parent[entry_id] != entry_id:
            parent[entry_id] = parent[parent[entry_id]]
            entry_id = parent[entry_id]
        return entry_id

    for a, b, _ in find_duplicates(entries, threshold):
        parent[root(a.id)] = root(b.id)
    groups: dict[str, list[MemoryEntry]] = {}
    for entry in entries:
        groups.setdefault(root(entry.id), []).append(entry)
    result: list[MemoryEntry] = []
    merged: list[tuple[MemoryEntry, list[MemoryEntry]]] = []
    for group in groups.values():
        if len(group) == 1:
            result.append(group[0])
            continue
        group.sort(key=lambda e: (-e.score, e.created_at, e.id))
        keep, others = group[0], group[1:]
        absorbed = [*keep.merged_ids]
        for other in others:
            absorbed += [other.id, *other.merged_ids]
        kept = keep.model_copy(
            update={
                "activation_count": sum(e.activation_count for e in group),
                "created_at": min(e.created_at for e in group),
                "merged_ids": tuple(dict.fromkeys(absorbed)),
            }
        )
        result.append(kept)
        merged.append((kept, others))
    return result, merged
