"""What the Claude Code hooks do, on the fast path: no typer, pydantic, markdown-it-py, filelock
or LLM SDK is imported while the caches beside the files hold.

- **SessionStart**: the strongest memories of the user's memory and of the project's, labelled,
  from the lines cached beside each file (:mod:`everbot_memory.storage.hot`), rebuilt from the
  file when stale; the ids shown are recorded for the session. Jobs that are due (a worker
  was killed, a retry is due) start a worker, and so does an idle-session sweep now and then.
- **UserPromptSubmit**: the memories this prompt calls for (archived ones too) that the session
  was not shown yet, matching at least 30% of what it says (:data:`PROMPT_RELEVANCE`): at most
  :data:`PROMPT_MAX_MEMORIES` in
  :data:`PROMPT_MAX_CHARS` characters, nothing when nothing is relevant.
- **SessionEnd** and **PreCompact**: the session appended to the queue (fsynced) and a detached
  worker started; nothing else, since Claude Code may kill the hook at any moment.

The blocks are measured as Claude Code counts them: characters of the JSON-encoded text.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from ..storage.paths import SideFiles

# Each event loads only what it needs: a session end queues a job and shows nothing.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..storage.hot import PromptLines, SearchRows
    from ..storage.locations import Place

__all__ = [
    "MAX_CONTEXT_CHARS",
    "PROMPT_MAX_CHARS",
    "PROMPT_MAX_LINE",
    "PROMPT_MAX_MEMORIES",
    "PROMPT_RELEVANCE",
    "SWEEP_EVERY_SECONDS",
    "group_filter",
    "jobs_due",
    "last_open_threads",
    "log_message",
    "prompt_recall",
    "queue_session",
    "record_run",
    "refresh",
    "session_start",
    "start_worker",
    "sweep_due",
]

#: Claude Code caps a hook's additionalContext at 10,000 characters; past it the model gets
#: only a preview.
MAX_CONTEXT_CHARS = 10_000
#: The per-prompt block: at most this many memories, in this many characters.
PROMPT_MAX_MEMORIES = 5
PROMPT_MAX_CHARS = 1_500
#: A memory the agent did not ask for must match at least this share of what the prompt says
#: (recall's own floor, 0.1, suits a search someone asked for): "which framework should I
#: use here?" must not bring every memory that says "use".
PROMPT_RELEVANCE = 0.3
#: One memory in the per-prompt block is cut to this length.
PROMPT_MAX_LINE = 400
#: SessionStart looks for idle sessions to sweep at most this often.
SWEEP_EVERY_SECONDS = 600.0
#: What the session was shown is kept this long (a session resumed later is shown anew).
SHOWN_KEEP_SECONDS = 7 * 86_400.0

_SAFE_ID = re.compile(r"[^A-Za-z0-9_.-]")


def refresh(
    memory_path: str | os.PathLike[str], now: float | None = None
) -> tuple[PromptLines, SearchRows]:
    """Rebuild the hooks' two files from the memory file as it is on disk (as of ``now``,
    seconds since the epoch), and return them."""
    from datetime import datetime, timezone

    from ..document.parse import parse
    from ..storage import hot, hot_build, parsed
    from ..storage.store import decode

    cached = hot.HotFiles(memory_path)
    data = cached.data()
    if data is None:  # no file yet: nothing to show, nothing to cache
        return hot.PromptLines([], [], 0), hot.SearchRows([], "", [], [], 0.0)
    from ..core.profile import profile_lines

    # The parse the last save recorded, when the file is still that version (a day passed,
    # a todo expired); else the file's own.
    doc = parsed.document(cached.files, cached.digest() or "", data) or parse(
        decode(data, memory_path)
    )
    entries = doc.entries
    when = None if now is None else datetime.fromtimestamp(now, timezone.utc)
    profile = profile_lines(doc.profile, entries)
    lines, rows = hot_build.write(memory_path, data, entries, when, profile)
    return (
        hot.PromptLines(
            lines["lines"],
            lines["ids"],
            lines["total"],
            lines["groups"],
            lines["profile"],
            lines["profile_groups"],
        ),
        hot.SearchRows.from_part(rows),
    )


def _lines(place: Place, now: float) -> PromptLines | None:
    from ..storage.hot import HotFiles

    hot = HotFiles(place.path)
    if hot.data() is None:
        return None  # no memory there yet
    return hot.prompt(now) or refresh(place.path, now)[0]


def _rows(place: Place, now: float) -> SearchRows | None:
    from ..storage.hot import HotFiles

    hot = HotFiles(place.path)
    if hot.data() is None:
        return None
    return hot.search(now) or refresh(place.path, now)[1]


def _shown_path(places: Sequence[Place], session_id: str) -> Path:
    name = _SAFE_ID.sub("_", session_id)[:120] or "session"
    return SideFiles.of(places[0].path).shown / name


def _shown(places: Sequence[Place], session_id: str) -> frozenset[str]:
    try:
        text = _shown_path(places, session_id).read_text(encoding="utf-8")
    except OSError:
        return frozenset()
    return frozenset(text.split())


def _add_shown(places: Sequence[Place], session_id: str, ids: Sequence[str], fresh: bool) -> None:
    """Record the ids shown to the session (appended; ``fresh`` starts the list anew)."""
    if not session_id:
        return
    path = _shown_path(places, session_id)
    with contextlib.suppress(OSError):  # costs at worst a memory shown twice
        SideFiles.of(places[0].path).ensure()
        path.parent.mkdir(mode=0o700, exist_ok=True)
        flags = os.O_WRONLY | os.O_CREAT | (os.O_TRUNC if fresh else os.O_APPEND)
        fd = os.open(path, flags, 0o600)
        try:
            os.write(fd, "".join(f"{i}\n" for i in ids).encode())
        finally:
            os.close(fd)


def _prune_shown(places: Sequence[Place], now: float) -> None:
    folder = SideFiles.of(places[0].path).shown
    with contextlib.suppress(OSError), os.scandir(folder) as entries:
        for entry in entries:
            with contextlib.suppress(OSError):
                if entry.stat().st_mtime < now - SHOWN_KEEP_SECONDS:
                    os.unlink(entry.path)


def group_filter(project: Path) -> frozenset[str] | None:
    """The groups a project's prompts are limited to: ``$EVERBOT_MEMORY_GROUP``, else the
    ``group`` key of the project's ``everbot-memory.toml`` ("work", or "work,none" to keep the
    memories without a group too); None: every memory."""
    from ..core.groups import filter_problem, parse_filter

    named = os.environ.get("EVERBOT_MEMORY_GROUP")
    if named is None:
        config = project / "everbot-memory.toml"
        if not config.is_file():
            return None
        if sys.version_info >= (3, 11):
            import tomllib
        else:  # pragma: no cover - Python 3.10 has no tomllib; tomli is the same parser
            import tomli as tomllib
        try:
            value = tomllib.loads(config.read_text(encoding="utf-8")).get("group")
        except (OSError, ValueError) as exc:
            # The hook fails with one line in its log (and on stderr), and gives no memories
            # rather than the ones the project may have meant to keep out.
            raise ValueError(f"{config} is not readable TOML: {exc}") from exc
        if value is None:
            return None
        if not isinstance(value, str):
            raise ValueError(f'{config}: group must be a string such as "work", not {value!r}')
        named = value
    problem = filter_problem(named)
    if problem:
        # The hook's log and doctor say so; showing every memory instead could show a
        # project what it was set to keep out.
        raise ValueError(f"group filter {named!r}: {problem}")
    return parse_filter(named)


def last_open_threads(places: Sequence[Place]) -> tuple[str, list[str]] | None:
    """The day and open threads of the last session noted beside the project's memory (the
    last place), when it left any (:func:`everbot_memory.facade.threads.open_threads_of`)."""
    from .threads import open_threads_of

    return open_threads_of(places[-1].path)


def session_start(
    places: Sequence[Place],
    session_id: str,
    now: float | None = None,
    lang: str = "en",
    groups: frozenset[str] | None = None,
) -> str:
    """The session-start block of ``places`` ("" when there is nothing to show), limited to
    ``groups`` (None: every memory); records what it shows for the session's later prompts."""
    from ..core.block import THREADS_MAX_CHARS, Section, compose, encoded_length, threads_block
    from ..core.rules import PROMPT_TOP_K

    now = time.time() if now is None else now
    sections = []
    profile: list[str] = []
    seen: set[str] = set()  # a memory both places hold is shown once, as the first has it
    for place in places:
        lines = _lines(place, now)
        if lines is not None:
            lines = lines.only(groups, PROMPT_TOP_K)
            profile = profile or lines.profile  # the user's own, else the project's
        if lines is None or not lines.lines:
            continue
        pairs = [(t, i) for t, i in zip(lines.lines, lines.ids, strict=True) if t not in seen]
        seen.update(lines.lines)
        if pairs:
            texts, ids = [t for t, _ in pairs], [i for _, i in pairs]
            sections.append(Section(place.scope, texts, ids, lines.total))
    last = last_open_threads(places)
    threads = threads_block(last[0], last[1], THREADS_MAX_CHARS, lang) if last else ""
    room = MAX_CONTEXT_CHARS - (encoded_length("\n\n" + threads) if threads else 0)
    block = compose(sections, room, lang, profile)
    if threads:
        block = f"{block}\n\n{threads}" if block else threads
    shown = [i for section in sections for i in section.shown_ids]
    _add_shown(places, session_id, shown, fresh=True)
    _prune_shown(places, now)
    return block


def prompt_recall(
    places: Sequence[Place],
    session_id: str,
    prompt: str,
    now: float | None = None,
    groups: frozenset[str] | None = None,
) -> str:
    """The per-prompt block: memories relevant to ``prompt`` the session was not shown yet
    ("" when none is relevant enough); records what it shows."""
    from ..core.block import prompt_block
    from ..core.text import CJK_RE, search_tokens  # the tokens recall weighs

    terms = search_tokens(prompt)
    if not terms:
        return ""
    now = time.time() if now is None else now
    skip = _shown(places, session_id)

    def single(term: str) -> bool:
        return len(term) == 1 and CJK_RE.match(term) is not None

    hits = []
    for place in places:
        rows = _rows(place, now)
        if rows is not None:
            found = rows.search(
                terms,
                now,
                PROMPT_MAX_MEMORIES,
                PROMPT_RELEVANCE,
                skip=skip,
                is_single=single,
                groups=groups,
            )
            hits.extend(found)
    hits.sort(key=lambda hit: (-hit[3], hit[0]))
    hits = hits[:PROMPT_MAX_MEMORIES]
    lines = [_cut(line, PROMPT_MAX_LINE) for _, line, _, _ in hits]
    block, kept = prompt_block(lines, PROMPT_MAX_CHARS)
    _add_shown(places, session_id, [hit[0] for hit in hits[:kept]], fresh=False)
    return block


def _cut(line: str, limit: int) -> str:
    return line if len(line) <= limit else line[: limit - 1] + "…"


def queue_session(
    places: Sequence[Place], session_id: str, transcript_path: str, event: str
) -> Path:
    """Append the session to the first place's queue (fsynced); the worker extracts it into
    every place (see :meth:`everbot_memory.facade.memory.Memory.close_places`)."""
    from ..storage.queue import Job, JobQueue

    queue = JobQueue(places[0].path)
    job = Job(
        session_id=session_id,
        transcript_path=transcript_path,
        event=event,
        memories=[str(p.path) for p in places[1:]],
    )
    return queue.add(job)


def jobs_due(places: Sequence[Place], now: float | None = None) -> bool:
    """True when the first place's queue holds a job due now."""
    folder = SideFiles.of(places[0].path).folder / "jobs"
    try:
        if not any(name.endswith(".json") for name in os.listdir(folder)):
            return False  # the usual case, told without reading a job
    except OSError:
        return False
    from ..storage.queue import JobQueue

    now = time.time() if now is None else now
    return any(job.not_before <= now for job in JobQueue(places[0].path).pending())


def sweep_due(places: Sequence[Place], now: float | None = None) -> bool:
    """True when no sweep for idle sessions was started in the last
    :data:`SWEEP_EVERY_SECONDS`; marks one as started."""
    now = time.time() if now is None else now
    SideFiles.of(places[0].path).ensure()
    mark = SideFiles.of(places[0].path).last_sweep
    try:
        if now - mark.stat().st_mtime < SWEEP_EVERY_SECONDS:
            return False
    except OSError:
        pass
    with contextlib.suppress(OSError):
        mark.touch()
        os.utime(mark, (now, now))
    return True


def start_worker(memory_path: str | os.PathLike[str], *extra: str, note: str = "") -> int:
    """Start a detached ``process-pending`` worker for the memory at ``memory_path`` (after
    logging ``note``); returns its pid at once. It is a process of its own session, so it
    outlives the hook."""
    import sys

    from ..storage.queue import JobQueue

    queue = JobQueue(memory_path)
    # Logged first: this creates the log 0600 before the child appends to it.
    queue.log(f"{note}; starting a worker" if note else "starting a worker")
    command = [sys.executable, "-m", "everbot_memory", "process-pending", "--quiet"]
    command += ["--file", str(memory_path), *extra]
    if hasattr(os, "fork") and hasattr(os, "setsid"):
        # A bare fork: the hook returns as soon as the child exists, not once it has started
        # Python (subprocess and posix_spawn wait for the exec).
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child, which becomes the worker
            _become_worker(command, str(queue.log_path))
        return pid
    import subprocess

    with open(queue.log_path, "ab") as log:
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,  # outlives the hook, which Claude Code may kill
            close_fds=True,
        )
    return process.pid


def _become_worker(command: list[str], log_path: str) -> None:  # pragma: no cover - a child
    """In a forked child: a session of its own (Claude Code may kill the hook's), the log as
    its output, nothing else of the hook's open, then the worker."""
    try:
        os.setsid()
        null = os.open(os.devnull, os.O_RDONLY)
        log = os.open(log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        os.dup2(null, 0)
        os.dup2(log, 1)
        os.dup2(log, 2)
        try:
            inherited = [int(fd) for fd in os.listdir("/proc/self/fd") if int(fd) > 2]
        except OSError:
            inherited = list(range(3, 256))
        for fd in inherited:
            with contextlib.suppress(OSError):
                os.close(fd)
        os.execv(command[0], command)
    finally:
        os._exit(127)


def log_message(places: Sequence[Place], message: str) -> Path:
    """Append ``message`` to the first memory's log; returns the log's path."""
    from ..storage.queue import JobQueue

    queue = JobQueue(places[0].path)
    queue.log(message)
    return queue.log_path


def record_run(
    places: Sequence[Place], event: str, seconds: float, error: str | None = None
) -> None:
    """Keep the last hook run (event, when, how long, outcome) beside the first memory, for
    ``doctor``; a folder that cannot be written loses only that."""
    record = {
        "event": event,
        "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "seconds": round(seconds, 4),
        "ok": error is None,
        "error": error,
    }
    files = SideFiles.of(places[0].path)
    files.ensure()  # a first hook on a new machine is recorded too
    path = files.last_hook
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.write(fd, json.dumps(record).encode())
        finally:
            os.close(fd)
