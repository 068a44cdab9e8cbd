"""The recall index of one memory file, and the ranked search over it.

Ranking fuses three signals with the weights in :data:`WEIGHTS` (seed 002's 0.6 relevance,
0.2 recency, 0.2 importance, tuned on the LoCoMo dev set by ``benchmarks/eval_recall.py``):

- relevance: Okapi BM25 over the search tokens of :func:`everbot_memory.core.text.tokenize`;
- recency: ``0.5 ** (days since last activation / 30)``;
- score: the memory's score as of now.

With an :class:`~.embeddings.Embedder` the relevance is fused with the cosine similarity of
sentence embeddings (:data:`SEMANTIC_SHARE`). The token index is cached beside the file
(``MEMORY.md.index``) and rebuilt whenever the file's content hash changes; deleting it loses
nothing.
"""

from __future__ import annotations

import contextlib
import heapq
import json
import math
import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from ..core.clock import utcnow
from ..core.entry import MemoryEntry
from ..core.redaction import redact
from ..core.scoring import score_at
from ..core.text import tokenize
from ..document.parse import parse
from ..storage.atomic import write_atomically
from ..storage.backend import LocalFile
from ..storage.paths import SideFiles
from ..storage.store import decode
from .embeddings import Embedder

__all__ = ["SEMANTIC_SHARE", "WEIGHTS", "Hit", "RecallIndex"]

#: How much each signal counts in the final rank (they add up to 1).
WEIGHTS = {"relevance": 0.85, "recency": 0.05, "score": 0.10}
#: BM25 parameters; lower than the textbook 1.2 / 0.75 because memories are short.
K1, B = 0.8, 0.35
RECENCY_HALF_LIFE_DAYS = 30.0
_INDEX_VERSION = 1
#: With embeddings, relevance = (1 - share) * normalized BM25 + share * cosine similarity.
SEMANTIC_SHARE = 0.5
#: Besides every entry sharing a word with the query, this many nearest by meaning compete.
SEMANTIC_CANDIDATES = 50


@dataclass(frozen=True)
class Hit:
    """One recalled memory and why it ranks where it does."""

    entry: MemoryEntry
    rank: float
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
        self.entries = list(entries)
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
        documents = _read_cache(cache, digest)
        entries = parse(decode(snapshot.data, path)).entries
        if documents is None or len(documents) != len(entries):
            # Secrets a person typed into the file are not indexed (the cache is a file too).
            documents = [tokenize(redact(e.content).text) for e in entries]
            _write_cache(cache, digest, documents)
        index = cls(entries, documents, digest)
        index.signature = signature
        return index

    def bm25(self, query: str) -> dict[int, float]:
        """BM25 relevance of every entry that shares a term with the query."""
        scores: dict[int, float] = {}
        total = len(self.entries)
        for term in set(tokenize(query)):
            postings = self.postings.get(term)
            if not postings:
                continue
            idf = math.log(1 + (total - len(postings) + 0.5) / (len(postings) + 0.5))
            for number, count in postings:
                norm = K1 * (1 - B + B * self.lengths[number] / (self.average or 1))
                scores[number] = scores.get(number, 0.0) + idf * count * (K1 + 1) / (count + norm)
        return scores

    def use_embeddings(self, embedder: Embedder) -> None:
        """Fuse semantic similarity into relevance from now on (embeds every entry once)."""
        if self.embedder is not embedder:
            self.embedder = embedder
            self.vectors = embedder.encode([e.content for e in self.entries])

    def _relevance(self, query: str) -> dict[int, float]:
        lexical = self.bm25(query)
        if self.embedder is None or not self.entries:
            return lexical
        import numpy

        best = max(lexical.values(), default=0.0) or 1.0
        similarity = numpy.asarray(self.vectors) @ numpy.asarray(self.embedder.encode([query])[0])
        nearest = numpy.argsort(-similarity)[:SEMANTIC_CANDIDATES]
        return {
            int(n): (1 - SEMANTIC_SHARE) * lexical.get(int(n), 0.0) / best
            + SEMANTIC_SHARE * max(0.0, float(similarity[n]))
            for n in {*lexical, *(int(n) for n in nearest)}
        }

    def search(self, query: str, k: int = 5, now: datetime | None = None) -> list[Hit]:
        """The ``k`` best memories for ``query``.

        Lexically, only entries sharing a term with the query can appear; with embeddings, the
        entries nearest in meaning compete too.
        """
        now = now or utcnow()
        relevance = self._relevance(query)
        if not relevance:
            return []
        best = max(relevance.values()) or 1.0
        # Recency and score add at most their weights, so an entry whose relevance is
        # further below the k-th best than that cannot make the top k: skip it.
        kth = heapq.nlargest(max(1, k), relevance.values())[-1]
        slack = (WEIGHTS["recency"] + WEIGHTS["score"]) / WEIGHTS["relevance"] * best
        hits = []
        for number, value in relevance.items():
            if value + slack < kth:
                continue
            entry = self.entries[number]
            days = max(0.0, (now - entry.last_activated).total_seconds() / 86_400)
            recency = 0.5 ** (days / RECENCY_HALF_LIFE_DAYS)
            score = score_at(entry, now)
            rank = (
                WEIGHTS["relevance"] * value / best
                + WEIGHTS["recency"] * recency
                + WEIGHTS["score"] * score
            )
            hits.append(Hit(entry, rank, value / best, recency, score))
        hits.sort(key=lambda h: (-h.rank, h.entry.id))
        return hits[: max(0, k)]


def _signature(path: Path) -> tuple[int, int, int] | None:
    try:
        info = path.stat()
    except OSError:
        return None
    return (info.st_ino, info.st_size, info.st_mtime_ns)


def _read_cache(path: Path, digest: str) -> list[list[str]] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None  # no cache, or a damaged one: it is rebuilt from the file
    if not isinstance(data, dict) or data.get("sha256") != digest:
        return None
    if data.get("version") != _INDEX_VERSION:
        return None
    documents = data.get("documents")
    return documents if isinstance(documents, list) else None


def _write_cache(path: Path, digest: str, documents: list[list[str]]) -> None:
    payload = json.dumps(
        {"version": _INDEX_VERSION, "sha256": digest, "documents": documents},
        ensure_ascii=False,
        separators=(",", ":"),
    ).encode("utf-8")
    # The cache only saves time: a folder it cannot be written to costs a rebuild next time.
    with contextlib.suppress(OSError):
        write_atomically(path, payload)
