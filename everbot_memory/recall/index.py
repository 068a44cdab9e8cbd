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
either loses nothing. The cache is made to be read fast by a new process: the ranking numbers
as flat lists, each term's postings as one string decoded only when a query names the term,
each memory as its JSON text, decoded only when it is a hit.

Search only reads: nothing here writes MEMORY.md. A memory found is not a memory used; the
facade reinforces a memory when a conversation confirms it or a caller says it was used.
A memory whose relevance is under :data:`RELEVANCE_FLOOR` is never returned, so a query that
shares only common words ("user", "的") with the memories finds nothing.
"""

from __future__ import annotations

import contextlib
import heapq
import json
import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.entry import MemoryEntry
from ..core.ranking import RELEVANCE_FLOOR, WEIGHTS, bm25, feedback_order, rank, recency
from ..core.scoring import score_at
from ..core.text import CJK_RE, search_tokens
from ..storage.paths import SideFiles

# Parsing the file, the store and the writer are needed only when the cache is missing or
# stale: a new process that finds the cache imports none of them (see ``for_file``).
if TYPE_CHECKING:
    from .embeddings import Embedder

_TIME_FIELDS = frozenset({"created_at", "last_activated", "base_at", "expires_at"})

__all__ = ["RELEVANCE_FLOOR", "WEIGHTS", "Hit", "RecallIndex"]

#: 4: irregular verbs; 5: lazy postings and entries; 6: a checksum before the JSON.
_INDEX_VERSION = 6


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
        self._entries: list[MemoryEntry | None] = list(entries)
        self._raw: list[str] = []  # each entry's JSON text, for an index read from its cache
        self.ids = [e.id for e in entries]
        #: What ranking needs of every memory: its anchor score and when it was last activated.
        self.strengths = [e.anchor[0] for e in entries]
        self.activated = [e.last_activated.timestamp() for e in entries]
        #: Ids of memories a newer memory says it replaced.
        self.replaced = {old for entry in entries for old in entry.replaces}
        self.tokens = [" ".join(d) for d in documents]
        self.lengths = [len(d) for d in documents]
        self.average = (sum(self.lengths) / len(documents)) if documents else 0.0
        self._postings: dict[str, list[tuple[int, int]]] = {}
        self._encoded: dict[str, str] = {}  # postings not decoded yet, as the cache holds them
        for number, document in enumerate(documents):
            for term, count in Counter(document).items():
                self._postings.setdefault(term, []).append((number, count))

    @classmethod
    def _from_cache(cls, data: dict[str, Any], digest: str) -> RecallIndex:
        """The index as :func:`_write_cache` stored it; nothing decoded until a search asks."""
        index = cls([], [], digest)
        index.ids = data["ids"]
        index.strengths = data["strengths"]
        index.activated = data["activated"]
        index.replaced = set(data["replaced"])
        index.tokens = data["tokens"]
        index.lengths = data["lengths"]
        index.average = (sum(index.lengths) / len(index.lengths)) if index.lengths else 0.0
        index._encoded = data["postings"]
        index._raw = data["entries"]
        index._entries = [None] * len(index._raw)
        return index

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
        index = None
        with contextlib.suppress(OSError):  # unreadable here: the store says why, below
            data = files.target.read_bytes()
            digest = _sha256(data)
            if reuse is not None and reuse.digest == digest:
                index = reuse
            else:
                index = _read_cache(files.index, digest)
        if index is None:
            index = cls._built(path, files, reuse)
            if index is None:
                return cls([], [])
        index.signature = signature
        index.files = files
        return index

    @classmethod
    def _built(
        cls, path: str | os.PathLike[str], files: SideFiles, reuse: RecallIndex | None
    ) -> RecallIndex | None:
        """The index from the file itself, the slow way (and cached); None for no file."""
        from ..core.redaction import redact
        from ..document.parse import parse
        from ..storage.backend import LocalFile
        from ..storage.store import decode

        snapshot = LocalFile(path).read()
        if snapshot.data is None or snapshot.version is None:
            return None
        if reuse is not None and reuse.digest == snapshot.version:
            return reuse
        entries = parse(decode(snapshot.data, path)).entries
        # Secrets a person typed into the file are neither indexed nor kept in the cache
        # (the cache is a file too): both hold the redacted text.
        entries = [_redacted(e, redact) for e in entries]
        documents = [search_tokens(e.content) for e in entries]
        index = cls(entries, documents, snapshot.version)
        _write_cache(files.index, index)
        return index

    @property
    def entries(self) -> list[MemoryEntry]:
        """Every entry of the file, in its order."""
        return [self.entry(n) for n in range(len(self._entries))]

    def entry(self, number: int) -> MemoryEntry:
        """The entry at ``number``, decoded from the cache the first time it is asked for."""
        found = self._entries[number]
        if found is None:
            found = self._entries[number] = _entry_from_json(json.loads(self._raw[number]))
        return found

    def postings(self, term: str) -> list[tuple[int, int]]:
        """The entries that hold ``term``, with how many times."""
        found = self._postings.get(term)
        if found is None:
            encoded = self._encoded.get(term)
            found = _decode_postings(encoded) if encoded else []
            self._postings[term] = found
        return found

    def bm25(self, query: str) -> dict[int, float]:
        """BM25 relevance of every entry that matches the query, as a share of the query's
        ideal score (capped at 1.0).

        An entry matches when it shares a word with the query, or, for Chinese and Japanese,
        a pair of characters: one character in common ("会" in "用户会滑雪吗" and in "开会")
        is not a match, unless the query has no pair at all.
        """
        return bm25(search_tokens(query), self.postings, self.lengths, self.average, _is_single)

    def use_embeddings(self, embedder: Embedder) -> None:
        """Count meaning in relevance from now on: the memories' vectors come from the cache
        beside the file, and only memories new or changed since it was written are embedded."""
        if self.embedder is not embedder:
            from .vectors import embed_memories

            cache = self.files.vectors if self.files is not None else None
            self.vectors = embed_memories([e.content for e in self.entries], embedder, cache)
            self.embedder = embedder

    def _tokens_of(self, number: int) -> list[str]:
        return self.tokens[number].split()

    def _relevance(self, query: str, floor: float) -> dict[int, tuple[float, float]]:
        """Each memory relevant enough: its order (higher first) and its relevance."""
        terms = search_tokens(query)
        lexical = bm25(terms, self.postings, self.lengths, self.average, _is_single)
        relevant = {n: v for n, v in lexical.items() if v >= floor and v > 0}
        order = feedback_order(
            terms,
            relevant,
            self.postings,
            self._tokens_of,
            self.lengths,
            self.average,
            _is_single,
        )
        if self.embedder is None or not self.ids:
            return {n: (order[n], v) for n, v in relevant.items()}
        import numpy

        from .fusion import fuse

        # The word ranking: the relevant memories by their order, then the others by share.
        words = sorted(lexical, key=lambda n: (n not in order, -order.get(n, 0.0), -lexical[n]))
        cosines = self.vectors @ numpy.asarray(self.embedder.encode([query], query=True)[0])
        model = self.embedder
        return fuse(lexical, cosines, model.threshold, floor, RELEVANCE_FLOOR, words, model.weight)

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
        if now is None:
            from ..core.clock import utcnow

            now = utcnow()
        relevance = self._relevance(query, floor)
        if not relevance:
            return []
        # Among the memories relevant enough, the order weighs each one's standing (its
        # relevance, or with embeddings its fused rank) against the best one's, then recency
        # and strength (the weights were tuned that way).
        best = max(order for order, _ in relevance.values())
        # Recency and strength add at most their weights, so an entry standing further below
        # the k-th best than that cannot make the top k: skip it.
        kth = heapq.nlargest(max(1, k), (order for order, _ in relevance.values()))[-1]
        slack = (WEIGHTS["recency"] + WEIGHTS["score"]) / WEIGHTS["relevance"] * best
        stamp = now.timestamp()
        ranked = []
        for number, (order, value) in relevance.items():
            if order + slack < kth:
                continue
            entry_id = self.ids[number]
            fresh = recency(self.activated[number], stamp)
            standing = rank(order / best, fresh, self.strengths[number], entry_id in self.replaced)
            ranked.append((-standing, entry_id, number, value, fresh))
        ranked.sort()
        hits = []
        for negative, _, number, value, fresh in ranked[: max(0, k)]:
            entry = self.entry(number)
            hits.append(Hit(entry, -negative, value, fresh, score_at(entry, now)))
        return hits


def _is_single(term: str) -> bool:
    return len(term) == 1 and CJK_RE.match(term) is not None


def _signature(path: Path) -> tuple[int, int, int] | None:
    try:
        info = path.stat()
    except OSError:
        return None
    return (info.st_ino, info.st_size, info.st_mtime_ns)


def _sha256(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


def _decode_postings(encoded: str) -> list[tuple[int, int]]:
    """``"3 7:2 12"``: entries 3 and 12 hold the term once, entry 7 twice."""
    found = []
    for item in encoded.split():
        number, _, count = item.partition(":")
        found.append((int(number), int(count) if count else 1))
    return found


def _encode_postings(postings: list[tuple[int, int]]) -> str:
    return " ".join(str(n) if c == 1 else f"{n}:{c}" for n, c in postings)


def _read_cache(path: Path, digest: str) -> RecallIndex | None:
    """The index cached for the file whose sha256 is ``digest``, if the cache holds it; None
    for no cache, a stale one or a damaged one (it is then rebuilt from the file)."""
    import zlib

    try:
        with open(path, "rb") as handle:
            raw = handle.read()
        # The first line: a checksum of the rest. A byte changed anywhere (a disk's damage,
        # an edit by hand) is found here, not as a wrong score or text at search time.
        if raw[8:9] != b"\n" or b"%08x" % zlib.crc32(memoryview(raw)[9:]) != raw[:8]:
            return None
        data = json.loads(raw[9:])
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("sha256") != digest:
        return None
    if data.get("version") != _INDEX_VERSION:
        return None
    lists = ("ids", "strengths", "activated", "tokens", "lengths", "entries")
    columns = [data.get(name) for name in lists]
    if not all(isinstance(c, list) for c in columns):
        return None
    if len({len(c) for c in columns if isinstance(c, list)}) > 1:
        return None
    if not isinstance(data.get("postings"), dict) or not isinstance(data.get("replaced"), list):
        return None
    return RecallIndex._from_cache(data, digest)


def _entry_from_json(item: dict[str, Any]) -> MemoryEntry:
    """An entry from :meth:`MemoryEntry.to_json`'s form (checked as one read from the file)."""
    fields: dict[str, Any] = {}
    for name, value in item.items():
        if name in _TIME_FIELDS and value is not None:
            value = datetime.fromisoformat(value.replace("Z", "+00:00")).astimezone(timezone.utc)
        elif isinstance(value, list):
            value = tuple(value)
        fields[name] = value
    return MemoryEntry.from_file(**fields)


def _redacted(entry: MemoryEntry, redact: Any) -> MemoryEntry:
    result = redact(entry.content)
    return entry.replace(content=result.text) if result.found else entry


def _write_cache(path: Path, index: RecallIndex) -> None:
    from ..storage.atomic import write_atomically

    # One encoder for every entry: json.dumps with options builds a new one per call.
    encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
    payload = json.dumps(
        {
            "version": _INDEX_VERSION,
            "sha256": index.digest,
            "ids": index.ids,
            "strengths": index.strengths,
            "activated": index.activated,
            "replaced": sorted(index.replaced),
            "tokens": index.tokens,
            "lengths": index.lengths,
            "postings": {t: _encode_postings(p) for t, p in index._postings.items()},
            "entries": [encode(e.to_json()) for e in index.entries],
        },
        ensure_ascii=False,
        separators=(",", ":"),
    ).encode("utf-8")
    import zlib

    # The cache only saves time: a folder it cannot be written to costs a rebuild next time.
    with contextlib.suppress(OSError):
        write_atomically(path, [b"%08x\n" % zlib.crc32(payload), payload])
