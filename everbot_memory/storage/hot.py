"""What the hooks read instead of MEMORY.md: the prompt lines and a compact search index.

Each save writes, in ``.MEMORY.md.everbot/``, ``hook-prompt.json`` (the lines of the
session-start block, ready to show) and ``hook-search.json`` (a line per memory, in file
order: its display line and ranking numbers, its search tokens, the hash of its text and the
number of its tokens; a line per memory, so that the next save splices the lines of what it
changed into the last file's bytes instead of building it again). Both carry a key: the
sha256 of the file they were built from, and the time they stop being right, the next UTC
midnight (scores decay by the day) or the next expiry of a memory, whichever comes first.
A hook reads them without parsing the file, importing pydantic or markdown-it-py; when the
key does not match (an editor saved, a day passed, a todo expired) it rebuilds them from the
file (:func:`everbot_memory.facade.hooks.refresh`).

This module reads them, on the hooks' fast path: the standard library and
:mod:`everbot_memory.core.ranking` only. Building them is :mod:`.hot_build`'s.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence

from ..core import ranking
from .paths import SideFiles

TYPE_CHECKING = False  # on the hooks' fast path: typing is not loaded
if TYPE_CHECKING:
    from typing import Any


__all__ = [
    "PROMPT_FILE",
    "SEARCH_FILE",
    "VERSION",
    "HotFiles",
    "PromptLines",
    "SearchRows",
    "file_digest",
]

#: 3: irregular verbs in the search tokens; 4: groups and the profile; 5: a line per memory,
#: with the hash of its text (the memo file of version 4 is gone).
VERSION = 5
PROMPT_FILE = "hook-prompt.json"
SEARCH_FILE = "hook-search.json"


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

    __slots__ = ("groups", "ids", "lines", "profile", "profile_groups", "total")

    def __init__(
        self,
        lines: list[str],
        ids: list[str],
        total: int,
        groups: dict[str, Any] | None = None,
        profile: list[str] | None = None,
        profile_groups: list[list[str]] | None = None,
    ) -> None:
        self.lines, self.ids, self.total = lines, ids, total
        #: Per group ("none": memories without one): its strongest lines, ids, scores, total.
        self.groups = groups or {}
        #: The profile's lines, as shown, and the groups of the memories each came from.
        self.profile = profile or []
        self.profile_groups = profile_groups or [[] for _ in self.profile]

    def only(self, wanted: frozenset[str] | None, top_k: int) -> PromptLines:
        """The lines of the memories in the groups ``wanted`` (None: all), strongest first."""
        if wanted is None:
            return self
        chosen: list[tuple[float, str, str]] = []
        total = 0
        for name in wanted:
            part = self.groups.get(name)
            if part is None:
                continue
            chosen += zip(part["scores"], part["ids"], part["lines"], strict=True)
            total += int(part["total"])
        chosen.sort(key=lambda row: (-row[0], row[1]))
        chosen = chosen[:top_k]
        profile = [
            line
            for line, groups in zip(self.profile, self.profile_groups, strict=False)
            if all(g in wanted for g in groups)
        ]
        return PromptLines([r[2] for r in chosen], [r[1] for r in chosen], total, profile=profile)


class SearchRows:
    """The compact search index of one memory file: a row per memory, and its search tokens
    as one text, a line per memory (`` tok tok tok ``), found with ``str.find`` at query time
    (no inverted index to build on each save, nothing to parse but the query's terms)."""

    __slots__ = ("average", "lengths", "rows", "starts", "text")

    def __init__(
        self, rows: list[str], text: str, starts: list[int], lengths: list[int], average: float
    ) -> None:
        self.rows, self.text, self.starts = rows, text, starts
        self.lengths, self.average = lengths, average

    @classmethod
    def from_file(cls, cached: dict[str, Any]) -> SearchRows:
        """The index from a search file's content: ``rows`` holds, for each memory in turn,
        its row, token line, content hash and token count (a flat list: slices of it are
        each column, with no loop over the memories)."""
        from itertools import accumulate

        items = cached["rows"]
        if len(items) % 4:
            raise ValueError("not a search file's rows")
        rows, indexed, lengths = items[0::4], items[1::4], items[3::4]
        return cls(
            rows,
            "".join(indexed),
            list(accumulate(map(len, indexed[:-1]), initial=0)) if rows else [],
            lengths,
            float(cached["average"]),
        )

    @classmethod
    def from_part(cls, part: dict[str, Any]) -> SearchRows:
        """The index from what :func:`build` made (or read back from its file)."""
        return cls(
            list(part["rows"]),
            str(part["tokens"]),
            list(part["starts"]),
            list(part["lengths"]),
            float(part["average"]),
        )

    def _postings(self, term: str) -> list[tuple[int, int]]:
        from bisect import bisect_right

        needle = f" {term} "
        counts: dict[int, int] = {}
        at = self.text.find(needle)
        while at >= 0:
            number = bisect_right(self.starts, at) - 1
            counts[number] = counts.get(number, 0) + 1
            at = self.text.find(needle, at + len(needle) - 1)  # the next may share a space
        return list(counts.items())

    def _tokens(self, number: int) -> list[str]:
        end = self.starts[number + 1] if number + 1 < len(self.starts) else len(self.text)
        return self.text[self.starts[number] : end].split()

    def search(
        self,
        terms: Sequence[str],
        now: float,
        k: int,
        floor: float = ranking.RELEVANCE_FLOOR,
        skip: frozenset[str] = frozenset(),
        is_single: Any = None,
        groups: frozenset[str] | None = None,
    ) -> list[tuple[str, str, float, float]]:
        """The ``k`` best memories for the query's search ``terms`` whose relevance reaches
        ``floor``, not in ``skip``, in ``groups`` (None: any): ``(id, line, relevance,
        rank)``, best first. The same order as
        :meth:`everbot_memory.recall.index.RecallIndex.search` without embeddings."""
        single = is_single or (lambda term: False)
        relevance = ranking.bm25(terms, self._postings, self.lengths, self.average, single)
        relevance = {n: v for n, v in relevance.items() if v >= floor and v > 0}
        if not relevance:
            return []
        orders = ranking.feedback_order(
            terms, relevance, self._postings, self._tokens, self.lengths, self.average, single
        )
        best = max(orders.values())
        hits = []
        for number, value in relevance.items():
            fields = self.rows[number].split("\t", 7)
            entry_id = fields[0]
            if entry_id in skip or (groups is not None and (fields[6] or "none") not in groups):
                continue
            base_score, _, last, replaced = (float(f) for f in fields[1:5])
            fresh = ranking.recency(last, now)
            order = ranking.rank(orders[number] / best, fresh, base_score, bool(replaced))
            hits.append((entry_id, fields[7], value, order))
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
            return PromptLines(
                list(cached["lines"]),
                list(cached["ids"]),
                int(cached["total"]),
                dict(cached.get("groups") or {}),
                list(cached.get("profile") or []),
                list(cached.get("profile_groups") or []),
            )
        except (KeyError, TypeError, ValueError):
            return None

    def search(self, now: float) -> SearchRows | None:
        """The search index, or None when it is missing or stale."""
        cached = self._read(SEARCH_FILE, now)
        if cached is None:
            return None
        try:
            return SearchRows.from_file(cached)
        except (KeyError, TypeError, ValueError, IndexError):
            return None
