"""Where Claude Code keeps a project's sessions, and the sweep of sessions whose end was never
seen.

A session whose SessionEnd hook never ran (the terminal closed, a crash, the machine slept)
still has its transcript: Claude Code keeps each session of a project in
``<config>/projects/<key>/<session id>.jsonl``, where ``<config>`` is ``$CLAUDE_CONFIG_DIR``
or ``~/.claude`` and ``<key>`` is the project's real path (symlinks resolved) with every UTF-16
code unit that is not an ASCII letter or digit turned into ``-``; a key longer than 200
characters is cut to 200 and ``-`` and a hash of the path are appended (:func:`project_key`,
checked against Claude Code 2.1). :func:`sweep` queues each transcript idle longer than a given
time whose user messages are not all merged yet (the session ledger), once: a session already
queued, or set aside as failed, is left to the queue. The bridge to Claude Code's own auto
memory is :mod:`.auto_memory`.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import ConfigError, EverbotMemoryError, TranscriptError
from ..storage.locations import memory_places, project_dir, project_memory
from .memory import Memory

if TYPE_CHECKING:
    pass

__all__ = [
    "DEFAULT_IDLE_MINUTES",
    "IDLE_ENV",
    "SWEEP_EVENT",
    "SWEEP_MAX_AGE_SECONDS",
    "Swept",
    "claude_home",
    "default_memory_path",
    "idle_minutes",
    "other_memories",
    "project_folder",
    "project_key",
    "project_transcripts",
    "sweep",
    "sweep_places",
    "transcript_folders",
]

#: The job event of a session queued by a sweep.
SWEEP_EVENT = "Sweep"
#: How long a transcript must be left untouched before a sweep takes it, when nothing says.
DEFAULT_IDLE_MINUTES = 30.0
#: A sweep started by a session start leaves sessions older than this alone: installing
#: must not queue a project's whole history for extraction.
SWEEP_MAX_AGE_SECONDS = 7 * 86_400.0
#: The environment variable that sets the idle time in minutes.
IDLE_ENV = "EVERBOT_MEMORY_IDLE_MINUTES"
# Claude Code cuts a project key at this length and appends a hash of the path.
_KEY_MAX = 200


# -- where Claude Code keeps things


def claude_home() -> Path:
    """Claude Code's own folder: ``$CLAUDE_CONFIG_DIR``, else ``~/.claude``."""
    named = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(named) if named else Path.home() / ".claude"


def default_memory_path(
    project: str | os.PathLike[str] | None = None, file: str | os.PathLike[str] | None = None
) -> Path:
    """The memory the bridges use: ``file``, else ``$EVERBOT_MEMORY_FILE``, else the user's
    own memory (the one that follows them into every project)."""
    return memory_places(None if project is None else str(project), file)[0].path


def other_memories(
    project: str | os.PathLike[str] | None = None, file: str | os.PathLike[str] | None = None
) -> list[Path]:
    """The memories a session of ``project`` is also extracted into, beside
    :func:`default_memory_path`'s (the project's own, when it has one and no file is named),
    as the hooks queue them."""
    return [
        place.path for place in memory_places(None if project is None else str(project), file)[1:]
    ]


def _java_hash(text: str) -> int:
    """The 32-bit string hash Claude Code appends to a long key (over UTF-16 code units)."""
    data = text.encode("utf-16-le", "surrogatepass")
    value = 0
    for i in range(0, len(data), 2):
        value = (value * 31 + int.from_bytes(data[i : i + 2], "little")) & 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


def _base36(number: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        number, rest = divmod(number, 36)
        out = digits[rest] + out
        if not number:
            return out


def project_key(path: str | os.PathLike[str]) -> str:
    """Claude Code's folder name for a project path (see the module's docstring).

    A character outside the Basic Multilingual Plane is two UTF-16 code units, so two ``-``.
    """
    text = os.fspath(path)
    key = "".join(
        ch if ch.isascii() and ch.isalnum() else "-" * (2 if ord(ch) > 0xFFFF else 1) for ch in text
    )
    if len(key) <= _KEY_MAX:
        return key
    return f"{key[:_KEY_MAX]}-{_base36(abs(_java_hash(text)))}"


def _spellings(project: Path) -> list[str]:
    """The project's real path (what Claude Code names it by), then the path as given."""
    given = os.path.abspath(os.path.expanduser(project))
    return list(dict.fromkeys([os.path.realpath(given), given]))


def transcript_folders(project: str | os.PathLike[str]) -> list[Path]:
    """The folders that hold the project's Claude Code sessions (those that exist)."""
    base = claude_home() / "projects"
    names = dict.fromkeys(project_key(p) for p in _spellings(Path(project)))
    return [base / name for name in names if (base / name).is_dir()]


def _long_key_folders(project: Path, exact: Sequence[Path]) -> list[Path]:
    """Folders that may hold a long-named project's sessions under another hash: Claude Code
    looks for these too, as releases hashed long paths differently."""
    base = claude_home() / "projects"
    prefixes = {
        project_key(p)[:_KEY_MAX] + "-"
        for p in _spellings(project)
        if len(project_key(p)) > _KEY_MAX
    }
    if not prefixes or not base.is_dir():
        return []
    return sorted(
        folder
        for folder in base.iterdir()
        if folder.is_dir()
        and folder not in exact
        and any(folder.name.startswith(prefix) for prefix in prefixes)
    )


def _recorded_cwd(path: Path) -> str | None:
    """The working folder a Claude Code transcript records (its first ``cwd``)."""
    try:
        with path.open(encoding="utf-8", errors="replace") as handle:
            for number, line in enumerate(handle):
                if number >= 50:
                    break
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                if isinstance(record, dict) and isinstance(record.get("cwd"), str):
                    return str(record["cwd"])
    except OSError:
        return None
    return None


def _session_files(folder: Path) -> Iterator[Path]:
    # Sub-agents' transcripts are in <session>/subagents/ (older releases: agent-*.jsonl
    # beside the sessions); they belong to their session, not sessions of their own.
    for path in folder.glob("*.jsonl"):
        if not path.name.startswith("agent-") and path.is_file():
            yield path


def project_transcripts(project: str | os.PathLike[str]) -> list[Path]:
    """The project's Claude Code session transcripts, oldest change first."""
    project = Path(project)
    exact = transcript_folders(project)
    found = [path for folder in exact for path in _session_files(folder)]
    # Another hash of the same long prefix may be another long-named project: its sessions
    # are taken only when they say they ran here.
    spellings = set(_spellings(project))
    for folder in _long_key_folders(project, exact):
        found += [p for p in _session_files(folder) if _recorded_cwd(p) in spellings]
    stamped = []
    for path in found:
        try:
            stamped.append((path.stat().st_mtime, str(path), path))
        except OSError:
            continue  # removed meanwhile
    return [path for _, _, path in sorted(stamped)]


def project_folder(project: str | os.PathLike[str] | None = None) -> Path:
    """The project a bridge works for: ``project``, else ``$CLAUDE_PROJECT_DIR``, else the
    current folder; :class:`EverbotMemoryError` when it is not a folder."""
    folder = Path(os.path.expanduser(project)) if project is not None else project_dir()
    if not folder.is_dir():
        raise EverbotMemoryError(
            f"no project folder at {folder}; run this in the project or give --project DIR"
        )
    return folder


# -- sweep


def idle_minutes(
    value: float | None = None, memory_path: str | os.PathLike[str] | None = None
) -> float:
    """The idle time in minutes: ``value``, else the settings (``$EVERBOT_MEMORY_IDLE_MINUTES``,
    else ``idle_minutes`` in the project's or the user's config file), else 30;
    :class:`ConfigError` when one of them is not a number of minutes."""
    if value is not None:
        if not value >= 0:
            raise ConfigError(f"idle time {value!r} is not a number of minutes (0 or more)")
        return float(value)
    from .config import load_settings

    minutes = load_settings(memory_path).idle_minutes
    return DEFAULT_IDLE_MINUTES if minutes is None else minutes


@dataclass(frozen=True)
class Swept:
    """A session a sweep queued: its transcript, how many of its messages are not merged yet,
    how long it had been idle, and the job's file."""

    session_id: str
    transcript: Path
    messages: int
    idle_seconds: float
    job: Path


def _unmerged(memory: Memory, session_id: str, path: Path, fed: Memory) -> int | None:
    """How many messages of the transcript are not merged yet into ``fed`` or one of its
    ``others`` (each keeps its own ledger), counted as closing it would count them; 0 when no
    user message is among them; None when it cannot be read (the reason is added to
    ``memory``'s warnings)."""
    from ..extract.transcripts import parse_transcript

    try:
        text = path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        return 0  # removed meanwhile: nothing to sweep
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
        memory.warnings.append(f"skipped {path}: {reason or exc}")
        return None
    try:
        # Read as the worker will read it (the format detected), so that the ledger's count of
        # merged messages means the same here as there.
        transcript = parse_transcript(text, "auto")
    except TranscriptError:
        return 0  # a session with no conversation in it (opened and left): nothing to merge
    messages = transcript.as_dicts()
    new = fed.unmerged(session_id, messages)
    # Extractors read what the user said; a session whose only news is a summary Claude Code
    # appended later has nothing to extract.
    return len(new) if any(m["role"] == "user" for m in new) else 0


def _queue(
    memory: Memory, session_id: str, path: Path, memories: Sequence[str | os.PathLike[str]]
) -> Path:
    if not memories:
        return memory.jobs.queue(session_id, str(path), SWEEP_EVENT)
    from ..storage.queue import Job, JobQueue

    others = [os.fspath(m) for m in memories]
    job = Job(session_id=session_id, transcript_path=str(path), event=SWEEP_EVENT, memories=others)
    return JobQueue(memory.path).add(job)


def sweep(
    memory: Memory,
    project: str | os.PathLike[str],
    idle_seconds: float,
    now: float | None = None,
    *,
    max_age_seconds: float | None = None,
    memories: Sequence[str | os.PathLike[str]] = (),
) -> list[Swept]:
    """Queue the project's Claude Code sessions left idle ``idle_seconds`` or longer whose
    messages are not all merged into ``memory``; returns what was queued.

    A session already queued (due, waiting to retry, or set aside as failed) is not queued
    again, and one whose messages are all merged is skipped, so sweeping twice queues nothing
    the second time. ``max_age_seconds`` leaves older sessions alone (for a first sweep after
    installing, which would otherwise read the project's whole history). ``memories`` are the
    other memory files each job is extracted into, as a SessionEnd hook queues them
    (:func:`other_memories`). ``now`` is seconds since the epoch (default: the clock).
    Transcripts that cannot be read are named in ``memory.warnings``.
    """
    now = time.time() if now is None else now
    memory.warnings = []
    jobs = memory.jobs
    taken = {job.session_id for job in jobs.pending()} | {job.session_id for job in jobs.failed()}
    queued: list[Swept] = []
    fed = Memory(memory.path)  # the memories each job feeds, read for their ledgers
    fed.others = [Memory(other) for other in memories]
    for path in project_transcripts(project):
        session_id = path.stem
        if session_id in taken:
            continue
        try:
            idle = now - path.stat().st_mtime
        except OSError:
            continue  # removed meanwhile
        if idle < idle_seconds or (max_age_seconds is not None and idle > max_age_seconds):
            continue
        count = _unmerged(memory, session_id, path, fed)
        if not count:
            continue
        job = _queue(memory, session_id, path, memories)
        jobs.log(
            f"queued {SWEEP_EVENT} of session {session_id} "
            f"(idle {idle / 60:.0f} min, {count} new message(s))"
        )
        taken.add(session_id)
        queued.append(Swept(session_id, path, count, idle, job))
    return queued


def sweep_places(
    memory: Memory,
    project: str | os.PathLike[str],
    idle_seconds: float,
    max_age_seconds: float | None = None,
    *,
    own: bool = False,
) -> list[Swept]:
    """:func:`sweep` for the memory a SessionStart hook keeps: when ``memory`` is the user's
    own, each job also feeds the project's memory, as the hooks queue it. ``own`` says that
    ``memory`` is the user's own memory even though it was named (``--user``), so that the
    project's memory is fed beside it all the same."""
    if own:
        found = project_memory(project)
        also = [found.absolute()] if found is not None else []
    else:
        also = other_memories(project)
        if not also or not _same(memory.path, default_memory_path()):
            also = []
    return sweep(memory, project, idle_seconds, max_age_seconds=max_age_seconds, memories=also)


def _same(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return Path(os.path.abspath(a)) == Path(os.path.abspath(b))
