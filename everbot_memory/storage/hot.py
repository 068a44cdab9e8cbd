"""What the hooks read instead of MEMORY.md: the prompt lines and a compact search index.

Each save writes, in ``.MEMORY.md.everbot/``, ``hook-prompt.json`` (the lines of the
session-start block, ready to show) and ``hook-search.json`` (each memory's display line and
ranking numbers, and the postings of its search tokens). Both carry a key: the sha256 of the
file they were built from, and the time they stop being right, the next UTC midnight (scores
decay by the day) or the next expiry of a memory, whichever comes first. A hook reads them
without parsing the file, importing pydantic or markdown-it-py; when the key does not match
(an editor saved, a day passed, a todo expired) it rebuilds them from the file
(:func:`everbot_memory.facade.hooks.refresh`).

Reading is on the hooks' fast path: the standard library and :mod:`everbot_memory.core.ranking`
only; building imports the rest when it runs.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence

from ..core import ranking
from .paths import SideFiles

TYPE_CHECKING = False  # on the hooks' fast path: typing is not loaded
if TYPE_CHECKING:
    from datetime import datetime
    from typing import Any

    from ..core.entry import MemoryEntry

__all__ = [
    "PROMPT_FILE",
    "SEARCH_FILE",
    "VERSION",
    "HotFiles",
    "PromptLines",
    "SearchRows",
    "build",
    "file_digest",
    "write",
]

VERSION = 1
PROMPT_FILE = "hook-prompt.json"
SEARCH_FILE = "hook-search.json"
_DAY = 86_400


def file_digest(data: bytes) -> str:
    """The sha256 of a file's bytes, as the key of what was built from it."""
    try:  # OpenSSL's hash directly: hashlib's own import costs the hooks several milliseconds
        from _hashlib import openssl_sha256 as sha256
    except ImportError:  # pragma: no cover - a Python built without OpenSSL
        from hashlib import sha256
    return sha256(data).hexdigest()


class PromptLines:
    """The session-start lines of one memory file: strongest first, with their ids, and how
    many memories were worth showing in all."""

    __slots__ = ("ids", "lines", "total")

    def __init__(self, lines: list[str], ids: list[str], total: int) -> None:
        self.lines, self.ids, self.total = lines, ids, total


class SearchRows:
    """The compact search index of one memory file."""

    __slots__ = ("average", "lengths", "postings", "rows")

    def __init__(
        self, rows: list[str], postings: dict[str, str], lengths: list[int], average: float
    ) -> None:
        self.rows, self.postings, self.lengths, self.average = rows, postings, lengths, average

    def _postings(self, term: str) -> list[tuple[int, int]]:
        packed = self.postings.get(term)
        if not packed:
            return []
        pairs = []
        for item in packed.split(","):
            number, _, count = item.partition(":")
            pairs.append((int(number), int(count or 1)))
        return pairs

    def search(
        self,
        terms: Sequence[str],
        now: float,
        k: int,
        floor: float = ranking.RELEVANCE_FLOOR,
        skip: frozenset[str] = frozenset(),
        is_single: Any = None,
    ) -> list[tuple[str, str, float, float]]:
        """The ``k`` best memories for the query's search ``terms`` whose relevance reaches
        ``floor``, not in ``skip``: ``(id, line, relevance, rank)``, best first. The same order
        as :meth:`everbot_memory.recall.index.RecallIndex.search` without embeddings."""
        single = is_single or (lambda term: False)
        relevance = ranking.bm25(terms, self._postings, self.lengths, self.average, single)
        relevance = {n: v for n, v in relevance.items() if v >= floor and v > 0}
        if not relevance:
            return []
        best = max(relevance.values())
        hits = []
        for number, value in relevance.items():
            fields = self.rows[number].split("\t", 6)
            entry_id = fields[0]
            if entry_id in skip:
                continue
            base_score, base_at, last, replaced = (float(f) for f in fields[1:5])
            score = ranking.decayed(base_score, base_at, last, now)
            fresh = ranking.recency(last, now)
            order = ranking.rank(value / best, fresh, score, bool(replaced))
            hits.append((entry_id, fields[6], value, order))
        hits.sort(key=lambda hit: (-hit[3], hit[0]))
        return hits[: max(0, k)]


class HotFiles:
    """The two files of one memory file, read if their key still holds."""

    def __init__(self, memory_path: str | os.PathLike[str]) -> None:
        self.files = SideFiles.of(memory_path)
        self._data: bytes | None = None
        self._digest: str | None = None

    def data(self) -> bytes | None:
        """The memory file's bytes (None when there is none), read once."""
        if self._data is None:
            try:
                with open(self.files.target, "rb") as handle:
                    self._data = handle.read()
            except FileNotFoundError:
                return None
        return self._data

    def digest(self) -> str | None:
        """The sha256 of the memory file, or None when there is none."""
        if self._digest is None:
            data = self.data()
            self._digest = None if data is None else file_digest(data)
        return self._digest

    def _read(self, name: str, now: float) -> dict[str, Any] | None:
        try:
            with open(self.files.folder / name, "rb") as handle:
                cached = json.loads(handle.read())
        except (OSError, ValueError):
            return None
        if not isinstance(cached, dict) or cached.get("version") != VERSION:
            return None
        if not cached.get("built", 0) <= now < cached.get("until", 0):
            return None
        if cached.get("sha256") != self.digest():
            return None
        return cached

    def prompt(self, now: float) -> PromptLines | None:
        """The session-start lines, or None when they are missing or stale."""
        cached = self._read(PROMPT_FILE, now)
        if cached is None:
            return None
        try:
            return PromptLines(list(cached["lines"]), list(cached["ids"]), int(cached["total"]))
        except (KeyError, TypeError, ValueError):
            return None

    def search(self, now: float) -> SearchRows | None:
        """The search index, or None when it is missing or stale."""
        cached = self._read(SEARCH_FILE, now)
        if cached is None:
            return None
        try:
            return SearchRows(
                list(cached["rows"]),
                dict(cached["postings"]),
                list(cached["lengths"]),
                float(cached["average"]),
            )
        except (KeyError, TypeError, ValueError):
            return None


def _until(entries: Sequence[MemoryEntry], now: datetime) -> float:
    """When what is built at ``now`` stops being right: the next UTC midnight, or the next
    expiry of a memory if that comes first."""
    stamp = now.timestamp()
    until = (stamp // _DAY + 1) * _DAY
    for entry in entries:
        if entry.expires_at is not None:
            expiry = entry.expires_at.timestamp()
            if stamp < expiry < until:
                until = expiry
    return until


def build(
    data: bytes, entries: Sequence[MemoryEntry], now: datetime
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The contents of the two files for a memory file of ``data`` holding ``entries``."""
    from ..core import prompt
    from ..core.redaction import redact
    from ..core.rules import PROMPT_MIN_SCORE, PROMPT_TOP_K
    from ..core.scoring import is_expired, score_at
    from ..core.text import search_tokens

    key = {
        "version": VERSION,
        "sha256": file_digest(data),
        "built": (now.timestamp() // _DAY) * _DAY,
        "until": _until(entries, now),
    }
    chosen = prompt.select(entries, PROMPT_TOP_K, PROMPT_MIN_SCORE, now)
    worth = sum(
        1 for e in entries if not is_expired(e, now) and score_at(e, now) >= PROMPT_MIN_SCORE
    )
    prompt_part = {
        **key,
        "lines": prompt.memory_lines(chosen),
        "ids": [e.id for e in chosen],
        "total": worth,
    }
    replaced = {old for entry in entries for old in entry.replaces}
    rows, lengths = [], []
    postings: dict[str, list[str]] = {}
    for number, entry in enumerate(entries):
        text = redact(entry.content).text
        tokens = search_tokens(text)
        lengths.append(len(tokens))
        counts: dict[str, int] = {}
        for token in tokens:
            counts[token] = counts.get(token, 0) + 1
        for token, count in counts.items():
            postings.setdefault(token, []).append(f"{number}:{count}" if count > 1 else f"{number}")
        base_score, base_at = entry.anchor
        [line] = prompt.memory_lines([entry])
        fields = (
            entry.id,
            repr(base_score),
            repr(base_at.timestamp()),
            repr(entry.last_activated.timestamp()),
            "1" if entry.id in replaced else "0",
            entry.category,
            line,
        )
        rows.append("\t".join(fields))
    search_part = {
        **key,
        "rows": rows,
        "postings": {token: ",".join(items) for token, items in postings.items()},
        "lengths": lengths,
        "average": (sum(lengths) / len(lengths)) if lengths else 0.0,
    }
    return prompt_part, search_part


def write(
    memory_path: str | os.PathLike[str],
    data: bytes,
    entries: Sequence[MemoryEntry],
    now: datetime | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Build the two files for the file just written and write them; a folder that cannot
    be written costs the next hook a rebuild, nothing else. Returns what was built."""
    from datetime import datetime, timezone

    from .atomic import write_atomically

    built = build(data, entries, now or datetime.now(timezone.utc))
    folder = SideFiles.of(memory_path).folder
    for name, part in zip((PROMPT_FILE, SEARCH_FILE), built, strict=True):
        payload = json.dumps(part, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        try:
            write_atomically(folder / name, payload)
        except OSError:
            break
    return built
