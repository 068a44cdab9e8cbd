"""The durable job queue beside MEMORY.md, and the worker that empties it.

Session-end hooks must return in about a second, but extraction can take many. So a hook only
records a job (one JSON file in ``MEMORY.md.jobs/``, written atomically) and starts a detached
worker. A worker takes ``worker.lock`` (one worker at a time), processes the jobs oldest first,
and deletes each when its memories are saved. A job whose worker died stays in the folder and is
done by the next worker (started by the next hook call, or by ``everbot-memory process-pending``).

A session seen at PreCompact and again at SessionEnd only has its new messages extracted: the
manager's session ledger (:mod:`everbot_memory.sessions`) remembers what was merged. Deleting
the folder loses only the jobs not yet done.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import filelock

from .errors import EverbotMemoryError
from .store import write_atomically

__all__ = ["Job", "JobQueue", "WorkReport", "start_worker"]

MAX_ATTEMPTS = 3


@dataclass
class Job:
    """One session to extract: where its transcript is and what event queued it."""

    session_id: str
    transcript_path: str
    event: str
    queued_at: float = field(default_factory=time.time)
    attempts: int = 0
    path: Path | None = None  # the job's file, once queued

    def to_json(self) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "transcript_path": self.transcript_path,
            "event": self.event,
            "queued_at": self.queued_at,
            "attempts": self.attempts,
        }


@dataclass
class WorkReport:
    """What a worker run did."""

    done: int = 0
    failed: int = 0
    new: int = 0
    updated: int = 0
    messages: list[str] = field(default_factory=list)


class JobQueue:
    """The queue folder of one memory file: ``MEMORY.md.jobs/``."""

    def __init__(self, memory_path: str | os.PathLike[str]) -> None:
        self.memory_path = Path(memory_path)
        real = Path(os.path.realpath(self.memory_path))
        self.folder = real.with_name(real.name + ".jobs")
        self.failed_folder = self.folder / "failed"
        self.log_path = real.with_name(real.name + ".log")

    # -- queueing

    def add(self, job: Job) -> Path:
        """Record a job durably (temp file, fsync, rename) and return its file."""
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        name = f"{time.time_ns():020d}-{uuid.uuid4().hex[:8]}.json"
        write_atomically(self.folder / name, json.dumps(job.to_json()).encode())
        return self.folder / name

    def pending(self) -> list[Job]:
        """The jobs not yet done, oldest first."""
        if not self.folder.is_dir():
            return []
        jobs = []
        for path in sorted(self.folder.glob("*.json")):
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
                job = Job(
                    session_id=str(data["session_id"]),
                    transcript_path=str(data["transcript_path"]),
                    event=str(data.get("event", "")),
                    queued_at=float(data.get("queued_at", 0)),
                    attempts=int(data.get("attempts", 0)),
                    path=path,
                )
            except (OSError, ValueError, KeyError, TypeError) as exc:
                self.log(f"unreadable job {path.name} moved to failed/: {exc}")
                self._fail(path)
                continue
            jobs.append(job)
        return jobs

    # -- the log

    def log(self, message: str) -> None:
        """Append a line to ``MEMORY.md.log`` (hooks must not print to the agent)."""
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
        line = f"{stamp} [{os.getpid()}] {message}\n".encode()
        # A log that cannot be written must not break a hook. 0600: it names sessions.
        with contextlib.suppress(OSError):
            fd = os.open(self.log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(fd, line)
            finally:
                os.close(fd)

    # -- the worker

    def work(self, make_extractor: Callable[[], Any] | None = None) -> WorkReport | None:
        """Process every pending job; None when another worker is already at it."""
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        lock = filelock.FileLock(str(self.folder / "worker.lock"), timeout=0)
        try:
            lock.acquire()
        except filelock.Timeout:
            return None
        report = WorkReport()
        try:
            while True:
                jobs = self.pending()
                if not jobs:
                    break
                for job in jobs:
                    self._run(job, report, make_extractor)
        except _StopRun:
            pass
        finally:
            lock.release()
        return report

    def _run(self, job: Job, report: WorkReport, make_extractor: Callable[[], Any] | None) -> None:
        from .manager import MemoryManager
        from .transcripts import read_transcript

        assert job.path is not None
        try:
            transcript = read_transcript(job.transcript_path)
            manager = MemoryManager(self.memory_path)
            manager.extractor = make_extractor() if make_extractor else _default_extractor()
            # Only messages not merged before are extracted (the manager's session ledger).
            stats = manager.process_session_end_sync(transcript.as_dicts(), job.session_id)
            for warning in manager.warnings:
                self.log(f"session {job.session_id}: {warning}")
            job.path.unlink(missing_ok=True)
            report.done += 1
            report.new += stats["new"]
            report.updated += stats["updated"]
            report.messages.append(
                f"session {job.session_id} ({job.event}): {stats['messages']} new message(s), "
                f"{stats['new']} new and {stats['updated']} updated memories"
            )
            self.log(report.messages[-1])
        except (EverbotMemoryError, OSError) as exc:  # TranscriptError is one of the former
            job.attempts += 1
            report.failed += 1
            message = f"session {job.session_id} ({job.event}) failed: {exc}"
            report.messages.append(message)
            if job.attempts >= MAX_ATTEMPTS:
                self.log(f"{message}; gave up after {job.attempts} attempts (job in failed/)")
                self._fail(job.path)
            else:
                self.log(f"{message}; will retry ({job.attempts}/{MAX_ATTEMPTS})")
                data = {**job.to_json(), "attempts": job.attempts}
                with contextlib.suppress(OSError):
                    write_atomically(job.path, json.dumps(data).encode())
                # Try again on the next worker run, not in a tight loop now.
                raise _StopRun() from exc

    def _fail(self, path: Path) -> None:
        self.failed_folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        with contextlib.suppress(OSError):
            os.replace(path, self.failed_folder / path.name)


class _StopRun(Exception):
    """Ends a worker run after a failure that may pass (the next run retries)."""


def _default_extractor() -> Any:
    from .extractor import ClaudeExtractor, RuleExtractor

    return ClaudeExtractor() if os.environ.get("ANTHROPIC_API_KEY") else RuleExtractor()


def start_worker(memory_path: str | os.PathLike[str]) -> int:
    """Start a detached ``process-pending`` worker; returns its pid at once."""
    queue = JobQueue(memory_path)
    queue.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    queue.log("starting a worker")  # creates the log 0600 before the child appends to it
    log = open(queue.log_path, "ab")  # noqa: SIM115 - handed to the child, closed below
    try:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "everbot_memory",
                "process-pending",
                "--quiet",
                "--file",
                str(memory_path),
            ],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,  # outlives the hook, which Claude Code may kill
            close_fds=True,
        )
    finally:
        log.close()
    return process.pid
