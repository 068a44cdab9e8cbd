"""What the facade reports: a closed session, the file's statistics, a diagnosis, the
extraction backend in force, the Claude Code installation, the file's place in git."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from ..core.duplicates import find_duplicates
from ..core.entry import MemoryEntry
from ..core.rules import CATEGORIES
from ..core.scoring import score_at
from ..document.model import Document, Problem
from ..errors import EverbotMemoryError
from .choice import Section, choose_extractor, explain_choice
from .config import Settings

__all__ = [
    "Backend",
    "Diagnosis",
    "GitCheck",
    "History",
    "HookSettings",
    "Installation",
    "LastHook",
    "ServerPlace",
    "SessionReport",
    "Stats",
    "backend_of",
    "diagnose",
    "filter_entries",
    "group_filter_problem",
    "history_of",
    "stats_of",
]


@dataclass
class SessionReport:
    """A conversation read from a transcript and merged."""

    session_id: str
    extractor: str
    #: ``{"new", "updated", "archived", "forgotten", "contradicted", "total", "messages"}``
    stats: dict[str, int]
    #: Lines of the transcript that could not be read.
    skipped: int = 0
    warnings: list[str] = field(default_factory=list)


@dataclass
class History:
    """What the engine knows of one memory's past (it keeps no older wordings beyond the one
    before the file's last save)."""

    entry: MemoryEntry
    created_at: datetime
    #: When it was last mentioned, confirmed or used, and how many times that happened.
    last_activated: datetime
    hits: int
    #: The score as of now, and the anchor it decays from (the score it had at ``anchor_at``:
    #: its last activation, or the moment a person set it).
    score_now: float
    anchor_score: float
    anchor_at: datetime
    #: The session it came from ("manual": remembered by hand; "": typed into the file).
    source_session: str
    #: Memories it retired when it came (a changed fact) and duplicates folded into it.
    replaces: tuple[str, ...]
    merged_ids: tuple[str, ...]
    #: Memories that came later and retired it.
    replaced_by: tuple[str, ...]
    #: The memory as it read before the file's last save (``MEMORY.md.bak``); None when that
    #: version did not hold it.
    before_last_save: MemoryEntry | None


def history_of(
    entry: MemoryEntry,
    entries: Sequence[MemoryEntry],
    before_last_save: MemoryEntry | None,
    now: datetime,
) -> History:
    """The history of ``entry``, one of ``entries``, as of ``now``."""
    anchor_score, anchor_at = entry.anchor
    return History(
        entry=entry,
        created_at=entry.created_at,
        last_activated=entry.last_activated,
        hits=entry.activation_count,
        score_now=score_at(entry, now),
        anchor_score=anchor_score,
        anchor_at=anchor_at,
        source_session=entry.source_session,
        replaces=entry.replaces,
        merged_ids=entry.merged_ids,
        replaced_by=tuple(e.id for e in entries if entry.id in e.replaces),
        before_last_save=before_last_save,
    )


@dataclass
class Stats:
    """Totals per section and category, and a histogram of scores in tenths."""

    total: int
    active: int
    archived: int
    categories: dict[str, int]
    histogram: dict[str, int]


def stats_of(entries: Sequence[MemoryEntry]) -> Stats:
    """The statistics of these entries."""
    bins = [0] * 10
    for entry in entries:
        bins[min(9, int(entry.score * 10))] += 1
    active = sum(e.is_active for e in entries)
    return Stats(
        total=len(entries),
        active=active,
        archived=len(entries) - active,
        categories={c: sum(e.category == c for e in entries) for c in CATEGORIES},
        histogram={f"{i / 10:.1f}-{(i + 1) / 10:.1f}": n for i, n in enumerate(bins)},
    )


@dataclass
class Diagnosis:
    """What ``doctor`` finds: the problems (repairs and warnings, duplicates included), by line."""

    entries: int
    problems: list[Problem]


def diagnose(doc: Document, displaced: Sequence[Path] = ()) -> Diagnosis:
    """The problems of a parsed file (repairs the next save makes, unreadable text), its
    likely duplicates, each with its line, and editors' saves a crash left unmerged."""
    problems = list(doc.problems)
    for path in displaced:
        problems.append(
            Problem(
                0,
                f"an editor's save was set aside by a write that did not finish: {path}; "
                "copy what it has that the file lacks, then delete it",
                "warning",
            )
        )
    for a, b, score in find_duplicates(doc.entries):
        problems.append(
            Problem(
                doc.lines.get(a.id, 0),
                f"[{a.id}] and [{b.id}] (line {doc.lines.get(b.id, 0)}) look like "
                f"duplicates (similarity {score:.2f}); `everbot-memory dedupe` merges them",
                "warning",
            )
        )
    problems.sort(key=lambda p: p.line)
    return Diagnosis(len(doc.entries), problems)


def filter_entries(
    entries: Sequence[MemoryEntry],
    section: Section = "all",
    category: str | None = None,
    min_score: float = 0.0,
    limit: int | None = None,
    offset: int = 0,
    groups: frozenset[str] | None = None,
) -> list[MemoryEntry]:
    """The entries in ``section`` (and ``category``, and ``groups``) scoring at least
    ``min_score``, in the order given, then ``offset`` and ``limit``."""
    from ..core.groups import matches

    chosen = [
        e
        for e in entries
        if (section == "all" or e.is_active == (section == "active"))
        and (category is None or e.category == category)
        and e.score >= min_score
        and matches(e.group, groups)
    ]
    return chosen[offset:] if limit is None else chosen[offset : offset + limit]


def group_filter_problem(entries: Sequence[MemoryEntry], settings: Settings) -> str:
    """What is wrong with the group filter the hooks use here ("" when none is set or it
    matches some memory): a misspelt group hides every memory from the prompts."""
    if settings.group is None or not entries:
        return ""
    from ..core.groups import parse_filter

    if filter_entries(entries, groups=parse_filter(settings.group)):
        return ""
    return (
        f"the group filter {settings.group!r} ({settings.source('group')}) matches none of "
        "the memories: the hooks here show none; check its spelling"
    )


@dataclass
class Backend:
    """The extractor closing a session would use, why, and what a check of it found."""

    name: str
    reason: str
    model: str | None = None
    base_url: str | None = None
    timeout: float | None = None
    #: A warning about the choice (a key without its SDK, a setting it does not use).
    warning: str | None = None
    #: Why it cannot run (an SDK or the program missing, a bad setting); None: it can.
    problem: str | None = None
    #: What the check found when one was asked for (None: not checked).
    checked: str | None = None


def backend_of(settings: Settings, check: bool = False) -> Backend:
    """The backend ``settings`` choose; with ``check``, one cheap request to it (the rules
    need none). Problems go in the result: a diagnosis never raises them."""
    name, reason = explain_choice(settings)
    report = Backend(name, reason, settings.model, settings.base_url, settings.timeout)
    try:
        choice = choose_extractor(settings)
    except EverbotMemoryError as exc:
        report.problem = str(exc)
        return report
    report.warning = choice.warning
    model = getattr(choice.extractor, "model", None)
    report.model = model if isinstance(model, str) else None
    if check:
        probe = getattr(choice.extractor, "check", None)
        if probe is None:
            report.checked = "nothing to check: the offline rules need no server"
        else:
            try:
                report.checked = str(probe())
            except EverbotMemoryError as exc:
                report.problem = str(exc)
    return report


@dataclass
class HookSettings:
    """A Claude Code settings file holding everbot-memory's hooks."""

    scope: str
    path: Path
    #: The events it has our hooks for, and the ones it lacks.
    events: list[str]
    missing: list[str]
    #: The commands our hooks run there (one, unless edited by hand).
    commands: list[str]


@dataclass
class ServerPlace:
    """Where Claude Code finds everbot-memory's MCP server for one scope."""

    scope: str
    path: Path


@dataclass
class LastHook:
    """The last hook run on a memory, as the hook recorded it."""

    event: str
    at: str
    seconds: float
    ok: bool
    error: str | None = None


@dataclass
class Installation:
    """What ``doctor`` finds of the Claude Code installation: the settings holding our hooks,
    the MCP servers, the memory the hooks write, its queue, the last hook run, and the
    problems (each one line saying what to do)."""

    hooks: list[HookSettings]
    servers: list[ServerPlace]
    #: The memory the hooks write to: the user's, or the one ``install --file`` pinned.
    memory: Path
    #: Jobs due now, jobs waiting to retry after a failure, jobs set aside as failed.
    queued: int = 0
    waiting: int = 0
    failed: int = 0
    last_hook: LastHook | None = None
    #: The settings file that enables the everbot-memory plugin (its hooks run too).
    plugin: Path | None = None
    problems: list[str] = field(default_factory=list)
    #: Things worth knowing that need no repair.
    notes: list[str] = field(default_factory=list)

    @property
    def installed(self) -> bool:
        """True when some settings file holds our hooks, or enables the plugin."""
        return bool(self.hooks) or self.plugin is not None

    def to_json(self) -> dict[str, Any]:
        """The report as JSON values."""
        return {
            "installed": self.installed,
            "hooks": [{**vars(h), "path": str(h.path)} for h in self.hooks],
            "mcp_servers": [{"scope": s.scope, "path": str(s.path)} for s in self.servers],
            "plugin": None if self.plugin is None else str(self.plugin),
            "memory": str(self.memory),
            "queue": {"due": self.queued, "waiting": self.waiting, "failed": self.failed},
            "last_hook": None if self.last_hook is None else vars(self.last_hook),
            "problems": self.problems,
            "notes": self.notes,
        }


@dataclass
class GitCheck:
    """What ``doctor`` finds of the git repository holding the memory file (all empty when
    there is none): whether its merges go through the merge driver, and whether a merge is
    in progress or left a conflict in the file; each problem is one line saying what to do."""

    #: The work tree holding the file (None: not in a git repository, or no git program).
    repository: Path | None = None
    #: ``.gitattributes`` gives the file ``merge=everbot-memory``.
    attribute: bool = False
    #: The command this clone's git config runs as that driver (None: not configured).
    driver: str | None = None
    #: What git is in the middle of there ("a merge", "a rebase", ...).
    operation: str | None = None
    #: The line where an unresolved conflict starts in the file.
    conflict: int | None = None
    problems: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The report as JSON values."""
        return {
            **vars(self),
            "repository": None if self.repository is None else str(self.repository),
        }
