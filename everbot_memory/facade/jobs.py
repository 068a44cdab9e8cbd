"""The worker that empties the job queue (see :mod:`everbot_memory.storage.queue`).

A worker takes the queue's worker lock (one worker at a time), processes the jobs oldest first,
and deletes each when its memories are saved. A job that fails is retried by the next worker
run, up to :data:`MAX_ATTEMPTS` times, then set aside in ``failed/``. A session seen at
PreCompact and again at SessionEnd only has its new messages extracted (the session ledger).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import EverbotMemoryError
from ..storage.queue import Job, JobQueue
from .reports import SessionReport

__all__ = ["MAX_ATTEMPTS", "CloseSession", "Jobs", "WorkReport", "work"]

MAX_ATTEMPTS = 3


@dataclass
class WorkReport:
    """What a worker run did."""

    done: int = 0
    failed: int = 0
    new: int = 0
    updated: int = 0
    messages: list[str] = field(default_factory=list)


class _StopRun(Exception):
    """Ends a worker run after a failure that may pass (the next run retries)."""


#: Extracts and merges one queued session: ``close(transcript_path, session_id)``.
CloseSession = Callable[[str, str], SessionReport]


def work(queue: JobQueue, close: CloseSession) -> WorkReport | None:
    """Process every pending job of ``queue`` with ``close``; None when another worker is at
    it."""
    report = WorkReport()
    with queue.worker_slot() as taken:
        if not taken:
            return None
        queue.expire_failed()
        try:
            while jobs := queue.pending():
                for job in jobs:
                    _run(queue, job, report, close)
        except _StopRun:
            pass  # a job failed: the next worker run tries again, not a tight loop now
    return report


def _run(queue: JobQueue, job: Job, report: WorkReport, close: CloseSession) -> None:
    try:
        result = close(job.transcript_path, job.session_id)
        for warning in result.warnings:
            queue.log(f"session {job.session_id}: {warning}")
        queue.done(job)
        stats = result.stats
        report.done += 1
        report.new += stats["new"]
        report.updated += stats["updated"]
        report.messages.append(
            f"session {job.session_id} ({job.event}): {stats['messages']} new message(s), "
            f"{stats['new']} new and {stats['updated']} updated memories"
        )
        queue.log(report.messages[-1])
    except (EverbotMemoryError, OSError) as exc:  # TranscriptError is one of the former
        job.attempts += 1
        report.failed += 1
        message = f"session {job.session_id} ({job.event}) failed: {exc}"
        report.messages.append(message)
        if job.attempts >= MAX_ATTEMPTS:
            queue.log(f"{message}; gave up after {job.attempts} attempts (job in failed/)")
            assert job.path is not None
            queue.fail(job.path)
        else:
            queue.log(f"{message}; will retry ({job.attempts}/{MAX_ATTEMPTS})")
            queue.update(job)
            raise _StopRun() from exc


class Jobs:
    """The job queue of one memory file, as the faces use it: hooks queue sessions and log, a
    worker processes them."""

    def __init__(self, memory_path: str | os.PathLike[str], close: CloseSession) -> None:
        self._queue = JobQueue(memory_path)
        self._close = close

    @property
    def log_path(self) -> Path:
        """``MEMORY.md.log``, where hooks and workers report."""
        return self._queue.log_path

    def queue(self, session_id: str, transcript_path: str, event: str) -> Path:
        """Record a session for the worker to extract (durably); returns the job's file."""
        job = Job(session_id=session_id, transcript_path=transcript_path, event=event)
        return self._queue.add(job)

    def pending(self) -> list[Job]:
        """The queued sessions not yet extracted, oldest first."""
        return self._queue.pending()

    def process(self) -> WorkReport | None:
        """Extract every queued session; None when another worker is already at it."""
        return work(self._queue, self._close)

    def log(self, message: str) -> None:
        """Append a line to the log (hooks must not print to the agent)."""
        self._queue.log(message)
