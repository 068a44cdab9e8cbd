"""The worker that empties the job queue (see :mod:`everbot_memory.storage.queue`).

A worker takes the queue's worker lock (one worker at a time), processes the jobs that are due,
oldest first, and deletes each when its memories are saved. Whatever a job raises, it is
counted: its attempts go up, its error is recorded, and it waits before the next try
(:data:`RETRY_DELAYS`: 30 s, 2 min, 10 min); after :data:`MAX_ATTEMPTS` it is set aside in
``failed/`` with its reason, where :meth:`Jobs.retry_failed` finds it. A job never stops the
worker; an API or file problem ends the run (the next job would meet it too), any other lets
the worker go on with the next job. A session seen at PreCompact and again at SessionEnd only
has its new messages extracted (the session ledger).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import EverbotMemoryError, ExtractionError, StoreError
from ..storage.queue import Job, JobQueue
from .reports import SessionReport

__all__ = ["MAX_ATTEMPTS", "RETRY_DELAYS", "CloseSession", "Jobs", "WorkReport", "work"]

#: How many times a job is tried before it is set aside in ``failed/``.
MAX_ATTEMPTS = 4
#: Seconds a failed job waits before its next try: after the first failure, the second, ...
RETRY_DELAYS: tuple[float, ...] = (30.0, 120.0, 600.0)


@dataclass
class WorkReport:
    """What a worker run did."""

    done: int = 0
    failed: int = 0
    new: int = 0
    updated: int = 0
    #: Jobs left waiting for their next try (not yet due).
    waiting: int = 0
    messages: list[str] = field(default_factory=list)


class _StopRun(Exception):
    """Ends a worker run after a failure the next job would likely meet too."""


#: Extracts and merges one queued session: ``close(transcript_path, session_id)``, and
#: ``also=[paths]`` for a session that feeds a project's memory too.
CloseSession = Callable[..., SessionReport]


def _delay(attempts: int) -> float:
    return RETRY_DELAYS[min(attempts, len(RETRY_DELAYS)) - 1]


def _when(seconds: float) -> str:
    """A wait as people say it: "45 s", "2 min"."""
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.0f} min"


def work(queue: JobQueue, close: CloseSession) -> WorkReport | None:
    """Process every due job of ``queue`` with ``close``; None when another worker is at it."""
    report = WorkReport()
    with queue.worker_slot() as taken:
        if not taken:
            return None
        queue.expire_failed()
        tried: set[Path | None] = set()
        try:
            # Again until nothing is due: a hook may queue a job while this run works.
            while due := [
                job
                for job in queue.pending()
                if job.path not in tried and job.not_before <= time.time()
            ]:
                for job in due:
                    tried.add(job.path)
                    _run(queue, job, report, close)
        except _StopRun:
            pass  # the next worker run goes on, not a tight loop now
        for job in queue.pending():
            if job.path not in tried and job.not_before > time.time():
                report.waiting += 1
                report.messages.append(
                    f"session {job.session_id} ({job.event}): waiting "
                    f"{_when(job.not_before - time.time())} to retry "
                    f"({job.attempts}/{MAX_ATTEMPTS} tries failed, last: {job.error})"
                )
    return report


def _run(queue: JobQueue, job: Job, report: WorkReport, close: CloseSession) -> None:
    try:
        also = {"also": job.memories} if job.memories else {}  # a project's memory too
        result = close(job.transcript_path, job.session_id, **also)
    except Exception as exc:  # whatever a job raises is counted: it must not kill the worker
        stop = isinstance(exc, (ExtractionError, StoreError))
        _failed(queue, job, report, exc)
        if stop:
            raise _StopRun() from exc
        return
    for warning in result.warnings:
        queue.log(f"session {job.session_id}: warning: {warning}")
    queue.done(job)
    stats = result.stats
    report.done += 1
    report.new += stats["new"]
    report.updated += stats["updated"]
    report.messages += [f"session {job.session_id}: warning: {w}" for w in result.warnings]
    report.messages.append(
        f"session {job.session_id} ({job.event}): {stats['messages']} new message(s), "
        f"{stats['new']} new and {stats['updated']} updated memories"
    )
    queue.log(report.messages[-1])


def _failed(queue: JobQueue, job: Job, report: WorkReport, exc: Exception) -> None:
    """Count a failed attempt: retried later, or set aside in failed/ with its reason."""
    # The library's own errors are one line for a person; anything else is named by its type.
    plain = isinstance(exc, EverbotMemoryError)
    job.error = str(exc) if plain else f"{type(exc).__name__}: {exc}"
    job.attempts += 1
    report.failed += 1
    message = f"session {job.session_id} ({job.event}) failed: {job.error}"
    if job.attempts >= MAX_ATTEMPTS:
        report.messages.append(f"{message}; gave up after {job.attempts} tries (job in failed/)")
        queue.update(job)
        assert job.path is not None
        queue.fail(job.path)
    else:
        job.not_before = time.time() + _delay(job.attempts)
        report.messages.append(
            f"{message}; will retry in {_when(_delay(job.attempts))} "
            f"({job.attempts}/{MAX_ATTEMPTS})"
        )
        queue.update(job)
    queue.log(report.messages[-1])


class Jobs:
    """The job queue of one memory file, as the faces use it: hooks queue sessions and log, a
    worker processes them."""

    def __init__(self, memory_path: str | os.PathLike[str], close: CloseSession) -> None:
        self._queue = JobQueue(memory_path)
        self._close = close

    @property
    def log_path(self) -> Path:
        """``.MEMORY.md.everbot/log``, where hooks and workers report."""
        return self._queue.log_path

    def queue(self, session_id: str, transcript_path: str, event: str) -> Path:
        """Record a session for the worker to extract (durably); returns the job's file."""
        job = Job(session_id=session_id, transcript_path=transcript_path, event=event)
        return self._queue.add(job)

    def pending(self) -> list[Job]:
        """The queued sessions not yet extracted, oldest first (due or waiting to retry)."""
        return self._queue.pending()

    def due(self) -> list[Job]:
        """The queued sessions a worker would process now (not waiting to retry)."""
        now = time.time()
        return [job for job in self._queue.pending() if job.not_before <= now]

    def failed(self) -> list[Job]:
        """The sessions set aside in ``failed/`` after too many tries; each says why."""
        return self._queue.failed()

    def retry_failed(self) -> int:
        """Queue every failed session again, and make those waiting to retry due now, each
        with fresh tries (after the cause is fixed: a key, the network); returns how many."""
        jobs = [j for j in self._queue.pending() if j.attempts or j.not_before]
        jobs += [j for j in self._queue.failed() if not j.damaged]
        for job in jobs:
            self._queue.retry(job)
        if jobs:
            self._queue.log(f"{len(jobs)} failed job(s) queued again")
        return len(jobs)

    def process(self) -> WorkReport | None:
        """Extract every due session; None when another worker is already at it."""
        return work(self._queue, self._close)

    def log(self, message: str) -> None:
        """Append a line to the log (hooks must not print to the agent)."""
        self._queue.log(message)
