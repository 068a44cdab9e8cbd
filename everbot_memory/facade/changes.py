"""The changes made to MEMORY.md, each a locked load, change and save, and reading it back.

:class:`Changes` holds what :class:`~everbot_memory.facade.memory.Memory` does to the file
outside a session: merge candidates, remember, update, forget, dedupe, maintain, mark memories
used, and read them. Every change goes through :meth:`Changes._update`, so each one is one
locked load and one atomic save.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.clock import utcnow
from ..core.collector import collection_paused
from ..core.entry import Category, Importance, MemoryEntry, check_group, check_text
from ..core.merge import MemoryMerger, MergeResult
from ..core.rules import CATEGORIES
from ..errors import EntryNotFoundError, EverbotMemoryError
from ..storage.lock import DEFAULT_LOCK_TIMEOUT
from ..storage.store import MemoryStore

if TYPE_CHECKING:
    from ..core.candidate import Candidate
    from ..core.proposal import Proposal
    from .choice import Section
    from .reports import History

__all__ = ["Changes", "Remembered"]


def _with_changed_facts(
    candidate: Candidate | Proposal, existing: Sequence[MemoryEntry]
) -> Candidate | Proposal:
    """The candidate, marked as replacing the Active memories that give a single-valued fact
    (home, employer) another value, as a session saying it would."""
    from ..extract.rules.single_valued import contradicted, single_valued

    if not single_valued(candidate.content):
        return candidate  # nothing to compare: the file's memories are not looked through
    known = [(e.id, e.content) for e in existing if e.is_active]
    ids = contradicted(candidate, None, known)
    return candidate.replace(contradicts=ids) if ids else candidate


def _candidate(content: str, category: str, importance: str, group: str | None) -> Candidate:
    """The candidate pydantic validates, or the error it reports, as the user reads it."""
    from pydantic import ValidationError

    from ..core.candidate import Candidate

    try:
        return Candidate(content=content, category=category, importance=importance, group=group)
    except ValidationError as exc:
        raise EverbotMemoryError(f"nothing remembered: {exc.errors()[0]['msg'].lower()}") from exc


@dataclass
class Remembered:
    """What became of one text given to :meth:`Changes.remember_many`: the memory it went
    into and whether that memory is new (else a memory said it already), or why it was not
    remembered (``entry`` None), and the secrets redacted in it."""

    entry: MemoryEntry | None
    added: bool = False
    reason: str = ""
    #: What an earlier text of the same call said already: it went into that one's memory.
    repeated: bool = False
    warnings: list[str] = field(default_factory=list)


def _rememberable(
    content: str, category: str, importance: str, group: str | None
) -> Candidate | Proposal:
    """The candidate a text to remember makes, or the error saying why it cannot be one
    (invalid, or nothing but a secret)."""
    from ..core.proposal import proposal
    from ..core.redaction import redact

    # Plainly valid input skips pydantic (its import is most of a small remember's cost);
    # anything else goes to the model, which says what is wrong.
    candidate = proposal(content, category, importance, group) or _candidate(
        content, category, importance, group
    )
    redacted = redact(candidate.content)
    if redacted.only_secret:
        raise EverbotMemoryError(
            f"nothing remembered: the text is only a secret ({', '.join(redacted.found)})"
        )
    return candidate


class Changes:
    """Changes to the file (each under the lock) and reads of it; the base of ``Memory``."""

    path: Path
    store: MemoryStore
    merger: MemoryMerger
    #: What the last call left for the user to see: extractor problems, redactions.
    warnings: list[str]

    def __init__(
        self,
        memory_path: str | os.PathLike[str],
        *,
        merger: MemoryMerger | None = None,
        lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
    ) -> None:
        self.path = Path(memory_path)
        self.store = MemoryStore(memory_path, lock_timeout=lock_timeout)
        self.merger = merger or MemoryMerger()
        self.warnings = []

    def _update(
        self,
        change: Callable[[list[MemoryEntry]], list[MemoryEntry]],
        settled: Callable[[], datetime | None] = lambda: None,
    ) -> None:
        """Load, ``change``, save, under the lock; ``settled()``: the moment a merge brought
        the changed entries to, if one did (see ``MemoryStore.save``)."""
        self.warnings = []
        with self.store.lock(), collection_paused():
            entries = change(self.store.load())
            self.store.save(entries, settled=settled())
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
        candidates: Sequence[Candidate | Proposal],
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

        # Only the engine's own merge is known to leave every score as decay gives it.
        own = type(self.merger).merge is MemoryMerger.merge

        def merge(existing: list[MemoryEntry]) -> list[MemoryEntry]:
            marked = [_with_changed_facts(c, existing) for c in clean] if changed_facts else clean
            if own:
                result = self.merger.merge(
                    existing, marked, session_id, now, steady=self.store.steady
                )
            else:
                result = self.merger.merge(existing, marked, session_id, now)
            results.append(result)
            return result.entries

        def settled() -> datetime | None:
            return results[-1].settled_at if own and results else None

        self._update(merge, settled)
        self.warnings[:0] = dropped
        return results[-1]

    def remember(
        self,
        content: str,
        category: Category = "fact",
        importance: Importance = "medium",
        session_id: str = "manual",
        group: str | None = None,
    ) -> tuple[MemoryEntry, MergeResult]:
        """Add one memory (or reinforce the one that already says it); returns it and the merge.

        ``group`` files it under an area ("work", "life"); without one, the rules guess from
        its words and leave it without a group when they cannot tell.

        As in a session, a new home or employer ("lives in Paris", "The user works at Acme")
        moves the memory that gave the old one to Archived (``result.stats.contradicted``).
        """
        try:
            group = check_group(group)
        except ValueError as exc:
            raise EverbotMemoryError(f"nothing remembered: {exc}") from exc
        candidate = _rememberable(content, category, importance, group)
        result = self._merge([candidate], session_id, changed_facts=True)
        entry = next(e for e in result.entries if e.id == result.placed[0])
        return entry, result

    def remember_many(
        self,
        items: Sequence[tuple[str, Category]],
        importance: Importance = "medium",
        session_id: str = "manual",
    ) -> list[Remembered]:
        """:meth:`remember` each ``(content, category)`` of ``items``, in one locked load and
        one save (an import of a long notes file saves once, not once per note).

        One outcome per item, in order. A text that cannot be a memory (empty, only a secret,
        too long) is not remembered and says why; the others are merged together, as one
        session's memories are: a text that repeats a memory (or one given earlier in
        ``items``) goes into that memory, and a new home or employer retires the memory that
        gave the old one. A failure of the file itself raises, and nothing is written.
        """
        from ..core.redaction import scrub

        outcomes = [Remembered(None) for _ in items]
        candidates: list[Candidate | Proposal] = []
        places: list[int] = []
        for place, (content, category) in enumerate(items):
            try:
                candidate = _rememberable(content, category, importance, None)
            except EverbotMemoryError as exc:
                outcomes[place].reason = str(exc).removeprefix("nothing remembered: ")
                continue
            kept, said = scrub([candidate], lambda c, text: c.replace(content=text))
            outcomes[place].warnings = said
            candidates.append(kept[0])
            places.append(place)
        if not candidates:
            self.warnings = []
            return outcomes
        from ..extract.rules.single_valued import contradicted, single_valued

        # Merged in as few runs as can be: a text giving a home or an employer another value
        # than an earlier text of ``items`` starts a new run, merged after the earlier one, so
        # that it retires the memory the earlier text made, as a later remember would.
        runs: list[list[Candidate | Proposal]] = [[]]
        earlier: list[tuple[str, str]] = []  # the run's texts giving a home or an employer
        for candidate in candidates:
            if single_valued(candidate.content):
                if earlier and contradicted(candidate, None, earlier):
                    runs.append([])
                    earlier = []
                earlier.append((str(len(earlier)), candidate.content))
            runs[-1].append(candidate)
        results: list[tuple[set[str], list[str], list[MemoryEntry]]] = []

        def merge(existing: list[MemoryEntry]) -> list[MemoryEntry]:
            now: list[MemoryEntry] = existing
            ids: list[str] = []
            for batch in runs:
                marked = [_with_changed_facts(c, now) for c in batch]
                result = self.merger.merge(now, marked, session_id)
                now, ids = result.entries, ids + result.placed
            results.append(({e.id for e in existing}, ids, now))
            return now

        self._update(merge)
        before, placed_ids, merged = results[-1]
        entries = {e.id: e for e in merged}
        seen: set[str] = set()
        for place, placed in zip(places, placed_ids, strict=True):
            outcome = outcomes[place]
            outcome.entry = entries.get(placed)
            outcome.added = placed not in before and placed not in seen
            outcome.repeated = placed in seen
            if outcome.entry is None:
                outcome.reason = "merged into a memory this import let go"
            seen.add(placed)
        return outcomes

    def update(
        self,
        entry_id: str,
        content: str | None = None,
        category: Category | None = None,
        score: float | None = None,
        group: str | None = None,
    ) -> MemoryEntry:
        """Change a memory's content, category, score or group (locked); returns it as saved.

        ``group`` "" or "none" takes the memory out of its group.

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
        if group is not None:
            try:
                changes["group"] = (
                    None if group.strip() in ("", "none", "-") else check_group(group)
                )
            except ValueError as exc:
                raise EverbotMemoryError(f"nothing updated: {exc}") from exc
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
        group: str | None = None,
    ) -> list[MemoryEntry]:
        """Memories in file order (strongest first), filtered, then ``offset`` and ``limit``.

        ``group``: one group or several, comma-separated (``none``: memories without one)."""
        from ..core.groups import parse_filter
        from .reports import filter_entries

        return filter_entries(
            self.entries(), section, category, min_score, limit, offset, parse_filter(group)
        )

    def find(self, text: str) -> list[MemoryEntry]:
        """The memories whose content holds ``text`` (case and spacing ignored); none for a
        blank ``text`` (held by every memory: an unset variable must not select them all)."""
        needle = " ".join(text.split()).casefold()
        if not needle:
            return []
        return [e for e in self.entries() if needle in " ".join(e.content.split()).casefold()]
