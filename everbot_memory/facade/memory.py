"""Memory: the one public entry point that ties extraction, merging, recall and the file together.

At session end: load the file (no lock) and summarize what is known, run the extractor (the slow
LLM call, outside the lock), then under the lock re-read the file, merge and save. A writer that
started later cannot be lost: the merge always runs on what is on disk at that moment. The
synchronous and asynchronous session-end calls share every step but the extractor call; every
other ``a``-prefixed call is its synchronous twin run in a worker thread (:func:`_threaded`).

This module is imported at every session start (the prompt block), so what only writers need
(pydantic, asyncio, the LLM SDKs, the recall index) is imported where it is used.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Coroutine, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar

from ..core import prompt
from ..core.clock import utcnow
from ..core.entry import Category, Importance, MemoryEntry, check_text
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
    from .choice import Choice
    from .config import Settings
    from .jobs import Jobs
    from .reports import Backend, Diagnosis, History, SessionReport, Stats

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

_P = ParamSpec("_P")
_R = TypeVar("_R")


def _threaded(
    method: Callable[Concatenate[Memory, _P], _R],
) -> Callable[Concatenate[Memory, _P], Coroutine[Any, Any, _R]]:
    """The async twin of a ``Memory`` method: the same call, run in a worker thread, so an
    event loop is not blocked by the file, the lock or an extractor (one flow, not two)."""

    async def run(self: Memory, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        import asyncio  # here, not at the top: reading prompts at session start never needs it

        return await asyncio.to_thread(method, self, *args, **kwargs)

    run.__name__ = run.__qualname__ = f"a{method.__name__}"
    run.__doc__ = f"Async :meth:`{method.__name__}` (run in a worker thread)."
    return run


def _with_changed_facts(candidate: Candidate, existing: Sequence[MemoryEntry]) -> Candidate:
    """The candidate, marked as replacing the Active memories that give a single-valued fact
    (home, employer) another value, as a session saying it would."""
    from ..extract.rules.changes import contradicted

    known = [(e.id, e.content) for e in existing if e.is_active]
    ids = contradicted(candidate, None, known)
    return candidate.replace(contradicts=ids) if ids else candidate


class Memory:
    """Reads, updates, searches and injects the memories kept in one MEMORY.md.

    ``extractor`` reads finished conversations: an object with ``extract(messages,
    existing_summary)`` (and, for an event loop, ``aextract``) or such a function (sync or
    async), or the name of a built-in one (``"auto"``, ``"anthropic"``, ``"claude-cli"``,
    ``"openai"``, ``"rules"``), set up by the config files and the environment (see
    :mod:`everbot_memory.facade.config`), ``model`` and ``base_url`` winning over them.
    Without one, the memory reads, injects and maintains, but :meth:`close_transcript` uses
    the configured extractor and the other session calls fail.
    """

    def __init__(
        self,
        memory_path: str | os.PathLike[str],
        extractor: Extractor | ExtractorFunction | str | None = None,
        *,
        merger: MemoryMerger | None = None,
        lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
        model: str | None = None,
        base_url: str | None = None,
        timeout: float | None = None,
    ) -> None:
        self.path = Path(memory_path)
        self.lock_timeout = lock_timeout
        self.store = MemoryStore(memory_path, lock_timeout=lock_timeout)
        self.merger = merger or MemoryMerger()
        self.extractor = extractor
        #: The model a built-in LLM extractor uses (None: its default).
        self.model = model
        #: The server a built-in LLM extractor talks to (None: the configured one, or its own).
        self.base_url = base_url
        #: Seconds a built-in LLM extractor waits for one answer (None: the configured time).
        self.timeout = timeout
        #: What the last call left for the user to see: extractor problems, redactions.
        self.warnings: list[str] = []
        self.ledger = SessionLedger(memory_path)
        #: The sentence embedder for semantic recall (loaded on first use).
        self.embedder: Embedder | None = None
        self._index: RecallIndex | None = None
        self._choice: Choice | None = None  # a built-in extractor chosen by name

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

    def settings(self, extractor: str | None = None) -> Settings:
        """The extraction settings in force here: the user's and the project's config files,
        the environment, then ``extractor`` and this memory's ``model``, ``base_url`` and
        ``timeout``."""
        from .config import load_settings

        return load_settings(
            self.path,
            extractor=extractor,
            model=self.model,
            base_url=self.base_url,
            timeout=self.timeout,
        )

    def _choose(self, extractor: str | None) -> Choice:
        """The built-in extractor ``extractor`` names (None: the configured one)."""
        from .choice import choose_extractor

        self._choice = choose_extractor(self.settings(extractor))
        self.extractor = self._choice.extractor
        return self._choice

    def _extract_function(self, asynchronous: bool = False) -> Callable[..., Any]:
        extractor = self.extractor
        if isinstance(extractor, str):
            extractor = self._choose(extractor).extractor
        return extractor_function(extractor, asynchronous)

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
        """Check the extractor's answer, then merge it and record the session, locked.

        Only a usable answer gets here: an extractor that fails (an API error, an answer it
        cannot use) raises, so the session is not recorded and closing it again retries.
        """
        from ..extract.base import as_candidates

        candidates = as_candidates(raw)
        extractor_warnings = list(getattr(self.extractor, "warnings", []))
        if self._choice is not None and self._choice.warning:
            extractor_warnings.insert(0, self._choice.warning)
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
        extractor runs outside the lock (a synchronous one in a worker thread). When it fails
        (:class:`ExtractionError`), nothing is written and the session is not recorded: closing
        it again retries.
        """
        import asyncio  # here, not at the top: reading prompts at session start never needs it

        session = await asyncio.to_thread(self._begin, history_messages, session_id)
        if session is None:
            return self._unchanged(session_id)
        raw = await call_async(self._extract_function(asynchronous=True), session)
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
        extractor is this memory's, else the configured one. In a conversation between named people,
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
            self._choose(None)
        session = session_id or transcript.session_id or transcript.content_id()
        stats = self.process_session_end_sync(transcript.as_dicts(), session)
        name = self._choice.name if self._choice else extractor_name(self.extractor)
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
        return self._merge(candidates, session_id, now)

    def _merge(
        self,
        candidates: Sequence[Candidate],
        session_id: str,
        now: datetime | None = None,
        *,
        changed_facts: bool = False,
    ) -> MergeResult:
        """:meth:`merge_candidates`; with ``changed_facts``, a candidate giving a home or an
        employer also retires the memory holding the old one (found under the lock)."""
        from ..core.redaction import scrub

        clean, dropped = scrub(candidates, lambda c, text: c.replace(content=text))
        results: list[MergeResult] = []

        def merge(existing: list[MemoryEntry]) -> list[MemoryEntry]:
            marked = [_with_changed_facts(c, existing) for c in clean] if changed_facts else clean
            results.append(self.merger.merge(existing, marked, session_id, now))
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
        """Add one memory (or reinforce the one that already says it); returns it and the merge.

        As in a session, a new home or employer ("lives in Paris", "The user works at Acme")
        moves the memory that gave the old one to Archived (``result.stats.contradicted``).
        """
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
        result = self._merge([candidate], session_id, changed_facts=True)
        entry = next(e for e in result.entries if e.id == result.placed[0])
        return entry, result

    def update(
        self,
        entry_id: str,
        content: str | None = None,
        category: Category | None = None,
        score: float | None = None,
    ) -> MemoryEntry:
        """Change a memory's content, category or score (locked); returns it as saved.

        A score set here is honoured from now on, as one edited by hand in the file: it becomes
        the decay anchor, so decay starts from it and never from the old score. Secrets in new
        content are redacted (reported in :attr:`warnings`). Raises
        :class:`EntryNotFoundError` for an unknown id, :class:`EverbotMemoryError` for a bad
        value; either way nothing changes.
        """
        changes: dict[str, Any] = {}
        if content is not None:
            from ..core.redaction import redact

            try:
                changes["content"] = check_text(content, "memory content")
            except ValueError as exc:
                raise EverbotMemoryError(f"nothing updated: {exc}") from exc
            redacted = redact(changes["content"])
            if redacted.only_secret:
                raise EverbotMemoryError(
                    f"nothing updated: the text is only a secret ({', '.join(redacted.found)})"
                )
        if category is not None:
            if category not in CATEGORIES:
                raise EverbotMemoryError(
                    f"nothing updated: category {category!r} is not one of {', '.join(CATEGORIES)}"
                )
            changes["category"] = category
        if score is not None:
            if isinstance(score, bool) or not isinstance(score, (int, float)):
                raise EverbotMemoryError(f"nothing updated: score {score!r} is not a number")
            if not 0.0 <= score <= 1.0:
                raise EverbotMemoryError(f"nothing updated: score {score} is not from 0 to 1")
            now = utcnow().replace(microsecond=0)
            changes.update(score=float(score), base_score=float(score), base_at=now)
        found: list[MemoryEntry] = []

        def change(existing: list[MemoryEntry]) -> list[MemoryEntry]:
            found[:] = [e for e in existing if e.id == entry_id]
            if not found:
                raise EntryNotFoundError(entry_id)
            return [e.replace(**changes) if e.id == entry_id else e for e in existing]

        if changes:
            self._update(change)
        return self.get(entry_id)

    def history(self, entry_id: str) -> History:
        """What the engine knows of a memory's past: when it was created and last confirmed,
        its hits, its score now and the anchor it decays from, the session it came from, the
        memories it replaced or absorbed and those that replaced it, and how it read before
        the file's last save (``MEMORY.md.bak``). Older wordings are not kept."""
        from ..document.parse import parse
        from ..storage.store import decode
        from .reports import history_of

        entries = self.entries()
        entry = next((e for e in entries if e.id == entry_id), None)
        if entry is None:
            raise EntryNotFoundError(entry_id)
        backup = self.store.backup_path
        before: MemoryEntry | None = None
        try:
            data = backup.read_bytes()
        except FileNotFoundError:
            data = None  # never saved twice: there is no earlier version
        if data is not None:
            older = parse(decode(data, backup)).entries
            before = next((e for e in older if e.id == entry_id), None)
        return history_of(entry, entries, before, utcnow())

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

    def backend(self, check: bool = False) -> Backend:
        """Which extractor closing a session would use here, why, and with ``check`` whether
        it answers (one short request, or ``claude --version``); problems are reported in the
        result, not raised."""
        from .reports import backend_of

        return backend_of(
            self.settings(self.extractor if isinstance(self.extractor, str) else None), check
        )

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

    # -- the same calls for an event loop: each is its synchronous twin in a worker thread

    #: Async :meth:`process_session_end` (the seed's name, awaited as it is).
    aprocess_session_end = process_session_end
    aclose_transcript = _threaded(close_transcript)
    aremember = _threaded(remember)
    aupdate = _threaded(update)
    ahistory = _threaded(history)
    aforget = _threaded(forget)
    aforget_many = _threaded(forget_many)
    amaintain = _threaded(maintain)
    arecall = _threaded(recall)
    amark_used = _threaded(mark_used)
    aget = _threaded(get)
    aentries = _threaded(entries)
    alist_entries = _threaded(list_entries)
    aget_prompt_memories = _threaded(get_prompt_memories)
    aprompt_block = _threaded(prompt_block)

    # -- the job queue (hooks record sessions; a worker extracts them)

    @property
    def jobs(self) -> Jobs:
        """The sessions queued by hooks, and the worker that extracts them."""
        from .jobs import Jobs

        def close(transcript_path: str, session_id: str) -> SessionReport:
            # A fresh Memory per job: its own extractor (the configured one) and warnings.
            name = self.extractor if isinstance(self.extractor, str) else None
            worker = Memory(
                self.path,
                name,
                lock_timeout=self.lock_timeout,
                model=self.model,
                base_url=self.base_url,
                timeout=self.timeout,
            )
            return worker.close_transcript(transcript_path, session_id=session_id)

        return Jobs(self.path, close)


#: The seed's name for the facade (EverBot's ``MemoryManager``).
MemoryManager = Memory
