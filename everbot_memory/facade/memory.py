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
from itertools import pairwise
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar

from ..core import prompt
from ..core.clock import utcnow
from ..core.entry import MemoryEntry
from ..core.merge import MemoryMerger, MergeResult, MergeStats
from ..core.rules import (
    CATEGORIES,
    IMPORTANCES,
    PROMPT_MAX_CHARS,
    PROMPT_MIN_SCORE,
    PROMPT_TOP_K,
)
from ..storage.ledger import SessionLedger
from ..storage.lock import DEFAULT_LOCK_TIMEOUT
from .changes import Changes
from .choice import EXTRACTORS, PROMPT_LANGUAGES, SECTIONS, TRANSCRIPT_FORMATS, Section
from .remember import check_group_name
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
    from ..recall.notes import NoteHit
    from .choice import Choice
    from .config import Settings
    from .consolidation import Consolidation
    from .jobs import Jobs
    from .reports import Backend, Diagnosis, SessionReport, Stats

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
    "check_group_name",
]

#: As ``k``: every memory relevant enough, however many.
_EVERY_HIT = 1 << 30

#: A stretch of a session still to merge, and the memories that do not hold it yet.
_Part = tuple[PendingSession, list["Memory"]]

_P = ParamSpec("_P")
_R = TypeVar("_R")


def _added(stats: dict[str, int], more: dict[str, int]) -> dict[str, int]:
    """The stats of two parts of one session: counts add up; ``total`` is the last one's."""
    added = {key: stats.get(key, 0) + value for key, value in more.items()}
    added["total"] = more["total"]
    return added


def _threaded(
    method: Callable[Concatenate[Any, _P], _R],
) -> Callable[Concatenate[Any, _P], Coroutine[Any, Any, _R]]:
    """The async twin of a ``Memory`` method: the same call, run in a worker thread, so an
    event loop is not blocked by the file, the lock or an extractor (one flow, not two)."""

    async def run(self: Any, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        import asyncio  # here, not at the top: reading prompts at session start never needs it

        return await asyncio.to_thread(method, self, *args, **kwargs)

    run.__name__ = run.__qualname__ = f"a{method.__name__}"
    run.__doc__ = f"Async :meth:`{method.__name__}` (run in a worker thread)."
    return run


class Memory(Changes):
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
        super().__init__(memory_path, merger=merger, lock_timeout=lock_timeout)
        self.lock_timeout = lock_timeout
        self.extractor = extractor
        #: The model a built-in LLM extractor uses (None: its default).
        self.model = model
        #: The server a built-in LLM extractor talks to (None: the configured one, or its own).
        self.base_url = base_url
        #: Seconds a built-in LLM extractor waits for one answer (None: the configured time).
        self.timeout = timeout
        self.ledger = SessionLedger(memory_path)
        #: Other memories a session feeds (a project's, beside this user's memory): the
        #: extractor is shown them too, and each candidate is merged where it belongs.
        self.others: list[Memory] = []
        #: The sentence embedder for semantic recall (loaded on first use).
        self.embedder: Embedder | None = None
        self._index: RecallIndex | None = None
        #: What the last :meth:`maintain` consolidated, when it was due (else None).
        self.last_consolidation: Consolidation | None = None
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

    def _begin(self, messages: Messages, session_id: str) -> list[_Part]:
        """The parts of the session still to merge, in order; [] when every memory it feeds
        (this one and :attr:`others`) has all of it.

        Each memory keeps its own ledger, so a memory that already holds a part of the
        session (saved before another memory's save failed, or kept while the other was
        deleted to start over) is not given that part again. Usually there is one part; when
        the memories hold different lengths of the session, each stretch between those
        lengths is a part of its own, merged into the memories that do not hold it yet.
        """
        if self.others and self.others[0].exists():
            # A record of this session written before each memory kept its own stands for
            # the project too: the project gets its own copy before this one changes.
            self.ledger.hand_over(session_id, self.others[0].ledger)
        behind = self._behind(session_id, messages)
        for place in [self, *self.others]:
            if not place.exists():
                # The ledger belongs to a memory file that is gone (deleted to start over):
                # what it says was merged is merged nowhere now, except that the user's old
                # records still stand for the projects, which have no record of their own.
                place.ledger.clear(keep_for_others=place is self and bool(self.others))
        parts: list[_Part] = []
        into: list[Memory] = []
        for start, end in pairwise([*sorted(behind), len(messages)]):
            into = into + behind[start]
            part = PendingSession(session_id, messages[:end], list(messages[start:end]))
            parts.append((part, into))
        return parts

    def unmerged(self, session_id: str, messages: Messages) -> list[Any]:
        """The messages of the session that this memory or one of :attr:`others` does not
        hold yet (only reads)."""
        behind = self._behind(session_id, messages)
        return list(messages[min(behind) :]) if behind else []

    def _behind(self, session_id: str, messages: Messages) -> dict[int, list[Memory]]:
        """The memories the session feeds that do not hold all of it, by how many of its
        messages they hold."""
        # A session split before each memory kept its own record of it was recorded in the
        # user's ledger alone, for both: that record stands for the project's memory too.
        mine = self.ledger.unseen_by_others(session_id, messages)
        behind: dict[int, list[Memory]] = {}
        for place in [self, *self.others]:
            if not place.exists():
                new, seen = list(messages), False
            elif place is not self and mine is not None and not place.ledger.seen(session_id):
                new, seen = mine, True
            else:
                new = place.ledger.unseen(session_id, messages)
                seen = place.ledger.seen(session_id)
            if new or not seen:
                behind.setdefault(len(messages) - len(new), []).append(place)
        return behind

    def _summarize(self, session: PendingSession) -> None:
        """Tell the extractor what is known, as the files say just before it reads the part."""
        from ..extract.summary import summarize_existing

        known = self.store.load() + [e for other in self.others for e in other.store.load()]
        session.summary = summarize_existing(known)

    def _finish(self, session: PendingSession, into: list[Memory], raw: Any) -> dict[str, int]:
        """Check the extractor's answer, then merge it and record the session, locked, in
        each memory of ``into``.

        Only a usable answer gets here: an extractor that fails (an API error, an answer it
        cannot use) raises, so the session is not recorded and closing it again retries.
        """
        from ..extract.base import as_candidates

        candidates = as_candidates(raw)
        extractor_warnings = list(getattr(self.extractor, "warnings", []))
        if self._choice is not None and self._choice.warning:
            extractor_warnings.insert(0, self._choice.warning)
        if self.others:
            return self._finish_routed(session, into, candidates, extractor_warnings)
        with self.store.lock():
            result = self.merge_candidates(candidates, session.session_id)
            self.ledger.record(session.session_id, session.messages)
            noted = self._write_note(session, candidates)
        self.warnings[:0] = extractor_warnings
        self.warnings += noted
        return {
            **result.stats.as_dict(),
            "total": len(result.entries),
            "messages": len(session.new),
        }

    def _finish_routed(
        self,
        session: PendingSession,
        into: list[Memory],
        candidates: list[Candidate],
        warnings: list[str],
    ) -> dict[str, int]:
        """Merge each candidate into the user's memory (this one) or the project's (the first
        of :attr:`others`), by :func:`everbot_memory.core.routing.route`, each with the session
        recorded in its own ledger under its own lock; a memory not in ``into`` already holds
        this part and is left alone.

        A save that fails leaves its file and ledger as they were, and the session fails
        there: the retry merges only the part still missing. The user's part goes first, so
        a user's memory that cannot be written (the usual failure) leaves both files as they
        were.
        """
        from ..core.routing import route

        project = self.others[0]
        user_ids = {e.id for e in self.store.load()}
        project_ids = {e.id for e in project.store.load()}
        mine, theirs = [], []
        for candidate in candidates:
            where = route(candidate, user_ids, project_ids)
            if where in ("user", "both"):
                mine.append(candidate)
            if where in ("project", "both"):
                theirs.append(candidate)
        totals: dict[str, int] = {}
        notes: list[str] = []
        results = []
        if self in into:
            with self.store.lock():
                results.append(self.merge_candidates(mine, session.session_id))
                self.ledger.record(session.session_id, session.messages, split=True)
        if project in into:
            with project.store.lock():
                if theirs:
                    results.append(project.merge_candidates(theirs, session.session_id))
                    notes += project.warnings
                project.ledger.record(session.session_id, session.messages)
                # The session happened in the project: its note goes beside the project's
                # memory, once, with the project's part.
                notes += project._write_note(session, candidates, self.extractor)
        for result in results:
            for key, value in result.stats.as_dict().items():
                totals[key] = totals.get(key, 0) + value
        if self not in into:
            self.warnings = []
        self.warnings[:0] = warnings
        self.warnings += notes
        total = len(self.store.load()) + len(project.store.load())
        return {**MergeStats().as_dict(), **totals, "total": total, "messages": len(session.new)}

    def _write_note(
        self, session: PendingSession, candidates: list[Candidate], extractor: Any = None
    ) -> list[str]:
        """Append the session's note to its day's file beside this memory (the caller holds
        the lock). A note that cannot be written is a warning (returned): the memories are
        saved."""
        from ..storage.notes import NotesFolder
        from .notes import session_note

        note = session_note(session, candidates, extractor or self.extractor)
        if note is None:
            return []
        try:
            NotesFolder(self.path).append(note)
        except OSError as exc:
            # The memories are already saved; only the note is missing, and the user is told.
            return [f"the session note was not written: {exc}"]
        from .threads import open_threads_of

        open_threads_of(self.path)  # ready for the next session start
        return []

    def recall_notes(self, query: str, k: int = 5) -> list[NoteHit]:
        """The notes of past sessions that answer ``query``, best first; a date in it ("last
        Tuesday", "上周二", "2026-03-03") keeps only those days' sessions. Only reads."""
        from ..recall.notes import search_notes

        return search_notes(self.path, query, k, utcnow().date())[0]

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

        parts = await asyncio.to_thread(self._begin, history_messages, session_id)
        if not parts:
            return self._unchanged(session_id)
        stats: dict[str, int] = {}
        warnings: list[str] = []
        for session, into in parts:
            await asyncio.to_thread(self._summarize, session)
            raw = await call_async(self._extract_function(asynchronous=True), session)
            stats = _added(stats, await asyncio.to_thread(self._finish, session, into, raw))
            warnings += self.warnings
        self.warnings = warnings
        return stats

    def process_session_end_sync(
        self, history_messages: Messages, session_id: str
    ) -> dict[str, int]:
        """The same as :meth:`process_session_end`, for callers without an event loop."""
        parts = self._begin(history_messages, session_id)
        if not parts:
            return self._unchanged(session_id)
        stats: dict[str, int] = {}
        warnings: list[str] = []
        for session, into in parts:
            self._summarize(session)
            raw = call_sync(self._extract_function(), session)
            stats = _added(stats, self._finish(session, into, raw))
            warnings += self.warnings
        self.warnings = warnings
        return stats

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

    # -- consolidation

    def consolidate(
        self, dry_run: bool = False, extractor: str | None = None, now: datetime | None = None
    ) -> Consolidation:
        """Condense clusters of related, weaker memories into one stronger memory each; the
        originals move to Archived (``condensed_into`` names the new one), never deleted by
        this step. With an LLM backend (``extractor``, else the configured one) the model
        writes each condensed sentence from related memories; offline only near-duplicates
        are condensed, into the member that says the most. ``dry_run`` only plans: the
        result's ``diff`` shows the change to the file."""
        from .consolidation import consolidate

        backend: Any = self.extractor
        if extractor is not None or backend is None or isinstance(backend, str):
            backend = self._choose(extractor if extractor is not None else backend).extractor
        return consolidate(self, backend, dry_run=dry_run, now=now)

    def maintain(self, now: datetime | None = None) -> MergeResult:
        """Apply decay, archiving and forgetting as of ``now`` (the seed's daily job); and,
        when ``consolidate_days`` is set (config file or ``$EVERBOT_MEMORY_CONSOLIDATE_DAYS``)
        and the last consolidation is that old, consolidate (:attr:`last_consolidation`)."""
        result = super().maintain(now)
        self.last_consolidation = None
        every = self.settings().consolidate_days
        if every is not None:
            from .consolidation import consolidation_due

            when = now or utcnow()
            if consolidation_due(self, every, when.timestamp()):
                self.last_consolidation = self.consolidate(now=when)
        return result

    # -- recall

    def recall(
        self, query: str, k: int = 5, semantic: bool = False, group: str | None = None
    ) -> list[Hit]:
        """The ``k`` memories (Active or Archived) that best answer ``query``, best first.

        Only memories relevant enough are returned (``RELEVANCE_FLOOR``): a query that shares
        nothing meaningful with the memories finds none. Searching only reads; to say the
        memories found were used, call :meth:`mark_used`. ``semantic`` fuses sentence
        embeddings into relevance (the ``embeddings`` extra; or set :attr:`embedder`).
        ``group`` keeps only memories of that group (or several, comma-separated).
        """
        from ..core.groups import matches, parse_filter
        from ..recall.index import RecallIndex

        wanted = parse_filter(group)
        if wanted is not None:
            # Every hit above the floor, then the group's best k: no second read of the file.
            hits = self.recall(query, _EVERY_HIT, semantic)
            return [h for h in hits if matches(h.entry.group, wanted)][:k]

        self._index = RecallIndex.for_file(self.path, self._index)
        if semantic:
            if self.embedder is None:
                from ..recall.embeddings import load_embedder

                self.embedder = load_embedder()
            self._index.use_embeddings(self.embedder)
        return self._index.search(query, k)

    # -- reading

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
        self,
        top_k: int = PROMPT_TOP_K,
        min_score: float = PROMPT_MIN_SCORE,
        group: str | None = None,
    ) -> list[MemoryEntry]:
        """The entries a prompt gets: score now >= ``min_score``, strongest first, ``top_k``;
        only those of ``group`` (one, or several comma-separated) when given."""
        return self._prompt_entries(self.store.load(), top_k, min_score, group)

    @staticmethod
    def _prompt_entries(
        entries: list[MemoryEntry], top_k: int, min_score: float, group: str | None
    ) -> list[MemoryEntry]:
        if group is not None:
            from ..core.groups import matches, parse_filter

            wanted = parse_filter(group)
            entries = [e for e in entries if matches(e.group, wanted)]
        return prompt.select(entries, top_k, min_score, utcnow())

    def get_prompt_memories(self, top_k: int = PROMPT_TOP_K) -> str:
        """The top memories as ``- content`` lines (seed §5.3); "" when there are none."""
        return "\n".join(prompt.memory_lines(self.prompt_entries(top_k)))

    def prompt_block(
        self,
        top_k: int = PROMPT_TOP_K,
        min_score: float = PROMPT_MIN_SCORE,
        max_chars: int = PROMPT_MAX_CHARS,
        lang: prompt.PromptLanguage = "en",
        group: str | None = None,
    ) -> str:
        """The block to put in a system prompt: heading, framing, one line per memory (only
        ``group``'s when given).

        This is the session-start path: no lock (saves are atomic, so it always sees a whole
        file), no pydantic.
        """
        from ..core.block import THREADS_MAX_CHARS, threads_block
        from ..core.groups import parse_filter
        from ..core.profile import in_groups, profile_lines, shown
        from .threads import open_threads_of

        doc = self.store.load_document()
        entries = self._prompt_entries(doc.entries, top_k, min_score, group)
        lines = profile_lines(doc.profile, doc.entries)
        profile = shown(in_groups(lines, doc.entries, parse_filter(group)))
        last = open_threads_of(self.path) if self.exists() else None
        room = min(THREADS_MAX_CHARS, max_chars // 4)
        threads = threads_block(last[0], last[1], room, lang) if last else ""
        block = prompt.format_block(
            entries, max_chars - (len(threads) + 2 if threads else 0), lang, profile
        )
        if threads:
            return f"{block}\n\n{threads}" if block else threads
        return block

    # -- the same calls for an event loop: each is its synchronous twin in a worker thread

    #: Async :meth:`process_session_end` (the seed's name, awaited as it is).
    aprocess_session_end = process_session_end
    aclose_transcript = _threaded(close_transcript)
    aremember = _threaded(Changes.remember)
    aupdate = _threaded(Changes.update)
    ahistory = _threaded(Changes.history)
    aforget = _threaded(Changes.forget)
    aforget_many = _threaded(Changes.forget_many)
    amaintain = _threaded(maintain)
    aconsolidate = _threaded(consolidate)
    arecall = _threaded(recall)
    arecall_notes = _threaded(recall_notes)
    amark_used = _threaded(Changes.mark_used)
    aget = _threaded(Changes.get)
    aentries = _threaded(Changes.entries)
    alist_entries = _threaded(Changes.list_entries)
    aget_prompt_memories = _threaded(get_prompt_memories)
    aprompt_block = _threaded(prompt_block)

    # -- the job queue (hooks record sessions; a worker extracts them)

    @property
    def jobs(self) -> Jobs:
        """The sessions queued by hooks, and the worker that extracts them."""
        from .jobs import Jobs

        def close(transcript_path: str, session_id: str, also: Sequence[str] = ()) -> SessionReport:
            # A fresh Memory per job: its own extractor (the configured one) and warnings;
            # ``also``: a project's memory the session feeds too.
            name = self.extractor if isinstance(self.extractor, str) else None

            def memory(path: str | os.PathLike[str]) -> Memory:
                return Memory(
                    path,
                    name,
                    lock_timeout=self.lock_timeout,
                    model=self.model,
                    base_url=self.base_url,
                    timeout=self.timeout,
                )

            worker = memory(self.path)
            worker.others = [memory(path) for path in also]
            return worker.close_transcript(transcript_path, session_id=session_id)

        return Jobs(self.path, close)


#: The seed's name for the facade (EverBot's ``MemoryManager``).
MemoryManager = Memory
