"""Near-duplicates: memories that say the same thing in other words.

Two memories are likely duplicates when the Jaccard similarity of their search tokens
(:func:`everbot_memory.core.text.similarity`) reaches ``DUPLICATE_MIN_SIMILARITY``. The merger
uses this to reinforce instead of adding; ``doctor`` reports pairs already in the file;
``dedupe`` folds each group into its strongest memory.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import compress, repeat
from operator import add, attrgetter, contains, eq, is_, not_, or_

from .entry import MemoryEntry
from .rules import DUPLICATE_MIN_SIMILARITY
from .text import casefolded, numbers, probes, similarity, token_set

__all__ = ["find_duplicates", "merge_duplicates", "most_similar", "whole_text"]

_DIGIT_RE = re.compile(r"\d")  # what :func:`numbers` finds starts at any such digit
_COMMON = 200  # a token in more memories than this is too common to pair memories by


def most_similar(
    content: str,
    entries: Sequence[MemoryEntry],
    min_similarity: float = DUPLICATE_MIN_SIMILARITY,
    *,
    folded: str | None = None,
) -> MemoryEntry | None:
    """The entry that says most nearly what ``content`` says, if at least ``min_similarity``
    alike.

    ``folded``: the case-folded text of every memory's content (``casefold`` of them joined,
    or of more memories than ``entries``), when the caller made it already for another test
    over the same memories (:func:`whole_text`)."""
    wanted = token_set(content)
    marks, folded_content = numbers(content), content.strip().casefold()
    # Tokenizing every memory of a large file would cost far more than the merge itself (and
    # every ``remember`` is the first merge of its process, with nothing memoized), so a
    # memory is tokenized only when two cheap tests leave it a chance. Both are exact:
    # - texts whose numbers differ have similarity 0 (unless they are the same text);
    # - a token of ``content`` is in a memory only if the memory's text holds one of its
    #   probes (:func:`probes`: a CJK token itself, the start of an English stem); with the
    #   tokens it cannot hold, the memory cannot reach the similarity needed.
    # Both are asked of every memory at once, by C loops: a file may hold 100,000 memories.
    tested = [found for found in map(probes, wanted) if found]
    untested = len(wanted) - len(tested)
    texts = list(map(_CONTENT, entries))
    # Whether some memory may be ``content`` itself (the same text but for case and spaces
    # around it): one test over the whole file's text, not one per memory.
    if folded is None:
        folded = whole_text(entries)
    maybe_same = bool(folded_content) and folded_content in folded
    places = _numbers_alike(texts, marks)
    if maybe_same:
        # The same text passes whatever its numbers (a few memories at most).
        same = map(eq, map(str.casefold, map(str.strip, texts)), repeat(folded_content))
        places = sorted({*places, *compress(range(len(texts)), same)})
    shared = _shared(list(map(texts.__getitem__, places)), tested, untested)
    best, best_score = None, min_similarity
    for place, count in zip(places, shared, strict=True):
        # At most this many tokens in common, out of at least len(wanted) in all.
        if tested and count / len(wanted) < best_score:
            continue
        entry = entries[place]
        score = similarity(content, entry.content)
        if score >= best_score:
            best, best_score = entry, score
    return best


def whole_text(entries: Sequence[MemoryEntry]) -> str:
    """Every memory's content, case-folded, one a line: what a test for a text in any of them
    looks in (a text in one memory is in it; one found in it may span two)."""
    return "\n".join(map(_CONTENT, entries)).casefold()


_CONTENT = attrgetter("content")


def _numbers_alike(texts: list[str], marks: tuple[str, ...]) -> list[int]:
    """The places of ``texts`` whose numbers are ``marks`` (a text without one of them
    cannot give the same numbers: the longest, which most texts lack, is looked for first;
    one with a digit gives some where there are none)."""
    if not marks:
        return list(
            compress(range(len(texts)), map(is_, map(_DIGIT_RE.search, texts), repeat(None)))
        )
    holding = compress(range(len(texts)), map(contains, texts, repeat(max(marks, key=len))))
    return [n for n in holding if numbers(texts[n]) == marks]


def _shared(texts: list[str], tested: list[tuple[str, ...]], untested: int) -> list[int]:
    """For each of ``texts``, at most how many of the wanted tokens it holds: ``untested``
    (tokens without probes, which may be anywhere), and each token one of whose probes is in
    its normal form (C loops, a probe at a time over every text)."""
    counts = [untested] * len(texts)
    if not tested or not texts:
        return counts
    # As :func:`casefolded` reads them: an ASCII text needs no NFKC, and lower-cases alike.
    normal = list(map(str.lower, texts))
    for n in compress(range(len(texts)), map(not_, map(str.isascii, texts))):
        normal[n] = casefolded(texts[n])
    for found in tested:
        holds = [False] * len(texts)
        for probe in found:
            holds = list(map(or_, holds, map(contains, normal, repeat(probe))))
        counts = list(map(add, counts, holds))
    return counts


def find_duplicates(
    entries: Sequence[MemoryEntry], min_similarity: float = DUPLICATE_MIN_SIMILARITY
) -> list[tuple[MemoryEntry, MemoryEntry, float]]:
    """Pairs of likely duplicates, most similar first."""
    postings: dict[str, list[int]] = {}
    for number, entry in enumerate(entries):
        for token in token_set(entry.content):
            postings.setdefault(token, []).append(number)
    pairs: set[tuple[int, int]] = set()
    for holders in postings.values():
        if len(holders) <= _COMMON:
            pairs.update((a, b) for i, a in enumerate(holders) for b in holders[i + 1 :] if a != b)
    found = []
    for a, b in pairs:
        if not _may_pair(entries[a], entries[b]):
            continue
        score = similarity(entries[a].content, entries[b].content)
        if score >= min_similarity:
            found.append((entries[a], entries[b], score))
    found.sort(key=lambda t: (-t[2], t[0].id, t[1].id))
    return found


def _may_pair(a: MemoryEntry, b: MemoryEntry) -> bool:
    """False for two memories that are not to be folded, however alike: an original that
    consolidation archived (it is kept on purpose, linked to what it became), or two
    memories of different groups."""
    if a.condensed_into or b.condensed_into:
        return False
    return not (a.group and b.group and a.group != b.group)


def merge_duplicates(
    entries: Sequence[MemoryEntry], min_similarity: float = DUPLICATE_MIN_SIMILARITY
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

    for a, b, _ in find_duplicates(entries, min_similarity):
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
        kept = keep.replace(
            activation_count=sum(e.activation_count for e in group),
            created_at=min(e.created_at for e in group),
            merged_ids=tuple(dict.fromkeys(absorbed)),
        )
        result.append(kept)
        merged.append((kept, others))
    return result, merged
