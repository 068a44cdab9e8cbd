"""Memory: the one public entry point that ties extraction, merging, recall and the file together.

At session end: load the file (no lock) and summarize what is known, run the extractor (the slow
LLM call, outside the lock), then under the lock re-read the file, merge and save. A writer that
started later cannot be lost: the merge always runs on what is on disk at that moment. The
synchronous and asynchronous session-end calls share every step but the extractor call.

This module is imported at every session start (the prompt block), so what only writers need
(pydantic, asyncio, the LLM SDKs, the recall index) is imported where it is used.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core import prompt
from ..core.clock import utcnow
from ..core.entry import Category, Importance, MemoryEntry
from ..core.merge import MemoryMerger, MergeResult, MergeStats
from ..core.rules import (
    CATEGORIES,
    IMPORTANCES,
    PROMPT_MAX_CHARS,
    PROMPT_MIN_SCORE,
    PROMPT_TOP_K,
)
from ..errors import EntryNotFoundError, EverbotMemoryError
from ..storage.ledger import SessionLedger
from ..storage.lock import DEFAULT_LOCK_TIMEOUT
from ..storage.store import MemoryStore
from .choice import EXTRACTORS, PROMPT_LANGUAGES, SECTIONS, TRANSCRIPT_FORMATS, Section
from .session_end import (
    PendingSession,
    call_async,
    call_sync,
    extractor_function,
    extractor_name,
)

if TYPE_CHECKING:
    from ..core.candidate import Candidate
    from ..extract.base import Extractor, ExtractorFunction
    from ..extract.conversation import Messages
    from ..recall.embeddings import Embedder
    from ..recall.index import Hit, RecallIndex
    from .jobs import Jobs
    from .reports import Diagnosis, SessionReport, Stats

__all__ = [
    "CATEGORIES",
    "DEFAULT_LOCK_TIMEOUT",
    "EXTRACTORS",
    "IMPORTANCES",
    "PROMPT_LANGUAGES",
    "PROMPT_MAX_CHARS",
    "PROMPT_MIN_SCORE",
    "PROMPT_TOP_K",
    "SECTIONS",
    "TRANSCRIPT_FORMATS",
    "Memory",
    "MemoryManager",
    "Section",
]


class Memory:
    """Reads, updates, searches and injects the memories kept in one MEMORY.md.

    ``extractor`` reads finished conversations: an object with ``extract(messages,
    existing_summary)`` or such a function (sync or async), or the name of a built-in one
    (``"auto"``, ``"claude"``, ``"rules"``). Without one, the memory reads, injects and
    maintains, but cannot process sessions.
    """

    def __init__(
        self,
        memory_path: str | os.PathLike[str],
        extractor: Extractor | ExtractorFunction | str | None = None,
        *,
        merger: MemoryMerger | None = None,
        lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
        model: str | None = None,
    ) -> None:
        self.path = Path(memory_path)
        self.lock_timeout = lock_timeout
        self.store = MemoryStore(memory_path, lock_timeout=lock_timeout)
        self.merger = merger or MemoryMerger()
        self.extractor = extractor
        #: The model a built-in LLM extractor uses (None: its default).
        self.model = model
        #: What the last call left for the user to see: extractor problems, redactions.
        self.warnings: list[str] = []
        self.ledger = SessionLedger(memory_path)
        #: The sentence embedder for semantic recall (loaded on first use).
        self.embedder: Embedder | None = None
        self._index: RecallIndex | None = None

    # -- the file

    def exists(self) -> bool:
        """True when the memory file exists."""
        return self.store.read_bytes() is not None

    def init(self) -> bool:
        """Create an empty memory file (mode 0600), and its folder if need be; False when one
        exists (left as it is)."""
        if not self.path.is_symlink():
            self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.store.lock():
            if self.exists():
                return False
            self.store.save([])
            return True

    # -- session end

    def _extract_function(self) -> Callable[..., Any]:
        function, self.extractor = extractor_function(self.extractor, self.model)
        return function

    def _begin(self, messages: Messages, session_id: str) -> PendingSession | None:
        """The session's new messages and the summary of what is known; None: nothing new."""
        if not self.exists():
            # The ledger belongs to a memory file that is gone (deleted to start over): what
            # it says was merged is merged nowhere now.
            self.ledger.clear()
        new = self.ledger.unseen(session_id, messages)
        if not new and self.ledger.seen(session_id):
            return None
        from ..extract.summary import summarize_existing

        return PendingSession(session_id, messages, new, summarize_existing(self.store.load()))

    def _finish(self, session: PendingSession, raw: Any) -> dict[str, int]:
        """Check the extractor's answer, then merge it and record the session, locked."""
        from ..extract.base import as_candidates

        candidates = as_candidates(raw)
        extractor_warnings = list(getattr(self.extractor, "warnings", []))
        with self.store.lock():
            result = self.merge_candidates(candidates, session.session_id)
            self.ledger.record(session.session_id, session.messages)
        self.warnings[:0] = extractor_warnings
        return {
            **result.stats.as_dict(),
            "total": len(result.entries),
            "messages": len(session.new),
        }

    def _unchanged(self, session_id: str) -> dict[str, int]:
        self.warnings = [f"session {session_id} has nothing new since it was last closed"]
        return {**MergeStats().as_dict(), "total": len(self.store.load()), "messages": 0}

    async def process_session_end(
        self, history_messages: Messages, session_id: str
    ) -> dict[str, int]:
        """Extract memories from a finished session and merge them into the file.

        Returns ``{"new", "updated", "archived", "forgotten", "contradicted", "total",
        "messages"}``, where ``messages`` counts the messages read: only those not merged before
        (the session ledger), so closing a session again with nothing new changes nothing. The
        extractor runs outside the lock (a synchronous one in a worker thread).
        """
        import asyncio  # here, not at the top: reading prompts at session start never needs it

        session = await asyncio.to_thread(self._begin, history_messages, session_id)
        if session is None:
            return self._unchanged(session_id)
        raw = await call_async(self._extract_function(), session)
        return await asyncio.to_thread(self._finish, session, raw)

    def process_session_end_sync(
        self, history_messages: Messages, session_id: str
    ) -> dict[str, int]:
        """The same as :meth:`process_session_end`, for callers without an event loop."""
        session = self._begin(history_messages, session_id)
        if session is None:
            return self._unchanged(session_id)
        return self._finish(session, call_sync(self._extract_function(), session))

    def close_transcript(
        self,
        source: str | os.PathLike[str] | bytes,
        *,
        session_id: str | None = None,
        format: str = "auto",
        user: str | None = None,
    ) -> SessionReport:
        """Read a finished conversation (a transcript file, or its bytes) and merge it.

        The session id defaults to the transcript's own, else a hash of its content. The
        extractor is this memory's, else ``"auto"``. In a conversation between named people,
        ``user`` names the person the memories are about; when it is chosen for them, the
        report's first warning says who and why.
        """
        from ..extract.transcripts import parse_bytes, read_transcript
        from .reports import SessionReport

        fmt: Any = format  # the readers check it against their FORMATS
        if isinstance(source, bytes):
            transcript = parse_bytes(source, fmt, "standard input", user)
        else:
            transcript = read_transcript(source, fmt, user)
        if self.extractor is None:
            self.extractor = "auto"
        name = extractor_name(self.extractor)
        session = session_id or transcript.session_id or transcript.content_id()
        stats = self.process_session_end_sync(transcript.as_dicts(), session)
        warnings = list(self.warnings)
        if transcript.user_guessed:
            # A guess about whose memories these are: if it is wrong, they are someone else's.
            warnings.insert(
                0,
                f"reading as {transcript.user} ({transcript.user_reason}); "
                "--user NAME picks another",
            )
        return SessionReport(session, name, stats, transcript.skipped, warnings)

    # -- changes, always under the lock

    def _update(self, change: Callable[[list[MemoryEntry]], list[MemoryEntry]]) -> None:
        self.warnings = []
        with self.store.lock():
            self.store.save(change(self.store.load()))
        self.warnings += self.store.warnings

    def merge_candidates(
        self, candidates: Sequence[Candidate], session_id: str, now: datetime | None = None
    ) -> MergeResult:
        """Merge candidates into the file (locked load, merge, save) and return the result.

        Secrets in candidates are redacted first; a candidate that is only a secret is dropped
        (both reported in :attr:`warnings`).
        """
        from ..core.redaction import scrub

        clean, dropped = scrub(candidates, lambda c, text: c.replace(content=text))
        results: list[MergeResult] = []

        def merge(existing: list[MemoryEntry]) -> list[MemoryEntry]:
            results.append(self.merger.merge(existing, clean, session_id, now))
            return results[-1].entries

        self._update(merge)
        self.warnings[:0] = dropped
        return results[-1]

    def remember(
        self,
        content: str,
        category: Category = "fact",
        importance: Importance = "medium",
        session_id: str = "manual",
    ) -> tuple[MemoryEntry, MergeResult]:
        """Add one memory (or reinforce the one that already says it); returns it and the merge."""
        from pydantic import ValidationError

        from ..core.candidate import Candidate
        from ..core.redaction import redact

        try:
            candidate = Candidate(content=content, category=category, importance=importance)
        except ValidationError as exc:
            raise EverbotMemoryError(
                f"nothing remembered: {exc.errors()[0]['msg'].lower()}"
            ) from exc
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

        def drop(existing: list[MemoryEntry]) -> list[MemoryEntry]:
            removed.extend(e for e in existing if e.id in wanted)
            missing = wanted - {e.id for e in removed}
            if missing:
                raise EntryNotFoundError(sorted(missing)[0])
            return [e for e in existing if e.id not in wanted]

        self._update(drop)
        return removed

    def duplicate_groups(self) -> list[tuple[MemoryEntry, list[MemoryEntry]]]:
        """What :meth:`dedupe` would do: per group, the memory kept and the ones folded in."""
        from ..core.duplicates import merge_duplicates

        return merge_duplicates(self.entries())[1]

    def dedupe(self) -> list[tuple[MemoryEntry, list[MemoryEntry]]]:
        """Fold each group of likely duplicates into its strongest memory.

        Returns, per group, the memory kept and the ones folded into it.
        """
        from ..core.duplicates import merge_duplicates

        groups: list[tuple[MemoryEntry, list[MemoryEntry]]] = []

        def fold(existing: list[MemoryEntry]) -> list[MemoryEntry]:
            entries, merged = merge_duplicates(existing)
            groups.extend(merged)
            return entries

        self._update(fold)
        return groups

    def maintain(self, now: datetime | None = None) -> MergeResult:
        """Apply decay, archiving and forgetting as of ``now`` (the seed's daily job)."""
        return self.merge_candidates([], "", now)

    # -- recall

    def recall(self, query: str, k: int = 5, semantic: bool = False) -> list[Hit]:
        """The ``k`` memories (Active or Archived) that best answer ``query``, best first.

        Only memories relevant enough are returned (``RELEVANCE_FLOOR``): a query that shares
        nothing meaningful with the memories finds none. Searching only reads; to say the
        memories found were used, call :meth:`mark_used`. ``semantic`` fuses sentence
        embeddings into relevance (the ``embeddings`` extra; or set :attr:`embedder`).
        """
        from ..recall.index import RecallIndex

        self._index = RecallIndex.for_file(self.path, self._index)
        if semantic:
            if self.embedder is None:
                from ..recall.embeddings import load_embedder

                self.embedder = load_embedder()
            self._index.use_embeddings(self.embedder)
        return self._index.search(query, k)

    def mark_used(self, entry_ids: Sequence[str]) -> list[MemoryEntry]:
        """Reinforce these memories because they were used (one more hit, last activated now),
        through the locked save; returns them as saved. An unknown id raises
        :class:`EntryNotFoundError` and nothing changes."""
        from ..core.scoring import reinforce

        wanted = set(entry_ids)
        used: list[MemoryEntry] = []
        now = utcnow()

        def activate(existing: list[MemoryEntry]) -> list[MemoryEntry]:
            used.clear()
            missing = wanted - {e.id for e in existing}
            if missing:
                raise EntryNotFoundError(sorted(missing)[0])
            changed = [reinforce(e, now) if e.id in wanted else e for e in existing]
            used.extend(e for e in changed if e.id in wanted)
            return changed

        if wanted:
            self._update(activate)
        return used

    # -- reading

    def entries(self) -> list[MemoryEntry]:
        """All entries in the file, in file order."""
        return self.store.load()

    def get(self, entry_id: str) -> MemoryEntry:
        """The memory with ``entry_id``; raises :class:`EntryNotFoundError` if none."""
        for entry in self.entries():
            if entry.id == entry_id:
                return entry
        raise EntryNotFoundError(entry_id)

    def list_entries(
        self,
        section: Section = "all",
        category: str | None = None,
        min_score: float = 0.0,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[MemoryEntry]:
        """Memories in file order (strongest first), filtered, then ``offset`` and ``limit``."""
        from .reports import filter_entries

        return filter_entries(self.entries(), section, category, min_score, limit, offset)

    def find(self, text: str) -> list[MemoryEntry]:
        """The memories whose content holds ``text`` (case and spacing ignored)."""
        needle = " ".join(text.split()).casefold()
        return [e for e in self.entries() if needle in " ".join(e.content.split()).casefold()]

    def stats(self) -> Stats:
        """Totals per section and category, and a histogram of scores."""
        from .reports import stats_of

        return stats_of(self.entries())

    def diagnose(self) -> Diagnosis:
        """The problems in the file (repairs the next save makes, unreadable text, likely
        duplicates), each with its line."""
        from .reports import diagnose

        return diagnose(self.store.load_document(), self.store.files.displaced())

    # -- prompts

    def prompt_entries(
        self, top_k: int = PROMPT_TOP_K, min_score: float = PROMPT_MIN_SCORE
    ) -> list[MemoryEntry]:
        """The entries a prompt gets: score now >= ``min_score``, strongest first, ``top_k``."""
        return prompt.select(self.store.load(), top_k, min_score, utcnow())

    def get_prompt_memories(self, top_k: int = PROMPT_TOP_K) -> str:
        """The top memories as ``- content`` lines (seed §5.3); "" when there are none."""
        return "\n".join(prompt.memory_lines(self.prompt_entries(top_k)))

    def prompt_block(
        self,
        top_k: int = PROMPT_TOP_K,
        min_score: float = PROMPT_MIN_SCORE,
        max_chars: int = PROMPT_MAX_CHARS,
        lang: prompt.PromptLanguage = "en",
    ) -> str:
        """The block to put in a system prompt: heading, framing, one line per memory.

        This is the session-start path: no lock (saves are atomic, so it always sees a whole
        file), no pydantic.
        """
        return prompt.format_block(self.prompt_entries(top_k, min_score), max_chars, lang)

    # -- the job queue (hooks record sessions; a worker extracts them)

    @property
    def jobs(self) -> Jobs:
        """The sessions queued by hooks, and the worker that extracts them."""
        from .jobs import Jobs

        def close(transcript_path: str, session_id: str) -> SessionReport:
            # A fresh Memory per job: its own extractor (the automatic choice) and warnings.
            worker = Memory(self.path, "auto", lock_timeout=self.lock_timeout, model=self.model)
            return worker.close_transcript(transcript_path, session_id=session_id)

        return Jobs(self.path, close)


#: The seed's name for the facade (EverBot's ``MemoryManager``).
MemoryManager = Memory
