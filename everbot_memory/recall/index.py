"""The recall index of one memory file, and the ranked search over it.

Ranking fuses three signals with the weights in :data:`WEIGHTS` (seed 002's 0.6 relevance,
0.2 recency, 0.2 importance, tuned on the LoCoMo dev set by ``benchmarks/eval_recall.py``):

- relevance: Okapi BM25 over the search tokens of :func:`everbot_memory.core.text.search_tokens`,
  as a share of the query's own ideal score (the sum of its terms' weights), so it is absolute:
  1.0 when a memory holds every word of the query, whatever the other memories say;
- recency: ``0.5 ** (days since last activation / 30)``;
- strength: the memory's score when last activated or set, undecayed (recency counts its age).

With an :class:`~.embeddings.Embedder`, memories close in meaning are found too, and the order
fuses the word ranking with the meaning ranking (:mod:`.fusion`); the memories' vectors are
cached in ``.MEMORY.md.everbot/vectors`` (:mod:`.vectors`). The token index is cached in
``.MEMORY.md.everbot/index`` and rebuilt whenever the file's content hash changes; deleting
either loses nothing.

Search only reads: nothing here writes MEMORY.md. A memory found is not a memory used; the
facade reinforces a memory when a conversation confirms it or a caller says it was used.
A memory whose relevance is under :data:`RELEVANCE_FLOOR` is never returned, so a query that
shares only common words ("user", "的") with the memories finds nothing.
"""

from __future__ import annotations

import contextlib
import dataclasses
import heapq
import json
import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..core.clock import utcnow
from ..core.entry import MemoryEntry
from ..core.ranking import RELEVANCE_FLOOR, WEIGHTS, bm25, feedback_order, rank, recency
from ..core.redaction import redact
from ..core.scoring import score_at
from ..core.text import CJK_RE, search_tokens
from ..document.parse import parse
from ..storage.atomic import write_atomically
from ..storage.backend import LocalFile
from ..storage.paths import SideFiles
from ..storage.store import decode
from .embeddings import Embedder

_ENTRY_FIELDS = tuple(field.name for field in dataclasses.fields(MemoryEntry))
_TIME_FIELDS = frozenset({"created_at", "last_activated", "base_at", "expires_at"})

__all__ = ["RELEVANCE_FLOOR", "WEIGHTS", "Hit", "RecallIndex"]

_INDEX_VERSION = 4  # 4: irregular verbs


@dataclass(frozen=True)
class Hit:
    """One recalled memory and why it ranks where it does."""

    entry: MemoryEntry
    rank: float
    #: How much of the query the memory matches, 0 to 1, not scaled to the other hits.
    relevance: float
    recency: float
    #: The memory's score as of the search.
    score: float


class RecallIndex:
    """A BM25 index of one memory file's entries."""

    def __init__(
        self, entries: Sequence[MemoryEntry], documents: list[list[str]], digest: str = ""
    ) -> None:
        self.digest = digest  # sha256 of the file this index was built from
        self.vectors: Any = None  # sentence embeddings of the entries, once computed
        self.embedder: Embedder | None = None
        self.signature: tuple[int, int, int] | None = None  # its inode, size and mtime
        self.files: SideFiles | None = None  # where the vectors are cached, for a file's index
        self.entries = list(entries)
        #: Ids of memories a newer memory says it replaced.
        self.replaced = {old for entry in self.entries for old in entry.replaces}
        self.documents = documents
        self.lengths = [len(d) for d in documents]
        self.average = (sum(self.lengths) / len(documents)) if documents else 0.0
        self.postings: dict[str, list[tuple[int, int]]] = {}
        for number, document in enumerate(documents):
            for term, count in Counter(document).items():
                self.postings.setdefault(term, []).append((number, count))

    @classmethod
    def for_file(
        cls, path: str | os.PathLike[str], reuse: RecallIndex | None = None
    ) -> RecallIndex:
        """The index of a memory file: ``reuse`` if the file is unchanged since it was built,
        else from the cache beside the file, else built anew (and cached)."""
        files = SideFiles.of(path)
        signature = _signature(files.target)
        if reuse is not None and signature is not None and reuse.signature == signature:
            return reuse  # same inode, size and mtime: an atomic save or an edit changes them
        snapshot = LocalFile(path).read()
        if snapshot.data is None or snapshot.version is None:
            return cls([], [])
        digest = snapshot.version
        if reuse is not None and reuse.digest == digest:
            reuse.signature = signature
            return reuse
        cache = files.index
        cached = _read_cache(cache, digest)
        if cached is not None:
            # The file is as the cache saw it: its entries come from the cache, unparsed.
            documents, entries = cached
        else:
            entries = parse(decode(snapshot.data, path)).entries
            # Secrets a person typed into the file are neither indexed nor kept in the cache
            # (the cache is a file too): both hold the redacted text.
            entries = [_redacted(e) for e in entries]
            documents = [search_tokens(e.content) for e in entries]
            _write_cache(cache, digest, documents, entries)
        index = cls(entries, documents, digest)
        index.signature = signature
        index.files = files
        return index

    def bm25(self, query: str) -> dict[int, float]:
        """BM25 relevance of every entry that matches the query, as a share of the query's
        ideal score (capped at 1.0).

        An entry matches when it shares a word with the query, or, for Chinese and Japanese,
        a pair of characters: one character in common ("会" in "用户会滑雪吗" and in "开会")
        is not a match, unless the query has no pair at all.
        """
        return bm25(
            search_tokens(query),
            lambda term: self.postings.get(term, ()),
            self.lengths,
            self.average,
            _is_single,
        )

    def use_embeddings(self, embedder: Embedder) -> None:
        """Count meaning in relevance from now on: the memories' vectors come from the cache
        beside the file, and only memories new or changed since it was written are embedded."""
        if self.embedder is not embedder:
            from .vectors import embed_memories

            cache = self.files.vectors if self.files is not None else None
            self.vectors = embed_memories([e.content for e in self.entries], embedder, cache)
            self.embedder = embedder

    def _relevance(self, query: str, floor: float) -> dict[int, tuple[float, float]]:
        """Each memory relevant enough: its order (higher first) and its relevance."""
        terms = search_tokens(query)
        lexical = bm25(
            terms, lambda term: self.postings.get(term, ()), self.lengths, self.average, _is_single
        )
        relevant = {n: v for n, v in lexical.items() if v >= floor and v > 0}
        order = feedback_order(
            terms,
            relevant,
            lambda term: self.postings.get(term, ()),
            self.documents.__getitem__,
            self.lengths,
            self.average,
            _is_single,
        )
        if self.embedder is None or not self.entries:
            return {n: (order[n], v) for n, v in relevant.items()}
        import numpy

        from .fusion import fuse

        # The word ranking: the relevant memories by their order, then the others by share.
        words = sorted(lexical, key=lambda n: (n not in order, -order.get(n, 0.0), -lexical[n]))
        cosines = self.vectors @ numpy.asarray(self.embedder.encode([query], query=True)[0])
        threshold = self.embedder.threshold
        return fuse(lexical, cosines, threshold, floor, RELEVANCE_FLOOR, words)

    def search(
        self,
        query: str,
        k: int = 5,
        now: datetime | None = None,
        floor: float = RELEVANCE_FLOOR,
    ) -> list[Hit]:
        """The ``k`` best memories for ``query`` whose relevance reaches ``floor``.

        Lexically, only entries sharing a weighty term with the query can appear; with
        embeddings, so can entries whose cosine with the query reaches the model's threshold.
        """
        now = now or utcnow()
        relevance = self._relevance(query, floor)
        if not relevance:
            return []
        # Among the memories relevant enough, the order weighs each one's standing (its
        # relevance, or with embeddings its fused rank) against the best one's, then recency
        # and score (the weights were tuned that way).
        best = max(order for order, _ in relevance.values())
        # Recency and score add at most their weights, so an entry standing further below
        # the k-th best than that cannot make the top k: skip it.
        kth = heapq.nlargest(max(1, k), (order for order, _ in relevance.values()))[-1]
        slack = (WEIGHTS["recency"] + WEIGHTS["score"]) / WEIGHTS["relevance"] * best
        hits = []
        for number, (order, value) in relevance.items():
            if order + slack < kth:
                continue
            entry = self.entries[number]
            fresh = recency(entry.last_activated.timestamp(), now.timestamp())
            score = score_at(entry, now)
            strength = entry.anchor[0]
            order_value = rank(order / best, fresh, strength, entry.id in self.replaced)
            hits.append(Hit(entry, order_value, value, fresh, score))
        hits.sort(key=lambda h: (-h.rank, h.entry.id))
        return hits[: max(0, k)]


def _is_single(term: str) -> bool:
    return len(term) == 1 and CJK_RE.match(term) is not None


def _signature(path: Path) -> tuple[int, int, int] | None:
    try:
        info = path.stat()
    except OSError:
        return None
    return (info.st_ino, info.st_size, info.st_mtime_ns)


def _read_cache(path: Path, digest: str) -> tuple[list[list[str]], list[MemoryEntry]] | None:
    """The cached tokens and entries of the file whose sha256 is ``digest``, if the cache holds
    them; None for no cache, a stale one or a damaged one (it is then rebuilt from the file)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("sha256") != digest:
        return None
    if data.get("version") != _INDEX_VERSION:
        return None
    documents, entries = data.get("documents"), data.get("entries")
    if not isinstance(documents, list) or not isinstance(entries, list):
        return None
    if len(documents) != len(entries):
        return None
    try:
        return documents, [_entry_from_json(item) for item in entries]
    except (TypeError, ValueError, KeyError, AttributeError):
        return None


def _entry_from_json(item: dict[str, Any]) -> MemoryEntry:
    """An entry from :meth:`MemoryEntry.to_json`'s form (checked as one read from the file)."""
    fields: dict[str, Any] = {}
    for name in _ENTRY_FIELDS:
        value = item[name]
        if name in _TIME_FIELDS and value is not None:
            value = datetime.fromisoformat(value.replace("Z", "+00:00")).astimezone(timezone.utc)
        elif isinstance(value, list):
            value = tuple(value)
        fields[name] = value
    return MemoryEntry.from_file(**fields)


def _redacted(entry: MemoryEntry) -> MemoryEntry:
    result = redact(entry.content)
    return entry.replace(content=result.text) if result.found else entry


def _write_cache(
    path: Path, digest: str, documents: list[list[str]], entries: list[MemoryEntry]
) -> None:
    payload = json.dumps(
        {
            "version": _INDEX_VERSION,
            "sha256": digest,
            "documents": documents,
            "entries": [entry.to_json() for entry in entries],
        },
        ensure_ascii=False,
        separators=(",", ":"),
    ).encode("utf-8")
    # The cache only saves time: a folder it cannot be written to costs a rebuild next time.
    with contextlib.suppress(OSError):
        write_atomically(path, payload)
