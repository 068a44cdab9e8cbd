"""MemoryManager: the one public entry point that ties extraction, merging and the file together.

At session end: load the file (no lock) and summarize what is known, run the extractor (the slow
LLM call, outside the lock), then under the lock re-read the file, merge and save. A writer that
started later cannot be lost: the merge always runs on what is on disk at that moment.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import ValidationError

from . import prompt
from .errors import EntryNotFoundError, EverbotMemoryError, ExtractionError
from .merger import MemoryMerger, MergeResult, MergeStats
from .models import Candidate, Category, Importance, MemoryEntry
from .rules import ACTIVE_THRESHOLD, utcnow
from .sessions import SessionLedger
from .store import DEFAULT_LOCK_TIMEOUT, MemoryStore

if TYPE_CHECKING:
    from .recall import Embedder, Hit, RecallIndex

__all__ = ["Extractor", "ExtractorFunction", "MemoryManager", "summarize_existing"]

Messages = Sequence[Mapping[str, Any]]
ExtractorOutput = Sequence[Any] | Awaitable[Sequence[Any]]
ExtractorFunction = Callable[[Messages, str], ExtractorOutput]


class Extractor(Protocol):
    """Anything with ``extract(messages, existing_summary)`` returning candidates (or awaitable).

    Candidates may be :class:`Candidate` objects or dicts with the same fields.
    """

    def extract(self, messages: Messages, existing_summary: str) -> ExtractorOutput:
        """Propose memories from a conversation, given a summary of what is already known."""
        ...


def summarize_existing(entries: Sequence[MemoryEntry], max_entries: int = 50) -> str:
    """What the extractor is told is known: Active entries, strongest first, ``[id] content``."""
    active = sorted(
        (e for e in entries if e.score >= ACTIVE_THRESHOLD), key=lambda e: (-e.score, e.id)
    )
    return "\n".join(f"[{e.id}] {' '.join(e.content.split())}" for e in active[:max_entries])


def _is_async(function: Callable[..., Any]) -> bool:
    call = getattr(function, "__call__", None)  # noqa: B004 - an object with async __call__
    return inspect.iscoroutinefunction(function) or inspect.iscoroutinefunction(call)


async def _await(value: Awaitable[Sequence[Any]]) -> Sequence[Any]:
    return await value


def _as_candidates(raw: Sequence[Any]) -> list[Candidate]:
    try:
        return [c if isinstance(c, Candidate) else Candidate.model_validate(c) for c in raw]
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise ExtractionError(
            f"the extractor returned an invalid memory ({where}: {first['msg']}); nothing saved"
        ) from exc
    except TypeError as exc:
        raise ExtractionError(
            f"the extractor must return a list of memories, not {type(raw).__name__}"
        ) from exc


def _redact_candidates(candidates: Sequence[Candidate]) -> tuple[list[Candidate], list[str]]:
    from .redact import redact

    clean, warnings = [], []
    for candidate in candidates:
        result = redact(candidate.content)
        if not result.found:
            clean.append(candidate)
        elif result.only_secret:
            warnings.append(f"dropped a memory that held only a secret ({', '.join(result.found)})")
        else:
            warnings.append(f"redacted {', '.join(result.found)} in a new memory")
            clean.append(candidate.model_copy(update={"content": result.text}))
    return clean, warnings


class MemoryManager:
    """Reads, updates and injects the memories kept in one MEMORY.md."""

    def __init__(
        self,
        memory_path: str | os.PathLike[str],
        extractor: Extractor | ExtractorFunction | None = None,
        *,
        merger: MemoryMerger | None = None,
        lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
    ) -> None:
        self.store = MemoryStore(memory_path, lock_timeout=lock_timeout)
        self.merger = merger or MemoryMerger()
        self.extractor = extractor
        #: What the last call left for the user to see: extractor problems, redactions.
        self.warnings: list[str] = []
        self._index: RecallIndex | None = None
        self.ledger = SessionLedger(memory_path)
        #: The sentence embedder for semantic recall (loaded on first use).
        self.embedder: Embedder | None = None

    # -- session end

    def _extract_function(self) -> ExtractorFunction:
        if self.extractor is None:
            raise ExtractionError(
                "this MemoryManager has no extractor; pass extractor=... to process sessions"
            )
        function = getattr(self.extractor, "extract", self.extractor)
        assert callable(function)
        return function

    def _summary(self) -> str:
        return summarize_existing(self.store.load())

    async def process_session_end(
        self, history_messages: Messages, session_id: str
    ) -> dict[str, int]:
        """Extract memories from a finished session and merge them into the file.

        Returns ``{"new", "updated", "archived", "forgotten", "total", "messages"}``, where
        ``messages`` counts the messages read: only those not merged before (see
        :mod:`everbot_memory.sessions`), so closing a session again with nothing new changes
        nothing. The extractor runs outside the lock (a synchronous one in a worker thread).
        """
        import asyncio  # here, not at the top: reading prompts at session start never needs it

        new = self.ledger.unseen(session_id, history_messages)
        if not new and self.ledger.seen(session_id):
            return self._unchanged(session_id)
        extract = self._extract_function()
        summary = await asyncio.to_thread(self._summary)
        if _is_async(extract):
            raw = await extract(new, summary)  # type: ignore[misc]
        else:
            raw = await asyncio.to_thread(extract, new, summary)
            if inspect.isawaitable(raw):
                raw = await raw
        candidates = _as_candidates(raw)
        extractor_warnings = list(getattr(self.extractor, "warnings", []))
        result = await asyncio.to_thread(
            self._commit_session, candidates, session_id, history_messages
        )
        self.warnings[:0] = extractor_warnings
        return {**self._stats(result), "messages": len(new)}

    def process_session_end_sync(
        self, history_messages: Messages, session_id: str
    ) -> dict[str, int]:
        """The same as :meth:`process_session_end`, for scripts without an event loop."""
        new = self.ledger.unseen(session_id, history_messages)
        if not new and self.ledger.seen(session_id):
            return self._unchanged(session_id)
        candidates = self.extract_candidates(new)
        extractor_warnings = self.warnings
        result = self._commit_session(candidates, session_id, history_messages)
        self.warnings[:0] = extractor_warnings
        return {**self._stats(result), "messages": len(new)}

    def _commit_session(
        self, candidates: Sequence[Candidate], session_id: str, messages: Messages
    ) -> MergeResult:
        with self.store.lock():
            result = self.merge_candidates(candidates, session_id)
            self.ledger.record(session_id, messages)
        return result

    def _unchanged(self, session_id: str) -> dict[str, int]:
        self.warnings = [f"session {session_id} has nothing new since it was last closed"]
        from .merger import MergeStats

        total = len(self.store.load())
        return {**MergeStats().as_dict(), "total": total, "messages": 0}

    def extract_candidates(self, history_messages: Messages) -> list[Candidate]:
        """Run the extractor (no lock held) and return its candidates, validated.

        Its warnings are in :attr:`warnings` afterwards.
        """
        extract = self._extract_function()
        raw = extract(history_messages, self._summary())
        if inspect.isawaitable(raw):
            import asyncio

            raw = asyncio.run(_await(raw))
        candidates = _as_candidates(raw)
        self.warnings = list(getattr(self.extractor, "warnings", []))
        return candidates

    @staticmethod
    def _stats(result: MergeResult) -> dict[str, int]:
        return {**result.stats.as_dict(), "total": len(result.entries)}

    # -- changes under the lock

    def _update(self, change: Callable[[list[MemoryEntry]], MergeResult]) -> MergeResult:
        self.warnings = []
        with self.store.lock():
            result = change(self.store.load())
            self.store.save(result.entries)
        self.warnings += self.store.warnings
        return result

    def merge_candidates(
        self, candidates: Sequence[Candidate], session_id: str, now: datetime | None = None
    ) -> MergeResult:
        """Merge candidates into the file (locked load, merge, save) and return the result.

        Secrets in candidates are redacted first; a candidate that is only a secret is dropped
        (both reported in :attr:`warnings`).
        """
        clean, dropped = _redact_candidates(candidates)
        result = self._update(lambda existing: self.merger.merge(existing, clean, session_id, now))
        self.warnings[:0] = dropped
        return result

    def remember(
        self,
        content: str,
        category: Category = "fact",
        importance: Importance = "medium",
        session_id: str = "manual",
    ) -> tuple[MemoryEntry, MergeResult]:
        """Add one memory (or reinforce the one that already says it); returns it and the merge."""
        from .redact import redact

        candidate = Candidate(content=content, category=category, importance=importance)
        redacted = redact(candidate.content)
        if redacted.only_secret:
            raise EverbotMemoryError(
                f"nothing remembered: the text is only a secret ({', '.join(redacted.found)})"
            )
        result = self.merge_candidates([candidate], session_id)
        entry = next(e for e in result.entries if e.id == result.placed[0])
        return entry, result

    def forget(self, entry_id: str) -> MemoryEntry:
        """Delete the memory with ``entry_id``; raises :class:`EntryNotFoundError` if none."""
        return self.forget_many([entry_id])[0]

    def forget_many(self, entry_ids: Sequence[str]) -> list[MemoryEntry]:
        """Delete these memories (all or none: an unknown id raises EntryNotFoundError)."""
        removed: list[MemoryEntry] = []
        wanted = set(entry_ids)

        def drop(existing: list[MemoryEntry]) -> MergeResult:
            removed.extend(e for e in existing if e.id in wanted)
            missing = wanted - {e.id for e in removed}
            if missing:
                raise EntryNotFoundError(sorted(missing)[0])
            return MergeResult([e for e in existing if e.id not in wanted], MergeStats())

        self._update(drop)
        return removed

    def dedupe(self) -> list[tuple[MemoryEntry, list[MemoryEntry]]]:
        """Fold each group of likely duplicates into its strongest memory (see ``dedupe``).

        Returns, per group, the memory kept and the ones folded into it.
        """
        from .dedupe import merge_duplicates

        groups: list[tuple[MemoryEntry, list[MemoryEntry]]] = []

        def fold(existing: list[MemoryEntry]) -> MergeResult:
            entries, merged = merge_duplicates(existing)
            groups.extend(merged)
            return MergeResult(entries, MergeStats(updated=len(merged)))

        self._update(fold)
        return groups

    def find(self, text: str) -> list[MemoryEntry]:
        """The memories whose content holds ``text`` (case and spacing ignored)."""
        needle = " ".join(text.split()).casefold()
        return [e for e in self.entries() if needle in " ".join(e.content.split()).casefold()]

    def maintain(self, now: datetime | None = None) -> MergeResult:
        """Apply decay, archiving and forgetting as of ``now`` (the seed's daily job)."""
        return self.merge_candidates([], "", now)

    # -- recall

    def recall(
        self, query: str, k: int = 5, peek: bool = False, semantic: bool = False
    ) -> list[Hit]:
        """The ``k`` memories (Active or Archived) that best answer ``query``, best first.

        Unless ``peek``, the memories returned are activated (reinforced, one more hit, last
        activated now) through the normal locked save. ``semantic`` fuses sentence embeddings
        into relevance (the ``embeddings`` extra; or set :attr:`embedder` to your own).
        """
        from .merger import reinforce
        from .recall import RecallIndex, load_embedder

        self._index = RecallIndex.for_file(self.store.path, self._index)
        if semantic:
            if self.embedder is None:
                self.embedder = load_embedder()
            self._index.use_embeddings(self.embedder)
        hits = self._index.search(query, k)
        if hits and not peek:
            wanted = {hit.entry.id for hit in hits}
            now = utcnow()

            def activate(existing: list[MemoryEntry]) -> MergeResult:
                entries = [reinforce(e, now) if e.id in wanted else e for e in existing]
                return MergeResult(entries, MergeStats(updated=len(wanted)))

            self._update(activate)
        return hits

    # -- reading

    def entries(self) -> list[MemoryEntry]:
        """All entries in the file, as written."""
        return self.store.load()

    def prompt_entries(
        self, top_k: int = prompt.DEFAULT_TOP_K, min_score: float = prompt.DEFAULT_MIN_SCORE
    ) -> list[MemoryEntry]:
        """The entries a prompt gets: score now >= ``min_score``, strongest first, ``top_k``."""
        return prompt.select(self.store.load(), top_k, min_score, utcnow())

    def get_prompt_memories(self, top_k: int = prompt.DEFAULT_TOP_K) -> str:
        """The top memories as ``- content`` lines (seed §5.3); "" when there are none."""
        return "\n".join(prompt.memory_lines(self.prompt_entries(top_k)))

    def prompt_block(
        self,
        top_k: int = prompt.DEFAULT_TOP_K,
        min_score: float = prompt.DEFAULT_MIN_SCORE,
        max_chars: int = prompt.DEFAULT_MAX_CHARS,
        lang: prompt.PromptLanguage = "en",
    ) -> str:
        """The block to put in a system prompt: heading, framing, one line per memory."""
        return prompt.block_for_file(self.store.path, top_k, min_score, max_chars, lang)
